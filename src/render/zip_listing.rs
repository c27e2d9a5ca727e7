//! The file list of a zip archive (a job's artifacts), read from its
//! central directory: names and sizes, nothing decompressed.
//!
//! Zip64 archives (over 4 GiB or 65,535 entries) are read through their
//! Zip64 end record and the Zip64 extra field of each entry.
//!
//! Everything the listing needs is at the archive's end, so an archive is
//! read as it streams keeping only its last bytes (`Tail`): an artifacts
//! archive of hundreds of megabytes costs the window, not the archive.

use std::collections::VecDeque;

/// The most of an archive's end kept while it streams: room for a central
/// directory of about 60,000 entries (46 bytes, a name of about 90 and
/// their extra fields each). A longer one is not listed; GitLab's
/// `artifacts/tree` lists it a directory at a time.
pub const TAIL_WINDOW: usize = 8 * 1024 * 1024;

/// An archive's last bytes, kept as it streams.
pub struct Tail {
    kept: VecDeque<u8>,
    window: usize,
    /// Bytes read in all.
    read: u64,
}

impl Tail {
    pub fn new(window: usize) -> Self {
        Tail {
            // The whole window at once: growing by doubling left each
            // smaller buffer freed but still counted (an allocator keeps
            // freed memory a while), twice the window at the peak. Only
            // the bytes written are ever touched.
            kept: VecDeque::with_capacity(window),
            window,
            read: 0,
        }
    }

    pub fn feed(&mut self, chunk: &[u8]) {
        self.read += chunk.len() as u64;
        let chunk = &chunk[chunk.len().saturating_sub(self.window)..];
        let over = (self.kept.len() + chunk.len()).saturating_sub(self.window);
        self.kept.drain(..over);
        self.kept.extend(chunk);
    }

    /// The kept bytes and the offset in the archive of the first of them.
    pub fn finish(self) -> (Vec<u8>, u64) {
        let base = self.read - self.kept.len() as u64;
        (Vec::from(self.kept), base)
    }
}

/// Why an archive was not listed.
#[derive(Debug, PartialEq)]
pub enum Unlisted {
    NotZip,
    /// The central directory starts before the kept end (`Tail`).
    DirectoryTooLarge,
}

pub struct Entry {
    pub name: String,
    pub size: u64,
}

fn u16_at(b: &[u8], at: usize) -> Option<u64> {
    b.get(at..at + 2)
        .map(|s| u64::from(u16::from_le_bytes([s[0], s[1]])))
}

fn u32_at(b: &[u8], at: usize) -> Option<u64> {
    b.get(at..at + 4)
        .map(|s| u64::from(u32::from_le_bytes([s[0], s[1], s[2], s[3]])))
}

fn u64_at(b: &[u8], at: usize) -> Option<u64> {
    b.get(at..at + 8)
        .map(|s| u64::from_le_bytes(s.try_into().unwrap()))
}

/// The entries of the archive whose bytes from offset `base` to its end
/// are `zip` (0: the whole archive).
pub fn entries(zip: &[u8], base: u64) -> Result<Vec<Entry>, Unlisted> {
    // An offset the archive gives, as an index into what was kept.
    let index = |offset: u64| {
        let at = offset
            .checked_sub(base)
            .ok_or(Unlisted::DirectoryTooLarge)?;
        usize::try_from(at).map_err(|_| Unlisted::NotZip)
    };
    // The end of central directory record: 22 bytes plus a comment of at
    // most 65,535 bytes, found from the end.
    let lowest = zip.len().saturating_sub(22 + 65_535);
    let last = zip.len().checked_sub(22).ok_or(Unlisted::NotZip)?;
    let eocd = (lowest..=last)
        .rev()
        .find(|&i| zip[i..i + 4] == [0x50, 0x4b, 0x05, 0x06])
        .ok_or(Unlisted::NotZip)?;
    let mut count = u16_at(zip, eocd + 10).ok_or(Unlisted::NotZip)?;
    let mut offset = u32_at(zip, eocd + 16).ok_or(Unlisted::NotZip)?;
    if (count == 0xFFFF || offset == 0xFFFF_FFFF)
        && eocd >= 20
        && zip[eocd - 20..eocd - 16] == [0x50, 0x4b, 0x06, 0x07]
    {
        let record = index(u64_at(zip, eocd - 20 + 8).ok_or(Unlisted::NotZip)?)?;
        if zip.get(record..record + 4) != Some(&[0x50, 0x4b, 0x06, 0x06]) {
            return Err(Unlisted::NotZip);
        }
        count = u64_at(zip, record + 32).ok_or(Unlisted::NotZip)?;
        offset = u64_at(zip, record + 48).ok_or(Unlisted::NotZip)?;
    }
    let at = index(offset)?;
    central_directory(zip, at, count).ok_or(Unlisted::NotZip)
}

/// `count` central directory headers from `at`.
fn central_directory(zip: &[u8], mut at: usize, count: u64) -> Option<Vec<Entry>> {
    let mut out = Vec::new();
    for _ in 0..count {
        if zip.get(at..at + 4)? != [0x50, 0x4b, 0x01, 0x02] {
            return None;
        }
        let mut size = u32_at(zip, at + 24)?;
        let name_len = usize::try_from(u16_at(zip, at + 28)?).ok()?;
        let extra_len = usize::try_from(u16_at(zip, at + 30)?).ok()?;
        let comment_len = usize::try_from(u16_at(zip, at + 32)?).ok()?;
        let name = String::from_utf8_lossy(zip.get(at + 46..at + 46 + name_len)?).into_owned();
        if size == 0xFFFF_FFFF {
            // The Zip64 extra field (id 1) holds the real size first.
            let extra = zip.get(at + 46 + name_len..at + 46 + name_len + extra_len)?;
            let mut e = 0;
            while e + 4 <= extra.len() {
                let id = u16_at(extra, e)?;
                let len = usize::try_from(u16_at(extra, e + 2)?).ok()?;
                if id == 1 {
                    size = u64_at(extra, e + 4)?;
                    break;
                }
                e += 4 + len;
            }
        }
        out.push(Entry { name, size });
        at += 46 + name_len + extra_len + comment_len;
    }
    Some(out)
}

/// One line per file, directories left out.
pub fn listing(zip: &[u8], base: u64) -> Result<String, Unlisted> {
    let entries = entries(zip, base)?;
    let files: Vec<&Entry> = entries.iter().filter(|e| !e.name.ends_with('/')).collect();
    let total: u64 = files.iter().map(|e| e.size).sum();
    let mut out = format!("{} files, {total} bytes uncompressed:\n", files.len());
    for e in files {
        out.push_str(&format!("{} ({} bytes)\n", e.name, e.size));
    }
    Ok(out)
}

#[cfg(test)]
mod tests;

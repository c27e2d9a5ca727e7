//! The file list of a zip archive (a job's artifacts), read from its
//! central directory: names and sizes, nothing decompressed.
//!
//! Zip64 archives (over 4 GiB or 65,535 entries) are read through their
//! Zip64 end record and the Zip64 extra field of each entry.

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

/// The entries of the archive, or `None` when it is not a readable zip.
pub fn entries(zip: &[u8]) -> Option<Vec<Entry>> {
    // The end of central directory record: 22 bytes plus a comment of at
    // most 65,535 bytes, found from the end.
    let lowest = zip.len().saturating_sub(22 + 65_535);
    let eocd = (lowest..=zip.len().checked_sub(22)?)
        .rev()
        .find(|&i| zip[i..i + 4] == [0x50, 0x4b, 0x05, 0x06])?;
    let mut count = u16_at(zip, eocd + 10)?;
    let mut offset = u32_at(zip, eocd + 16)?;
    if (count == 0xFFFF || offset == 0xFFFF_FFFF)
        && eocd >= 20
        && zip[eocd - 20..eocd - 16] == [0x50, 0x4b, 0x06, 0x07]
    {
        let record = usize::try_from(u64_at(zip, eocd - 20 + 8)?).ok()?;
        if zip.get(record..record + 4)? != [0x50, 0x4b, 0x06, 0x06] {
            return None;
        }
        count = u64_at(zip, record + 32)?;
        offset = u64_at(zip, record + 48)?;
    }
    let mut at = usize::try_from(offset).ok()?;
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
pub fn listing(zip: &[u8]) -> Option<String> {
    let entries = entries(zip)?;
    let files: Vec<&Entry> = entries.iter().filter(|e| !e.name.ends_with('/')).collect();
    let total: u64 = files.iter().map(|e| e.size).sum();
    let mut out = format!("{} files, {total} bytes uncompressed:\n", files.len());
    for e in files {
        out.push_str(&format!("{} ({} bytes)\n", e.name, e.size));
    }
    Some(out)
}

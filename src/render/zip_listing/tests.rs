//! The listing of an archive's kept end against the whole archive's.

use super::*;

/// A zip of stored entries (each `size` bytes of padding), as GitLab's
/// artifacts archives are laid out: local headers and data, then the
/// central directory, then its end record.
fn zip(names: &[String], size: usize) -> Vec<u8> {
    let mut out = Vec::new();
    let mut central = Vec::new();
    for name in names {
        let offset = out.len() as u32;
        let len = name.len() as u16;
        out.extend_from_slice(&[0x50, 0x4b, 0x03, 0x04]);
        out.extend_from_slice(&[0; 14]);
        out.extend_from_slice(&(size as u32).to_le_bytes());
        out.extend_from_slice(&(size as u32).to_le_bytes());
        out.extend_from_slice(&len.to_le_bytes());
        out.extend_from_slice(&0u16.to_le_bytes());
        out.extend_from_slice(name.as_bytes());
        out.extend(std::iter::repeat_n(b'x', size));
        central.extend_from_slice(&[0x50, 0x4b, 0x01, 0x02]);
        central.extend_from_slice(&[0; 16]);
        central.extend_from_slice(&(size as u32).to_le_bytes());
        central.extend_from_slice(&(size as u32).to_le_bytes());
        central.extend_from_slice(&len.to_le_bytes());
        central.extend_from_slice(&[0; 12]);
        central.extend_from_slice(&offset.to_le_bytes());
        central.extend_from_slice(name.as_bytes());
    }
    let at = out.len() as u32;
    let count = names.len() as u16;
    out.extend_from_slice(&central);
    out.extend_from_slice(&[0x50, 0x4b, 0x05, 0x06, 0, 0, 0, 0]);
    out.extend_from_slice(&count.to_le_bytes());
    out.extend_from_slice(&count.to_le_bytes());
    out.extend_from_slice(&(central.len() as u32).to_le_bytes());
    out.extend_from_slice(&at.to_le_bytes());
    out.extend_from_slice(&0u16.to_le_bytes());
    out
}

fn streamed(archive: &[u8], window: usize, chunk: usize) -> Result<String, Unlisted> {
    let mut tail = Tail::new(window);
    for piece in archive.chunks(chunk) {
        tail.feed(piece);
    }
    let (end, base) = tail.finish();
    assert!(end.len() <= window);
    listing(&end, base)
}

#[test]
fn an_archive_read_by_its_end_lists_as_the_whole() {
    let names: Vec<String> = (0..300).map(|i| format!("target/report-{i}.xml")).collect();
    let archive = zip(&names, 1_000);
    let whole = listing(&archive, 0).expect("a zip");
    assert!(
        whole.starts_with(
            "300 files, 300000 bytes uncompressed:\ntarget/report-0.xml (1000 bytes)\n"
        )
    );
    for window in [25_000, 100_000, archive.len(), archive.len() * 2] {
        for chunk in [1, 7, 4096, 65_536, archive.len()] {
            assert_eq!(
                streamed(&archive, window, chunk),
                Ok(whole.clone()),
                "window {window}, chunks of {chunk}"
            );
        }
    }
}

#[test]
fn a_directory_longer_than_the_window_is_said_so() {
    let names: Vec<String> = (0..300).map(|i| format!("target/report-{i}.xml")).collect();
    let archive = zip(&names, 1_000);
    assert_eq!(
        streamed(&archive, 5_000, 4096),
        Err(Unlisted::DirectoryTooLarge)
    );
    assert_eq!(
        streamed(b"not a zip at all, just text", 5_000, 3),
        Err(Unlisted::NotZip)
    );
    assert_eq!(listing(b"", 0), Err(Unlisted::NotZip));
}

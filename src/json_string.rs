//! A JSON string written eight bytes at a time.
//!
//! serde_json escapes a string a byte at a time and copies each run between
//! two escapes with a call of its own: 14.8 instructions a byte of GitLab's
//! JSON, where a quote comes every few bytes, and an answer's text is that
//! JSON once more. This writer tests eight bytes at once for a quote, a
//! backslash or a control character, stores the eight bytes whatever they
//! are, and moves on by as many as were plain: 6.6 instructions a byte of
//! the same text (BENCHMARKS.md). It writes exactly what serde_json writes
//! (the tests compare the two on every byte value and on GitLab's answers).
//!
//! A leaf: it depends on nothing of this crate, so every layer may use it.

/// How each byte is escaped: 0 for none, `u` for `\u00XX`, else the
/// character after the backslash (serde_json's table).
const ESCAPE: [u8; 256] = {
    let mut table = [0u8; 256];
    let mut byte = 0;
    while byte < 0x20 {
        table[byte] = b'u';
        byte += 1;
    }
    table[0x08] = b'b';
    table[0x09] = b't';
    table[0x0a] = b'n';
    table[0x0c] = b'f';
    table[0x0d] = b'r';
    table[b'"' as usize] = b'"';
    table[b'\\' as usize] = b'\\';
    table
};

const HEX: &[u8; 16] = b"0123456789abcdef";

/// Input bytes written per reservation: the room reserved for a chunk is
/// its worst case (every byte six), so a long text is not reserved six
/// times over at once.
const CHUNK: usize = 4096;

/// `text` as a JSON string, quotes included, appended to `out`.
pub fn write(out: &mut Vec<u8>, text: &str) {
    out.push(b'"');
    for chunk in text.as_bytes().chunks(CHUNK) {
        write_chunk(out, chunk);
    }
    out.push(b'"');
}

fn write_chunk(out: &mut Vec<u8>, bytes: &[u8]) {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    // Each input byte writes at most six; a word store may run seven bytes
    // past what it keeps.
    out.reserve(bytes.len() * 6 + 8);
    let written = {
        let room = out.spare_capacity_mut();
        let dst = room.as_mut_ptr().cast::<u8>();
        let mut d = 0;
        let mut i = 0;
        // SAFETY: `room` holds `bytes.len() * 6 + 8` bytes. Before each
        // input byte is consumed, at most 6 bytes a byte have been written
        // (`d <= 6 * i`), and each store writes at most 8 bytes at `d`
        // while at least one input byte is left (`i < bytes.len()`), so
        // every store ends within `6 * (bytes.len() - 1) + 8`. Every byte
        // up to `d` is written before `set_len` exposes it.
        unsafe {
            loop {
                while let Some(word) = bytes.get(i..i + 8) {
                    let word = u64::from_le_bytes(word.try_into().expect("eight bytes"));
                    // The zero-byte test, exact for the lowest byte found: a
                    // quote, a backslash, or a byte below 0x20.
                    let quote = word ^ (ONES * b'"' as u64);
                    let backslash = word ^ (ONES * b'\\' as u64);
                    let found = ((quote.wrapping_sub(ONES) & !quote)
                        | (backslash.wrapping_sub(ONES) & !backslash)
                        | (word.wrapping_sub(ONES * 0x20) & !word))
                        & HIGH;
                    dst.add(d).cast::<u64>().write_unaligned(word.to_le());
                    if found == 0 {
                        i += 8;
                        d += 8;
                    } else {
                        let plain = (found.trailing_zeros() / 8) as usize;
                        i += plain;
                        d += plain;
                        break;
                    }
                }
                let Some(&byte) = bytes.get(i) else {
                    break;
                };
                i += 1;
                match ESCAPE[byte as usize] {
                    0 => {
                        dst.add(d).write(byte);
                        d += 1;
                    }
                    b'u' => {
                        let escape = [
                            b'\\',
                            b'u',
                            b'0',
                            b'0',
                            HEX[(byte >> 4) as usize],
                            HEX[(byte & 15) as usize],
                        ];
                        std::ptr::copy_nonoverlapping(escape.as_ptr(), dst.add(d), 6);
                        d += 6;
                    }
                    escape => {
                        dst.add(d).write(b'\\');
                        dst.add(d + 1).write(escape);
                        d += 2;
                    }
                }
            }
        }
        d
    };
    // SAFETY: the first `written` bytes of the spare room were written
    // above, within the capacity reserved.
    unsafe { out.set_len(out.len() + written) };
}

#[cfg(test)]
mod tests {
    use super::*;

    fn to_string(text: &str) -> String {
        let mut out = Vec::new();
        write(&mut out, text);
        String::from_utf8(out).expect("escaping keeps UTF-8")
    }

    fn same(text: &str) {
        assert_eq!(
            to_string(text),
            serde_json::to_string(text).unwrap(),
            "{text:?}"
        );
    }

    #[test]
    fn writes_what_serde_json_writes() {
        // Every byte value, alone and at every place in a word.
        for c in (0u32..0x80).chain([0xe9, 0x2028, 0x1f600]) {
            let c = char::from_u32(c).unwrap();
            for at in 0..17 {
                let mut text = "a".repeat(at);
                text.push(c);
                text.push_str("bcdefghijklmnop");
                same(&text);
            }
            same(&c.to_string());
        }
        for text in [
            "",
            "\"",
            "\\\\\"\"",
            "plain text longer than one word of eight bytes",
            "{\"id\":1,\"title\":\"a \\\"quoted\\\" title\",\"labels\":[\"bug\"]}\n\t\r",
            "ünïcödé — ⟦framed⟧ 👩‍💻",
            "\u{0}\u{1f}\u{7f}",
        ] {
            same(text);
        }
        // GitLab's answer, as text and as the JSON of that text.
        let issue = include_str!("../benches/data/issue.json");
        same(issue);
        same(&serde_json::to_string(issue).unwrap());
        // Longer than a chunk, with escapes across its edges.
        same(&"ab\"\\\n".repeat(3 * CHUNK / 5 + 7));
    }

    #[test]
    fn appends() {
        let mut out = b"x:".to_vec();
        write(&mut out, "\"y\"");
        assert_eq!(out, b"x:\"\\\"y\\\"\"");
    }
}

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

/// Room a chunk needs beyond six bytes a byte: a block store may run
/// fifteen bytes past what it keeps.
const SLACK: usize = 16;

/// `text` as a JSON string, quotes included, appended to `out`.
pub fn write(out: &mut Vec<u8>, text: &str) {
    let bytes = text.as_bytes();
    // Most keys and many values are short and plain: tested whole (two
    // words, or byte by byte under eight) and copied as they are.
    if bytes.len() < BLOCK && short_is_plain(bytes) {
        out.reserve(bytes.len() + 2);
        out.push(b'"');
        out.extend_from_slice(bytes);
        out.push(b'"');
        return;
    }
    out.push(b'"');
    if bytes.len() <= CHUNK {
        write_chunk(out, bytes);
    } else {
        for chunk in bytes.chunks(CHUNK) {
            write_chunk(out, chunk);
        }
    }
    out.push(b'"');
}

/// Where the next byte that JSON escapes is (a quote, a backslash or a
/// control character), from `at`: `bytes.len()` if there is none. The
/// string reader of `render::parse` moves through a string with it.
#[inline(always)]
pub fn next_special(bytes: &[u8], mut at: usize) -> usize {
    while let Some(block) = bytes.get(at..at + BLOCK) {
        let first = first_special(block);
        if first < BLOCK {
            return at + first;
        }
        at += BLOCK;
    }
    while let Some(&byte) = bytes.get(at) {
        if ESCAPE[byte as usize] != 0 {
            return at;
        }
        at += 1;
    }
    at
}

fn write_chunk(out: &mut Vec<u8>, bytes: &[u8]) {
    out.reserve(bytes.len() * 6 + SLACK);
    let written = {
        let room = out.spare_capacity_mut();
        let dst = room.as_mut_ptr().cast::<u8>();
        let mut d = 0;
        let mut i = 0;
        // SAFETY: `room` holds `bytes.len() * 6 + SLACK` bytes. Before each
        // input byte is consumed, at most six bytes a byte have been
        // written (`d <= 6 * i`). A block store writes `BLOCK` bytes at `d`
        // only while a whole block is left (`i + BLOCK <= bytes.len()`), so
        // it ends within `6 * i + BLOCK <= 6 * bytes.len()`; an escape
        // writes at most six bytes for its one. Every byte up to `d` is
        // written before `set_len` exposes it.
        unsafe {
            loop {
                while let Some(block) = bytes.get(i..i + BLOCK) {
                    std::ptr::copy_nonoverlapping(block.as_ptr(), dst.add(d), BLOCK);
                    let plain = first_special(block);
                    i += plain;
                    d += plain;
                    if plain < BLOCK {
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

/// Bytes tested at once.
const BLOCK: usize = 16;

/// The index in `block` of its first byte that JSON escapes, or `BLOCK`.
/// SSE2, which every x86-64 processor has, tests sixteen bytes in a few
/// instructions; elsewhere, two words at a time.
#[inline(always)]
fn first_special(block: &[u8]) -> usize {
    #[cfg(target_arch = "x86_64")]
    {
        first_special_sse2(block)
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        first_special_words(block)
    }
}

#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn first_special_sse2(block: &[u8]) -> usize {
    use std::arch::x86_64::{
        _mm_cmpeq_epi8, _mm_loadu_si128, _mm_max_epu8, _mm_movemask_epi8, _mm_or_si128,
        _mm_set1_epi8,
    };
    let block = &block[..BLOCK];
    // SAFETY: SSE2 is part of x86-64 itself, so these instructions exist on
    // every processor this code runs on; `block` holds the sixteen bytes
    // the unaligned load reads.
    let found = unsafe {
        let bytes = _mm_loadu_si128(block.as_ptr().cast());
        let quote = _mm_cmpeq_epi8(bytes, _mm_set1_epi8(b'"' as i8));
        let backslash = _mm_cmpeq_epi8(bytes, _mm_set1_epi8(b'\\' as i8));
        // A byte is below 0x20 when the larger of it and 0x1f is 0x1f.
        let low = _mm_set1_epi8(0x1f);
        let control = _mm_cmpeq_epi8(_mm_max_epu8(bytes, low), low);
        _mm_movemask_epi8(_mm_or_si128(_mm_or_si128(quote, backslash), control))
    };
    // Bit 16 stands for "none": the index is then `BLOCK`.
    (found as u32 | 1 << BLOCK).trailing_zeros() as usize
}

/// The same, two words at a time.
#[cfg_attr(target_arch = "x86_64", allow(dead_code))]
fn first_special_words(block: &[u8]) -> usize {
    for (n, word) in block[..BLOCK].chunks_exact(8).enumerate() {
        let found = specials_in_word(word);
        if found != 0 {
            return n * 8 + (found.trailing_zeros() / 8) as usize;
        }
    }
    BLOCK
}

/// Whether a text shorter than a block has no byte to escape.
#[inline(always)]
fn short_is_plain(bytes: &[u8]) -> bool {
    match bytes.len() {
        // The first eight bytes and the last eight, which may overlap.
        8.. => specials_in_word(&bytes[..8]) | specials_in_word(&bytes[bytes.len() - 8..]) == 0,
        _ => bytes.iter().all(|&byte| ESCAPE[byte as usize] == 0),
    }
}

/// The classic zero-byte test on an eight-byte word: the high bit of each
/// byte that is a quote, a backslash or below 0x20 is set, and of no byte
/// before the first such one; nothing is set when there is none.
#[inline(always)]
fn specials_in_word(word: &[u8]) -> u64 {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    let word = u64::from_le_bytes(word[..8].try_into().expect("eight bytes"));
    let quote = word ^ (ONES * b'"' as u64);
    let backslash = word ^ (ONES * b'\\' as u64);
    ((quote.wrapping_sub(ONES) & !quote)
        | (backslash.wrapping_sub(ONES) & !backslash)
        | (word.wrapping_sub(ONES * 0x20) & !word))
        & HIGH
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
            for at in 0..35 {
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
        // Short texts, tested whole: each kind of byte at each place.
        for len in 1..17 {
            for at in 0..len {
                for c in ['"', '\\', '\n', '\u{1f}', '\u{7f}', 'é'] {
                    let mut text: String = "k".repeat(at);
                    text.push(c);
                    text.push_str(&"v".repeat(len - at - 1));
                    same(&text);
                }
            }
        }
        // GitLab's answer, as text and as the JSON of that text.
        let issue = include_str!("../benches/data/issue.json");
        same(issue);
        same(&serde_json::to_string(issue).unwrap());
        // Longer than a chunk, with escapes across its edges.
        same(&"ab\"\\\n".repeat(3 * CHUNK / 5 + 7));
    }

    #[test]
    fn finds_the_first_byte_to_escape() {
        // Each kind of byte at each place of a block, after plain bytes,
        // before others: both testers, and `next_special` from anywhere.
        for special in [b'"', b'\\', 0, 0x1f, b'\n'] {
            for at in 0..40 {
                let mut bytes = vec![b'a'; 40];
                bytes.extend_from_slice(&[0xc3, 0xa9, 0x7f, b' ']);
                bytes[at] = special;
                bytes.push(b'"');
                for from in 0..=at {
                    assert_eq!(
                        next_special(&bytes, from),
                        at,
                        "{special} at {at} from {from}"
                    );
                }
                if at < BLOCK {
                    assert_eq!(first_special(&bytes), at);
                    assert_eq!(first_special_words(&bytes), at);
                }
            }
        }
        let plain = [b'z'; BLOCK];
        assert_eq!(first_special(&plain), BLOCK);
        assert_eq!(first_special_words(&plain), BLOCK);
        assert_eq!(next_special(b"no escape here, none at all", 3), 27);
    }

    #[test]
    fn appends() {
        let mut out = b"x:".to_vec();
        write(&mut out, "\"y\"");
        assert_eq!(out, b"x:\"\\\"y\\\"\"");
    }
}

//! A JSON string written sixteen bytes at a time.
//!
//! serde_json escapes a string a byte at a time and copies each run between
//! two escapes with a call of its own: 14.8 instructions a byte of GitLab's
//! JSON, where a quote comes every few bytes, and an answer's text is that
//! JSON once more. This writer tests sixteen bytes at once for a quote, a
//! backslash or a control character (SSE2 on x86-64), stores the sixteen
//! bytes whatever they are, and handles the escapes the test found from
//! its mask; a short plain string is tested as two words and copied whole
//! (BENCHMARKS.md has the counts). It writes exactly what serde_json writes
//! (the tests compare the two on every byte value, at every place, and on
//! GitLab's answers). The reader of GitLab's JSON (`render/parse.rs`) finds
//! the end of a string with the same test (`next_special`).
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

/// `text` as a JSON string, quotes included, appended to `out`. Inlined:
/// the short plain case is most calls, and a call cost as much as it.
#[inline(always)]
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
    write_long(out, bytes);
}

#[inline(never)]
fn write_long(out: &mut Vec<u8>, bytes: &[u8]) {
    out.push(b'"');
    for chunk in bytes.chunks(CHUNK) {
        write_chunk(out, chunk);
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
        // written (`d <= 6 * i`). A store of sixteen bytes at `d` copies
        // input bytes from `i` on, only while sixteen are left
        // (`i + BLOCK <= bytes.len()`), so it ends within
        // `6 * i + BLOCK <= 6 * bytes.len()`; an escape writes at most six
        // bytes for its one. Every byte up to `d` is written before
        // `set_len` exposes it.
        unsafe {
            loop {
                while let Some(block) = bytes.get(i..i + BLOCK) {
                    std::ptr::copy_nonoverlapping(block.as_ptr(), dst.add(d), BLOCK);
                    let mut specials = special_mask(block);
                    if specials == 0 {
                        i += BLOCK;
                        d += BLOCK;
                        continue;
                    }
                    let end = i + BLOCK;
                    if bytes.len() - i < 2 * BLOCK {
                        // Too near the end to copy a whole block after an
                        // escape: up to the first, then byte by byte.
                        let plain = specials.trailing_zeros() as usize;
                        i += plain;
                        d += plain;
                        break;
                    }
                    // Every escape of the block at once (an answer's text
                    // is JSON, a quote every few bytes): the run before
                    // each is in place already, copied with the block or
                    // after the escape before it.
                    let start = i;
                    while specials != 0 {
                        let at = start + specials.trailing_zeros() as usize;
                        d += at - i;
                        d += put_escape(dst.add(d), bytes[at]);
                        i = at + 1;
                        std::ptr::copy_nonoverlapping(
                            bytes[i..i + BLOCK].as_ptr(),
                            dst.add(d),
                            BLOCK,
                        );
                        specials &= specials - 1;
                    }
                    d += end - i;
                    i = end;
                }
                let Some(&byte) = bytes.get(i) else {
                    break;
                };
                i += 1;
                if ESCAPE[byte as usize] == 0 {
                    dst.add(d).write(byte);
                    d += 1;
                } else {
                    d += put_escape(dst.add(d), byte);
                }
            }
        }
        d
    };
    // SAFETY: the first `written` bytes of the spare room were written
    // above, within the capacity reserved.
    unsafe { out.set_len(out.len() + written) };
}

/// Writes the escape of `byte`, a byte JSON escapes, at `dst`: `\u00XX`
/// or a backslash and a letter. How many bytes it wrote.
///
/// # Safety
///
/// `dst` has room for six bytes.
#[inline(always)]
unsafe fn put_escape(dst: *mut u8, byte: u8) -> usize {
    debug_assert_ne!(ESCAPE[byte as usize], 0, "{byte} is not escaped");
    // SAFETY: six bytes of room, as the caller promises.
    unsafe {
        match ESCAPE[byte as usize] {
            b'u' => {
                let escape = [
                    b'\\',
                    b'u',
                    b'0',
                    b'0',
                    HEX[(byte >> 4) as usize],
                    HEX[(byte & 15) as usize],
                ];
                std::ptr::copy_nonoverlapping(escape.as_ptr(), dst, 6);
                6
            }
            escape => {
                dst.write(b'\\');
                dst.add(1).write(escape);
                2
            }
        }
    }
}

/// Bytes tested at once.
const BLOCK: usize = 16;

/// The index in `block` of its first byte that JSON escapes, or `BLOCK`.
#[inline(always)]
fn first_special(block: &[u8]) -> usize {
    // Bit 16 stands for "none": the index is then `BLOCK`.
    (special_mask(block) | 1 << BLOCK).trailing_zeros() as usize
}

/// A bit for each byte of `block`'s first sixteen that JSON escapes, the
/// lowest for the first byte. SSE2, which every x86-64 processor has,
/// tests sixteen bytes in a few instructions; elsewhere, byte by byte.
#[inline(always)]
fn special_mask(block: &[u8]) -> u32 {
    #[cfg(target_arch = "x86_64")]
    {
        special_mask_sse2(block)
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        special_mask_bytes(block)
    }
}

#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn special_mask_sse2(block: &[u8]) -> u32 {
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
    found as u32
}

#[cfg_attr(target_arch = "x86_64", allow(dead_code))]
fn special_mask_bytes(block: &[u8]) -> u32 {
    block[..BLOCK]
        .iter()
        .enumerate()
        .filter(|&(_, &byte)| ESCAPE[byte as usize] != 0)
        .fold(0, |mask, (at, _)| mask | 1 << at)
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
        // Escapes dense and sparse, at every length: several in one block.
        let pieces = ["\"", "ab", "\\", "\n", "cdefghij", "\u{1}", "é", "\"k\""];
        for len in 0..120 {
            let text: String = (0..len)
                .map(|n| pieces[(n * n + len) % pieces.len()])
                .collect();
            same(&text);
        }
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
                    assert_eq!(special_mask(&bytes), special_mask_bytes(&bytes));
                }
            }
        }
        let plain = [b'z'; BLOCK];
        assert_eq!(first_special(&plain), BLOCK);
        assert_eq!(special_mask(&plain), 0);
        // Every byte value at every place, several at once.
        for byte in 0..=255u8 {
            for at in 0..BLOCK {
                let mut block = [b'a'; BLOCK];
                block[at] = byte;
                block[(at * 7 + 3) % BLOCK] = b'"';
                assert_eq!(
                    special_mask(&block),
                    special_mask_bytes(&block),
                    "{byte} at {at}"
                );
            }
        }
        assert_eq!(next_special(b"no escape here, none at all", 3), 27);
    }

    #[test]
    fn appends() {
        let mut out = b"x:".to_vec();
        write(&mut out, "\"y\"");
        assert_eq!(out, b"x:\"\\\"y\\\"\"");
    }
}

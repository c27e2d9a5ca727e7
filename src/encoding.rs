//! How values travel in a URL and in GitLab's answers: the text GitLab
//! receives for a JSON scalar, percent-encoding and -decoding, and base64.
//!
//! A leaf: it depends on nothing of this crate, so every layer may use it.

use std::borrow::Cow;

use serde_json::Value;

/// The text GitLab receives for a scalar: strings unquoted, anything else
/// as JSON (`42`, `true`).
pub fn scalar_text(value: &Value) -> Cow<'_, str> {
    match value {
        Value::String(s) => Cow::Borrowed(s),
        other => Cow::Owned(other.to_string()),
    }
}

/// Percent-encode every byte except RFC 3986's unreserved characters
/// (`A-Z a-z 0-9 - . _ ~`), so `/`, `?`, `#`, `%` and non-ASCII text can
/// never change which endpoint is called.
pub fn percent_encode_into(out: &mut String, text: &str) {
    const HEX: &[u8; 16] = b"0123456789ABCDEF";
    for &byte in text.as_bytes() {
        if byte.is_ascii_alphanumeric() || matches!(byte, b'-' | b'.' | b'_' | b'~') {
            out.push(byte as char);
        } else {
            out.push('%');
            out.push(HEX[(byte >> 4) as usize] as char);
            out.push(HEX[(byte & 0xF) as usize] as char);
        }
    }
}

/// `%2F` → `/` and `+` → space, as in a query string; invalid escapes are
/// kept as they are.
pub fn percent_decode(text: &str) -> String {
    fn hex(b: u8) -> Option<u8> {
        (b as char).to_digit(16).map(|d| d as u8)
    }
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let decoded = match bytes[i] {
            b'%' if i + 2 < bytes.len() => hex(bytes[i + 1]).zip(hex(bytes[i + 2])),
            _ => None,
        };
        match (decoded, bytes[i]) {
            (Some((hi, lo)), _) => {
                out.push(hi << 4 | lo);
                i += 3;
            }
            (None, b'+') => {
                out.push(b' ');
                i += 1;
            }
            (None, b) => {
                out.push(b);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// URL-safe base64 without padding (RFC 4648 §5), as tokens and PKCE use it.
pub fn encode_base64url(bytes: &[u8]) -> String {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let n = (u32::from(chunk[0]) << 16)
            | (u32::from(*chunk.get(1).unwrap_or(&0)) << 8)
            | u32::from(*chunk.get(2).unwrap_or(&0));
        let sextets = chunk.len() + 1;
        for i in 0..sextets {
            out.push(ALPHABET[((n >> (18 - 6 * i)) & 0x3f) as usize] as char);
        }
    }
    out
}

/// Standard or URL-safe base64, padding optional, whitespace ignored.
pub fn decode_base64(text: &str) -> Option<Vec<u8>> {
    let mut out = Vec::with_capacity(text.len() * 3 / 4);
    let mut buffer = 0u32;
    let mut bits = 0;
    for c in text.bytes().filter(|b| !b.is_ascii_whitespace()) {
        let value = match c {
            b'A'..=b'Z' => c - b'A',
            b'a'..=b'z' => c - b'a' + 26,
            b'0'..=b'9' => c - b'0' + 52,
            b'+' | b'-' => 62,
            b'/' | b'_' => 63,
            b'=' => break,
            _ => return None,
        };
        buffer = (buffer << 6) | u32::from(value);
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((buffer >> bits) as u8);
            buffer &= (1 << bits) - 1;
        }
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn encode(text: &str) -> String {
        let mut out = String::new();
        percent_encode_into(&mut out, text);
        out
    }

    #[test]
    fn base64_decodes_with_and_without_padding() {
        assert_eq!(decode_base64("aGVsbG8=").unwrap(), b"hello");
        assert_eq!(decode_base64("aGVsbG8").unwrap(), b"hello");
        assert!(decode_base64("not base64!").is_none());
    }

    #[test]
    fn segments_cannot_escape() {
        assert_eq!(encode("group/sub/project"), "group%2Fsub%2Fproject");
        assert_eq!(encode("src/a b.md"), "src%2Fa%20b.md");
        assert_eq!(encode("../x?y#z%"), "..%2Fx%3Fy%23z%25");
        assert_eq!(encode("fé"), "f%C3%A9");
    }

    #[test]
    fn base64url_round_trips() {
        for bytes in [&b""[..], b"a", b"ab", b"abc", b"\xff\xfe\x00\x01binary"] {
            let text = encode_base64url(bytes);
            assert!(!text.contains(['+', '/', '=']));
            assert_eq!(decode_base64(&text).unwrap(), bytes);
        }
        // RFC 7636 appendix B's verifier and challenge.
        assert_eq!(encode_base64url(b"hello"), "aGVsbG8");
    }

    #[test]
    fn decoding_reverses_encoding() {
        assert_eq!(percent_decode(&encode("a b/ü?")), "a b/ü?");
        assert_eq!(percent_decode("a+b%zz"), "a b%zz");
    }
}

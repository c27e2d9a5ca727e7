//! How values travel in a URL and in GitLab's answers: the text GitLab
//! receives for a JSON scalar, percent-encoding and -decoding, and base64.
//!
//! A leaf: it depends on nothing of this crate, so every layer may use it.

use std::borrow::Cow;

use base64::Engine as _;
use base64::alphabet;
use base64::engine::{DecodePaddingMode, GeneralPurpose, GeneralPurposeConfig, general_purpose};
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
    decode(text, true)
}

/// `%2F` → `/`, as in a URI's path, where `+` is itself; invalid escapes
/// are kept as they are.
pub fn percent_decode_path(text: &str) -> String {
    decode(text, false)
}

fn decode(text: &str, plus_is_space: bool) -> String {
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
            (None, b'+') if plus_is_space => {
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

/// Tokens, sealed values and PKCE (RFC 7636 §4.2): URL-safe alphabet, no
/// padding (RFC 4648 §5).
const BASE64URL: GeneralPurpose = general_purpose::URL_SAFE_NO_PAD;

/// Contents (an upload's `content`, GitLab's file `content`) and HTTP Basic
/// credentials: the standard alphabet (RFC 4648 §4), padding written or
/// not, as both are common.
const BASE64: GeneralPurpose = GeneralPurpose::new(
    &alphabet::STANDARD,
    GeneralPurposeConfig::new().with_decode_padding_mode(DecodePaddingMode::Indifferent),
);

/// URL-safe base64 without padding, as tokens and PKCE use it.
pub fn encode_base64url(bytes: &[u8]) -> String {
    BASE64URL.encode(bytes)
}

/// The bytes of URL-safe base64 without padding; `None` for any other
/// spelling. Each value has one spelling: padding, a dangling character
/// and unused bits set in the last character are all refused.
pub fn decode_base64url(text: &str) -> Option<Vec<u8>> {
    BASE64URL.decode(text).ok()
}

/// Standard base64 with padding (RFC 4648 §4), as `data:` URIs carry it.
pub fn encode_base64(bytes: &[u8]) -> String {
    BASE64.encode(bytes)
}

/// The bytes of standard base64, padding optional, line breaks and other
/// ASCII whitespace ignored (encoders wrap lines at 76 or 60 characters).
/// Canonical only: unused bits set in the last character are refused.
pub fn decode_base64(text: &str) -> Option<Vec<u8>> {
    let text: Cow<'_, str> = if text.bytes().any(|b| b.is_ascii_whitespace()) {
        Cow::Owned(text.split_ascii_whitespace().collect())
    } else {
        Cow::Borrowed(text)
    };
    BASE64.decode(text.as_bytes()).ok()
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
    fn base64_decodes_with_and_without_padding_and_across_lines() {
        assert_eq!(decode_base64("aGVsbG8=").unwrap(), b"hello");
        assert_eq!(decode_base64("aGVsbG8").unwrap(), b"hello");
        assert_eq!(decode_base64("aGVs\r\nbG8=\n").unwrap(), b"hello");
        assert_eq!(decode_base64("+/+/").unwrap(), b"\xfb\xff\xbf");
        assert_eq!(decode_base64("not base64!"), None);
        // The URL-safe alphabet is another format.
        assert_eq!(decode_base64("-_-_"), None);
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
            assert_eq!(decode_base64url(&text).unwrap(), bytes);
        }
        assert_eq!(encode_base64url(b"hello"), "aGVsbG8");
    }

    /// One spelling per value: the lenient decoder this replaced read all
    /// of these as `hello`, so a sealed value had several spellings.
    #[test]
    fn base64url_refuses_every_non_canonical_spelling() {
        assert_eq!(decode_base64url("aGVsbG8").unwrap(), b"hello");
        // `8` is 111100: the last two bits are unused. `9` (111101) and `-`
        // (111110) set them.
        assert_eq!(decode_base64url("aGVsbG9"), None);
        assert_eq!(decode_base64url("aGVsbG-"), None);
        assert_eq!(decode_base64("aGVsbG9="), None);
        // Padding, a dangling character, the standard alphabet, whitespace.
        assert_eq!(decode_base64url("aGVsbG8="), None);
        assert_eq!(decode_base64url("aGVsbG8A"), Some(b"hello\0".to_vec()));
        assert_eq!(decode_base64url("aGVsbG8AQ"), None);
        assert_eq!(decode_base64url("+/+/"), None);
        assert_eq!(decode_base64url("aGVs bG8"), None);
    }

    #[test]
    fn decoding_reverses_encoding() {
        assert_eq!(percent_decode(&encode("a b/ü?")), "a b/ü?");
        assert_eq!(percent_decode("a+b%zz"), "a b%zz");
        assert_eq!(percent_decode_path("c++/a%2Fb%zz"), "c++/a/b%zz");
    }
}

//! Icons for clients (MCP 2025-11-25 `icons`): the server's and each
//! tool's, drawn for this project as small SVGs (`catalog/icons/`), sent as
//! `data:` URIs so that no client fetches anything. An icon is for the
//! client's interface, not the model, but it travels in `tools/list`: each
//! is written in the shorter of its two spellings, base64 or the SVG text
//! with only what a URI cannot hold percent-encoded.

use rmcp::model::Icon;

use crate::encoding;

const MIME: &str = "image/svg+xml";

/// The icon of this SVG text.
pub fn icon(svg: &str) -> Icon {
    Icon::new(data_uri(svg.trim()))
        .with_mime_type(MIME)
        .with_sizes(vec!["any".into()])
}

/// The server's icon, written once: rmcp asks for the server's info on
/// every stateless HTTP request, and writing the icon cost 22,000
/// instructions each time (BENCHMARKS.md).
pub fn server_icon() -> Icon {
    static SERVER: std::sync::OnceLock<Icon> = std::sync::OnceLock::new();
    SERVER
        .get_or_init(|| icon(crate::catalog::server_icon()))
        .clone()
}

/// `data:image/svg+xml;base64,...` or `data:image/svg+xml,...`, whichever
/// is shorter.
fn data_uri(svg: &str) -> String {
    let base64 = format!(
        "data:{MIME};base64,{}",
        encoding::encode_base64(svg.as_bytes())
    );
    let text = format!("data:{MIME},{}", uri_text(svg));
    if text.len() <= base64.len() {
        text
    } else {
        base64
    }
}

/// The text with every byte RFC 3986 allows in a path or query as itself
/// (unreserved, sub-delims, `:`, `@`, `/`, `?`) and the rest (spaces, `<`,
/// `>`, `"`, `#`, `%`, non-ASCII) percent-encoded.
fn uri_text(text: &str) -> String {
    let mut out = String::with_capacity(text.len() * 2);
    for byte in text.bytes() {
        if byte.is_ascii_alphanumeric() || b"-._~!$&'()*+,;=:@/?".contains(&byte) {
            out.push(byte as char);
        } else {
            out.push_str(&format!("%{byte:02X}"));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_shorter_spelling_is_chosen_and_both_read_back() {
        let svg = "<svg xmlns='http://www.w3.org/2000/svg' viewBox='0 0 24 24'/>";
        let uri = data_uri(svg);
        assert!(uri.len() <= format!("data:{MIME};base64,").len() + svg.len() * 4 / 3 + 4);
        let text = uri
            .strip_prefix("data:image/svg+xml,")
            .expect("the text spelling is shorter here");
        assert_eq!(encoding::percent_decode_path(text), svg);
        assert!(!text.contains(' ') && !text.contains('<') && !text.contains('#'));
        // Mostly non-ASCII: base64 is shorter.
        let dense = "<svg><text>äöüäöüäöüäöüäöüäöüäöü</text></svg>";
        let uri = data_uri(dense);
        let b64 = uri
            .strip_prefix("data:image/svg+xml;base64,")
            .expect("base64 is shorter here");
        assert_eq!(encoding::decode_base64(b64).unwrap(), dense.as_bytes());
    }
}

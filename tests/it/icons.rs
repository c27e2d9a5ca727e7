//! Icons (MCP 2025-11-25 `icons`): the server and every tool have one,
//! each a valid SVG of a few hundred bytes (an `<svg>` root in the SVG
//! namespace, with a `viewBox`), sent as a `data:` URI that reads back to
//! the catalog's file, never fetched from anywhere.

use crate::common;

use common::{Harness, Lifecycle};
use gitlab_mcp::catalog;
use rmcp::model::Icon;

/// The most bytes one icon's SVG may take: the whole tool list carries them.
const MAX_BYTES: usize = 600;

/// The SVG text a `data:` URI carries, in either spelling.
fn svg_of(icon: &Icon) -> String {
    let src = &icon.src;
    if let Some(b64) = src.strip_prefix("data:image/svg+xml;base64,") {
        return String::from_utf8(gitlab_mcp::encoding::decode_base64(b64).unwrap()).unwrap();
    }
    let text = src
        .strip_prefix("data:image/svg+xml,")
        .unwrap_or_else(|| panic!("not an SVG data URI: {src}"));
    assert!(
        !text
            .bytes()
            .any(|b| b.is_ascii_whitespace() || b"<>\"#".contains(&b)),
        "a URI holds no space, <, >, \" or #: {text}"
    );
    gitlab_mcp::encoding::percent_decode_path(text)
}

fn check_svg(name: &str, svg: &str) {
    assert!(svg.len() <= MAX_BYTES, "{name}: {} bytes", svg.len());
    let document = roxmltree::Document::parse(svg).unwrap_or_else(|e| panic!("{name}: {e}"));
    let root = document.root_element();
    assert_eq!(
        (root.tag_name().name(), root.tag_name().namespace()),
        ("svg", Some("http://www.w3.org/2000/svg")),
        "{name}"
    );
    let view_box: Vec<f64> = root
        .attribute("viewBox")
        .unwrap_or_else(|| panic!("{name}: no viewBox"))
        .split([' ', ','])
        .map(|n| n.parse().unwrap())
        .collect();
    assert_eq!(view_box.len(), 4, "{name}");
    assert!(
        root.children().any(|n| n.is_element()),
        "{name}: draws nothing"
    );
}

#[test]
fn every_icon_is_a_small_valid_svg() {
    check_svg("server", catalog::server_icon());
    for tool in catalog::tools() {
        check_svg(tool.name, tool.icon);
    }
}

#[test]
fn every_listed_tool_carries_its_icon_as_a_data_uri() {
    for tool in gitlab_mcp::mcp::tools::tool_list(catalog::tools()) {
        let icons = tool.icons.as_deref().unwrap_or_default();
        assert_eq!(icons.len(), 1, "{}", tool.name);
        let icon = &icons[0];
        assert_eq!(icon.mime_type.as_deref(), Some("image/svg+xml"));
        assert_eq!(icon.sizes.as_deref(), Some(&["any".to_string()][..]));
        let spec = catalog::tool(&tool.name).unwrap();
        assert_eq!(svg_of(icon), spec.icon.trim(), "{}", tool.name);
    }
}

#[tokio::test]
async fn the_server_introduces_itself_with_its_icon() {
    let h = Harness::start(Lifecycle::Initialize).await;
    let info = h.client.peer_info().expect("the server introduced itself");
    let server = info.server_info.as_ref().expect("server info");
    let icons = server.icons.clone().unwrap_or_default();
    assert_eq!(icons.len(), 1);
    assert_eq!(svg_of(&icons[0]), catalog::server_icon().trim());
    h.stop().await;
}

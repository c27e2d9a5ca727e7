//! MCP Apps views (SEP-1865, extension `io.modelcontextprotocol/ui`, the
//! specification's stable version 2026-01-26): a merge request's review and
//! a pipeline's graph, each an HTML page served as a `ui://gitlab-mcp/...`
//! resource and linked from the tool that shows it (`_meta.ui.resourceUri`
//! on `gitlab_merge_request` and `gitlab_pipeline`).
//!
//! Only a client that declared the extension with the MCP Apps MIME type
//! (`capabilities.extensions["io.modelcontextprotocol/ui"].mimeTypes`) is
//! offered them: the link on its tools and the resources in its
//! `resources/list`. Every other client sees the tools and lists it saw
//! before. Answers are the same text for both: a view reads what it shows
//! through the host (`tools/call`), as GitLab's JSON between the frame
//! marks (`render::untrusted`).
//!
//! The pages are `assets/views/`: per view a template, its script and its
//! styles, and the script and styles both views share. They are put
//! together once, here, with a Content-Security-Policy whose script and
//! style hashes are those of the page's one script and one style sheet:
//! nothing else runs, and nothing is fetched.

use std::sync::LazyLock;

use ring::digest::{SHA256, digest};
use rmcp::model::{
    ClientCapabilities, MetaObject, ReadResourceResult, Resource, ResourceContents, Tool,
};
use serde_json::{Map, Value, json};

use crate::catalog::ToolSpec;
use crate::encoding::encode_base64;

/// The extension's identifier (SEP-1724's `extensions` key).
pub const EXTENSION: &str = "io.modelcontextprotocol/ui";
/// The one kind of view the extension defines.
pub const MIME_TYPE: &str = "text/html;profile=mcp-app";
/// The views' pages are at most this big, each.
pub const MAX_BYTES: usize = 60 * 1024;

/// One view: its resource and the tool that shows it.
struct View {
    uri: &'static str,
    name: &'static str,
    title: &'static str,
    description: &'static str,
    /// The tool whose results it shows.
    tool: &'static str,
    page: &'static LazyLock<String>,
}

const VIEWS: [View; 2] = [
    View {
        uri: "ui://gitlab-mcp/merge-request",
        name: "merge_request_review",
        title: "Merge request review",
        description: "A merge request's files and hunks with their threads at their lines, its pipeline; comment on selected lines, approve at the head commit shown.",
        tool: "gitlab_merge_request",
        page: &MERGE_REQUEST,
    },
    View {
        uri: "ui://gitlab-mcp/pipeline",
        name: "pipeline_graph",
        title: "Pipeline",
        description: "A pipeline's stages and jobs as a graph with their statuses; a failed job opens the excerpt of its log around the first error.",
        tool: "gitlab_pipeline",
        page: &PIPELINE,
    },
];

static MERGE_REQUEST: LazyLock<String> = LazyLock::new(|| {
    page(
        include_str!("../../assets/views/merge_request.html"),
        include_str!("../../assets/views/merge_request.css"),
        include_str!("../../assets/views/merge_request.js"),
    )
});

static PIPELINE: LazyLock<String> = LazyLock::new(|| {
    page(
        include_str!("../../assets/views/pipeline.html"),
        include_str!("../../assets/views/pipeline.css"),
        include_str!("../../assets/views/pipeline.js"),
    )
});

/// A view's page: its template with the shared and own styles and scripts
/// put in, and the policy that lets only those two run.
fn page(template: &str, css: &str, js: &str) -> String {
    let style = format!("{}{css}", include_str!("../../assets/views/common.css"));
    let script = format!("{}{js}", include_str!("../../assets/views/common.js"));
    let hash = |text: &str| encode_base64(digest(&SHA256, text.as_bytes()).as_ref());
    let policy = format!(
        "default-src 'none'; script-src 'sha256-{}'; style-src 'sha256-{}'; img-src data:; connect-src 'none'; frame-src 'none'; form-action 'none'; base-uri 'none'",
        hash(&script),
        hash(&style)
    );
    template
        .replacen("{{csp}}", &policy, 1)
        .replacen("{{style}}", &style, 1)
        .replacen("{{script}}", &script, 1)
}

impl View {
    /// The page as the resource carries it.
    fn html(&self) -> &'static str {
        self.page.as_str()
    }
}

/// Whether the client declared MCP Apps with its HTML views.
pub fn declared(capabilities: Option<&ClientCapabilities>) -> bool {
    capabilities
        .and_then(|c| c.extensions.as_ref())
        .and_then(|extensions| extensions.get(EXTENSION))
        .and_then(|settings| settings.get("mimeTypes"))
        .and_then(Value::as_array)
        .is_some_and(|types| types.iter().any(|t| t.as_str() == Some(MIME_TYPE)))
}

/// The tool list with each view's tool linked to it.
pub fn link(tools: &mut [Tool]) {
    for tool in tools {
        if let Some(view) = VIEWS.iter().find(|v| v.tool == tool.name) {
            let mut meta = tool.meta.take().unwrap_or_default();
            meta.insert("ui".into(), json!({ "resourceUri": view.uri }));
            tool.meta = Some(meta);
        }
    }
}

/// The views whose tool these tools include, for `resources/list`.
pub fn listed(tools: &[ToolSpec]) -> Vec<Resource> {
    VIEWS
        .iter()
        .filter(|v| tools.iter().any(|t| t.name == v.tool))
        .map(|v| {
            Resource::new(v.uri, v.name)
                .with_title(v.title)
                .with_description(v.description)
                .with_mime_type(MIME_TYPE)
                .with_size(v.html().len() as u64)
                .with_meta(ui_meta())
        })
        .collect()
}

/// The view at `uri`, if it is one.
pub fn read(uri: &str) -> Option<ReadResourceResult> {
    let view = VIEWS.iter().find(|v| v.uri == uri)?;
    Some(ReadResourceResult::new(vec![
        ResourceContents::text(view.html(), view.uri)
            .with_mime_type(MIME_TYPE)
            .with_meta(ui_meta()),
    ]))
}

/// What a host needs to know to show a view: no origin to reach, no
/// resource to load, no frame (empty lists, the restrictive default
/// spelled out), and a border, since a view has no frame of its own.
fn ui_meta() -> MetaObject {
    let mut meta = Map::new();
    meta.insert(
        "ui".into(),
        json!({
            "csp": {"connectDomains": [], "resourceDomains": [], "frameDomains": [], "baseUriDomains": []},
            "prefersBorder": true,
        }),
    );
    MetaObject(meta)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_page_is_whole_small_and_allows_only_its_own_script_and_style() {
        for view in &VIEWS {
            let html = view.html();
            assert!(html.len() < MAX_BYTES, "{}: {} bytes", view.uri, html.len());
            assert!(!html.contains("{{"), "{}: a placeholder is left", view.uri);
            assert_eq!(html.matches("<script>").count(), 1, "{}", view.uri);
            assert_eq!(html.matches("<style>").count(), 1, "{}", view.uri);
            let inner = |open: &str, close: &str| {
                let start = html.find(open).unwrap() + open.len();
                html[start..start + html[start..].find(close).unwrap()].to_string()
            };
            let hash = |text: &str| encode_base64(digest(&SHA256, text.as_bytes()).as_ref());
            let policy = inner("http-equiv=\"Content-Security-Policy\" content=\"", "\"");
            assert!(
                policy.contains(&format!(
                    "script-src 'sha256-{}'",
                    hash(&inner("<script>", "</script>"))
                )),
                "{policy}"
            );
            assert!(
                policy.contains(&format!(
                    "style-src 'sha256-{}'",
                    hash(&inner("<style>", "</style>"))
                )),
                "{policy}"
            );
            assert!(policy.starts_with("default-src 'none';"), "{policy}");
            assert!(policy.contains("connect-src 'none'"), "{policy}");
            // Nothing loads from elsewhere: no URL in an attribute.
            for needle in ["src=", "href=", "url(", "@import"] {
                assert!(!html.contains(needle), "{}: `{needle}`", view.uri);
            }
        }
    }

    #[test]
    fn the_extension_counts_only_with_the_html_view_type() {
        let with = |settings: Value| {
            let caps: ClientCapabilities =
                serde_json::from_value(json!({"extensions": {EXTENSION: settings}})).unwrap();
            declared(Some(&caps))
        };
        assert!(with(json!({"mimeTypes": [MIME_TYPE]})));
        assert!(with(json!({"mimeTypes": ["text/uri-list", MIME_TYPE]})));
        assert!(!with(json!({"mimeTypes": ["text/html"]})));
        assert!(!with(json!({})));
        assert!(!declared(Some(&ClientCapabilities::default())));
        assert!(!declared(None));
    }
}

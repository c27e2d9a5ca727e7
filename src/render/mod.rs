//! GitLab's answers as text for a model.
//!
//! `success` turns a 2xx answer into the result: compact JSON (one object,
//! or one object per line for a list, with one line of pagination facts),
//! a window over a long text, or diffs file by file; always within the size
//! cap, saying plainly what was cut and how to get the rest. `failure` turns
//! a `GitLabError` into an actionable message. Only what the server chose to
//! keep reaches this module: no header value but the request id, never the
//! token or a body the agent sent.

mod compact;
mod diff;
mod failure;
mod json;
mod pagination;
mod resources;
mod text;
mod tree;
mod zip_listing;

pub use failure::{Context, failure};
pub use pagination::pagination_line;

use serde_json::{Map, Value, json};

use tree::Node;

use crate::catalog::{Returns, Special, TextStart};
use crate::dispatch::ValidatedCall;
use crate::gitlab::{Pagination, Response};

/// Default size cap of one answer's text.
pub const DEFAULT_MAX_BYTES: usize = 64 * 1024;

#[derive(Debug, Clone, Copy)]
pub struct Options {
    /// The most bytes of text one answer may carry.
    pub max_bytes: usize,
    /// Also send the result as `structuredContent` (it doubles the payload).
    pub structured: bool,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            max_bytes: DEFAULT_MAX_BYTES,
            structured: false,
        }
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct Rendered {
    pub text: String,
    pub structured: Option<Value>,
    /// The answer is fine but what was asked of it is not (a `file` with no diff).
    pub is_error: bool,
}

impl Rendered {
    fn text(text: String) -> Self {
        Rendered {
            text,
            structured: None,
            is_error: false,
        }
    }
}

/// The result of a successful answer.
pub fn success(call: &ValidatedCall, response: &Response, options: Options) -> Rendered {
    let cap = options.max_bytes;
    let body = || String::from_utf8_lossy(&response.body);
    let mut rendered = match (call.action.returns, Node::parse(&response.body)) {
        _ if call.action.special == Some(Special::ArtifactList) => {
            match zip_listing::listing(&response.body) {
                Some(listing) => Rendered::text(text::window(
                    &listing,
                    call.view.lines,
                    TextStart::Head,
                    cap,
                )),
                None => Rendered {
                    text: "GitLab's answer is not a zip archive; nothing to list.".into(),
                    structured: None,
                    is_error: true,
                },
            }
        }
        (Returns::Text(start), _) => {
            Rendered::text(text::window(&body(), call.view.lines, start, cap))
        }
        (Returns::Nothing, None) => Rendered::text(format!(
            "Done: {} {} succeeded (HTTP {}).",
            call.tool.name, call.action.name, response.status
        )),
        (Returns::List("diff"), Some(Node::Arr(diffs)))
            if !call.view.raw && call.view.fields.is_none() =>
        {
            match diff::render(&diffs, call.view.file.as_deref(), cap) {
                Ok(text) => Rendered::text(text),
                Err(message) => Rendered {
                    text: message,
                    structured: None,
                    is_error: true,
                },
            }
        }
        (Returns::List(kind), Some(Node::Arr(items))) => {
            list(call, kind, items, &response.pagination, options)
        }
        (Returns::One(kind) | Returns::List(kind), Some(node)) => one(call, kind, node, options),
        (Returns::Nothing, Some(node)) => one(call, "", node, options),
        (_, None) => Rendered::text(text::window(&body(), None, TextStart::Head, cap)),
    };
    if matches!(call.action.returns, Returns::List(_))
        && let Some(line) = pagination_line(call, &response.pagination)
    {
        rendered.text.push('\n');
        rendered.text.push_str(&line);
    }
    rendered
}

fn list(
    call: &ValidatedCall,
    kind: &str,
    items: Vec<Node>,
    pagination: &Pagination,
    options: Options,
) -> Rendered {
    let cap = options.max_bytes;
    let note = {
        let refs: Vec<&Node> = items.iter().collect();
        json::unknown_fields(&refs, &call.view)
    };
    let total = items.len();
    let shown: Vec<Node> = items
        .into_iter()
        .map(|i| json::shape(i, kind, true, &call.view))
        .collect();
    let (mut text, count) = json::list_text(&shown, cap);
    if total == 0 {
        text = "[]".to_string();
    }
    if count < total {
        text.push_str(&format!(
            "\n[cut at the {} KB response cap: {count} of {total} items shown; ask for fewer with per_page, or for less with fields]",
            cap / 1024
        ));
    }
    if let Some(note) = note {
        text.push('\n');
        text.push_str(&note);
    }
    // Built only when asked for: it doubles the work and the payload.
    let structured = options.structured.then(|| {
        let items: Vec<Value> = shown[..count].iter().map(Node::to_value).collect();
        json!({ "items": items, "pagination": pagination_json(pagination) })
    });
    Rendered {
        text,
        structured,
        is_error: false,
    }
}

fn one(call: &ValidatedCall, kind: &str, mut node: Node, options: Options) -> Rendered {
    let cap = options.max_bytes;
    if !call.view.raw {
        decode_file_content(&mut node);
    }
    let note = json::unknown_fields(&[&node], &call.view);
    // Diffs inside an object (compare, merge request changes) are shown as
    // diffs after the object.
    let diffs = if call.view.raw || call.view.fields.is_some() {
        None
    } else {
        take_diffs(&mut node)
    };
    let mut shown = json::shape(node, kind, false, &call.view);
    let (mut text, cut) = json::object_text(&mut shown, cap);
    for note in [cut, note].into_iter().flatten() {
        text.push('\n');
        text.push_str(&note);
    }
    let mut is_error = false;
    if let Some(diffs) = diffs {
        let room = cap.saturating_sub(text.len());
        match diff::render(&diffs, call.view.file.as_deref(), room) {
            Ok(d) if !d.is_empty() => {
                text.push('\n');
                text.push_str(&d);
            }
            Ok(_) => {}
            Err(message) => {
                text = message;
                is_error = true;
            }
        }
    }
    Rendered {
        text,
        structured: options.structured.then(|| shown.to_value()),
        is_error,
    }
}

/// GitLab sends file contents in base64; a text file is shown as text.
fn decode_file_content(node: &mut Node) {
    if node.get("encoding").and_then(Node::as_str) != Some("base64") {
        return;
    }
    let Some(content) = node.get("content").and_then(Node::as_str) else {
        return;
    };
    let decoded =
        crate::gitlab::request::decode_base64(content).and_then(|b| String::from_utf8(b).ok());
    if let Some(text) = decoded {
        node.set("content", Node::Str(text.into()));
        node.set("encoding", Node::Str("text".into()));
    }
}

fn take_diffs<'a>(node: &mut Node<'a>) -> Option<Vec<Node<'a>>> {
    for key in ["diffs", "changes"] {
        if let Some(Node::Arr(_)) = node.get(key) {
            return match node.take(key) {
                Some(Node::Arr(items)) => Some(items),
                _ => None,
            };
        }
    }
    None
}

fn pagination_json(p: &Pagination) -> Value {
    let mut out = Map::new();
    let mut put = |k: &str, v: Option<u64>| {
        if let Some(v) = v {
            out.insert(k.into(), v.into());
        }
    };
    put("page", p.page);
    put("per_page", p.per_page);
    put("next_page", p.next_page);
    put("total", p.total);
    put("total_pages", p.total_pages);
    if let Some(link) = &p.next_link {
        out.insert("next_link".into(), Value::String(link.clone()));
    }
    Value::Object(out)
}

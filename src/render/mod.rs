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
mod zip_listing;

pub use compact::compact;
pub use failure::{Context, failure};
pub use pagination::pagination_line;

use serde_json::{Map, Value, json};

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
    let json = || serde_json::from_slice::<Value>(&response.body).ok();
    let mut rendered = match (call.action.returns, json()) {
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
        (Returns::List("diff"), Some(Value::Array(diffs)))
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
        (Returns::List(kind), Some(Value::Array(items))) => {
            list(call, kind, &items, &response.pagination, cap)
        }
        (Returns::One(kind) | Returns::List(kind), Some(value)) => one(call, kind, value, cap),
        (Returns::Nothing, Some(value)) => one(call, "", value, cap),
        (_, None) => Rendered::text(text::window(
            &body(),
            None,
            crate::catalog::TextStart::Head,
            cap,
        )),
    };
    if matches!(call.action.returns, Returns::List(_))
        && let Some(line) = pagination_line(call, &response.pagination)
    {
        rendered.text.push('\n');
        rendered.text.push_str(&line);
    }
    if !options.structured {
        rendered.structured = None;
    }
    rendered
}

fn list(
    call: &ValidatedCall,
    kind: &str,
    items: &[Value],
    pagination: &Pagination,
    cap: usize,
) -> Rendered {
    let shown: Vec<Value> = items
        .iter()
        .map(|i| json::shape(i, kind, true, &call.view))
        .collect();
    let (mut text, count) = json::list_text(&shown, cap);
    if items.is_empty() {
        text = "[]".to_string();
    }
    if count < shown.len() {
        text.push_str(&format!(
            "\n[cut at the {} KB response cap: {count} of {} items shown; ask for fewer with per_page, or for less with fields]",
            cap / 1024,
            shown.len()
        ));
    }
    let refs: Vec<&Value> = items.iter().collect();
    if let Some(note) = json::unknown_fields(&refs, &call.view) {
        text.push('\n');
        text.push_str(&note);
    }
    Rendered {
        text,
        structured: Some(
            json!({ "items": &shown[..count], "pagination": pagination_json(pagination) }),
        ),
        is_error: false,
    }
}

fn one(call: &ValidatedCall, kind: &str, mut value: Value, cap: usize) -> Rendered {
    if !call.view.raw {
        decode_file_content(&mut value);
    }
    // Diffs inside an object (compare, merge request changes) are shown as
    // diffs after the object.
    let diffs = if call.view.raw || call.view.fields.is_some() {
        None
    } else {
        take_diffs(&mut value)
    };
    let mut shown = json::shape(&value, kind, false, &call.view);
    let (mut text, note) = json::object_text(&mut shown, cap);
    if let Some(note) = note {
        text.push('\n');
        text.push_str(&note);
    }
    if let Some(note) = json::unknown_fields(&[&value], &call.view) {
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
        structured: Some(shown),
        is_error,
    }
}

/// GitLab sends file contents in base64; a text file is shown as text.
fn decode_file_content(value: &mut Value) {
    let Some(map) = value.as_object_mut() else {
        return;
    };
    if map.get("encoding").and_then(Value::as_str) != Some("base64") {
        return;
    }
    let Some(content) = map.get("content").and_then(Value::as_str) else {
        return;
    };
    let decoded =
        crate::gitlab::request::decode_base64(content).and_then(|b| String::from_utf8(b).ok());
    if let Some(text) = decoded {
        map.insert("content".into(), Value::String(text));
        map.insert("encoding".into(), Value::String("text".into()));
    }
}

fn take_diffs(value: &mut Value) -> Option<Vec<Value>> {
    let map = value.as_object_mut()?;
    for key in ["diffs", "changes"] {
        if let Some(Value::Array(_)) = map.get(key) {
            return match map.remove(key) {
                Some(Value::Array(items)) => Some(items),
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

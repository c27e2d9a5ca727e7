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
mod diff_stream;
mod failure;
pub mod graphql;
mod json;
pub mod log_scan;
mod pagination;
mod parse;
mod terminal;
mod text;
mod tree;
pub mod untrusted;
mod zip_listing;

pub use diff::Beyond;
pub use diff_stream::{DiffPlace, DiffReader};
pub use failure::{Context, failure};
pub use pagination::pagination_line;
pub use text::{Window, window};
pub use zip_listing::{TAIL_WINDOW as ARCHIVE_TAIL_WINDOW, Tail as ArchiveTail};

use serde_json::{Map, Value, json};

use tree::Node;
use zip_listing::Unlisted;

use crate::catalog::{Diffs, KindSpec, Returns, TextStart};
use crate::dispatch::ValidatedCall;
use crate::encoding::decode_base64;
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

/// The result of a tool call, before any protocol wrapping: what the model
/// reads, whether it is an error, and optionally the same as JSON.
#[derive(Debug, Clone, PartialEq)]
pub struct Output {
    pub text: String,
    pub is_error: bool,
    /// The result as JSON, when structured content is on.
    pub structured: Option<Value>,
}

impl Output {
    pub fn ok(text: String) -> Self {
        Output {
            text,
            is_error: false,
            structured: None,
        }
    }

    pub fn error(text: String) -> Self {
        Output {
            text,
            is_error: true,
            structured: None,
        }
    }

    /// A bracketed line after the answer, like the pagination line.
    pub fn with_note(mut self, note: &str) -> Self {
        self.text.push_str(&format!("\n[{note}]"));
        self
    }
}

/// The result of a successful answer, by what the action returns.
pub fn success(call: &ValidatedCall, response: &Response, options: Options) -> Output {
    diff_success(call, response, &Beyond::default(), options)
}

/// The result of a successful answer whose diffs were read as they
/// streamed (`DiffReader`), `beyond` the files it left out.
pub fn diff_success(
    call: &ValidatedCall,
    response: &Response,
    beyond: &Beyond,
    options: Options,
) -> Output {
    let cap = options.max_bytes;
    let checked = tree::text_of(&response.body);
    // A text (a log, a raw file that may be JSON too) is not parsed.
    let parsed = match call.action.returns {
        Returns::Text(_) => None,
        _ => checked.and_then(|(text, _)| Node::parse_text(text)),
    };
    // Escaping walks every string of the tree; a body of plain ASCII with
    // no `\u` escape has nothing to escape (most of GitLab's answers).
    let plain =
        checked.is_some_and(|(_, ascii)| ascii) && untrusted::is_plain_ascii(&response.body);
    let mut output = match (call.action.returns, parsed) {
        (Returns::Text(start), _) => {
            let body = String::from_utf8_lossy(&response.body);
            // A log is shown as a terminal shows it (the window cleans it).
            Output::ok(window(&body, call.view.lines, start, cap))
        }
        (Returns::Nothing, None) => Output::ok(format!(
            "Done: {} {} succeeded (HTTP {}).",
            call.tool.name, call.action.name, response.status
        )),
        (Returns::List(kind), Some(Node::Arr(items))) if kind.diffs == Diffs::Itself => diff_list(
            call,
            kind,
            items,
            &response.pagination,
            options,
            plain,
            beyond,
        ),
        (Returns::List(kind), Some(Node::Arr(items))) => {
            list(call, kind, items, &response.pagination, options, plain)
        }
        (Returns::One(kind) | Returns::List(kind), Some(node)) => {
            one(call, Some(kind), node, options, plain, beyond)
        }
        (Returns::Nothing, Some(node)) => one(call, None, node, options, plain, beyond),
        // Not JSON where JSON was expected: nothing the model can use.
        (_, None) => not_json(call, response),
    };
    if matches!(call.action.returns, Returns::List(_))
        && let Some(line) = pagination_line(call, &response.pagination)
    {
        output.text.push('\n');
        output.text.push_str(&line);
    }
    output
}

/// How much of a body that is not JSON an error shows.
const NOT_JSON_START: usize = 300;

/// A 2xx answer that is not the JSON the action returns (a sign-in or
/// proxy page answered in GitLab's place, a body cut short): an error,
/// with the start of what came.
fn not_json(call: &ValidatedCall, response: &Response) -> Output {
    let body = String::from_utf8_lossy(&response.body);
    let start = body.trim_start();
    let lower = start.get(..14).unwrap_or(start).to_ascii_lowercase();
    let what = if lower.starts_with("<!doctype html") || lower.starts_with("<html") {
        " (an HTML page: a sign-in or proxy page in GitLab's place? check GITLAB_URL)"
    } else {
        ""
    };
    let mut shown: String = start.chars().take(NOT_JSON_START).collect();
    if shown.len() < start.len() {
        shown.push('…');
    }
    Output::error(format!(
        "{} {}: GitLab answered {}, but its answer is not JSON{what}. It starts: {shown}",
        call.tool.name, call.action.name, response.status
    ))
}

/// A list whose items are file diffs: shown as diffs, unless `fields` or
/// `raw` asked for the JSON.
fn diff_list(
    call: &ValidatedCall,
    kind: &'static KindSpec,
    items: Vec<Node>,
    pagination: &Pagination,
    options: Options,
    plain: bool,
    beyond: &Beyond,
) -> Output {
    if call.view.raw || call.view.fields.is_some() {
        return list(call, kind, items, pagination, options, plain);
    }
    let mut items = items;
    if !plain {
        items.iter_mut().for_each(untrusted::escape_node);
    }
    match diff::render(&items, call.view.file.as_deref(), options.max_bytes, beyond) {
        Ok(text) => Output::ok(text),
        Err(message) => Output::error(message),
    }
}

/// The file list of a zip archive (a job's artifacts), windowed like text:
/// `zip` is the archive from offset `base` to its end (`ArchiveTail`).
pub fn archive_listing(call: &ValidatedCall, zip: &[u8], base: u64, options: Options) -> Output {
    match zip_listing::listing(zip, base) {
        Ok(listing) => Output::ok(window(
            &listing,
            call.view.lines,
            TextStart::Head,
            options.max_bytes,
        )),
        Err(Unlisted::NotZip) => {
            Output::error("GitLab's answer is not a zip archive; nothing to list.".into())
        }
        Err(Unlisted::DirectoryTooLarge) => Output::error(format!(
            "The archive's file list is over {} MiB, more than the server keeps of an archive's end; nothing to list. List it a directory at a time with `job_artifact_tree` (from GitLab's metadata, nothing downloaded).",
            zip_listing::TAIL_WINDOW / (1024 * 1024)
        )),
    }
}

fn list(
    call: &ValidatedCall,
    kind: &'static KindSpec,
    items: Vec<Node>,
    pagination: &Pagination,
    options: Options,
    plain: bool,
) -> Output {
    let cap = options.max_bytes;
    let note = {
        let refs: Vec<&Node> = items.iter().collect();
        json::unknown_fields(&refs, &call.view)
    };
    let total = items.len();
    let shown: Vec<Node> = items
        .into_iter()
        .map(|i| {
            let mut item = json::shape(i, Some(kind), true, &call.view);
            if !plain {
                untrusted::escape_node(&mut item);
            }
            item
        })
        .collect();
    let (text, count) = json::list_text(&shown, cap.saturating_sub(untrusted::FRAME_ROOM));
    let mut text = if total == 0 {
        "[]".to_string()
    } else {
        untrusted::frame(&text)
    };
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
    Output {
        text,
        structured,
        is_error: false,
    }
}

fn one(
    call: &ValidatedCall,
    kind: Option<&'static KindSpec>,
    mut node: Node,
    options: Options,
    plain: bool,
    beyond: &Beyond,
) -> Output {
    let cap = options.max_bytes;
    // A file's decoded content is text GitLab did not send as such.
    let decoded = !call.view.raw && decode_file_content(&mut node);
    if !plain || decoded {
        untrusted::escape_node(&mut node);
    }
    let note = json::unknown_fields(&[&node], &call.view);
    // Diffs inside an object (compare's `diffs`) are shown as diffs after
    // the object.
    let diffs = match kind.map(|k| k.diffs) {
        Some(Diffs::InField(field)) if !call.view.raw && call.view.fields.is_none() => {
            take_diffs(&mut node, field)
        }
        _ => None,
    };
    let mut shown = json::shape(node, kind, false, &call.view);
    let (text, cut) = json::object_text(&mut shown, cap.saturating_sub(untrusted::FRAME_ROOM));
    let mut text = untrusted::frame(&text);
    for note in [cut, note].into_iter().flatten() {
        text.push('\n');
        text.push_str(&note);
    }
    let mut is_error = false;
    if let Some(diffs) = diffs {
        let room = cap.saturating_sub(text.len());
        match diff::render(&diffs, call.view.file.as_deref(), room, beyond) {
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
    Output {
        text,
        structured: options.structured.then(|| shown.to_value()),
        is_error,
    }
}

/// GitLab sends file contents in base64; a text file is shown as text.
/// Whether it was decoded.
fn decode_file_content(node: &mut Node) -> bool {
    if node.get("encoding").and_then(Node::as_str) != Some("base64") {
        return false;
    }
    let Some(content) = node.get("content").and_then(Node::as_str) else {
        return false;
    };
    let decoded = decode_base64(content).and_then(|b| String::from_utf8(b).ok());
    let Some(text) = decoded else {
        return false;
    };
    node.set("content", Node::Str(text.into()));
    node.set("encoding", Node::Str("text".into()));
    true
}

fn take_diffs<'a>(node: &mut Node<'a>, field: &str) -> Option<Vec<Node<'a>>> {
    if !matches!(node.get(field), Some(Node::Arr(_))) {
        return None;
    }
    match node.take(field) {
        Some(Node::Arr(items)) => Some(items),
        _ => None,
    }
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
    if let Some(cursor) = &p.next_cursor {
        out.insert("next_cursor".into(), Value::String(cursor.clone()));
    }
    Value::Object(out)
}

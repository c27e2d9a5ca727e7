//! The unresolved threads of `review_context`: each with its id (to reply
//! or resolve), where it is (`file:line`), its first note's author and an
//! excerpt of `EXCERPT_CHARS`.

use std::fmt::Write as _;

use serde_json::Value;

use super::listing::Listing;
use super::text::{cut_chars, json_of, str_at, unread_pages, username};
use crate::gitlab::{Failed, Response};

/// The longest excerpt of a thread's first note.
const EXCERPT_CHARS: usize = 200;

/// The unresolved threads among those read (the first `PER_PAGE`).
pub(super) fn listing(discussions: &Result<Response, Failed>) -> Listing {
    let mut listing = Listing::new(
        "unresolved threads",
        "action `discussion_list` has them all",
    );
    let response = match discussions {
        Ok(response) => response,
        Err(failed) => return listing.not_read("unresolved threads", failed),
    };
    let items = json_of(response);
    let items = items.as_array().map(Vec::as_slice).unwrap_or_default();
    listing.lines = items.iter().filter_map(unresolved_thread).collect();
    listing.structured = listing.lines.iter().map(|l| l.as_str().into()).collect();
    listing.head = format!(
        "\nunresolved threads ({} of {} threads; first note, cut at {EXCERPT_CHARS} characters{}):\n",
        listing.lines.len(),
        items.len(),
        unread_pages(response, "threads read", "discussion_list")
    );
    listing.none = true;
    listing
}

/// One unresolved thread: `- <id> src/x.rs:12 @bob: excerpt`.
fn unresolved_thread(d: &Value) -> Option<String> {
    let notes = d.get("notes")?.as_array()?;
    let resolvable: Vec<&Value> = notes
        .iter()
        .filter(|n| n.get("resolvable").and_then(Value::as_bool) == Some(true))
        .collect();
    let unresolved = !resolvable.is_empty()
        && resolvable
            .iter()
            .any(|n| n.get("resolved").and_then(Value::as_bool) != Some(true));
    if !unresolved {
        return None;
    }
    let first = notes.first()?;
    let replies = notes.len() - 1;
    let mut line = format!(
        "- {} {} {}: {}",
        str_at(d, "id").unwrap_or("?"),
        place(first.get("position")),
        username(first.get("author")),
        excerpt(str_at(first, "body").unwrap_or(""))
    );
    if replies > 0 {
        let _ = write!(
            line,
            " [{replies} repl{}]",
            if replies == 1 { "y" } else { "ies" }
        );
    }
    Some(line)
}

/// Where a thread is: `src/x.rs:12`, `src/x.rs:9 (old)`, or `(overview)`.
fn place(position: Option<&Value>) -> String {
    let Some(p) = position.filter(|p| p.is_object()) else {
        return "(overview)".to_string();
    };
    let path = str_at(p, "new_path").or_else(|| str_at(p, "old_path"));
    let new_line = p.get("new_line").and_then(Value::as_u64);
    let old_line = p.get("old_line").and_then(Value::as_u64);
    match (path, new_line, old_line) {
        (Some(path), Some(n), _) => format!("{path}:{n}"),
        (Some(path), None, Some(o)) => format!("{path}:{o} (old)"),
        (Some(path), None, None) => path.to_string(),
        _ => "(diff)".to_string(),
    }
}

/// A note's text on one line, cut at `EXCERPT_CHARS`.
fn excerpt(text: &str) -> String {
    let flat = text.split_whitespace().collect::<Vec<_>>().join(" ");
    cut_chars(&flat, EXCERPT_CHARS).0
}

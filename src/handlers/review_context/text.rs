//! Small readings shared by the sections of `review_context`: a field's
//! text, a username, a text cut at a number of characters, a read that
//! failed, a list with more pages than were read.

use std::fmt::Write as _;

use serde_json::Value;

use super::PER_PAGE;
use crate::gitlab::{Failed, GitLabError, Response};

/// A string field, when it is there and not empty.
pub(super) fn str_at<'v>(v: &'v Value, key: &str) -> Option<&'v str> {
    v.get(key).and_then(Value::as_str).filter(|s| !s.is_empty())
}

/// `@name`, or `?` when the user has none.
pub(super) fn username(user: Option<&Value>) -> String {
    user.and_then(|u| str_at(u, "username"))
        .map_or_else(|| "?".to_string(), |u| format!("@{u}"))
}

/// The first `max` characters of `text`, with `…` when cut.
pub(super) fn cut_chars(text: &str, max: usize) -> (String, bool) {
    match text.char_indices().nth(max) {
        Some((at, _)) => (format!("{}…", text[..at].trim_end()), true),
        None => (text.to_string(), false),
    }
}

/// How a secondary read ended, as one short phrase.
pub(super) fn not_read(failed: &Failed) -> String {
    let mut text = format!("not read: {}", failed.error);
    if let GitLabError::Status(status) = &failed.error
        && let Some(message) = &status.message
    {
        let _ = write!(text, " ({})", cut_chars(message, 120).0);
    }
    text
}

pub(super) fn json_of(response: &Response) -> Value {
    serde_json::from_slice(&response.body).unwrap_or(Value::Null)
}

/// `; only the first 100 read, 250 in all: action `diffs` with page=2`
/// when the list has more pages than the one read (`read` says what was
/// read), or nothing.
pub(super) fn unread_pages(response: &Response, read: &str, action: &str) -> String {
    let p = &response.pagination;
    if p.next_page.is_none() && p.next_link.is_none() {
        return String::new();
    }
    let more = match p.total {
        Some(total) => format!("{total} in all"),
        None => "more on later pages".to_string(),
    };
    format!("; only the first {PER_PAGE} {read}, {more}: action `{action}` with page=2")
}

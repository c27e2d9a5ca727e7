//! The changed files of `review_context`: each file's name and its
//! `+added −removed` lines, counted by the diff model, never its text.

use std::fmt::Write as _;

use serde_json::json;

use super::listing::Listing;
use super::text::{json_of, unread_pages};
use crate::diff::{Change, Counts, FileDiff};
use crate::gitlab::{Failed, Response};

/// The files of the diffs read (the first `PER_PAGE`), with their total.
pub(super) fn listing(diffs: &Result<Response, Failed>) -> Listing {
    let mut listing = Listing::new("files", "action `diffs` lists them");
    let response = match diffs {
        Ok(response) => response,
        Err(failed) => return listing.not_read("changed files", failed),
    };
    let items = json_of(response);
    let items = items.as_array().map(Vec::as_slice).unwrap_or_default();
    let mut total = Counts::default();
    for item in items {
        let (line, counts) = changed_file(&FileDiff::from_json(item));
        total.added += counts.added;
        total.removed += counts.removed;
        listing
            .structured
            .push(json!({"file": line, "added": counts.added, "removed": counts.removed}));
        listing.lines.push(line);
    }
    listing.head = format!(
        "\nchanged files ({}, +{} −{}{}):\n",
        items.len(),
        total.added,
        total.removed,
        unread_pages(response, "read", "diffs")
    );
    listing
}

/// One changed file: `src/x.rs  +12 −3 (new)`, and its counts.
fn changed_file(file: &FileDiff<'_>) -> (String, Counts) {
    let counts = file.counts();
    let mut line = file.name();
    if file.text.is_empty() {
        line.push_str(if file.too_large {
            "  (diff too large to count)"
        } else {
            "  (no text diff)"
        });
    } else {
        let _ = write!(line, "  +{} −{}", counts.added, counts.removed);
    }
    match file.change() {
        Change::Added => line.push_str(" (new)"),
        Change::Deleted => line.push_str(" (deleted)"),
        Change::Renamed | Change::Modified => {}
    }
    (line, counts)
}

//! Diffs as text, file by file: a header with the change and its size,
//! then the unified diff. Within the cap; the files left out are listed
//! with how to fetch one (`file`).

use super::json::names_within;
use super::tree::Node;

/// Room for the names of the files a note or an error lists: a diff can
/// have thousands of files.
const FILE_NAMES_ROOM: usize = 500;

/// Room kept for the note under a diff cut at the cap (its size and the
/// cap, under 100 bytes) and the pagination line after it.
const CUT_NOTE_ROOM: usize = 300;

/// One line per file: `src/main.rs (modified, +2 -1)`.
fn header(d: &Node) -> String {
    let text_of = |key: &str| d.get(key).and_then(Node::as_str);
    let flag = |key: &str| d.get(key) == Some(&Node::Bool(true));
    let new = text_of("new_path").unwrap_or_default();
    let old = text_of("old_path").unwrap_or(new);
    let change = if flag("new_file") {
        "added"
    } else if flag("deleted_file") {
        "deleted"
    } else if flag("renamed_file") {
        "renamed"
    } else {
        "modified"
    };
    let text = text_of("diff").unwrap_or_default();
    let added = text
        .lines()
        .filter(|l| l.starts_with('+') && !l.starts_with("+++"))
        .count();
    let removed = text
        .lines()
        .filter(|l| l.starts_with('-') && !l.starts_with("---"))
        .count();
    let name = if change == "renamed" && old != new {
        format!("{old} → {new}")
    } else {
        new.to_string()
    };
    format!("{name} ({change}, +{added} -{removed})")
}

fn matches(d: &Node, file: &str) -> bool {
    let path = |key: &str| d.get(key).and_then(Node::as_str);
    path("new_path") == Some(file) || path("old_path") == Some(file)
}

/// The diffs within `cap`, or only `file`'s; `Err` when `file` is not there.
pub fn render(diffs: &[Node], file: Option<&str>, cap: usize) -> Result<String, String> {
    let chosen: Vec<&Node> = match file {
        Some(f) => diffs.iter().filter(|d| matches(d, f)).collect(),
        None => diffs.iter().collect(),
    };
    if let Some(f) = file
        && chosen.is_empty()
    {
        let names: Vec<String> = diffs.iter().map(header).collect();
        let names: Vec<&str> = names.iter().map(String::as_str).collect();
        return Err(format!(
            "no diff for `{f}` on this page; files here: {}",
            if names.is_empty() {
                "none".to_string()
            } else {
                names_within(&names, FILE_NAMES_ROOM)
            }
        ));
    }
    // The diffs are GitLab's text, framed; the notes about cuts are ours.
    let room = cap.saturating_sub(super::untrusted::FRAME_ROOM);
    let mut out = String::new();
    let mut notes = String::new();
    let mut left_out: Vec<String> = Vec::new();
    for d in chosen {
        let head = header(d);
        let body = d.get("diff").and_then(Node::as_str).unwrap_or_default();
        let block = format!("=== {head}\n{body}");
        if !left_out.is_empty() || out.len() + block.len() + 1 > room {
            if out.is_empty() {
                // A single diff over the cap: show its start.
                let mut end = room.saturating_sub(CUT_NOTE_ROOM).min(block.len());
                while !block.is_char_boundary(end) {
                    end -= 1;
                }
                out.push_str(&block[..end]);
                notes.push_str(&format!(
                    "\n[cut: this diff is {} bytes, over the {} KB response cap]",
                    block.len(),
                    cap / 1024
                ));
            } else {
                left_out.push(head);
            }
            continue;
        }
        out.push_str(&block);
        if !out.ends_with('\n') {
            out.push('\n');
        }
    }
    if !left_out.is_empty() {
        let names: Vec<&str> = left_out.iter().map(String::as_str).collect();
        notes.push_str(&format!(
            "\n[cut at the {} KB response cap: {} more files not shown: {}. One file: \"file\": \"<path>\" beside action]",
            cap / 1024,
            left_out.len(),
            names_within(&names, FILE_NAMES_ROOM)
        ));
    }
    let mut text = super::untrusted::frame(&out);
    text.push_str(&notes);
    Ok(text)
}

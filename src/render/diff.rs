//! Diffs as text, file by file: a header with the change and its size
//! (counted by the diff model, `crate::diff`), then the unified diff.
//! Within the cap; the files left out are listed with how to fetch one
//! (`file`). A diff read as it streamed (`diff_stream.rs`) comes with
//! the files it left out, which are listed here as the renderer's own.

use super::json::names_within;
use super::tree::Node;
use crate::diff::FileDiff;

/// Room for the names of the files a note or an error lists: a diff can
/// have thousands of files.
pub(super) const FILE_NAMES_ROOM: usize = 500;

/// Room kept for the note under a diff cut at the cap (its size and the
/// cap, under 100 bytes) and the pagination line after it.
const CUT_NOTE_ROOM: usize = 300;

/// GitLab's diff object, read from the borrowed tree.
pub(super) fn file_diff<'n>(d: &'n Node<'_>) -> FileDiff<'n> {
    FileDiff::read(
        |key| d.get(key).and_then(Node::as_str),
        |key| d.get(key) == Some(&Node::Bool(true)),
    )
}

/// One line per file: `src/main.rs (modified, +2 -1)`.
pub(super) fn header(d: &FileDiff<'_>) -> String {
    let counts = d.counts();
    format!(
        "{} ({}, +{} -{})",
        d.name(),
        d.change().as_str(),
        counts.added,
        counts.removed
    )
}

/// Files read but left out of the body (`diff_stream.rs`), all after the
/// kept ones: their headers while the names have room, then a count.
#[derive(Debug, Default, PartialEq)]
pub struct Beyond {
    pub(super) headers: Vec<String>,
    pub(super) headers_bytes: usize,
    pub(super) count: usize,
}

impl Beyond {
    /// One more file left out; named while `room` is not yet filled, so
    /// that a list of names cut at `room` never runs out of them.
    pub fn add(&mut self, header: String, room: usize) {
        if self.wants_names(room) {
            self.headers_bytes += header.len() + 2;
            self.headers.push(header);
        }
        self.count += 1;
    }

    pub fn is_empty(&self) -> bool {
        self.count == 0
    }

    /// Whether the next file left out is named, or only counted.
    pub fn wants_names(&self, room: usize) -> bool {
        self.headers_bytes <= room
    }

    /// Left out and not named.
    fn unnamed(&self) -> usize {
        self.count - self.headers.len()
    }
}

/// The diffs within `cap`, or only `file`'s; `Err` when `file` is not there.
/// `beyond`: the files after these that were read but not kept.
pub fn render(
    diffs: &[Node],
    file: Option<&str>,
    cap: usize,
    beyond: &Beyond,
) -> Result<String, String> {
    let diffs: Vec<FileDiff<'_>> = diffs.iter().map(file_diff).collect();
    let chosen: Vec<&FileDiff<'_>> = match file {
        Some(f) => diffs.iter().filter(|d| d.is_named(f)).collect(),
        None => diffs.iter().collect(),
    };
    if let Some(f) = file
        && chosen.is_empty()
    {
        let names: Vec<String> = diffs.iter().map(header).collect();
        let names: Vec<&str> = names
            .iter()
            .chain(&beyond.headers)
            .map(String::as_str)
            .collect();
        return Err(format!(
            "no diff for `{f}` on this page; files here: {}",
            if names.is_empty() {
                "none".to_string()
            } else {
                names_within(&names, beyond.unnamed(), FILE_NAMES_ROOM)
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
        let block = format!("=== {head}\n{}", d.text);
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
    // With `file`, the other files were not chosen rather than cut.
    let beyond = match file {
        Some(_) => &Beyond::default(),
        None => beyond,
    };
    if !left_out.is_empty() || !beyond.is_empty() {
        let names: Vec<&str> = left_out
            .iter()
            .chain(&beyond.headers)
            .map(String::as_str)
            .collect();
        notes.push_str(&format!(
            "\n[cut at the {} KB response cap: {} more files not shown: {}. One file: \"file\": \"<path>\" beside action]",
            cap / 1024,
            left_out.len() + beyond.count,
            names_within(&names, beyond.unnamed(), FILE_NAMES_ROOM)
        ));
    }
    let mut text = super::untrusted::frame(&out);
    text.push_str(&notes);
    Ok(text)
}

//! The two lists of `review_context` (changed files, unresolved threads):
//! each a head line and its lines, shown as far as the room left under
//! the cap allows, with a note saying what was cut.

use std::fmt::Write as _;

use serde_json::Value;

use super::text::not_read;
use crate::gitlab::Failed;

/// A list under a head line.
pub(super) struct Listing {
    /// The blank line, the head and its newline; or a line saying the list
    /// was not read.
    pub head: String,
    pub lines: Vec<String>,
    /// Each line as the structured content shows it.
    pub structured: Vec<Value>,
    /// What the lines are, for the cut note: `files`.
    pub what: &'static str,
    /// Where the whole list is, for the cut note.
    pub rest: &'static str,
    /// Say `none` when the list was read and has no line.
    pub none: bool,
}

impl Listing {
    /// An empty list of `what`, whose whole is at `rest`.
    pub(super) fn new(what: &'static str, rest: &'static str) -> Self {
        Listing {
            head: String::new(),
            lines: Vec::new(),
            structured: Vec::new(),
            what,
            rest,
            none: false,
        }
    }

    /// The list `title` could not be read: one line saying why.
    pub(super) fn not_read(mut self, title: &str, failed: &Failed) -> Self {
        self.head = format!("\n{title}: {}\n", not_read(failed));
        self
    }

    /// The head, the first `shown` lines, and what was left out.
    pub(super) fn write(&self, out: &mut String, shown: usize, cap: usize) {
        out.push_str(&self.head);
        for line in &self.lines[..shown] {
            let _ = writeln!(out, "{line}");
        }
        if self.none && self.lines.is_empty() {
            out.push_str("none\n");
        }
        if shown < self.lines.len() {
            let _ = writeln!(
                out,
                "[cut at the {} KB response cap: {shown} of {} {} shown; {}]",
                cap / 1024,
                self.lines.len(),
                self.what,
                self.rest
            );
        }
    }
}

/// How many files and threads fit in `room` bytes. Threads are what a
/// review acts on: they get their share first, the files the rest, and the
/// threads whatever the files left.
pub(super) fn share(room: usize, files: &Listing, threads: &Listing) -> (usize, usize) {
    let threads_room = size(&threads.lines).min(room / 2);
    let files_shown = fitting(&files.lines, room.saturating_sub(threads_room));
    let used_by_files = size(&files.lines[..files_shown]);
    let threads_shown = fitting(&threads.lines, room.saturating_sub(used_by_files));
    (files_shown, threads_shown)
}

/// The bytes of `lines`, each with its newline.
fn size(lines: &[String]) -> usize {
    lines.iter().map(|l| l.len() + 1).sum()
}

/// As many of `lines` as fit in `room` bytes (each with its newline).
fn fitting(lines: &[String], room: usize) -> usize {
    let mut used = 0;
    lines
        .iter()
        .take_while(|l| {
            used += l.len() + 1;
            used <= room
        })
        .count()
}

//! Unified diff text into hunks and lines: the only code of the crate that
//! reads `@@` hunk headers.
//!
//! A header is a whole line of the form `@@ -A[,B] +C[,D] @@[ heading]`;
//! text before the first one (`diff --git`, `---`/`+++`, `Binary files
//! ... differ`) is not part of any hunk. A hunk holds as many lines as its
//! counts say, so a removed line that reads `--- x` is a removed line, and
//! what follows its last line up to the next header is left out. A header
//! before the counts are used up starts a new hunk, as GitLab's parser
//! does. `\ No newline at end of file` marks the line before it.

use std::iter::Peekable;
use std::str::Lines as TextLines;

use super::{Header, Hunk, Line, LineKind};

/// The marker git writes after a line without a final newline.
const NO_NEWLINE: char = '\\';

/// What the text holds, in order: a hunk's header, then its lines.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Event<'a> {
    Hunk(Header),
    Line(Line<'a>),
}

pub(super) fn hunks(text: &str) -> Vec<Hunk<'_>> {
    let mut out: Vec<Hunk<'_>> = Vec::new();
    for event in Events::new(text) {
        match event {
            Event::Hunk(header) => out.push(Hunk {
                header,
                lines: Vec::new(),
            }),
            Event::Line(line) => {
                if let Some(hunk) = out.last_mut() {
                    hunk.lines.push(line);
                }
            }
        }
    }
    out
}

pub(super) fn lines(text: &str) -> impl Iterator<Item = Line<'_>> {
    Events::new(text).filter_map(|event| match event {
        Event::Line(line) => Some(line),
        Event::Hunk(_) => None,
    })
}

/// `@@ -A[,B] +C[,D] @@`, with anything after a space (git's section
/// heading); `None` for any other line.
fn header(line: &str) -> Option<Header> {
    let rest = line.strip_prefix("@@ -")?;
    let (old, rest) = rest.split_once(" +")?;
    let (new, heading) = rest.split_once(" @@")?;
    if !(heading.is_empty() || heading.starts_with([' ', '\t'])) {
        return None;
    }
    let (old_start, old_count) = range(old)?;
    let (new_start, new_count) = range(new)?;
    Some(Header {
        old_start,
        old_count,
        new_start,
        new_count,
    })
}

/// `start[,count]`; an omitted count is 1.
fn range(text: &str) -> Option<(u64, u64)> {
    let number = |s: &str| {
        if s.is_empty() || !s.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        s.parse::<u64>().ok()
    };
    match text.split_once(',') {
        Some((start, count)) => Some((number(start)?, number(count)?)),
        None => Some((number(text)?, 1)),
    }
}

/// The events of a diff text, read line by line (`str::lines`, so `\r\n`
/// endings are taken off like `\n`).
struct Events<'a> {
    text: Peekable<TextLines<'a>>,
    /// GitLab's two counters: the next line's old and new numbers.
    old: u64,
    new: u64,
    /// Lines of the current hunk still to come on each side.
    old_left: u64,
    new_left: u64,
}

impl<'a> Events<'a> {
    fn new(text: &'a str) -> Self {
        Events {
            text: text.lines().peekable(),
            old: 0,
            new: 0,
            old_left: 0,
            new_left: 0,
        }
    }

    fn start(&mut self, header: Header) -> Event<'a> {
        self.old = header.old_start;
        self.new = header.new_start;
        self.old_left = header.old_count;
        self.new_left = header.new_count;
        Event::Hunk(header)
    }

    fn line(&mut self, raw: &'a str) -> Line<'a> {
        let (kind, text) = match raw.as_bytes().first() {
            Some(b'+') => (LineKind::Added, &raw[1..]),
            Some(b'-') => (LineKind::Removed, &raw[1..]),
            Some(b' ') => (LineKind::Context, &raw[1..]),
            // An empty line is a context line whose space was trimmed on
            // the way; anything else is read as context, as GitLab does.
            _ => (LineKind::Context, raw),
        };
        let no_newline = self
            .text
            .next_if(|next| next.starts_with(NO_NEWLINE))
            .is_some();
        let line = Line {
            kind,
            old_pos: self.old,
            new_pos: self.new,
            text,
            no_newline,
        };
        if kind != LineKind::Added {
            self.old += 1;
            self.old_left = self.old_left.saturating_sub(1);
        }
        if kind != LineKind::Removed {
            self.new += 1;
            self.new_left = self.new_left.saturating_sub(1);
        }
        line
    }
}

impl<'a> Iterator for Events<'a> {
    type Item = Event<'a>;

    fn next(&mut self) -> Option<Event<'a>> {
        loop {
            let raw = self.text.next()?;
            if let Some(header) = header(raw) {
                return Some(self.start(header));
            }
            let in_hunk = self.old_left > 0 || self.new_left > 0;
            // A stray marker (not right after a line) marks nothing.
            if in_hunk && !raw.starts_with(NO_NEWLINE) {
                return Some(Event::Line(self.line(raw)));
            }
        }
    }
}

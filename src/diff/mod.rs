//! One file's diff as GitLab sends it, and its unified diff text read into
//! hunks and lines: the one diff model of the crate. `render/diff.rs`
//! counts a file's changes with it, `handlers/review_context` lists the
//! changed files with it, and `handlers/diff_position.rs` finds the lines a
//! comment goes on with it.
//!
//! Pure: no I/O. The only JSON it knows is GitLab's diff object
//! (https://docs.gitlab.com/api/merge_requests/#list-merge-request-diffs),
//! read in [`FileDiff::read`].
//!
//! Line numbers follow GitLab's own parser (`lib/gitlab/diff/parser.rb`):
//! two counters start at the hunk header's two start numbers; an added
//! line moves only the new one, a removed line only the old one, a context
//! line both. A line's counters are its numbers on the sides it is on, and
//! make its line code on both.

#[cfg(test)]
pub mod fixtures;
mod parse;
#[cfg(test)]
mod tests;

use serde_json::Value;

/// One file of a diff: GitLab's diff object, borrowed from wherever it
/// was read.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct FileDiff<'a> {
    /// The path before the change (the new path when GitLab gave none).
    pub old_path: &'a str,
    /// The path after the change (the old path when GitLab gave none).
    pub new_path: &'a str,
    pub new_file: bool,
    pub renamed_file: bool,
    pub deleted_file: bool,
    /// GitLab left the text out (`too_large` or `collapsed`: over its diff
    /// limits).
    pub too_large: bool,
    /// The unified diff text: empty for a binary file, a rename without
    /// changes, or a diff GitLab left out.
    pub text: &'a str,
}

/// What happened to a file, as GitLab's flags say.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Change {
    Added,
    Deleted,
    Renamed,
    Modified,
}

impl Change {
    pub fn as_str(self) -> &'static str {
        match self {
            Change::Added => "added",
            Change::Deleted => "deleted",
            Change::Renamed => "renamed",
            Change::Modified => "modified",
        }
    }
}

/// A hunk header's numbers: `@@ -old_start,old_count +new_start,new_count @@`
/// (an omitted count is 1).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Header {
    pub old_start: u64,
    pub old_count: u64,
    pub new_start: u64,
    pub new_count: u64,
}

/// One hunk: its header and its lines, in order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Hunk<'a> {
    pub header: Header,
    pub lines: Vec<Line<'a>>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LineKind {
    Added,
    Removed,
    /// Unchanged: on both sides.
    Context,
}

/// Which version of the file a line number counts in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Side {
    Old,
    New,
}

/// One line of a hunk.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Line<'a> {
    pub kind: LineKind,
    /// GitLab's old counter at this line: the line's old number, or, for an
    /// added line, the number of the old line it comes before.
    pub old_pos: u64,
    /// GitLab's new counter at this line: the line's new number, or, for a
    /// removed line, the number of the new line it comes before.
    pub new_pos: u64,
    /// The line without its `+`, `-` or space, nor its line ending.
    pub text: &'a str,
    /// A `\ No newline at end of file` follows it.
    pub no_newline: bool,
}

impl Line<'_> {
    /// Its number in the old file; none for an added line.
    pub fn old_line(&self) -> Option<u64> {
        (self.kind != LineKind::Added).then_some(self.old_pos)
    }

    /// Its number in the new file; none for a removed line.
    pub fn new_line(&self) -> Option<u64> {
        (self.kind != LineKind::Removed).then_some(self.new_pos)
    }

    pub fn number(&self, side: Side) -> Option<u64> {
        match side {
            Side::Old => self.old_line(),
            Side::New => self.new_line(),
        }
    }
}

/// Lines added and removed.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Counts {
    pub added: u64,
    pub removed: u64,
}

impl<'a> FileDiff<'a> {
    /// GitLab's diff object, through accessors for its text and boolean
    /// fields (so a `serde_json::Value` and render's borrowed tree read it
    /// the same way).
    pub fn read(
        text: impl Fn(&'static str) -> Option<&'a str>,
        flag: impl Fn(&'static str) -> bool,
    ) -> Self {
        let path = |key| text(key).filter(|p| !p.is_empty());
        let (old_path, new_path) = (path("old_path"), path("new_path"));
        FileDiff {
            old_path: old_path.or(new_path).unwrap_or_default(),
            new_path: new_path.or(old_path).unwrap_or_default(),
            new_file: flag("new_file"),
            renamed_file: flag("renamed_file"),
            deleted_file: flag("deleted_file"),
            too_large: flag("too_large") || flag("collapsed"),
            text: text("diff").unwrap_or_default(),
        }
    }

    pub fn from_json(value: &'a Value) -> Self {
        FileDiff::read(
            |key| value.get(key).and_then(Value::as_str),
            |key| value.get(key).and_then(Value::as_bool) == Some(true),
        )
    }

    pub fn change(&self) -> Change {
        if self.new_file {
            Change::Added
        } else if self.deleted_file {
            Change::Deleted
        } else if self.renamed_file {
            Change::Renamed
        } else {
            Change::Modified
        }
    }

    /// The file as a reader names it: `old → new` for a rename.
    pub fn name(&self) -> String {
        if self.change() == Change::Renamed && self.old_path != self.new_path {
            format!("{} → {}", self.old_path, self.new_path)
        } else {
            self.new_path.to_string()
        }
    }

    /// Whether `path` is this file, by its new or its old path.
    pub fn is_named(&self, path: &str) -> bool {
        self.new_path == path || self.old_path == path
    }

    pub fn hunks(&self) -> Vec<Hunk<'a>> {
        parse::hunks(self.text)
    }

    /// Every line of every hunk, in order, without collecting them.
    pub fn lines(&self) -> impl Iterator<Item = Line<'a>> + 'a {
        parse::lines(self.text)
    }

    pub fn counts(&self) -> Counts {
        self.lines().fold(Counts::default(), |mut c, line| {
            match line.kind {
                LineKind::Added => c.added += 1,
                LineKind::Removed => c.removed += 1,
                LineKind::Context => {}
            }
            c
        })
    }
}

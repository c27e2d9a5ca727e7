//! Where a comment goes on a merge request's diff, and GitLab's `position`
//! for it (docs:
//! https://docs.gitlab.com/api/discussions/#create-a-new-thread-in-the-merge-request-diff).
//! Pure: it takes a diff version already read and its files' diffs, and
//! places one comment at a time, so a caller placing many comments reads
//! the version once and learns every problem before posting anything.
//!
//! The file's hunks say which lines can take a comment: an added line has
//! only a new number, a removed line only an old one, an unchanged line
//! both. A line outside the hunks is a [`Problem`] naming the lines that
//! can take one.
//!
//! The position has `new_line` for an added line, `old_line` for a removed
//! one, both for an unchanged one (as the docs require). A range is shown
//! at its last line and adds `line_range` with a `start` and an `end`, each
//! `{line_code, type, old_line, new_line}` (docs:
//! https://docs.gitlab.com/api/discussions/#parameters-for-multiline-comments):
//! `type` is `new` for an added line and `old` otherwise, and the line code
//! is `<sha1 of the path>_<old>_<new>` with GitLab's two counters
//! (`diff::Line::old_pos`, `new_pos`).

mod problem;
#[cfg(test)]
mod tests;

use std::fmt::Write as _;

use ring::digest::{SHA1_FOR_LEGACY_USE_ONLY, digest};
use serde_json::{Map, Value, json};

pub use self::problem::Problem;
use self::problem::param;
use crate::diff::{FileDiff, Line, LineKind, Side};

/// A diff version of a merge request: its id and the three SHAs a
/// position names.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DiffVersion {
    pub id: u64,
    pub base_sha: String,
    pub start_sha: String,
    pub head_sha: String,
}

impl DiffVersion {
    /// The newest of GitLab's diff versions (`GET .../versions` lists it
    /// first); `None` when there is none yet.
    pub fn newest(versions: &Value) -> Option<Self> {
        let newest = versions.as_array()?.first()?;
        let sha = |k: &str| newest.get(k).and_then(Value::as_str).map(str::to_string);
        Some(DiffVersion {
            id: newest.get("id").and_then(Value::as_u64)?,
            base_sha: sha("base_commit_sha")?,
            start_sha: sha("start_commit_sha")?,
            head_sha: sha("head_commit_sha")?,
        })
    }
}

/// The lines one comment asks for: a file (its new or old path), a line
/// on one side, and the last line of a range on the same side.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LineAsk<'a> {
    pub file: &'a str,
    pub side: Side,
    pub line: u64,
    /// The last line of a range; `line` itself, or none, for one line.
    pub end_line: Option<u64>,
}

impl<'a> LineAsk<'a> {
    /// The lines a comment names with `file`, `line` or `old_line`, and
    /// `end_line`, as `get` finds them: a call's parameters
    /// (`line_comment`) or one of a review's comments, already checked by
    /// `dispatch/checks/line_comment.rs` (one side given).
    pub fn read(get: impl Fn(&str) -> Option<&'a Value>) -> Self {
        let number = |name: &str| get(name).and_then(Value::as_u64);
        let (side, line) = match number("line") {
            Some(n) => (Side::New, n),
            None => (Side::Old, number("old_line").unwrap_or_default()),
        };
        LineAsk {
            file: get("file").and_then(Value::as_str).unwrap_or_default(),
            side,
            line,
            end_line: number("end_line"),
        }
    }
}

/// Where a comment goes: GitLab's `position`, and the lines it names.
#[derive(Debug, Clone, PartialEq)]
pub struct Placement<'a> {
    pub position: Value,
    pub start: Line<'a>,
    pub end: Option<Line<'a>>,
}

impl Placement<'_> {
    /// `line +3 (added)`, or `lines 10 (unchanged) to +13 (added)`.
    pub fn lines_text(&self) -> String {
        let named = |line: &Line<'_>| format!("{} ({})", label(line), kind(line));
        match &self.end {
            Some(end) => format!("lines {} to {}", named(&self.start), named(end)),
            None => format!("line {}", named(&self.start)),
        }
    }
}

/// The lines `ask` names in `files`, and the position GitLab needs for
/// them, or why there is none.
pub fn place<'a>(
    version: &DiffVersion,
    files: &[FileDiff<'a>],
    ask: &LineAsk<'_>,
) -> Result<Placement<'a>, Problem> {
    let file = find_file(files, ask.file).ok_or_else(|| Problem::NotAFile {
        file: ask.file.to_string(),
        version: version.id,
        files: files.iter().map(|f| f.new_path.to_string()).collect(),
    })?;
    if file.text.is_empty() {
        return Err(Problem::NoText {
            file: ask.file.to_string(),
            too_large: file.too_large,
        });
    }
    let lines: Vec<Line<'a>> = file.lines().collect();
    let find = |param: &'static str, n: u64| {
        lines
            .iter()
            .find(|l| l.number(ask.side) == Some(n))
            .copied()
            .ok_or_else(|| Problem::NotInDiff {
                file: ask.file.to_string(),
                param,
                side: ask.side,
                line: n,
                runs: runs(&lines, ask.side),
            })
    };
    let start = find(param(ask.side), ask.line)?;
    let end = match ask.end_line.filter(|n| *n != ask.line) {
        Some(n) => {
            let end = find("end_line", n)?;
            let runs = runs(&lines, ask.side);
            let within =
                |(a, b): &(u64, u64)| (*a..=*b).contains(&ask.line) && (*a..=*b).contains(&n);
            if !runs.iter().any(within) {
                return Err(Problem::CrossesGap {
                    file: ask.file.to_string(),
                    side: ask.side,
                    start: ask.line,
                    end: n,
                    runs,
                });
            }
            Some(end)
        }
        None => None,
    };
    Ok(Placement {
        position: position(version, file, &start, end.as_ref()),
        start,
        end,
    })
}

/// The file by its new path, or else by its old path.
fn find_file<'f, 'a>(files: &'f [FileDiff<'a>], path: &str) -> Option<&'f FileDiff<'a>> {
    files
        .iter()
        .find(|f| f.new_path == path)
        .or_else(|| files.iter().find(|f| f.old_path == path))
}

/// The position GitLab needs for these lines; a range (`end`) is shown at
/// its last line.
fn position(
    version: &DiffVersion,
    file: &FileDiff<'_>,
    start: &Line<'_>,
    end: Option<&Line<'_>>,
) -> Value {
    let anchor = end.unwrap_or(start);
    let mut position = json!({
        "position_type": "text",
        "base_sha": version.base_sha,
        "start_sha": version.start_sha,
        "head_sha": version.head_sha,
        "old_path": file.old_path,
        "new_path": file.new_path,
    });
    if let Some(n) = anchor.new_line() {
        position["new_line"] = n.into();
    }
    if let Some(o) = anchor.old_line() {
        position["old_line"] = o.into();
    }
    if let Some(end) = end {
        // A diff file's path is its new path (`Gitlab::Diff::File#file_path`).
        position["line_range"] = json!({
            "start": range_end(file.new_path, start),
            "end": range_end(file.new_path, end),
        });
    }
    position
}

/// A line as `line_range` names it.
fn range_end(path: &str, line: &Line<'_>) -> Value {
    let mut out = Map::new();
    out.insert("line_code".into(), line_code(path, line).into());
    let kind = if line.kind == LineKind::Added {
        "new"
    } else {
        "old"
    };
    out.insert("type".into(), kind.into());
    if let Some(o) = line.old_line() {
        out.insert("old_line".into(), o.into());
    }
    if let Some(n) = line.new_line() {
        out.insert("new_line".into(), n.into());
    }
    Value::Object(out)
}

/// GitLab's line code: the SHA-1 of the file's path, then the line's old
/// and new counters (docs: https://docs.gitlab.com/api/discussions/#line-code).
fn line_code(path: &str, line: &Line<'_>) -> String {
    let hash = digest(&SHA1_FOR_LEGACY_USE_ONLY, path.as_bytes());
    let mut out = String::with_capacity(60);
    for b in hash.as_ref() {
        let _ = write!(out, "{b:02x}");
    }
    let _ = write!(out, "_{}_{}", line.old_pos, line.new_pos);
    out
}

/// GitLab's notation: `+12` (added), `-12` (removed), `12` (unchanged).
fn label(line: &Line<'_>) -> String {
    match line.kind {
        LineKind::Added => format!("+{}", line.new_pos),
        LineKind::Removed => format!("-{}", line.old_pos),
        LineKind::Context => line.new_pos.to_string(),
    }
}

fn kind(line: &Line<'_>) -> &'static str {
    match line.kind {
        LineKind::Added => "added",
        LineKind::Removed => "removed",
        LineKind::Context => "unchanged",
    }
}

/// Runs of consecutive line numbers on `side`: `[(10, 24), (31, 35)]`.
fn runs(lines: &[Line<'_>], side: Side) -> Vec<(u64, u64)> {
    let mut numbers: Vec<u64> = lines.iter().filter_map(|l| l.number(side)).collect();
    numbers.sort_unstable();
    numbers.dedup();
    let mut out: Vec<(u64, u64)> = Vec::new();
    for n in numbers {
        match out.last_mut() {
            Some((_, end)) if *end + 1 == n => *end = n,
            _ => out.push((n, n)),
        }
    }
    out
}

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

use std::fmt::{self, Write as _};

use ring::digest::{SHA1_FOR_LEGACY_USE_ONLY, digest};
use serde_json::{Map, Value, json};

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
    /// The last line of a range (never `line` itself).
    pub end_line: Option<u64>,
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

/// Why a comment cannot be placed; its `Display` is the sentence the
/// model reads.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Problem {
    /// No file of the version has this path.
    NotAFile {
        file: String,
        version: u64,
        /// The version's files, by their new paths.
        files: Vec<String>,
    },
    /// GitLab sent no diff text for the file.
    NoText { file: String, too_large: bool },
    /// A line (`param`: `line`, `old_line` or `end_line`) outside the hunks.
    NotInDiff {
        file: String,
        param: &'static str,
        side: Side,
        line: u64,
        /// Runs of lines that can take a comment on that side.
        runs: Vec<(u64, u64)>,
    },
    /// A range whose ends are in the diff but not in one run of lines.
    CrossesGap {
        file: String,
        side: Side,
        start: u64,
        end: u64,
        runs: Vec<(u64, u64)>,
    },
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
    let end = match ask.end_line {
        Some(n) => {
            let end = find("end_line", n)?;
            let runs = runs(&lines, ask.side);
            let within = |(a, b): &(u64, u64)| (*a..=*b).contains(&ask.line) && (*a..=*b).contains(&n);
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
fn position(version: &DiffVersion, file: &FileDiff<'_>, start: &Line<'_>, end: Option<&Line<'_>>) -> Value {
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

/// The parameter that names a line on `side`.
fn param(side: Side) -> &'static str {
    match side {
        Side::New => "line",
        Side::Old => "old_line",
    }
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

/// The runs nearest to `near` (at most six), in line order: `10-24, 31-35`.
fn nearest_runs(runs: &[(u64, u64)], near: u64) -> String {
    const SHOWN: usize = 6;
    let distance = |(a, b): &(u64, u64)| {
        if near < *a {
            a - near
        } else {
            near.saturating_sub(*b)
        }
    };
    let mut picked: Vec<(u64, u64)> = runs.to_vec();
    if picked.len() > SHOWN {
        picked.sort_by_key(distance);
        picked.truncate(SHOWN);
        picked.sort_unstable();
    }
    let mut text = picked
        .iter()
        .map(|(a, b)| {
            if a == b {
                a.to_string()
            } else {
                format!("{a}-{b}")
            }
        })
        .collect::<Vec<_>>()
        .join(", ");
    if runs.len() > SHOWN {
        let _ = write!(text, " (the {SHOWN} nearest of {} ranges)", runs.len());
    }
    text
}

/// A version's files for a refusal: at most 20.
fn file_names(files: &[String]) -> String {
    const SHOWN: usize = 20;
    if files.is_empty() {
        return "none".into();
    }
    let mut text = files[..files.len().min(SHOWN)].join(", ");
    if files.len() > SHOWN {
        let _ = write!(text, " and {} more (action `diffs`)", files.len() - SHOWN);
    }
    text
}

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Problem::NotAFile {
                file,
                version,
                files,
            } => write!(
                f,
                "{file} is not a file of this merge request's diff (version {version}); its files: {}",
                file_names(files)
            ),
            Problem::NoText { file, too_large } => write!(
                f,
                "GitLab sent no diff text for {file} ({}), so no line of it can be checked; action `discussion_create` takes a position as given",
                if *too_large {
                    "too large, or collapsed"
                } else {
                    "binary, or only renamed"
                }
            ),
            Problem::NotInDiff {
                file,
                param,
                side,
                line,
                runs,
            } => {
                let version = match side {
                    Side::New => "new",
                    Side::Old => "old",
                };
                write!(f, "{param} {line} is not in the diff of {file}; ")?;
                if runs.is_empty() {
                    write!(
                        f,
                        "no {version}-version line of this file can take a comment"
                    )?;
                } else {
                    write!(
                        f,
                        "{version}-version lines that can take a comment: {}",
                        nearest_runs(runs, *line)
                    )?;
                }
                f.write_str(match side {
                    Side::New => " (a removed line takes `old_line`)",
                    Side::Old => " (an added line takes `line`)",
                })
            }
            Problem::CrossesGap {
                file,
                side,
                start,
                end,
                runs,
            } => write!(
                f,
                "{} {start} to {end} crosses lines that are not in the diff of {file}; a range stays within one of: {}",
                param(*side),
                nearest_runs(runs, *start)
            ),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `src/orders.rs` changed in two hunks: new lines 8-16 and 32-35, old
    /// lines 8-14 and 30-34 (as in tests/it/e2e_review.rs).
    const ORDERS: &str = "@@ -8,7 +8,9 @@ fn refund() {\n a\n b\n c\n-old eleven\n+new eleven\n+new twelve\n+new thirteen\n d\n e\n f\n@@ -30,5 +32,4 @@\n g\n h\n-old thirty-two\n i\n j\n";

    fn version() -> DiffVersion {
        DiffVersion {
            id: 555,
            base_sha: "b".into(),
            start_sha: "s".into(),
            head_sha: "h".into(),
        }
    }

    fn files() -> Vec<FileDiff<'static>> {
        let file = |path, text, too_large| FileDiff {
            old_path: path,
            new_path: path,
            too_large,
            text,
            ..FileDiff::default()
        };
        vec![
            file("src/orders.rs", ORDERS, false),
            file("logo.png", "", false),
            file("huge.sql", "", true),
        ]
    }

    fn ask(file: &str, side: Side, line: u64, end_line: Option<u64>) -> LineAsk<'_> {
        LineAsk {
            file,
            side,
            line,
            end_line,
        }
    }

    #[test]
    fn each_ask_is_placed_or_refused_with_the_lines_that_can_take_one() {
        let (version, files) = (version(), files());
        let cases = [
            (ask("src/orders.rs", Side::New, 12, None), Ok("line +12 (added)")),
            (ask("src/orders.rs", Side::Old, 11, None), Ok("line -11 (removed)")),
            (
                ask("src/orders.rs", Side::New, 10, Some(13)),
                Ok("lines 10 (unchanged) to +13 (added)"),
            ),
            (
                ask("src/orders.rs", Side::New, 40, None),
                Err("line 40 is not in the diff of src/orders.rs; new-version lines that can take a comment: 8-16, 32-35 (a removed line takes `old_line`)"),
            ),
            (
                ask("src/orders.rs", Side::Old, 20, None),
                Err("old_line 20 is not in the diff of src/orders.rs; old-version lines that can take a comment: 8-14, 30-34 (an added line takes `line`)"),
            ),
            (
                ask("src/orders.rs", Side::New, 14, Some(20)),
                Err("end_line 20 is not in the diff of src/orders.rs; new-version lines that can take a comment: 8-16, 32-35 (a removed line takes `old_line`)"),
            ),
            (
                ask("src/orders.rs", Side::New, 14, Some(33)),
                Err("line 14 to 33 crosses lines that are not in the diff of src/orders.rs; a range stays within one of: 8-16, 32-35"),
            ),
            (
                ask("src/order.rs", Side::New, 10, None),
                Err("src/order.rs is not a file of this merge request's diff (version 555); its files: src/orders.rs, logo.png, huge.sql"),
            ),
            (
                ask("logo.png", Side::New, 1, None),
                Err("GitLab sent no diff text for logo.png (binary, or only renamed), so no line of it can be checked; action `discussion_create` takes a position as given"),
            ),
            (
                ask("huge.sql", Side::New, 1, None),
                Err("GitLab sent no diff text for huge.sql (too large, or collapsed), so no line of it can be checked; action `discussion_create` takes a position as given"),
            ),
        ];
        for (ask, expected) in cases {
            let placed = place(&version, &files, &ask)
                .map(|p| p.lines_text())
                .map_err(|problem| problem.to_string());
            assert_eq!(
                placed,
                expected.map(str::to_string).map_err(str::to_string),
                "{ask:?}"
            );
        }
    }

    #[test]
    fn a_range_carries_line_range_with_gitlabs_line_codes() {
        let placement = place(
            &version(),
            &files(),
            &ask("src/orders.rs", Side::Old, 11, Some(13)),
        )
        .unwrap();
        let code = "a05e8ad50e25a7055ff9599d17629d8e2cc46a53";
        assert_eq!(
            placement.position,
            json!({
                "position_type": "text",
                "base_sha": "b",
                "start_sha": "s",
                "head_sha": "h",
                "old_path": "src/orders.rs",
                "new_path": "src/orders.rs",
                "new_line": 15,
                "old_line": 13,
                "line_range": {
                    "start": {"line_code": format!("{code}_11_11"), "type": "old", "old_line": 11},
                    "end": {"line_code": format!("{code}_13_15"), "type": "old", "old_line": 13, "new_line": 15},
                }
            })
        );
    }

    #[test]
    fn line_codes_are_the_sha1_of_the_path_and_the_counters() {
        let line = Line {
            kind: LineKind::Removed,
            old_pos: 3,
            new_pos: 0,
            text: "",
            no_newline: false,
        };
        // SHA-1 of "README.md".
        assert_eq!(
            line_code("README.md", &line),
            "8ec9a00bfd09b3190ac6b22251dbb1aa95a0579d_3_0"
        );
    }

    #[test]
    fn the_newest_version_is_the_first_listed() {
        let versions = json!([
            {"id": 2, "base_commit_sha": "b2", "start_commit_sha": "s2", "head_commit_sha": "h2"},
            {"id": 1, "base_commit_sha": "b1", "start_commit_sha": "s1", "head_commit_sha": "h1"},
        ]);
        assert_eq!(
            DiffVersion::newest(&versions),
            Some(DiffVersion {
                id: 2,
                base_sha: "b2".into(),
                start_sha: "s2".into(),
                head_sha: "h2".into(),
            })
        );
        assert_eq!(DiffVersion::newest(&json!([])), None);
    }

    #[test]
    fn runs_are_the_consecutive_numbers_of_one_side() {
        let file = FileDiff {
            text: "@@ -1,3 +1,4 @@\n line one\n-line two\n+line two, changed\n+line added\n line three\n",
            ..FileDiff::default()
        };
        let lines: Vec<Line<'_>> = file.lines().collect();
        assert_eq!(runs(&lines, Side::New), [(1, 4)]);
        assert_eq!(runs(&lines, Side::Old), [(1, 3)]);
        let lines: Vec<Line<'_>> = files()[0].lines().collect();
        assert_eq!(runs(&lines, Side::New), [(8, 16), (32, 35)]);
        assert_eq!(runs(&lines, Side::Old), [(8, 14), (30, 34)]);
    }

    #[test]
    fn the_nearest_ranges_are_named() {
        let runs = [
            (1, 3),
            (10, 24),
            (31, 35),
            (50, 52),
            (60, 61),
            (70, 70),
            (80, 90),
        ];
        assert_eq!(
            nearest_runs(&runs, 40),
            "1-3, 10-24, 31-35, 50-52, 60-61, 70 (the 6 nearest of 7 ranges)"
        );
        assert_eq!(nearest_runs(&runs[1..3], 40), "10-24, 31-35");
        assert_eq!(
            file_names(&(1..=22).map(|n| format!("f{n}")).collect::<Vec<_>>()),
            "f1, f2, f3, f4, f5, f6, f7, f8, f9, f10, f11, f12, f13, f14, f15, f16, f17, f18, f19, f20 and 2 more (action `diffs`)"
        );
    }
}

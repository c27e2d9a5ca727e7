//! `line_comment`: a comment on a line (or a range of lines) of a merge
//! request's diff, as one new thread, without the agent assembling
//! GitLab's `position` (docs:
//! https://docs.gitlab.com/api/discussions/#create-a-new-thread-in-the-merge-request-diff).
//!
//! 1. `GET .../versions`: the newest diff version (listed first) gives
//!    `base_sha`, `start_sha` and `head_sha`.
//! 2. `GET .../versions/:version_id`: that version's diffs; the file is
//!    found by its new path, or its old path.
//! 3. The file's hunks say which lines can take a comment: an added line
//!    has only a new number, a removed line only an old one, an unchanged
//!    line both. A line outside the hunks is refused here, naming the
//!    lines that can take one; nothing is posted.
//! 4. `POST .../discussions` with `body` and `position`: `new_line` for an
//!    added line, `old_line` for a removed one, both for an unchanged one
//!    (as the docs require). A range anchors the note at its last line and
//!    adds `line_range` with a `start` and an `end`, each
//!    `{line_code, type, old_line, new_line}` (docs:
//!    https://docs.gitlab.com/api/discussions/#parameters-for-multiline-comments):
//!    `type` is `new` for an added line and `old` otherwise, and the line
//!    code is `<sha1 of the path>_<old>_<new>` with GitLab's counters
//!    (lib/gitlab/diff/parser.rb: an added line carries the number of the
//!    old line it comes before, a removed line that of the new line).

use std::fmt::Write as _;

use ring::digest::{SHA1_FOR_LEGACY_USE_ONLY, digest};
use serde_json::{Map, Value, json};

use super::Gitlab;
use crate::catalog::{Method, RestRoute};
use crate::dispatch::ValidatedCall;
use crate::gitlab::{Body, Failed, HttpRequest, Response, request};
use crate::render::{self, Output};

/// Which version of the file a line number counts in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Side {
    New,
    Old,
}

impl Side {
    fn param(self) -> &'static str {
        match self {
            Side::New => "line",
            Side::Old => "old_line",
        }
    }

    fn version(self) -> &'static str {
        match self {
            Side::New => "new",
            Side::Old => "old",
        }
    }
}

/// One line of a hunk: its number in the old and the new file (none for an
/// added or a removed line), and GitLab's two counters at that line, from
/// which its line code is made.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct DiffLine {
    old_line: Option<u64>,
    new_line: Option<u64>,
    old_pos: u64,
    new_pos: u64,
}

impl DiffLine {
    fn number(&self, side: Side) -> Option<u64> {
        match side {
            Side::New => self.new_line,
            Side::Old => self.old_line,
        }
    }

    fn kind(&self) -> &'static str {
        match (self.old_line, self.new_line) {
            (None, _) => "added",
            (_, None) => "removed",
            _ => "unchanged",
        }
    }

    /// GitLab's notation: `+12` (added), `-12` (removed), `12` (unchanged).
    fn label(&self) -> String {
        match (self.old_line, self.new_line) {
            (None, Some(n)) => format!("+{n}"),
            (Some(o), None) => format!("-{o}"),
            (_, n) => n.unwrap_or_default().to_string(),
        }
    }

    /// The line as `line_range` names it.
    fn range_end(&self, path: &str) -> Value {
        let mut out = Map::new();
        out.insert("line_code".into(), line_code(path, self).into());
        let kind = if self.old_line.is_none() {
            "new"
        } else {
            "old"
        };
        out.insert("type".into(), kind.into());
        if let Some(o) = self.old_line {
            out.insert("old_line".into(), o.into());
        }
        if let Some(n) = self.new_line {
            out.insert("new_line".into(), n.into());
        }
        Value::Object(out)
    }
}

/// Every line of a unified diff's hunks, in order (text before the first
/// `@@`, such as `---`/`+++` headers, is skipped).
fn diff_lines(diff: &str) -> Vec<DiffLine> {
    let mut out = Vec::new();
    let (mut old, mut new) = (0u64, 0u64);
    let mut in_hunk = false;
    for line in diff.lines() {
        if let Some(header) = line.strip_prefix("@@ -") {
            let mut parts = header.split(' ');
            let start = |s: Option<&str>| {
                s.and_then(|s| s.trim_start_matches('+').split(',').next())
                    .and_then(|n| n.parse::<u64>().ok())
                    .unwrap_or(0)
            };
            old = start(parts.next());
            new = start(parts.next());
            in_hunk = true;
            continue;
        }
        if !in_hunk {
            continue;
        }
        let (old_line, new_line) = match line.as_bytes().first() {
            Some(b'+') => (None, Some(new)),
            Some(b'-') => (Some(old), None),
            Some(b'\\') => continue,
            _ => (Some(old), Some(new)),
        };
        out.push(DiffLine {
            old_line,
            new_line,
            old_pos: old,
            new_pos: new,
        });
        if old_line.is_some() {
            old += 1;
        }
        if new_line.is_some() {
            new += 1;
        }
    }
    out
}

/// GitLab's line code: the SHA-1 of the file's path, then the line's old
/// and new counters (docs: https://docs.gitlab.com/api/discussions/#line-code).
fn line_code(path: &str, line: &DiffLine) -> String {
    let hash = digest(&SHA1_FOR_LEGACY_USE_ONLY, path.as_bytes());
    let mut out = String::with_capacity(60);
    for b in hash.as_ref() {
        let _ = write!(out, "{b:02x}");
    }
    let _ = write!(out, "_{}_{}", line.old_pos, line.new_pos);
    out
}

/// Runs of consecutive line numbers on `side`: `[(10, 24), (31, 35)]`.
fn runs(lines: &[DiffLine], side: Side) -> Vec<(u64, u64)> {
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

/// Why a line cannot take a comment, with the lines that can.
fn not_in_diff(side: Side, param: &str, n: u64, file: &str, lines: &[DiffLine]) -> String {
    let runs = runs(lines, side);
    let version = side.version();
    let mut out = format!("{param} {n} is not in the diff of {file}; ");
    if runs.is_empty() {
        let _ = write!(
            out,
            "no {version}-version line of this file can take a comment"
        );
    } else {
        let _ = write!(
            out,
            "{version}-version lines that can take a comment: {}",
            nearest_runs(&runs, n)
        );
    }
    out.push_str(match side {
        Side::New => " (a removed line takes `old_line`)",
        Side::Old => " (an added line takes `line`)",
    });
    out
}

/// The chosen file of a version: its paths and diff text.
struct FileDiff {
    old_path: String,
    new_path: String,
    diff: String,
    skipped: bool,
}

fn find_file(diffs: &[Value], file: &str) -> Option<FileDiff> {
    let named = |key: &str| {
        diffs
            .iter()
            .find(|d| d.get(key).and_then(Value::as_str) == Some(file))
    };
    let found = named("new_path").or_else(|| named("old_path"))?;
    let text = |k: &str| {
        found
            .get(k)
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_string()
    };
    let flag = |k: &str| found.get(k).and_then(Value::as_bool).unwrap_or(false);
    Some(FileDiff {
        old_path: text("old_path"),
        new_path: text("new_path"),
        diff: text("diff"),
        skipped: flag("too_large") || flag("collapsed"),
    })
}

/// The files of a version, for a refusal: at most 20.
fn file_names(diffs: &[Value]) -> String {
    const SHOWN: usize = 20;
    let names: Vec<&str> = diffs
        .iter()
        .filter_map(|d| d.get("new_path").and_then(Value::as_str))
        .collect();
    if names.is_empty() {
        return "none".into();
    }
    let mut text = names[..names.len().min(SHOWN)].join(", ");
    if names.len() > SHOWN {
        let _ = write!(text, " and {} more (action `diffs`)", names.len() - SHOWN);
    }
    text
}

/// What the call asks for, already checked by dispatch/checks/line_comment.rs.
struct Ask<'a> {
    file: &'a str,
    side: Side,
    start: u64,
    /// The last line of a range (never the start itself).
    end: Option<u64>,
    body: &'a str,
}

fn ask(call: &ValidatedCall) -> Ask<'_> {
    let number = |name: &str| call.arg(name).and_then(Value::as_u64);
    let text = |name: &str| call.arg(name).and_then(Value::as_str).unwrap_or_default();
    let (side, start) = match number("line") {
        Some(n) => (Side::New, n),
        None => (Side::Old, number("old_line").unwrap_or_default()),
    };
    Ask {
        file: text("file"),
        side,
        start,
        end: number("end_line").filter(|e| *e != start),
        body: text("body"),
    }
}

/// The newest diff version: its id and SHAs.
struct Version {
    id: u64,
    base: String,
    start: String,
    head: String,
}

fn newest_version(response: &Response) -> Option<Version> {
    let list: Value = serde_json::from_slice(&response.body).ok()?;
    let newest = list.as_array()?.first()?;
    let sha = |k: &str| newest.get(k).and_then(Value::as_str).map(str::to_string);
    Some(Version {
        id: newest.get("id").and_then(Value::as_u64)?,
        base: sha("base_commit_sha")?,
        start: sha("start_commit_sha")?,
        head: sha("head_commit_sha")?,
    })
}

/// The position GitLab needs for these lines; a range (`end`) is shown at
/// its last line.
fn position(version: &Version, file: &FileDiff, start: &DiffLine, end: Option<&DiffLine>) -> Value {
    let anchor = end.unwrap_or(start);
    let mut position = json!({
        "position_type": "text",
        "base_sha": version.base,
        "start_sha": version.start,
        "head_sha": version.head,
        "old_path": file.old_path,
        "new_path": file.new_path,
    });
    if let Some(n) = anchor.new_line {
        position["new_line"] = n.into();
    }
    if let Some(o) = anchor.old_line {
        position["old_line"] = o.into();
    }
    if let Some(end) = end {
        // A diff file's path is its new path (`Gitlab::Diff::File#file_path`).
        let path = if file.new_path.is_empty() {
            &file.old_path
        } else {
            &file.new_path
        };
        position["line_range"] = json!({
            "start": start.range_end(path),
            "end": end.range_end(path),
        });
    }
    position
}

fn get(path: String) -> HttpRequest {
    HttpRequest {
        method: Method::Get,
        path,
        query: String::new(),
        body: None,
        idempotent: true,
    }
}

/// A refusal before anything was posted.
fn refuse(call: &ValidatedCall, problem: &str) -> Output {
    Output::error(format!(
        "{} {}: nothing was posted: {problem}.",
        call.tool.name, call.action.name
    ))
}

/// A failed read, before anything was posted.
fn failed_read(call: &ValidatedCall, gitlab: &Gitlab<'_>, what: &str, failed: &Failed) -> Output {
    let mut output = gitlab.failure(call, failed);
    output.text = format!(
        "Nothing was posted: reading {what} failed.\n{}",
        output.text
    );
    output
}

/// The lines asked for, found in the file's hunks, or why they cannot
/// take a comment.
fn locate(ask: &Ask<'_>, lines: &[DiffLine]) -> Result<(DiffLine, Option<DiffLine>), String> {
    let find = |n: u64| {
        lines
            .iter()
            .find(|l| l.number(ask.side) == Some(n))
            .copied()
    };
    let start = find(ask.start)
        .ok_or_else(|| not_in_diff(ask.side, ask.side.param(), ask.start, ask.file, lines))?;
    let Some(end_n) = ask.end else {
        return Ok((start, None));
    };
    let end =
        find(end_n).ok_or_else(|| not_in_diff(ask.side, "end_line", end_n, ask.file, lines))?;
    let runs = runs(lines, ask.side);
    let same_run = runs
        .iter()
        .any(|(a, b)| (*a..=*b).contains(&ask.start) && (*a..=*b).contains(&end_n));
    if !same_run {
        return Err(format!(
            "{} {} to {end_n} crosses lines that are not in the diff of {}; a range stays within one of: {}",
            ask.side.param(),
            ask.start,
            ask.file,
            nearest_runs(&runs, ask.start)
        ));
    }
    Ok((start, Some(end)))
}

/// The comment posted on a checked line: the steps in the module doc.
pub async fn run(call: &ValidatedCall, route: &RestRoute, gitlab: &Gitlab<'_>) -> Output {
    let ask = ask(call);
    // The catalog's endpoint, `.../merge_requests/:iid/discussions`.
    let discussions = request::build(call, route).path;
    let base = discussions
        .strip_suffix("/discussions")
        .unwrap_or(&discussions)
        .to_string();

    gitlab.progress(0.0, Some(3.0), "reading the diff versions");
    let versions = match gitlab.send(&get(format!("{base}/versions"))).await {
        Ok(response) => response,
        Err(failed) => {
            return failed_read(call, gitlab, "the merge request's diff versions", &failed);
        }
    };
    let Some(version) = newest_version(&versions) else {
        return refuse(
            call,
            "the merge request has no diff version yet (GitLab may still be computing it); try again shortly",
        );
    };

    gitlab.progress(1.0, Some(3.0), "reading the file's diff");
    let answer = match gitlab
        .send(&get(format!("{base}/versions/{}", version.id)))
        .await
    {
        Ok(response) => response,
        Err(failed) => {
            return failed_read(call, gitlab, "the latest diff version", &failed);
        }
    };
    let diffs: Vec<Value> = serde_json::from_slice::<Value>(&answer.body)
        .ok()
        .and_then(|mut v| match v.get_mut("diffs").map(Value::take) {
            Some(Value::Array(diffs)) => Some(diffs),
            _ => None,
        })
        .unwrap_or_default();
    let Some(file) = find_file(&diffs, ask.file) else {
        return refuse(
            call,
            &format!(
                "{} is not a file of this merge request's diff (version {}); its files: {}",
                ask.file,
                version.id,
                file_names(&diffs)
            ),
        );
    };
    if file.diff.is_empty() {
        let why = if file.skipped {
            "too large, or collapsed"
        } else {
            "binary, or only renamed"
        };
        return refuse(
            call,
            &format!(
                "GitLab sent no diff text for {} ({why}), so no line of it can be checked; action `discussion_create` takes a position as given",
                ask.file
            ),
        );
    }
    let lines = diff_lines(&file.diff);
    let (start, end) = match locate(&ask, &lines) {
        Ok(found) => found,
        Err(problem) => return refuse(call, &problem),
    };

    let mut body = Map::new();
    body.insert("body".into(), ask.body.into());
    body.insert(
        "position".into(),
        position(&version, &file, &start, end.as_ref()),
    );
    let post = HttpRequest {
        method: Method::Post,
        path: discussions,
        query: String::new(),
        body: Some(Body::Json(Value::Object(body))),
        idempotent: false,
    };
    gitlab.progress(2.0, Some(3.0), "posting the thread");
    let output = match gitlab.send(&post).await {
        Ok(response) => {
            let on = match end {
                Some(end) => format!(
                    "lines {} ({}) to {} ({})",
                    start.label(),
                    start.kind(),
                    end.label(),
                    end.kind()
                ),
                None => format!("line {} ({})", start.label(), start.kind()),
            };
            let heading = format!(
                "Commented on {} {on}, diff version {}; the thread:\n",
                ask.file, version.id
            );
            let options = render::Options {
                max_bytes: gitlab.render.max_bytes.saturating_sub(heading.len()),
                ..gitlab.render
            };
            let mut output = render::success(call, &response, options);
            output.text.insert_str(0, &heading);
            output
        }
        Err(failed) => gitlab.failure(call, &failed),
    };
    gitlab.progress(3.0, Some(3.0), "answered");
    output
}

#[cfg(test)]
mod tests {
    use super::*;

    const DIFF: &str =
        "@@ -1,3 +1,4 @@\n line one\n-line two\n+line two, changed\n+line added\n line three\n";

    #[test]
    fn each_line_kind_has_gitlabs_numbers_and_counters() {
        let l = diff_lines(DIFF);
        assert_eq!(l.len(), 5);
        // Unchanged: both numbers.
        assert_eq!((l[0].old_line, l[0].new_line), (Some(1), Some(1)));
        // Removed: the old number; the new counter is the next new line.
        assert_eq!((l[1].old_line, l[1].new_line), (Some(2), None));
        assert_eq!((l[1].old_pos, l[1].new_pos), (2, 2));
        // Added: the new number; the old counter is the next old line.
        assert_eq!((l[2].old_line, l[2].new_line), (None, Some(2)));
        assert_eq!((l[2].old_pos, l[2].new_pos), (3, 2));
        assert_eq!((l[4].old_line, l[4].new_line), (Some(3), Some(4)));
        assert_eq!(runs(&l, Side::New), [(1, 4)]);
        assert_eq!(runs(&l, Side::Old), [(1, 3)]);
    }

    #[test]
    fn line_codes_are_the_sha1_of_the_path_and_the_counters() {
        let line = DiffLine {
            old_line: Some(3),
            new_line: None,
            old_pos: 3,
            new_pos: 0,
        };
        // SHA-1 of "README.md".
        assert_eq!(
            line_code("README.md", &line),
            "8ec9a00bfd09b3190ac6b22251dbb1aa95a0579d_3_0"
        );
    }

    #[test]
    fn headers_before_the_first_hunk_are_skipped() {
        let l = diff_lines("--- a/x\n+++ b/x\n@@ -0,0 +1 @@\n+x\n\\ No newline at end of file\n");
        assert_eq!(l.len(), 1);
        assert_eq!(
            (l[0].old_line, l[0].new_line, l[0].old_pos),
            (None, Some(1), 0)
        );
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
    }
}

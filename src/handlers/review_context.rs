//! `review_context`: what a reviewer reads first, in one answer, from four
//! reads made at once:
//!
//! - the merge request (https://docs.gitlab.com/api/merge_requests/#get-single-mr):
//!   title, state, draft, author, branches, merge status, reviewers,
//!   labels, the head pipeline's status, the description (cut at
//!   `DESCRIPTION_CHARS`, or less under a small cap);
//! - its approvals (https://docs.gitlab.com/api/merge_request_approvals/):
//!   who approved, how many approvals are left;
//! - its diffs (https://docs.gitlab.com/api/merge_requests/#list-merge-request-diffs),
//!   the first `PER_PAGE` files: each file's path and `+added −removed`
//!   line counts, never the diff text;
//! - its discussions (https://docs.gitlab.com/api/discussions/#list-project-merge-request-discussion-items),
//!   the first `PER_PAGE` threads: only the unresolved ones, each with its
//!   id (to reply or resolve), where it is (`file:line`), its first note's
//!   author and an excerpt of `EXCERPT_CHARS`.
//!
//! The answer is plain text, one fact a line, within the size cap; every
//! cut is said where it happens, with the action that has the rest. Only a
//! failure to read the merge request itself fails the call; a failed
//! approvals, diffs or discussions read is one line saying so.

use std::fmt::Write as _;

use serde_json::{Value, json};

use super::Gitlab;
use crate::catalog::{Method, RestRoute};
use crate::dispatch::ValidatedCall;
use crate::gitlab::{Failed, HttpRequest, Response, request};
use crate::render::Output;

/// Files and threads read (GitLab's largest page).
const PER_PAGE: u32 = 100;
/// The longest description shown.
const DESCRIPTION_CHARS: usize = 2000;
/// The longest excerpt of a thread's first note.
const EXCERPT_CHARS: usize = 200;
/// Room kept at the end of the answer for the last cut note.
const FOOTER_ROOM: usize = 160;

fn get(path: String, query: &str) -> HttpRequest {
    HttpRequest {
        method: Method::Get,
        path,
        query: query.to_string(),
        body: None,
        idempotent: true,
    }
}

fn str_at<'v>(v: &'v Value, key: &str) -> Option<&'v str> {
    v.get(key).and_then(Value::as_str).filter(|s| !s.is_empty())
}

fn username(user: Option<&Value>) -> String {
    user.and_then(|u| str_at(u, "username"))
        .map_or_else(|| "?".to_string(), |u| format!("@{u}"))
}

/// The first `max` characters of `text`, with `…` when cut.
fn cut_chars(text: &str, max: usize) -> (String, bool) {
    match text.char_indices().nth(max) {
        Some((at, _)) => (format!("{}…", text[..at].trim_end()), true),
        None => (text.to_string(), false),
    }
}

/// A note's text on one line, cut at `EXCERPT_CHARS`.
fn excerpt(text: &str) -> String {
    let flat = text.split_whitespace().collect::<Vec<_>>().join(" ");
    cut_chars(&flat, EXCERPT_CHARS).0
}

/// How a secondary read ended, as one short phrase.
fn not_read(failed: &Failed) -> String {
    let mut text = format!("not read: {}", failed.error);
    if let crate::gitlab::GitLabError::Status(status) = &failed.error
        && let Some(message) = &status.message
    {
        let _ = write!(text, " ({})", cut_chars(message, 120).0);
    }
    text
}

fn json_of(response: &Response) -> Value {
    serde_json::from_slice(&response.body).unwrap_or(Value::Null)
}

/// One changed file: `src/x.rs  +12 −3 (new)`.
struct ChangedFile {
    line: String,
    added: u64,
    removed: u64,
}

fn changed_file(d: &Value) -> ChangedFile {
    let new_path = str_at(d, "new_path").unwrap_or("?");
    let old_path = str_at(d, "old_path").unwrap_or(new_path);
    let flag = |k: &str| d.get(k).and_then(Value::as_bool).unwrap_or(false);
    let diff = str_at(d, "diff").unwrap_or("");
    let (mut added, mut removed, mut in_hunk) = (0, 0, false);
    for line in diff.lines() {
        if line.starts_with("@@") {
            in_hunk = true;
        } else if in_hunk && line.starts_with('+') {
            added += 1;
        } else if in_hunk && line.starts_with('-') {
            removed += 1;
        }
    }
    let mut line = if flag("renamed_file") && old_path != new_path {
        format!("{old_path} → {new_path}")
    } else {
        new_path.to_string()
    };
    if diff.is_empty() {
        line.push_str(if flag("too_large") || flag("collapsed") {
            "  (diff too large to count)"
        } else {
            "  (no text diff)"
        });
    } else {
        let _ = write!(line, "  +{added} −{removed}");
    }
    if flag("new_file") {
        line.push_str(" (new)");
    } else if flag("deleted_file") {
        line.push_str(" (deleted)");
    }
    ChangedFile {
        line,
        added,
        removed,
    }
}

/// One unresolved thread: `- <id> src/x.rs:12 @bob: excerpt`.
fn unresolved_thread(d: &Value) -> Option<String> {
    let notes = d.get("notes")?.as_array()?;
    let resolvable: Vec<&Value> = notes
        .iter()
        .filter(|n| n.get("resolvable").and_then(Value::as_bool) == Some(true))
        .collect();
    let unresolved = !resolvable.is_empty()
        && resolvable
            .iter()
            .any(|n| n.get("resolved").and_then(Value::as_bool) != Some(true));
    if !unresolved {
        return None;
    }
    let first = notes.first()?;
    let at = match first.get("position") {
        Some(p) if p.is_object() => {
            let path = str_at(p, "new_path").or_else(|| str_at(p, "old_path"));
            let new_line = p.get("new_line").and_then(Value::as_u64);
            let old_line = p.get("old_line").and_then(Value::as_u64);
            match (path, new_line, old_line) {
                (Some(path), Some(n), _) => format!("{path}:{n}"),
                (Some(path), None, Some(o)) => format!("{path}:{o} (old)"),
                (Some(path), None, None) => path.to_string(),
                _ => "(diff)".to_string(),
            }
        }
        _ => "(overview)".to_string(),
    };
    let replies = notes.len() - 1;
    let mut line = format!(
        "- {} {at} {}: {}",
        str_at(d, "id").unwrap_or("?"),
        username(first.get("author")),
        excerpt(str_at(first, "body").unwrap_or(""))
    );
    if replies > 0 {
        let _ = write!(
            line,
            " [{replies} repl{}]",
            if replies == 1 { "y" } else { "ies" }
        );
    }
    Some(line)
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

/// The pagination facts of a list that may have more than was read.
fn more_pages(response: &Response) -> Option<String> {
    let p = &response.pagination;
    if p.next_page.is_none() && p.next_link.is_none() {
        return None;
    }
    Some(match p.total {
        Some(total) => format!("{total} in all"),
        None => "more on later pages".to_string(),
    })
}

/// The four reads, made at once, as one answer.
pub async fn run(call: &ValidatedCall, route: &RestRoute, gitlab: &Gitlab<'_>) -> Output {
    let base = request::build(call, route).path;
    let per_page = format!("per_page={PER_PAGE}");
    let (mr, approvals, diffs, discussions) = (
        get(base.clone(), ""),
        get(format!("{base}/approvals"), ""),
        get(format!("{base}/diffs"), &per_page),
        get(format!("{base}/discussions"), &per_page),
    );
    gitlab.progress(0.0, Some(1.0), "sent 4 reads to GitLab");
    let (mr, approvals, diffs, discussions) = tokio::join!(
        gitlab.send(&mr),
        gitlab.send(&approvals),
        gitlab.send(&diffs),
        gitlab.send(&discussions),
    );
    gitlab.progress(1.0, Some(1.0), "answered");
    let mr = match mr {
        Ok(response) => json_of(&response),
        Err(failed) => return gitlab.failure(call, &failed),
    };
    render(call, &mr, approvals, diffs, discussions, gitlab.render)
}

fn render(
    call: &ValidatedCall,
    mr: &Value,
    approvals: Result<Response, Failed>,
    diffs: Result<Response, Failed>,
    discussions: Result<Response, Failed>,
    options: crate::render::Options,
) -> Output {
    let cap = options.max_bytes;
    let text_of = |k: &str| str_at(mr, k).unwrap_or("?");
    let yes_no = |k: &str| match mr.get(k).and_then(Value::as_bool) {
        Some(true) => "yes",
        Some(false) => "no",
        None => "?",
    };
    let mut out = String::new();
    let reference = str_at(mr, "reference")
        .map(str::to_string)
        .or_else(|| mr.get("iid").map(|i| format!("!{i}")))
        .unwrap_or_default();
    let _ = writeln!(out, "{reference} {}", text_of("title"));
    let _ = writeln!(
        out,
        "state: {}; draft: {}; merge status: {}; conflicts: {}",
        text_of("state"),
        yes_no("draft"),
        str_at(mr, "detailed_merge_status")
            .or_else(|| str_at(mr, "merge_status"))
            .unwrap_or("?"),
        yes_no("has_conflicts"),
    );
    let _ = writeln!(
        out,
        "author: {}; branches: {} → {}",
        username(mr.get("author")),
        text_of("source_branch"),
        text_of("target_branch")
    );
    let people = |k: &str| -> Vec<String> {
        mr.get(k)
            .and_then(Value::as_array)
            .map(|a| a.iter().map(|u| username(Some(u))).collect())
            .unwrap_or_default()
    };
    let reviewers = people("reviewers");
    if !reviewers.is_empty() {
        let _ = writeln!(out, "reviewers: {}", reviewers.join(", "));
    }
    let labels: Vec<&str> = mr
        .get("labels")
        .and_then(Value::as_array)
        .map(|a| a.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    if !labels.is_empty() {
        let _ = writeln!(out, "labels: {}", labels.join(", "));
    }
    let pipeline = mr
        .get("head_pipeline")
        .filter(|p| p.is_object())
        .or_else(|| mr.get("pipeline").filter(|p| p.is_object()));
    let pipeline_status = pipeline.and_then(|p| str_at(p, "status"));
    match pipeline {
        Some(p) => {
            let _ = writeln!(
                out,
                "pipeline: {} (id {})",
                pipeline_status.unwrap_or("?"),
                p.get("id").map(Value::to_string).unwrap_or_default()
            );
        }
        None => out.push_str("pipeline: none\n"),
    }

    // Approvals.
    let mut approved_by: Vec<String> = Vec::new();
    let mut approvals_left = None;
    match &approvals {
        Ok(response) => {
            let a = json_of(response);
            approved_by = a
                .get("approved_by")
                .and_then(Value::as_array)
                .map(|list| list.iter().map(|x| username(x.get("user"))).collect())
                .unwrap_or_default();
            approvals_left = a.get("approvals_left").and_then(Value::as_u64);
            let by = if approved_by.is_empty() {
                "nobody yet".to_string()
            } else {
                approved_by.join(", ")
            };
            let left = approvals_left.map_or_else(|| "?".to_string(), |n| n.to_string());
            let _ = writeln!(out, "approvals: approved by {by}; approvals left: {left}");
        }
        Err(failed) => {
            let _ = writeln!(out, "approvals: {}", not_read(failed));
        }
    }
    if let Some(url) = str_at(mr, "web_url") {
        let _ = writeln!(out, "url: {url}");
    }

    // Description.
    let description = str_at(mr, "description").unwrap_or("").trim_end();
    let description_max = DESCRIPTION_CHARS.min(cap / 4);
    let (shown, description_cut) = cut_chars(description, description_max);
    if description.is_empty() {
        out.push_str("\ndescription: none\n");
    } else {
        let _ = writeln!(out, "\ndescription:\n{shown}");
        if description_cut {
            let _ = writeln!(
                out,
                "[description cut at {description_max} of {} characters; action `get` has it whole]",
                description.chars().count()
            );
        }
    }

    // Changed files and unresolved threads, then fitted in the room left.
    let mut files_head = String::new();
    let mut file_lines: Vec<String> = Vec::new();
    let mut files_json: Vec<Value> = Vec::new();
    match &diffs {
        Ok(response) => {
            let items = json_of(response);
            let items = items.as_array().map(Vec::as_slice).unwrap_or_default();
            let files: Vec<ChangedFile> = items.iter().map(changed_file).collect();
            let (added, removed) = files
                .iter()
                .fold((0, 0), |(a, r), f| (a + f.added, r + f.removed));
            let _ = write!(
                files_head,
                "\nchanged files ({}, +{added} −{removed}",
                files.len()
            );
            if let Some(more) = more_pages(response) {
                let _ = write!(
                    files_head,
                    "; only the first {PER_PAGE} read, {more}: action `diffs` with page=2"
                );
            }
            files_head.push_str("):\n");
            files_json = files
                .iter()
                .map(|f| json!({"file": f.line, "added": f.added, "removed": f.removed}))
                .collect();
            file_lines = files.into_iter().map(|f| f.line).collect();
        }
        Err(failed) => {
            let _ = writeln!(files_head, "\nchanged files: {}", not_read(failed));
        }
    }
    let mut threads_head = String::new();
    let mut thread_lines: Vec<String> = Vec::new();
    match &discussions {
        Ok(response) => {
            let items = json_of(response);
            let items = items.as_array().map(Vec::as_slice).unwrap_or_default();
            thread_lines = items.iter().filter_map(unresolved_thread).collect();
            let _ = write!(
                threads_head,
                "\nunresolved threads ({} of {} threads; first note, cut at {EXCERPT_CHARS} characters",
                thread_lines.len(),
                items.len()
            );
            if let Some(more) = more_pages(response) {
                let _ = write!(
                    threads_head,
                    "; only the first {PER_PAGE} threads read, {more}: action `discussion_list` with page=2"
                );
            }
            threads_head.push_str("):\n");
        }
        Err(failed) => {
            let _ = writeln!(threads_head, "\nunresolved threads: {}", not_read(failed));
        }
    }
    let fixed = out.len() + files_head.len() + threads_head.len() + 2 * FOOTER_ROOM;
    let room = cap.saturating_sub(fixed);
    // Threads are what a review acts on: they get their share first, the
    // files the rest, and the threads whatever the files left.
    let threads_size: usize = thread_lines.iter().map(|l| l.len() + 1).sum();
    let files_room = room.saturating_sub(threads_size.min(room / 2));
    let files_shown = fitting(&file_lines, files_room);
    let used_by_files: usize = file_lines[..files_shown].iter().map(|l| l.len() + 1).sum();
    let threads_shown = fitting(&thread_lines, room.saturating_sub(used_by_files));

    out.push_str(&files_head);
    for line in &file_lines[..files_shown] {
        let _ = writeln!(out, "{line}");
    }
    if files_shown < file_lines.len() {
        let _ = writeln!(
            out,
            "[cut at the {} KB response cap: {files_shown} of {} files shown; action `diffs` lists them]",
            cap / 1024,
            file_lines.len()
        );
    }
    out.push_str(&threads_head);
    for line in &thread_lines[..threads_shown] {
        let _ = writeln!(out, "{line}");
    }
    if thread_lines.is_empty() && discussions.is_ok() {
        out.push_str("none\n");
    }
    if threads_shown < thread_lines.len() {
        let _ = writeln!(
            out,
            "[cut at the {} KB response cap: {threads_shown} of {} unresolved threads shown; action `discussion_list` has them all]",
            cap / 1024,
            thread_lines.len()
        );
    }
    if call.view.raw || call.view.fields.is_some() {
        out.push_str(
            "[`fields` and `raw` do not apply to review_context; action `get` answers GitLab's JSON]\n",
        );
    }
    if out.len() > cap {
        // A cap smaller than the facts themselves: cut at a character.
        let mut at = cap.saturating_sub(FOOTER_ROOM);
        while !out.is_char_boundary(at) {
            at -= 1;
        }
        out.truncate(at);
        let _ = write!(
            out,
            "\n[cut at the {} KB response cap; actions `get`, `diffs` and `discussion_list` have the rest]",
            cap / 1024
        );
    }
    let structured = options.structured.then(|| {
        json!({
            "merge_request": {
                "reference": reference,
                "title": mr.get("title"),
                "state": mr.get("state"),
                "draft": mr.get("draft"),
                "author": username(mr.get("author")),
                "source_branch": mr.get("source_branch"),
                "target_branch": mr.get("target_branch"),
                "web_url": mr.get("web_url"),
            },
            "pipeline_status": pipeline_status,
            "approved_by": approved_by,
            "approvals_left": approvals_left,
            "changed_files": &files_json[..files_shown],
            "unresolved_threads": &thread_lines[..threads_shown],
        })
    });
    // One answer woven from several reads: framed as a whole.
    let mut structured = structured;
    if let Some(value) = structured.as_mut() {
        crate::render::untrusted::escape_value(value);
    }
    Output {
        text: crate::render::untrusted::frame(&out),
        is_error: false,
        structured,
    }
}

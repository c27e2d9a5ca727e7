//! What a review will post, decided from GitLab's reads before anything
//! is posted (pure): every comment placed as `line_comment` places one
//! (`diff_position::place`), `sha` against the head, and what an earlier
//! attempt of the same call already did:
//!
//! - a pending draft of yours with the same text at the same position is
//!   that comment's draft (created before a failure): it is reused;
//! - a note of yours with the same text at the same position (the same
//!   diff version's SHAs) is that comment already published: it is not
//!   posted again; the summary counts as posted when every comment was,
//!   and a note of yours with its text came after them;
//! - any other pending draft of yours refuses the review: a publish
//!   publishes all your drafts, and those are not this review's.
//!
//! Every problem is collected, each naming its comment (`comments[2]`).

use serde_json::Value;

use crate::diff::FileDiff;
use crate::handlers::diff_position::{DiffVersion, LineAsk, place};

/// What the call asks for.
#[derive(Debug, Clone)]
pub struct Ask<'a> {
    pub comments: Vec<(LineAsk<'a>, &'a str)>,
    pub summary: Option<&'a str>,
    pub approve: bool,
    pub sha: Option<&'a str>,
}

/// What GitLab answered to the reads.
pub struct Reads<'r> {
    /// The merge request's `sha`: the head an approval is checked against.
    pub head: &'r str,
    pub version: &'r DiffVersion,
    pub files: &'r [FileDiff<'r>],
    /// Your pending draft notes on the merge request.
    pub drafts: &'r [Value],
    /// The merge request's latest notes, newest first.
    pub notes: &'r [Value],
    /// Your user id.
    pub me: u64,
}

/// Where a piece of the review stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum State {
    /// Not posted yet.
    New,
    /// A pending draft: `reused` when an earlier attempt created it.
    Drafted { draft: u64, reused: bool },
    /// Published: its note (unknown until the notes are read again), and
    /// whether an earlier attempt posted it.
    Posted { note: Option<u64>, earlier: bool },
}

impl State {
    /// Published by this call; its note is known once the notes are read.
    pub const PUBLISHED: State = State::Posted {
        note: None,
        earlier: false,
    };
}

/// One comment of the review, placed.
#[derive(Debug, Clone, PartialEq)]
pub struct Comment {
    pub index: usize,
    /// `README.md line +3 (added)`.
    pub lines: String,
    pub body: String,
    pub position: Value,
    pub state: State,
}

/// Where the approval stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Approval {
    Pending,
    Approved,
    /// GitLab refused a second approval: you had approved already.
    AlreadyApproved,
}

/// The review: what is posted, in order, and where each part stands.
#[derive(Debug, Clone, PartialEq)]
pub struct Plan {
    pub comments: Vec<Comment>,
    /// The summary's text and state.
    pub summary: Option<(String, State)>,
    /// The head to approve at (`sha`), when the call approves.
    pub approval: Option<(String, Approval)>,
}

/// The plan, or every reason nothing may be posted.
pub fn plan(ask: &Ask<'_>, reads: &Reads<'_>) -> Result<Plan, Vec<String>> {
    let mut problems = Vec::new();
    if let Some(sha) = ask.sha.filter(|sha| *sha != reads.head) {
        problems.push(format!(
            "`sha` {sha} is not the head of the merge request any more: the head is now {}; review the new commits, then call again with that sha",
            reads.head
        ));
    }
    let mut comments = Vec::new();
    for (index, (lines, body)) in ask.comments.iter().enumerate() {
        match place(reads.version, reads.files, lines) {
            Ok(placement) => comments.push(Comment {
                index,
                lines: format!("{} {}", lines.file, placement.lines_text()),
                body: (*body).to_string(),
                position: placement.position,
                state: State::New,
            }),
            Err(problem) => problems.push(format!("`comments[{index}]`: {problem}")),
        }
    }

    let mut drafts: Vec<&Value> = reads.drafts.iter().collect();
    for comment in &mut comments {
        let same = |v: &&Value| text(v, "note") == comment.body && same_place(&comment.position, v);
        if let Some(at) = drafts.iter().position(same) {
            let draft = drafts.remove(at);
            comment.state = State::Drafted {
                draft: id(draft),
                reused: true,
            };
        } else if let Some(note) = posted_note(comment, reads.notes, reads.me) {
            comment.state = State::Posted {
                note: Some(note),
                earlier: true,
            };
        }
    }
    if !drafts.is_empty() {
        let ids: Vec<String> = drafts.iter().map(|d| id(d).to_string()).collect();
        problems.push(format!(
            "you have {} pending draft note(s) that are not this review's (id {}): publishing a review publishes all your drafts, so publish them first (action `draft_note_publish_all`) or delete them (action `draft_note_delete`)",
            drafts.len(),
            ids.join(", ")
        ));
    }
    if !problems.is_empty() {
        return Err(problems);
    }

    let summary = ask.summary.map(|body| {
        let state = match summary_posted(&comments, body, reads) {
            Some(note) => State::Posted {
                note: Some(note),
                earlier: true,
            },
            None => State::New,
        };
        (body.to_string(), state)
    });
    Ok(Plan {
        comments,
        summary,
        approval: ask
            .approve
            .then(|| (reads.head.to_string(), Approval::Pending)),
    })
}

/// The summary's note, when an earlier attempt posted the whole review:
/// every comment is published, and a note of yours with the summary's
/// text is newer than all of them. A review without comments has nothing
/// to tell its summary from an earlier one with the same words: it is
/// posted again.
fn summary_posted(comments: &[Comment], body: &str, reads: &Reads<'_>) -> Option<u64> {
    let mut newest = 0;
    for comment in comments {
        match comment.state {
            State::Posted { note: Some(n), .. } => newest = newest.max(n),
            _ => return None,
        }
    }
    if comments.is_empty() {
        return None;
    }
    reads
        .notes
        .iter()
        .filter(|n| mine(n, reads.me))
        .find(|n| text(n, "body") == body && n.get("position").is_none_or(Value::is_null))
        .map(id)
        .filter(|note| *note > newest)
}

/// The newest of your notes (`notes` newest first) with this comment's
/// text at its position: its id.
pub fn posted_note(comment: &Comment, notes: &[Value], me: u64) -> Option<u64> {
    notes
        .iter()
        .filter(|n| mine(n, me))
        .find(|n| text(n, "body") == comment.body && same_place(&comment.position, n))
        .map(id)
}

/// A note of yours, not one of GitLab's system notes.
fn mine(note: &Value, me: u64) -> bool {
    note.pointer("/author/id").and_then(Value::as_u64) == Some(me)
        && note.get("system").and_then(Value::as_bool) != Some(true)
}

/// Whether GitLab's `position` of a draft or note (`{"position": ...}`)
/// is the one this server built: the same SHAs, paths and lines, and for a
/// range the same line codes. GitLab shows an absent key as `null`.
fn same_place(ours: &Value, theirs: &Value) -> bool {
    let Some(theirs) = theirs.get("position").filter(|p| !p.is_null()) else {
        return false;
    };
    let at = |v: &Value, path: &str| v.pointer(path).cloned().unwrap_or(Value::Null);
    let keys = [
        "/base_sha",
        "/start_sha",
        "/head_sha",
        "/old_path",
        "/new_path",
        "/old_line",
        "/new_line",
        "/line_range/start/line_code",
        "/line_range/end/line_code",
    ];
    keys.iter().all(|key| at(ours, key) == at(theirs, key))
}

fn text<'v>(value: &'v Value, key: &str) -> &'v str {
    value.get(key).and_then(Value::as_str).unwrap_or_default()
}

fn id(value: &Value) -> u64 {
    value.get("id").and_then(Value::as_u64).unwrap_or_default()
}

#[cfg(test)]
mod tests;

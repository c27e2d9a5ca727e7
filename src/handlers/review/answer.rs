//! The review's answer (pure): a refusal naming every problem, or what was
//! posted with each discussion's link (`<merge request web_url>#note_<id>`),
//! framed as GitLab's data, and, when GitLab failed partway, the exact
//! account: what is posted, what is drafted (visible only to you), what is
//! not posted, and how to finish. Within the size cap, saying what it cut.

use std::fmt::Write as _;

use super::Stopped;
use super::plan::{Approval, Plan, State};
use crate::dispatch::ValidatedCall;
use crate::render::{Output, untrusted};

/// Room kept for the last line that says what was cut.
const CUT_ROOM: usize = 160;

/// What the answer names of the merge request.
pub struct Facts<'a> {
    /// `!12`.
    pub reference: String,
    pub web_url: &'a str,
    /// The diff version the comments are placed on.
    pub version: u64,
}

/// Nothing was posted: every problem, one a line.
pub fn refused(call: &ValidatedCall, problems: &[String], cap: usize) -> Output {
    let head = format!(
        "{} {}: nothing was posted: {} problem(s):\n",
        call.tool.name,
        call.action.name,
        problems.len()
    );
    let lines: Vec<String> = problems.iter().map(|p| format!("- {p}\n")).collect();
    let mut text = head;
    fit(&mut text, &lines, cap, "problems");
    Output::error(text)
}

/// What was posted, with links; with `stopped`, the account of a review
/// GitLab stopped partway.
pub fn written(plan: &Plan, facts: &Facts<'_>, stopped: Option<Stopped>, cap: usize) -> Output {
    let mut links: Vec<String> = Vec::new();
    let (mut posted, mut drafted, mut missing) = (Vec::new(), Vec::new(), Vec::new());
    for comment in &plan.comments {
        let name = format!("comments[{}]", comment.index);
        match comment.state {
            State::Posted { note, earlier } => {
                links.push(link(&name, &comment.lines, note, earlier, facts));
                posted.push(name);
            }
            State::Drafted { .. } => drafted.push(name),
            State::New => missing.push(name),
        }
    }
    if let Some((_, state)) = &plan.summary {
        match *state {
            State::Posted { note, earlier } => {
                links.push(link("summary", "", note, earlier, facts));
                posted.push("the summary".into());
            }
            _ => missing.push("the summary".into()),
        }
    }
    let approval = match &plan.approval {
        Some((sha, Approval::Approved)) => Some(format!("approved at {sha}")),
        Some((_, Approval::AlreadyApproved)) => Some("already approved by you".to_string()),
        Some((_, Approval::Pending)) => {
            missing.push("the approval".into());
            None
        }
        None => None,
    };

    let Some(stopped) = stopped else {
        let mut head = format!(
            "Review of {} posted on diff version {}: {} comment(s) as one review",
            facts.reference,
            facts.version,
            plan.comments.len()
        );
        if plan.summary.is_some() {
            head.push_str(", the summary");
        }
        if let Some(approval) = approval {
            let _ = write!(head, ", {approval}");
        }
        head.push_str(".\n");
        return Output::ok(with_links(head, &links, "", cap));
    };

    let mut head = format!("Stopped partway: {} failed.\n", stopped.step);
    let _ = writeln!(
        head,
        "Posted: {}.",
        if posted.is_empty() {
            "nothing visible yet".to_string()
        } else {
            posted.join(", ")
        }
    );
    if !drafted.is_empty() {
        let _ = writeln!(
            head,
            "Drafted, not published (only you see them): {}.",
            drafted.join(", ")
        );
    }
    if !missing.is_empty() {
        let _ = writeln!(head, "Not posted: {}.", missing.join(", "));
    }
    let mut after = String::from(
        "[Calling review again with the same arguments finishes it: what is drafted or posted is found and not posted twice.]\n",
    );
    after.push_str(&stopped.failure.text);
    Output::error(with_links(head, &links, &after, cap))
}

/// `comments[0] src/a.rs line +3 (added): <url>#note_12`.
fn link(name: &str, lines: &str, note: Option<u64>, earlier: bool, facts: &Facts<'_>) -> String {
    let mut out = name.to_string();
    if !lines.is_empty() {
        let _ = write!(out, " {lines}");
    }
    match note {
        Some(id) => {
            let _ = write!(out, ": {}#note_{id}", facts.web_url);
        }
        None => out
            .push_str(": posted (its note is not among the latest 100; action `discussion_list`)"),
    }
    if earlier {
        out.push_str(" (posted by an earlier call)");
    }
    out.push('\n');
    out
}

/// `head`, the links framed as GitLab's data, then `after`, within `cap`.
fn with_links(head: String, links: &[String], after: &str, cap: usize) -> String {
    let mut listed = String::new();
    fit(
        &mut listed,
        links,
        cap.saturating_sub(head.len() + after.len() + untrusted::FRAME_ROOM),
        "links",
    );
    let mut text = head;
    text.push_str(&untrusted::frame(&listed));
    if !after.is_empty() {
        if !text.ends_with('\n') {
            text.push('\n');
        }
        text.push_str(after);
    }
    text
}

/// Push `lines` onto `out` while they fit in `cap`, then one line saying
/// how many of the `what` were left out.
fn fit(out: &mut String, lines: &[String], cap: usize, what: &str) {
    let room = cap.saturating_sub(CUT_ROOM);
    for (shown, line) in lines.iter().enumerate() {
        if out.len() + line.len() > room {
            let _ = writeln!(
                out,
                "[{} more {what} cut at the {} KB response cap]",
                lines.len() - shown,
                cap / 1024
            );
            return;
        }
        out.push_str(line);
    }
}

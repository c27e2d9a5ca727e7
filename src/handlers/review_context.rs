//! `review_context`: what a reviewer reads first, in one answer, from four
//! reads made at once:
//!
//! - the merge request (https://docs.gitlab.com/api/merge_requests/#get-single-mr):
//!   title, state, draft, author, branches, merge status, reviewers,
//!   labels, the head pipeline's status, the description (cut at
//!   `DESCRIPTION_CHARS`, or less under a small cap): `overview.rs`;
//! - its approvals (https://docs.gitlab.com/api/merge_request_approvals/):
//!   who approved, how many approvals are left: `overview.rs`;
//! - its diffs (https://docs.gitlab.com/api/merge_requests/#list-merge-request-diffs),
//!   the first `PER_PAGE` files: each file's path and `+added −removed`
//!   line counts, never the diff text: `changed_files.rs`;
//! - its discussions (https://docs.gitlab.com/api/discussions/#list-project-merge-request-discussion-items),
//!   the first `PER_PAGE` threads: only the unresolved ones, each with its
//!   id (to reply or resolve), where it is (`file:line`), its first note's
//!   author and an excerpt of `EXCERPT_CHARS`: `threads.rs`.
//!
//! The answer is plain text, one fact a line, within the size cap; every
//! cut is said where it happens, with the action that has the rest
//! (`listing.rs` fits the two lists in the room the facts leave). Only a
//! failure to read the merge request itself fails the call; a failed
//! approvals, diffs or discussions read is one line saying so.

mod changed_files;
mod listing;
mod overview;
mod text;
mod threads;

use std::fmt::Write as _;

use serde_json::{Value, json};

use super::Gitlab;
use crate::catalog::RestRoute;
use crate::dispatch::ValidatedCall;
use crate::gitlab::{Failed, HttpRequest, Response, request};
use crate::render::{self, Output, untrusted};

/// Files and threads read (GitLab's largest page).
const PER_PAGE: u32 = 100;
/// Room kept at the end of the answer for the last cut note.
const FOOTER_ROOM: usize = 160;

/// Four reads at once, then one compact answer.
pub async fn run(call: &ValidatedCall, route: &RestRoute, gitlab: &Gitlab<'_>) -> Output {
    let base = request::build(call, route).path;
    let per_page = format!("per_page={PER_PAGE}");
    let (mr, approvals, diffs, discussions) = (
        HttpRequest::get(base.clone()),
        HttpRequest::get(format!("{base}/approvals")),
        HttpRequest::get(format!("{base}/diffs")).with_query(per_page.clone()),
        HttpRequest::get(format!("{base}/discussions")).with_query(per_page),
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
        Ok(response) => text::json_of(&response),
        Err(failed) => return gitlab.failure(call, &failed),
    };
    render(call, &mr, approvals, diffs, discussions, gitlab.render)
}

/// The answer: the merge request's facts, then the changed files and the
/// unresolved threads in the room left, then the notes on what was cut.
fn render(
    call: &ValidatedCall,
    mr: &Value,
    approvals: Result<Response, Failed>,
    diffs: Result<Response, Failed>,
    discussions: Result<Response, Failed>,
    options: render::Options,
) -> Output {
    let cap = options.max_bytes;
    let reference = overview::reference(mr);
    let (pipeline, pipeline_status) = overview::pipeline(mr);
    let approvals = overview::approvals(&approvals);
    let mut out = overview::state_and_branches(mr, &reference);
    out.push_str(&pipeline);
    out.push_str(&approvals.line);
    out.push_str(&overview::url(mr));
    out.push_str(&overview::description(mr, cap));

    let files = changed_files::listing(&diffs);
    let threads = threads::listing(&discussions);
    let fixed = out.len() + files.head.len() + threads.head.len() + 2 * FOOTER_ROOM;
    let (files_shown, threads_shown) = listing::share(cap.saturating_sub(fixed), &files, &threads);
    files.write(&mut out, files_shown, cap);
    threads.write(&mut out, threads_shown, cap);
    if call.view.raw || call.view.fields.is_some() {
        out.push_str(
            "[`fields` and `raw` do not apply to review_context; action `get` answers GitLab's JSON]\n",
        );
    }
    cut_at_cap(&mut out, cap);

    let mut structured = options.structured.then(|| {
        json!({
            "merge_request": {
                "reference": reference,
                "title": mr.get("title"),
                "state": mr.get("state"),
                "draft": mr.get("draft"),
                "author": text::username(mr.get("author")),
                "source_branch": mr.get("source_branch"),
                "target_branch": mr.get("target_branch"),
                "web_url": mr.get("web_url"),
            },
            "pipeline_status": pipeline_status,
            "approved_by": approvals.approved_by,
            "approvals_left": approvals.left,
            "changed_files": &files.structured[..files_shown],
            "unresolved_threads": &threads.structured[..threads_shown],
        })
    });
    // One answer woven from several reads: framed as a whole.
    if let Some(value) = structured.as_mut() {
        untrusted::escape_value(value);
    }
    Output {
        text: untrusted::frame(&out),
        is_error: false,
        structured,
    }
}

/// A cap smaller than the facts themselves: cut at a character, and say so.
fn cut_at_cap(out: &mut String, cap: usize) {
    if out.len() <= cap {
        return;
    }
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

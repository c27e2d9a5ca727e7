//! `review`: a whole merge request review in one call, posted the way a
//! person submits one in GitLab (docs: https://docs.gitlab.com/api/draft_notes/).
//!
//! 1. Reads, at once: the merge request (its `sha` is the head an approval
//!    is checked against, its `web_url` the links' base), its newest diff
//!    version and diffs (`diff_reads.rs`), your pending draft notes, its
//!    latest 100 notes, and you (`GET /user`).
//! 2. The plan (`review/plan.rs`): every comment placed as `line_comment`
//!    places one, `sha` checked, what an earlier attempt of the same call
//!    did found. Any problem, and nothing is posted: one answer names them
//!    all, each comment by its index.
//! 3. One draft note per comment not drafted or posted yet, in order
//!    (`POST .../draft_notes` with its `position`).
//! 4. One bulk publish (`POST .../draft_notes/bulk_publish`): GitLab makes
//!    the drafts one review, whose notes send no notification of their own
//!    (`Note#skip_notification?` is true for a note with a review); the
//!    author gets one "new review" notification.
//! 5. The summary as a note (`POST .../notes`), as GitLab's own "Submit
//!    review" posts it (`DraftsController#publish`). Not as bulk
//!    publish's `note`: GitLab creates that one the same way after the
//!    publish (its own notification all the same), and a GitLab older
//!    than that parameter ignores it, losing the summary silently. Not as a
//!    draft: a published general draft becomes a resolvable thread, which
//!    would block a merge that needs every thread resolved.
//! 6. The approval, with `sha` (`POST .../approve`): GitLab refuses it
//!    with a 409 if the head moved since the reads.
//! 7. The latest notes again, for the new notes' links.
//!
//! If GitLab fails partway, the answer says exactly what was posted, what
//! is drafted, and what was not (`review/answer.rs`); calling again with
//! the same arguments finishes the review without posting anything twice.

mod answer;
mod plan;

use serde_json::{Value, json};

use self::plan::{Approval, Ask, Plan, Reads, State};
use super::Gitlab;
use super::diff_position::LineAsk;
use super::diff_reads::{failed_read, newest_diffs};
use crate::catalog::{Method, RestRoute};
use crate::diff::FileDiff;
use crate::dispatch::ValidatedCall;
use crate::gitlab::{Body, Endpoint, Failed, GitLabError, HttpRequest, Response, request};
use crate::render::Output;

/// The notes a review reads: the newest first, GitLab's largest page.
const LATEST_NOTES: &str = "sort=desc&order_by=created_at&per_page=100";

/// A step that failed: what it was, and GitLab's answer.
pub struct Stopped {
    pub step: String,
    pub failure: Output,
}

/// The whole review: the steps in the module doc.
pub async fn run(call: &ValidatedCall, route: &RestRoute, gitlab: &Gitlab<'_>) -> Output {
    // The catalog's endpoint, `.../merge_requests/:iid/draft_notes/bulk_publish`.
    let publish = request::build(call, route).path;
    let base = publish
        .strip_suffix("/draft_notes/bulk_publish")
        .unwrap_or(&publish)
        .to_string();
    let ask = ask(call);
    let total = (ask.comments.len() + 6) as f64;
    let notes = HttpRequest::get(format!("{base}/notes")).with_query(LATEST_NOTES);
    let (mr, drafts, user) = (
        HttpRequest::get(base.clone()),
        HttpRequest::get(format!("{base}/draft_notes")),
        HttpRequest::get("/user"),
    );
    let (mr, diffs, drafts, latest, me) = tokio::join!(
        gitlab.send(&mr),
        newest_diffs(call, gitlab, &base, (0.0, total)),
        gitlab.send(&drafts),
        gitlab.send(&notes),
        gitlab.send(&user),
    );
    let read = |result: Result<Response, Failed>, what: &str| {
        result
            .map(|r| serde_json::from_slice::<Value>(&r.body).unwrap_or(Value::Null))
            .map_err(|failed| failed_read(call, gitlab, what, &failed))
    };
    let reads = (|| {
        Ok((
            read(mr, "the merge request")?,
            diffs?,
            read(drafts, "your draft notes")?,
            read(latest, "the merge request's notes")?,
            read(me, "the current user")?,
        ))
    })();
    let (mr, (version, diffs), drafts, latest, me) = match reads {
        Ok(reads) => reads,
        Err(refused) => return refused,
    };
    let files: Vec<FileDiff<'_>> = diffs.iter().map(FileDiff::from_json).collect();
    let text = |key: &str| mr.get(key).and_then(Value::as_str).unwrap_or_default();
    let me = me.get("id").and_then(Value::as_u64).unwrap_or_default();
    let reads = Reads {
        head: text("sha"),
        version: &version,
        files: &files,
        drafts: array(&drafts),
        notes: array(&latest),
        me,
    };
    let mut plan = match plan::plan(&ask, &reads) {
        Ok(plan) => plan,
        Err(problems) => return answer::refused(call, &problems, gitlab.render.max_bytes),
    };

    let stopped = write(call, gitlab, &base, &mut plan, total).await.err();
    if plan.comments.iter().any(|c| c.state == State::PUBLISHED) {
        gitlab.progress(total - 1.0, Some(total), "reading the new notes' links");
        // Without their ids the review is still posted: it is listed unlinked.
        if let Ok(response) = gitlab.send(&notes).await {
            let latest = serde_json::from_slice::<Value>(&response.body).unwrap_or(Value::Null);
            for comment in &mut plan.comments {
                if comment.state == State::PUBLISHED {
                    let note = plan::posted_note(comment, array(&latest), me);
                    comment.state = State::Posted {
                        note,
                        earlier: false,
                    };
                }
            }
        }
    }
    gitlab.progress(total, Some(total), "answered");
    let facts = answer::Facts {
        reference: format!("!{}", mr.get("iid").and_then(Value::as_u64).unwrap_or(0)),
        web_url: text("web_url"),
        version: version.id,
    };
    answer::written(&plan, &facts, stopped, gitlab.render.max_bytes)
}

/// The comments, summary, approval and `sha` the call gives (checked by
/// `dispatch/checks/review.rs`).
fn ask(call: &ValidatedCall) -> Ask<'_> {
    let comments = call
        .arg("comments")
        .and_then(Value::as_array)
        .map_or(&[][..], Vec::as_slice)
        .iter()
        .map(|c| {
            let body = c.get("body").and_then(Value::as_str).unwrap_or_default();
            (LineAsk::read(|name| c.get(name)), body)
        })
        .collect();
    Ask {
        comments,
        summary: call.arg("body").and_then(Value::as_str),
        approve: call.arg("approve").and_then(Value::as_bool) == Some(true),
        sha: call.arg("sha").and_then(Value::as_str),
    }
}

/// Steps 3 to 6, each one's outcome kept in `plan`; the first failure
/// stops the rest.
async fn write(
    call: &ValidatedCall,
    gitlab: &Gitlab<'_>,
    base: &str,
    plan: &mut Plan,
    total: f64,
) -> Result<(), Stopped> {
    let stopped = |step: String| {
        move |failed: Failed| Stopped {
            step,
            failure: gitlab.failure(call, &failed),
        }
    };
    // The two diff reads were steps 0 and 1.
    let mut done = 2.0;
    let mut progress = |message: &str| {
        gitlab.progress(done, Some(total), message);
        done += 1.0;
    };
    for comment in &mut plan.comments {
        if comment.state != State::New {
            continue;
        }
        progress(&format!("drafting comments[{}]", comment.index));
        let draft = json!({"note": comment.body, "position": comment.position});
        let created = post(gitlab, format!("{base}/draft_notes"), Some(draft))
            .await
            .map_err(stopped(format!(
                "creating the draft of comments[{}]",
                comment.index
            )))?;
        comment.state = State::Drafted {
            draft: created
                .get("id")
                .and_then(Value::as_u64)
                .unwrap_or_default(),
            reused: false,
        };
    }
    if plan
        .comments
        .iter()
        .any(|c| matches!(c.state, State::Drafted { .. }))
    {
        progress("publishing the review");
        post(gitlab, format!("{base}/draft_notes/bulk_publish"), None)
            .await
            .map_err(stopped("publishing the drafts as one review".into()))?;
        for comment in &mut plan.comments {
            if matches!(comment.state, State::Drafted { .. }) {
                comment.state = State::PUBLISHED;
            }
        }
    }
    if let Some(summary) = plan.summary.as_mut().filter(|s| s.1 == State::New) {
        progress("posting the summary");
        let body = json!({"body": summary.0});
        let note = post(gitlab, format!("{base}/notes"), Some(body))
            .await
            .map_err(stopped("posting the summary".into()))?;
        summary.1 = State::Posted {
            note: note.get("id").and_then(Value::as_u64),
            earlier: false,
        };
    }
    if let Some((sha, approval)) = plan.approval.as_mut() {
        progress("approving");
        *approval = approve(gitlab, base, sha)
            .await
            .map_err(stopped("approving".into()))?;
    }
    Ok(())
}

/// The approval at `sha`. GitLab answers a second approval with a 401, as
/// it does an approver it does not allow: its approvals tell the two apart.
async fn approve(gitlab: &Gitlab<'_>, base: &str, sha: &str) -> Result<Approval, Failed> {
    let body = json!({"sha": sha});
    let failed = match post(gitlab, format!("{base}/approve"), Some(body)).await {
        Ok(_) => return Ok(Approval::Approved),
        Err(failed) => failed,
    };
    if !matches!(&failed.error, GitLabError::Status(s) if s.status == 401) {
        return Err(failed);
    }
    let approvals = gitlab
        .send(&HttpRequest::get(format!("{base}/approvals")))
        .await
        .ok()
        .and_then(|r| serde_json::from_slice::<Value>(&r.body).ok());
    match approvals.and_then(|a| a.get("user_has_approved").and_then(Value::as_bool)) {
        Some(true) => Ok(Approval::AlreadyApproved),
        _ => Err(failed),
    }
}

/// One POST, and its JSON answer (`Null` for a 204). Never repeated: the
/// client retries a POST only when it never left.
async fn post(gitlab: &Gitlab<'_>, path: String, body: Option<Value>) -> Result<Value, Failed> {
    let request = HttpRequest {
        method: Method::Post,
        path,
        query: String::new(),
        body: body.map(Body::Json),
        idempotent: false,
        endpoint: Endpoint::Rest,
    };
    let response = gitlab.send(&request).await?;
    Ok(serde_json::from_slice(&response.body).unwrap_or(Value::Null))
}

fn array(value: &Value) -> &[Value] {
    value.as_array().map_or(&[], Vec::as_slice)
}

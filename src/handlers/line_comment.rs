//! `line_comment`: a comment on a line (or a range of lines) of a merge
//! request's diff, as one new thread, without the agent assembling
//! GitLab's `position` (docs:
//! https://docs.gitlab.com/api/discussions/#create-a-new-thread-in-the-merge-request-diff).
//! Three requests:
//!
//! 1. `GET .../versions`: the newest diff version (listed first) gives
//!    `base_sha`, `start_sha` and `head_sha`.
//! 2. `GET .../versions/:version_id`: that version's diffs.
//! 3. `POST .../discussions` with `body` and the `position` that
//!    `diff_position::place` built from them; a line it cannot place is
//!    refused before this request, naming the lines that can take a
//!    comment, and nothing is posted.

use serde_json::{Map, Value};

use super::Gitlab;
use super::diff_position::{DiffVersion, LineAsk, place};
use crate::catalog::{Method, RestRoute};
use crate::diff::{FileDiff, Side};
use crate::dispatch::ValidatedCall;
use crate::gitlab::{Body, Failed, HttpRequest, request};
use crate::render::{self, Output};

/// What the call asks for, already checked by dispatch/checks/line_comment.rs:
/// the lines, and the comment's body.
fn ask(call: &ValidatedCall) -> (LineAsk<'_>, &str) {
    let number = |name: &str| call.arg(name).and_then(Value::as_u64);
    let text = |name: &str| call.arg(name).and_then(Value::as_str).unwrap_or_default();
    let (side, line) = match number("line") {
        Some(n) => (Side::New, n),
        None => (Side::Old, number("old_line").unwrap_or_default()),
    };
    let ask = LineAsk {
        file: text("file"),
        side,
        line,
        end_line: number("end_line"),
    };
    (ask, text("body"))
}

/// The comment posted on a checked line: the steps in the module doc.
pub async fn run(call: &ValidatedCall, route: &RestRoute, gitlab: &Gitlab<'_>) -> Output {
    let (ask, body) = ask(call);
    // The catalog's endpoint, `.../merge_requests/:iid/discussions`.
    let discussions = request::build(call, route).path;
    let base = discussions
        .strip_suffix("/discussions")
        .unwrap_or(&discussions);
    let (version, diffs) = match newest_diffs(call, gitlab, base).await {
        Ok(read) => read,
        Err(refused) => return refused,
    };
    let files: Vec<FileDiff<'_>> = diffs.iter().map(FileDiff::from_json).collect();
    let placement = match place(&version, &files, &ask) {
        Ok(placement) => placement,
        Err(problem) => return refuse(call, problem),
    };
    let heading = format!(
        "Commented on {} {}, diff version {}; the thread:\n",
        ask.file,
        placement.lines_text(),
        version.id
    );

    let mut thread = Map::new();
    thread.insert("body".into(), body.into());
    thread.insert("position".into(), placement.position);
    let post = HttpRequest {
        method: Method::Post,
        path: discussions,
        query: String::new(),
        body: Some(Body::Json(Value::Object(thread))),
        idempotent: false,
    };
    gitlab.progress(2.0, Some(3.0), "posting the thread");
    let output = match gitlab.send(&post).await {
        Ok(response) => {
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

/// The newest diff version and its files' diffs (two reads), or the answer
/// that says why they could not be read.
async fn newest_diffs(
    call: &ValidatedCall,
    gitlab: &Gitlab<'_>,
    base: &str,
) -> Result<(DiffVersion, Vec<Value>), Output> {
    gitlab.progress(0.0, Some(3.0), "reading the diff versions");
    let versions = gitlab
        .send(&HttpRequest::get(format!("{base}/versions")))
        .await
        .map_err(|failed| {
            failed_read(call, gitlab, "the merge request's diff versions", &failed)
        })?;
    let versions: Value = serde_json::from_slice(&versions.body).unwrap_or(Value::Null);
    let version = DiffVersion::newest(&versions).ok_or_else(|| {
        refuse(
            call,
            "the merge request has no diff version yet (GitLab may still be computing it); try again shortly",
        )
    })?;

    gitlab.progress(1.0, Some(3.0), "reading the file's diff");
    let answer = gitlab
        .send(&HttpRequest::get(format!("{base}/versions/{}", version.id)))
        .await
        .map_err(|failed| failed_read(call, gitlab, "the latest diff version", &failed))?;
    let diffs = match serde_json::from_slice::<Value>(&answer.body) {
        Ok(mut v) => match v.get_mut("diffs").map(Value::take) {
            Some(Value::Array(diffs)) => diffs,
            _ => Vec::new(),
        },
        Err(_) => Vec::new(),
    };
    Ok((version, diffs))
}

/// A refusal before anything was posted.
fn refuse(call: &ValidatedCall, problem: impl std::fmt::Display) -> Output {
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

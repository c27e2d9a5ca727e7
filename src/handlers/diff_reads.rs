//! The reads a handler makes before it posts on a merge request's diff
//! (`line_comment`, `review`), and the answers that say nothing was
//! posted:
//!
//! 1. `GET .../versions`: the newest diff version (listed first) gives
//!    `base_sha`, `start_sha` and `head_sha`
//!    (https://docs.gitlab.com/api/merge_requests/#get-merge-request-diff-versions).
//! 2. `GET .../versions/:version_id`: that version's diffs, which
//!    `diff_position::place` places each comment on.

use serde_json::Value;

use super::Gitlab;
use super::diff_position::DiffVersion;
use crate::dispatch::ValidatedCall;
use crate::gitlab::{Failed, HttpRequest};
use crate::render::Output;

/// The newest diff version of the merge request at `base` and its files'
/// diffs (two reads), or the answer that says why they could not be read.
/// `step` of `total` is the progress reported before the first read; the
/// second read is reported as the next step.
pub async fn newest_diffs(
    call: &ValidatedCall,
    gitlab: &Gitlab<'_>,
    base: &str,
    (step, total): (f64, f64),
) -> Result<(DiffVersion, Vec<Value>), Output> {
    gitlab.progress(step, Some(total), "reading the diff versions");
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

    gitlab.progress(step + 1.0, Some(total), "reading the diff");
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
pub fn refuse(call: &ValidatedCall, problem: impl std::fmt::Display) -> Output {
    Output::error(format!(
        "{} {}: nothing was posted: {problem}.",
        call.tool.name, call.action.name
    ))
}

/// A failed read, before anything was posted.
pub fn failed_read(
    call: &ValidatedCall,
    gitlab: &Gitlab<'_>,
    what: &str,
    failed: &Failed,
) -> Output {
    let mut output = gitlab.failure(call, failed);
    output.text = format!(
        "Nothing was posted: reading {what} failed.\n{}",
        output.text
    );
    output
}

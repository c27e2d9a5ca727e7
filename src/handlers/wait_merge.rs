//! `wait_merge`: wait until a merge request set to auto-merge is merged,
//! reading it (`GET .../merge_requests/:iid`, the catalog's endpoint) on
//! `poll.rs`'s schedule. The wait ends when GitLab's fields say the merge
//! happened or never will (docs:
//! https://docs.gitlab.com/api/merge_requests/#get-single-mr):
//!
//! - `state` is `merged`: the answer names the merge commit;
//! - `state` is `closed` (or `locked`): closed without merging;
//! - `merge_error` is set: the merge was tried and failed;
//! - `merge_when_pipeline_succeeds` (GitLab's `auto_merge_enabled`) is
//!   false: auto-merge was cancelled, or never set, so nothing will merge
//!   it.
//!
//! Otherwise the progress line is the state, `detailed_merge_status` and
//! the head pipeline's status. A wait is a separate action, not folded
//! into `gitlab_pipeline wait`: it reads another resource of another tool,
//! and ends on other states.

use std::time::Duration;

use serde_json::Value;

use super::Gitlab;
use super::poll::{self, Check, Schedule, Waited};
use crate::catalog::RestRoute;
use crate::dispatch::ValidatedCall;
use crate::gitlab::{HttpRequest, request};
use crate::render::{Output, untrusted};

/// The wait when the call gives no `timeout_seconds` (the catalog's default).
const DEFAULT_TIMEOUT: Duration = Duration::from_secs(300);

/// How the wait ended, with GitLab's words for it.
#[derive(Debug, Clone, PartialEq)]
enum End {
    Merged(String),
    Closed(String),
    MergeError(String),
    NotAutoMerging(String),
}

/// Read until the merge request's state is final: the steps in the module doc.
pub async fn run(call: &ValidatedCall, route: &RestRoute, gitlab: &Gitlab<'_>) -> Output {
    // The path only: `timeout_seconds` is this server's, not GitLab's.
    let read = HttpRequest::get(request::build(call, route).path);
    let schedule = Schedule::for_call(call, DEFAULT_TIMEOUT);
    let waited = poll::until(
        schedule,
        |done, total, line| gitlab.progress(done, total, line),
        || async {
            let response = gitlab.send(&read).await?;
            let mr: Value = serde_json::from_slice(&response.body).unwrap_or(Value::Null);
            Ok(check(&mr))
        },
    )
    .await;
    match waited {
        Waited::Done(end) => answer(&end),
        Waited::TimedOut { last } => poll::timed_out(call, schedule, &last),
        Waited::Failed(failed) => {
            let mut output = gitlab.failure(call, &failed);
            output.text = format!(
                "Stopped waiting: reading the merge request failed.\n{}",
                output.text
            );
            output
        }
    }
}

/// Whether the merge request's state is final, and what it is.
fn check(mr: &Value) -> Check<End> {
    let text = |key: &str| mr.get(key).and_then(Value::as_str).unwrap_or_default();
    let reference = format!("!{}", mr.get("iid").and_then(Value::as_u64).unwrap_or(0));
    match text("state") {
        "merged" => {
            let by = mr
                .pointer("/merged_by/username")
                .and_then(Value::as_str)
                .unwrap_or("?");
            let commit = [
                text("merge_commit_sha"),
                text("squash_commit_sha"),
                text("sha"),
            ]
            .into_iter()
            .find(|s| !s.is_empty())
            .unwrap_or("?");
            return Check::Done(End::Merged(format!(
                "{reference} merged at {} by {by}, commit {commit}: {}",
                text("merged_at"),
                text("web_url")
            )));
        }
        state @ ("closed" | "locked") => {
            return Check::Done(End::Closed(format!(
                "{reference} is {state}: {}",
                text("web_url")
            )));
        }
        _ => {}
    }
    if !text("merge_error").is_empty() {
        return Check::Done(End::MergeError(format!(
            "{reference}: {}",
            text("merge_error")
        )));
    }
    let status = format!(
        "{reference} {}, detailed_merge_status {}, head pipeline {}",
        text("state"),
        text("detailed_merge_status"),
        mr.pointer("/head_pipeline/status")
            .and_then(Value::as_str)
            .unwrap_or("none")
    );
    if mr
        .get("merge_when_pipeline_succeeds")
        .and_then(Value::as_bool)
        != Some(true)
    {
        return Check::Done(End::NotAutoMerging(status));
    }
    Check::Waiting(format!("{status}, auto-merge set"))
}

/// The final state: what happened in the server's words, GitLab's facts
/// framed.
fn answer(end: &End) -> Output {
    let (headline, facts, next) = match end {
        End::Merged(facts) => ("Merged.", facts, None),
        End::Closed(facts) => ("Closed without merging.", facts, None),
        End::MergeError(facts) => (
            "Not merged: GitLab tried and failed (merge_error):",
            facts,
            Some(
                "auto-merge stopped; fix the cause, then set it again with action `merge` and auto_merge",
            ),
        ),
        End::NotAutoMerging(facts) => (
            "Not merging: auto-merge is not set (cancelled, or never set), so nothing will merge it.",
            facts,
            Some("action `merge` with auto_merge sets it; then call wait_merge again"),
        ),
    };
    let mut text = format!("{headline}\n{}", untrusted::frame(facts));
    if let Some(next) = next {
        text.push_str(&format!("\n[{next}]"));
    }
    Output::ok(text)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn the_wait_ends_on_merged_closed_a_merge_error_or_no_auto_merge() {
        let merged = json!({"iid": 1, "state": "merged", "merged_at": "2026-03-01T10:00:00Z",
            "merged_by": {"username": "alice"}, "merge_commit_sha": "abc", "web_url": "https://g/p/-/merge_requests/1"});
        assert_eq!(
            check(&merged),
            Check::Done(End::Merged(
                "!1 merged at 2026-03-01T10:00:00Z by alice, commit abc: https://g/p/-/merge_requests/1".into()
            ))
        );
        let closed = json!({"iid": 1, "state": "closed", "web_url": "u"});
        assert_eq!(
            check(&closed),
            Check::Done(End::Closed("!1 is closed: u".into()))
        );
        let failed = json!({"iid": 1, "state": "opened", "merge_when_pipeline_succeeds": false,
            "merge_error": "Merge failed: conflicts"});
        assert_eq!(
            check(&failed),
            Check::Done(End::MergeError("!1: Merge failed: conflicts".into()))
        );
        let cancelled = json!({"iid": 1, "state": "opened", "merge_when_pipeline_succeeds": false,
            "detailed_merge_status": "mergeable", "merge_error": null});
        assert_eq!(
            check(&cancelled),
            Check::Done(End::NotAutoMerging(
                "!1 opened, detailed_merge_status mergeable, head pipeline none".into()
            ))
        );
    }

    #[test]
    fn an_open_auto_merge_is_waited_for_with_its_statuses() {
        let waiting = json!({"iid": 1, "state": "opened", "merge_when_pipeline_succeeds": true,
            "detailed_merge_status": "ci_still_running", "head_pipeline": {"status": "running"}});
        assert_eq!(
            check(&waiting),
            Check::Waiting(
                "!1 opened, detailed_merge_status ci_still_running, head pipeline running, auto-merge set".into()
            )
        );
    }
}

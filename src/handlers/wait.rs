//! `wait`: read a pipeline (https://docs.gitlab.com/api/pipelines/#get-a-single-pipeline)
//! until it finishes or `timeout_seconds` (300 by default, at most 600)
//! pass, on `poll.rs`'s schedule. When the client asked for progress, a
//! read that finds the pipeline still going then lists its jobs (the first
//! page of 100) to say how many are over; otherwise one request per read.
//!
//! A finished pipeline is answered as `get` shows it, after one line (and,
//! when it failed, the call that triages it); a timeout is `poll`'s answer:
//! the last status and the same call to go on waiting, not an error.

use std::sync::atomic::{AtomicU32, Ordering};
use std::time::Duration;

use serde_json::{Value, json};
use tokio::time::Instant;

use super::Gitlab;
use super::poll::{self, Check, Schedule, Waited};
use crate::catalog::RestRoute;
use crate::dispatch::ValidatedCall;
use crate::gitlab::{HttpRequest, Response, request};
use crate::render::{self, Output};

/// The wait when the call gives no `timeout_seconds` (the catalog's default).
const DEFAULT_TIMEOUT: Duration = Duration::from_secs(300);

/// A pipeline in one of these states will not change on its own.
const FINISHED: &[&str] = &["success", "failed", "canceled", "skipped", "manual"];

/// A job in one of these states is over.
const JOB_OVER: &[&str] = &["success", "failed", "canceled", "skipped"];

pub async fn run(call: &ValidatedCall, route: &RestRoute, gitlab: &Gitlab<'_>) -> Output {
    // The path only: `timeout_seconds` is this server's, not GitLab's.
    let path = request::build(call, route).path;
    let pipeline = HttpRequest::get(path.clone());
    let jobs = HttpRequest::get(format!("{path}/jobs")).with_query("per_page=100");
    let schedule = Schedule::for_call(call, DEFAULT_TIMEOUT);
    let count_jobs = gitlab.progress.is_some();
    let started = Instant::now();
    let reads = AtomicU32::new(0);
    let waited = poll::until(
        schedule,
        |done, total, line| gitlab.progress(done, total, line),
        || async {
            reads.fetch_add(1, Ordering::SeqCst);
            let response = gitlab.send(&pipeline).await?;
            let mut line = status(&response);
            if FINISHED.contains(&line.as_str()) {
                return Ok(Check::Done(response));
            }
            // After the pipeline, so the count is no older than the status.
            if count_jobs && let Ok(jobs) = gitlab.send(&jobs).await {
                line.push_str(&jobs_line(&jobs));
            }
            Ok(Check::Waiting(line))
        },
    )
    .await;
    match waited {
        Waited::Done(response) => finished(call, &response, started, reads.into_inner(), gitlab),
        Waited::TimedOut { last } => poll::timed_out(call, schedule, &last),
        Waited::Failed(failed) => gitlab.failure(call, &failed),
    }
}

/// The finished pipeline as `get` shows it, after how long it took; a
/// failed one with the call that says why.
fn finished(
    call: &ValidatedCall,
    pipeline: &Response,
    started: Instant,
    reads: u32,
    gitlab: &Gitlab<'_>,
) -> Output {
    let status = status(pipeline);
    let reads = match reads {
        1 => "1 read".to_string(),
        n => format!("{n} reads"),
    };
    let heading = format!(
        "Pipeline finished: {status}, after {} s of waiting ({reads}).\n",
        started.elapsed().as_secs()
    );
    let options = render::Options {
        max_bytes: gitlab.render.max_bytes.saturating_sub(heading.len()),
        ..gitlab.render
    };
    let mut output = render::success(call, pipeline, options);
    output.text.insert_str(0, &heading);
    if status != "failed" {
        return output;
    }
    let triage = json!({"action": "triage", "params": {
        "project_id": call.arg("project_id"),
        "pipeline_id": call.arg("pipeline_id"),
    }});
    output.with_note(&format!("why it failed: {triage}"))
}

/// The pipeline's `status` field.
fn status(response: &Response) -> String {
    serde_json::from_slice::<Value>(&response.body)
        .ok()
        .and_then(|v| v.get("status").and_then(Value::as_str).map(str::to_string))
        .unwrap_or_else(|| "unknown".into())
}

/// `, 3 of 9 jobs over`, from the first page of the pipeline's jobs.
fn jobs_line(response: &Response) -> String {
    let Ok(Value::Array(jobs)) = serde_json::from_slice::<Value>(&response.body) else {
        return String::new();
    };
    let over = jobs
        .iter()
        .filter(|j| {
            j.get("status")
                .and_then(Value::as_str)
                .is_some_and(|s| JOB_OVER.contains(&s))
        })
        .count();
    let more = if response.pagination.next_page.is_some() {
        " (first 100)"
    } else {
        ""
    };
    format!(", {over} of {} jobs over{more}", jobs.len())
}

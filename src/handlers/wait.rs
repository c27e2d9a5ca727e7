//! `wait`: read a pipeline (https://docs.gitlab.com/api/pipelines/#get-a-single-pipeline)
//! until it finishes or `timeout_seconds` (300 by default, at most 600)
//! pass, through `poll.rs`. When the client asked for progress, each read
//! then lists the pipeline's jobs (its first page of 100) to say how many
//! are over; otherwise one request per read.
//!
//! The answer is the pipeline as `get` shows it, after one line: it
//! finished (and, when it failed, the call that triages it), or it is
//! still running when the time was up, with the same call to go on
//! waiting; a timeout is not an error.

use std::time::Duration;

use serde_json::{Value, json};

use super::Gitlab;
use super::poll::{self, Reading, Schedule, Waited};
use crate::catalog::RestRoute;
use crate::dispatch::ValidatedCall;
use crate::gitlab::{HttpRequest, Response, request};
use crate::render::{self, Output};

/// The wait when the call does not say.
const DEFAULT_TIMEOUT: u64 = 300;

/// A pipeline in one of these states will not change on its own.
const FINISHED: &[&str] = &["success", "failed", "canceled", "skipped", "manual"];

/// A job in one of these states is over.
const JOB_OVER: &[&str] = &["success", "failed", "canceled", "skipped"];

pub async fn run(call: &ValidatedCall, route: &RestRoute, gitlab: &Gitlab<'_>) -> Output {
    // Only the path: `timeout_seconds` is not GitLab's.
    let path = request::build(call, route).path;
    let pipeline = HttpRequest::get(path.clone());
    let jobs = HttpRequest::get(format!("{path}/jobs")).with_query("per_page=100");
    let limit = call
        .arg("timeout_seconds")
        .and_then(Value::as_u64)
        .unwrap_or(DEFAULT_TIMEOUT);
    let count_jobs = gitlab.progress.is_some();

    let read = || async {
        let pipeline = gitlab.send(&pipeline).await?;
        let status = status(&pipeline);
        let mut line = status.clone();
        // After the pipeline, so the count is no older than the status.
        if count_jobs && let Ok(jobs) = gitlab.send(&jobs).await {
            line.push_str(&jobs_line(&jobs));
        }
        Ok(Reading {
            done: FINISHED.contains(&status.as_str()),
            line,
            value: pipeline,
        })
    };
    let waited = poll::until_done(
        Duration::from_secs(limit),
        Schedule::default(),
        |done, total, line| gitlab.progress(done, Some(total), line),
        read,
    )
    .await;

    let again = json!({"action": call.action.name, "params": {
        "project_id": call.arg("project_id"),
        "pipeline_id": call.arg("pipeline_id"),
        "timeout_seconds": limit,
    }});
    match waited {
        Waited::Done {
            value,
            reads,
            after,
        } => {
            let status = status(&value);
            let heading = format!(
                "Pipeline finished: {status}, after {} s of waiting ({}).\n",
                after.as_secs(),
                counted(reads)
            );
            let output = shown(call, &value, &heading, gitlab);
            if status == "failed" {
                let mut triage = again.clone();
                triage["action"] = json!("triage");
                triage["params"]
                    .as_object_mut()
                    .expect("params is an object")
                    .remove("timeout_seconds");
                output.with_note(&format!("why it failed: {triage}"))
            } else {
                output
            }
        }
        Waited::TimedOut {
            last: Some(value),
            reads,
            after,
        } => {
            let heading = format!(
                "Still {} after {} s of waiting ({}): the time asked for is up, nothing failed.\n",
                status(&value),
                after.as_secs(),
                counted(reads)
            );
            shown(call, &value, &heading, gitlab).with_note(&format!("to go on waiting: {again}"))
        }
        Waited::TimedOut {
            last: None,
            reads,
            after,
        } => Output::ok(format!(
            "GitLab throttled all {reads} reads in {} s of waiting: the pipeline's status is unknown.\n[to go on waiting: {again}]",
            after.as_secs()
        )),
        Waited::Failed(failed) => gitlab.failure(call, &failed),
    }
}

/// `1 read`, `3 reads`.
fn counted(reads: u32) -> String {
    match reads {
        1 => "1 read".into(),
        n => format!("{n} reads"),
    }
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

/// The pipeline as `get` shows it, after `heading`.
fn shown(call: &ValidatedCall, pipeline: &Response, heading: &str, gitlab: &Gitlab<'_>) -> Output {
    let options = render::Options {
        max_bytes: gitlab.render.max_bytes.saturating_sub(heading.len()),
        ..gitlab.render
    };
    let mut output = render::success(call, pipeline, options);
    output.text.insert_str(0, heading);
    output
}

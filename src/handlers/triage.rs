//! `triage`: why a pipeline failed, in one answer of `max_bytes` (4,096 by
//! default), from the reads an agent would otherwise make one by one:
//!
//! 1. the pipeline (`pipeline.rs`): by its id, a merge request's head
//!    pipeline or a ref's latest;
//! 2. at once: its failed, manual and skipped jobs and its trigger jobs,
//!    then those of every failed pipeline they started (`jobs.rs`), and its
//!    test report's summary, then the report's failed cases if it counts
//!    any (`test_cases.rs`);
//! 3. the budget's plan (`answer.rs`): whose logs are read, and how many
//!    bytes each excerpt gets;
//! 4. at once, each of those logs, streamed through the scanner and
//!    dropped once it has the lines around the first error (`logs.rs`);
//! 5. the answer (`answer.rs`), every failed job named, the jobs whose
//!    logs had no room each with the call that reads it.
//!
//! Only a failure to read the pipeline or its own jobs fails the call; a
//! downstream pipeline, a log or the test report that cannot be read is a
//! line saying so.

mod answer;
mod jobs;
mod logs;
mod pipeline;
mod test_cases;

use serde_json::{Value, json};

use super::Gitlab;
use crate::catalog::RestRoute;
use crate::dispatch::ValidatedCall;
use crate::gitlab::request;
use crate::render::{Output, untrusted};
use answer::Triage;

/// The answer's size when the call does not say.
const DEFAULT_MAX_BYTES: usize = 4096;

pub async fn run(call: &ValidatedCall, route: &RestRoute, gitlab: &Gitlab<'_>) -> Output {
    // The catalog's endpoint is `/projects/:id/pipelines/latest`.
    let latest = request::build(call, route).path;
    let project = latest
        .strip_suffix("/pipelines/latest")
        .unwrap_or(&latest)
        .to_string();
    let cap = call
        .arg("max_bytes")
        .and_then(Value::as_u64)
        .map_or(DEFAULT_MAX_BYTES, |n| n as usize)
        .min(gitlab.render.max_bytes);

    gitlab.progress(0.0, None, "reading the pipeline");
    let pipeline = match pipeline::resolve(call, &project, gitlab).await {
        Ok(pipeline) => pipeline,
        Err(answer) => return answer,
    };
    gitlab.progress(0.0, None, "reading its jobs and test report");
    let (jobs, tests) = tokio::join!(
        jobs::collect(gitlab, &pipeline),
        test_cases::read(gitlab, &pipeline)
    );
    let jobs = match jobs {
        Ok(jobs) => jobs,
        Err(failed) => return gitlab.failure(call, &failed),
    };
    let triage = Triage {
        pipeline: &pipeline,
        jobs: &jobs,
        tests: &tests,
    };
    let plan = answer::plan(&triage, cap);
    let reading: Vec<&jobs::FailedJob> = plan.read.iter().map(|&i| &jobs.failed[i]).collect();
    let logs: Vec<_> = logs::excerpts(gitlab, &reading)
        .await
        .into_iter()
        .map(|read| read.map_err(|failed| failed.error.to_string()))
        .collect();
    let mut text = answer::write(&triage, &plan, &logs, cap);
    if call.view.raw || call.view.fields.is_some() {
        text.push_str("\n[`fields` and `raw` do not apply to triage; actions `get` and `job_list` answer GitLab's JSON]");
    }
    let structured = gitlab.render.structured.then(|| {
        let mut value = structured(&triage, &plan, &logs);
        untrusted::escape_value(&mut value);
        value
    });
    Output {
        text,
        is_error: false,
        structured,
    }
}

/// The same facts as JSON, for clients that take structured content.
fn structured(
    triage: &Triage,
    plan: &answer::Plan,
    logs: &[Result<crate::render::log_scan::Excerpt, String>],
) -> Value {
    let p = triage.pipeline;
    let failed: Vec<Value> = triage
        .jobs
        .failed
        .iter()
        .enumerate()
        .map(|(i, job)| {
            let excerpt = plan
                .read
                .iter()
                .position(|&r| r == i)
                .and_then(|at| logs[at].as_ref().ok());
            json!({
                "id": job.id,
                "name": job.name,
                "stage": job.stage,
                "failure_reason": job.failure_reason,
                "allow_failure": job.allow_failure,
                "pipeline_id": job.pipeline,
                "error_line": excerpt.and_then(|e| e.hunks.first()).map(|h| h.at),
                "log_read": excerpt.is_some(),
            })
        })
        .collect();
    json!({
        "pipeline": {"id": p.id, "status": p.status, "ref": p.git_ref, "sha": p.sha, "web_url": p.web_url},
        "failed_jobs": failed,
        "manual": triage.jobs.manual,
        "skipped": triage.jobs.skipped,
        "downstream_pipelines": triage.jobs.downstream.iter().map(|d| json!({"id": d.pipeline.id, "status": d.pipeline.status, "trigger_job": d.trigger})).collect::<Vec<_>>(),
    })
}

//! The failed jobs of a pipeline and of the pipelines its trigger jobs
//! started, level by level (the pipelines of one level read at once), at
//! most `MAX_DEPTH` levels down and `MAX_PIPELINES` pipelines in all.
//!
//! Per pipeline, two reads: its jobs with `scope[]` failed, manual and
//! skipped in one list (https://docs.gitlab.com/api/jobs/#list-pipeline-jobs;
//! retried attempts are left out, `include_retried` being false by
//! default: `Ci::JobsFinder` lists the `latest` of each job), which gives
//! the failed jobs and the counts at once, and its trigger jobs
//! (https://docs.gitlab.com/api/pipelines/#list-pipeline-trigger-jobs),
//! whose `downstream_pipeline` leads to the next level when it failed. A
//! trigger job that failed without starting a pipeline is a failed job
//! of its own (it has no log).

use futures::future::join_all;
use serde_json::Value;

use super::super::Gitlab;
use super::pipeline::Pipeline;
use crate::gitlab::{Failed, HttpRequest};

/// Levels of downstream pipelines followed below the one triaged.
pub const MAX_DEPTH: usize = 3;
/// Pipelines read in all, the first included.
pub const MAX_PIPELINES: usize = 10;
/// Items per page, and pages read of one list.
const PER_PAGE: u32 = 100;
const MAX_PAGES: u32 = 3;

/// One failed job.
#[derive(Debug, Clone, PartialEq)]
pub struct FailedJob {
    pub id: u64,
    pub name: String,
    pub stage: String,
    pub failure_reason: Option<String>,
    pub allow_failure: bool,
    /// The pipeline it ran in, and how many trigger jobs down from the
    /// one triaged (0: that one).
    pub pipeline: u64,
    pub project: String,
    pub depth: usize,
    /// A trigger job: no log to read.
    pub trigger: bool,
}

impl FailedJob {
    /// The project's id as GitLab numbers it (`/projects/2` → `2`).
    pub fn project_id(&self) -> &str {
        self.project.trim_start_matches("/projects/")
    }
}

/// A pipeline a trigger job started, read because it failed.
#[derive(Debug, Clone, PartialEq)]
pub struct Downstream {
    pub trigger: String,
    pub pipeline: Pipeline,
}

#[derive(Debug, Default, PartialEq)]
pub struct Jobs {
    pub failed: Vec<FailedJob>,
    pub manual: usize,
    pub skipped: usize,
    pub downstream: Vec<Downstream>,
    /// What could not be read, one phrase each.
    pub unread: Vec<String>,
}

/// Every failed job under `root`; `Err` only when `root`'s own jobs
/// cannot be read.
pub async fn collect(gitlab: &Gitlab<'_>, root: &Pipeline) -> Result<Jobs, Failed> {
    let mut jobs = Jobs::default();
    let mut level = vec![(root.clone(), 0usize)];
    let mut pipelines = 1;
    while !level.is_empty() {
        let reads = join_all(level.iter().map(|(p, _)| read(gitlab, p))).await;
        let mut next = Vec::new();
        for ((pipeline, depth), read) in level.into_iter().zip(reads) {
            let (list, bridges) = match read {
                Ok(lists) => lists,
                Err(failed) if depth == 0 => return Err(failed),
                Err(failed) => {
                    jobs.unread.push(format!(
                        "the jobs of pipeline {}: {}",
                        pipeline.id, failed.error
                    ));
                    continue;
                }
            };
            for job in &list {
                match job.get("status").and_then(Value::as_str) {
                    Some("failed") => jobs.failed.push(failed_job(job, &pipeline, depth, false)),
                    Some("manual") => jobs.manual += 1,
                    Some("skipped") => jobs.skipped += 1,
                    _ => {}
                }
            }
            for bridge in &bridges {
                let name = text(bridge, "name");
                let downstream = bridge
                    .get("downstream_pipeline")
                    .and_then(|d| Pipeline::from_json(d, &pipeline.project));
                match downstream {
                    Some(child) if child.status == "failed" => {
                        if depth + 1 > MAX_DEPTH || pipelines >= MAX_PIPELINES {
                            jobs.unread.push(format!(
                                "pipeline {} (trigger job `{name}`): past {MAX_DEPTH} levels or {MAX_PIPELINES} pipelines; triage it on its own",
                                child.id
                            ));
                            continue;
                        }
                        pipelines += 1;
                        jobs.downstream.push(Downstream {
                            trigger: name,
                            pipeline: child.clone(),
                        });
                        next.push((child, depth + 1));
                    }
                    Some(_) => {}
                    None if text(bridge, "status") == "failed" => {
                        jobs.failed.push(failed_job(bridge, &pipeline, depth, true));
                    }
                    None => {}
                }
            }
        }
        level = next;
    }
    // Jobs that must pass first, then by level, then in the order they ran.
    jobs.failed
        .sort_by_key(|j| (j.allow_failure, j.depth, j.pipeline, j.id));
    Ok(jobs)
}

fn text(value: &Value, key: &str) -> String {
    value
        .get(key)
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_string()
}

fn failed_job(job: &Value, pipeline: &Pipeline, depth: usize, trigger: bool) -> FailedJob {
    FailedJob {
        id: job.get("id").and_then(Value::as_u64).unwrap_or_default(),
        name: text(job, "name"),
        stage: text(job, "stage"),
        failure_reason: job
            .get("failure_reason")
            .and_then(Value::as_str)
            .map(str::to_string),
        allow_failure: job.get("allow_failure").and_then(Value::as_bool) == Some(true),
        pipeline: pipeline.id,
        project: pipeline.project.clone(),
        depth,
        trigger,
    }
}

/// A pipeline's failed, manual and skipped jobs, and its trigger jobs.
async fn read(
    gitlab: &Gitlab<'_>,
    pipeline: &Pipeline,
) -> Result<(Vec<Value>, Vec<Value>), Failed> {
    let path = pipeline.path();
    let jobs = HttpRequest::get(format!("{path}/jobs")).with_query(format!(
        "scope[]=failed&scope[]=manual&scope[]=skipped&per_page={PER_PAGE}"
    ));
    let bridges =
        HttpRequest::get(format!("{path}/bridges")).with_query(format!("per_page={PER_PAGE}"));
    let (jobs, bridges) = tokio::join!(pages(gitlab, jobs), pages(gitlab, bridges));
    Ok((jobs?, bridges?))
}

/// The items of a list, following its pages up to `MAX_PAGES`.
async fn pages(gitlab: &Gitlab<'_>, first: HttpRequest) -> Result<Vec<Value>, Failed> {
    let mut items = Vec::new();
    let mut request = first;
    for _ in 0..MAX_PAGES {
        let response = gitlab.send(&request).await?;
        if let Ok(Value::Array(page)) = serde_json::from_slice::<Value>(&response.body) {
            items.extend(page);
        }
        match response.pagination.next_page {
            Some(next) => {
                request = HttpRequest::get(request.path.clone())
                    .with_query(format!("{}&page={next}", first_query(&request.query)));
            }
            None => break,
        }
    }
    Ok(items)
}

/// A query without its `page`, to ask for another.
fn first_query(query: &str) -> String {
    query
        .split('&')
        .filter(|pair| !pair.starts_with("page="))
        .collect::<Vec<_>>()
        .join("&")
}

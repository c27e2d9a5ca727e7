//! Pipelines and jobs (docs: https://docs.gitlab.com/api/pipelines/, https://docs.gitlab.com/api/jobs/).

use axum::Router;
use axum::extract::{Path, State};
use axum::routing::{get, post};
use serde_json::Value;

use super::{Ctx, Reply, id, visible, writable};
use crate::db::{Db, Job, JobLog, Pipeline, Project, sha};
use crate::{App, http, lock, objects};

const STATUSES: &[&str] = &[
    "created",
    "waiting_for_resource",
    "preparing",
    "pending",
    "running",
    "success",
    "failed",
    "canceled",
    "skipped",
    "manual",
    "scheduled",
];

pub fn routes() -> Router<App> {
    let p = "/api/v4/projects/{id}";
    Router::new()
        .route(&format!("{p}/pipelines"), get(list))
        .route(&format!("{p}/pipelines/{{pipeline_id}}"), get(show))
        .route(&format!("{p}/pipelines/latest"), get(latest))
        .route(&format!("{p}/jobs"), get(project_jobs))
        .route(&format!("{p}/pipeline"), post(create))
        .route(&format!("{p}/pipelines/{{pipeline_id}}/retry"), post(retry))
        .route(
            &format!("{p}/pipelines/{{pipeline_id}}/cancel"),
            post(cancel),
        )
        .route(&format!("{p}/pipelines/{{pipeline_id}}/jobs"), get(jobs))
        .route(&format!("{p}/jobs/{{job_id}}"), get(job))
        .route(&format!("{p}/jobs/{{job_id}}/retry"), post(job_retry))
        .route(&format!("{p}/jobs/{{job_id}}/play"), post(job_play))
        .route(&format!("{p}/jobs/{{job_id}}/cancel"), post(job_cancel))
}

fn find(db: &Db, project: usize, pipeline_id: &str) -> Result<usize, axum::response::Response> {
    let pipeline_id = id(pipeline_id)?;
    db.projects[project]
        .pipelines
        .iter()
        .position(|p| p.id == pipeline_id)
        .ok_or_else(|| http::message(404, "404 Not found"))
}

fn find_job(db: &Db, project: usize, job_id: &str) -> Result<usize, axum::response::Response> {
    let job_id = id(job_id)?;
    db.projects[project]
        .jobs
        .iter()
        .position(|j| j.id == job_id)
        .ok_or_else(|| http::message(404, "404 Not found"))
}

async fn list(State(app): State<App>, Path(pid): Path<String>, ctx: Ctx) -> Reply {
    let db = lock(&app.db);
    let p = &db.projects[visible(&db, &pid, &ctx)?];
    let status = ctx.one_of("status", STATUSES)?;
    ctx.one_of(
        "scope",
        &["running", "pending", "finished", "branches", "tags"],
    )?;
    ctx.one_of("sort", &["asc", "desc"])?;
    let git_ref = ctx.param("ref");
    let items: Vec<Value> = p
        .pipelines
        .iter()
        .rev()
        .filter(|pl| status.as_ref().is_none_or(|s| &pl.status == s))
        .filter(|pl| git_ref.as_ref().is_none_or(|r| &pl.git_ref == r))
        .map(|pl| objects::pipeline(&db, p, pl, false))
        .collect();
    Ok(http::paginate(items, &ctx.query, &ctx.url))
}

/// One pipeline; a pipeline set to `finish` moves on with each read (see
/// `Finish`): a stand-in for a pipeline that runs while a client polls it.
async fn show(State(app): State<App>, Path((pid, pl)): Path<(String, String)>, ctx: Ctx) -> Reply {
    let mut db = lock(&app.db);
    let p = visible(&db, &pid, &ctx)?;
    let i = find(&db, p, &pl)?;
    let now = db.now();
    advance(&mut db.projects[p], i, &now);
    let project = &db.projects[p];
    Ok(http::ok(objects::pipeline(
        &db,
        project,
        &project.pipelines[i],
        true,
    )))
}

/// One read of a pipeline set to `finish`: its next unfinished job
/// finishes (a pending one starts), and on the last read the pipeline
/// and all its jobs end as `then` says.
fn advance(project: &mut Project, i: usize, now: &str) {
    let pipeline = &mut project.pipelines[i];
    let Some(finish) = pipeline.finish.as_mut() else {
        return;
    };
    finish.reads = finish.reads.saturating_sub(1);
    let ended = (finish.reads == 0).then(|| finish.then.clone());
    let id = pipeline.id;
    if let Some(then) = &ended {
        pipeline.status = then.clone();
        pipeline.finish = None;
        pipeline.updated_at = now.to_string();
    }
    let mut unfinished: Vec<&mut Job> = project
        .jobs
        .iter_mut()
        .filter(|j| j.pipeline_id == id && matches!(j.status.as_str(), "running" | "pending"))
        .collect();
    match ended {
        None => {
            if let Some(job) = unfinished.first_mut() {
                let next = if job.status == "running" {
                    "success"
                } else {
                    "running"
                };
                job.status = next.into();
            }
        }
        Some(then) => {
            let last = unfinished.len();
            for (k, job) in unfinished.into_iter().enumerate() {
                let failed = k + 1 == last && then == "failed";
                job.status = if failed { "failed" } else { "success" }.into();
            }
        }
    }
}

/// The latest pipeline of `ref`, by default the default branch (docs:
/// https://docs.gitlab.com/api/pipelines/#get-the-latest-pipeline).
async fn latest(State(app): State<App>, Path(pid): Path<String>, ctx: Ctx) -> Reply {
    let db = lock(&app.db);
    let project = &db.projects[visible(&db, &pid, &ctx)?];
    let git_ref = ctx
        .param("ref")
        .unwrap_or_else(|| project.default_branch.clone());
    // A child pipeline is never the latest: GitLab looks among pipelines of
    // CI sources (`Ci::Pipeline.ci_sources`), which `parent_pipeline` is not.
    let pl = project
        .pipelines
        .iter()
        .rev()
        .find(|pl| pl.git_ref == git_ref && pl.source != "parent_pipeline")
        .ok_or_else(|| http::message(404, "404 Not found"))?;
    Ok(http::ok(objects::pipeline(&db, project, pl, true)))
}

/// The project's jobs, newest first, `scope[]` filtering by status (docs:
/// https://docs.gitlab.com/api/jobs/#list-project-jobs).
async fn project_jobs(State(app): State<App>, Path(pid): Path<String>, ctx: Ctx) -> Reply {
    let db = lock(&app.db);
    let project = &db.projects[visible(&db, &pid, &ctx)?];
    let scope = ctx.list("scope");
    if let Some(values) = &scope
        && values.iter().any(|v| !JOB_STATUSES.contains(&v.as_str()))
    {
        return Err(http::invalid_value("scope"));
    }
    let items = project
        .jobs
        .iter()
        .rev()
        .filter(|j| scope.as_ref().is_none_or(|s| s.contains(&j.status)))
        .map(|j| objects::job(&db, project, j))
        .collect();
    Ok(http::paginate(items, &ctx.query, &ctx.url))
}

const JOB_STATUSES: &[&str] = &[
    "created",
    "pending",
    "running",
    "failed",
    "success",
    "canceled",
    "skipped",
    "waiting_for_resource",
    "manual",
];

/// `POST /projects/:id/pipeline` (singular: docs:
/// https://docs.gitlab.com/api/pipelines/#create-a-new-pipeline): `ref` required; an
/// unknown ref is a 400 with GitLab's `base` message.
async fn create(State(app): State<App>, Path(pid): Path<String>, ctx: Ctx) -> Reply {
    let mut db = lock(&app.db);
    let p = writable(&db, &pid, &ctx)?;
    let git_ref = ctx.require("ref")?;
    if !db.projects[p].branches.iter().any(|b| b.name == git_ref)
        && !db.projects[p].tags.iter().any(|t| t.name == git_ref)
    {
        return Err(http::validation("base", "Reference not found"));
    }
    if let Some(vars) = ctx.body.get("variables")
        && !vars.is_array()
    {
        return Err(http::invalid_value("variables"));
    }
    let id = db.next_id();
    let now = db.now();
    let project = &mut db.projects[p];
    let iid = project.pipelines.iter().map(|x| x.iid).max().unwrap_or(0) + 1;
    project.pipelines.push(Pipeline {
        id,
        iid,
        status: "created".into(),
        git_ref,
        sha: sha(6),
        source: "api".into(),
        user_id: ctx.auth.expect("writable has a user").user_id,
        created_at: now.clone(),
        updated_at: now,
        ..Pipeline::default()
    });
    let project = &db.projects[p];
    Ok(http::created(objects::pipeline(
        &db,
        project,
        project.pipelines.last().unwrap(),
        true,
    )))
}

async fn retry(State(app): State<App>, Path((pid, pl)): Path<(String, String)>, ctx: Ctx) -> Reply {
    set_status(&app, &pid, &pl, &ctx, "pending", |s| {
        matches!(s, "failed" | "canceled" | "success")
    })
    .await
}

async fn cancel(
    State(app): State<App>,
    Path((pid, pl)): Path<(String, String)>,
    ctx: Ctx,
) -> Reply {
    set_status(&app, &pid, &pl, &ctx, "canceled", |_| true).await
}

/// Retry and cancel answer the pipeline (201 for both, as GitLab does);
/// retrying a pipeline with nothing to retry is a 400 here.
async fn set_status(
    app: &App,
    pid: &str,
    pl: &str,
    ctx: &Ctx,
    to: &str,
    allowed: fn(&str) -> bool,
) -> Reply {
    let mut db = lock(&app.db);
    let p = writable(&db, pid, ctx)?;
    let i = find(&db, p, pl)?;
    let now = db.now();
    let pipeline = &mut db.projects[p].pipelines[i];
    if !allowed(&pipeline.status) {
        return Err(http::message(
            400,
            "400 Bad request - Pipeline cannot be retried",
        ));
    }
    pipeline.status = to.into();
    pipeline.updated_at = now;
    let project = &db.projects[p];
    Ok(http::created(objects::pipeline(
        &db,
        project,
        &project.pipelines[i],
        true,
    )))
}

async fn jobs(State(app): State<App>, Path((pid, pl)): Path<(String, String)>, ctx: Ctx) -> Reply {
    let db = lock(&app.db);
    let p = visible(&db, &pid, &ctx)?;
    let i = find(&db, p, &pl)?;
    let project = &db.projects[p];
    let pipeline_id = project.pipelines[i].id;
    let scope = ctx.list("scope");
    if let Some(values) = &scope
        && values.iter().any(|v| !JOB_STATUSES.contains(&v.as_str()))
    {
        return Err(http::invalid_value("scope"));
    }
    // Retried attempts only on request (`Ci::JobsFinder`: `latest` unless
    // `include_retried`).
    let include_retried = ctx.flag("include_retried").unwrap_or(false);
    let items = project
        .jobs
        .iter()
        .filter(|j| j.pipeline_id == pipeline_id && (include_retried || !j.retried))
        .filter(|j| scope.as_ref().is_none_or(|s| s.contains(&j.status)))
        .map(|j| objects::job(&db, project, j))
        .collect();
    Ok(http::paginate(items, &ctx.query, &ctx.url))
}

async fn job(State(app): State<App>, Path((pid, jid)): Path<(String, String)>, ctx: Ctx) -> Reply {
    let db = lock(&app.db);
    let p = visible(&db, &pid, &ctx)?;
    let j = find_job(&db, p, &jid)?;
    let project = &db.projects[p];
    Ok(http::ok(objects::job(&db, project, &project.jobs[j])))
}

/// Retry creates a new job (docs: "Retry a job" answers the new job).
async fn job_retry(
    State(app): State<App>,
    Path((pid, jid)): Path<(String, String)>,
    ctx: Ctx,
) -> Reply {
    let mut db = lock(&app.db);
    let p = writable(&db, &pid, &ctx)?;
    let j = find_job(&db, p, &jid)?;
    let id = db.next_id();
    let now = db.now();
    let project = &mut db.projects[p];
    // The attempt retried stays, marked (`Ci::RetryJobService`).
    project.jobs[j].retried = true;
    let old = &project.jobs[j];
    let job = Job {
        id,
        name: old.name.clone(),
        stage: old.stage.clone(),
        status: "pending".into(),
        pipeline_id: old.pipeline_id,
        git_ref: old.git_ref.clone(),
        user_id: ctx.auth.expect("writable has a user").user_id,
        created_at: now,
        manual: false,
        log: JobLog::Text(String::new()),
        artifacts: Default::default(),
        ..Job::default()
    };
    project.jobs.push(job);
    let project = &db.projects[p];
    Ok(http::created(objects::job(
        &db,
        project,
        project.jobs.last().unwrap(),
    )))
}

/// Play: only a manual job can be played; otherwise GitLab answers 400
/// `Unplayable Job`.
async fn job_play(
    State(app): State<App>,
    Path((pid, jid)): Path<(String, String)>,
    ctx: Ctx,
) -> Reply {
    let mut db = lock(&app.db);
    let p = writable(&db, &pid, &ctx)?;
    let j = find_job(&db, p, &jid)?;
    let job = &mut db.projects[p].jobs[j];
    if !job.manual {
        return Err(http::message(400, "400 Bad request - Unplayable Job"));
    }
    job.manual = false;
    job.status = "pending".into();
    let project = &db.projects[p];
    Ok(http::ok(objects::job(&db, project, &project.jobs[j])))
}

async fn job_cancel(
    State(app): State<App>,
    Path((pid, jid)): Path<(String, String)>,
    ctx: Ctx,
) -> Reply {
    let mut db = lock(&app.db);
    let p = writable(&db, &pid, &ctx)?;
    let j = find_job(&db, p, &jid)?;
    db.projects[p].jobs[j].status = "canceled".into();
    let project = &db.projects[p];
    Ok(http::created(objects::job(&db, project, &project.jobs[j])))
}

//! What a pipeline says about its jobs beyond the job list: its trigger
//! jobs and the pipelines they started
//! (https://docs.gitlab.com/api/pipelines/#list-pipeline-trigger-jobs),
//! and its test report and summary
//! (https://docs.gitlab.com/api/pipelines/#get-a-pipelines-test-report).

use axum::Router;
use axum::extract::{Path, State};
use axum::routing::get;

use super::{Ctx, Reply, id, visible};
use crate::db::{Db, Pipeline};
use crate::{App, http, lock, objects};

pub fn routes() -> Router<App> {
    let p = "/api/v4/projects/{id}/pipelines/{pipeline_id}";
    Router::new()
        .route(&format!("{p}/bridges"), get(bridges))
        .route(&format!("{p}/test_report"), get(test_report))
        .route(
            &format!("{p}/test_report_summary"),
            get(test_report_summary),
        )
}

/// The project's index and the pipeline, or GitLab's 404.
fn pipeline<'a>(
    db: &'a Db,
    pid: &str,
    pl: &str,
    ctx: &Ctx,
) -> Result<(usize, &'a Pipeline), axum::response::Response> {
    let p = visible(db, pid, ctx)?;
    let pipeline_id = id(pl)?;
    let pipeline = db.projects[p]
        .pipelines
        .iter()
        .find(|x| x.id == pipeline_id)
        .ok_or_else(|| http::message(404, "404 Not found"))?;
    Ok((p, pipeline))
}

/// Newest first, `scope[]` filtering by status, as for jobs.
async fn bridges(
    State(app): State<App>,
    Path((pid, pl)): Path<(String, String)>,
    ctx: Ctx,
) -> Reply {
    let db = lock(&app.db);
    let (p, pipeline) = pipeline(&db, &pid, &pl, &ctx)?;
    let project = &db.projects[p];
    let scope = ctx.list("scope");
    let items = project
        .bridges
        .iter()
        .rev()
        .filter(|b| b.pipeline_id == pipeline.id)
        .filter(|b| scope.as_ref().is_none_or(|s| s.contains(&b.status)))
        .map(|b| objects::bridge(&db, project, b))
        .collect();
    Ok(http::paginate(items, &ctx.query, &ctx.url))
}

async fn test_report(
    State(app): State<App>,
    Path((pid, pl)): Path<(String, String)>,
    ctx: Ctx,
) -> Reply {
    let db = lock(&app.db);
    let (_, pipeline) = pipeline(&db, &pid, &pl, &ctx)?;
    Ok(http::ok(objects::test_report(pipeline)))
}

async fn test_report_summary(
    State(app): State<App>,
    Path((pid, pl)): Path<(String, String)>,
    ctx: Ctx,
) -> Reply {
    let db = lock(&app.db);
    let (p, pipeline) = pipeline(&db, &pid, &pl, &ctx)?;
    Ok(http::ok(objects::test_report_summary(
        &db.projects[p],
        pipeline,
    )))
}

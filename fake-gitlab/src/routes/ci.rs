//! CI/CD variables, environments and job artifacts (docs: project-level
//! variables API, https://docs.gitlab.com/api/environments/, job artifacts API).

use axum::Router;
use axum::extract::{Path, State};
use axum::routing::{get, post};
use serde_json::Value;

use super::{Ctx, Reply, visible, writable};
use crate::db::Variable;
use crate::{App, http, lock, objects};

pub fn routes() -> Router<App> {
    let p = "/api/v4/projects/{id}";
    Router::new()
        .route(
            &format!("{p}/variables"),
            get(variables).post(create_variable),
        )
        .route(
            &format!("{p}/variables/{{key}}"),
            get(variable).delete(delete_variable),
        )
        .route(&format!("{p}/environments"), get(environments))
        .route(
            &format!("{p}/environments/{{environment_id}}"),
            get(environment),
        )
        .route(
            &format!("{p}/environments/{{environment_id}}/stop"),
            post(stop_environment),
        )
        .route(
            &format!("{p}/jobs/{{job_id}}/artifacts"),
            get(artifact_archive),
        )
        .route(
            &format!("{p}/jobs/{{job_id}}/artifacts/{{*artifact_path}}"),
            get(artifact_file),
        )
}

/// Variables need the Maintainer role: alice (user 1) is the maintainer here.
fn maintainer(ctx: &Ctx) -> Result<(), axum::response::Response> {
    if ctx.auth.map(|a| a.user_id) == Some(1) {
        Ok(())
    } else {
        Err(http::forbidden())
    }
}

async fn variables(State(app): State<App>, Path(pid): Path<String>, ctx: Ctx) -> Reply {
    let db = lock(&app.db);
    let p = &db.projects[visible(&db, &pid, &ctx)?];
    maintainer(&ctx)?;
    let items = p.variables.iter().map(objects::variable).collect();
    Ok(http::paginate(items, &ctx.query, &ctx.url))
}

async fn variable(
    State(app): State<App>,
    Path((pid, key)): Path<(String, String)>,
    ctx: Ctx,
) -> Reply {
    let db = lock(&app.db);
    let p = &db.projects[visible(&db, &pid, &ctx)?];
    maintainer(&ctx)?;
    let v = p
        .variables
        .iter()
        .find(|v| v.key == key)
        .ok_or_else(|| http::not_found("Variable"))?;
    Ok(http::ok(objects::variable(v)))
}

/// Create: `key` and `value` required; a duplicate key is a 400 with the
/// model's message (docs).
async fn create_variable(State(app): State<App>, Path(pid): Path<String>, ctx: Ctx) -> Reply {
    let mut db = lock(&app.db);
    let p = writable(&db, &pid, &ctx)?;
    maintainer(&ctx)?;
    let key = ctx.require("key")?;
    let value = ctx.param("value").ok_or_else(|| http::missing("value"))?;
    let variable_type = ctx
        .one_of("variable_type", &["env_var", "file"])?
        .unwrap_or_else(|| "env_var".into());
    let scope = ctx.param("environment_scope").unwrap_or_else(|| "*".into());
    if db.projects[p]
        .variables
        .iter()
        .any(|v| v.key == key && v.environment_scope == scope)
    {
        return Err(http::validation(
            "key",
            &format!("({key}) has already been taken"),
        ));
    }
    let variable = Variable {
        key,
        value,
        variable_type,
        protected: ctx.flag("protected").unwrap_or(false),
        masked: ctx.flag("masked").unwrap_or(false),
        environment_scope: scope,
    };
    db.projects[p].variables.push(variable);
    Ok(http::created(objects::variable(
        db.projects[p].variables.last().unwrap(),
    )))
}

async fn delete_variable(
    State(app): State<App>,
    Path((pid, key)): Path<(String, String)>,
    ctx: Ctx,
) -> Reply {
    let mut db = lock(&app.db);
    let p = writable(&db, &pid, &ctx)?;
    maintainer(&ctx)?;
    let i = db.projects[p]
        .variables
        .iter()
        .position(|v| v.key == key)
        .ok_or_else(|| http::not_found("Variable"))?;
    db.projects[p].variables.remove(i);
    Ok(http::no_content())
}

async fn environments(State(app): State<App>, Path(pid): Path<String>, ctx: Ctx) -> Reply {
    let db = lock(&app.db);
    let p = &db.projects[visible(&db, &pid, &ctx)?];
    let states = ["available", "stopping", "stopped"];
    let state = ctx.one_of("states", &states)?;
    let items: Vec<Value> = p
        .environments
        .iter()
        .filter(|e| state.as_ref().is_none_or(|s| &e.state == s))
        .map(|e| objects::environment(&db, p, e))
        .collect();
    Ok(http::paginate(items, &ctx.query, &ctx.url))
}

async fn environment(
    State(app): State<App>,
    Path((pid, eid)): Path<(String, String)>,
    ctx: Ctx,
) -> Reply {
    let db = lock(&app.db);
    let p = &db.projects[visible(&db, &pid, &ctx)?];
    let eid = super::id(&eid)?;
    let e = p
        .environments
        .iter()
        .find(|e| e.id == eid)
        .ok_or_else(|| http::not_found("Environment"))?;
    Ok(http::ok(objects::environment(&db, p, e)))
}

async fn stop_environment(
    State(app): State<App>,
    Path((pid, eid)): Path<(String, String)>,
    ctx: Ctx,
) -> Reply {
    let mut db = lock(&app.db);
    let p = writable(&db, &pid, &ctx)?;
    let eid = super::id(&eid)?;
    let i = db.projects[p]
        .environments
        .iter()
        .position(|e| e.id == eid)
        .ok_or_else(|| http::not_found("Environment"))?;
    db.projects[p].environments[i].state = "stopped".into();
    let project = &db.projects[p];
    Ok(http::ok(objects::environment(
        &db,
        project,
        &project.environments[i],
    )))
}

/// One file of a job's artifacts, as plain text. GitLab matches the path
/// with a wildcard: its parts are separate segments (docs: "Download a
/// single artifact file by job ID").
async fn artifact_file(
    State(app): State<App>,
    Path((pid, jid, path)): Path<(String, String, String)>,
    ctx: Ctx,
) -> Reply {
    let db = lock(&app.db);
    let p = &db.projects[visible(&db, &pid, &ctx)?];
    let jid = super::id(&jid)?;
    let job = p
        .jobs
        .iter()
        .find(|j| j.id == jid)
        .ok_or_else(|| http::message(404, "404 Not found"))?;
    let content = job
        .artifacts
        .get(&path)
        .ok_or_else(|| http::message(404, "404 Not found"))?;
    Ok(http::text(content.clone()))
}

/// The whole artifacts archive, a zip (docs: "Get job artifacts"); a job
/// without artifacts is a 404.
async fn artifact_archive(
    State(app): State<App>,
    Path((pid, jid)): Path<(String, String)>,
    ctx: Ctx,
) -> Reply {
    let db = lock(&app.db);
    let p = &db.projects[visible(&db, &pid, &ctx)?];
    let jid = super::id(&jid)?;
    let job = p
        .jobs
        .iter()
        .find(|j| j.id == jid)
        .ok_or_else(|| http::message(404, "404 Not found"))?;
    if job.artifacts.is_empty() {
        return Err(http::message(404, "404 Not found"));
    }
    let files: Vec<(&str, &[u8])> = job
        .artifacts
        .iter()
        .map(|(k, v)| (k.as_str(), v.as_bytes()))
        .collect();
    let zip = crate::zip::write(&files);
    Ok(axum::response::IntoResponse::into_response((
        [(axum::http::header::CONTENT_TYPE, "application/zip")],
        zip,
    )))
}

//! CI/CD settings of a project as the API shows them: the job token scope
//! and its allowlist, resource groups, secure files, runner tokens, the
//! artifacts tree, protected environments, deployment approvals and
//! package protection rules (docs: the API page named on each handler).
//! Only what the end-to-end tests read is kept; answers have GitLab's shape.

use axum::Router;
use axum::extract::{Multipart, Path, RawQuery, State};
use axum::http::HeaderMap;
use axum::routing::{get, post};
use serde_json::{Value, json};

use super::{Ctx, Reply, visible, writable};
use crate::{App, http, lock, objects};

pub fn routes() -> Router<App> {
    let p = "/api/v4/projects/{id}";
    Router::new()
        .route(&format!("{p}/job_token_scope"), get(token_scope))
        .route(
            &format!("{p}/job_token_scope/allowlist"),
            post(allowlist_add),
        )
        .route(&format!("{p}/resource_groups/{{key}}"), get(resource_group))
        .route(&format!("{p}/secure_files"), post(secure_file_create))
        .route(
            "/api/v4/runners/{runner_id}/reset_authentication_token",
            post(runner_token_reset),
        )
        .route(
            &format!("{p}/jobs/{{job_id}}/artifacts/tree"),
            get(artifact_tree),
        )
        .route(
            &format!("{p}/protected_environments"),
            post(protect_environment),
        )
        .route(
            &format!("{p}/deployments/{{deployment_id}}/approval"),
            post(deployment_approval),
        )
        .route(
            &format!("{p}/packages/protection/rules"),
            post(package_protection_rule),
        )
}

/// Settings of a project need the Maintainer role: alice (user 1) is the
/// maintainer of the seed's projects.
fn maintainer(ctx: &Ctx) -> Result<(), axum::response::Response> {
    if ctx.auth.map(|a| a.user_id) == Some(1) {
        Ok(())
    } else {
        Err(http::forbidden())
    }
}

/// The job token scope (docs: https://docs.gitlab.com/api/project_job_token_scopes/).
async fn token_scope(State(app): State<App>, Path(pid): Path<String>, ctx: Ctx) -> Reply {
    let db = lock(&app.db);
    visible(&db, &pid, &ctx)?;
    maintainer(&ctx)?;
    Ok(http::ok(
        json!({ "inbound_enabled": true, "outbound_enabled": false }),
    ))
}

/// Add a project to the allowlist: `target_project_id` required, the
/// target must exist (docs: project_job_token_scopes, "Add a project").
async fn allowlist_add(State(app): State<App>, Path(pid): Path<String>, ctx: Ctx) -> Reply {
    let db = lock(&app.db);
    let p = writable(&db, &pid, &ctx)?;
    maintainer(&ctx)?;
    let target = ctx
        .number("target_project_id")?
        .ok_or_else(|| http::missing("target_project_id"))?;
    db.project_index(&target.to_string())
        .ok_or_else(|| http::not_found("Project"))?;
    Ok(http::created(json!({
        "source_project_id": db.projects[p].id,
        "target_project_id": target,
    })))
}

/// One resource group, by key (docs: https://docs.gitlab.com/api/resource_groups/).
async fn resource_group(
    State(app): State<App>,
    Path((pid, key)): Path<(String, String)>,
    ctx: Ctx,
) -> Reply {
    let db = lock(&app.db);
    visible(&db, &pid, &ctx)?;
    if key != "production" {
        return Err(http::not_found("Resource Group"));
    }
    Ok(http::ok(json!({
        "id": 3,
        "key": key,
        "process_mode": "oldest_first",
        "created_at": "2026-02-01T10:00:00.000Z",
        "updated_at": "2026-02-02T10:00:00.000Z",
    })))
}

/// Upload a secure file: a multipart `file`, and `name`, here from the
/// query string, which Grape merges into the params (docs:
/// https://docs.gitlab.com/api/secure_files/).
async fn secure_file_create(
    State(app): State<App>,
    Path(pid): Path<String>,
    RawQuery(query): RawQuery,
    headers: HeaderMap,
    form: Multipart,
) -> Reply {
    let ctx = multipart_ctx(&app, &headers, query)?;
    let (file_name, bytes) = file_part(form).await?;
    let db = lock(&app.db);
    writable(&db, &pid, &ctx)?;
    maintainer(&ctx)?;
    let name = ctx.require("name")?;
    Ok(http::created(json!({
        "id": 8,
        "name": name,
        "checksum": format!("{:064x}", bytes.len()),
        "checksum_algorithm": "sha256",
        "created_at": "2026-03-01T10:00:00.000Z",
        "expires_at": null,
        "metadata": null,
        "file_name": file_name,
    })))
}

/// The caller and the query of a multipart request, whose body is not JSON.
pub fn multipart_ctx(
    app: &App,
    headers: &HeaderMap,
    query: Option<String>,
) -> Result<Ctx, axum::response::Response> {
    Ok(Ctx {
        auth: crate::auth::authenticate(app, headers)?,
        query: http::parse_query(query.as_deref().unwrap_or_default()),
        body: Value::Null,
        url: String::new(),
    })
}

/// The multipart `file` field: its file name and bytes; Grape's 400 without it.
pub async fn file_part(mut form: Multipart) -> Result<(String, Vec<u8>), axum::response::Response> {
    while let Ok(Some(field)) = form.next_field().await {
        if field.name() == Some("file") {
            let name = field.file_name().unwrap_or("file").to_string();
            let bytes = field
                .bytes()
                .await
                .map_err(|_| http::message(400, "400 Bad request - file is invalid"))?;
            return Ok((name, bytes.to_vec()));
        }
    }
    Err(http::missing("file"))
}

/// A new authentication token for runner 7, alice's (docs:
/// https://docs.gitlab.com/api/runners/#reset-runners-authentication-token-by-using-the-runner-id).
async fn runner_token_reset(Path(runner_id): Path<String>, ctx: Ctx) -> Reply {
    if ctx.auth.is_none() {
        return Err(http::unauthorized());
    }
    if super::id(&runner_id)? != 7 {
        return Err(http::not_found("Runner"));
    }
    Ok(http::created(json!({
        "token": "glrt-fake-new-token",
        "token_expires_at": null,
    })))
}

/// The entries of a job's artifacts archive at `path` (docs:
/// https://docs.gitlab.com/api/job_artifacts/): files and directories.
async fn artifact_tree(
    State(app): State<App>,
    Path((pid, job_id)): Path<(String, String)>,
    ctx: Ctx,
) -> Reply {
    let db = lock(&app.db);
    let p = &db.projects[visible(&db, &pid, &ctx)?];
    let job_id = super::id(&job_id)?;
    let job = p
        .jobs
        .iter()
        .find(|j| j.id == job_id && !j.artifacts.is_empty())
        .ok_or_else(|| http::not_found("Artifacts"))?;
    let dir = ctx.param("path").unwrap_or_default();
    let prefix = if dir.is_empty() {
        String::new()
    } else {
        format!("{}/", dir.trim_end_matches('/'))
    };
    let mut items: Vec<Value> = Vec::new();
    for (path, content) in &job.artifacts {
        let Some(rest) = path.strip_prefix(&prefix) else {
            continue;
        };
        let entry = match rest.split_once('/') {
            Some((sub, _)) => {
                json!({ "name": sub, "path": format!("{prefix}{sub}/"), "type": "directory" })
            }
            None => json!({ "name": rest, "path": path, "type": "file", "size": content.len() }),
        };
        if !items.contains(&entry) {
            items.push(entry);
        }
    }
    Ok(http::paginate(items, &ctx.query, &ctx.url))
}

/// Protect an environment: `name` and `deploy_access_levels` required,
/// each entry one of access_level, user_id or group_id (docs:
/// https://docs.gitlab.com/api/protected_environments/).
async fn protect_environment(State(app): State<App>, Path(pid): Path<String>, ctx: Ctx) -> Reply {
    let db = lock(&app.db);
    writable(&db, &pid, &ctx)?;
    maintainer(&ctx)?;
    let name = ctx.require("name")?;
    let levels = ctx
        .body
        .get("deploy_access_levels")
        .and_then(Value::as_array)
        .filter(|l| !l.is_empty())
        .ok_or_else(|| http::missing("deploy_access_levels"))?;
    let mut deploy = Vec::new();
    for (n, level) in levels.iter().enumerate() {
        let keys = ["access_level", "user_id", "group_id"]
            .iter()
            .filter(|k| level.get(**k).is_some())
            .count();
        if keys != 1 {
            return Err(http::validation(
                "deploy_access_levels",
                "must have exactly one of access_level, user_id or group_id",
            ));
        }
        deploy.push(json!({
            "id": 20 + n,
            "access_level": level.get("access_level").cloned().unwrap_or(json!(40)),
            "access_level_description": "Maintainers",
            "user_id": level.get("user_id"),
            "group_id": level.get("group_id"),
            "group_inheritance_type": level.get("group_inheritance_type").cloned().unwrap_or(json!(0)),
        }));
    }
    Ok(http::created(json!({
        "name": name,
        "deploy_access_levels": deploy,
        "required_approval_count": 0,
        "approval_rules": [],
    })))
}

/// Approve or reject deployment 42: `status` is approved or rejected
/// (docs: https://docs.gitlab.com/api/deployments/#approve-or-reject-a-blocked-deployment).
async fn deployment_approval(
    State(app): State<App>,
    Path((pid, deployment_id)): Path<(String, String)>,
    ctx: Ctx,
) -> Reply {
    let db = lock(&app.db);
    writable(&db, &pid, &ctx)?;
    if super::id(&deployment_id)? != 42 {
        return Err(http::not_found("Deployment"));
    }
    let status = ctx
        .one_of("status", &["approved", "rejected"])?
        .ok_or_else(|| http::missing("status"))?;
    let user = ctx.auth.expect("writable has a user").user_id;
    Ok(http::created(json!({
        "user": objects::user(&db, user),
        "status": status,
        "created_at": "2026-03-01T10:00:00.000Z",
        "comment": ctx.param("comment"),
    })))
}

/// Create a package protection rule: pattern and type required, and one
/// of the two access levels (docs:
/// https://docs.gitlab.com/api/project_packages_protection_rules/).
async fn package_protection_rule(
    State(app): State<App>,
    Path(pid): Path<String>,
    ctx: Ctx,
) -> Reply {
    let db = lock(&app.db);
    let p = writable(&db, &pid, &ctx)?;
    maintainer(&ctx)?;
    let pattern = ctx.require("package_name_pattern")?;
    let package_type = ctx
        .one_of(
            "package_type",
            &[
                "cargo",
                "conan",
                "generic",
                "helm",
                "maven",
                "npm",
                "nuget",
                "pypi",
                "terraform_module",
            ],
        )?
        .ok_or_else(|| http::missing("package_type"))?;
    let push = ctx.one_of(
        "minimum_access_level_for_push",
        &["maintainer", "owner", "admin"],
    )?;
    let delete = ctx.one_of("minimum_access_level_for_delete", &["owner", "admin"])?;
    if push.is_none() && delete.is_none() {
        return Err(http::message(
            400,
            "minimum_access_level_for_push, minimum_access_level_for_delete are missing, at least one parameter must be provided",
        ));
    }
    Ok(http::created(json!({
        "id": 5,
        "project_id": db.projects[p].id,
        "package_name_pattern": pattern,
        "package_type": package_type,
        "minimum_access_level_for_push": push,
        "minimum_access_level_for_delete": delete,
    })))
}

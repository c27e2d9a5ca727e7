//! OAuth applications (yours and the instance's), migrations by direct
//! transfer, batched background migrations and operations, offline
//! transfer exports and group uploads (docs: the API page or GitLab source
//! file named on each handler). Answers are fixed: nothing here is stored.
//! Alice (user 1) is the administrator, as in `instance.rs`.

use axum::Router;
use axum::extract::{Multipart, Path, RawQuery, State};
use axum::http::HeaderMap;
use axum::routing::{get, post, put};
use serde_json::{Value, json};

use super::ci_settings::{file_part, multipart_ctx};
use super::groups_users::group_index;
use super::instance::admin;
use super::{Ctx, Reply, id};
use crate::{App, http, lock};

const SCOPES: [&str; 4] = ["api", "read_api", "read_user", "openid"];

pub fn routes() -> Router<App> {
    Router::new()
        .route(
            "/api/v4/user/applications",
            get(user_applications).post(user_application_create),
        )
        .route("/api/v4/applications", get(instance_applications))
        .route(
            "/api/v4/applications/{id}/renew-secret",
            post(application_renew),
        )
        .route(
            "/api/v4/bulk_imports",
            get(bulk_imports).post(bulk_import_create),
        )
        .route(
            "/api/v4/bulk_imports/{import_id}/entities",
            get(bulk_import_entities),
        )
        .route(
            "/api/v4/bulk_imports/{import_id}/entities/{entity_id}/failures",
            get(bulk_import_failures),
        )
        .route(
            "/api/v4/admin/batched_background_migrations",
            get(batched_migrations),
        )
        .route(
            "/api/v4/admin/batched_background_migrations/{id}/pause",
            put(batched_migration_pause),
        )
        .route(
            "/api/v4/admin/batched_background_operations",
            get(batched_operations),
        )
        .route(
            "/api/v4/admin/batched_background_operations/{id}/{verb}",
            put(batched_operation_set),
        )
        .route(
            "/api/v4/offline_exports",
            get(offline_exports).post(offline_export_start),
        )
        .route("/api/v4/offline_exports/{id}", get(offline_export))
        .route("/api/v4/groups/{id}/uploads", post(group_upload))
}

/// An application as GitLab shows it; `secret` only when just created or
/// renewed (docs: https://docs.gitlab.com/api/applications/).
fn application(id: u64, name: &str, secret: Option<&str>) -> Value {
    let mut app = json!({
        "id": id,
        "application_id": "5832fc6e14300a0d962240a8144466eef4ee93ef0d218477e55f11cf12fc3737",
        "application_name": name,
        "callback_url": "https://tools.example.com/oauth/callback",
        "confidential": true,
    });
    if let Some(secret) = secret {
        app["secret"] = json!(secret);
    }
    app
}

/// The scopes must be known ones, space-separated (docs: "Separate multiple
/// scopes with a space"); Doorkeeper's validation answers a 400 otherwise.
fn check_scopes(ctx: &Ctx) -> Result<(), axum::response::Response> {
    let scopes = ctx.require("scopes")?;
    if scopes.split(' ').any(|s| !SCOPES.contains(&s)) {
        return Err(http::validation(
            "scopes",
            "doesn't match configured on the server.",
        ));
    }
    Ok(())
}

/// Your own OAuth applications (docs: https://docs.gitlab.com/api/applications/).
async fn user_applications(ctx: Ctx) -> Reply {
    ctx.auth.ok_or_else(http::unauthorized)?;
    Ok(http::ok(json!([application(5, "Release bot", None)])))
}

/// Register an application you own; the answer carries the secret, once.
async fn user_application_create(ctx: Ctx) -> Reply {
    ctx.auth.ok_or_else(http::unauthorized)?;
    let name = ctx.require("name")?;
    ctx.require("redirect_uri")?;
    check_scopes(&ctx)?;
    Ok(http::created(application(6, &name, Some("gloas-3f1e9a"))))
}

/// The instance's applications, administrators only (docs:
/// https://docs.gitlab.com/api/applications/#list-all-applications).
async fn instance_applications(ctx: Ctx) -> Reply {
    admin(&ctx, false)?;
    Ok(http::ok(json!([application(1, "Instance SSO", None)])))
}

/// A new secret for an application; the old one stops working (docs:
/// https://docs.gitlab.com/api/applications/#renew-an-application-secret).
async fn application_renew(Path(app_id): Path<String>, ctx: Ctx) -> Reply {
    admin(&ctx, true)?;
    if id(&app_id)? != 1 {
        return Err(http::not_found("Application"));
    }
    Ok(http::created(application(
        1,
        "Instance SSO",
        Some("gloas-renewed-7c2d"),
    )))
}

/// A migration by direct transfer (docs: https://docs.gitlab.com/api/bulk_imports/).
fn bulk_import(id: u64, status: &str) -> Value {
    json!({
        "id": id,
        "status": status,
        "source_type": "gitlab",
        "source_url": "https://gitlab.example.com",
        "created_at": "2026-03-01T10:00:00.000Z",
        "updated_at": "2026-03-01T10:05:00.000Z",
        "has_failures": false,
    })
}

async fn bulk_imports(ctx: Ctx) -> Reply {
    ctx.auth.ok_or_else(http::unauthorized)?;
    let status = ctx.one_of(
        "status",
        &[
            "created", "started", "finished", "timeout", "failed", "canceled",
        ],
    )?;
    let items = [bulk_import(1, "finished"), bulk_import(2, "started")]
        .into_iter()
        .filter(|i| status.as_ref().is_none_or(|s| i["status"] == *s))
        .collect();
    Ok(http::paginate(items, &ctx.query, &ctx.url))
}

/// Start a migration: `configuration` (url, access_token) and `entities`
/// are required, each entity with a valid `source_type` (docs:
/// https://docs.gitlab.com/api/bulk_imports/#start-a-new-group-or-project-migration).
async fn bulk_import_create(ctx: Ctx) -> Reply {
    ctx.auth.ok_or_else(http::unauthorized)?;
    let configuration = &ctx.body["configuration"];
    for key in ["url", "access_token"] {
        if !configuration[key].is_string() {
            return Err(http::missing(&format!("configuration[{key}]")));
        }
    }
    let Some(entities) = ctx.body["entities"].as_array().filter(|e| !e.is_empty()) else {
        return Err(http::missing("entities"));
    };
    for entity in entities {
        let kind = entity["source_type"].as_str().unwrap_or_default();
        if !["group_entity", "project_entity"].contains(&kind) {
            return Err(http::invalid_value("entities[source_type]"));
        }
    }
    Ok(http::created(bulk_import(3, "created")))
}

/// The groups and projects of one migration (docs:
/// https://docs.gitlab.com/api/bulk_imports/#list-group-or-project-migration-entities).
async fn bulk_import_entities(Path(import_id): Path<String>, ctx: Ctx) -> Reply {
    ctx.auth.ok_or_else(http::unauthorized)?;
    let import_id = id(&import_id)?;
    if import_id != 1 {
        return Err(http::not_found("BulkImport"));
    }
    let items = vec![json!({
        "id": 1,
        "bulk_import_id": import_id,
        "status": "finished",
        "entity_type": "group",
        "source_full_path": "source/platform",
        "destination_full_path": "acme/platform-copy",
        "destination_name": "platform-copy",
        "destination_slug": "platform-copy",
        "destination_namespace": "acme",
        "parent_id": null,
        "namespace_id": 12,
        "project_id": null,
        "created_at": "2026-03-01T10:00:00.000Z",
        "updated_at": "2026-03-01T10:05:00.000Z",
        "failures": [],
        "migrate_projects": true,
        "migrate_memberships": true,
        "has_failures": false,
        "stats": { "labels": { "source": 10, "fetched": 10, "imported": 10 } },
    })];
    Ok(http::paginate(items, &ctx.query, &ctx.url))
}

/// What failed to import for one entity (docs:
/// https://docs.gitlab.com/api/bulk_imports/#get-list-of-failed-import-records-for-group-or-project-migration-entity).
async fn bulk_import_failures(
    Path((import_id, entity_id)): Path<(String, String)>,
    ctx: Ctx,
) -> Reply {
    ctx.auth.ok_or_else(http::unauthorized)?;
    if (id(&import_id)?, id(&entity_id)?) != (1, 1) {
        return Err(http::not_found("BulkImports::Entity"));
    }
    Ok(http::ok(json!([{
        "relation": "issues",
        "step": "extractor",
        "exception_message": "Error!",
        "exception_class": "StandardError",
        "correlation_id_value": "06289e4b064329a69de7bb2d7a1b5a97",
        "created_at": "2026-03-01T10:03:00.000Z",
        "source_url": "https://gitlab.example.com/source/platform/-/issues/1",
        "source_title": "Issue 1",
    }])))
}

/// A batched background migration of the `main` or `ci` database (docs:
/// https://docs.gitlab.com/api/database_migrations/).
fn batched_migration(id: u64, status: &str) -> Value {
    json!({
        "id": id,
        "job_class_name": "CopyColumnUsingBackgroundMigrationJob",
        "table_name": "events",
        "column_name": "id",
        "status": status,
        "progress": 50.0,
        "created_at": "2026-03-01T10:00:00.000Z",
    })
}

fn database(ctx: &Ctx) -> Result<String, axum::response::Response> {
    Ok(ctx
        .one_of("database", &["main", "ci", "sec", "embedding", "geo"])?
        .unwrap_or_else(|| "main".into()))
}

async fn batched_migrations(ctx: Ctx) -> Reply {
    admin(&ctx, false)?;
    let id = if database(&ctx)? == "ci" { 2 } else { 1 };
    Ok(http::ok(json!([batched_migration(id, "active")])))
}

/// Only an active migration can be paused (docs:
/// https://docs.gitlab.com/api/database_migrations/#pause-a-batched-background-migration).
async fn batched_migration_pause(Path(migration_id): Path<String>, ctx: Ctx) -> Reply {
    admin(&ctx, true)?;
    let migration_id = id(&migration_id)?;
    let expected = if database(&ctx)? == "ci" { 2 } else { 1 };
    if migration_id != expected {
        return Err(http::not_found("Batched background migration"));
    }
    Ok(http::ok(batched_migration(migration_id, "paused")))
}

/// A batched background operation: its `id` is the external id
/// (`<cluster>:<partition>:<id>`), the path takes the number
/// (lib/api/entities/batched_background_operation.rb).
fn batched_operation(status: &str) -> Value {
    json!({
        "id": "main:1:42",
        "partition": 1,
        "job_class_name": "UsersDeleteUnconfirmedSecondaryEmails",
        "table_name": "users",
        "column_name": "id",
        "status": status,
        "created_at": "2026-03-01T10:00:00.000Z",
        "started_at": "2026-03-01T10:05:00.000Z",
        "finished_at": null,
        "on_hold_until": null,
    })
}

/// lib/api/admin/batched_background_operations.rb: administrators only.
async fn batched_operations(ctx: Ctx) -> Reply {
    admin(&ctx, false)?;
    database(&ctx)?;
    Ok(http::ok(json!([batched_operation("active")])))
}

/// Operation 42 is active: it can be stopped, not restarted (the 422 texts
/// are GitLab's own).
async fn batched_operation_set(Path((operation, verb)): Path<(String, String)>, ctx: Ctx) -> Reply {
    admin(&ctx, true)?;
    database(&ctx)?;
    if id(&operation)? != 42 {
        return Err(http::not_found("Batched background operation"));
    }
    match verb.as_str() {
        "stop" => Ok(http::ok(batched_operation("stopped"))),
        "restart" => Err(http::message(
            422,
            "You can restart only `stopped` operations.",
        )),
        _ => Err(http::no_route()),
    }
}

/// An offline transfer export (lib/api/entities/import/offline/export.rb).
fn offline_export_json(id: u64, status: &str) -> Value {
    json!({
        "id": id,
        "status": status,
        "source_hostname": "https://gitlab.example.com/",
        "created_at": "2026-03-03T08:00:00.000Z",
        "updated_at": "2026-03-03T08:10:00.000Z",
        "has_failures": false,
        "bucket": "exports",
        "export_prefix": "2026-03-03_08-00-00_export_ab12cd34",
    })
}

/// The caller's own exports (docs: https://docs.gitlab.com/api/offline_transfers/).
async fn offline_exports(ctx: Ctx) -> Reply {
    ctx.auth.ok_or_else(http::unauthorized)?;
    ctx.one_of("status", &["created", "started", "finished", "failed"])?;
    Ok(http::paginate(
        vec![offline_export_json(1, "finished")],
        &ctx.query,
        &ctx.url,
    ))
}

async fn offline_export(Path(export): Path<String>, ctx: Ctx) -> Reply {
    ctx.auth.ok_or_else(http::unauthorized)?;
    match id(&export)? {
        1 => Ok(http::ok(offline_export_json(1, "finished"))),
        _ => Err(http::not_found("Not found")),
    }
}

/// Starting one needs `bucket`, `entities` and exactly one storage
/// configuration (Grape's `exactly_one_of` in lib/api/offline_transfers.rb).
async fn offline_export_start(ctx: Ctx) -> Reply {
    ctx.auth.ok_or_else(http::unauthorized)?;
    ctx.require("bucket")?;
    if ctx.body["entities"].as_array().is_none() {
        return Err(http::missing("entities"));
    }
    let storages = [
        "aws_s3_configuration",
        "s3_compatible_configuration",
        "gcs_configuration",
        "gcs_hmac_configuration",
        "gcs_adc_configuration",
    ];
    let given = storages
        .iter()
        .filter(|k| ctx.body.get(**k).is_some())
        .count();
    if given != 1 {
        let error = format!(
            "{} are missing, exactly one parameter must be provided",
            storages.join(", ")
        );
        return Err(http::json_response(
            axum::http::StatusCode::BAD_REQUEST,
            json!({ "error": error }),
        ));
    }
    Ok(http::created(offline_export_json(2, "created")))
}

/// Upload a file to a group: a multipart `file` (docs:
/// https://docs.gitlab.com/api/group_markdown_uploads/); answers the
/// Markdown to embed it.
async fn group_upload(
    State(app): State<App>,
    Path(gid): Path<String>,
    RawQuery(query): RawQuery,
    headers: HeaderMap,
    form: Multipart,
) -> Reply {
    let ctx = multipart_ctx(&app, &headers, query)?;
    let (name, _) = file_part(form).await?;
    let db = lock(&app.db);
    let group = &db.groups[group_index(&db, &gid, &ctx)?];
    let url = format!("/uploads/0123456789abcdef0123456789abcdef/{name}");
    Ok(http::created(json!({
        "id": 41,
        "alt": name,
        "url": url,
        "full_path": format!("/-/group/{}{url}", group.id),
        "markdown": format!("[{name}]({url})"),
    })))
}

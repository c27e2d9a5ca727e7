//! User administration and your account's extras: memberships, association
//! counts, custom attributes, activity, impersonation tokens, blocking,
//! token associations, preferences and counts (docs:
//! https://docs.gitlab.com/api/users/, https://docs.gitlab.com/api/custom_attributes/,
//! https://docs.gitlab.com/api/personal_access_tokens/). Nothing is stored;
//! alice (user 1) is the administrator, as in `instance.rs`.

use axum::Router;
use axum::extract::{Path, State};
use axum::routing::{get, post, put};
use serde_json::json;

use super::instance::admin;
use super::{Ctx, Reply};
use crate::auth::insufficient_scope;
use crate::{App, http, lock, objects};

pub fn routes() -> Router<App> {
    Router::new()
        .route("/api/v4/users/{user_id}/memberships", get(memberships))
        .route(
            "/api/v4/users/{user_id}/associations_count",
            get(associations_count),
        )
        .route(
            "/api/v4/users/{user_id}/custom_attributes",
            get(custom_attributes),
        )
        .route(
            "/api/v4/users/{user_id}/custom_attributes/{key}",
            put(custom_attribute_set),
        )
        .route(
            "/api/v4/users/{user_id}/impersonation_tokens",
            post(impersonation_create),
        )
        .route("/api/v4/users/{user_id}/block", post(block))
        .route("/api/v4/user/activities", get(activities))
        .route(
            "/api/v4/personal_access_tokens/self/associations",
            get(token_associations),
        )
        .route(
            "/api/v4/user/preferences",
            get(preferences).put(preferences_update),
        )
        .route("/api/v4/user_counts", get(user_counts))
}

/// A seeded user's id from the path, or GitLab's `404 User Not Found`.
fn user_id(app: &App, id: &str) -> Result<u64, axum::response::Response> {
    let id = super::id(id)?;
    lock(&app.db)
        .user(id)
        .map(|u| u.id)
        .ok_or_else(|| http::not_found("User"))
}

/// Direct memberships, `type` filtering `Project` or `Namespace`.
async fn memberships(State(app): State<App>, Path(id): Path<String>, ctx: Ctx) -> Reply {
    admin(&ctx, false)?;
    user_id(&app, &id)?;
    let kind = ctx.one_of("type", &["Project", "Namespace"])?;
    let items = [
        json!({"source_id": 1, "source_name": "api", "source_type": "Project", "access_level": 40}),
        json!({"source_id": 10, "source_name": "platform", "source_type": "Namespace", "access_level": 30}),
    ]
    .into_iter()
    .filter(|m| kind.as_ref().is_none_or(|k| m["source_type"] == k.as_str()))
    .collect();
    Ok(http::paginate(items, &ctx.query, &ctx.url))
}

async fn associations_count(State(app): State<App>, Path(id): Path<String>, ctx: Ctx) -> Reply {
    admin(&ctx, false)?;
    user_id(&app, &id)?;
    Ok(http::ok(
        json!({"groups_count": 2, "projects_count": 3, "issues_count": 12, "merge_requests_count": 0}),
    ))
}

/// Custom attributes (docs: https://docs.gitlab.com/api/custom_attributes/): key and value.
async fn custom_attributes(State(app): State<App>, Path(id): Path<String>, ctx: Ctx) -> Reply {
    admin(&ctx, false)?;
    user_id(&app, &id)?;
    Ok(http::ok(
        json!([{"key": "team", "value": "infra"}, {"key": "location", "value": "Lyon"}]),
    ))
}

/// Setting one: `value` required, the attribute answered.
async fn custom_attribute_set(
    State(app): State<App>,
    Path((id, key)): Path<(String, String)>,
    ctx: Ctx,
) -> Reply {
    admin(&ctx, true)?;
    user_id(&app, &id)?;
    let value = ctx.require("value")?;
    Ok(http::ok(json!({"key": key, "value": value})))
}

/// A new impersonation token: the secret `token` is in this answer only
/// (docs: https://docs.gitlab.com/api/user_tokens/#create-an-impersonation-token).
async fn impersonation_create(State(app): State<App>, Path(id): Path<String>, ctx: Ctx) -> Reply {
    admin(&ctx, true)?;
    let user = user_id(&app, &id)?;
    let name = ctx.require("name")?;
    let scopes = ctx.list("scopes").unwrap_or_default();
    Ok(http::created(json!({
        "id": 42, "name": name, "revoked": false, "created_at": "2026-03-01T08:00:00.000Z",
        "description": ctx.param("description"), "scopes": scopes, "user_id": user, "active": true,
        "expires_at": ctx.param("expires_at"), "impersonation": true, "token": "glpat-impersonation-secret",
    })))
}

/// Blocking answers `201` with `true` (docs: https://docs.gitlab.com/api/user_moderation/#block-access-to-a-user).
async fn block(State(app): State<App>, Path(id): Path<String>, ctx: Ctx) -> Reply {
    admin(&ctx, true)?;
    user_id(&app, &id)?;
    Ok(http::created(json!(true)))
}

/// Last activity of each user (docs: https://docs.gitlab.com/api/users/#list-a-users-activity), `from` a date.
async fn activities(State(app): State<App>, ctx: Ctx) -> Reply {
    admin(&ctx, false)?;
    let db = lock(&app.db);
    let items = db
        .users
        .iter()
        .map(|u| json!({"username": u.username, "last_activity_on": "2026-02-28", "last_activity_at": "2026-02-28"}))
        .collect();
    Ok(http::paginate(items, &ctx.query, &ctx.url))
}

/// The groups and projects the token in use reaches (docs:
/// https://docs.gitlab.com/api/personal_access_tokens/#list-all-token-associations).
async fn token_associations(State(app): State<App>, ctx: Ctx) -> Reply {
    ctx.auth.ok_or_else(http::unauthorized)?;
    let db = lock(&app.db);
    let group = db.groups.first().map(|g| objects::group(&db, g));
    Ok(http::ok(json!({
        "groups": group.into_iter().collect::<Vec<_>>(),
        "projects": [{"id": 1, "name": "api", "path_with_namespace": "acme/platform/api", "access_levels": {"project_access_level": 40, "group_access_level": 30}}],
    })))
}

/// Preferences (docs: https://docs.gitlab.com/api/users/#get-your-user-preferences).
fn preferences_json(user: u64) -> serde_json::Value {
    json!({"id": 1, "user_id": user, "view_diffs_file_by_file": false, "show_whitespace_in_diffs": true, "pass_user_identities_to_ci_jwt": false})
}

async fn preferences(ctx: Ctx) -> Reply {
    let auth = ctx.auth.ok_or_else(http::unauthorized)?;
    Ok(http::ok(preferences_json(auth.user_id)))
}

/// At least one preference must be given (Grape's `at_least_one_of`).
async fn preferences_update(ctx: Ctx) -> Reply {
    let auth = ctx.auth.ok_or_else(http::unauthorized)?;
    if !auth.can_write {
        return Err(insufficient_scope());
    }
    let names = [
        "view_diffs_file_by_file",
        "show_whitespace_in_diffs",
        "pass_user_identities_to_ci_jwt",
        "policy_advanced_editor",
    ];
    let mut out = preferences_json(auth.user_id);
    let mut any = false;
    for name in names {
        if let Some(v) = ctx.flag(name) {
            out[name] = json!(v);
            any = true;
        }
    }
    if !any {
        return Err(http::message(
            400,
            &format!(
                "400 Bad request - {} are missing, at least one parameter must be provided",
                names.join(", ")
            ),
        ));
    }
    Ok(http::ok(out))
}

/// Your counts (docs: https://docs.gitlab.com/api/users/#get-user-counts).
async fn user_counts(ctx: Ctx) -> Reply {
    ctx.auth.ok_or_else(http::unauthorized)?;
    Ok(http::ok(json!({
        "merge_requests": 4, "assigned_issues": 15, "assigned_merge_requests": 11,
        "review_requested_merge_requests": 0, "todos": 1,
    })))
}

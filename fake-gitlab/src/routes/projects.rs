//! Projects (docs: https://docs.gitlab.com/api/projects/) plus `/user` and `/version`.

use axum::Router;
use axum::extract::{Path, State};
use axum::http::HeaderMap;
use axum::routing::get;
use serde_json::{Value, json};

use super::{Ctx, Reply, visible};
use crate::{App, http, lock, objects};

pub fn routes() -> Router<App> {
    Router::new()
        .route("/api/v4/projects", get(list))
        .route("/api/v4/projects/{id}", get(show))
        .route("/api/v4/user", get(current_user))
        .route("/api/v4/version", get(version))
        .route("/api/v4/personal_access_tokens/self", get(token_self))
        .route("/api/v4/projects/{id}/members", get(members))
        .route("/api/v4/projects/{id}/members/all", get(members))
        .route("/api/v4/projects/{id}/members/all/{user_id}", get(member))
}

/// `GET /projects`: what the caller can see, filtered; offset pagination,
/// or keyset with `pagination=keyset&order_by=id` (docs: https://docs.gitlab.com/api/rest/#keyset-based-pagination: projects support it with `order_by=id` only,
/// and the next page is given by `id_after` in the `Link` header).
async fn list(State(app): State<App>, ctx: Ctx) -> Reply {
    let db = lock(&app.db);
    ctx.one_of("visibility", &["public", "internal", "private"])?;
    ctx.one_of("sort", &["asc", "desc"])?;
    let search = ctx.param("search").map(|s| s.to_lowercase());
    let membership = ctx.flag("membership").unwrap_or(false);
    let visibility = ctx.param("visibility");
    let mut projects: Vec<&crate::db::Project> = db
        .projects
        .iter()
        .filter(|p| {
            let member = ctx.auth.is_some_and(|a| p.members.contains(&a.user_id));
            member || (p.visibility == "public" && !membership)
        })
        .filter(|p| {
            search.as_ref().is_none_or(|s| {
                p.path_with_namespace.to_lowercase().contains(s)
                    || p.description.to_lowercase().contains(s)
            })
        })
        .filter(|p| visibility.as_ref().is_none_or(|v| p.visibility == v))
        .collect();
    let ascending = ctx.param("sort").as_deref() == Some("asc");
    projects.sort_by_key(|p| p.id);
    if !ascending {
        projects.reverse();
    }
    let simple = ctx.flag("simple").unwrap_or(false);
    let render = |p: &crate::db::Project| {
        if simple {
            json!({
                "id": p.id, "description": p.description, "name": p.name,
                "name_with_namespace": p.path_with_namespace, "path": p.path,
                "path_with_namespace": p.path_with_namespace, "created_at": p.created_at,
                "default_branch": p.default_branch,
                "web_url": format!("{}/{}", db.host, p.path_with_namespace),
                "avatar_url": null, "star_count": p.star_count, "last_activity_at": p.last_activity_at,
            })
        } else {
            objects::project(&db, p, false)
        }
    };

    if ctx.param("pagination").as_deref() == Some("keyset") {
        if ctx.param("order_by").as_deref().is_some_and(|o| o != "id") {
            return Err(http::message(405, "405 Method Not Allowed"));
        }
        let per_page = ctx.number("per_page")?.unwrap_or(20).clamp(1, 100) as usize;
        let after = ctx.number("id_after")?;
        let before = ctx.number("id_before")?;
        let page: Vec<&crate::db::Project> = projects
            .into_iter()
            .filter(|p| after.is_none_or(|a| p.id > a) && before.is_none_or(|b| p.id < b))
            .collect();
        let has_more = page.len() > per_page;
        let items: Vec<Value> = page.iter().take(per_page).map(|p| render(p)).collect();
        let next = has_more.then(|| {
            let last = page[per_page - 1].id;
            let cursor = if ascending { "id_after" } else { "id_before" };
            format!(
                "pagination=keyset&per_page={per_page}&order_by=id&sort={}&{cursor}={last}",
                if ascending { "asc" } else { "desc" }
            )
        });
        return Ok(http::keyset(items, per_page, next, &ctx.url));
    }
    let items = projects.iter().map(|p| render(p)).collect();
    Ok(http::paginate(items, &ctx.query, &ctx.url))
}

async fn show(State(app): State<App>, Path(id): Path<String>, ctx: Ctx) -> Reply {
    let db = lock(&app.db);
    let index = visible(&db, &id, &ctx)?;
    Ok(http::ok(objects::project(&db, &db.projects[index], true)))
}

/// `GET /user`: 401 when anonymous (docs: https://docs.gitlab.com/api/users/).
async fn current_user(State(app): State<App>, ctx: Ctx) -> Reply {
    let db = lock(&app.db);
    let auth = ctx.auth.ok_or_else(http::unauthorized)?;
    Ok(http::ok(objects::user(&db, auth.user_id)))
}

/// The token's own details (docs:
/// https://docs.gitlab.com/api/personal_access_tokens/#get-single-personal-access-token);
/// 401 without a token; 400 for a token of another type, as
/// lib/api/personal_access_tokens/self_information.rb answers.
async fn token_self(State(app): State<App>, headers: HeaderMap) -> Reply {
    let info = crate::auth::token_info(&app, &headers).ok_or_else(http::unauthorized)?;
    if info.kind != crate::auth::TokenKind::Personal {
        return Err(http::message(
            400,
            "400 Bad request - This endpoint requires token type to be a personal access token",
        ));
    }
    Ok(http::ok(json!({
        "id": 40 + info.user_id,
        "name": "gitlab-mcp",
        "revoked": false,
        "created_at": "2026-01-05T09:00:00.000Z",
        "description": "",
        "scopes": info.scopes,
        "user_id": info.user_id,
        "last_used_at": "2026-03-02T09:00:00.000Z",
        "active": true,
        "expires_at": "2026-12-31",
    })))
}

/// Project members with their access level (docs:
/// https://docs.gitlab.com/api/members/): the first member is the
/// maintainer, the others developers.
async fn members(State(app): State<App>, Path(id): Path<String>, ctx: Ctx) -> Reply {
    let db = lock(&app.db);
    let p = &db.projects[visible(&db, &id, &ctx)?];
    let items = p
        .members
        .iter()
        .enumerate()
        .map(|(n, u)| {
            let mut v = objects::user(&db, *u);
            v["access_level"] = json!(if n == 0 { 40 } else { 30 });
            v["created_at"] = json!(p.created_at);
            v["expires_at"] = Value::Null;
            v["membership_state"] = json!("active");
            v
        })
        .collect();
    Ok(http::paginate(items, &ctx.query, &ctx.url))
}

/// `GET /projects/:id/members/all/:user_id`: one member with inherited and
/// invited memberships counted; 404 `Not found` when the user is not a
/// member (docs: api/members, "Get a member of a group or project,
/// including inherited and invited members").
async fn member(
    State(app): State<App>,
    Path((id, user_id)): Path<(String, String)>,
    ctx: Ctx,
) -> Reply {
    let db = lock(&app.db);
    let p = &db.projects[visible(&db, &id, &ctx)?];
    let user: u64 = user_id
        .parse()
        .map_err(|_| http::message(404, "404 Not found"))?;
    let Some(n) = p.members.iter().position(|m| *m == user) else {
        return Err(http::message(404, "404 Not found"));
    };
    let mut v = objects::user(&db, user);
    // The first member is the maintainer, the others developers, as `members` lists them.
    v["access_level"] = json!(if n == 0 { 40 } else { 30 });
    v["membership_state"] = json!("active");
    Ok(http::ok(v))
}

async fn version() -> Reply {
    Ok(http::ok(
        json!({"version": "18.6.0", "revision": "a1b2c3d4e5f", "kas": {"enabled": false}, "enterprise": false}),
    ))
}

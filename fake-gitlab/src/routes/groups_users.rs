//! Groups (docs: https://docs.gitlab.com/api/groups/) and users (docs: https://docs.gitlab.com/api/users/).

use axum::Router;
use axum::extract::{Path, State};
use axum::routing::get;
use serde_json::Value;

use super::{Ctx, Reply};
use crate::{App, http, lock, objects};

pub fn routes() -> Router<App> {
    Router::new()
        .route("/api/v4/groups", get(list))
        .route("/api/v4/groups/{id}", get(show))
        .route("/api/v4/groups/{id}/projects", get(projects))
        .route("/api/v4/groups/{id}/subgroups", get(subgroups))
        .route("/api/v4/users", get(users))
        .route("/api/v4/users/{user_id}", get(user))
}

/// Groups are private here: anonymous callers see none and get a 404 for
/// one (docs: a private group is invisible to non-members).
pub(super) fn group_index(
    db: &crate::db::Db,
    id: &str,
    ctx: &Ctx,
) -> Result<usize, axum::response::Response> {
    let not_found = || http::not_found("Group");
    ctx.auth.ok_or_else(not_found)?;
    match id.parse::<u64>() {
        Ok(n) => db.groups.iter().position(|g| g.id == n),
        Err(_) => db
            .groups
            .iter()
            .position(|g| g.full_path.eq_ignore_ascii_case(id)),
    }
    .ok_or_else(not_found)
}

async fn list(State(app): State<App>, ctx: Ctx) -> Reply {
    let db = lock(&app.db);
    let search = ctx.param("search").map(|s| s.to_lowercase());
    let items: Vec<Value> = if ctx.auth.is_some() {
        db.groups
            .iter()
            .filter(|g| {
                search
                    .as_ref()
                    .is_none_or(|s| g.full_path.contains(s.as_str()))
            })
            .map(|g| objects::group(&db, g))
            .collect()
    } else {
        Vec::new()
    };
    Ok(http::paginate(items, &ctx.query, &ctx.url))
}

async fn show(State(app): State<App>, Path(id): Path<String>, ctx: Ctx) -> Reply {
    let db = lock(&app.db);
    let g = group_index(&db, &id, &ctx)?;
    Ok(http::ok(objects::group(&db, &db.groups[g])))
}

async fn projects(State(app): State<App>, Path(id): Path<String>, ctx: Ctx) -> Reply {
    let db = lock(&app.db);
    let g = &db.groups[group_index(&db, &id, &ctx)?];
    let include_subgroups = ctx.flag("include_subgroups").unwrap_or(false);
    let items = db
        .projects
        .iter()
        .filter(|p| {
            p.group_id == g.id
                || (include_subgroups
                    && db
                        .group(p.group_id)
                        .is_some_and(|pg| pg.full_path.starts_with(&format!("{}/", g.full_path))))
        })
        .filter(|p| {
            p.visibility == "public" || ctx.auth.is_some_and(|a| p.members.contains(&a.user_id))
        })
        .map(|p| objects::project(&db, p, false))
        .collect();
    Ok(http::paginate(items, &ctx.query, &ctx.url))
}

async fn subgroups(State(app): State<App>, Path(id): Path<String>, ctx: Ctx) -> Reply {
    let db = lock(&app.db);
    let g = &db.groups[group_index(&db, &id, &ctx)?];
    let items = db
        .groups
        .iter()
        .filter(|s| s.parent_id == Some(g.id))
        .map(|s| objects::group(&db, s))
        .collect();
    Ok(http::paginate(items, &ctx.query, &ctx.url))
}

async fn users(State(app): State<App>, ctx: Ctx) -> Reply {
    let db = lock(&app.db);
    let username = ctx.param("username");
    let search = ctx.param("search").map(|s| s.to_lowercase());
    let items = db
        .users
        .iter()
        .filter(|u| username.as_ref().is_none_or(|n| &u.username == n))
        .filter(|u| {
            search.as_ref().is_none_or(|s| {
                u.username.contains(s.as_str()) || u.name.to_lowercase().contains(s.as_str())
            })
        })
        .map(|u| objects::user(&db, u.id))
        .collect();
    Ok(http::paginate(items, &ctx.query, &ctx.url))
}

async fn user(State(app): State<App>, Path(id): Path<String>, _ctx: Ctx) -> Reply {
    let db = lock(&app.db);
    let id = super::id(&id)?;
    db.user(id).ok_or_else(|| http::not_found("User"))?;
    Ok(http::ok(objects::user_full(&db, id)))
}

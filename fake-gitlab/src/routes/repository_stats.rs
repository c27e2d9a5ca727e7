//! What the repository API computes between two refs, and about the
//! repository itself: changed paths, diff statistics, diverging commit
//! counts, health (docs: https://docs.gitlab.com/api/repositories/).

use std::collections::BTreeSet;

use axum::Router;
use axum::extract::{Path, State};
use axum::routing::get;
use serde_json::{Value, json};

use super::repository::{ancestors, resolve};
use super::{Ctx, Reply, visible};
use crate::db::{FileDiff, Project};
use crate::{App, http, lock};

pub fn routes() -> Router<App> {
    let r = "/api/v4/projects/{id}/repository";
    Router::new()
        .route(&format!("{r}/changed_paths"), get(changed_paths))
        .route(&format!("{r}/diff_stats"), get(diff_stats))
        .route(&format!("{r}/diverging_commits"), get(diverging_commits))
        .route(&format!("{r}/health"), get(health))
}

/// The commits reachable from `to` and not from `from`: `from` and `to`
/// are required and must resolve, as GitLab's `requires` and 404 say.
fn range(
    p: &Project,
    ctx: &Ctx,
) -> Result<(BTreeSet<String>, BTreeSet<String>), axum::response::Response> {
    let from = ctx.require("from")?;
    let to = ctx.require("to")?;
    let a = resolve(p, &from).ok_or_else(|| http::not_found("Ref"))?;
    let b = resolve(p, &to).ok_or_else(|| http::not_found("Ref"))?;
    Ok((ancestors(p, &a.id), ancestors(p, &b.id)))
}

/// The file diffs of the commits in `to` but not in `from`, oldest first.
fn diffs<'a>(p: &'a Project, ctx: &Ctx) -> Result<Vec<&'a FileDiff>, axum::response::Response> {
    let (from, to) = range(p, ctx)?;
    Ok(p.commits
        .iter()
        .rev()
        .filter(|c| to.contains(&c.id) && !from.contains(&c.id))
        .flat_map(|c| c.diffs.iter())
        .collect())
}

/// Each changed path once, with its status (docs: "List files changed
/// between two commits").
async fn changed_paths(State(app): State<App>, Path(pid): Path<String>, ctx: Ctx) -> Reply {
    let db = lock(&app.db);
    let p = &db.projects[visible(&db, &pid, &ctx)?];
    let mut seen = BTreeSet::new();
    let mut items: Vec<Value> = Vec::new();
    for (old, new, _, added, deleted) in diffs(p, &ctx)? {
        if !seen.insert(new.clone()) {
            continue;
        }
        let status = match (added, deleted) {
            (true, _) => "ADDED",
            (_, true) => "DELETED",
            _ if old != new => "RENAMED",
            _ => "MODIFIED",
        };
        items.push(json!({
            "path": new,
            "old_path": old,
            "status": status,
            "old_mode": if *added { "0" } else { "100644" },
            "new_mode": if *deleted { "0" } else { "100644" },
        }));
    }
    Ok(http::paginate(items, &ctx.query, &ctx.url))
}

/// Added and deleted lines per file (docs: "Get diff statistics between
/// two commits").
async fn diff_stats(State(app): State<App>, Path(pid): Path<String>, ctx: Ctx) -> Reply {
    let db = lock(&app.db);
    let p = &db.projects[visible(&db, &pid, &ctx)?];
    let items = diffs(p, &ctx)?
        .into_iter()
        .map(|(old, new, text, _, _)| {
            let count = |sign: char| {
                text.lines()
                    .filter(|l| l.starts_with(sign) && !l.starts_with("+++") && !l.starts_with("---"))
                    .count()
            };
            json!({ "path": new, "old_path": old, "additions": count('+'), "deletions": count('-') })
        })
        .collect();
    Ok(http::paginate(items, &ctx.query, &ctx.url))
}

/// How many commits each side has that the other lacks (docs: "Retrieve
/// diverging commit counts between two refs").
async fn diverging_commits(State(app): State<App>, Path(pid): Path<String>, ctx: Ctx) -> Reply {
    let db = lock(&app.db);
    let p = &db.projects[visible(&db, &pid, &ctx)?];
    let (from, to) = range(p, &ctx)?;
    Ok(http::ok(json!({
        "ahead": to.difference(&from).count(),
        "behind": from.difference(&to).count(),
    })))
}

/// The last health report, for members with push access (docs: "Retrieve
/// repository health statistics").
async fn health(State(app): State<App>, Path(pid): Path<String>, ctx: Ctx) -> Reply {
    let db = lock(&app.db);
    let p = &db.projects[visible(&db, &pid, &ctx)?];
    if !ctx.auth.is_some_and(|a| p.members.contains(&a.user_id)) {
        return Err(http::forbidden());
    }
    Ok(http::ok(json!({
        "size": 40960,
        "references": { "loose_count": 2, "packed_size": 1024, "reference_backend": "files" },
        "objects": { "size": 36864, "recent_size": 4096, "stale_size": 0, "keep_size": 0 },
        "commit_graph": { "has_bloom_filters": true },
        "updated_at": if ctx.flag("generate") == Some(true) { "2026-03-02T10:00:00.000Z" } else { "2026-03-01T10:00:00.000Z" },
    })))
}

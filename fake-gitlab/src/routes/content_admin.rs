//! Snippet administration and wiki attachments: a snippet's user agent
//! details, repository storage moves of a snippet, and file uploads to a
//! project wiki (docs: the API page named on each handler). The seed has
//! no administrator: alice (user 1) stands in for one here.

use axum::Router;
use axum::extract::{Multipart, Path, RawQuery, State};
use axum::http::HeaderMap;
use axum::routing::{get, post};
use serde_json::json;

use super::ci_settings::{file_part, multipart_ctx};
use super::{Ctx, Reply, id, visible, writable};
use crate::{App, http, lock};

pub fn routes() -> Router<App> {
    Router::new()
        .route(
            "/api/v4/projects/{id}/snippets/{snippet_id}/user_agent_detail",
            get(user_agent_detail),
        )
        .route(
            "/api/v4/snippets/{snippet_id}/repository_storage_moves",
            post(storage_move),
        )
        .route(
            "/api/v4/projects/{id}/wikis/attachments",
            post(wiki_attachment),
        )
}

fn administrator(ctx: &Ctx) -> Result<(), axum::response::Response> {
    match ctx.auth {
        None => Err(http::unauthorized()),
        Some(a) if a.user_id == 1 => Ok(()),
        Some(_) => Err(http::forbidden()),
    }
}

/// Where a project snippet was created from, for spam checks; administrators
/// only (docs: https://docs.gitlab.com/api/project_snippets/#get-user-agent-details).
async fn user_agent_detail(
    State(app): State<App>,
    Path((pid, snippet_id)): Path<(String, String)>,
    ctx: Ctx,
) -> Reply {
    let db = lock(&app.db);
    let p = &db.projects[visible(&db, &pid, &ctx)?];
    administrator(&ctx)?;
    let sid = id(&snippet_id)?;
    if !p.snippets.iter().any(|s| s.id == sid) {
        return Err(http::not_found("Snippet"));
    }
    Ok(http::ok(json!({
        "user_agent": "Mozilla/5.0 (X11; Linux x86_64)",
        "ip_address": "192.0.2.10",
        "akismet_submitted": false,
    })))
}

/// Schedule a move of a snippet's repository; the answer is the scheduled
/// move (docs: https://docs.gitlab.com/api/snippet_repository_storage_moves/).
async fn storage_move(State(app): State<App>, Path(snippet_id): Path<String>, ctx: Ctx) -> Reply {
    let db = lock(&app.db);
    administrator(&ctx)?;
    let sid = id(&snippet_id)?;
    let snippet = db
        .projects
        .iter()
        .flat_map(|p| p.snippets.iter())
        .find(|s| s.id == sid)
        .ok_or_else(|| http::not_found("Snippet"))?;
    let destination = ctx
        .param("destination_storage_name")
        .unwrap_or_else(|| "storage2".into());
    if destination == "default" {
        return Err(http::message(
            400,
            "400 Bad request - the repository is already on this storage",
        ));
    }
    Ok(http::created(json!({
        "id": 1,
        "created_at": "2026-03-01T10:00:00.000Z",
        "state": "scheduled",
        "source_storage_name": "default",
        "destination_storage_name": destination,
        "snippet": { "id": snippet.id, "title": snippet.title, "file_name": snippet.file_name },
    })))
}

/// Upload a file to a project wiki: a multipart `file`, and `branch`, here
/// from the query string (docs: https://docs.gitlab.com/api/wikis/#upload-an-attachment-to-the-wiki-repository).
async fn wiki_attachment(
    State(app): State<App>,
    Path(pid): Path<String>,
    RawQuery(query): RawQuery,
    headers: HeaderMap,
    form: Multipart,
) -> Reply {
    let ctx = multipart_ctx(&app, &headers, query)?;
    let (file_name, _) = file_part(form).await?;
    let db = lock(&app.db);
    let p = writable(&db, &pid, &ctx)?;
    let branch = ctx
        .param("branch")
        .unwrap_or_else(|| db.projects[p].default_branch.clone());
    let path = format!("uploads/0123456789abcdef0123456789abcdef/{file_name}");
    let alt = file_name
        .rsplit_once('.')
        .map_or(file_name.as_str(), |(b, _)| b);
    Ok(http::created(json!({
        "file_name": file_name,
        "file_path": path,
        "branch": branch,
        "link": { "url": path, "markdown": format!("![{alt}]({path})") },
    })))
}

//! Draft notes: a merge request's pending review comments, seen only by
//! their author until published (docs: https://docs.gitlab.com/api/draft_notes/;
//! the routes and their checks follow GitLab's lib/api/draft_notes.rb).
//!
//! - Every route needs a signed-in user (`authenticate!`) and sees only
//!   that user's drafts (`draft_notes.authored_by(current_user)`): another
//!   user's draft is a `404 Draft Note Not Found`.
//! - Creating one checks `position` only as Grape does
//!   (`discussions::grape_position`): `DraftNote` has no validation of the
//!   line, which is checked when the draft is published.
//! - Publishing (`DraftNotes::PublishService`) turns each draft into a
//!   note through `Notes::CreateService`, which returns an invalid note
//!   unsaved without raising, then deletes every draft: a draft whose
//!   position is not a line of the diff is lost, silently. Bulk publish
//!   takes the user's drafts in the order they were written, then posts
//!   the optional summary `note` as a note of its own, after them.

use axum::Router;
use axum::extract::{Path, State};
use axum::response::Response;
use axum::routing::{get, post, put};
use serde_json::{Value, json};

use super::discussions::{Kind, check_position, grape_position, thread_note};
use super::{Ctx, Reply, id, plain_note, visible, writable};
use crate::db::{Db, DraftNote};
use crate::{App, http, lock};

pub fn routes() -> Router<App> {
    let base = "/api/v4/projects/{id}/merge_requests/{iid}/draft_notes";
    Router::new()
        .route(base, get(list).post(create))
        .route(&format!("{base}/bulk_publish"), post(bulk_publish))
        .route(
            &format!("{base}/{{draft_note_id}}"),
            get(show).put(update).delete(delete),
        )
        .route(
            &format!("{base}/{{draft_note_id}}/publish"),
            put(publish_one),
        )
}

/// The project and merge request indexes, and the signed-in user.
fn find(
    db: &Db,
    pid: &str,
    iid: &str,
    ctx: &Ctx,
    write: bool,
) -> Result<(usize, usize, u64), Response> {
    let user = ctx.auth.ok_or_else(http::unauthorized)?.user_id;
    let p = if write {
        writable(db, pid, ctx)?
    } else {
        visible(db, pid, ctx)?
    };
    let iid = id(iid)?;
    let m = db.projects[p]
        .merge_requests
        .iter()
        .position(|m| m.iid == iid)
        .ok_or_else(|| http::not_found("Merge Request"))?;
    Ok((p, m, user))
}

/// The index of the caller's draft `draft`, or GitLab's 404.
fn draft_index(db: &Db, p: usize, m: usize, user: u64, draft: &str) -> Result<usize, Response> {
    let draft = id(draft)?;
    db.projects[p].merge_requests[m]
        .draft_notes
        .iter()
        .position(|d| d.id == draft && d.author_id == user)
        .ok_or_else(|| http::not_found("Draft Note"))
}

/// `Entities::DraftNote`; `position` is `position.to_h`: every key, `null`
/// where unset (a general draft has no SHAs, paths or lines).
fn render(db: &Db, p: usize, m: usize, d: &DraftNote) -> Value {
    let position = d.position.clone().unwrap_or_else(|| {
        json!({
            "base_sha": null, "start_sha": null, "head_sha": null,
            "old_path": null, "new_path": null, "position_type": "text",
            "old_line": null, "new_line": null, "line_range": null,
        })
    });
    json!({
        "id": d.id,
        "author_id": d.author_id,
        "merge_request_id": db.projects[p].merge_requests[m].id,
        "resolve_discussion": d.resolve_discussion,
        "discussion_id": d.in_reply_to_discussion_id,
        "note": d.note,
        "commit_id": d.commit_id,
        "line_code": null,
        "position": position,
    })
}

async fn list(State(app): State<App>, Path((pid, iid)): Path<(String, String)>, ctx: Ctx) -> Reply {
    let db = lock(&app.db);
    let (p, m, user) = find(&db, &pid, &iid, &ctx, false)?;
    let items = db.projects[p].merge_requests[m]
        .draft_notes
        .iter()
        .filter(|d| d.author_id == user)
        .map(|d| render(&db, p, m, d))
        .collect();
    Ok(http::ok(Value::Array(items)))
}

async fn show(
    State(app): State<App>,
    Path((pid, iid, draft)): Path<(String, String, String)>,
    ctx: Ctx,
) -> Reply {
    let db = lock(&app.db);
    let (p, m, user) = find(&db, &pid, &iid, &ctx, false)?;
    let d = draft_index(&db, p, m, user, &draft)?;
    Ok(http::ok(render(
        &db,
        p,
        m,
        &db.projects[p].merge_requests[m].draft_notes[d],
    )))
}

/// `note` required; `position` checked as Grape checks it; a reply needs
/// its thread (`Thread to reply to cannot be found`, a validation error).
async fn create(
    State(app): State<App>,
    Path((pid, iid)): Path<(String, String)>,
    ctx: Ctx,
) -> Reply {
    let mut db = lock(&app.db);
    let (p, m, user) = find(&db, &pid, &iid, &ctx, true)?;
    let note = ctx.require("note")?;
    let position = match ctx.body.get("position") {
        Some(pos) if !pos.is_null() => Some(grape_position(pos)?),
        _ => None,
    };
    let reply = ctx.param("in_reply_to_discussion_id");
    if let Some(thread) = &reply
        && !db.projects[p].merge_requests[m]
            .notes
            .iter()
            .any(|n| &n.discussion_id == thread)
    {
        return Err(http::json_response(
            axum::http::StatusCode::BAD_REQUEST,
            json!({"message": {"base": ["Thread to reply to cannot be found"]}}),
        ));
    }
    let draft = DraftNote {
        id: db.next_id(),
        author_id: user,
        note,
        position,
        in_reply_to_discussion_id: reply,
        resolve_discussion: ctx.flag("resolve_discussion").unwrap_or(false),
        commit_id: ctx.param("commit_id"),
    };
    let drafts = &mut db.projects[p].merge_requests[m].draft_notes;
    drafts.push(draft);
    let created = drafts.last().unwrap().clone();
    Ok(http::created(render(&db, p, m, &created)))
}

/// `note` must be present (`Missing params to modify` otherwise); the
/// position is replaced by the one given, or none.
async fn update(
    State(app): State<App>,
    Path((pid, iid, draft)): Path<(String, String, String)>,
    ctx: Ctx,
) -> Reply {
    let mut db = lock(&app.db);
    let (p, m, user) = find(&db, &pid, &iid, &ctx, true)?;
    let Some(note) = ctx.param("note").filter(|n| !n.is_empty()) else {
        return Err(http::message(
            400,
            "400 Bad request - Missing params to modify",
        ));
    };
    let position = match ctx.body.get("position") {
        Some(pos) if !pos.is_null() => Some(grape_position(pos)?),
        _ => None,
    };
    let d = draft_index(&db, p, m, user, &draft)?;
    let target = &mut db.projects[p].merge_requests[m].draft_notes[d];
    target.note = note;
    target.position = position;
    let updated = target.clone();
    Ok(http::ok(render(&db, p, m, &updated)))
}

async fn delete(
    State(app): State<App>,
    Path((pid, iid, draft)): Path<(String, String, String)>,
    ctx: Ctx,
) -> Reply {
    let mut db = lock(&app.db);
    let (p, m, user) = find(&db, &pid, &iid, &ctx, true)?;
    let d = draft_index(&db, p, m, user, &draft)?;
    db.projects[p].merge_requests[m].draft_notes.remove(d);
    Ok(http::no_content())
}

/// Publish one draft: 204.
async fn publish_one(
    State(app): State<App>,
    Path((pid, iid, draft)): Path<(String, String, String)>,
    ctx: Ctx,
) -> Reply {
    let mut db = lock(&app.db);
    let (p, m, user) = find(&db, &pid, &iid, &ctx, true)?;
    let d = draft_index(&db, p, m, user, &draft)?;
    let draft = db.projects[p].merge_requests[m].draft_notes.remove(d);
    publish(&mut db, p, m, draft);
    Ok(http::no_content())
}

/// Publish all the caller's drafts, in the order they were written, then
/// the summary `note` if given (`reviewer_state` must be one of GitLab's
/// two values); 204.
async fn bulk_publish(
    State(app): State<App>,
    Path((pid, iid)): Path<(String, String)>,
    ctx: Ctx,
) -> Reply {
    let mut db = lock(&app.db);
    let (p, m, user) = find(&db, &pid, &iid, &ctx, true)?;
    ctx.one_of("reviewer_state", &["requested_changes", "reviewed"])?;
    let drafts = &mut db.projects[p].merge_requests[m].draft_notes;
    let (mine, others): (Vec<DraftNote>, Vec<DraftNote>) =
        drafts.drain(..).partition(|d| d.author_id == user);
    *drafts = others;
    for draft in mine {
        publish(&mut db, p, m, draft);
    }
    if let Some(summary) = ctx.param("note").filter(|n| !n.is_empty()) {
        let internal = ctx.flag("internal").unwrap_or(false);
        let note = plain_note(&mut db, user, summary, internal);
        db.projects[p].merge_requests[m].notes.push(note);
    }
    Ok(http::no_content())
}

/// The draft as a note: a thread on its line, a reply in its thread, or a
/// thread of its own. A line that is not in the diff makes a note GitLab
/// does not save: the draft is gone, and no note comes of it.
fn publish(db: &mut Db, p: usize, m: usize, draft: DraftNote) {
    let position = match &draft.position {
        Some(pos) => {
            let project = &db.projects[p];
            match check_position(project, &project.merge_requests[m], pos) {
                Ok(position) => Some(position),
                Err(_) => return,
            }
        }
        None => None,
    };
    let mut note = thread_note(
        db,
        Kind::MergeRequest,
        draft.author_id,
        draft.note,
        position,
        None,
    );
    let notes = &mut db.projects[p].merge_requests[m].notes;
    if let Some(thread) = draft.in_reply_to_discussion_id {
        note.discussion_id = thread.clone();
        note.note_type = Some("DiscussionNote");
        for n in notes.iter_mut().filter(|n| n.discussion_id == thread) {
            n.resolved = draft.resolve_discussion;
        }
    }
    notes.push(note);
}

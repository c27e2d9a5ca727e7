//! Threads and single notes of issues and merge requests, shared by both
//! (docs: https://docs.gitlab.com/api/discussions/ and
//! https://docs.gitlab.com/api/notes/; the routes and their checks follow
//! GitLab's lib/api/discussions.rb). A merge request thread can start on a
//! diff line (`position`), checked against the merge request's diff
//! versions the way GitLab checks it.

use axum::Router;
use axum::extract::{Path, State};
use axum::response::Response;
use axum::routing::get;
use serde_json::{Value, json};

use super::{Ctx, Reply, id, visible, writable};
use crate::db::{Db, MergeRequest, Note, Project, sha};
use crate::{App, http, lock, objects};

#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Issue,
    MergeRequest,
}

impl Kind {
    fn name(self) -> &'static str {
        match self {
            Kind::Issue => "Issue",
            Kind::MergeRequest => "MergeRequest",
        }
    }
}

pub fn routes(kind: Kind) -> Router<App> {
    let base = match kind {
        Kind::Issue => "/api/v4/projects/{id}/issues/{iid}",
        Kind::MergeRequest => "/api/v4/projects/{id}/merge_requests/{iid}",
    };
    Router::new()
        .route(
            &format!("{base}/discussions"),
            get(move |s: State<App>, p: Path<(String, String)>, c: Ctx| list(kind, s, p, c)).post(
                move |s: State<App>, p: Path<(String, String)>, c: Ctx| create(kind, s, p, c),
            ),
        )
        .route(
            &format!("{base}/discussions/{{discussion_id}}"),
            get(
                move |s: State<App>, p: Path<(String, String, String)>, c: Ctx| show(kind, s, p, c),
            )
            .put(
                move |s: State<App>, p: Path<(String, String, String)>, c: Ctx| {
                    resolve(kind, s, p, c)
                },
            ),
        )
        .route(
            &format!("{base}/discussions/{{discussion_id}}/notes"),
            get(
                move |s: State<App>, p: Path<(String, String, String)>, c: Ctx| {
                    thread_notes(kind, s, p, c)
                },
            )
            .post(
                move |s: State<App>, p: Path<(String, String, String)>, c: Ctx| {
                    reply(kind, s, p, c)
                },
            ),
        )
        .route(
            &format!("{base}/discussions/{{discussion_id}}/notes/{{note_id}}"),
            get(
                move |s: State<App>,
                      Path((pid, iid, _d, n)): Path<(String, String, String, String)>,
                      c: Ctx| { get_note(kind, s, Path((pid, iid, n)), c) },
            )
            .put(
                move |s: State<App>,
                      Path((pid, iid, _d, n)): Path<(String, String, String, String)>,
                      c: Ctx| { edit_note(kind, s, Path((pid, iid, n)), c) },
            )
            .delete(
                move |s: State<App>,
                      Path((pid, iid, _d, n)): Path<(String, String, String, String)>,
                      c: Ctx| { delete_note(kind, s, Path((pid, iid, n)), c) },
            ),
        )
        .route(
            &format!("{base}/notes/{{note_id}}"),
            get(
                move |s: State<App>, p: Path<(String, String, String)>, c: Ctx| {
                    get_note(kind, s, p, c)
                },
            )
            .put(
                move |s: State<App>, p: Path<(String, String, String)>, c: Ctx| {
                    edit_note(kind, s, p, c)
                },
            )
            .delete(
                move |s: State<App>, p: Path<(String, String, String)>, c: Ctx| {
                    delete_note(kind, s, p, c)
                },
            ),
        )
}

/// The issue or merge request `iid` of project `p`: its index.
fn find(db: &Db, kind: Kind, p: usize, iid: &str) -> Result<usize, Response> {
    let iid = id(iid)?;
    let project = &db.projects[p];
    match kind {
        Kind::Issue => project.issues.iter().position(|i| i.iid == iid),
        Kind::MergeRequest => project.merge_requests.iter().position(|m| m.iid == iid),
    }
    .ok_or_else(|| http::message(404, "404 Not found"))
}

fn notes(db: &Db, kind: Kind, p: usize, i: usize) -> &Vec<Note> {
    match kind {
        Kind::Issue => &db.projects[p].issues[i].notes,
        Kind::MergeRequest => &db.projects[p].merge_requests[i].notes,
    }
}

fn notes_mut(db: &mut Db, kind: Kind, p: usize, i: usize) -> &mut Vec<Note> {
    match kind {
        Kind::Issue => &mut db.projects[p].issues[i].notes,
        Kind::MergeRequest => &mut db.projects[p].merge_requests[i].notes,
    }
}

/// (type, id, iid, project id) of what the notes belong to.
fn owner(db: &Db, kind: Kind, p: usize, i: usize) -> (&'static str, u64, u64, u64) {
    let project = &db.projects[p];
    match kind {
        Kind::Issue => (
            kind.name(),
            project.issues[i].id,
            project.issues[i].iid,
            project.id,
        ),
        Kind::MergeRequest => (
            kind.name(),
            project.merge_requests[i].id,
            project.merge_requests[i].iid,
            project.id,
        ),
    }
}

fn render_threads(db: &Db, kind: Kind, p: usize, i: usize, only: Option<&str>) -> Vec<Value> {
    let (t, nid, iid, pid) = owner(db, kind, p, i);
    let notes: Vec<Note> = notes(db, kind, p, i)
        .iter()
        .filter(|n| only.is_none_or(|d| n.discussion_id == d))
        .cloned()
        .collect();
    objects::discussions(db, &notes, t, nid, iid, pid)
}

fn render_note(db: &Db, kind: Kind, p: usize, i: usize, n: &Note) -> Value {
    let (t, nid, iid, pid) = owner(db, kind, p, i);
    objects::note(db, n, t, nid, iid, pid)
}

async fn list(
    kind: Kind,
    State(app): State<App>,
    Path((pid, iid)): Path<(String, String)>,
    ctx: Ctx,
) -> Reply {
    let db = lock(&app.db);
    let p = visible(&db, &pid, &ctx)?;
    let i = find(&db, kind, p, &iid)?;
    Ok(http::paginate(
        render_threads(&db, kind, p, i, None),
        &ctx.query,
        &ctx.url,
    ))
}

async fn show(
    kind: Kind,
    State(app): State<App>,
    Path((pid, iid, discussion)): Path<(String, String, String)>,
    ctx: Ctx,
) -> Reply {
    let db = lock(&app.db);
    let p = visible(&db, &pid, &ctx)?;
    let i = find(&db, kind, p, &iid)?;
    render_threads(&db, kind, p, i, Some(&discussion))
        .pop()
        .map(http::ok)
        .ok_or_else(|| http::not_found("Discussion"))
}

async fn thread_notes(
    kind: Kind,
    State(app): State<App>,
    Path((pid, iid, discussion)): Path<(String, String, String)>,
    ctx: Ctx,
) -> Reply {
    let db = lock(&app.db);
    let p = visible(&db, &pid, &ctx)?;
    let i = find(&db, kind, p, &iid)?;
    let items: Vec<Value> = notes(&db, kind, p, i)
        .iter()
        .filter(|n| n.discussion_id == discussion)
        .map(|n| render_note(&db, kind, p, i, n))
        .collect();
    if items.is_empty() {
        return Err(http::not_found("Notes"));
    }
    Ok(http::ok(Value::Array(items)))
}

/// Start a thread: `body` required; on a merge request, an optional
/// `position` makes it a diff note (docs: "Create a new thread in the merge
/// request diff"). Answers 201 with the new discussion.
async fn create(
    kind: Kind,
    State(app): State<App>,
    Path((pid, iid)): Path<(String, String)>,
    ctx: Ctx,
) -> Reply {
    let mut db = lock(&app.db);
    let p = writable(&db, &pid, &ctx)?;
    let i = find(&db, kind, p, &iid)?;
    let body = ctx.require("body")?;
    let position = match (kind, ctx.body.get("position")) {
        (Kind::MergeRequest, Some(pos)) if !pos.is_null() => {
            let project = &db.projects[p];
            Some(check_position(project, &project.merge_requests[i], pos)?)
        }
        _ => None,
    };
    let author = ctx.auth.expect("writable has a user").user_id;
    let mut note = thread_note(
        &mut db,
        kind,
        author,
        body,
        position,
        ctx.param("created_at"),
    );
    note.internal = ctx.flag("internal").unwrap_or(false);
    let discussion = note.discussion_id.clone();
    notes_mut(&mut db, kind, p, i).push(note);
    let v = render_threads(&db, kind, p, i, Some(&discussion))
        .pop()
        .unwrap();
    Ok(http::created(v))
}

/// Reply to a thread (or turn a plain note into one): 201 with the note.
async fn reply(
    kind: Kind,
    State(app): State<App>,
    Path((pid, iid, discussion)): Path<(String, String, String)>,
    ctx: Ctx,
) -> Reply {
    let mut db = lock(&app.db);
    let p = writable(&db, &pid, &ctx)?;
    let i = find(&db, kind, p, &iid)?;
    let body = ctx.require("body")?;
    let first = notes(&db, kind, p, i)
        .iter()
        .find(|n| n.discussion_id == discussion)
        .cloned()
        .ok_or_else(|| http::not_found("Discussion"))?;
    let note_id = db.next_id();
    let now = db.now();
    let resolvable = kind == Kind::MergeRequest;
    let all = notes_mut(&mut db, kind, p, i);
    for n in all.iter_mut().filter(|n| n.discussion_id == discussion) {
        n.note_type.get_or_insert("DiscussionNote");
        n.resolvable = resolvable;
    }
    all.push(Note {
        id: note_id,
        body,
        author_id: ctx.auth.expect("writable has a user").user_id,
        created_at: now,
        discussion_id: discussion,
        note_type: Some("DiscussionNote"),
        resolvable,
        resolved: first.resolved,
        resolved_by: first.resolved_by,
        ..Note::default()
    });
    let n = all.last().unwrap().clone();
    Ok(http::created(render_note(&db, kind, p, i, &n)))
}

/// `PUT .../discussions/:id` with `resolved` (merge requests only: issue
/// threads are not resolvable, and GitLab has no such route for them).
async fn resolve(
    kind: Kind,
    State(app): State<App>,
    Path((pid, iid, discussion)): Path<(String, String, String)>,
    ctx: Ctx,
) -> Reply {
    if kind == Kind::Issue {
        return Err(http::no_route());
    }
    let mut db = lock(&app.db);
    let p = writable(&db, &pid, &ctx)?;
    let i = find(&db, kind, p, &iid)?;
    let resolved = ctx.require("resolved")?;
    let resolved = match resolved.as_str() {
        "true" | "1" => true,
        "false" | "0" => false,
        _ => {
            return Err(http::json_response(
                axum::http::StatusCode::BAD_REQUEST,
                json!({"error": "resolved is invalid"}),
            ));
        }
    };
    let user = ctx.auth.expect("writable has a user").user_id;
    let thread: Vec<&mut Note> = notes_mut(&mut db, kind, p, i)
        .iter_mut()
        .filter(|n| n.discussion_id == discussion)
        .collect();
    if thread.is_empty() {
        return Err(http::not_found("Discussion"));
    }
    if !thread.iter().any(|n| n.resolvable) {
        return Err(http::forbidden());
    }
    for n in thread {
        n.resolved = resolved && n.resolvable;
        n.resolved_by = (resolved && n.resolvable).then_some(user);
    }
    Ok(http::ok(
        render_threads(&db, kind, p, i, Some(&discussion))
            .pop()
            .unwrap(),
    ))
}

fn note_index(db: &Db, kind: Kind, p: usize, i: usize, note: &str) -> Result<usize, Response> {
    let note = id(note)?;
    notes(db, kind, p, i)
        .iter()
        .position(|n| n.id == note)
        .ok_or_else(|| http::not_found("Note"))
}

async fn get_note(
    kind: Kind,
    State(app): State<App>,
    Path((pid, iid, note)): Path<(String, String, String)>,
    ctx: Ctx,
) -> Reply {
    let db = lock(&app.db);
    let p = visible(&db, &pid, &ctx)?;
    let i = find(&db, kind, p, &iid)?;
    let n = note_index(&db, kind, p, i, &note)?;
    Ok(http::ok(render_note(
        &db,
        kind,
        p,
        i,
        &notes(&db, kind, p, i)[n],
    )))
}

/// Edit a note's `body`, or (in a thread) set `resolved`: exactly one of
/// the two (Grape's `exactly_one_of`). Only the author edits the body.
async fn edit_note(
    kind: Kind,
    State(app): State<App>,
    Path((pid, iid, note)): Path<(String, String, String)>,
    ctx: Ctx,
) -> Reply {
    let mut db = lock(&app.db);
    let p = writable(&db, &pid, &ctx)?;
    let i = find(&db, kind, p, &iid)?;
    let n = note_index(&db, kind, p, i, &note)?;
    let user = ctx.auth.expect("writable has a user").user_id;
    let (body, resolved) = (ctx.param("body"), ctx.param("resolved"));
    let bad = |text: &str| {
        http::json_response(axum::http::StatusCode::BAD_REQUEST, json!({"error": text}))
    };
    let target = &mut notes_mut(&mut db, kind, p, i)[n];
    match (body, resolved) {
        (Some(_), Some(_)) => return Err(bad("body, resolved are mutually exclusive")),
        (None, None) => {
            return Err(bad(
                "body, resolved are missing, exactly one parameter must be provided",
            ));
        }
        (Some(body), None) => {
            if target.author_id != user {
                return Err(http::forbidden());
            }
            target.body = body;
        }
        (None, Some(resolved)) => {
            if !target.resolvable {
                return Err(http::forbidden());
            }
            target.resolved = resolved == "true" || resolved == "1";
            target.resolved_by = target.resolved.then_some(user);
        }
    }
    let updated = target.clone();
    Ok(http::ok(render_note(&db, kind, p, i, &updated)))
}

/// Delete a note: the author only; 204.
async fn delete_note(
    kind: Kind,
    State(app): State<App>,
    Path((pid, iid, note)): Path<(String, String, String)>,
    ctx: Ctx,
) -> Reply {
    let mut db = lock(&app.db);
    let p = writable(&db, &pid, &ctx)?;
    let i = find(&db, kind, p, &iid)?;
    let n = note_index(&db, kind, p, i, &note)?;
    let user = ctx.auth.expect("writable has a user").user_id;
    let all = notes_mut(&mut db, kind, p, i);
    if all[n].author_id != user {
        return Err(http::forbidden());
    }
    all.remove(n);
    Ok(http::no_content())
}

/// GitLab's answer to a position that is not a line of the diff: the
/// note's `line_code` cannot be computed (lib/api/discussions.rb renders
/// the note's errors with `bad_request!`).
pub fn bad_position() -> Response {
    http::message(
        400,
        "400 Bad request - Note {:line_code=>[\"can't be blank\", \"must be a valid line code\"]}",
    )
}

/// A position as Grape reads it (lib/api/discussions.rb and
/// lib/api/draft_notes.rb declare the same `position` hash): `base_sha`,
/// `start_sha`, `head_sha` and `position_type` (text, image or file) are
/// required, line numbers are integers. The position as GitLab shows it:
/// every key, `null` where none was given.
pub fn grape_position(pos: &Value) -> Result<Value, Response> {
    let grape = |text: String| {
        http::json_response(axum::http::StatusCode::BAD_REQUEST, json!({"error": text}))
    };
    let Some(obj) = pos.as_object() else {
        return Err(grape("position is invalid".into()));
    };
    let text = |key: &str| -> Option<String> {
        obj.get(key).and_then(|v| match v {
            Value::String(s) => Some(s.clone()),
            Value::Null => None,
            other => Some(other.to_string()),
        })
    };
    for key in ["base_sha", "start_sha", "head_sha", "position_type"] {
        if text(key).is_none() {
            return Err(grape(format!("position[{key}] is missing")));
        }
    }
    let kind = text("position_type").unwrap();
    if !["text", "image", "file"].contains(&kind.as_str()) {
        return Err(grape(
            "position[position_type] does not have a valid value".into(),
        ));
    }
    let line = |key: &str| -> Result<Option<u32>, Response> {
        match text(key) {
            None => Ok(None),
            Some(v) => v
                .parse::<u32>()
                .map(Some)
                .map_err(|_| grape(format!("position[{key}] is invalid"))),
        }
    };
    let mut out = json!({
        "base_sha": text("base_sha"),
        "start_sha": text("start_sha"),
        "head_sha": text("head_sha"),
        "old_path": text("old_path"),
        "new_path": text("new_path"),
        "position_type": kind,
    });
    if kind == "text" {
        out["old_line"] = json!(line("old_line")?);
        out["new_line"] = json!(line("new_line")?);
        out["line_range"] = obj.get("line_range").cloned().unwrap_or(Value::Null);
    } else if kind == "image" {
        for key in ["width", "height", "x", "y"] {
            out[key] = obj.get(key).cloned().unwrap_or(Value::Null);
        }
    }
    Ok(out)
}

/// Check a diff note's `position` as GitLab does and return it as GitLab
/// shows it. Grape first (`grape_position`). Then the note: the SHAs must
/// be one of the merge request's diff versions, the path one of its
/// files, and for `text` the pair (`old_line`, `new_line`) one line of
/// the diff: an added line has only `new_line`, a removed line only
/// `old_line`, an unchanged line both. `line_range` (multi-line comments)
/// is kept as given.
pub fn check_position(p: &Project, m: &MergeRequest, pos: &Value) -> Result<Value, Response> {
    let mut out = grape_position(pos)?;
    let text = |key: &str| out.get(key).and_then(Value::as_str).map(str::to_string);
    let line = |key: &str| out.get(key).and_then(Value::as_u64).map(|n| n as u32);
    let (base, start, head) = (
        text("base_sha").unwrap_or_default(),
        text("start_sha").unwrap_or_default(),
        text("head_sha").unwrap_or_default(),
    );
    let version = p
        .mr_versions(m)
        .into_iter()
        .find(|v| {
            v.base_commit_sha == base && v.start_commit_sha == start && v.head_commit_sha == head
        })
        .ok_or_else(bad_position)?;
    let path = text("new_path")
        .or_else(|| text("old_path"))
        .ok_or_else(bad_position)?;
    let file = version
        .diffs
        .iter()
        .find(|d| d.1 == path || d.0 == path)
        .ok_or_else(bad_position)?;
    if text("position_type").as_deref() == Some("text")
        && crate::diff::find_line(&file.2, line("old_line"), line("new_line")).is_none()
    {
        return Err(bad_position());
    }
    let (old_path, new_path) = (
        text("old_path").unwrap_or_else(|| file.0.clone()),
        text("new_path").unwrap_or_else(|| file.1.clone()),
    );
    out["old_path"] = json!(old_path);
    out["new_path"] = json!(new_path);
    Ok(out)
}

/// A note that starts a thread on a merge request or issue: a `DiffNote`
/// on a diff line (`position`, already checked), else a `DiscussionNote`.
/// Threads of merge requests are resolvable.
pub fn thread_note(
    db: &mut Db,
    kind: Kind,
    author_id: u64,
    body: String,
    position: Option<Value>,
    created_at: Option<String>,
) -> Note {
    let id = db.next_id();
    let created_at = created_at.unwrap_or_else(|| db.now());
    Note {
        id,
        body,
        author_id,
        created_at,
        discussion_id: sha(id),
        note_type: Some(if position.is_some() {
            "DiffNote"
        } else {
            "DiscussionNote"
        }),
        resolvable: kind == Kind::MergeRequest,
        position,
        ..Note::default()
    }
}

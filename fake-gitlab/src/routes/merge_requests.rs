//! Merge requests, their notes, discussions, diffs, commits, merge and
//! approval (docs: merge requests API, notes API, discussions API).

use axum::Router;
use axum::extract::{Path, State};
use axum::routing::{get, post, put};
use serde_json::{Value, json};

use super::{Ctx, Noteable, Reply, id, new_note, notes_page, visible, writable};
use crate::db::{Db, MergeRequest, sha};
use crate::{App, http, lock, objects};

pub fn routes() -> Router<App> {
    let base = "/api/v4/projects/{id}/merge_requests";
    Router::new()
        .route(base, get(list).post(create))
        .route(&format!("{base}/{{iid}}"), get(show).put(update))
        .route(&format!("{base}/{{iid}}/merge"), put(merge))
        .route(&format!("{base}/{{iid}}/approve"), post(approve))
        .route(&format!("{base}/{{iid}}/diffs"), get(diffs))
        .route(&format!("{base}/{{iid}}/commits"), get(commits))
        .route(
            &format!("{base}/{{iid}}/notes"),
            get(notes).post(create_note),
        )
        .route(&format!("{base}/{{iid}}/discussions"), get(discussions))
}

/// The single merge request shape GitLab answers reads and changes with.
fn full_answer(db: &Db, project: usize, mr: usize) -> axum::response::Response {
    let project = &db.projects[project];
    http::ok(objects::merge_request(
        db,
        project,
        &project.merge_requests[mr],
        true,
    ))
}

fn find(db: &Db, project: usize, iid: &str) -> Result<usize, axum::response::Response> {
    let iid = id(iid)?;
    db.projects[project]
        .merge_requests
        .iter()
        .position(|m| m.iid == iid)
        .ok_or_else(|| http::message(404, "404 Not found"))
}

async fn list(State(app): State<App>, Path(pid): Path<String>, ctx: Ctx) -> Reply {
    let db = lock(&app.db);
    let p = &db.projects[visible(&db, &pid, &ctx)?];
    let state = ctx
        .one_of("state", &["opened", "closed", "locked", "merged", "all"])?
        .unwrap_or_else(|| "all".into());
    ctx.one_of("sort", &["asc", "desc"])?;
    let source = ctx.param("source_branch");
    let target = ctx.param("target_branch");
    let items: Vec<Value> = p
        .merge_requests
        .iter()
        .rev()
        .filter(|m| state == "all" || m.state == state)
        .filter(|m| source.as_ref().is_none_or(|s| &m.source_branch == s))
        .filter(|m| target.as_ref().is_none_or(|t| &m.target_branch == t))
        .map(|m| objects::merge_request(&db, p, m, false))
        .collect();
    Ok(http::paginate(items, &ctx.query, &ctx.url))
}

async fn show(State(app): State<App>, Path((pid, iid)): Path<(String, String)>, ctx: Ctx) -> Reply {
    let db = lock(&app.db);
    let p = visible(&db, &pid, &ctx)?;
    let m = find(&db, p, &iid)?;
    Ok(full_answer(&db, p, m))
}

/// A second open merge request from the same source branch is a 409
/// (docs: "Create MR" returns 409 if a merge request already exists).
async fn create(State(app): State<App>, Path(pid): Path<String>, ctx: Ctx) -> Reply {
    let mut db = lock(&app.db);
    let p = writable(&db, &pid, &ctx)?;
    let source = ctx.require("source_branch")?;
    let target = ctx.require("target_branch")?;
    let title = ctx.require("title")?;
    let project = &db.projects[p];
    for branch in [&source, &target] {
        if !project.branches.iter().any(|b| &b.name == branch) {
            return Err(http::json_response(
                axum::http::StatusCode::NOT_FOUND,
                json!({"message": format!("404 Branch Not Found")}),
            ));
        }
    }
    if let Some(existing) = project
        .merge_requests
        .iter()
        .find(|m| m.source_branch == source && m.state == "opened")
    {
        return Err(http::json_response(
            axum::http::StatusCode::CONFLICT,
            json!({"message": [format!("Another open merge request already exists for this source branch: !{}", existing.iid)]}),
        ));
    }
    let id = db.next_id();
    let now = db.now();
    let iid = db.projects[p]
        .merge_requests
        .iter()
        .map(|m| m.iid)
        .max()
        .unwrap_or(0)
        + 1;
    let numbers = |name: &str| {
        ctx.list(name)
            .unwrap_or_default()
            .iter()
            .filter_map(|s| s.parse().ok())
            .collect::<Vec<u64>>()
    };
    let mr = MergeRequest {
        id,
        iid,
        draft: title.starts_with("Draft:"),
        title,
        description: ctx.param("description").unwrap_or_default(),
        state: "opened".into(),
        source_branch: source,
        target_branch: target,
        author_id: ctx.auth.expect("writable has a user").user_id,
        assignee_ids: numbers("assignee_ids"),
        reviewer_ids: numbers("reviewer_ids"),
        labels: ctx.list("labels").unwrap_or_default(),
        sha: sha(6),
        merge_commit_sha: None,
        squash: ctx.flag("squash").unwrap_or(false),
        created_at: now.clone(),
        updated_at: now,
        merged_at: None,
        merged_by: None,
        approved_by: vec![],
        notes: vec![],
        commit_shas: vec![sha(6)],
    };
    db.projects[p].merge_requests.push(mr);
    let project = &db.projects[p];
    Ok(http::created(objects::merge_request(
        &db,
        project,
        project.merge_requests.last().unwrap(),
        true,
    )))
}

async fn update(
    State(app): State<App>,
    Path((pid, iid)): Path<(String, String)>,
    ctx: Ctx,
) -> Reply {
    let mut db = lock(&app.db);
    let p = writable(&db, &pid, &ctx)?;
    let m = find(&db, p, &iid)?;
    let state_event = ctx.one_of("state_event", &["close", "reopen"])?;
    let now = db.now();
    let mr = &mut db.projects[p].merge_requests[m];
    if let Some(t) = ctx.param("title") {
        mr.draft = t.starts_with("Draft:");
        mr.title = t;
    }
    if let Some(d) = ctx.param("description") {
        mr.description = d;
    }
    if let Some(t) = ctx.param("target_branch") {
        mr.target_branch = t;
    }
    if let Some(labels) = ctx.list("labels") {
        mr.labels = labels;
    }
    match state_event.as_deref() {
        Some("close") => mr.state = "closed".into(),
        Some("reopen") => mr.state = "opened".into(),
        _ => {}
    }
    mr.updated_at = now;
    Ok(full_answer(&db, p, m))
}

/// Merge: 405 when not open (docs: "If the merge request is not
/// mergeable, 405"), 409 when `sha` is not the head (docs).
async fn merge(
    State(app): State<App>,
    Path((pid, iid)): Path<(String, String)>,
    ctx: Ctx,
) -> Reply {
    let mut db = lock(&app.db);
    let p = writable(&db, &pid, &ctx)?;
    let m = find(&db, p, &iid)?;
    let now = db.now();
    let user = ctx.auth.expect("writable has a user").user_id;
    let mr = &mut db.projects[p].merge_requests[m];
    if mr.state != "opened" || mr.draft {
        return Err(http::message(405, "405 Method Not Allowed"));
    }
    if let Some(sha) = ctx.param("sha")
        && sha != mr.sha
    {
        return Err(http::message(
            409,
            "SHA does not match HEAD of source branch",
        ));
    }
    mr.state = "merged".into();
    mr.merged_at = Some(now.clone());
    mr.merged_by = Some(user);
    mr.merge_commit_sha = Some(sha(7000 + mr.iid));
    mr.updated_at = now;
    Ok(full_answer(&db, p, m))
}

/// Approve: the approval state (docs: merge request approvals API); an
/// author approving their own merge request is a 401 there.
async fn approve(
    State(app): State<App>,
    Path((pid, iid)): Path<(String, String)>,
    ctx: Ctx,
) -> Reply {
    let mut db = lock(&app.db);
    let p = writable(&db, &pid, &ctx)?;
    let m = find(&db, p, &iid)?;
    let user = ctx.auth.expect("writable has a user").user_id;
    let mr = &mut db.projects[p].merge_requests[m];
    if mr.approved_by.contains(&user) {
        return Err(http::unauthorized());
    }
    mr.approved_by.push(user);
    let (id, iid, title, state, created, updated) = (
        mr.id,
        mr.iid,
        mr.title.clone(),
        mr.state.clone(),
        mr.created_at.clone(),
        mr.updated_at.clone(),
    );
    let approvers: Vec<Value> = mr
        .approved_by
        .clone()
        .iter()
        .map(|u| json!({"user": objects::user(&db, *u)}))
        .collect();
    Ok(http::created(json!({
        "id": id, "iid": iid, "project_id": db.projects[p].id, "title": title,
        "description": "", "state": state, "created_at": created, "updated_at": updated,
        "merge_status": "can_be_merged", "approved": true, "approvals_required": 0,
        "approvals_left": 0, "require_password_to_approve": false, "approved_by": approvers,
        "suggested_approvers": [], "approvers": [], "approver_groups": [],
        "user_has_approved": true, "user_can_approve": false, "approval_rules_left": [],
        "has_approval_rules": false, "merge_request_approvers_available": false,
        "multiple_approval_rules_available": false, "invalid_approvers_rules": []
    })))
}

async fn diffs(
    State(app): State<App>,
    Path((pid, iid)): Path<(String, String)>,
    ctx: Ctx,
) -> Reply {
    let db = lock(&app.db);
    let p = visible(&db, &pid, &ctx)?;
    let m = find(&db, p, &iid)?;
    let project = &db.projects[p];
    let items = project.merge_requests[m]
        .commit_shas
        .iter()
        .filter_map(|s| project.commits.iter().find(|c| &c.id == s))
        .flat_map(|c| {
            c.diffs
                .iter()
                .map(|(o, n, d, new, del)| objects::diff(o, n, d, *new, *del))
        })
        .collect();
    Ok(http::paginate(items, &ctx.query, &ctx.url))
}

async fn commits(
    State(app): State<App>,
    Path((pid, iid)): Path<(String, String)>,
    ctx: Ctx,
) -> Reply {
    let db = lock(&app.db);
    let p = visible(&db, &pid, &ctx)?;
    let m = find(&db, p, &iid)?;
    let project = &db.projects[p];
    let items = project.merge_requests[m]
        .commit_shas
        .iter()
        .filter_map(|s| project.commits.iter().find(|c| &c.id == s))
        .map(|c| objects::commit(&db, project, c, false))
        .collect();
    Ok(http::paginate(items, &ctx.query, &ctx.url))
}

async fn notes(
    State(app): State<App>,
    Path((pid, iid)): Path<(String, String)>,
    ctx: Ctx,
) -> Reply {
    let db = lock(&app.db);
    let p = visible(&db, &pid, &ctx)?;
    let m = find(&db, p, &iid)?;
    let project = &db.projects[p];
    let mr = &project.merge_requests[m];
    let on = Noteable {
        kind: "MergeRequest",
        id: mr.id,
        iid: mr.iid,
        project_id: project.id,
    };
    notes_page(&db, &mr.notes, &on, &ctx)
}

async fn create_note(
    State(app): State<App>,
    Path((pid, iid)): Path<(String, String)>,
    ctx: Ctx,
) -> Reply {
    let mut db = lock(&app.db);
    let p = writable(&db, &pid, &ctx)?;
    let m = find(&db, p, &iid)?;
    let note = new_note(&mut db, &ctx)?;
    db.projects[p].merge_requests[m].notes.push(note);
    let project = &db.projects[p];
    let mr = &project.merge_requests[m];
    let on = Noteable {
        kind: "MergeRequest",
        id: mr.id,
        iid: mr.iid,
        project_id: project.id,
    };
    Ok(http::created(on.render(&db, mr.notes.last().unwrap())))
}

async fn discussions(
    State(app): State<App>,
    Path((pid, iid)): Path<(String, String)>,
    ctx: Ctx,
) -> Reply {
    let db = lock(&app.db);
    let p = visible(&db, &pid, &ctx)?;
    let m = find(&db, p, &iid)?;
    let project = &db.projects[p];
    let mr = &project.merge_requests[m];
    let items = mr
        .notes
        .iter()
        .map(|n| objects::discussion(&db, n, "MergeRequest", mr.id, mr.iid, project.id))
        .collect();
    Ok(http::paginate(items, &ctx.query, &ctx.url))
}

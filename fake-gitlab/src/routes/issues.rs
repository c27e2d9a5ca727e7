//! Issues, their notes and links (docs: https://docs.gitlab.com/api/issues/, https://docs.gitlab.com/api/notes/, https://docs.gitlab.com/api/issue_links/).

use axum::Router;
use axum::extract::{Path, State};
use axum::routing::get;
use serde_json::Value;

use super::{Ctx, Noteable, Reply, id, new_note, notes_page, visible, writable};
use crate::db::{Db, Issue};
use crate::work_items::Owner;
use crate::{App, http, lock, objects};

const STATES: &[&str] = &["opened", "closed", "all"];
const ORDER_BY: &[&str] = &[
    "created_at",
    "updated_at",
    "priority",
    "due_date",
    "relative_position",
    "label_priority",
    "milestone_due",
    "popularity",
    "title",
    "weight",
];

pub fn routes() -> Router<App> {
    Router::new()
        .route("/api/v4/projects/{id}/issues", get(list).post(create))
        .route("/api/v4/issues", get(all_issues))
        .route(
            "/api/v4/projects/{id}/issues/{iid}",
            get(show).put(update).delete(destroy),
        )
        .route(
            "/api/v4/projects/{id}/issues/{iid}/notes",
            get(notes).post(create_note),
        )
        .route("/api/v4/projects/{id}/issues/{iid}/links", get(links))
}

fn find(db: &Db, project: usize, iid: &str) -> Result<usize, axum::response::Response> {
    let iid = id(iid)?;
    db.projects[project]
        .issues
        .iter()
        .position(|i| i.iid == iid)
        .ok_or_else(|| http::message(404, "404 Not found"))
}

async fn list(State(app): State<App>, Path(pid): Path<String>, ctx: Ctx) -> Reply {
    let db = lock(&app.db);
    let p = &db.projects[visible(&db, &pid, &ctx)?];
    let state = ctx.one_of("state", STATES)?.unwrap_or_else(|| "all".into());
    ctx.one_of("order_by", ORDER_BY)?;
    ctx.one_of("sort", &["asc", "desc"])?;
    ctx.one_of("scope", &["created_by_me", "assigned_to_me", "all"])?;
    let labels = ctx.list("labels").unwrap_or_default();
    let search = ctx.param("search").map(|s| s.to_lowercase());
    let author = ctx.param("author_username");
    let iids: Option<Vec<u64>> = ctx
        .list("iids")
        .map(|v| v.iter().filter_map(|s| s.parse().ok()).collect());
    let mut issues: Vec<&Issue> = p
        .issues
        .iter()
        .filter(|i| state == "all" || i.state == state)
        .filter(|i| labels.iter().all(|l| i.labels.contains(l)))
        .filter(|i| {
            search.as_ref().is_none_or(|s| {
                i.title.to_lowercase().contains(s) || i.description.to_lowercase().contains(s)
            })
        })
        .filter(|i| {
            author
                .as_ref()
                .is_none_or(|a| db.user(i.author_id).is_some_and(|u| &u.username == a))
        })
        .filter(|i| iids.as_ref().is_none_or(|v| v.contains(&i.iid)))
        .collect();
    // Newest first by default (docs: order_by created_at, sort desc).
    issues.sort_by(|a, b| b.created_at.cmp(&a.created_at).then(b.iid.cmp(&a.iid)));
    if ctx.param("sort").as_deref() == Some("asc") {
        issues.reverse();
    }
    let items: Vec<Value> = issues.iter().map(|i| objects::issue(&db, p, i)).collect();
    Ok(http::paginate(items, &ctx.query, &ctx.url))
}

/// Issues across the projects the caller can see; `scope` defaults to
/// `created_by_me` (docs: https://docs.gitlab.com/api/issues/#list-issues).
async fn all_issues(State(app): State<App>, ctx: Ctx) -> Reply {
    let db = lock(&app.db);
    let user = ctx.auth.ok_or_else(http::unauthorized)?.user_id;
    let state = ctx.one_of("state", STATES)?.unwrap_or_else(|| "all".into());
    let scope = ctx
        .one_of("scope", &["created_by_me", "assigned_to_me", "all"])?
        .unwrap_or_else(|| "created_by_me".into());
    let mut items: Vec<(String, Value)> = Vec::new();
    for p in db
        .projects
        .iter()
        .filter(|p| p.visibility == "public" || p.members.contains(&user))
    {
        for i in &p.issues {
            let mine = match scope.as_str() {
                "created_by_me" => i.author_id == user,
                "assigned_to_me" => i.assignee_ids.contains(&user),
                _ => true,
            };
            if mine && (state == "all" || i.state == state) {
                items.push((i.created_at.clone(), objects::issue(&db, p, i)));
            }
        }
    }
    items.sort_by(|a, b| b.0.cmp(&a.0));
    let items = items.into_iter().map(|(_, v)| v).collect();
    Ok(http::paginate(items, &ctx.query, &ctx.url))
}

async fn show(State(app): State<App>, Path((pid, iid)): Path<(String, String)>, ctx: Ctx) -> Reply {
    let db = lock(&app.db);
    let p = visible(&db, &pid, &ctx)?;
    let i = find(&db, p, &iid)?;
    let project = &db.projects[p];
    let mut v = objects::issue(&db, project, &project.issues[i]);
    v["subscribed"] = Value::Bool(false);
    Ok(http::ok(v))
}

async fn create(State(app): State<App>, Path(pid): Path<String>, ctx: Ctx) -> Reply {
    let mut db = lock(&app.db);
    let p = writable(&db, &pid, &ctx)?;
    let title = ctx.require("title")?;
    if title.trim().is_empty() {
        return Err(http::validation("title", "can't be blank"));
    }
    ctx.one_of("issue_type", &["issue", "incident", "test_case", "task"])?;
    let id = db.next_id();
    let now = db.now();
    let iid = db.projects[p]
        .issues
        .iter()
        .map(|i| i.iid)
        .max()
        .unwrap_or(0)
        + 1;
    let author = ctx.auth.expect("writable has a user").user_id;
    let issue = Issue {
        id,
        iid,
        title,
        description: ctx.param("description").unwrap_or_default(),
        state: "opened".into(),
        labels: ctx.list("labels").unwrap_or_default(),
        author_id: author,
        assignee_ids: ctx
            .list("assignee_ids")
            .unwrap_or_default()
            .iter()
            .filter_map(|s| s.parse().ok())
            .collect(),
        milestone: None,
        confidential: ctx.flag("confidential").unwrap_or(false),
        discussion_locked: None,
        due_date: ctx.param("due_date"),
        start_date: None,
        issue_type: ctx.param("issue_type").unwrap_or_else(|| "issue".into()),
        parent_id: None,
        created_at: now.clone(),
        updated_at: now,
        closed_at: None,
        closed_by: None,
        notes: Vec::new(),
    };
    db.projects[p].issues.push(issue);
    let project = &db.projects[p];
    Ok(http::created(objects::issue(
        &db,
        project,
        project.issues.last().unwrap(),
    )))
}

async fn update(
    State(app): State<App>,
    Path((pid, iid)): Path<(String, String)>,
    ctx: Ctx,
) -> Reply {
    let mut db = lock(&app.db);
    let p = writable(&db, &pid, &ctx)?;
    let i = find(&db, p, &iid)?;
    let state_event = ctx.one_of("state_event", &["close", "reopen"])?;
    let now = db.now();
    let user = ctx.auth.expect("writable has a user").user_id;
    let milestone = match ctx.number("milestone_id")? {
        None => None,
        Some(0) => Some(None),
        Some(id) => Some(Some(
            db.projects[p]
                .milestones
                .iter()
                .find(|m| m.id == id)
                .map(|m| (m.id, m.iid, m.title.clone()))
                .ok_or_else(|| http::not_found("Milestone"))?,
        )),
    };
    let issue = &mut db.projects[p].issues[i];
    if let Some(m) = milestone {
        issue.milestone = m;
    }
    if let Some(title) = ctx.param("title") {
        if title.trim().is_empty() {
            return Err(http::validation("title", "can't be blank"));
        }
        issue.title = title;
    }
    if let Some(d) = ctx.param("description") {
        issue.description = d;
    }
    if let Some(labels) = ctx.list("labels") {
        issue.labels = labels;
    }
    for l in ctx.list("add_labels").unwrap_or_default() {
        if !issue.labels.contains(&l) {
            issue.labels.push(l);
        }
    }
    if let Some(remove) = ctx.list("remove_labels") {
        issue.labels.retain(|l| !remove.contains(l));
    }
    if let Some(ids) = ctx.list("assignee_ids") {
        issue.assignee_ids = ids
            .iter()
            .filter_map(|s| s.parse().ok())
            .filter(|id| *id != 0)
            .collect();
    }
    if let Some(c) = ctx.flag("confidential") {
        issue.confidential = c;
    }
    if let Some(d) = ctx.param("due_date") {
        issue.due_date = Some(d);
    }
    match state_event.as_deref() {
        Some("close") => {
            issue.state = "closed".into();
            issue.closed_at = Some(now.clone());
            issue.closed_by = Some(user);
        }
        Some("reopen") => {
            issue.state = "opened".into();
            issue.closed_at = None;
            issue.closed_by = None;
        }
        _ => {}
    }
    issue.updated_at = now;
    let project = &db.projects[p];
    Ok(http::ok(objects::issue(&db, project, &project.issues[i])))
}

/// Only administrators and project owners may delete issues (docs): the
/// seeded owner is alice; anyone else gets a 403.
async fn destroy(
    State(app): State<App>,
    Path((pid, iid)): Path<(String, String)>,
    ctx: Ctx,
) -> Reply {
    let mut db = lock(&app.db);
    let p = writable(&db, &pid, &ctx)?;
    let i = find(&db, p, &iid)?;
    if ctx.auth.map(|a| a.user_id) != Some(1) {
        return Err(http::forbidden());
    }
    db.projects[p].issues.remove(i);
    Ok(http::no_content())
}

async fn notes(
    State(app): State<App>,
    Path((pid, iid)): Path<(String, String)>,
    ctx: Ctx,
) -> Reply {
    let db = lock(&app.db);
    let p = visible(&db, &pid, &ctx)?;
    let i = find(&db, p, &iid)?;
    let project = &db.projects[p];
    let issue = &project.issues[i];
    let on = Noteable::issue(project, issue);
    notes_page(&db, &issue.notes, &on, &ctx)
}

async fn create_note(
    State(app): State<App>,
    Path((pid, iid)): Path<(String, String)>,
    ctx: Ctx,
) -> Reply {
    let mut db = lock(&app.db);
    let p = writable(&db, &pid, &ctx)?;
    let i = find(&db, p, &iid)?;
    let note = new_note(&mut db, &ctx)?;
    db.projects[p].issues[i].notes.push(note);
    let project = &db.projects[p];
    let issue = &project.issues[i];
    let on = Noteable::issue(project, issue);
    Ok(http::created(on.render(&db, issue.notes.last().unwrap())))
}

/// Linked issues: each is the issue object plus `issue_link_id`, `link_type`
/// and the link's timestamps (docs: https://docs.gitlab.com/api/issue_links/).
async fn links(
    State(app): State<App>,
    Path((pid, iid)): Path<(String, String)>,
    ctx: Ctx,
) -> Reply {
    let db = lock(&app.db);
    let p = visible(&db, &pid, &ctx)?;
    let i = find(&db, p, &iid)?;
    let this = db.projects[p].issues[i].id;
    let mut items = Vec::new();
    for link in db.links.iter().filter(|l| l.source == this) {
        let Some(Owner::Project(op)) = db.work_item(link.target).map(|r| r.owner) else {
            continue;
        };
        let op = &db.projects[op];
        let Some(other) = op.issues.iter().find(|x| x.id == link.target) else {
            continue;
        };
        let mut v = objects::issue(&db, op, other);
        v["issue_link_id"] = Value::from(link.id);
        v["link_type"] = Value::from(link.link_type);
        v["link_created_at"] = Value::from("2026-01-05T10:00:00.000Z");
        v["link_updated_at"] = Value::from("2026-01-05T10:00:00.000Z");
        items.push(v);
    }
    Ok(http::ok(Value::Array(items)))
}

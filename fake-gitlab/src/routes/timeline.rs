//! What happened to issues and milestones over time, and what planning
//! hangs on them: resource label events, burndown events, iterations,
//! incident metric images and the spam-check data of an issue (docs:
//! https://docs.gitlab.com/api/resource_label_events/,
//! https://docs.gitlab.com/api/milestones/#get-all-burndown-chart-events-for-a-single-milestone,
//! https://docs.gitlab.com/api/iterations/,
//! https://docs.gitlab.com/api/issues/#list-metric-images,
//! https://docs.gitlab.com/api/issues/#get-user-agent-details). Answers are
//! derived from the seed; nothing here is stored.

use axum::Router;
use axum::extract::{Path, State};
use axum::routing::get;
use serde_json::{Value, json};

use super::groups_users::group_index;
use super::{Ctx, Reply, id, visible};
use crate::db::Db;
use crate::{App, http, lock, objects};

pub fn routes() -> Router<App> {
    let issue = "/api/v4/projects/{id}/issues/{iid}";
    Router::new()
        .route(&format!("{issue}/resource_label_events"), get(label_events))
        .route(&format!("{issue}/metric_images"), get(metric_images))
        .route(
            &format!("{issue}/user_agent_detail"),
            get(user_agent_detail),
        )
        .route(
            "/api/v4/projects/{id}/milestones/{milestone_id}/burndown_events",
            get(burndown_events),
        )
        .route("/api/v4/groups/{id}/iterations", get(iterations))
}

fn find_issue(db: &Db, project: usize, iid: &str) -> Result<usize, axum::response::Response> {
    let iid = id(iid)?;
    db.projects[project]
        .issues
        .iter()
        .position(|i| i.iid == iid)
        .ok_or_else(|| http::not_found("Issue"))
}

/// "List project issue label events": each of the issue's labels, added
/// by its author when it was created.
async fn label_events(
    State(app): State<App>,
    Path((pid, iid)): Path<(String, String)>,
    ctx: Ctx,
) -> Reply {
    let db = lock(&app.db);
    let p = visible(&db, &pid, &ctx)?;
    let project = &db.projects[p];
    let issue = &project.issues[find_issue(&db, p, &iid)?];
    let events: Vec<Value> = issue
        .labels
        .iter()
        .enumerate()
        .filter_map(|(n, name)| {
            let label = project.labels.iter().find(|l| &l.name == name)?;
            Some(json!({
                "id": issue.id * 10 + n as u64,
                "user": objects::user(&db, issue.author_id),
                "created_at": issue.created_at,
                "resource_type": "Issue",
                "resource_id": issue.id,
                "label": {
                    "id": label.id, "name": label.name, "color": label.color,
                    "description": label.description,
                },
                "action": "add",
            }))
        })
        .collect();
    Ok(http::paginate(events, &ctx.query, &ctx.url))
}

/// "List metric images": an incident carries the documentation's one
/// image; other issues have none.
async fn metric_images(
    State(app): State<App>,
    Path((pid, iid)): Path<(String, String)>,
    ctx: Ctx,
) -> Reply {
    let db = lock(&app.db);
    let p = visible(&db, &pid, &ctx)?;
    let issue = &db.projects[p].issues[find_issue(&db, p, &iid)?];
    let images = if issue.issue_type == "incident" {
        json!([{
            "id": 23,
            "created_at": "2026-03-02T10:00:00.000Z",
            "filename": "error_rate.png",
            "file_path": "/uploads/-/system/issuable_metric_image/file/23/error_rate.png",
            "url": "https://grafana.example.com/d/orders",
            "url_text": "Error rate of the orders service",
        }])
    } else {
        json!([])
    };
    Ok(http::ok(images))
}

/// "Get user agent details": administrators only, and the fake has none.
async fn user_agent_detail(
    State(app): State<App>,
    Path((pid, iid)): Path<(String, String)>,
    ctx: Ctx,
) -> Reply {
    let db = lock(&app.db);
    let p = visible(&db, &pid, &ctx)?;
    find_issue(&db, p, &iid)?;
    Err(http::forbidden())
}

/// "Get all burndown chart events for a single milestone": one `created`
/// event per issue of the milestone, and a `closed` one per closed issue.
async fn burndown_events(
    State(app): State<App>,
    Path((pid, milestone)): Path<(String, String)>,
    ctx: Ctx,
) -> Reply {
    let db = lock(&app.db);
    let p = &db.projects[visible(&db, &pid, &ctx)?];
    let milestone = id(&milestone)?;
    if !p.milestones.iter().any(|m| m.id == milestone) {
        return Err(http::not_found("Milestone"));
    }
    let mut events = Vec::new();
    for issue in p
        .issues
        .iter()
        .filter(|i| i.milestone.as_ref().is_some_and(|m| m.0 == milestone))
    {
        events.push(json!({"created_at": issue.created_at, "weight": null, "action": "created"}));
        if let Some(closed) = &issue.closed_at {
            events.push(json!({"created_at": closed, "weight": null, "action": "closed"}));
        }
    }
    Ok(http::ok(Value::Array(events)))
}

/// "List group iterations": two iterations of a cadence of the `acme`
/// group, seen from its subgroups with `include_ancestors`. The state is
/// GitLab's number (1 upcoming, 2 current, 3 closed); `state` filters by name.
async fn iterations(State(app): State<App>, Path(gid): Path<String>, ctx: Ctx) -> Reply {
    let db = lock(&app.db);
    let group = &db.groups[group_index(&db, &gid, &ctx)?];
    let state = ctx.one_of(
        "state",
        &["opened", "upcoming", "started", "current", "closed", "all"],
    )?;
    let owned = group.id == 10 || ctx.flag("include_ancestors") == Some(true);
    let all = [
        (71u64, 1u64, 2u64, "2026-03-02", "2026-03-15"),
        (72, 2, 1, "2026-03-16", "2026-03-29"),
    ];
    let items: Vec<Value> = all
        .iter()
        .filter(|_| owned)
        .filter(|(_, _, s, _, _)| match state.as_deref() {
            Some("current" | "started") => *s == 2,
            Some("upcoming") => *s == 1,
            Some("opened") => *s != 3,
            Some("closed") => *s == 3,
            _ => true,
        })
        .map(|(id, iid, s, start, due)| {
            json!({
                "id": id, "iid": iid, "sequence": iid, "group_id": 10,
                "title": null, "description": null, "state": s,
                "created_at": "2026-03-01T08:00:00.000Z", "updated_at": "2026-03-01T08:00:00.000Z",
                "start_date": start, "due_date": due,
                "web_url": format!("{}/groups/acme/-/iterations/{id}", db.host),
            })
        })
        .collect();
    Ok(http::paginate(items, &ctx.query, &ctx.url))
}

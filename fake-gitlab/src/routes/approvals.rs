//! What decides whether a merge request may merge, beyond its own state:
//! approval configuration and rules, external status checks, dependencies
//! and merge trains (Premium and Ultimate endpoints; docs:
//! https://docs.gitlab.com/api/merge_request_approvals/,
//! https://docs.gitlab.com/api/status_checks/,
//! https://docs.gitlab.com/api/merge_requests/#create-a-merge-request-dependency,
//! https://docs.gitlab.com/api/merge_trains/). Answers are computed from the
//! seed; nothing here is stored.

use axum::Router;
use axum::extract::{Path, State};
use axum::routing::{get, post};
use serde_json::{Value, json};

use super::{Ctx, Reply, id, visible, writable};
use crate::db::{Db, sha};
use crate::{App, http, lock, objects};

pub fn routes() -> Router<App> {
    let mr = "/api/v4/projects/{id}/merge_requests/{iid}";
    Router::new()
        .route(
            "/api/v4/projects/{id}/approvals",
            post(change_configuration),
        )
        .route(&format!("{mr}/approval_rules"), post(create_rule))
        .route(&format!("{mr}/status_checks"), get(status_checks))
        .route(&format!("{mr}/blocks"), post(create_dependency))
        .route("/api/v4/projects/{id}/merge_trains", get(merge_trains))
}

fn find_mr(db: &Db, project: usize, iid: &str) -> Result<usize, axum::response::Response> {
    let iid = id(iid)?;
    db.projects[project]
        .merge_requests
        .iter()
        .position(|m| m.iid == iid)
        .ok_or_else(|| http::not_found("Merge Request"))
}

/// "Change configuration" (docs: https://docs.gitlab.com/api/merge_request_approvals/#change-configuration):
/// at least one setting, answered with the whole configuration.
async fn change_configuration(State(app): State<App>, Path(pid): Path<String>, ctx: Ctx) -> Reply {
    let db = lock(&app.db);
    writable(&db, &pid, &ctx)?;
    let mut settings = json!({
        "approvers": [],
        "approver_groups": [],
        "approvals_before_merge": 0,
        "reset_approvals_on_push": true,
        "selective_code_owner_removals": false,
        "disable_overriding_approvers_per_merge_request": false,
        "merge_requests_author_approval": false,
        "merge_requests_disable_committers_approval": false,
        "require_password_to_approve": false,
        "require_reauthentication_to_approve": false,
    });
    let mut changed = false;
    for (key, value) in settings.as_object_mut().expect("an object") {
        let Some(given) = ctx.param(key) else {
            continue;
        };
        *value = if key == "approvals_before_merge" {
            json!(given.parse::<u64>().map_err(|_| http::invalid_value(key))?)
        } else {
            json!(given == "true")
        };
        changed = true;
    }
    if !changed {
        // Grape's `at_least_one_of` message.
        return Err(http::message(
            400,
            "approvals_before_merge, reset_approvals_on_push, selective_code_owner_removals, disable_overriding_approvers_per_merge_request, merge_requests_author_approval, merge_requests_disable_committers_approval, require_password_to_approve, require_reauthentication_to_approve are missing, at least one parameter must be provided",
        ));
    }
    Ok(http::created(settings))
}

/// "Create merge request rule" (docs: https://docs.gitlab.com/api/merge_request_approvals/#create-merge-request-rule):
/// `name` and `approvals_required` required, approvers by user id.
async fn create_rule(
    State(app): State<App>,
    Path((pid, iid)): Path<(String, String)>,
    ctx: Ctx,
) -> Reply {
    let mut db = lock(&app.db);
    let p = writable(&db, &pid, &ctx)?;
    find_mr(&db, p, &iid)?;
    let name = ctx.require("name")?;
    let required: u64 = ctx
        .require("approvals_required")?
        .parse()
        .map_err(|_| http::invalid_value("approvals_required"))?;
    let mut users = Vec::new();
    for user in ctx.list("user_ids").unwrap_or_default() {
        let user: u64 = user.parse().map_err(|_| http::invalid_value("user_ids"))?;
        if db.user(user).is_none() {
            return Err(http::message(400, "400 Bad request - users not found"));
        }
        users.push(objects::user(&db, user));
    }
    let rule_id = db.next_id();
    Ok(http::created(json!({
        "id": rule_id,
        "name": name,
        "rule_type": "regular",
        "eligible_approvers": users.clone(),
        "approvals_required": required,
        "source_rule": null,
        "users": users,
        "groups": [],
        "contains_hidden_groups": false,
        "section": null,
        "overridden": false,
    })))
}

/// "List status checks for a merge request" (docs: https://docs.gitlab.com/api/status_checks/#list-status-checks-for-a-merge-request),
/// the documentation's two checks.
async fn status_checks(
    State(app): State<App>,
    Path((pid, iid)): Path<(String, String)>,
    ctx: Ctx,
) -> Reply {
    let db = lock(&app.db);
    let p = visible(&db, &pid, &ctx)?;
    find_mr(&db, p, &iid)?;
    Ok(http::ok(json!([
        {"id": 2, "name": "Service 1", "external_url": "https://checks.example.com/api/v1/checks", "status": "passed"},
        {"id": 1, "name": "Service 2", "external_url": "https://checks.example.com/api/v2/checks", "status": "pending"},
    ])))
}

/// "Create a merge request dependency" (docs: https://docs.gitlab.com/api/merge_requests/#create-a-merge-request-dependency):
/// exactly one of `blocking_merge_request_id` and `blocking_merge_request_iid`,
/// in this project; a merge request cannot wait for itself.
async fn create_dependency(
    State(app): State<App>,
    Path((pid, iid)): Path<(String, String)>,
    ctx: Ctx,
) -> Reply {
    let mut db = lock(&app.db);
    let p = writable(&db, &pid, &ctx)?;
    let blocked = find_mr(&db, p, &iid)?;
    let by_id = ctx.number("blocking_merge_request_id")?;
    let by_iid = ctx.number("blocking_merge_request_iid")?;
    let project = &db.projects[p];
    let blocking = match (by_id, by_iid) {
        (Some(n), None) => project.merge_requests.iter().position(|m| m.id == n),
        (None, Some(n)) => project.merge_requests.iter().position(|m| m.iid == n),
        _ => {
            return Err(http::message(
                400,
                "blocking_merge_request_id, blocking_merge_request_iid are mutually exclusive, exactly one parameter must be provided",
            ));
        }
    }
    .ok_or_else(|| http::not_found("Merge Request"))?;
    if blocking == blocked {
        return Err(http::message(
            400,
            "400 Bad request - blocking merge request can't be the same",
        ));
    }
    let block_id = db.next_id();
    let project = &db.projects[p];
    Ok(http::created(json!({
        "id": block_id,
        "blocking_merge_request": objects::merge_request(&db, project, &project.merge_requests[blocking], false),
        "blocked_merge_request": objects::merge_request(&db, project, &project.merge_requests[blocked], false),
        "project_id": project.id,
    })))
}

/// "List merge trains for a project" (docs: https://docs.gitlab.com/api/merge_trains/#list-merge-trains-for-a-project):
/// the open merge requests are the active cars, the merged ones the
/// complete cars; newest first unless `sort=asc`.
async fn merge_trains(State(app): State<App>, Path(pid): Path<String>, ctx: Ctx) -> Reply {
    let db = lock(&app.db);
    let p = &db.projects[visible(&db, &pid, &ctx)?];
    let scope = ctx.one_of("scope", &["active", "complete"])?;
    ctx.one_of("sort", &["asc", "desc"])?;
    let mut cars: Vec<Value> = p
        .merge_requests
        .iter()
        .filter(|m| match scope.as_deref() {
            Some("active") => m.state == "opened",
            Some(_) => m.state == "merged",
            None => m.state == "opened" || m.state == "merged",
        })
        .map(|m| {
            let web = format!("{}/{}", db.host, p.path_with_namespace);
            json!({
                "id": 900 + m.iid,
                "merge_request": {
                    "id": m.id, "iid": m.iid, "project_id": p.id, "title": m.title,
                    "description": m.description, "state": m.state,
                    "created_at": m.created_at, "updated_at": m.updated_at,
                    "web_url": format!("{web}/-/merge_requests/{}", m.iid),
                },
                "user": objects::user(&db, m.author_id),
                "pipeline": {
                    "id": 1900 + m.iid, "sha": sha(1900 + m.iid),
                    "ref": format!("refs/merge-requests/{}/train", m.iid),
                    "status": if m.state == "merged" { "success" } else { "running" },
                    "created_at": m.created_at, "updated_at": m.updated_at,
                    "web_url": format!("{web}/-/pipelines/{}", 1900 + m.iid),
                },
                "created_at": m.created_at,
                "updated_at": m.updated_at,
                "target_branch": m.target_branch,
                "status": if m.state == "merged" { "merged" } else { "fresh" },
                "merged_at": m.merged_at,
                "duration": 70,
            })
        })
        .collect();
    if ctx.param("sort").as_deref() != Some("asc") {
        cars.reverse();
    }
    Ok(http::paginate(cars, &ctx.query, &ctx.url))
}

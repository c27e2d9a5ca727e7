//! Merge requests, their notes, discussions, diffs, commits, merge and
//! approval (docs: https://docs.gitlab.com/api/merge_requests/, https://docs.gitlab.com/api/notes/, https://docs.gitlab.com/api/discussions/).

use axum::Router;
use axum::extract::{Path, State};
use axum::routing::{get, post, put};
use serde_json::{Value, json};

use super::{Ctx, Noteable, Reply, id, new_note, notes_page, visible, writable};
use crate::db::{AutoMerge, AutoMergeEnd, Db, MergeRequest, sha};
use crate::{App, http, lock, objects};

pub fn routes() -> Router<App> {
    let base = "/api/v4/projects/{id}/merge_requests";
    Router::new()
        .route(base, get(list).post(create))
        .route("/api/v4/merge_requests", get(all_merge_requests))
        .route(&format!("{base}/{{iid}}"), get(show).put(update))
        .route(&format!("{base}/{{iid}}/merge"), put(merge))
        .route(
            &format!("{base}/{{iid}}/cancel_merge_when_pipeline_succeeds"),
            post(cancel_auto_merge),
        )
        .route(&format!("{base}/{{iid}}/approve"), post(approve))
        .route(&format!("{base}/{{iid}}/unapprove"), post(unapprove))
        .route(&format!("{base}/{{iid}}/approvals"), get(approvals))
        .route(&format!("{base}/{{iid}}/diffs"), get(diffs))
        .route(&format!("{base}/{{iid}}/changes"), get(changes))
        .route(&format!("{base}/{{iid}}/versions"), get(versions))
        .route(
            &format!("{base}/{{iid}}/versions/{{version_id}}"),
            get(version),
        )
        .route(&format!("{base}/{{iid}}/pipelines"), get(pipelines))
        .route(&format!("{base}/{{iid}}/commits"), get(commits))
        .route(
            &format!("{base}/{{iid}}/notes"),
            get(notes).post(create_note),
        )
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
    // `search`: the title or description holds it (docs: api/merge_requests).
    let search = ctx.param("search").map(|s| s.to_lowercase());
    let items: Vec<Value> = p
        .merge_requests
        .iter()
        .rev()
        .filter(|m| state == "all" || m.state == state)
        .filter(|m| {
            search.as_ref().is_none_or(|s| {
                m.title.to_lowercase().contains(s) || m.description.to_lowercase().contains(s)
            })
        })
        .filter(|m| source.as_ref().is_none_or(|s| &m.source_branch == s))
        .filter(|m| target.as_ref().is_none_or(|t| &m.target_branch == t))
        .map(|m| objects::merge_request(&db, p, m, false))
        .collect();
    Ok(http::paginate(items, &ctx.query, &ctx.url))
}

/// Merge requests across the projects the caller can see; `scope`
/// defaults to `created_by_me`, `reviewer_id`/`reviewer_username` filter
/// (docs: https://docs.gitlab.com/api/merge_requests/#list-merge-requests).
async fn all_merge_requests(State(app): State<App>, ctx: Ctx) -> Reply {
    let db = lock(&app.db);
    let user = ctx.auth.ok_or_else(http::unauthorized)?.user_id;
    let state = ctx
        .one_of("state", &["opened", "closed", "locked", "merged", "all"])?
        .unwrap_or_else(|| "all".into());
    let scope = ctx
        .one_of("scope", &["created_by_me", "assigned_to_me", "all"])?
        .unwrap_or_else(|| "created_by_me".into());
    let reviewer = match (ctx.number("reviewer_id")?, ctx.param("reviewer_username")) {
        (Some(id), _) => Some(id),
        (None, Some(name)) => Some(
            db.users
                .iter()
                .find(|u| u.username == name)
                .map_or(0, |u| u.id),
        ),
        _ => None,
    };
    let mut items: Vec<(String, Value)> = Vec::new();
    for p in db
        .projects
        .iter()
        .filter(|p| p.visibility == "public" || p.members.contains(&user))
    {
        for m in &p.merge_requests {
            let mine = match scope.as_str() {
                "created_by_me" if reviewer.is_none() => m.author_id == user,
                "assigned_to_me" => m.assignee_ids.contains(&user),
                _ => true,
            };
            if mine
                && (state == "all" || m.state == state)
                && reviewer.is_none_or(|r| m.reviewer_ids.contains(&r))
            {
                items.push((
                    m.created_at.clone(),
                    objects::merge_request(&db, p, m, false),
                ));
            }
        }
    }
    items.sort_by(|a, b| b.0.cmp(&a.0));
    let items = items.into_iter().map(|(_, v)| v).collect();
    Ok(http::paginate(items, &ctx.query, &ctx.url))
}

/// One merge request. A read also moves a waiting auto-merge on: the
/// fake's pipelines do not run, so its head pipeline finishes after
/// `AutoMerge::reads_left` reads, and the merge happens (or fails) then,
/// as GitLab's auto-merge does once the pipeline succeeds.
async fn show(State(app): State<App>, Path((pid, iid)): Path<(String, String)>, ctx: Ctx) -> Reply {
    let mut db = lock(&app.db);
    let p = visible(&db, &pid, &ctx)?;
    let m = find(&db, p, &iid)?;
    advance_auto_merge(&mut db, p, m);
    Ok(full_answer(&db, p, m))
}

/// One read of a merge request waiting to auto-merge.
fn advance_auto_merge(db: &mut Db, p: usize, m: usize) {
    let mr = &mut db.projects[p].merge_requests[m];
    let Some(auto) = mr.auto_merge.as_mut() else {
        return;
    };
    auto.reads_left = auto.reads_left.saturating_sub(1);
    if auto.reads_left > 0 {
        return;
    }
    let (then, user) = (auto.then.clone(), auto.merge_user);
    mr.auto_merge = None;
    let pipeline = mr.head_pipeline_id;
    match then {
        AutoMergeEnd::Merged => {
            if let Some(pl) = db.projects[p]
                .pipelines
                .iter_mut()
                .find(|pl| Some(pl.id) == pipeline)
            {
                pl.status = "success".into();
            }
            merge_now(db, p, m, user);
        }
        AutoMergeEnd::Fails(error) => db.projects[p].merge_requests[m].merge_error = Some(error),
    }
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
        versions: vec![],
        milestone_id: None,
        head_pipeline_id: None,
        draft_notes: vec![],
        auto_merge: None,
        merge_error: None,
    };
    let mut mr = mr;
    if db.per_branch_files {
        // The sandbox computes the diff between the branches, as GitLab does.
        let version_id = db.next_id();
        let project = &db.projects[p];
        let head_of = |name: &str| {
            project
                .branches
                .iter()
                .find(|b| b.name == name)
                .map(|b| b.commit_sha.clone())
                .unwrap_or_default()
        };
        let (head, base) = (head_of(&mr.source_branch), head_of(&mr.target_branch));
        let on_target = super::repository::ancestors(project, &base);
        let mut commits = Vec::new();
        let mut at = Some(head.clone());
        while let Some(sha) = at.filter(|s| !on_target.contains(s)) {
            at = project
                .commits
                .iter()
                .find(|c| c.id == sha)
                .and_then(|c| c.parent_ids.first().cloned());
            commits.push(sha);
        }
        mr.sha = head.clone();
        mr.commit_shas = commits.clone();
        mr.versions = vec![crate::db::MrVersion {
            id: version_id,
            head_commit_sha: head,
            base_commit_sha: base.clone(),
            start_commit_sha: base,
            created_at: mr.created_at.clone(),
            commit_shas: commits,
            diffs: crate::sandbox::diff_files(
                project.files_at(&mr.target_branch),
                project.files_at(&mr.source_branch),
            ),
        }];
    }
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
    let ids = |name: &str| {
        ctx.list(name).map(|v| {
            v.iter()
                .filter_map(|s| s.parse::<u64>().ok())
                .filter(|id| *id != 0)
                .collect::<Vec<u64>>()
        })
    };
    if let Some(a) = ids("assignee_ids") {
        mr.assignee_ids = a;
    }
    if let Some(r) = ids("reviewer_ids") {
        mr.reviewer_ids = r;
    }
    if let Some(m) = ctx.number("milestone_id")? {
        mr.milestone_id = (m != 0).then_some(m);
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
/// mergeable, 405"), 409 when `sha` is not the head (`check_sha_param!`).
/// With `auto_merge` (or its old name `merge_when_pipeline_succeeds`)
/// while the head pipeline is still running, GitLab sets auto-merge
/// instead (`automatically_mergeable?`, lib/api/merge_requests.rb) and
/// answers the merge request as it stands.
async fn merge(
    State(app): State<App>,
    Path((pid, iid)): Path<(String, String)>,
    ctx: Ctx,
) -> Reply {
    let mut db = lock(&app.db);
    let p = writable(&db, &pid, &ctx)?;
    let m = find(&db, p, &iid)?;
    let user = ctx.auth.expect("writable has a user").user_id;
    let auto = ctx
        .flag("auto_merge")
        .or(ctx.flag("merge_when_pipeline_succeeds"))
        .unwrap_or(false);
    let project = &db.projects[p];
    let mr = &project.merge_requests[m];
    if mr.state != "opened" || mr.draft {
        return Err(http::message(405, "405 Method Not Allowed"));
    }
    if let Some(sha) = ctx.param("sha")
        && sha != mr.sha
    {
        return Err(sha_mismatch(&mr.sha));
    }
    let running = project.pipelines.iter().any(|pl| {
        Some(pl.id) == mr.head_pipeline_id
            && matches!(pl.status.as_str(), "created" | "pending" | "running")
    });
    if auto && running {
        let mr = &mut db.projects[p].merge_requests[m];
        mr.auto_merge = Some(AutoMerge {
            reads_left: 2,
            then: AutoMergeEnd::Merged,
            merge_user: user,
        });
        return Ok(full_answer(&db, p, m));
    }
    merge_now(&mut db, p, m, user);
    Ok(full_answer(&db, p, m))
}

/// The merge itself; in the sandbox, the target branch gets the source's
/// files in a merge commit.
fn merge_now(db: &mut Db, p: usize, m: usize, user: u64) {
    let now = db.now();
    let per_branch = db.per_branch_files;
    let mr = &mut db.projects[p].merge_requests[m];
    mr.state = "merged".into();
    mr.merged_at = Some(now.clone());
    mr.merged_by = Some(user);
    mr.merge_commit_sha = Some(sha(7000 + mr.iid));
    mr.updated_at = now;
    if per_branch {
        let (source, target) = (mr.source_branch.clone(), mr.target_branch.clone());
        let files = db.projects[p].files_at(&source).clone();
        let message = format!("Merge branch '{source}' into '{target}'");
        let merged = super::repository::commit_files(db, p, &target, None, &message, user, files);
        db.projects[p].merge_requests[m].merge_commit_sha = Some(merged);
    }
}

/// GitLab's `check_sha_param!` (lib/api/helpers.rb), for merge and approve.
fn sha_mismatch(head: &str) -> axum::response::Response {
    http::message(
        409,
        &format!("SHA does not match HEAD of source branch: {head}"),
    )
}

/// "Cancel Merge When Pipeline Succeeds" (docs:
/// https://docs.gitlab.com/api/merge_requests/#cancel-merge-when-pipeline-succeeds):
/// 201 with the merge request, or 406 when auto-merge is not set
/// (`AutoMerge::BaseService#cancel`).
async fn cancel_auto_merge(
    State(app): State<App>,
    Path((pid, iid)): Path<(String, String)>,
    ctx: Ctx,
) -> Reply {
    let mut db = lock(&app.db);
    let p = writable(&db, &pid, &ctx)?;
    let m = find(&db, p, &iid)?;
    let mr = &mut db.projects[p].merge_requests[m];
    if mr.auto_merge.take().is_none() {
        return Err(http::message(406, "Can't cancel the automatic merge"));
    }
    let project = &db.projects[p];
    Ok(http::created(objects::merge_request(
        &db,
        project,
        &project.merge_requests[m],
        true,
    )))
}

/// The approval state (docs: https://docs.gitlab.com/api/merge_request_approvals/,
/// "Retrieve approval state for a merge request"), as seen by `viewer`.
fn approval_state(db: &Db, p: usize, m: usize, viewer: Option<u64>) -> Value {
    let project = &db.projects[p];
    let mr = &project.merge_requests[m];
    let approvers: Vec<Value> = mr
        .approved_by
        .iter()
        .map(|u| json!({"user": objects::user(db, *u)}))
        .collect();
    let has_approved = viewer.is_some_and(|v| mr.approved_by.contains(&v));
    json!({
        "id": mr.id, "iid": mr.iid, "project_id": project.id, "title": mr.title,
        "description": mr.description, "state": mr.state, "created_at": mr.created_at,
        "updated_at": mr.updated_at, "merge_status": "can_be_merged",
        "approved": !mr.approved_by.is_empty(), "approvals_required": 0,
        "approvals_left": 0, "require_password_to_approve": false, "approved_by": approvers,
        "suggested_approvers": [], "approvers": [], "approver_groups": [],
        "user_has_approved": has_approved,
        "user_can_approve": viewer.is_some_and(|v| !has_approved && v != mr.author_id),
        "approval_rules_left": [], "has_approval_rules": false,
        "merge_request_approvers_available": false,
        "multiple_approval_rules_available": false, "invalid_approvers_rules": []
    })
}

async fn approvals(
    State(app): State<App>,
    Path((pid, iid)): Path<(String, String)>,
    ctx: Ctx,
) -> Reply {
    let db = lock(&app.db);
    let p = visible(&db, &pid, &ctx)?;
    let m = find(&db, p, &iid)?;
    Ok(http::ok(approval_state(
        &db,
        p,
        m,
        ctx.auth.map(|a| a.user_id),
    )))
}

/// Approve: 201 with the approval state (docs: "Approve a merge
/// request"); a `sha` that is not the head is a 409 naming the head
/// (`check_sha_param!`, before the approval, lib/api/merge_request_approvals.rb);
/// approving twice is a 401 in GitLab's code.
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
    if let Some(sha) = ctx.param("sha")
        && sha != mr.sha
    {
        return Err(sha_mismatch(&mr.sha));
    }
    if mr.approved_by.contains(&user) {
        return Err(http::unauthorized());
    }
    mr.approved_by.push(user);
    Ok(http::created(approval_state(&db, p, m, Some(user))))
}

/// Unapprove: 201 with the approval state; a 404 when the caller had not
/// approved (docs: "Unapprove a merge request").
async fn unapprove(
    State(app): State<App>,
    Path((pid, iid)): Path<(String, String)>,
    ctx: Ctx,
) -> Reply {
    let mut db = lock(&app.db);
    let p = writable(&db, &pid, &ctx)?;
    let m = find(&db, p, &iid)?;
    let user = ctx.auth.expect("writable has a user").user_id;
    let mr = &mut db.projects[p].merge_requests[m];
    let before = mr.approved_by.len();
    mr.approved_by.retain(|u| *u != user);
    if mr.approved_by.len() == before {
        return Err(http::message(404, "404 Not Found"));
    }
    Ok(http::created(approval_state(&db, p, m, Some(user))))
}

fn diff_values(diffs: &[crate::db::FileDiff]) -> Vec<Value> {
    diffs
        .iter()
        .map(|(o, n, d, new, del)| objects::diff(o, n, d, *new, *del))
        .collect()
}

/// The merge request with its latest diffs in `changes` (docs: "Get
/// single merge request changes", deprecated for `diffs` but served).
async fn changes(
    State(app): State<App>,
    Path((pid, iid)): Path<(String, String)>,
    ctx: Ctx,
) -> Reply {
    let db = lock(&app.db);
    let p = visible(&db, &pid, &ctx)?;
    let m = find(&db, p, &iid)?;
    let project = &db.projects[p];
    let mr = &project.merge_requests[m];
    let mut v = objects::merge_request(&db, project, mr, true);
    v["changes"] = Value::Array(diff_values(&project.mr_diffs(mr)));
    v["overflow"] = json!(false);
    Ok(http::ok(v))
}

fn version_json(mr: &MergeRequest, v: &crate::db::MrVersion) -> Value {
    json!({
        "id": v.id,
        "head_commit_sha": v.head_commit_sha,
        "base_commit_sha": v.base_commit_sha,
        "start_commit_sha": v.start_commit_sha,
        "created_at": v.created_at,
        "merge_request_id": mr.id,
        "state": "collected",
        "real_size": v.diffs.len().to_string(),
        "patch_id_sha": sha(v.id),
    })
}

/// Diff versions, newest first (docs:
/// https://docs.gitlab.com/api/merge_requests/#get-merge-request-diff-versions).
async fn versions(
    State(app): State<App>,
    Path((pid, iid)): Path<(String, String)>,
    ctx: Ctx,
) -> Reply {
    let db = lock(&app.db);
    let p = visible(&db, &pid, &ctx)?;
    let m = find(&db, p, &iid)?;
    let project = &db.projects[p];
    let mr = &project.merge_requests[m];
    let items = project
        .mr_versions(mr)
        .iter()
        .rev()
        .map(|v| version_json(mr, v))
        .collect();
    Ok(http::paginate(items, &ctx.query, &ctx.url))
}

/// One version with its `commits` and `diffs` (docs: "Get a single merge
/// request diff version"); an unknown id is GitLab's `404 Not found`.
async fn version(
    State(app): State<App>,
    Path((pid, iid, version_id)): Path<(String, String, String)>,
    ctx: Ctx,
) -> Reply {
    let db = lock(&app.db);
    let p = visible(&db, &pid, &ctx)?;
    let m = find(&db, p, &iid)?;
    let version_id = id(&version_id)?;
    let project = &db.projects[p];
    let mr = &project.merge_requests[m];
    let v = project
        .mr_versions(mr)
        .into_iter()
        .find(|v| v.id == version_id)
        .ok_or_else(|| http::message(404, "404 Not found"))?;
    let mut out = version_json(mr, &v);
    out["commits"] = Value::Array(
        v.commit_shas
            .iter()
            .filter_map(|s| project.commits.iter().find(|c| &c.id == s))
            .map(|c| objects::commit(&db, project, c, false))
            .collect(),
    );
    out["diffs"] = Value::Array(diff_values(&v.diffs));
    Ok(http::ok(out))
}

/// Pipelines of the merge request's source branch, newest first (docs:
/// "List merge request pipelines").
async fn pipelines(
    State(app): State<App>,
    Path((pid, iid)): Path<(String, String)>,
    ctx: Ctx,
) -> Reply {
    let db = lock(&app.db);
    let p = visible(&db, &pid, &ctx)?;
    let m = find(&db, p, &iid)?;
    let project = &db.projects[p];
    let mr = &project.merge_requests[m];
    let items = project
        .pipelines
        .iter()
        .rev()
        .filter(|pl| pl.git_ref == mr.source_branch || mr.head_pipeline_id == Some(pl.id))
        .map(|pl| objects::pipeline(&db, project, pl, false))
        .collect();
    Ok(http::paginate(items, &ctx.query, &ctx.url))
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
    let items = diff_values(&project.mr_diffs(&project.merge_requests[m]));
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
    let on = Noteable::merge_request(project, mr);
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
    let on = Noteable::merge_request(project, mr);
    Ok(http::created(on.render(&db, mr.notes.last().unwrap())))
}

//! Branches, tags, commits, files, tree and compare (docs: https://docs.gitlab.com/api/branches/,
//! https://docs.gitlab.com/api/tags/, https://docs.gitlab.com/api/commits/, https://docs.gitlab.com/api/repository_files/, https://docs.gitlab.com/api/repositories/).

use std::collections::{BTreeMap, BTreeSet};

use axum::Router;
use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::routing::get;
use serde_json::{Value, json};

use super::{Ctx, Reply, visible, writable};
use crate::db::{Branch, Commit, Db, Project, Tag, sha};
use crate::{App, http, lock, objects};

pub fn routes() -> Router<App> {
    let r = "/api/v4/projects/{id}/repository";
    Router::new()
        .route(&format!("{r}/branches"), get(branches).post(create_branch))
        .route(
            &format!("{r}/branches/{{branch}}"),
            get(branch).delete(delete_branch),
        )
        .route(&format!("{r}/tags"), get(tags).post(create_tag))
        .route(&format!("{r}/tags/{{tag_name}}"), get(tag))
        .route(&format!("{r}/commits"), get(commits))
        .route(&format!("{r}/commits/{{sha}}"), get(commit))
        .route(&format!("{r}/commits/{{sha}}/diff"), get(commit_diff))
        .route(
            &format!("{r}/files/{{file_path}}"),
            get(file)
                .post(create_file)
                .put(update_file)
                .delete(delete_file),
        )
        .route(&format!("{r}/files/{{file_path}}/raw"), get(raw_file))
        .route(&format!("{r}/tree"), get(tree))
        .route(
            "/api/v4/projects/{id}/protected_branches/{branch}",
            get(protected_branch).patch(update_protected_branch),
        )
        .route(&format!("{r}/compare"), get(compare))
}

/// A ref (branch, tag or SHA) to its commit.
pub fn resolve<'a>(p: &'a Project, git_ref: &str) -> Option<&'a Commit> {
    let sha = p
        .branches
        .iter()
        .find(|b| b.name == git_ref)
        .map(|b| b.commit_sha.clone())
        .or_else(|| {
            p.tags
                .iter()
                .find(|t| t.name == git_ref)
                .map(|t| t.target.clone())
        })
        .unwrap_or_else(|| git_ref.to_string());
    p.commits
        .iter()
        .find(|c| c.id == sha || (sha.len() >= 7 && c.id.starts_with(&sha)))
}

/// The commits reachable from `head`, itself included.
pub fn ancestors(p: &Project, head: &str) -> BTreeSet<String> {
    let mut seen = BTreeSet::new();
    let mut todo = vec![head.to_string()];
    while let Some(sha) = todo.pop() {
        if !seen.insert(sha.clone()) {
            continue;
        }
        if let Some(c) = p.commits.iter().find(|c| c.id == sha) {
            todo.extend(c.parent_ids.iter().cloned());
        }
    }
    seen
}

/// With per-branch files: `files` become `branch`'s in a new commit on it
/// (created from `start`, or the default branch, if it does not exist),
/// and every open merge request from that branch gets a new diff version,
/// as a push does in GitLab. Returns the commit's SHA.
pub fn commit_files(
    db: &mut Db,
    p: usize,
    branch: &str,
    start: Option<&str>,
    message: &str,
    author: u64,
    files: BTreeMap<String, String>,
) -> String {
    let id = db.next_id();
    let now = db.now();
    let user = db.user(author).cloned().expect("known user");
    let project = &mut db.projects[p];
    let from = start.unwrap_or(branch);
    let parent = project
        .branches
        .iter()
        .find(|b| b.name == branch)
        .or_else(|| project.branches.iter().find(|b| b.name == from))
        .or_else(|| {
            project
                .branches
                .iter()
                .find(|b| b.name == project.default_branch)
        })
        .map(|b| b.commit_sha.clone());
    let before = project.files_at(branch).clone();
    let before = if project.branches.iter().any(|b| b.name == branch) {
        before
    } else {
        project.files_at(from).clone()
    };
    let commit = Commit {
        id: sha(id),
        title: message.lines().next().unwrap_or_default().to_string(),
        message: message.to_string(),
        author_name: user.name.clone(),
        author_email: format!("{}@example.com", user.username),
        date: now.replace(".000Z", ".000+00:00"),
        parent_ids: parent.into_iter().collect(),
        diffs: crate::sandbox::diff_files(&before, &files),
    };
    let new_sha = commit.id.clone();
    project.commits.insert(0, commit);
    match project.branches.iter_mut().find(|b| b.name == branch) {
        Some(b) => b.commit_sha = new_sha.clone(),
        None => project.branches.push(Branch {
            name: branch.to_string(),
            commit_sha: new_sha.clone(),
            protected: false,
            allow_force_push: false,
        }),
    }
    if branch == project.default_branch {
        project.files = files;
    } else {
        project.branch_files.insert(branch.to_string(), files);
    }
    push_versions(db, p, branch, &new_sha, &now);
    new_sha
}

/// A new diff version for each open merge request from `branch`.
fn push_versions(db: &mut Db, p: usize, branch: &str, head: &str, now: &str) {
    let open: Vec<usize> = db.projects[p]
        .merge_requests
        .iter()
        .enumerate()
        .filter(|(_, m)| m.state == "opened" && m.source_branch == branch)
        .map(|(i, _)| i)
        .collect();
    for m in open {
        let id = db.next_id();
        let project = &mut db.projects[p];
        let target = project.merge_requests[m].target_branch.clone();
        let base = project
            .branches
            .iter()
            .find(|b| b.name == target)
            .map(|b| b.commit_sha.clone())
            .unwrap_or_default();
        let diffs = crate::sandbox::diff_files(project.files_at(&target), project.files_at(branch));
        let mr = &mut project.merge_requests[m];
        mr.commit_shas.insert(0, head.to_string());
        mr.sha = head.to_string();
        mr.updated_at = now.to_string();
        mr.versions.push(crate::db::MrVersion {
            id,
            head_commit_sha: head.to_string(),
            base_commit_sha: base.clone(),
            start_commit_sha: base,
            created_at: now.to_string(),
            commit_shas: mr.commit_shas.clone(),
            diffs,
        });
    }
}

fn not_found(what: &str) -> axum::response::Response {
    http::not_found(what)
}

/// A branch or tag `search`: the name contains it; `^term` anchors it at
/// the start and `term$` at the end (docs:
/// https://docs.gitlab.com/api/branches/#list-repository-branches and
/// https://docs.gitlab.com/api/tags/#list-project-repository-tags).
fn ref_matches(name: &str, search: Option<&String>) -> bool {
    let Some(search) = search else {
        return true;
    };
    match (search.strip_prefix('^'), search.strip_suffix('$')) {
        (Some(start), _) => name.starts_with(start),
        (None, Some(end)) => name.ends_with(end),
        (None, None) => name.contains(search.as_str()),
    }
}

async fn branches(State(app): State<App>, Path(pid): Path<String>, ctx: Ctx) -> Reply {
    let db = lock(&app.db);
    let p = &db.projects[visible(&db, &pid, &ctx)?];
    let search = ctx.param("search");
    let items = p
        .branches
        .iter()
        .filter(|b| ref_matches(&b.name, search.as_ref()))
        .map(|b| objects::branch(&db, p, b))
        .collect();
    Ok(http::paginate(items, &ctx.query, &ctx.url))
}

async fn branch(
    State(app): State<App>,
    Path((pid, name)): Path<(String, String)>,
    ctx: Ctx,
) -> Reply {
    let db = lock(&app.db);
    let p = &db.projects[visible(&db, &pid, &ctx)?];
    let b = p
        .branches
        .iter()
        .find(|b| b.name == name)
        .ok_or_else(|| not_found("Branch"))?;
    Ok(http::ok(objects::branch(&db, p, b)))
}

/// `POST /repository/branches` with `branch` and `ref`: an existing branch
/// is a 400 `Branch already exists`, an unknown ref a 400 `Invalid reference
/// name` (GitLab's lib/api/branches.rb renders both as 400).
async fn create_branch(State(app): State<App>, Path(pid): Path<String>, ctx: Ctx) -> Reply {
    let mut db = lock(&app.db);
    let p = writable(&db, &pid, &ctx)?;
    let name = ctx.require("branch")?;
    let git_ref = ctx.require("ref")?;
    let project = &db.projects[p];
    if project.branches.iter().any(|b| b.name == name) {
        return Err(http::message(400, "Branch already exists"));
    }
    let target = resolve(project, &git_ref)
        .ok_or_else(|| http::message(400, "Invalid reference name: ".to_string().as_str()))?;
    let commit_sha = target.id.clone();
    if db.per_branch_files {
        let files = db.projects[p].files_at(&git_ref).clone();
        db.projects[p].branch_files.insert(name.clone(), files);
    }
    db.projects[p].branches.push(Branch {
        name,
        commit_sha,
        protected: false,
        allow_force_push: false,
    });
    let project = &db.projects[p];
    Ok(http::created(objects::branch(
        &db,
        project,
        project.branches.last().unwrap(),
    )))
}

/// Deleting a protected or the default branch is refused with a 400 by
/// GitLab's branch-deletion service; 204 on success.
async fn delete_branch(
    State(app): State<App>,
    Path((pid, name)): Path<(String, String)>,
    ctx: Ctx,
) -> Reply {
    let mut db = lock(&app.db);
    let p = writable(&db, &pid, &ctx)?;
    let project = &db.projects[p];
    let i = project
        .branches
        .iter()
        .position(|b| b.name == name)
        .ok_or_else(|| not_found("Branch"))?;
    if project.branches[i].protected || project.default_branch == name {
        return Err(http::message(400, "Protected branch cant be removed"));
    }
    db.projects[p].branches.remove(i);
    db.projects[p].branch_files.remove(&name);
    Ok(http::no_content())
}

async fn tags(State(app): State<App>, Path(pid): Path<String>, ctx: Ctx) -> Reply {
    let db = lock(&app.db);
    let p = &db.projects[visible(&db, &pid, &ctx)?];
    ctx.one_of("order_by", &["name", "updated", "version"])?;
    ctx.one_of("sort", &["asc", "desc"])?;
    let search = ctx.param("search");
    let items = p
        .tags
        .iter()
        .rev()
        .filter(|t| ref_matches(&t.name, search.as_ref()))
        .map(|t| objects::tag(&db, p, t))
        .collect();
    Ok(http::paginate(items, &ctx.query, &ctx.url))
}

async fn tag(State(app): State<App>, Path((pid, name)): Path<(String, String)>, ctx: Ctx) -> Reply {
    let db = lock(&app.db);
    let p = &db.projects[visible(&db, &pid, &ctx)?];
    let t = p
        .tags
        .iter()
        .find(|t| t.name == name)
        .ok_or_else(|| not_found("Tag"))?;
    Ok(http::ok(objects::tag(&db, p, t)))
}

async fn create_tag(State(app): State<App>, Path(pid): Path<String>, ctx: Ctx) -> Reply {
    let mut db = lock(&app.db);
    let p = writable(&db, &pid, &ctx)?;
    let name = ctx.require("tag_name")?;
    let git_ref = ctx.require("ref")?;
    let project = &db.projects[p];
    if project.tags.iter().any(|t| t.name == name) {
        return Err(http::message(400, &format!("Tag {name} already exists")));
    }
    let target = resolve(project, &git_ref)
        .ok_or_else(|| http::message(400, "Target ref is invalid"))?
        .id
        .clone();
    db.projects[p].tags.push(Tag {
        name,
        message: ctx.param("message"),
        target,
    });
    let project = &db.projects[p];
    Ok(http::created(objects::tag(
        &db,
        project,
        project.tags.last().unwrap(),
    )))
}

async fn commits(State(app): State<App>, Path(pid): Path<String>, ctx: Ctx) -> Reply {
    let db = lock(&app.db);
    let p = &db.projects[visible(&db, &pid, &ctx)?];
    let mut from = None;
    if let Some(r) = ctx.param("ref_name") {
        from = Some(
            resolve(p, &r)
                .ok_or_else(|| not_found("Commit"))?
                .id
                .clone(),
        );
    }
    // Branches have their own history in the sandbox: the ref's ancestors.
    let reachable = db.per_branch_files.then(|| {
        let head = from.unwrap_or_else(|| {
            p.branches
                .iter()
                .find(|b| b.name == p.default_branch)
                .map(|b| b.commit_sha.clone())
                .unwrap_or_default()
        });
        ancestors(p, &head)
    });
    let path = ctx.param("path");
    let items = p
        .commits
        .iter()
        .filter(|c| reachable.as_ref().is_none_or(|r| r.contains(&c.id)))
        .filter(|c| {
            path.as_ref()
                .is_none_or(|f| c.diffs.iter().any(|d| &d.1 == f))
        })
        .map(|c| objects::commit(&db, p, c, false))
        .collect();
    Ok(http::paginate(items, &ctx.query, &ctx.url))
}

async fn commit(
    State(app): State<App>,
    Path((pid, sha)): Path<(String, String)>,
    ctx: Ctx,
) -> Reply {
    let db = lock(&app.db);
    let p = &db.projects[visible(&db, &pid, &ctx)?];
    let c = resolve(p, &sha).ok_or_else(|| not_found("Commit"))?;
    Ok(http::ok(objects::commit(&db, p, c, true)))
}

async fn commit_diff(
    State(app): State<App>,
    Path((pid, sha)): Path<(String, String)>,
    ctx: Ctx,
) -> Reply {
    let db = lock(&app.db);
    let p = &db.projects[visible(&db, &pid, &ctx)?];
    let c = resolve(p, &sha).ok_or_else(|| not_found("Commit"))?;
    let items = c
        .diffs
        .iter()
        .map(|(o, n, d, new, del)| objects::diff(o, n, d, *new, *del))
        .collect();
    Ok(http::paginate(items, &ctx.query, &ctx.url))
}

/// `GET /repository/files/:file_path?ref=`: `ref` is required (docs).
async fn file(
    State(app): State<App>,
    Path((pid, path)): Path<(String, String)>,
    ctx: Ctx,
) -> Reply {
    let db = lock(&app.db);
    let p = &db.projects[visible(&db, &pid, &ctx)?];
    let git_ref = ctx.require("ref")?;
    resolve(p, &git_ref).ok_or_else(|| not_found("Commit"))?;
    let content = p
        .files_at(&git_ref)
        .get(&path)
        .ok_or_else(|| not_found("File"))?;
    Ok(http::ok(objects::file(p, &path, &git_ref, content)))
}

/// Raw content; `ref` defaults to the default branch (docs).
async fn raw_file(
    State(app): State<App>,
    Path((pid, path)): Path<(String, String)>,
    ctx: Ctx,
) -> Reply {
    let db = lock(&app.db);
    let p = &db.projects[visible(&db, &pid, &ctx)?];
    let git_ref = ctx.param("ref").unwrap_or_else(|| p.default_branch.clone());
    resolve(p, &git_ref).ok_or_else(|| not_found("Commit"))?;
    let content = p
        .files_at(&git_ref)
        .get(&path)
        .ok_or_else(|| not_found("File"))?;
    Ok(http::text(content.clone()))
}

/// Create: `branch`, `content`, `commit_message` required; an existing file
/// is a 400 `A file with this name already exists` (docs, repository files).
async fn create_file(
    State(app): State<App>,
    Path((pid, path)): Path<(String, String)>,
    ctx: Ctx,
) -> Reply {
    write_file(&app, &pid, &path, &ctx, true).await
}

async fn update_file(
    State(app): State<App>,
    Path((pid, path)): Path<(String, String)>,
    ctx: Ctx,
) -> Reply {
    write_file(&app, &pid, &path, &ctx, false).await
}

async fn write_file(app: &App, pid: &str, path: &str, ctx: &Ctx, create: bool) -> Reply {
    let mut db = lock(&app.db);
    let p = writable(&db, pid, ctx)?;
    let branch = ctx.require("branch")?;
    let content = ctx
        .param("content")
        .ok_or_else(|| http::missing("content"))?;
    let message = ctx.require("commit_message")?;
    ctx.one_of("encoding", &["text", "base64"])?;
    let from = ctx.param("start_branch").unwrap_or_else(|| branch.clone());
    let exists = if db.per_branch_files {
        db.projects[p].files_at(&from).contains_key(path)
    } else {
        db.projects[p].files.contains_key(path)
    };
    if create && exists {
        return Err(http::message(400, "A file with this name already exists"));
    }
    if !create && !exists {
        return Err(http::message(400, "A file with this name doesn't exist"));
    }
    if !db.projects[p].branches.iter().any(|b| b.name == branch)
        && ctx.param("start_branch").is_none()
    {
        return Err(http::message(
            400,
            "You can only create or edit files when you are on a branch",
        ));
    }
    if db.per_branch_files {
        let mut files = db.projects[p].files_at(&from).clone();
        files.insert(path.to_string(), content);
        let author = ctx.auth.expect("writable has a user").user_id;
        commit_files(&mut db, p, &branch, Some(&from), &message, author, files);
    } else {
        db.projects[p].files.insert(path.to_string(), content);
    }
    let status = if create {
        StatusCode::CREATED
    } else {
        StatusCode::OK
    };
    Ok(http::json_response(
        status,
        json!({"file_path": path, "branch": branch}),
    ))
}

async fn delete_file(
    State(app): State<App>,
    Path((pid, path)): Path<(String, String)>,
    ctx: Ctx,
) -> Reply {
    let mut db = lock(&app.db);
    let p = writable(&db, &pid, &ctx)?;
    let branch = ctx.require("branch")?;
    let message = ctx.require("commit_message")?;
    if db.per_branch_files {
        let mut files = db.projects[p].files_at(&branch).clone();
        if files.remove(&path).is_none() {
            return Err(http::message(400, "A file with this name doesn't exist"));
        }
        let author = ctx.auth.expect("writable has a user").user_id;
        commit_files(&mut db, p, &branch, None, &message, author, files);
        return Ok(http::no_content());
    }
    if db.projects[p].files.remove(&path).is_none() {
        return Err(http::message(400, "A file with this name doesn't exist"));
    }
    Ok(http::no_content())
}

/// Tree entries (docs: https://docs.gitlab.com/api/repositories/); offset or keyset (`page_token`).
async fn tree(State(app): State<App>, Path(pid): Path<String>, ctx: Ctx) -> Reply {
    let db = lock(&app.db);
    let p = &db.projects[visible(&db, &pid, &ctx)?];
    let git_ref = ctx.param("ref").unwrap_or_else(|| p.default_branch.clone());
    resolve(p, &git_ref).ok_or_else(|| not_found("Tree"))?;
    let files = p.files_at(&git_ref);
    let prefix = ctx
        .param("path")
        .map(|s| format!("{}/", s.trim_end_matches('/')))
        .unwrap_or_default();
    let recursive = ctx.flag("recursive").unwrap_or(false);
    let mut entries: BTreeSet<(String, &'static str)> = BTreeSet::new();
    for file in files.keys() {
        let Some(rest) = file.strip_prefix(&prefix) else {
            continue;
        };
        match rest.split_once('/') {
            Some((dir, _)) if !recursive => {
                entries.insert((format!("{prefix}{dir}"), "tree"));
            }
            _ => {
                entries.insert((file.clone(), "blob"));
            }
        }
    }
    if recursive {
        for file in files.keys().filter(|f| f.starts_with(&prefix)) {
            let mut dir = file.as_str();
            while let Some((parent, _)) = dir.rsplit_once('/') {
                if parent.len() + 1 > prefix.len() {
                    entries.insert((parent.to_string(), "tree"));
                }
                dir = parent;
            }
        }
    }
    let items: Vec<Value> = entries
        .iter()
        .map(|(path, kind)| {
            json!({
                "id": sha(path.len() as u64 + 11),
                "name": path.rsplit('/').next().unwrap_or(path),
                "type": kind,
                "path": path,
                "mode": if *kind == "tree" { "040000" } else { "100644" },
            })
        })
        .collect();
    if items.is_empty() && !prefix.is_empty() {
        return Err(not_found("Tree"));
    }
    Ok(http::paginate(items, &ctx.query, &ctx.url))
}

async fn compare(State(app): State<App>, Path(pid): Path<String>, ctx: Ctx) -> Reply {
    let db = lock(&app.db);
    let p = &db.projects[visible(&db, &pid, &ctx)?];
    let from = ctx.require("from")?;
    let to = ctx.require("to")?;
    let a = resolve(p, &from).ok_or_else(|| not_found("Ref"))?;
    let b = resolve(p, &to).ok_or_else(|| not_found("Ref"))?;
    let ia = p.commits.iter().position(|c| c.id == a.id).unwrap();
    let ib = p.commits.iter().position(|c| c.id == b.id).unwrap();
    let between: Vec<&Commit> = if ib < ia {
        p.commits[ib..ia].iter().collect()
    } else {
        Vec::new()
    };
    let diffs: Vec<Value> = between
        .iter()
        .flat_map(|c| {
            c.diffs
                .iter()
                .map(|(o, n, d, new, del)| objects::diff(o, n, d, *new, *del))
        })
        .collect();
    Ok(http::ok(json!({
        "commit": objects::commit(&db, p, b, false),
        "commits": between.iter().map(|c| objects::commit(&db, p, c, false)).collect::<Vec<_>>(),
        "diffs": diffs,
        "compare_timeout": false,
        "compare_same_ref": a.id == b.id,
        "web_url": format!("{}/{}/-/compare/{}...{}", db.host, p.path_with_namespace, a.id, b.id),
    })))
}

/// A protected branch (docs: https://docs.gitlab.com/api/protected_branches/); Maintainers push and
/// merge in the seed.
fn protected_json(b: &Branch) -> Value {
    let level = |id: u64| json!([{"id": id, "access_level": 40, "access_level_description": "Maintainers", "deploy_key_id": null, "user_id": null, "group_id": null}]);
    json!({
        "id": b.name.len() as u64 + 700,
        "name": b.name,
        "push_access_levels": level(1),
        "merge_access_levels": level(2),
        "unprotect_access_levels": [],
        "allow_force_push": b.allow_force_push,
        "code_owner_approval_required": false,
        "inherited": false,
    })
}

async fn protected_branch(
    State(app): State<App>,
    Path((pid, name)): Path<(String, String)>,
    ctx: Ctx,
) -> Reply {
    let db = lock(&app.db);
    let p = &db.projects[visible(&db, &pid, &ctx)?];
    let b = p
        .branches
        .iter()
        .find(|b| b.name == name && b.protected)
        .ok_or_else(|| not_found("Protected Branch"))?;
    Ok(http::ok(protected_json(b)))
}

/// `PATCH /protected_branches/:name` (docs: "Update a protected branch").
async fn update_protected_branch(
    State(app): State<App>,
    Path((pid, name)): Path<(String, String)>,
    ctx: Ctx,
) -> Reply {
    let mut db = lock(&app.db);
    let p = writable(&db, &pid, &ctx)?;
    let b = db.projects[p]
        .branches
        .iter_mut()
        .find(|b| b.name == name && b.protected)
        .ok_or_else(|| not_found("Protected Branch"))?;
    if let Some(force) = ctx.flag("allow_force_push") {
        b.allow_force_push = force;
    }
    Ok(http::ok(protected_json(b)))
}

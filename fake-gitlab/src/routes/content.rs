//! Labels, milestones, releases, wikis, snippets, packages, search,
//! uploads and multi-file commits (docs: the API page of each).

use axum::Router;
use axum::extract::{Multipart, Path, State};
use axum::http::HeaderMap;
use axum::routing::{get, post};
use serde_json::{Value, json};

use super::{Ctx, Reply, visible, writable};
use crate::db::{Commit, Label, Package, Release, WikiPage, sha};
use crate::{App, http, lock, objects};

pub fn routes() -> Router<App> {
    let p = "/api/v4/projects/{id}";
    Router::new()
        .route(&format!("{p}/labels"), get(labels).post(create_label))
        .route(
            &format!("{p}/labels/{{label_id}}"),
            get(label).put(update_label).delete(delete_label),
        )
        .route(&format!("{p}/milestones"), get(milestones))
        .route(&format!("{p}/milestones/{{milestone_id}}"), get(milestone))
        .route(&format!("{p}/releases"), get(releases).post(create_release))
        .route(&format!("{p}/releases/{{tag_name}}"), get(release))
        .route(&format!("{p}/wikis"), get(wikis).post(create_wiki))
        .route(
            &format!("{p}/wikis/{{slug}}"),
            get(wiki).put(update_wiki).delete(delete_wiki),
        )
        .route(&format!("{p}/snippets"), get(snippets))
        .route(
            &format!("{p}/snippets/{{snippet_id}}/raw"),
            get(snippet_raw),
        )
        .route(&format!("{p}/packages"), get(packages))
        .route(
            &format!("{p}/packages/generic/{{package_name}}/{{package_version}}/{{*file_name}}"),
            get(generic_download).put(generic_upload),
        )
        .route(&format!("{p}/search"), get(project_search))
        .route("/api/v4/search", get(global_search))
        .route(&format!("{p}/uploads"), post(upload))
        .route(&format!("{p}/repository/commits"), post(create_commit))
}

async fn labels(State(app): State<App>, Path(pid): Path<String>, ctx: Ctx) -> Reply {
    let db = lock(&app.db);
    let p = &db.projects[visible(&db, &pid, &ctx)?];
    let search = ctx.param("search");
    let items = p
        .labels
        .iter()
        .filter(|l| search.as_ref().is_none_or(|s| l.name.contains(s.as_str())))
        .map(|l| objects::label(l, p))
        .collect();
    Ok(http::paginate(items, &ctx.query, &ctx.url))
}

/// Create: `name` and `color` required; a taken name is a 409 `Label
/// already exists` (docs: https://docs.gitlab.com/api/labels/).
async fn create_label(State(app): State<App>, Path(pid): Path<String>, ctx: Ctx) -> Reply {
    let mut db = lock(&app.db);
    let p = writable(&db, &pid, &ctx)?;
    let name = ctx.require("name")?;
    let color = ctx.require("color")?;
    if db.projects[p].labels.iter().any(|l| l.name == name) {
        return Err(http::message(409, "Label already exists"));
    }
    let id = db.next_id();
    db.projects[p].labels.push(Label {
        id,
        name,
        color,
        description: ctx.param("description"),
    });
    let project = &db.projects[p];
    Ok(http::created(objects::label(
        project.labels.last().unwrap(),
        project,
    )))
}

/// A label by id or name (docs: https://docs.gitlab.com/api/labels/).
fn label_index(p: &crate::db::Project, key: &str) -> Result<usize, axum::response::Response> {
    p.labels
        .iter()
        .position(|l| l.id.to_string() == key || l.name == key)
        .ok_or_else(|| http::not_found("Label"))
}

async fn label(
    State(app): State<App>,
    Path((pid, key)): Path<(String, String)>,
    ctx: Ctx,
) -> Reply {
    let db = lock(&app.db);
    let p = &db.projects[visible(&db, &pid, &ctx)?];
    Ok(http::ok(objects::label(
        &p.labels[label_index(p, &key)?],
        p,
    )))
}

/// Update: `new_name`, `color` or `description`; at least one (docs).
async fn update_label(
    State(app): State<App>,
    Path((pid, key)): Path<(String, String)>,
    ctx: Ctx,
) -> Reply {
    let mut db = lock(&app.db);
    let p = writable(&db, &pid, &ctx)?;
    let i = label_index(&db.projects[p], &key)?;
    let (new_name, color, description) = (
        ctx.param("new_name"),
        ctx.param("color"),
        ctx.param("description"),
    );
    if new_name.is_none() && color.is_none() && description.is_none() {
        return Err(http::json_response(
            axum::http::StatusCode::BAD_REQUEST,
            json!({"error": "new_name, color, description, priority, archived are missing, at least one parameter must be provided"}),
        ));
    }
    let project = &mut db.projects[p];
    let old = project.labels[i].name.clone();
    if let Some(name) = new_name {
        for issue in &mut project.issues {
            for l in &mut issue.labels {
                if *l == old {
                    *l = name.clone();
                }
            }
        }
        project.labels[i].name = name;
    }
    if let Some(c) = color {
        project.labels[i].color = c;
    }
    if description.is_some() {
        project.labels[i].description = description;
    }
    let project = &db.projects[p];
    Ok(http::ok(objects::label(&project.labels[i], project)))
}

async fn delete_label(
    State(app): State<App>,
    Path((pid, key)): Path<(String, String)>,
    ctx: Ctx,
) -> Reply {
    let mut db = lock(&app.db);
    let p = writable(&db, &pid, &ctx)?;
    let i = label_index(&db.projects[p], &key)?;
    let project = &mut db.projects[p];
    let name = project.labels.remove(i).name;
    for issue in &mut project.issues {
        issue.labels.retain(|l| *l != name);
    }
    Ok(http::no_content())
}

async fn milestones(State(app): State<App>, Path(pid): Path<String>, ctx: Ctx) -> Reply {
    let db = lock(&app.db);
    let p = &db.projects[visible(&db, &pid, &ctx)?];
    let state = ctx.one_of("state", &["active", "closed"])?;
    let items = p
        .milestones
        .iter()
        .filter(|m| state.as_ref().is_none_or(|s| &m.state == s))
        .map(|m| objects::milestone(&db, p, m))
        .collect();
    Ok(http::paginate(items, &ctx.query, &ctx.url))
}

async fn milestone(
    State(app): State<App>,
    Path((pid, mid)): Path<(String, String)>,
    ctx: Ctx,
) -> Reply {
    let db = lock(&app.db);
    let p = &db.projects[visible(&db, &pid, &ctx)?];
    let mid = super::id(&mid)?;
    let m = p
        .milestones
        .iter()
        .find(|m| m.id == mid)
        .ok_or_else(|| http::not_found("Milestone"))?;
    Ok(http::ok(objects::milestone(&db, p, m)))
}

async fn releases(State(app): State<App>, Path(pid): Path<String>, ctx: Ctx) -> Reply {
    let db = lock(&app.db);
    let p = &db.projects[visible(&db, &pid, &ctx)?];
    let items = p
        .releases
        .iter()
        .rev()
        .map(|r| objects::release(&db, p, r))
        .collect();
    Ok(http::paginate(items, &ctx.query, &ctx.url))
}

async fn release(
    State(app): State<App>,
    Path((pid, tag)): Path<(String, String)>,
    ctx: Ctx,
) -> Reply {
    let db = lock(&app.db);
    let p = &db.projects[visible(&db, &pid, &ctx)?];
    let r = p
        .releases
        .iter()
        .find(|r| r.tag_name == tag)
        .ok_or_else(|| http::message(404, "404 Not Found"))?;
    Ok(http::ok(objects::release(&db, p, r)))
}

/// Create: `tag_name` required; a tag that does not exist needs `ref`
/// (docs: https://docs.gitlab.com/api/releases/); a second release for a tag is a 409.
async fn create_release(State(app): State<App>, Path(pid): Path<String>, ctx: Ctx) -> Reply {
    let mut db = lock(&app.db);
    let p = writable(&db, &pid, &ctx)?;
    let tag = ctx.require("tag_name")?;
    if db.projects[p].releases.iter().any(|r| r.tag_name == tag) {
        return Err(http::message(409, "Release already exists"));
    }
    if !db.projects[p].tags.iter().any(|t| t.name == tag) {
        let git_ref = ctx
            .param("ref")
            .ok_or_else(|| http::message(422, "Ref is not specified"))?;
        let target = db.projects[p]
            .branches
            .iter()
            .find(|b| b.name == git_ref)
            .map(|b| b.commit_sha.clone());
        let target = target.ok_or_else(|| http::message(422, "Ref is not specified"))?;
        db.projects[p].tags.push(crate::db::Tag {
            name: tag.clone(),
            message: None,
            target,
        });
    }
    let now = db.now();
    let links = ctx
        .body
        .pointer("/assets/links")
        .and_then(Value::as_array)
        .map(|links| {
            links
                .iter()
                .enumerate()
                .map(|(i, l)| {
                    (
                        i as u64 + 1,
                        l["name"].as_str().unwrap_or("").to_string(),
                        l["url"].as_str().unwrap_or("").to_string(),
                    )
                })
                .collect()
        })
        .unwrap_or_default();
    db.projects[p].releases.push(Release {
        name: ctx.param("name").unwrap_or_else(|| tag.clone()),
        tag_name: tag,
        description: ctx.param("description").unwrap_or_default(),
        created_at: now,
        links,
    });
    let project = &db.projects[p];
    Ok(http::created(objects::release(
        &db,
        project,
        project.releases.last().unwrap(),
    )))
}

async fn wikis(State(app): State<App>, Path(pid): Path<String>, ctx: Ctx) -> Reply {
    let db = lock(&app.db);
    let p = &db.projects[visible(&db, &pid, &ctx)?];
    let with_content = ctx.flag("with_content").unwrap_or(false);
    let items = p
        .wiki
        .iter()
        .map(|w| objects::wiki_page(w, with_content))
        .collect();
    Ok(http::ok(Value::Array(items)))
}

/// The slug is one URL-encoded segment: `deploy%2Fproduction` (docs).
async fn wiki(
    State(app): State<App>,
    Path((pid, slug)): Path<(String, String)>,
    ctx: Ctx,
) -> Reply {
    let db = lock(&app.db);
    let p = &db.projects[visible(&db, &pid, &ctx)?];
    let w = p
        .wiki
        .iter()
        .find(|w| w.slug == slug)
        .ok_or_else(|| http::not_found("Wiki Page"))?;
    Ok(http::ok(objects::wiki_page(w, true)))
}

async fn create_wiki(State(app): State<App>, Path(pid): Path<String>, ctx: Ctx) -> Reply {
    let mut db = lock(&app.db);
    let p = writable(&db, &pid, &ctx)?;
    let title = ctx.require("title")?;
    let content = ctx.require("content")?;
    let format = ctx
        .one_of("format", &["markdown", "rdoc", "asciidoc", "org"])?
        .unwrap_or_else(|| "markdown".into());
    let slug = title.replace(' ', "-");
    db.projects[p].wiki.push(WikiPage {
        slug,
        title,
        content,
        format,
    });
    Ok(http::created(objects::wiki_page(
        db.projects[p].wiki.last().unwrap(),
        true,
    )))
}

async fn update_wiki(
    State(app): State<App>,
    Path((pid, slug)): Path<(String, String)>,
    ctx: Ctx,
) -> Reply {
    let mut db = lock(&app.db);
    let p = writable(&db, &pid, &ctx)?;
    let page = db.projects[p]
        .wiki
        .iter_mut()
        .find(|w| w.slug == slug)
        .ok_or_else(|| http::not_found("Wiki Page"))?;
    if let Some(c) = ctx.param("content") {
        page.content = c;
    }
    if let Some(t) = ctx.param("title") {
        page.title = t;
    }
    Ok(http::ok(objects::wiki_page(page, true)))
}

async fn delete_wiki(
    State(app): State<App>,
    Path((pid, slug)): Path<(String, String)>,
    ctx: Ctx,
) -> Reply {
    let mut db = lock(&app.db);
    let p = writable(&db, &pid, &ctx)?;
    let i = db.projects[p]
        .wiki
        .iter()
        .position(|w| w.slug == slug)
        .ok_or_else(|| http::not_found("Wiki Page"))?;
    db.projects[p].wiki.remove(i);
    Ok(http::no_content())
}

async fn snippets(State(app): State<App>, Path(pid): Path<String>, ctx: Ctx) -> Reply {
    let db = lock(&app.db);
    let p = &db.projects[visible(&db, &pid, &ctx)?];
    let items = p
        .snippets
        .iter()
        .map(|s| objects::snippet(&db, p, s))
        .collect();
    Ok(http::paginate(items, &ctx.query, &ctx.url))
}

async fn snippet_raw(
    State(app): State<App>,
    Path((pid, sid)): Path<(String, String)>,
    ctx: Ctx,
) -> Reply {
    let db = lock(&app.db);
    let p = &db.projects[visible(&db, &pid, &ctx)?];
    let sid = super::id(&sid)?;
    let s = p
        .snippets
        .iter()
        .find(|s| s.id == sid)
        .ok_or_else(|| http::not_found("Snippet"))?;
    Ok(http::text(s.content.clone()))
}

async fn packages(State(app): State<App>, Path(pid): Path<String>, ctx: Ctx) -> Reply {
    let db = lock(&app.db);
    let p = &db.projects[visible(&db, &pid, &ctx)?];
    ctx.one_of(
        "package_type",
        &[
            "conan",
            "maven",
            "npm",
            "pypi",
            "composer",
            "nuget",
            "helm",
            "terraform_module",
            "golang",
            "generic",
        ],
    )?;
    // Hidden packages stay out of lists (docs: https://docs.gitlab.com/user/packages/generic_packages/#publish-a-package-file).
    let items = p
        .packages
        .iter()
        .filter(|k| k.status != "hidden")
        .map(|k| objects::package(&db, p, k))
        .collect();
    Ok(http::paginate(items, &ctx.query, &ctx.url))
}

type GenericPath = Path<(String, String, String, String)>;

/// Publish a generic package file: the raw body is the file; `status` and
/// `select` in the query; the package version is created when missing;
/// `201 Created`, or the package file with `select=package_file`
/// (lib/api/generic_packages.rb; name and version as
/// Gitlab::Regex.generic_package_name_regex and _version_regex allow).
async fn generic_upload(
    State(app): State<App>,
    Path((pid, name, version, file_name)): GenericPath,
    headers: HeaderMap,
    uri: axum::http::Uri,
    body: axum::body::Bytes,
) -> Reply {
    let auth = crate::auth::authenticate(&app, &headers)?;
    let ctx = Ctx {
        auth,
        query: http::parse_query(uri.query().unwrap_or_default()),
        body: Value::Null,
        url: String::new(),
    };
    let plain = |s: &str| {
        !s.is_empty()
            && s.chars()
                .all(|c| c.is_ascii_alphanumeric() || "._-+".contains(c))
    };
    // Grape's regexp validation: `{"error":"package_name is invalid"}`.
    for (param, value) in [("package_name", &name), ("package_version", &version)] {
        if !plain(value) {
            return Err(http::json_response(
                axum::http::StatusCode::BAD_REQUEST,
                json!({ "error": format!("{param} is invalid") }),
            ));
        }
    }
    let status = ctx.one_of("status", &["default", "hidden"])?;
    let select = ctx.one_of("select", &["package_file"])?;
    let mut db = lock(&app.db);
    let p = writable(&db, &pid, &ctx)?;
    let package_id = db.next_id();
    let file_id = db.next_id();
    let project = &mut db.projects[p];
    let package = match project
        .packages
        .iter()
        .position(|k| k.package_type == "generic" && k.name == name && k.version == version)
    {
        Some(i) => &mut project.packages[i],
        None => {
            project.packages.push(Package {
                id: package_id,
                name,
                version,
                package_type: "generic".into(),
                status: "default".into(),
                files: Vec::new(),
            });
            project.packages.last_mut().expect("just pushed")
        }
    };
    if let Some(status) = status {
        package.status = status;
    }
    let size = body.len();
    package
        .files
        .push((file_id, file_name.clone(), body.to_vec()));
    if select.is_some() {
        return Ok(http::ok(json!({
            "id": file_id,
            "package_id": package.id,
            "created_at": "2026-03-02T10:00:00.000Z",
            "file_name": file_name,
            "size": size,
        })));
    }
    Ok(http::message(201, "201 Created"))
}

/// The newest file of that name in that generic package version, as bytes.
async fn generic_download(
    State(app): State<App>,
    Path((pid, name, version, file_name)): GenericPath,
    ctx: Ctx,
) -> Reply {
    let db = lock(&app.db);
    let p = &db.projects[visible(&db, &pid, &ctx)?];
    let bytes = p
        .packages
        .iter()
        .find(|k| k.package_type == "generic" && k.name == name && k.version == version)
        .ok_or_else(|| http::not_found("Package"))?
        .files
        .iter()
        .rev()
        .find(|(_, n, _)| *n == file_name)
        .map(|(_, _, bytes)| bytes.clone())
        .ok_or_else(|| http::not_found("Package File"))?;
    Ok(axum::response::IntoResponse::into_response((
        [(axum::http::header::CONTENT_TYPE, "application/octet-stream")],
        bytes,
    )))
}

const SCOPES: &[&str] = &[
    "projects",
    "issues",
    "merge_requests",
    "milestones",
    "snippet_titles",
    "users",
    "wiki_blobs",
    "commits",
    "blobs",
    "notes",
];

/// Project search: `scope` and `search` required (docs: https://docs.gitlab.com/api/search/).
async fn project_search(State(app): State<App>, Path(pid): Path<String>, ctx: Ctx) -> Reply {
    let db = lock(&app.db);
    let p = &db.projects[visible(&db, &pid, &ctx)?];
    let scope = ctx.require("scope")?;
    let search = ctx.require("search")?.to_lowercase();
    if !SCOPES.contains(&scope.as_str()) || scope == "projects" || scope == "snippet_titles" {
        return Err(http::invalid_value("scope"));
    }
    let items: Vec<Value> = match scope.as_str() {
        "issues" => p
            .issues
            .iter()
            .filter(|i| i.title.to_lowercase().contains(&search))
            .map(|i| objects::issue(&db, p, i))
            .collect(),
        "merge_requests" => p
            .merge_requests
            .iter()
            .filter(|m| m.title.to_lowercase().contains(&search))
            .map(|m| objects::merge_request(&db, p, m, false))
            .collect(),
        "blobs" => p
            .files
            .iter()
            .filter(|(_, content)| content.to_lowercase().contains(&search))
            .map(|(path, content)| {
                json!({
                    "basename": path.rsplit_once('.').map(|(b, _)| b).unwrap_or(path),
                    "data": content,
                    "path": path,
                    "filename": path,
                    "id": null,
                    "ref": "main",
                    "startline": 1,
                    "project_id": p.id,
                })
            })
            .collect(),
        _ => Vec::new(),
    };
    Ok(http::paginate(items, &ctx.query, &ctx.url))
}

async fn global_search(State(app): State<App>, ctx: Ctx) -> Reply {
    let db = lock(&app.db);
    let scope = ctx.require("scope")?;
    let search = ctx.require("search")?.to_lowercase();
    if !SCOPES.contains(&scope.as_str()) {
        return Err(http::invalid_value("scope"));
    }
    let visible_projects = db.projects.iter().filter(|p| {
        p.visibility == "public" || ctx.auth.is_some_and(|a| p.members.contains(&a.user_id))
    });
    let items: Vec<Value> = match scope.as_str() {
        "projects" => visible_projects
            .filter(|p| p.path_with_namespace.contains(&search))
            .map(|p| objects::project(&db, p, false))
            .collect(),
        "issues" => visible_projects
            .flat_map(|p| {
                p.issues
                    .iter()
                    .filter(|i| i.title.to_lowercase().contains(&search))
                    .map(|i| objects::issue(&db, p, i))
                    .collect::<Vec<_>>()
            })
            .collect(),
        _ => Vec::new(),
    };
    Ok(http::paginate(items, &ctx.query, &ctx.url))
}

/// Markdown upload: a multipart form with a `file` field (docs: https://docs.gitlab.com/api/project_markdown_uploads/); answers the Markdown to embed it.
async fn upload(
    State(app): State<App>,
    Path(pid): Path<String>,
    headers: HeaderMap,
    mut form: Multipart,
) -> Reply {
    let auth = crate::auth::authenticate(&app, &headers)?;
    let ctx = Ctx {
        auth,
        query: Vec::new(),
        body: Value::Null,
        url: String::new(),
    };
    let mut file: Option<(String, usize)> = None;
    while let Ok(Some(field)) = form.next_field().await {
        if field.name() == Some("file") {
            let name = field.file_name().unwrap_or("file").to_string();
            let bytes = field
                .bytes()
                .await
                .map_err(|_| http::message(400, "400 Bad request - file is invalid"))?;
            file = Some((name, bytes.len()));
        }
    }
    let mut db = lock(&app.db);
    let p = writable(&db, &pid, &ctx)?;
    let (name, size) = file.ok_or_else(|| http::missing("file"))?;
    let id = db.next_id();
    let secret = &sha(id)[..32];
    let project = &mut db.projects[p];
    project.uploads.push((id, name.clone(), size));
    let url = format!("/uploads/{secret}/{name}");
    let alt = name
        .rsplit_once('.')
        .map(|(b, _)| b)
        .unwrap_or(&name)
        .to_string();
    let image = [".png", ".jpg", ".gif", ".svg"]
        .iter()
        .any(|e| name.ends_with(e));
    Ok(http::created(json!({
        "id": id,
        "alt": alt,
        "url": url,
        "full_path": format!("/-/project/{}{url}", project.id),
        "markdown": if image { format!("![{alt}]({url})") } else { format!("[{name}]({url})") },
    })))
}

/// Multi-file commit: `branch`, `commit_message`, `actions` required;
/// each action is checked as GitLab does (docs: https://docs.gitlab.com/api/commits/, "Create a
/// commit with multiple files and actions").
async fn create_commit(State(app): State<App>, Path(pid): Path<String>, ctx: Ctx) -> Reply {
    let mut db = lock(&app.db);
    let p = writable(&db, &pid, &ctx)?;
    let branch = ctx.require("branch")?;
    let message = ctx.require("commit_message")?;
    let actions = ctx
        .body
        .get("actions")
        .and_then(Value::as_array)
        .cloned()
        .ok_or_else(|| http::missing("actions"))?;
    let start = ctx.param("start_branch").unwrap_or_else(|| branch.clone());
    let base = db.projects[p]
        .branches
        .iter()
        .find(|b| b.name == start)
        .map(|b| b.commit_sha.clone());
    let base = base.ok_or_else(|| {
        http::message(
            400,
            "You can only create or edit files when you are on a branch",
        )
    })?;
    let mut diffs = Vec::new();
    let mut files = if db.per_branch_files {
        db.projects[p].files_at(&start).clone()
    } else {
        db.projects[p].files.clone()
    };
    for action in &actions {
        let kind = action["action"].as_str().unwrap_or_default();
        let path = action["file_path"]
            .as_str()
            .ok_or_else(|| http::missing("actions[file_path]"))?
            .to_string();
        let exists = files.contains_key(&path);
        match kind {
            "create" if exists => {
                return Err(http::message(400, "A file with this name already exists"));
            }
            "update" | "delete" | "move" | "chmod" if !exists && kind != "move" => {
                return Err(http::message(400, "A file with this name doesn't exist"));
            }
            "create" | "update" => {
                let content = action["content"].as_str().unwrap_or_default().to_string();
                files.insert(path.clone(), content);
            }
            "delete" => {
                files.remove(&path);
            }
            "move" => {
                let from = action["previous_path"].as_str().unwrap_or_default();
                let content = files.remove(from).unwrap_or_default();
                files.insert(path.clone(), content);
            }
            "chmod" => {}
            _ => return Err(http::invalid_value("actions[action]")),
        }
        diffs.push((
            path.clone(),
            path,
            String::new(),
            kind == "create",
            kind == "delete",
        ));
    }
    if db.per_branch_files {
        let author = ctx.auth.expect("writable has a user").user_id;
        super::repository::commit_files(&mut db, p, &branch, Some(&start), &message, author, files);
        let project = &db.projects[p];
        let mut v = objects::commit(&db, project, &project.commits[0], true);
        v["stats"] = json!({"additions": actions.len(), "deletions": 0, "total": actions.len()});
        return Ok(http::created(v));
    }
    db.projects[p].files = files;
    let id = db.next_id();
    let commit = Commit {
        id: sha(id),
        title: message.lines().next().unwrap_or_default().to_string(),
        message,
        author_name: ctx
            .param("author_name")
            .unwrap_or_else(|| "Alice Martin".into()),
        author_email: ctx
            .param("author_email")
            .unwrap_or_else(|| "alice@example.com".into()),
        date: db.now(),
        parent_ids: vec![base],
        diffs,
    };
    let project = &mut db.projects[p];
    let new_sha = commit.id.clone();
    project.commits.insert(0, commit);
    match project.branches.iter_mut().find(|b| b.name == branch) {
        Some(b) => b.commit_sha = new_sha,
        None => project.branches.push(crate::db::Branch {
            name: branch,
            commit_sha: new_sha,
            protected: false,
            allow_force_push: false,
        }),
    }
    let project = &db.projects[p];
    let mut v = objects::commit(&db, project, &project.commits[0], true);
    v["stats"] = json!({"additions": actions.len(), "deletions": 0, "total": actions.len()});
    Ok(http::created(v))
}

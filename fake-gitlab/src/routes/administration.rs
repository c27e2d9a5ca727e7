//! Project and group administration: access tokens, invitations, mirrors,
//! Pages, import and export, statistics and storage, feature flag user
//! lists, webhook deliveries, custom attributes, audit events and billable
//! memberships. Each answer has the shape of the GitLab API page named on
//! its handler; nothing is stored, the answers are built from the request.

use axum::Router;
use axum::extract::{Path, State};
use axum::response::Response;
use axum::routing::{get, post, put};
use serde_json::{Value, json};

use super::groups_users::group_index;
use super::{Ctx, Reply, visible, writable};
use crate::{App, http, lock, objects};

pub fn routes() -> Router<App> {
    let p = "/api/v4/projects/{id}";
    let g = "/api/v4/groups/{id}";
    Router::new()
        .route(&format!("{p}/access_tokens"), post(create_access_token))
        .route(&format!("{p}/invitations"), get(invitations))
        .route(&format!("{p}/remote_mirrors"), post(create_mirror))
        .route(
            &format!("{p}/remote_mirrors/{{mirror_id}}/public_key"),
            get(mirror_public_key),
        )
        .route(&format!("{p}/pages"), get(pages))
        .route(&format!("{p}/pages/domains/{{domain}}"), get(pages_domain))
        .route(&format!("{p}/export"), get(export_status))
        .route(&format!("{p}/import"), get(import_status))
        .route(
            &format!("{p}/feature_flags_user_lists"),
            post(create_user_list),
        )
        .route(&format!("{p}/hooks/{{hook_id}}/events"), get(hook_events))
        .route(&format!("{p}/statistics"), get(statistics))
        .route(&format!("{p}/storage"), get(storage))
        .route(
            &format!("{p}/repository_storage_moves"),
            post(create_storage_move),
        )
        .route(
            &format!("{g}/custom_attributes/{{key}}"),
            put(set_custom_attribute),
        )
        .route(&format!("{g}/audit_events"), get(audit_events))
        .route(
            &format!("{g}/billable_members/{{user_id}}/memberships"),
            get(billable_memberships),
        )
}

/// Alice (user 1) maintains and owns everything here; administrators'
/// endpoints answer her too, as an administrator's token would.
fn maintainer(ctx: &Ctx) -> Result<(), Response> {
    if ctx.auth.map(|a| a.user_id) == Some(1) {
        Ok(())
    } else {
        Err(http::forbidden())
    }
}

/// `POST /projects/:id/access_tokens` (docs: https://docs.gitlab.com/api/project_access_tokens/#create-a-project-access-token):
/// `name` and `scopes` required, Maintainer by default; the secret `token`
/// is in this answer only.
async fn create_access_token(State(app): State<App>, Path(pid): Path<String>, ctx: Ctx) -> Reply {
    let mut db = lock(&app.db);
    let index = writable(&db, &pid, &ctx)?;
    maintainer(&ctx)?;
    let name = ctx.require("name")?;
    let scopes = ctx.list("scopes").ok_or_else(|| http::missing("scopes"))?;
    let id = db.next_id();
    let project = &db.projects[index];
    Ok(http::created(json!({
        "id": id,
        "name": name,
        "description": ctx.param("description"),
        "revoked": false,
        "created_at": "2026-03-01T10:00:00.000Z",
        "scopes": scopes,
        "user_id": 900 + project.id,
        "last_used_at": null,
        "active": true,
        "expires_at": ctx.param("expires_at"),
        "access_level": ctx.number("access_level")?.unwrap_or(40),
        "token": format!("glpat-{}", &crate::db::sha(id)[..20]),
    })))
}

/// `GET /projects/:id/invitations` (docs: https://docs.gitlab.com/api/invitations/#list-all-invitations-pending-for-a-group-or-project):
/// pending invitations, by email.
async fn invitations(State(app): State<App>, Path(pid): Path<String>, ctx: Ctx) -> Reply {
    let db = lock(&app.db);
    visible(&db, &pid, &ctx)?;
    maintainer(&ctx)?;
    let items = vec![json!({
        "id": 1,
        "invite_email": "carol@example.com",
        "created_at": "2026-03-01T10:00:00.000Z",
        "access_level": 30,
        "expires_at": "2026-06-30T00:00:00.000Z",
        "user_name": "Carol",
        "created_by_name": "Alice",
    })];
    Ok(http::paginate(items, &ctx.query, &ctx.url))
}

/// `POST /projects/:id/remote_mirrors` (docs: https://docs.gitlab.com/api/remote_mirrors/#create-a-push-mirror):
/// the answer masks the credentials of the URL.
async fn create_mirror(State(app): State<App>, Path(pid): Path<String>, ctx: Ctx) -> Reply {
    let mut db = lock(&app.db);
    writable(&db, &pid, &ctx)?;
    maintainer(&ctx)?;
    let url = ctx.require("url")?;
    let masked = match (url.find("://"), url.find('@')) {
        (Some(scheme), Some(at)) if at > scheme => {
            format!("{}://*****:*****@{}", &url[..scheme], &url[at + 1..])
        }
        _ => url,
    };
    Ok(http::created(json!({
        "id": db.next_id(),
        "enabled": ctx.flag("enabled").unwrap_or(false),
        "url": masked,
        "auth_method": ctx.param("auth_method").unwrap_or_else(|| "password".into()),
        "keep_divergent_refs": ctx.flag("keep_divergent_refs").unwrap_or(false),
        "only_protected_branches": ctx.flag("only_protected_branches").unwrap_or(false),
        "mirror_branch_regex": ctx.param("mirror_branch_regex"),
        "update_status": "none",
        "last_error": null,
        "last_update_at": null,
        "last_update_started_at": null,
        "last_successful_update_at": null,
    })))
}

/// `GET /projects/:id/remote_mirrors/:mirror_id/public_key` (docs:
/// https://docs.gitlab.com/api/remote_mirrors/#get-a-single-projects-remote-mirror-public-key).
async fn mirror_public_key(
    State(app): State<App>,
    Path((pid, _mirror)): Path<(String, String)>,
    ctx: Ctx,
) -> Reply {
    let db = lock(&app.db);
    visible(&db, &pid, &ctx)?;
    maintainer(&ctx)?;
    Ok(http::ok(
        json!({"public_key": "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIMirrorKey git@gitlab.example.com"}),
    ))
}

/// `GET /projects/:id/pages` (docs: https://docs.gitlab.com/api/pages/#get-pages-settings-for-a-project).
async fn pages(State(app): State<App>, Path(pid): Path<String>, ctx: Ctx) -> Reply {
    let db = lock(&app.db);
    let p = &db.projects[visible(&db, &pid, &ctx)?];
    maintainer(&ctx)?;
    let url = format!("https://{}.pages.example.com", p.path);
    Ok(http::ok(json!({
        "url": url,
        "is_unique_domain_enabled": true,
        "force_https": true,
        "primary_domain": null,
        "deployments": [{
            "created_at": "2026-03-01T10:00:00.000Z",
            "url": url,
            "path_prefix": "",
            "root_directory": "public",
        }],
    })))
}

/// `GET /projects/:id/pages/domains/:domain` (docs: https://docs.gitlab.com/api/pages_domains/#single-pages-domain).
async fn pages_domain(
    State(app): State<App>,
    Path((pid, domain)): Path<(String, String)>,
    ctx: Ctx,
) -> Reply {
    let db = lock(&app.db);
    visible(&db, &pid, &ctx)?;
    if domain != "www.acme.example" {
        return Err(http::not_found("Pages Domain"));
    }
    Ok(http::ok(json!({
        "domain": domain,
        "url": format!("https://{domain}"),
        "verified": false,
        "verification_code": "gitlab-pages-verification-code=00112233445566778899aabbccddeeff",
        "enabled_until": null,
        "auto_ssl_enabled": true,
        "certificate": null,
    })))
}

/// `GET /projects/:id/export` (docs: https://docs.gitlab.com/api/project_import_export/#export-status).
async fn export_status(State(app): State<App>, Path(pid): Path<String>, ctx: Ctx) -> Reply {
    let db = lock(&app.db);
    let p = &db.projects[visible(&db, &pid, &ctx)?];
    maintainer(&ctx)?;
    let api = format!("{}/api/v4/projects/{}/export/download", db.host, p.id);
    Ok(http::ok(json!({
        "id": p.id,
        "description": p.description,
        "name": p.name,
        "name_with_namespace": p.path_with_namespace,
        "path": p.path,
        "path_with_namespace": p.path_with_namespace,
        "created_at": p.created_at,
        "export_status": "finished",
        "_links": {"api_url": api, "web_url": format!("{}/{}/download_export", db.host, p.path_with_namespace)},
    })))
}

/// `GET /projects/:id/import` (docs: https://docs.gitlab.com/api/project_import_export/#import-status).
async fn import_status(State(app): State<App>, Path(pid): Path<String>, ctx: Ctx) -> Reply {
    let db = lock(&app.db);
    let p = &db.projects[visible(&db, &pid, &ctx)?];
    Ok(http::ok(json!({
        "id": p.id,
        "description": p.description,
        "name": p.name,
        "path": p.path,
        "path_with_namespace": p.path_with_namespace,
        "created_at": p.created_at,
        "import_status": "failed",
        "import_type": "gitlab_project",
        "correlation_id": "mezklWso3Za",
        "import_error": "Repository could not be cloned",
        "failed_relations": [{
            "id": 42,
            "created_at": "2026-03-01T10:00:00.000Z",
            "exception_class": "RuntimeError",
            "exception_message": "A failure occurred",
            "source": "custom",
            "relation_name": "merge_requests",
        }],
    })))
}

/// `POST /projects/:id/feature_flags_user_lists` (docs: https://docs.gitlab.com/api/feature_flag_user_lists/#create-a-feature-flag-user-list):
/// `user_xids` is one comma-separated string.
async fn create_user_list(State(app): State<App>, Path(pid): Path<String>, ctx: Ctx) -> Reply {
    let mut db = lock(&app.db);
    let p = db.projects[writable(&db, &pid, &ctx)?].id;
    let name = ctx.require("name")?;
    let xids = ctx.require("user_xids")?;
    Ok(http::created(json!({
        "id": db.next_id(),
        "iid": 1,
        "project_id": p,
        "name": name,
        "user_xids": xids,
        "created_at": "2026-03-01T10:00:00.000Z",
        "updated_at": "2026-03-01T10:00:00.000Z",
    })))
}

/// `GET /projects/:id/hooks/:hook_id/events` (docs: https://docs.gitlab.com/api/project_webhooks/#list-webhook-events):
/// each delivery with its request and response in full.
async fn hook_events(
    State(app): State<App>,
    Path((pid, hook)): Path<(String, String)>,
    ctx: Ctx,
) -> Reply {
    let db = lock(&app.db);
    visible(&db, &pid, &ctx)?;
    maintainer(&ctx)?;
    let hook = super::id(&hook)?;
    let items = (1..=2)
        .map(|n| {
            json!({
                "id": 100 + n,
                "url": "https://hooks.acme.example/gitlab",
                "trigger": "push_hooks",
                "request_headers": {"Content-Type": "application/json", "X-Gitlab-Event": "Push Hook"},
                "request_data": {"object_kind": "push", "ref": "refs/heads/main", "commits": []},
                "response_headers": {"Content-Type": "text/plain"},
                "response_body": "a long response body the list leaves out",
                "execution_duration": 0.12,
                "response_status": if n == 1 { "200" } else { "500" },
                "internal_error_message": null,
                "created_at": "2026-03-01T10:00:00.000Z",
                "hook_id": hook,
            })
        })
        .collect();
    Ok(http::paginate(items, &ctx.query, &ctx.url))
}

/// `GET /projects/:id/statistics` (docs: https://docs.gitlab.com/api/project_statistics/).
async fn statistics(State(app): State<App>, Path(pid): Path<String>, ctx: Ctx) -> Reply {
    let db = lock(&app.db);
    visible(&db, &pid, &ctx)?;
    Ok(http::ok(json!({
        "fetches": {
            "total": 50,
            "days": [{"count": 10, "date": "2026-03-02"}, {"count": 40, "date": "2026-03-01"}],
        },
    })))
}

/// `GET /projects/:id/storage` (docs: https://docs.gitlab.com/api/projects/#get-the-path-to-repository-storage),
/// for administrators.
async fn storage(State(app): State<App>, Path(pid): Path<String>, ctx: Ctx) -> Reply {
    let db = lock(&app.db);
    let p = &db.projects[visible(&db, &pid, &ctx)?];
    maintainer(&ctx)?;
    Ok(http::ok(json!({
        "project_id": p.id,
        "disk_path": format!("@hashed/{}/{}", &crate::db::sha(p.id)[..2], crate::db::sha(p.id)),
        "created_at": p.created_at,
        "repository_storage": "default",
    })))
}

/// `POST /projects/:id/repository_storage_moves` (docs: https://docs.gitlab.com/api/project_repository_storage_moves/#schedule-a-repository-storage-move-for-a-project):
/// the move is scheduled, not run.
async fn create_storage_move(State(app): State<App>, Path(pid): Path<String>, ctx: Ctx) -> Reply {
    let mut db = lock(&app.db);
    let index = writable(&db, &pid, &ctx)?;
    maintainer(&ctx)?;
    let project = objects::project(&db, &db.projects[index], false);
    Ok(http::created(json!({
        "id": db.next_id(),
        "created_at": "2026-03-01T10:00:00.000Z",
        "state": "scheduled",
        "source_storage_name": "default",
        "destination_storage_name": ctx.param("destination_storage_name").unwrap_or_else(|| "storage2".into()),
        "project": project,
    })))
}

/// `PUT /groups/:id/custom_attributes/:key` (docs: https://docs.gitlab.com/api/custom_attributes/#set-custom-attribute),
/// for administrators.
async fn set_custom_attribute(
    State(app): State<App>,
    Path((gid, key)): Path<(String, String)>,
    ctx: Ctx,
) -> Reply {
    let db = lock(&app.db);
    group_index(&db, &gid, &ctx)?;
    maintainer(&ctx)?;
    let value = ctx.require("value")?;
    Ok(http::ok(json!({"key": key, "value": value})))
}

/// `GET /groups/:id/audit_events` (docs: https://docs.gitlab.com/api/audit_events/#retrieve-all-group-audit-events):
/// Premium; `created_after` and `created_before` filter.
async fn audit_events(State(app): State<App>, Path(gid): Path<String>, ctx: Ctx) -> Reply {
    let db = lock(&app.db);
    let g = db.groups[group_index(&db, &gid, &ctx)?].id;
    maintainer(&ctx)?;
    let items: Vec<Value> = vec![json!({
        "id": 5,
        "author_id": 1,
        "entity_id": g,
        "entity_type": "Group",
        "event_name": "member_created",
        "details": {
            "add": "user_access",
            "as": "Developer",
            "author_name": "Alice",
            "target_id": 2,
            "target_type": "User",
            "target_details": "bob",
        },
        "created_at": "2026-03-01T10:00:00.000Z",
    })];
    Ok(http::paginate(items, &ctx.query, &ctx.url))
}

/// `GET /groups/:id/billable_members/:user_id/memberships` (docs:
/// https://docs.gitlab.com/api/members/#list-memberships-for-a-billable-member-of-a-group):
/// Premium; the user's direct memberships below the group.
async fn billable_memberships(
    State(app): State<App>,
    Path((gid, uid)): Path<(String, String)>,
    ctx: Ctx,
) -> Reply {
    let db = lock(&app.db);
    let group = &db.groups[group_index(&db, &gid, &ctx)?];
    maintainer(&ctx)?;
    let uid = super::id(&uid)?;
    db.user(uid).ok_or_else(|| http::not_found("User"))?;
    let items: Vec<Value> = db
        .projects
        .iter()
        .filter(|p| p.members.contains(&uid))
        .filter(|p| p.path_with_namespace.starts_with(&format!("{}/", group.full_path)))
        .map(|p| {
            json!({
                "id": 1000 + p.id,
                "source_id": p.id,
                "source_full_name": p.path_with_namespace,
                "source_members_url": format!("{}/{}/-/project_members", db.host, p.path_with_namespace),
                "created_at": p.created_at,
                "expires_at": null,
                "access_level": {"string_value": "Developer", "integer_value": 30},
            })
        })
        .collect();
    Ok(http::paginate(items, &ctx.query, &ctx.url))
}

//! The instance: templates, topics, broadcast messages, settings, plan
//! limits, system hooks, keys, GitLab's feature flags, Sidekiq, Markdown,
//! avatars and Service Ping. Answers are shaped like the samples of each
//! API's documentation (linked on every handler); nothing here is stored.
//!
//! Alice (user 1) is the instance's administrator: the administrator-only
//! endpoints answer others with GitLab's `403 Forbidden`.

use axum::Router;
use axum::extract::{Path, State};
use axum::routing::{get, post};
use serde_json::{Value, json};

use super::{Ctx, Reply};
use crate::auth::insufficient_scope;
use crate::{App, http};

pub fn routes() -> Router<App> {
    Router::new()
        .route("/api/v4/metadata", get(metadata))
        .route("/api/v4/application/statistics", get(statistics))
        .route("/api/v4/markdown", post(markdown))
        .route("/api/v4/avatar", get(avatar))
        .route("/api/v4/templates/gitignores", get(gitignores))
        .route("/api/v4/templates/gitignores/{name}", get(gitignore))
        .route("/api/v4/topics", get(topics).post(topic_create))
        .route("/api/v4/topics/{id}", get(topic))
        .route("/api/v4/broadcast_messages", get(broadcasts))
        .route("/api/v4/broadcast_messages/{id}", get(broadcast))
        .route(
            "/api/v4/application/settings",
            get(settings).put(settings_update),
        )
        .route("/api/v4/application/appearance", get(appearance))
        .route("/api/v4/application/plan_limits", get(plan_limits))
        .route("/api/v4/hooks", get(hooks))
        .route("/api/v4/hooks/{id}", get(hook).delete(hook_delete))
        .route("/api/v4/keys", get(key_by_fingerprint))
        .route("/api/v4/deploy_keys", get(deploy_keys))
        .route("/api/v4/deploy_tokens", get(deploy_tokens))
        .route("/api/v4/features", get(features))
        .route("/api/v4/features/definitions", get(feature_definitions))
        .route("/api/v4/features/{name}", post(feature_set))
        .route("/api/v4/sidekiq/compound_metrics", get(sidekiq))
        .route("/api/v4/usage_data/service_ping", get(service_ping))
        .route(
            "/api/v4/usage_data/metric_definitions",
            get(metric_definitions),
        )
}

/// Administrator-only endpoints: anonymous is a 401, a `read_api` token
/// writing is a 403 `insufficient_scope`, anyone but alice a 403.
pub fn admin(ctx: &Ctx, writes: bool) -> Result<(), axum::response::Response> {
    let auth = ctx.auth.ok_or_else(http::unauthorized)?;
    if writes && !auth.can_write {
        return Err(insufficient_scope());
    }
    if auth.user_id != 1 {
        return Err(http::forbidden());
    }
    Ok(())
}

/// Metadata API (docs: https://docs.gitlab.com/api/metadata/): any signed-in user.
async fn metadata(ctx: Ctx) -> Reply {
    ctx.auth.ok_or_else(http::unauthorized)?;
    Ok(http::ok(json!({
        "version": "19.5.0-pre",
        "revision": "c401a659d0c",
        "kas": {"enabled": true, "externalUrl": "wss://kas.gitlab.example/", "externalK8sProxyUrl": null, "version": "19.5.0"},
        "enterprise": false,
    })))
}

/// Application statistics API (docs: https://docs.gitlab.com/api/statistics/): counts as strings.
async fn statistics(ctx: Ctx) -> Reply {
    admin(&ctx, false)?;
    Ok(http::ok(json!({
        "forks": "10", "issues": "76", "merge_requests": "27", "notes": "954", "snippets": "50",
        "ssh_keys": "10", "milestones": "40", "users": "3", "groups": "2", "projects": "3",
        "active_users": "3",
    })))
}

/// Markdown API (docs: https://docs.gitlab.com/api/markdown/): `text` required, HTML back.
async fn markdown(ctx: Ctx) -> Reply {
    let text = ctx.require("text")?;
    let escaped = text
        .replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;");
    Ok(http::created(
        json!({ "html": format!("<p dir=\"auto\">{escaped}</p>") }),
    ))
}

/// Avatar API (docs: https://docs.gitlab.com/api/avatar/): `email` required.
async fn avatar(ctx: Ctx) -> Reply {
    let email = ctx.require("email")?;
    let size = ctx.number("size")?.unwrap_or(80);
    Ok(http::ok(json!({
        "avatar_url": format!("https://secure.gravatar.com/avatar/{}?s={size}&d=identicon", crate::db::sha(email.len() as u64)),
    })))
}

const GITIGNORES: &[(&str, &str)] = &[
    ("Rust", "/target\n**/*.rs.bk\nCargo.lock\n"),
    ("Node", "node_modules/\nnpm-debug.log*\n"),
];

/// .gitignore templates (docs: https://docs.gitlab.com/api/templates/gitignores/): `key` and `name`.
async fn gitignores(ctx: Ctx) -> Reply {
    let items = GITIGNORES
        .iter()
        .map(|(name, _)| json!({"key": name, "name": name}))
        .collect();
    Ok(http::paginate(items, &ctx.query, &ctx.url))
}

/// One .gitignore template: `name` and `content`; an unknown key is a 404.
async fn gitignore(Path(name): Path<String>) -> Reply {
    let (name, content) = GITIGNORES
        .iter()
        .find(|(n, _)| *n == name)
        .ok_or_else(|| http::not_found("Template"))?;
    Ok(http::ok(json!({"name": name, "content": content})))
}

fn topic_json(id: u64, name: &str, title: &str, description: &str, projects: u64) -> Value {
    json!({
        "id": id, "name": name, "title": title, "description": description,
        "total_projects_count": projects, "organization_id": 1, "avatar_url": null,
    })
}

fn seeded_topics() -> Vec<Value> {
    vec![
        topic_json(1, "rust", "Rust", "Projects written in Rust.", 2),
        topic_json(2, "ci", "CI/CD", "", 1),
    ]
}

/// Topics API (docs: https://docs.gitlab.com/api/topics/): most used first, `search` on the name.
async fn topics(ctx: Ctx) -> Reply {
    let search = ctx.param("search").map(|s| s.to_lowercase());
    let items = seeded_topics()
        .into_iter()
        .filter(|t| {
            search
                .as_ref()
                .is_none_or(|s| t["name"].as_str().unwrap_or_default().contains(s.as_str()))
        })
        .collect();
    Ok(http::paginate(items, &ctx.query, &ctx.url))
}

async fn topic(Path(id): Path<String>) -> Reply {
    let id = super::id(&id)?;
    seeded_topics()
        .into_iter()
        .find(|t| t["id"] == id)
        .map(http::ok)
        .ok_or_else(|| http::not_found("Topic"))
}

/// Creating a topic: administrators only, `name` and `title` required (lib/api/topics.rb).
async fn topic_create(ctx: Ctx) -> Reply {
    admin(&ctx, true)?;
    let name = ctx.require("name")?;
    let title = ctx.require("title")?;
    let description = ctx.param("description").unwrap_or_default();
    Ok(http::created(topic_json(3, &name, &title, &description, 0)))
}

fn broadcast_json() -> Value {
    json!({
        "id": 1, "message": "Maintenance tonight at 22:00 UTC", "starts_at": "2026-03-01T20:00:00.000Z",
        "ends_at": "2026-03-01T23:00:00.000Z", "color": "#E75E40", "font": "#FFFFFF", "active": false,
        "target_access_levels": [10, 30], "target_path": "*/welcome", "broadcast_type": "banner",
        "dismissable": false, "theme": "indigo",
    })
}

/// Broadcast messages API (docs: https://docs.gitlab.com/api/broadcast_messages/): readable by anyone.
async fn broadcasts(ctx: Ctx) -> Reply {
    Ok(http::paginate(vec![broadcast_json()], &ctx.query, &ctx.url))
}

async fn broadcast(Path(id): Path<String>) -> Reply {
    match super::id(&id)? {
        1 => Ok(http::ok(broadcast_json())),
        _ => Err(http::not_found("Broadcast Message")),
    }
}

/// A few of the settings GitLab answers (docs: https://docs.gitlab.com/api/settings/),
/// with falses, nulls and `*_url` fields the way GitLab sends them.
fn settings_json() -> Value {
    json!({
        "id": 1, "default_projects_limit": 100000, "signup_enabled": false,
        "password_authentication_enabled_for_web": true, "after_sign_out_path": null,
        "max_attachment_size": 100, "home_page_url": "https://gitlab.example/explore",
        "default_project_visibility": "private", "restricted_visibility_levels": [],
        "require_two_factor_authentication": false, "akismet_api_key": null,
        "asset_proxy_secret_key": "s3cr3t", "created_at": "2025-09-01T08:00:00.000Z",
    })
}

async fn settings(ctx: Ctx) -> Reply {
    admin(&ctx, false)?;
    Ok(http::ok(settings_json()))
}

/// Only the settings given change; the whole settings object comes back.
async fn settings_update(ctx: Ctx) -> Reply {
    admin(&ctx, true)?;
    let mut current = settings_json();
    if let Value::Object(given) = &ctx.body {
        for (k, v) in given {
            current[k] = v.clone();
        }
    }
    Ok(http::ok(current))
}

/// Appearance API (docs: https://docs.gitlab.com/api/appearance/).
async fn appearance(ctx: Ctx) -> Reply {
    admin(&ctx, false)?;
    Ok(http::ok(json!({
        "title": "Acme GitLab", "description": "Sign in with your **Acme** account.", "pwa_name": "GitLab",
        "logo": "/uploads/-/system/appearance/logo/1/logo.png", "header_logo": null, "favicon": null,
        "header_message": "", "footer_message": "Internal use only", "message_background_color": "#E75E40",
        "message_font_color": "#FFFFFF", "email_header_and_footer_enabled": false,
    })))
}

/// Plan limits API (docs: https://docs.gitlab.com/api/plan_limits/): `plan_name` one of GitLab's plans.
async fn plan_limits(ctx: Ctx) -> Reply {
    admin(&ctx, false)?;
    ctx.one_of(
        "plan_name",
        &[
            "default",
            "free",
            "bronze",
            "silver",
            "premium",
            "gold",
            "ultimate",
            "ultimate_trial",
            "ultimate_trial_paid_customer",
            "premium_trial",
            "opensource",
        ],
    )?;
    Ok(http::ok(json!({
        "ci_pipeline_size": 0, "ci_active_jobs": 0, "ci_needs_size_limit": 50, "conan_max_file_size": 3221225472_u64,
        "generic_packages_max_file_size": 5368709120_u64, "npm_max_file_size": 524288000, "web_hook_calls": 0,
        "pipeline_hierarchy_size": 1000, "storage_size_limit": 0,
    })))
}

fn hook_json() -> Value {
    json!({
        "id": 1, "url": "https://audit.example/gitlab", "name": "Audit", "description": "Instance events to the audit log",
        "created_at": "2025-10-01T08:00:00.000Z", "push_events": true, "tag_push_events": false,
        "merge_requests_events": true, "repository_update_events": true, "enable_ssl_verification": true,
        "url_variables": [], "custom_headers": [],
    })
}

/// System hooks API (docs: https://docs.gitlab.com/api/system_hooks/): administrators only.
async fn hooks(ctx: Ctx) -> Reply {
    admin(&ctx, false)?;
    Ok(http::paginate(vec![hook_json()], &ctx.query, &ctx.url))
}

async fn hook(Path(id): Path<String>, ctx: Ctx) -> Reply {
    admin(&ctx, false)?;
    match super::id(&id)? {
        1 => Ok(http::ok(hook_json())),
        _ => Err(http::not_found("Hook")),
    }
}

async fn hook_delete(Path(id): Path<String>, ctx: Ctx) -> Reply {
    admin(&ctx, true)?;
    match super::id(&id)? {
        1 => Ok(http::no_content()),
        _ => Err(http::not_found("Hook")),
    }
}

/// Keys API (docs: https://docs.gitlab.com/api/keys/): a key by fingerprint, with its owner.
async fn key_by_fingerprint(State(app): State<App>, ctx: Ctx) -> Reply {
    admin(&ctx, false)?;
    let fingerprint = ctx.require("fingerprint")?;
    if fingerprint != "SHA256:nZ9dXJ4sYyq1Xr0CZm2Wd4Q0cQ2ObZ3QeZC0FSmH0bM" {
        return Err(http::not_found("Key"));
    }
    let db = crate::lock(&app.db);
    Ok(http::ok(json!({
        "id": 7, "title": "laptop", "key": "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIG alice@laptop",
        "created_at": "2025-09-02T08:00:00.000Z", "expires_at": null, "usage_type": "auth_and_signing",
        "user": crate::objects::user(&db, 1),
    })))
}

/// Instance deploy keys (docs: https://docs.gitlab.com/api/deploy_keys/#list-all-deploy-keys).
async fn deploy_keys(ctx: Ctx) -> Reply {
    admin(&ctx, false)?;
    let items = vec![json!({
        "id": 1, "title": "Public key", "key": "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIK deploy@ci",
        "fingerprint_sha256": "SHA256:Jrs3LD1Ji30xNLtTVf9NDCj7kkBgPBb2pjvTZ3HfIgU", "created_at": "2025-10-01T08:00:00.000Z",
        "expires_at": null, "projects_with_write_access": [], "projects_with_readonly_access": [{"id": 1, "name": "api"}],
    })];
    Ok(http::paginate(items, &ctx.query, &ctx.url))
}

/// Instance deploy tokens (docs: https://docs.gitlab.com/api/deploy_tokens/#list-all-deploy-tokens): no secrets.
async fn deploy_tokens(ctx: Ctx) -> Reply {
    admin(&ctx, false)?;
    let items = vec![json!({
        "id": 1, "name": "registry-pull", "username": "gitlab+deploy-token-1", "expires_at": "2026-12-31T00:00:00.000Z",
        "revoked": false, "expired": false, "scopes": ["read_registry"],
    })];
    Ok(http::paginate(items, &ctx.query, &ctx.url))
}

/// Features API (docs: https://docs.gitlab.com/api/features/): flags that are set, with gates.
async fn features(ctx: Ctx) -> Reply {
    admin(&ctx, false)?;
    Ok(http::ok(json!([
        {"name": "ci_new_editor", "state": "on", "gates": [{"key": "boolean", "value": true}], "definition": {"type": "gitlab_com_derisk", "milestone": "19.2", "default_enabled": false}},
        {"name": "slow_search", "state": "conditional", "gates": [{"key": "boolean", "value": false}, {"key": "percentage_of_time", "value": 25}], "definition": null},
    ])))
}

async fn feature_definitions(ctx: Ctx) -> Reply {
    admin(&ctx, false)?;
    Ok(http::ok(json!([
        {"name": "ci_new_editor", "introduced_by_url": "https://gitlab.com/gitlab-org/gitlab/-/merge_requests/1", "rollout_issue_url": null, "milestone": "19.2", "log_state_changes": null, "type": "gitlab_com_derisk", "group": "group::pipeline authoring", "default_enabled": false},
    ])))
}

/// Setting a flag: `value` required; a percentage with `key` or an actor, never both (lib/api/features.rb).
async fn feature_set(Path(name): Path<String>, ctx: Ctx) -> Reply {
    admin(&ctx, true)?;
    let value = ctx.require("value")?;
    let gate = match (value.as_str(), ctx.param("key")) {
        ("true" | "false", None) => json!({"key": "boolean", "value": value == "true"}),
        (n, key) => match n.parse::<u64>() {
            Ok(n) => json!({"key": key.unwrap_or_else(|| "percentage_of_time".into()), "value": n}),
            Err(_) => return Err(http::message(400, "400 Bad request - value is invalid")),
        },
    };
    let state = if gate["value"] == true {
        "on"
    } else if gate["value"] == false {
        "off"
    } else {
        "conditional"
    };
    Ok(http::created(
        json!({"name": name, "state": state, "gates": [gate]}),
    ))
}

/// Sidekiq metrics API (docs: https://docs.gitlab.com/api/sidekiq_metrics/#get-a-compound-response-of-all-the-previously-mentioned-metrics).
async fn sidekiq(ctx: Ctx) -> Reply {
    admin(&ctx, false)?;
    Ok(http::ok(json!({
        "queues": {"default": {"backlog": 0, "latency": 0}, "mailers": {"backlog": 3, "latency": 2}},
        "processes": [{"hostname": "sidekiq-0", "pid": 4211, "tag": "gitlab", "started_at": "2026-03-01T08:00:00.000Z", "queues": ["default", "mailers"], "labels": [], "concurrency": 20, "busy": 1}],
        "jobs": {"processed": 2000, "failed": 7, "enqueued": 3, "dead": 0},
    })))
}

/// Usage data API (docs: https://docs.gitlab.com/api/usage_data/): the Service Ping payload.
async fn service_ping(ctx: Ctx) -> Reply {
    admin(&ctx, false)?;
    Ok(http::ok(json!({
        "recorded_at": "2026-03-01T08:00:00.000Z", "uuid": "0000-1111", "hostname": "gitlab.example",
        "version": "19.5.0-pre", "edition": "CE", "active_user_count": 3, "counts": {"projects": 3, "issues": 76},
    })))
}

/// The metric definitions are YAML, served as text (docs: https://docs.gitlab.com/api/usage_data/#export-metric-definitions-as-a-single-yaml-file).
async fn metric_definitions(ctx: Ctx) -> Reply {
    let paths = ctx.flag("include_paths").unwrap_or(false);
    let mut yaml =
        String::from("---\n- key_path: counts.projects\n  description: Count of projects\n");
    if paths {
        yaml.push_str("  file_path: config/metrics/counts_all/count_total_projects.yml\n");
    }
    Ok(http::text(yaml))
}

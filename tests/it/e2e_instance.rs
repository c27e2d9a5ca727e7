//! gitlab_instance over stdio, one answer of each kind it returns: the
//! exact request the fake received and what the client saw. Alice's token
//! is the fake's administrator; bob's is an ordinary user.

use crate::common;

use common::{Harness, Lifecycle};
use serde_json::json;

const ADMIN_ONLY: &str = "403";

#[tokio::test]
async fn the_admin_toolset_serves_the_instance_tool_with_honest_annotations() {
    let h = Harness::start_with(Lifecycle::Discover, &[("GITLAB_MCP_TOOLS", "admin")]).await;
    let tools = h.client.list_all_tools().await.unwrap();
    let names: Vec<&str> = tools.iter().map(|t| t.name.as_ref()).collect();
    assert!(
        names.contains(&"gitlab_instance") && names.contains(&"gitlab_user"),
        "{names:?}"
    );
    let tool = tools.iter().find(|t| t.name == "gitlab_instance").unwrap();
    let a = tool.annotations.as_ref().unwrap();
    assert_eq!(a.read_only_hint, Some(false));
    assert_eq!(a.destructive_hint, Some(true));
    assert_eq!(tool.title.as_deref(), Some("GitLab instance"));
    let actions = tool.input_schema["properties"]["action"]["enum"].clone();
    for action in [
        "settings_update",
        "topic_merge",
        "hook_test",
        "feature_set",
        "help",
    ] {
        assert!(
            actions.as_array().unwrap().contains(&json!(action)),
            "{action}"
        );
    }
    h.stop().await;
}

#[tokio::test]
async fn metadata_version_and_statistics_are_one_object_each() {
    let h = Harness::confirming_admin().await;
    let text = h.ok("gitlab_instance", json!({"action": "metadata"})).await;
    assert!(
        text.contains("\"version\":\"19.5.0-pre\"") && text.contains("kas"),
        "{text}"
    );
    assert_eq!(h.only_request().line(), "GET /api/v4/metadata");
    h.fake.clear_requests();
    let text = h
        .ok("gitlab_instance", json!({"action": "statistics"}))
        .await;
    assert!(text.contains("\"merge_requests\":\"27\""), "{text}");
    assert_eq!(
        h.only_request().line(),
        "GET /api/v4/application/statistics"
    );
    h.stop().await;
}

#[tokio::test]
async fn an_ordinary_user_is_refused_the_administrator_actions() {
    let h = Harness::start_with(Lifecycle::Initialize, &[("GITLAB_TOKEN", "glpat-bob")]).await;
    let text = h
        .err("gitlab_instance", json!({"action": "settings_get"}))
        .await;
    assert!(
        text.contains(ADMIN_ONLY) && text.contains("Only administrators"),
        "{text}"
    );
    let text = h
        .err(
            "gitlab_instance",
            json!({"action": "topic_create", "params": {"name": "go", "title": "Go"}}),
        )
        .await;
    assert!(
        text.contains("Only administrators can create topics"),
        "{text}"
    );
    h.stop().await;
}

#[tokio::test]
async fn a_template_list_keeps_keys_and_one_template_shows_its_content() {
    let h = Harness::confirming_admin().await;
    let text = h
        .ok("gitlab_instance", json!({"action": "gitignore_list"}))
        .await;
    assert!(
        text.contains("\"key\":\"Rust\"") && text.contains("\"key\":\"Node\""),
        "{text}"
    );
    h.fake.clear_requests();
    let text = h
        .ok(
            "gitlab_instance",
            json!({"action": "gitignore_get", "params": {"name": "Rust"}}),
        )
        .await;
    assert!(
        text.contains("/target") && text.contains("Cargo.lock"),
        "{text}"
    );
    assert_eq!(
        h.only_request().line(),
        "GET /api/v4/templates/gitignores/Rust"
    );
    let text = h
        .err(
            "gitlab_instance",
            json!({"action": "gitignore_get", "params": {"name": "Cobol"}}),
        )
        .await;
    assert!(
        text.contains("gitignore_list"),
        "the 404 hint names the list: {text}"
    );
    h.stop().await;
}

#[tokio::test]
async fn topics_are_listed_with_search_read_and_created_by_an_administrator() {
    let h = Harness::confirming_admin().await;
    let text = h
        .ok(
            "gitlab_instance",
            json!({"action": "topic_list", "params": {"search": "ru"}}),
        )
        .await;
    assert!(
        text.contains("\"name\":\"rust\"") && !text.contains("CI/CD"),
        "{text}"
    );
    assert_eq!(h.only_request().line(), "GET /api/v4/topics?search=ru");
    h.fake.clear_requests();
    let text = h
        .ok(
            "gitlab_instance",
            json!({"action": "topic_get", "params": {"topic_id": 1}}),
        )
        .await;
    assert!(text.contains("Projects written in Rust."), "{text}");
    h.fake.clear_requests();
    let text = h
        .ok(
            "gitlab_instance",
            json!({"action": "topic_create", "params": {"name": "go", "title": "Go", "description": "Gophers."}}),
        )
        .await;
    assert!(text.contains("\"title\":\"Go\""), "{text}");
    let request = h.only_request();
    assert_eq!(request.line(), "POST /api/v4/topics");
    assert_eq!(
        request.json(),
        json!({"name": "go", "title": "Go", "description": "Gophers."})
    );
    h.stop().await;
}

#[tokio::test]
async fn broadcast_messages_are_listed_and_read() {
    let h = Harness::confirming_admin().await;
    let text = h
        .ok("gitlab_instance", json!({"action": "broadcast_list"}))
        .await;
    assert!(text.contains("Maintenance tonight"), "{text}");
    h.fake.clear_requests();
    let text = h
        .ok(
            "gitlab_instance",
            json!({"action": "broadcast_get", "params": {"broadcast_message_id": 1}}),
        )
        .await;
    assert!(
        text.contains("\"theme\":\"indigo\"") && text.contains("*/welcome"),
        "{text}"
    );
    assert_eq!(h.only_request().line(), "GET /api/v4/broadcast_messages/1");
    h.stop().await;
}

#[tokio::test]
async fn settings_hide_falses_and_empties_unless_raw_and_an_update_sends_only_what_is_given() {
    let h = Harness::confirming_admin().await;
    let text = h
        .ok("gitlab_instance", json!({"action": "settings_get"}))
        .await;
    assert!(text.contains("\"default_projects_limit\":100000"), "{text}");
    assert!(
        !text.contains("signup_enabled"),
        "a false is dropped: {text}"
    );
    let raw = h
        .ok(
            "gitlab_instance",
            json!({"action": "settings_get", "raw": true}),
        )
        .await;
    assert!(
        raw.contains("\"signup_enabled\":false"),
        "raw shows it: {raw}"
    );
    h.fake.clear_requests();
    let text = h
        .ok(
            "gitlab_instance",
            json!({"action": "settings_update", "params": {"signup_enabled": "true", "max_attachment_size": "50", "domain_allowlist": "acme.test, example.test"}}),
        )
        .await;
    assert!(
        text.contains("\"signup_enabled\":true") && text.contains("\"max_attachment_size\":50"),
        "{text}"
    );
    let request = h.only_request();
    assert_eq!(request.line(), "PUT /api/v4/application/settings");
    assert_eq!(
        request.json(),
        json!({"signup_enabled": true, "max_attachment_size": 50, "domain_allowlist": ["acme.test", "example.test"]})
    );
    h.stop().await;
}

#[tokio::test]
async fn a_deprecated_setting_is_sent_and_the_answer_names_the_current_one() {
    let h = Harness::confirming_admin().await;
    let text = h
        .ok(
            "gitlab_instance",
            json!({"action": "settings_update", "params": {"admin_notification_email": "abuse@acme.test"}}),
        )
        .await;
    assert!(text.contains("abuse_notification_email"), "{text}");
    assert_eq!(
        h.only_request().json(),
        json!({"admin_notification_email": "abuse@acme.test"})
    );
    h.fake.clear_requests();
    let text = h
        .err(
            "gitlab_instance",
            json!({"action": "settings_update", "params": {"admin_notification_email": "a@acme.test", "abuse_notification_email": "b@acme.test"}}),
        )
        .await;
    assert!(text.contains("abuse_notification_email"), "{text}");
    assert!(
        h.requests().is_empty(),
        "both at once is refused before sending"
    );
    h.stop().await;
}

#[tokio::test]
async fn a_settings_typo_gets_a_short_suggestion_not_the_whole_help() {
    let h = Harness::confirming_admin().await;
    let text = h
        .err(
            "gitlab_instance",
            json!({"action": "settings_update", "params": {"signup_enable": true}}),
        )
        .await;
    assert!(text.contains("did you mean `signup_enabled`?"), "{text}");
    assert!(text.contains(" more."), "the index is capped: {text}");
    assert!(text.len() < 4096, "{} bytes", text.len());
    assert!(h.requests().is_empty());
    h.stop().await;
}

#[tokio::test]
async fn appearance_and_plan_limits_are_one_object_each() {
    let h = Harness::confirming_admin().await;
    let text = h
        .ok("gitlab_instance", json!({"action": "appearance_get"}))
        .await;
    assert!(
        text.contains("Acme GitLab") && text.contains("Internal use only"),
        "{text}"
    );
    assert_eq!(
        h.only_request().line(),
        "GET /api/v4/application/appearance"
    );
    h.fake.clear_requests();
    let text = h
        .ok(
            "gitlab_instance",
            json!({"action": "limits_get", "params": {"plan_name": "default"}}),
        )
        .await;
    assert!(text.contains("\"ci_needs_size_limit\":50"), "{text}");
    assert_eq!(
        h.only_request().line(),
        "GET /api/v4/application/plan_limits?plan_name=default"
    );
    h.stop().await;
}

#[tokio::test]
async fn system_hooks_are_listed_and_deleted_once_confirmed() {
    let h = Harness::confirming_admin().await;
    let text = h
        .ok("gitlab_instance", json!({"action": "hook_list"}))
        .await;
    assert!(text.contains("https://audit.example/gitlab"), "{text}");
    h.fake.clear_requests();
    h.ok(
        "gitlab_instance",
        json!({"action": "hook_delete", "params": {"hook_id": 1}}),
    )
    .await;
    assert_eq!(h.only_request().line(), "DELETE /api/v4/hooks/1");
    h.stop().await;
}

#[tokio::test]
async fn a_key_is_found_by_fingerprint_with_its_owner() {
    let h = Harness::confirming_admin().await;
    let fingerprint = "SHA256:nZ9dXJ4sYyq1Xr0CZm2Wd4Q0cQ2ObZ3QeZC0FSmH0bM";
    let text = h
        .ok(
            "gitlab_instance",
            json!({"action": "key_find", "params": {"fingerprint": fingerprint}}),
        )
        .await;
    assert!(
        text.contains("\"user\":\"alice\"") && text.contains("laptop"),
        "{text}"
    );
    assert_eq!(
        h.only_request().line(),
        "GET /api/v4/keys?fingerprint=SHA256%3AnZ9dXJ4sYyq1Xr0CZm2Wd4Q0cQ2ObZ3QeZC0FSmH0bM"
    );
    h.stop().await;
}

#[tokio::test]
async fn instance_deploy_keys_and_tokens_are_lists() {
    let h = Harness::confirming_admin().await;
    let text = h
        .ok(
            "gitlab_instance",
            json!({"action": "deploy_key_list", "params": {"public": true}}),
        )
        .await;
    assert!(text.contains("Public key"), "{text}");
    assert_eq!(
        h.only_request().line(),
        "GET /api/v4/deploy_keys?public=true"
    );
    h.fake.clear_requests();
    let text = h
        .ok(
            "gitlab_instance",
            json!({"action": "deploy_token_list", "params": {"active": true}}),
        )
        .await;
    assert!(
        text.contains("registry-pull") && !text.contains("token\":\"gl"),
        "{text}"
    );
    assert_eq!(
        h.only_request().line(),
        "GET /api/v4/deploy_tokens?active=true"
    );
    h.stop().await;
}

#[tokio::test]
async fn feature_flags_are_listed_defined_and_set() {
    let h = Harness::confirming_admin().await;
    let text = h
        .ok("gitlab_instance", json!({"action": "feature_list"}))
        .await;
    assert!(
        text.contains("ci_new_editor") && text.contains("conditional"),
        "{text}"
    );
    let text = h
        .ok("gitlab_instance", json!({"action": "feature_definitions"}))
        .await;
    assert!(text.contains("gitlab_com_derisk"), "{text}");
    h.fake.clear_requests();
    let text = h
        .ok(
            "gitlab_instance",
            json!({"action": "feature_set", "params": {"name": "slow_search", "value": "30", "key": "percentage_of_actors"}}),
        )
        .await;
    assert!(
        text.contains("percentage_of_actors") && text.contains("\"value\":30"),
        "{text}"
    );
    let request = h.only_request();
    assert_eq!(request.line(), "POST /api/v4/features/slow_search");
    assert_eq!(
        request.json(),
        json!({"value": "30", "key": "percentage_of_actors"})
    );
    h.stop().await;
}

#[tokio::test]
async fn sidekiq_metrics_and_service_ping_are_one_object_each() {
    let h = Harness::confirming_admin().await;
    let text = h
        .ok("gitlab_instance", json!({"action": "sidekiq_metrics"}))
        .await;
    assert!(
        text.contains("mailers") && text.contains("\"failed\":7"),
        "{text}"
    );
    assert_eq!(
        h.only_request().line(),
        "GET /api/v4/sidekiq/compound_metrics"
    );
    h.fake.clear_requests();
    let text = h
        .ok("gitlab_instance", json!({"action": "service_ping"}))
        .await;
    assert!(text.contains("\"edition\":\"CE\""), "{text}");
    h.stop().await;
}

#[tokio::test]
async fn text_answers_metric_definitions_and_avatar_are_shown_as_sent() {
    let h = Harness::confirming_admin().await;
    let text = h
        .ok(
            "gitlab_instance",
            json!({"action": "metric_definitions", "params": {"include_paths": true}}),
        )
        .await;
    assert!(
        text.contains("key_path: counts.projects") && text.contains("file_path:"),
        "{text}"
    );
    assert_eq!(
        h.only_request().line(),
        "GET /api/v4/usage_data/metric_definitions?include_paths=true"
    );
    h.fake.clear_requests();
    // Compaction would drop `avatar_url`: the answer is shown as text.
    let text = h
        .ok(
            "gitlab_instance",
            json!({"action": "avatar", "params": {"email": "alice@acme.test", "size": 32}}),
        )
        .await;
    assert!(
        text.contains("avatar_url") && text.contains("s=32"),
        "{text}"
    );
    assert_eq!(
        h.only_request().line(),
        "GET /api/v4/avatar?email=alice%40acme.test&size=32"
    );
    h.stop().await;
}

#[tokio::test]
async fn markdown_is_rendered_from_a_json_body() {
    let h = Harness::confirming_admin().await;
    let text = h
        .ok("gitlab_instance", json!({"action": "markdown", "params": {"text": "Fix <b>", "gfm": true, "project": "acme/platform/api"}}))
        .await;
    assert!(text.contains("Fix &lt;b&gt;"), "{text}");
    let request = h.only_request();
    assert_eq!(request.line(), "POST /api/v4/markdown");
    assert_eq!(
        request.json(),
        json!({"text": "Fix <b>", "gfm": true, "project": "acme/platform/api"})
    );
    h.stop().await;
}

/// Kinds of gitlab_user's administration and account actions.
#[tokio::test]
async fn user_administration_answers_memberships_counts_and_attributes() {
    let h = Harness::confirming_admin().await;
    let text = h
        .ok(
            "gitlab_user",
            json!({"action": "membership_list", "params": {"user_id": 2, "type": "Project"}}),
        )
        .await;
    assert!(
        text.contains("\"source_type\":\"Project\"") && !text.contains("Namespace"),
        "{text}"
    );
    assert_eq!(
        h.only_request().line(),
        "GET /api/v4/users/2/memberships?type=Project"
    );
    h.fake.clear_requests();
    let text = h
        .ok(
            "gitlab_user",
            json!({"action": "association_count", "params": {"user_id": 2}}),
        )
        .await;
    assert!(
        text.contains("\"issues_count\":12") && !text.contains("merge_requests_count"),
        "{text}"
    );
    let text = h
        .ok(
            "gitlab_user",
            json!({"action": "attribute_list", "params": {"user_id": 2}}),
        )
        .await;
    assert!(text.contains("\"key\":\"team\""), "{text}");
    h.fake.clear_requests();
    let text = h
        .ok("gitlab_user", json!({"action": "attribute_set", "params": {"user_id": 2, "key": "team", "value": "web"}}))
        .await;
    assert!(text.contains("\"value\":\"web\""), "{text}");
    let request = h.only_request();
    assert_eq!(request.line(), "PUT /api/v4/users/2/custom_attributes/team");
    assert_eq!(request.json(), json!({"value": "web"}));
    h.fake.clear_requests();
    let text = h
        .ok(
            "gitlab_user",
            json!({"action": "activity_list", "params": {"from": "2026-01-01"}}),
        )
        .await;
    assert!(
        text.contains("\"username\":\"bob\"") && text.contains("last_activity_on"),
        "{text}"
    );
    assert_eq!(
        h.only_request().line(),
        "GET /api/v4/user/activities?from=2026-01-01"
    );
    h.stop().await;
}

#[tokio::test]
async fn an_impersonation_token_answer_carries_the_secret_and_block_needs_confirmation() {
    let h = Harness::confirming_admin().await;
    let text = h
        .ok(
            "gitlab_user",
            json!({"action": "impersonation_create", "params": {"user_id": 2, "name": "support", "scopes": "read_api", "expires_at": "2026-04-01"}}),
        )
        .await;
    assert!(
        text.contains("glpat-impersonation-secret"),
        "shown once, so shown: {text}"
    );
    let request = h.only_request();
    assert_eq!(request.line(), "POST /api/v4/users/2/impersonation_tokens");
    assert_eq!(
        request.json(),
        json!({"name": "support", "scopes": ["read_api"], "expires_at": "2026-04-01"})
    );
    h.stop().await;

    // Blocking is destructive: without confirmation nothing is sent.
    let h = Harness::start(Lifecycle::Initialize).await;
    let text = h
        .err(
            "gitlab_user",
            json!({"action": "block", "params": {"user_id": 2}}),
        )
        .await;
    assert!(text.contains("needs confirmation"), "{text}");
    assert!(h.requests().is_empty());
    h.stop().await;
    let h = Harness::confirming_admin().await;
    h.ok(
        "gitlab_user",
        json!({"action": "block", "params": {"user_id": 2}}),
    )
    .await;
    assert_eq!(h.only_request().line(), "POST /api/v4/users/2/block");
    h.stop().await;
}

#[tokio::test]
async fn your_token_associations_preferences_and_counts() {
    let h = Harness::confirming_admin().await;
    let text = h
        .ok(
            "gitlab_user",
            json!({"action": "token_self_access", "params": {"min_access_level": 30}}),
        )
        .await;
    assert!(
        text.contains("acme/platform/api") && text.contains("groups"),
        "{text}"
    );
    assert_eq!(
        h.only_request().line(),
        "GET /api/v4/personal_access_tokens/self/associations?min_access_level=30"
    );
    h.fake.clear_requests();
    let text = h
        .ok("gitlab_user", json!({"action": "preference_get"}))
        .await;
    assert!(text.contains("\"show_whitespace_in_diffs\":true"), "{text}");
    h.fake.clear_requests();
    h.ok(
        "gitlab_user",
        json!({"action": "preference_update", "params": {"view_diffs_file_by_file": true}}),
    )
    .await;
    let request = h.only_request();
    assert_eq!(request.line(), "PUT /api/v4/user/preferences");
    assert_eq!(request.json(), json!({"view_diffs_file_by_file": true}));
    // At least one preference: refused before anything is sent.
    h.fake.clear_requests();
    h.err(
        "gitlab_user",
        json!({"action": "preference_update", "params": {}}),
    )
    .await;
    assert!(h.requests().is_empty());
    let text = h
        .ok("gitlab_user", json!({"action": "current_counts"}))
        .await;
    assert!(text.contains("\"assigned_issues\":15"), "{text}");
    h.stop().await;
}

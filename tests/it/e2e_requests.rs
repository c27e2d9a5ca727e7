//! Successful calls over stdio: the exact request the fake received, path
//! encoding included, and what the client saw.

use crate::common;

use common::{BOTH, Harness, Lifecycle};
use serde_json::json;

#[tokio::test]
async fn get_issue_sends_one_exact_request_in_both_lifecycles() {
    for lifecycle in BOTH {
        let h = Harness::start(lifecycle).await;
        let text = h
            .ok("gitlab_issue", json!({"action": "get", "params": {"project_id": "acme/platform/api", "issue_iid": 3}}))
            .await;
        assert!(text.contains("\"iid\":3"), "{lifecycle:?}: {text}");
        let request = h.only_request();
        assert_eq!(
            request.line(),
            "GET /api/v4/projects/acme%2Fplatform%2Fapi/issues/3"
        );
        assert_eq!(request.private_token.as_deref(), Some(common::TOKEN));
        assert_eq!(request.authorization, None);
        h.stop().await;
    }
}

#[tokio::test]
async fn file_paths_with_spaces_slashes_and_non_ascii_are_one_segment() {
    let h = Harness::start(Lifecycle::Initialize).await;
    h.ok("gitlab_repository", json!({"action": "file_raw", "params": {"project_id": 1, "file_path": "docs/getting started.md", "ref": "main"}})).await;
    h.ok(
        "gitlab_repository",
        json!({"action": "file_raw", "params": {"project_id": "1", "file_path": "src/ü.rs"}}),
    )
    .await;
    let lines: Vec<String> = h.requests().iter().map(|r| r.line()).collect();
    assert_eq!(
        lines,
        [
            "GET /api/v4/projects/1/repository/files/docs%2Fgetting%20started.md/raw?ref=main",
            "GET /api/v4/projects/1/repository/files/src%2F%C3%BC.rs/raw",
        ]
    );
    h.stop().await;
}

#[tokio::test]
async fn non_ascii_branch_names_and_dot_segments_cannot_change_the_endpoint() {
    let h = Harness::start(Lifecycle::Discover).await;
    let text = h
        .ok("gitlab_repository", json!({"action": "branch_get", "params": {"project_id": "acme/platform/api", "branch": "feature/ünïcode-naïve"}}))
        .await;
    assert!(text.contains("feature/ünïcode-naïve"));
    // `..` inside a value stays inside its segment...
    let out = h
        .call("gitlab_repository", json!({"action": "file_raw", "params": {"project_id": "acme/platform/api", "file_path": "../../../../users"}}))
        .await;
    assert!(out.is_error, "no such file");
    let lines: Vec<String> = h.requests().iter().map(|r| r.line()).collect();
    assert_eq!(
        lines,
        [
            "GET /api/v4/projects/acme%2Fplatform%2Fapi/repository/branches/feature%2F%C3%BCn%C3%AFcode-na%C3%AFve",
            "GET /api/v4/projects/acme%2Fplatform%2Fapi/repository/files/..%2F..%2F..%2F..%2Fusers/raw",
        ]
    );
    // ...and a whole `..` is refused before anything is sent.
    h.fake.clear_requests();
    let text = h
        .err("gitlab_repository", json!({"action": "branch_delete", "params": {"project_id": "acme/platform/api", "branch": ".."}}))
        .await;
    assert!(text.contains("`branch` cannot be \"..\""), "{text}");
    assert!(h.requests().is_empty());
    h.stop().await;
}

#[tokio::test]
async fn create_sends_a_json_body_with_lists_as_gitlab_takes_them() {
    let h = Harness::start(Lifecycle::Initialize).await;
    let text = h
        .ok(
            "gitlab_issue",
            json!({"action": "create", "params": {
                "project_id": "acme/platform/api", "title": "Refunds fail", "labels": "bug, backend",
                "assignee_ids": "2,3", "confidential": "true"
            }}),
        )
        .await;
    assert!(text.contains("Refunds fail"));
    let request = h.only_request();
    assert_eq!(
        request.line(),
        "POST /api/v4/projects/acme%2Fplatform%2Fapi/issues"
    );
    assert_eq!(
        request.json(),
        json!({"title": "Refunds fail", "labels": "bug,backend", "assignee_ids": [2, 3], "confidential": true})
    );
    h.stop().await;
}

#[tokio::test]
async fn close_sends_the_fixed_state_event() {
    let h = Harness::start(Lifecycle::Discover).await;
    let text = h
        .ok(
            "gitlab_issue",
            json!({"action": "close", "params": {"project_id": 1, "issue_iid": "4"}}),
        )
        .await;
    assert!(text.contains("\"state\":\"closed\""), "{text}");
    let request = h.only_request();
    assert_eq!(request.line(), "PUT /api/v4/projects/1/issues/4");
    assert_eq!(request.json(), json!({"state_event": "close"}));
    h.stop().await;
}

#[tokio::test]
async fn list_filters_go_in_the_query_with_brackets_for_arrays() {
    let h = Harness::start(Lifecycle::Initialize).await;
    h.ok(
        "gitlab_issue",
        json!({"action": "list", "params": {"project_id": 1, "state": "opened", "labels": ["bug"], "iids": [1, 2], "per_page": 5}}),
    )
    .await;
    assert_eq!(
        h.only_request().line(),
        "GET /api/v4/projects/1/issues?per_page=5&state=opened&labels=bug&iids[]=1&iids[]=2"
    );
    h.stop().await;
}

#[tokio::test]
async fn pipeline_create_uses_the_singular_endpoint() {
    let h = Harness::start(Lifecycle::Initialize).await;
    h.ok(
        "gitlab_pipeline",
        json!({"action": "create", "params": {"project_id": 1, "ref": "main", "variables": [{"key": "DEPLOY", "value": "1"}]}}),
    )
    .await;
    let request = h.only_request();
    assert_eq!(request.line(), "POST /api/v4/projects/1/pipeline");
    assert_eq!(
        request.json(),
        json!({"ref": "main", "variables": [{"key": "DEPLOY", "value": "1"}]})
    );
    h.stop().await;
}

#[tokio::test]
async fn job_log_is_returned_as_text() {
    let h = Harness::start(Lifecycle::Discover).await;
    let text = h
        .ok(
            "gitlab_pipeline",
            json!({"action": "job_log", "params": {"project_id": 1, "job_id": 101}}),
        )
        .await;
    assert!(
        common::data(&text).starts_with("Running with gitlab-runner"),
        "{text}"
    );
    assert_eq!(
        h.only_request().line(),
        "GET /api/v4/projects/1/jobs/101/trace"
    );
    h.stop().await;
}

#[tokio::test]
async fn help_answers_locally_without_a_request() {
    let h = Harness::start(Lifecycle::Initialize).await;
    let text = h
        .ok(
            "gitlab_merge_request",
            json!({"action": "help", "params": {"action": "create"}}),
        )
        .await;
    assert!(text.contains("* source_branch"), "{text}");
    assert!(text.contains("Example: {\"action\":\"create\""), "{text}");
    let index = h
        .ok("gitlab_merge_request", json!({"action": "help"}))
        .await;
    assert!(
        index.contains("merge(project_id, merge_request_iid)"),
        "{index}"
    );
    assert!(h.requests().is_empty());
    h.stop().await;
}

#[tokio::test]
async fn patch_updates_a_protected_branch() {
    let h = Harness::start(Lifecycle::Initialize).await;
    let text = h
        .ok("gitlab_repository", json!({"action": "protected_branch_update", "params": {"project_id": 1, "branch": "release/1.0", "allow_force_push": true}}))
        .await;
    assert!(text.contains("\"allow_force_push\":true"), "{text}");
    let request = h.only_request();
    assert_eq!(
        request.line(),
        "PATCH /api/v4/projects/1/protected_branches/release%2F1.0"
    );
    assert_eq!(request.json(), json!({"allow_force_push": true}));
    h.stop().await;
}

#[tokio::test]
async fn a_deprecated_parameter_is_sent_as_given_and_the_answer_names_its_replacement() {
    let h = Harness::start(Lifecycle::Initialize).await;
    let text = h
        .ok("gitlab_merge_request", json!({"action": "merge", "params": {"project_id": 1, "merge_request_iid": 1, "merge_when_pipeline_succeeds": true}}))
        .await;
    assert!(
        text.ends_with("[`merge_when_pipeline_succeeds` is deprecated: use `auto_merge`]"),
        "{text}"
    );
    let request = h.only_request();
    assert_eq!(request.json()["merge_when_pipeline_succeeds"], json!(true));
    // With its replacement, GitLab would pick one silently: nothing is sent.
    let text = h
        .err("gitlab_merge_request", json!({"action": "merge", "params": {"project_id": 1, "merge_request_iid": 1, "merge_when_pipeline_succeeds": true, "auto_merge": true}}))
        .await;
    assert!(
        text.contains("`merge_when_pipeline_succeeds` and `auto_merge` are both given"),
        "{text}"
    );
    assert_eq!(h.requests().len(), 1);
    // Help lists it apart, and the error index leaves it out.
    let help = h
        .ok(
            "gitlab_merge_request",
            json!({"action": "help", "params": {"action": "merge"}}),
        )
        .await;
    assert!(
        help.contains("Deprecated, still accepted: merge_when_pipeline_succeeds (use auto_merge)."),
        "{help}"
    );
    assert!(!help.contains("  merge_when_pipeline_succeeds ("), "{help}");
    h.stop().await;
}

#[tokio::test]
async fn help_of_a_large_action_stops_at_40_parameters_and_finds_the_rest_by_word() {
    let h = Harness::start(Lifecycle::Initialize).await;
    let full = h
        .ok(
            "gitlab_instance",
            json!({"action": "help", "params": {"action": "settings_update"}}),
        )
        .await;
    let described = full
        .lines()
        .filter(|l| l.starts_with("  ") && l.contains("): "))
        .count();
    assert_eq!(described, 40, "{full}");
    assert!(full.contains("more: find them with {\"action\": \"help\", \"params\": {\"action\": \"settings_update\", \"search\": \"<word>\"}}"), "{full}");
    let found = h
        .ok(
            "gitlab_instance",
            json!({"action": "help", "params": {"action": "settings_update", "search": "SIGNUP"}}),
        )
        .await;
    assert!(found.contains("  signup_enabled (boolean): "), "{found}");
    assert!(!found.contains("  gravatar_enabled"), "{found}");
    let none = h
        .ok(
            "gitlab_instance",
            json!({"action": "help", "params": {"action": "settings_update", "search": "zzzq"}}),
        )
        .await;
    assert!(none.contains("(no parameter holds `zzzq`)"), "{none}");
    // A tool's actions by word.
    let tokens = h
        .ok(
            "gitlab_project",
            json!({"action": "help", "params": {"search": "deploy token"}}),
        )
        .await;
    assert!(
        tokens.contains("deploy_token_list(project_id)") && !tokens.contains("  get(project_id)"),
        "{tokens}"
    );
    assert!(h.requests().is_empty(), "help is answered locally");
    h.stop().await;
}

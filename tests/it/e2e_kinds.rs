//! One call per kind of answer the CI/CD settings, protection, repository
//! statistics, snippet administration and wiki attachment actions return:
//! the exact request the fake received and what the client saw.

use crate::common;

use common::{Harness, Lifecycle};
use serde_json::json;

const API: &str = "/api/v4/projects/acme%2Fplatform%2Fapi";

#[tokio::test]
async fn the_job_token_scope_and_its_allowlist_are_read_and_extended() {
    let h = Harness::start(Lifecycle::Initialize).await;
    let text = h
        .ok(
            "gitlab_pipeline",
            json!({"action": "token_scope_get", "params": {"project_id": "acme/platform/api"}}),
        )
        .await;
    assert!(text.contains("\"inbound_enabled\":true"), "{text}");
    assert_eq!(
        h.only_request().line(),
        format!("GET {API}/job_token_scope")
    );
    h.fake.clear_requests();

    let text = h
        .ok("gitlab_pipeline", json!({"action": "allowlist_add", "params": {"project_id": "acme/platform/api", "target_project_id": 2}}))
        .await;
    assert!(text.contains("\"target_project_id\":2"), "{text}");
    let request = h.only_request();
    assert_eq!(
        request.line(),
        format!("POST {API}/job_token_scope/allowlist")
    );
    assert_eq!(request.json(), json!({"target_project_id": 2}));
    h.stop().await;
}

#[tokio::test]
async fn a_resource_group_and_a_jobs_artifacts_tree_are_read() {
    let h = Harness::start(Lifecycle::Initialize).await;
    let text = h
        .ok("gitlab_pipeline", json!({"action": "resource_group_get", "params": {"project_id": 1, "key": "production"}}))
        .await;
    assert!(text.contains("\"process_mode\":\"oldest_first\""), "{text}");
    assert_eq!(
        h.only_request().line(),
        "GET /api/v4/projects/1/resource_groups/production"
    );
    h.fake.clear_requests();

    let text = h
        .ok("gitlab_pipeline", json!({"action": "job_artifact_tree", "params": {"project_id": 1, "job_id": 101, "path": "reports"}}))
        .await;
    assert!(text.contains("\"name\":\"junit ü.xml\""), "{text}");
    assert!(!text.contains("summary.txt"), "{text}");
    assert_eq!(
        h.only_request().line(),
        "GET /api/v4/projects/1/jobs/101/artifacts/tree?path=reports"
    );
    h.stop().await;
}

#[tokio::test]
async fn a_secure_file_is_uploaded_as_multipart_with_its_name_in_the_query() {
    let h = Harness::start(Lifecycle::Initialize).await;
    let text = h
        .ok("gitlab_pipeline", json!({"action": "secure_file_create", "params": {"project_id": "acme/platform/api", "name": "release.keystore", "file_name": "release.keystore", "content": "S0VZ", "encoding": "base64"}}))
        .await;
    assert!(text.contains("\"name\":\"release.keystore\""), "{text}");
    assert!(text.contains("\"checksum_algorithm\":\"sha256\""), "{text}");
    let request = h.only_request();
    assert_eq!(
        request.line(),
        format!("POST {API}/secure_files?name=release.keystore")
    );
    assert!(
        request.body.contains("filename=\"release.keystore\"")
            && request.body.contains("\r\n\r\nKEY\r\n"),
        "{}",
        request.body
    );
    h.stop().await;
}

#[tokio::test]
async fn a_runner_token_reset_answers_the_new_token() {
    let h = Harness::start_with(
        Lifecycle::Initialize,
        &[("GITLAB_MCP_AUTO_CONFIRM", "true")],
    )
    .await;
    let text = h
        .ok(
            "gitlab_pipeline",
            json!({"action": "runner_token_reset", "params": {"runner_id": 7}}),
        )
        .await;
    assert!(text.contains("\"token\":\"glrt-fake-new-token\""), "{text}");
    assert_eq!(
        h.only_request().line(),
        "POST /api/v4/runners/7/reset_authentication_token"
    );
    h.stop().await;
}

#[tokio::test]
async fn an_environment_is_protected_and_a_deployment_approved() {
    let h = Harness::start(Lifecycle::Initialize).await;
    let text = h
        .ok("gitlab_environment", json!({"action": "protected_create", "params": {"project_id": 1, "name": "production", "deploy_access_levels": [{"access_level": 40}, {"user_id": 2}]}}))
        .await;
    assert!(text.contains("\"name\":\"production\""), "{text}");
    assert!(text.contains("\"user_id\":2"), "{text}");
    let request = h.only_request();
    assert_eq!(
        request.line(),
        "POST /api/v4/projects/1/protected_environments"
    );
    assert_eq!(
        request.json(),
        json!({"name": "production", "deploy_access_levels": [{"access_level": 40}, {"user_id": 2}]})
    );
    h.fake.clear_requests();

    let text = h
        .ok("gitlab_environment", json!({"action": "deployment_approve", "params": {"project_id": 1, "deployment_id": 42, "status": "approved", "comment": "Looks good"}}))
        .await;
    assert!(text.contains("\"status\":\"approved\""), "{text}");
    assert!(text.contains("\"user\":\"alice\""), "{text}");
    let request = h.only_request();
    assert_eq!(
        request.line(),
        "POST /api/v4/projects/1/deployments/42/approval"
    );
    assert_eq!(
        request.json(),
        json!({"status": "approved", "comment": "Looks good"})
    );
    h.stop().await;
}

#[tokio::test]
async fn a_package_protection_rule_needs_one_access_level_before_anything_is_sent() {
    let h = Harness::start(Lifecycle::Initialize).await;
    let text = h
        .err("gitlab_package", json!({"action": "protection_rule_create", "params": {"project_id": 1, "package_name_pattern": "@acme/*", "package_type": "npm"}}))
        .await;
    assert!(text.contains("minimum_access_level_for_push"), "{text}");
    assert!(h.requests().is_empty());

    let text = h
        .ok("gitlab_package", json!({"action": "protection_rule_create", "params": {"project_id": 1, "package_name_pattern": "@acme/*", "package_type": "npm", "minimum_access_level_for_push": "owner"}}))
        .await;
    assert!(
        text.contains("\"package_name_pattern\":\"@acme/*\""),
        "{text}"
    );
    let request = h.only_request();
    assert_eq!(
        request.line(),
        "POST /api/v4/projects/1/packages/protection/rules"
    );
    assert_eq!(
        request.json(),
        json!({"package_name_pattern": "@acme/*", "package_type": "npm", "minimum_access_level_for_push": "owner"})
    );
    h.stop().await;
}

#[tokio::test]
async fn changed_paths_diff_stats_and_divergence_between_a_tag_and_a_branch() {
    let h = Harness::start(Lifecycle::Initialize).await;
    let range = json!({"project_id": "acme/platform/api", "from": "v1.0.0", "to": "main"});
    let text = h
        .ok(
            "gitlab_repository",
            json!({"action": "changed_paths", "params": range}),
        )
        .await;
    assert!(text.contains("\"status\":\"MODIFIED\""), "{text}");
    assert_eq!(
        h.only_request().line(),
        format!("GET {API}/repository/changed_paths?from=v1.0.0&to=main")
    );
    h.fake.clear_requests();

    let text = h
        .ok(
            "gitlab_repository",
            json!({"action": "diff_stats", "params": range}),
        )
        .await;
    assert!(
        text.contains("\"additions\":2") && text.contains("\"deletions\":1"),
        "{text}"
    );
    assert_eq!(
        h.only_request().line(),
        format!("GET {API}/repository/diff_stats?from=v1.0.0&to=main")
    );
    h.fake.clear_requests();

    let text = h
        .ok(
            "gitlab_repository",
            json!({"action": "diverging_commits", "params": range}),
        )
        .await;
    assert!(text.contains("\"ahead\":3"), "{text}");
    assert_eq!(
        h.only_request().line(),
        format!("GET {API}/repository/diverging_commits?from=v1.0.0&to=main")
    );
    h.stop().await;
}

#[tokio::test]
async fn repository_health_is_read_and_regenerated() {
    let h = Harness::start(Lifecycle::Initialize).await;
    let text = h
        .ok(
            "gitlab_repository",
            json!({"action": "health", "params": {"project_id": 1, "generate": true}}),
        )
        .await;
    assert!(text.contains("\"recent_size\":4096"), "{text}");
    assert!(text.contains("2026-03-02T10:00:00.000Z"), "{text}");
    assert_eq!(
        h.only_request().line(),
        "GET /api/v4/projects/1/repository/health?generate=true"
    );
    h.fake.clear_requests();
    // `references` is noise elsewhere (issue references), kept only raw.
    let text = h
        .ok(
            "gitlab_repository",
            json!({"action": "health", "params": {"project_id": 1}, "raw": true}),
        )
        .await;
    assert!(text.contains("\"loose_count\":2"), "{text}");
    assert_eq!(
        h.only_request().line(),
        "GET /api/v4/projects/1/repository/health"
    );
    h.stop().await;
}

#[tokio::test]
async fn snippet_user_agent_details_and_a_storage_move() {
    let h = Harness::start(Lifecycle::Initialize).await;
    let text = h
        .ok(
            "gitlab_snippet",
            json!({"action": "project_user_agent", "params": {"project_id": 1, "snippet_id": 71}}),
        )
        .await;
    assert!(text.contains("\"ip_address\":\"192.0.2.10\""), "{text}");
    assert_eq!(
        h.only_request().line(),
        "GET /api/v4/projects/1/snippets/71/user_agent_detail"
    );
    h.fake.clear_requests();

    let text = h
        .ok("gitlab_snippet", json!({"action": "storage_move_create", "params": {"snippet_id": 71, "destination_storage_name": "storage3"}}))
        .await;
    assert!(text.contains("\"state\":\"scheduled\""), "{text}");
    assert!(
        text.contains("\"destination_storage_name\":\"storage3\""),
        "{text}"
    );
    let request = h.only_request();
    assert_eq!(
        request.line(),
        "POST /api/v4/snippets/71/repository_storage_moves"
    );
    assert_eq!(
        request.json(),
        json!({"destination_storage_name": "storage3"})
    );
    h.stop().await;
}

#[tokio::test]
async fn a_wiki_attachment_is_uploaded_to_a_branch_and_answers_its_markdown() {
    let h = Harness::start(Lifecycle::Initialize).await;
    let text = h
        .ok("gitlab_wiki", json!({"action": "attachment_create", "params": {"project_id": "acme/platform/api", "file_name": "flow.png", "content": "UE5HIQ==", "encoding": "base64", "branch": "main"}}))
        .await;
    assert!(text.contains("\"branch\":\"main\""), "{text}");
    assert!(text.contains("![flow](uploads/"), "{text}");
    let request = h.only_request();
    assert_eq!(
        request.line(),
        format!("POST {API}/wikis/attachments?branch=main")
    );
    assert!(
        request.body.contains("filename=\"flow.png\"") && request.body.contains("\r\n\r\nPNG!\r\n"),
        "{}",
        request.body
    );
    h.stop().await;
}

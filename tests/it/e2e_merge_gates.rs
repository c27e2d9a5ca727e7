//! What stands between a merge request and its merge, end to end:
//! approval configuration and rules, external status checks, dependencies
//! and merge trains (Premium and Ultimate endpoints), each asserting the
//! exact request the fake GitLab received and what the client saw.

use crate::common;

use common::{Harness, Lifecycle};
use serde_json::json;

#[tokio::test]
async fn approval_config_set_sends_only_the_settings_given() {
    let h = Harness::start(Lifecycle::Initialize).await;
    let text = h
        .ok(
            "gitlab_merge_request",
            json!({"action": "approval_config_set", "params": {
                "project_id": "acme/platform/api", "reset_approvals_on_push": false,
                "merge_requests_author_approval": "true"
            }}),
        )
        .await;
    let request = h.only_request();
    assert_eq!(
        request.line(),
        "POST /api/v4/projects/acme%2Fplatform%2Fapi/approvals"
    );
    assert_eq!(
        request.json(),
        json!({"reset_approvals_on_push": false, "merge_requests_author_approval": true})
    );
    assert!(
        text.contains("\"merge_requests_author_approval\":true"),
        "{text}"
    );
    assert!(!text.contains("reset_approvals_on_push\":true"), "{text}");
    h.stop().await;
}

#[tokio::test]
async fn approval_rule_create_names_its_approvers() {
    let h = Harness::start(Lifecycle::Discover).await;
    let text = h
        .ok(
            "gitlab_merge_request",
            json!({"action": "approval_rule_create", "params": {
                "project_id": 1, "merge_request_iid": 1, "name": "Security",
                "approvals_required": 1, "user_ids": "2,3"
            }}),
        )
        .await;
    let request = h.only_request();
    assert_eq!(
        request.line(),
        "POST /api/v4/projects/1/merge_requests/1/approval_rules"
    );
    assert_eq!(
        request.json(),
        json!({"name": "Security", "approvals_required": 1, "user_ids": [2, 3]})
    );
    assert!(text.contains("\"name\":\"Security\""), "{text}");
    assert!(text.contains("\"approvals_required\":1"), "{text}");
    assert!(text.contains("bob") && text.contains("carol"), "{text}");
    h.stop().await;
}

#[tokio::test]
async fn status_check_list_shows_each_check_with_its_status() {
    let h = Harness::start(Lifecycle::Initialize).await;
    let text = h
        .ok(
            "gitlab_merge_request",
            json!({"action": "status_check_list", "params": {"project_id": 1, "merge_request_iid": 2}}),
        )
        .await;
    assert_eq!(
        h.only_request().line(),
        "GET /api/v4/projects/1/merge_requests/2/status_checks"
    );
    assert!(
        text.contains("\"name\":\"Service 1\"") && text.contains("\"status\":\"passed\""),
        "{text}"
    );
    assert!(text.contains("\"status\":\"pending\""), "{text}");
    h.stop().await;
}

#[tokio::test]
async fn block_create_takes_exactly_one_way_to_name_the_blocking_merge_request() {
    let h = Harness::start(Lifecycle::Discover).await;
    // Neither id nor iid: refused before anything is sent.
    let text = h
        .err(
            "gitlab_merge_request",
            json!({"action": "block_create", "params": {"project_id": 1, "merge_request_iid": 2}}),
        )
        .await;
    assert!(text.contains("blocking_merge_request_iid"), "{text}");
    assert!(h.requests().is_empty());
    let text = h
        .ok(
            "gitlab_merge_request",
            json!({"action": "block_create", "params": {
                "project_id": 1, "merge_request_iid": 2, "blocking_merge_request_iid": 1
            }}),
        )
        .await;
    let request = h.only_request();
    assert_eq!(
        request.line(),
        "POST /api/v4/projects/1/merge_requests/2/blocks"
    );
    assert_eq!(request.json(), json!({"blocking_merge_request_iid": 1}));
    assert!(text.contains("\"blocking_merge_request\""), "{text}");
    assert!(text.contains("Rework the orders endpoint"), "{text}");
    assert!(text.contains("\"blocked_merge_request\""), "{text}");
    h.stop().await;
}

#[tokio::test]
async fn train_list_filters_by_scope_and_shows_each_car() {
    let h = Harness::start(Lifecycle::Initialize).await;
    let text = h
        .ok(
            "gitlab_merge_request",
            json!({"action": "train_list", "params": {"project_id": 1, "scope": "complete"}}),
        )
        .await;
    assert_eq!(
        h.only_request().line(),
        "GET /api/v4/projects/1/merge_trains?scope=complete"
    );
    assert!(text.contains("Release 1.0"), "{text}");
    assert!(text.contains("\"status\":\"merged\""), "{text}");
    assert!(!text.contains("Rework the orders endpoint"), "{text}");
    h.stop().await;
}

//! What happened to issues and milestones, end to end: resource events,
//! burndown events, iterations, incident metric images and an issue's
//! spam-check data, each asserting the exact request the fake GitLab
//! received and what the client saw.

use crate::common;

use common::{Harness, Lifecycle};
use serde_json::json;

#[tokio::test]
async fn label_event_list_says_who_added_which_label() {
    let h = Harness::start(Lifecycle::Initialize).await;
    // Issue #4 of the seed has the labels `bug` and `priority::high`.
    let text = h
        .ok(
            "gitlab_issue",
            json!({"action": "label_event_list", "params": {"project_id": "acme/platform/api", "issue_iid": 4, "per_page": 1}}),
        )
        .await;
    assert_eq!(
        h.only_request().line(),
        "GET /api/v4/projects/acme%2Fplatform%2Fapi/issues/4/resource_label_events?per_page=1"
    );
    assert!(text.contains("\"action\":\"add\""), "{text}");
    assert!(text.contains("\"name\":\"bug\""), "{text}");
    assert!(!text.contains("priority::high"), "one per page: {text}");
    h.stop().await;
}

#[tokio::test]
async fn burndown_events_list_the_milestones_issues_as_they_opened_and_closed() {
    let h = Harness::start(Lifecycle::Discover).await;
    let text = h
        .ok(
            "gitlab_milestone",
            json!({"action": "burndown_events", "params": {"project_id": 1, "milestone_id": 40}}),
        )
        .await;
    assert_eq!(
        h.only_request().line(),
        "GET /api/v4/projects/1/milestones/40/burndown_events"
    );
    assert!(text.contains("\"action\":\"created\""), "{text}");
    // Issue #15 is closed and in the milestone.
    assert!(text.contains("\"action\":\"closed\""), "{text}");
    h.stop().await;
}

#[tokio::test]
async fn group_iteration_list_sends_the_state_and_shows_the_current_iteration() {
    let h = Harness::start(Lifecycle::Initialize).await;
    let text = h
        .ok(
            "gitlab_milestone",
            json!({"action": "group_iteration_list", "params": {
                "group_id": "acme/platform", "state": "current", "include_ancestors": true
            }}),
        )
        .await;
    assert_eq!(
        h.only_request().line(),
        "GET /api/v4/groups/acme%2Fplatform/iterations?state=current&include_ancestors=true"
    );
    assert!(text.contains("\"start_date\":\"2026-03-02\""), "{text}");
    assert!(!text.contains("2026-03-16"), "only the current one: {text}");
    h.stop().await;
}

#[tokio::test]
async fn metric_image_list_shows_an_incidents_images() {
    let h = Harness::start(Lifecycle::Discover).await;
    let created = h
        .ok(
            "gitlab_issue",
            json!({"action": "create", "params": {"project_id": 1, "title": "Orders down", "issue_type": "incident"}}),
        )
        .await;
    assert!(created.contains("\"iid\":26"), "{created}");
    h.fake.clear_requests();
    let text = h
        .ok(
            "gitlab_issue",
            json!({"action": "metric_image_list", "params": {"project_id": 1, "issue_iid": 26}}),
        )
        .await;
    assert_eq!(
        h.only_request().line(),
        "GET /api/v4/projects/1/issues/26/metric_images"
    );
    assert!(text.contains("\"filename\":\"error_rate.png\""), "{text}");
    assert!(
        text.contains("https://grafana.example.com/d/orders"),
        "{text}"
    );
    h.stop().await;
}

#[tokio::test]
async fn user_agent_detail_is_for_administrators_and_says_so() {
    let h = Harness::start(Lifecycle::Initialize).await;
    let text = h
        .err(
            "gitlab_issue",
            json!({"action": "user_agent_detail", "params": {"project_id": 1, "issue_iid": 3}}),
        )
        .await;
    assert_eq!(
        h.only_request().line(),
        "GET /api/v4/projects/1/issues/3/user_agent_detail"
    );
    assert!(text.contains("403"), "{text}");
    assert!(text.contains("Only administrators"), "{text}");
    h.stop().await;
}

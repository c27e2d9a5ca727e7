//! Web URLs and references as input, end to end: each URL shape and
//! reference form becomes the exact request GitLab receives, and each
//! refusal sends nothing.

use crate::common;

use common::{Harness, Lifecycle};
use serde_json::{Value, json};

/// (tool, call with `{web}` standing for the fake's address, request line).
fn shapes() -> Vec<(&'static str, Value, &'static str)> {
    vec![
        (
            "gitlab_project",
            json!({"action": "get", "params": {"project_id": "{web}/acme/website"}}),
            "GET /api/v4/projects/acme%2Fwebsite",
        ),
        (
            "gitlab_issue",
            json!({"action": "list", "params": {"project_id": "{web}/acme/platform/api/-/issues"}}),
            "GET /api/v4/projects/acme%2Fplatform%2Fapi/issues",
        ),
        (
            "gitlab_issue",
            json!({"action": "get", "params": {"url": "{web}/acme/platform/api/-/issues/2"}}),
            "GET /api/v4/projects/acme%2Fplatform%2Fapi/issues/2",
        ),
        (
            "gitlab_issue",
            json!({"action": "note_get", "params": {"url": "{web}/acme/platform/api/-/issues/2#note_5"}}),
            "GET /api/v4/projects/acme%2Fplatform%2Fapi/issues/2/notes/5",
        ),
        (
            "gitlab_merge_request",
            json!({"action": "diffs", "params": {"url": "{web}/acme/platform/api/-/merge_requests/1/diffs"}}),
            "GET /api/v4/projects/acme%2Fplatform%2Fapi/merge_requests/1/diffs",
        ),
        (
            "gitlab_pipeline",
            json!({"action": "get", "params": {"url": "{web}/acme/platform/api/-/pipelines/1001"}}),
            "GET /api/v4/projects/acme%2Fplatform%2Fapi/pipelines/1001",
        ),
        (
            "gitlab_pipeline",
            json!({"action": "job_log", "params": {"url": "{web}/acme/platform/api/-/jobs/102"}}),
            "GET /api/v4/projects/acme%2Fplatform%2Fapi/jobs/102/trace",
        ),
        (
            "gitlab_repository",
            json!({"action": "commit_get", "params": {"url": "{web}/acme/platform/api/-/commit/main"}}),
            "GET /api/v4/projects/acme%2Fplatform%2Fapi/repository/commits/main",
        ),
        (
            "gitlab_repository",
            json!({"action": "file_raw", "params": {"url": "{web}/acme/platform/api/-/blob/main/docs/getting%20started.md"}}),
            "GET /api/v4/projects/acme%2Fplatform%2Fapi/repository/files/docs%2Fgetting%20started.md/raw?ref=main",
        ),
        (
            "gitlab_repository",
            json!({"action": "file_raw", "params": {"url": "{web}/acme/platform/api/-/raw/main/README.md"}}),
            "GET /api/v4/projects/acme%2Fplatform%2Fapi/repository/files/README.md/raw?ref=main",
        ),
        (
            "gitlab_repository",
            json!({"action": "tree", "params": {"url": "{web}/acme/platform/api/-/tree/main/docs"}}),
            "GET /api/v4/projects/acme%2Fplatform%2Fapi/repository/tree?path=docs&ref=main",
        ),
        (
            "gitlab_repository",
            json!({"action": "compare", "params": {"url": "{web}/acme/platform/api/-/compare/v1.0.0...main"}}),
            "GET /api/v4/projects/acme%2Fplatform%2Fapi/repository/compare?from=v1.0.0&to=main",
        ),
        (
            "gitlab_release",
            json!({"action": "get", "params": {"url": "{web}/acme/platform/api/-/releases/v1.0.0"}}),
            "GET /api/v4/projects/acme%2Fplatform%2Fapi/releases/v1.0.0",
        ),
        (
            "gitlab_repository",
            json!({"action": "tag_get", "params": {"url": "{web}/acme/platform/api/-/tags/v1.0.0"}}),
            "GET /api/v4/projects/acme%2Fplatform%2Fapi/repository/tags/v1.0.0",
        ),
        (
            "gitlab_wiki",
            json!({"action": "get", "params": {"url": "{web}/acme/platform/api/-/wikis/deploy/production"}}),
            "GET /api/v4/projects/acme%2Fplatform%2Fapi/wikis/deploy%2Fproduction",
        ),
        // References.
        (
            "gitlab_issue",
            json!({"action": "get", "params": {"project_id": 1, "issue_iid": "#2"}}),
            "GET /api/v4/projects/1/issues/2",
        ),
        (
            "gitlab_merge_request",
            json!({"action": "get", "params": {"project_id": 1, "merge_request_iid": "!1"}}),
            "GET /api/v4/projects/1/merge_requests/1",
        ),
        (
            "gitlab_issue",
            json!({"action": "get", "params": {"url": "acme/platform/api#3"}}),
            "GET /api/v4/projects/acme%2Fplatform%2Fapi/issues/3",
        ),
        (
            "gitlab_merge_request",
            json!({"action": "commits", "params": {"url": "acme/platform/api!1"}}),
            "GET /api/v4/projects/acme%2Fplatform%2Fapi/merge_requests/1/commits",
        ),
        // A ref with a slash: the call's `ref` says where the path starts.
        (
            "gitlab_repository",
            json!({"action": "file_raw", "params": {"url": "{web}/acme/platform/api/-/blob/feature/login/src/main.rs", "ref": "feature/login"}}),
            "GET /api/v4/projects/acme%2Fplatform%2Fapi/repository/files/src%2Fmain.rs/raw?ref=feature%2Flogin",
        ),
    ]
}

fn with_web(value: &Value, web: &str) -> Value {
    serde_json::from_str(&value.to_string().replace("{web}", web)).unwrap()
}

#[tokio::test]
async fn every_url_shape_and_reference_becomes_the_exact_request() {
    let h = Harness::start(Lifecycle::Discover).await;
    let web = h.fake.url();
    for (tool, call, line) in shapes() {
        h.fake.clear_requests();
        let call = with_web(&call, &web);
        // The answer may be a 404 for made-up ids; the request is what counts.
        let _ = h.call(tool, call.clone()).await;
        let requests = h.requests();
        assert_eq!(requests.len(), 1, "{tool} {call}: {requests:?}");
        assert_eq!(requests[0].line(), line, "{tool} {call}");
    }
    h.stop().await;
}

#[tokio::test]
async fn urls_that_cannot_be_read_are_refused_before_anything_is_sent() {
    let h = Harness::start(Lifecycle::Initialize).await;
    let web = h.fake.url();
    let host = web.trim_start_matches("http://").to_string();
    let cases = [
        (
            "gitlab_issue",
            json!({"action": "get", "params": {"url": "https://gitlab.com/acme/api/-/issues/1"}}),
            format!("`url` is on gitlab.com, but this server works with the GitLab at {host}"),
        ),
        (
            "gitlab_merge_request",
            json!({"action": "get", "params": {"url": "{web}/acme/platform/api/-/issues/2"}}),
            "is an issue: `gitlab_issue` action `get` reads it".to_string(),
        ),
        (
            "gitlab_issue",
            json!({"action": "get", "params": {"url": "{web}/acme/platform/api/-/issues/2", "issue_iid": 3}}),
            "`url` says issue_iid 2, but `issue_iid` is 3".to_string(),
        ),
        (
            "gitlab_issue",
            json!({"action": "get", "params": {"url": "{web}/acme/platform/api/-/settings/ci_cd"}}),
            "is not a GitLab URL this server reads".to_string(),
        ),
        (
            "gitlab_issue",
            json!({"action": "create", "params": {"project_id": 1, "title": "x", "due_date": "next friday"}}),
            "`due_date` must be a date, YYYY-MM-DD".to_string(),
        ),
        (
            "gitlab_issue",
            json!({"action": "get", "params": {"project_id": 1, "issue_iid": 0}}),
            "`issue_iid` must be at least 1".to_string(),
        ),
        (
            "gitlab_issue",
            json!({"action": "get", "params": {"project_id": 1, "issue_iid": 1}, "fields": ["titel"]}),
            "`titel` is not a field of issue; did you mean `title`?".to_string(),
        ),
        (
            "gitlab_issue",
            json!({"action": "get", "params": {"project_id": 1, "issue_iid": 1, "fields": ["title"]}}),
            "`fields` is not a parameter: it goes beside `action`".to_string(),
        ),
    ];
    for (tool, call, expected) in cases {
        let call = with_web(&call, &web);
        let text = h.err(tool, call.clone()).await;
        assert!(
            text.contains(&expected),
            "{tool} {call}: {expected:?} not in:\n{text}"
        );
    }
    assert!(
        h.requests().is_empty(),
        "nothing was sent: {:?}",
        h.requests()
    );
    h.stop().await;
}

//! Errors end to end: invalid calls never reach GitLab and say how to fix
//! them; GitLab's failures become actionable text in each of its formats;
//! network failures are classified. No error text holds the token.

use crate::common;

use std::time::Duration;

use common::{BOTH, Harness, Lifecycle, TOKEN};
use fake_gitlab::{FakeGitLab, Fault};
use serde_json::json;

#[tokio::test]
async fn every_decoding_problem_is_reported_at_once_and_nothing_is_sent() {
    for lifecycle in BOTH {
        let h = Harness::start(lifecycle).await;
        let text = h
            .err("gitlab_issue", json!({"action": "list", "params": {"projectId": "a/b", "stat": "open", "per_page": "many", "labels": {"x": 1}}}))
            .await;
        for expected in [
            "`projectId` is not a parameter of this action; did you mean `project_id`?",
            "`stat` is not a parameter of this action; did you mean `state`?",
            "`per_page` must be an integer; got string \"many\"",
            "`labels` must be a list of strings (or one comma-separated string); got object",
            "`project_id` is missing (required): Project: numeric id or full path",
            // Each problem has its fix: the names and shapes, not the whole help.
            "Parameters (* required): project_id*, page: integer, per_page: integer, state: opened|closed|all,",
            "Every parameter explained: {\"action\": \"help\", \"params\": {\"action\": \"list\"}}",
        ] {
            assert!(
                text.contains(expected),
                "{lifecycle:?}: missing {expected:?} in:\n{text}"
            );
        }
        assert!(h.requests().is_empty(), "invalid input reached GitLab");
        h.stop().await;
    }
}

#[tokio::test]
async fn enum_violations_list_the_allowed_values_and_the_closest() {
    let h = Harness::start(Lifecycle::Initialize).await;
    let text = h
        .err(
            "gitlab_issue",
            json!({"action": "list", "params": {"project_id": 1, "state": "open"}}),
        )
        .await;
    assert!(
        text.contains(
            "`state` must be one of opened, closed, all; got \"open\" (did you mean `opened`?)"
        ),
        "{text}"
    );
    assert!(h.requests().is_empty());
    h.stop().await;
}

#[tokio::test]
async fn unknown_actions_point_to_this_tool_and_to_others() {
    let h = Harness::start(Lifecycle::Discover).await;
    let text = h
        .err(
            "gitlab_issue",
            json!({"action": "add_comment", "params": {}}),
        )
        .await;
    assert!(
        text.contains("unknown action `add_comment`; did you mean `note_create`?"),
        "{text}"
    );
    // The meant action's parameters and example come with the fix, so the
    // next call needs no `help`; the tool's whole list does not.
    assert!(
        text.contains("Parameters (* required): project_id*, issue_iid*: integer, body*")
            && text.contains(
                "Example: {\"action\":\"note_create\",\"params\":{\"project_id\":\"group/project\",\"issue_iid\":42,\"body\":\"text\"}}"
            )
            && !text.contains("note_create(project_id, issue_iid, body)"),
        "the meant action's parameters, not the whole list: {text}"
    );
    let text = h
        .err("gitlab_project", json!({"action": "create_branch"}))
        .await;
    assert!(
        text.contains("tool `gitlab_repository` has action `branch_create`"),
        "{text}"
    );
    assert!(h.requests().is_empty());
    h.stop().await;
}

#[tokio::test]
async fn params_beside_action_and_a_misspelled_params_are_named() {
    let h = Harness::start(Lifecycle::Initialize).await;
    let text = h
        .err(
            "gitlab_issue",
            json!({"action": "get", "project_id": "a/b", "parms": {"issue_iid": 1}}),
        )
        .await;
    assert!(
        text.contains("`project_id` is a parameter: put it inside `params`"),
        "{text}"
    );
    assert!(
        text.contains("`parms` is not an envelope key; did you mean `params`?"),
        "{text}"
    );
    let text = h.err("gitlab_issue", json!({"params": {}})).await;
    assert!(text.contains("`action` is missing"), "{text}");
    assert!(h.requests().is_empty());
    h.stop().await;
}

#[tokio::test]
async fn a_404_on_get_is_a_not_found_result_that_says_what_to_try() {
    let h = Harness::start(Lifecycle::Initialize).await;
    let text = h.err("gitlab_issue", json!({"action": "get", "params": {"project_id": "acme/platform/api", "issue_iid": 999}})).await;
    assert!(
        text.starts_with(
            "Not found: gitlab_issue get with project_id \"acme/platform/api\", issue_iid 999."
        ),
        "{text}"
    );
    assert!(
        text.contains("It may not exist, or the token cannot see it"),
        "{text}"
    );
    assert!(text.contains("Next: Use action `list`"), "{text}");
    assert!(text.contains("Request id: 01FAKE"), "{text}");
    // A private project the token cannot see is a 404 too, and not claimed missing.
    let text = h
        .err(
            "gitlab_project",
            json!({"action": "get", "params": {"project_id": "acme/secret"}}),
        )
        .await;
    assert!(
        text.contains("GitLab says: 404 Project Not Found"),
        "{text}"
    );
    assert!(!text.contains("does not exist"), "{text}");
    h.stop().await;
}

#[tokio::test]
async fn gitlab_error_bodies_are_read_in_each_format() {
    let h = Harness::start(Lifecycle::Discover).await;
    // Grape's {"error": "... is missing"}: the fake's own validation.
    h.fake.inject(
        Fault::status(400)
            .body("application/json", r#"{"error":"title is missing"}"#)
            .times(1),
    );
    let text = h
        .err(
            "gitlab_issue",
            json!({"action": "create", "params": {"project_id": 1, "title": "x"}}),
        )
        .await;
    assert!(text.contains("GitLab answered 400, bad request"), "{text}");
    assert!(text.contains("GitLab says: title is missing"), "{text}");
    // Model validation {"message": {"field": [...]}}.
    h.fake.inject(
        Fault::status(400)
            .body(
                "application/json",
                r#"{"message":{"title":["can't be blank"],"base":["Limit reached"]}}"#,
            )
            .times(1),
    );
    let text = h
        .err(
            "gitlab_issue",
            json!({"action": "create", "params": {"project_id": 1, "title": "x"}}),
        )
        .await;
    assert!(
        text.contains("GitLab says: title: can't be blank; Limit reached"),
        "{text}"
    );
    // A conflict from the fake itself: an open MR for the same branch.
    let text = h
        .err("gitlab_merge_request", json!({"action": "create", "params": {"project_id": 1, "source_branch": "feature/orders-v2", "target_branch": "main", "title": "again"}}))
        .await;
    assert!(text.contains("GitLab answered 409, conflict"), "{text}");
    assert!(
        text.contains("Another open merge request already exists for this source branch: !1"),
        "{text}"
    );
    // 422 with a plain message.
    h.fake.inject(
        Fault::status(422)
            .body(
                "application/json",
                r#"{"message":"Branch cannot be merged"}"#,
            )
            .times(1),
    );
    let text = h
        .err(
            "gitlab_merge_request",
            json!({"action": "merge", "params": {"project_id": 1, "merge_request_iid": 1}}),
        )
        .await;
    assert!(
        text.contains("GitLab answered 422, unprocessable")
            && text.contains("Branch cannot be merged"),
        "{text}"
    );
    // 405 from the fake: merging a merged MR.
    let text = h
        .err(
            "gitlab_merge_request",
            json!({"action": "merge", "params": {"project_id": 1, "merge_request_iid": 3}}),
        )
        .await;
    assert!(text.contains("GitLab answered 405"), "{text}");
    h.stop().await;
}

#[tokio::test]
async fn long_messages_are_cut_at_300_characters() {
    let h = Harness::start(Lifecycle::Initialize).await;
    let long = "x".repeat(2000);
    h.fake.inject(
        Fault::status(400)
            .body("application/json", format!(r#"{{"message":"{long}"}}"#))
            .times(1),
    );
    let text = h
        .err(
            "gitlab_issue",
            json!({"action": "list", "params": {"project_id": 1}}),
        )
        .await;
    let said = text
        .lines()
        .find(|l| l.starts_with("GitLab says: "))
        .unwrap();
    assert_eq!(
        said.trim_start_matches("GitLab says: ").chars().count(),
        301,
        "300 characters and an ellipsis"
    );
    h.stop().await;
}

#[tokio::test]
async fn the_two_causes_of_401_are_told_apart() {
    // A wrong token.
    let h = Harness::start_with(Lifecycle::Initialize, &[("GITLAB_TOKEN", "glpat-wrong")]).await;
    let text = h
        .err(
            "gitlab_issue",
            json!({"action": "list", "params": {"project_id": 1}}),
        )
        .await;
    assert!(text.contains("the token was not accepted"), "{text}");
    assert!(!text.contains("glpat-wrong"));
    h.stop().await;
    // An expired token.
    let h = Harness::start_with(Lifecycle::Initialize, &[("GITLAB_TOKEN", "glpat-expired")]).await;
    let text = h
        .err(
            "gitlab_issue",
            json!({"action": "list", "params": {"project_id": 1}}),
        )
        .await;
    assert!(text.contains("the token is expired or revoked"), "{text}");
    assert!(text.contains("Token is expired"), "{text}");
    h.stop().await;
    // No token at all, writing.
    let h = Harness::start_with(Lifecycle::Initialize, &[("GITLAB_TOKEN", "")]).await;
    let text = h
        .err(
            "gitlab_issue",
            json!({"action": "create", "params": {"project_id": "acme/website", "title": "x"}}),
        )
        .await;
    assert!(text.contains("no token is configured"), "{text}");
    let request = h.only_request();
    assert_eq!(
        request.private_token, None,
        "anonymous requests carry no token"
    );
    assert_eq!(request.authorization, None);
    h.stop().await;
}

#[tokio::test]
async fn a_missing_scope_and_a_forbidden_action_are_403s_with_their_reason() {
    // GitLab does not name the token's scopes, so the server offers every
    // action (tests/it/scopes.rs) and GitLab's own 403 comes back.
    let fake = FakeGitLab::start().await;
    fake.inject(Fault::status(500).on("GET", "/api/v4/personal_access_tokens/self"));
    let h = Harness::start_on(
        fake,
        Lifecycle::Discover,
        &[("GITLAB_TOKEN", "glpat-alice-read")],
    )
    .await;
    let text = h
        .err(
            "gitlab_issue",
            json!({"action": "create", "params": {"project_id": 1, "title": "x"}}),
        )
        .await;
    assert!(
        text.contains("forbidden: the token lacks the `api` scope"),
        "{text}"
    );
    h.stop().await;
    let h = Harness::start_with(
        Lifecycle::Discover,
        &[
            ("GITLAB_TOKEN", "glpat-bob"),
            ("GITLAB_MCP_AUTO_CONFIRM", "true"),
        ],
    )
    .await;
    let text = h
        .err(
            "gitlab_issue",
            json!({"action": "delete", "params": {"project_id": 1, "issue_iid": 2}}),
        )
        .await;
    assert!(text.contains("GitLab answered 403, forbidden"), "{text}");
    assert!(
        text.contains("Hint: Only administrators and project owners can delete issues"),
        "{text}"
    );
    h.stop().await;
}

#[tokio::test]
async fn oauth_tokens_are_sent_as_bearer() {
    let h = Harness::start_with(
        Lifecycle::Initialize,
        &[("GITLAB_TOKEN", "oauth-alice"), ("GITLAB_AUTH", "bearer")],
    )
    .await;
    h.ok(
        "gitlab_issue",
        json!({"action": "get", "params": {"project_id": 1, "issue_iid": 1}}),
    )
    .await;
    let request = h.only_request();
    assert_eq!(request.authorization.as_deref(), Some("Bearer oauth-alice"));
    assert_eq!(request.private_token, None);
    h.stop().await;
}

#[tokio::test]
async fn rate_limits_and_server_errors_are_classified() {
    let h = Harness::start_with(Lifecycle::Initialize, &[("GITLAB_MCP_MAX_RETRIES", "0")]).await;
    h.fake.inject(Fault::status(429).retry_after(7).times(1));
    let text = h.err("gitlab_issue", json!({"action": "note_create", "params": {"project_id": 1, "issue_iid": 1, "body": "hi"}})).await;
    assert!(
        text.contains("GitLab answered 429, rate limited: try again in 7 s"),
        "{text}"
    );
    assert!(text.contains("GitLab says: Retry later"), "{text}");
    h.fake.inject(Fault::status(502).times(1));
    let text = h
        .err(
            "gitlab_issue",
            json!({"action": "list", "params": {"project_id": 1}}),
        )
        .await;
    assert!(text.contains("GitLab answered 502, bad gateway"), "{text}");
    assert!(text.contains("HTML error page"), "{text}");
    h.fake.inject(Fault::status(500).times(1));
    let text = h
        .err(
            "gitlab_issue",
            json!({"action": "list", "params": {"project_id": 1}}),
        )
        .await;
    assert!(
        text.contains("GitLab answered 500, GitLab had an internal error")
            && text.contains("Request id: "),
        "{text}"
    );
    h.stop().await;
}

#[tokio::test]
async fn network_failures_are_classified() {
    // Refused: a port nobody listens on.
    let closed = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap();
    let url = format!("http://{closed}");
    let h = Harness::start_with(
        Lifecycle::Initialize,
        &[("GITLAB_MCP_MAX_RETRIES", "0"), ("GITLAB_URL", &url)],
    )
    .await;
    let text = h
        .err(
            "gitlab_issue",
            json!({"action": "get", "params": {"project_id": 1, "issue_iid": 1}}),
        )
        .await;
    assert!(
        text.contains(&format!("connection to {closed} refused")),
        "{text}"
    );
    h.stop().await;
    // DNS: a reserved name that never resolves (RFC 6761).
    let h = Harness::start_with(
        Lifecycle::Initialize,
        &[
            ("GITLAB_MCP_MAX_RETRIES", "0"),
            ("GITLAB_URL", "http://gitlab.invalid"),
        ],
    )
    .await;
    let text = h
        .err(
            "gitlab_issue",
            json!({"action": "get", "params": {"project_id": 1, "issue_iid": 1}}),
        )
        .await;
    assert!(
        text.contains("gitlab.invalid could not be resolved"),
        "{text}"
    );
    h.stop().await;
    // Timeout: the fake answers after the configured timeout.
    let h = Harness::start_with(
        Lifecycle::Initialize,
        &[("GITLAB_MCP_MAX_RETRIES", "0"), ("GITLAB_TIMEOUT", "1")],
    )
    .await;
    h.fake.inject(Fault::delay(Duration::from_secs(3)).times(1));
    let text = h.err("gitlab_issue", json!({"action": "note_create", "params": {"project_id": 1, "issue_iid": 1, "body": "x"}})).await;
    assert!(text.contains("did not answer in time"), "{text}");
    assert!(
        text.contains("GitLab may have applied the change"),
        "{text}"
    );
    h.stop().await;
    // TLS: speaking https to a plain-HTTP server.
    let h = Harness::start(Lifecycle::Initialize).await;
    let https = h.fake.url().replace("http://", "https://");
    h.stop().await;
    let h = Harness::start_with(
        Lifecycle::Initialize,
        &[("GITLAB_MCP_MAX_RETRIES", "0"), ("GITLAB_URL", &https)],
    )
    .await;
    let text = h
        .err(
            "gitlab_issue",
            json!({"action": "get", "params": {"project_id": 1, "issue_iid": 1}}),
        )
        .await;
    assert!(text.contains("TLS handshake"), "{text}");
    h.stop().await;
}

#[tokio::test]
async fn a_malformed_answer_is_an_error_not_a_crash() {
    let h = Harness::start(Lifecycle::Initialize).await;
    h.fake.inject(Fault::malformed().times(1));
    let out = h
        .call(
            "gitlab_issue",
            json!({"action": "list", "params": {"project_id": 1}}),
        )
        .await;
    assert!(!out.text.contains(TOKEN));
    // The server stays up.
    h.ok(
        "gitlab_issue",
        json!({"action": "list", "params": {"project_id": 1}}),
    )
    .await;
    h.stop().await;
}

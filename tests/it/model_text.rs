//! The text a model reads, as reviewed snapshots (`tests/it/snapshots/`): each
//! tool's description and input keys, the error of each decoding rule, the message of each GitLab error format and
//! network failure, and the answer of each kind of resource the fake
//! serves, a diff and a log window. A wording change shows up as a snapshot
//! diff and is reviewed like code (`cargo insta review`, or accept by
//! renaming the `.snap.new` files).

use crate::common;

use std::time::Duration;

use common::{Harness, Lifecycle};
use gitlab_mcp::catalog;
use gitlab_mcp::dispatch;
use gitlab_mcp::gitlab::{GitLabError, NetworkKind, StatusError};
use gitlab_mcp::render;
use serde_json::{Value, json};

fn decode_error(tool: &str, args: Value) -> String {
    let Value::Object(map) = args else {
        panic!("arguments must be an object")
    };
    match dispatch::decode(catalog::tool(tool).unwrap(), catalog::tools(), map, None) {
        Ok(_) => panic!("{tool}: expected a decoding error"),
        Err(e) => e.to_string(),
    }
}

/// What the tool list tells the model besides the action names, which the
/// catalog and docs/tools.md already show.
#[test]
fn tool_descriptions() {
    let mut out = String::new();
    for tool in gitlab_mcp::mcp::tools::tool_list(catalog::tools()) {
        let keys: Vec<&String> = tool.input_schema["properties"]
            .as_object()
            .expect("properties")
            .keys()
            .collect();
        let actions = tool.input_schema["properties"]["action"]["enum"]
            .as_array()
            .expect("an action enum")
            .len();
        out.push_str(&format!(
            "## {} ({actions} actions; keys: {})\n{}\n\n",
            tool.name,
            keys.iter()
                .map(|k| k.as_str())
                .collect::<Vec<_>>()
                .join(", "),
            tool.description.as_deref().unwrap_or_default()
        ));
    }
    insta::assert_snapshot!("tool_descriptions", out);
}

#[test]
fn decoding_errors() {
    let cases: &[(&str, &str, Value)] = &[
        (
            "unknown_param_synonym",
            "gitlab_issue",
            json!({"action": "get", "params": {"project_id": 1, "iid": 2}}),
        ),
        (
            "missing_required",
            "gitlab_issue",
            json!({"action": "get", "params": {}}),
        ),
        (
            "wrong_type",
            "gitlab_issue",
            json!({"action": "get", "params": {"project_id": 1, "issue_iid": "seven"}}),
        ),
        (
            "enum_value",
            "gitlab_issue",
            json!({"action": "list", "params": {"project_id": 1, "state": "open"}}),
        ),
        (
            "dot_path_segment",
            "gitlab_issue",
            json!({"action": "get", "params": {"project_id": "..", "issue_iid": 1}}),
        ),
        (
            "array_items",
            "gitlab_repository",
            json!({"action": "commit_create", "params": {"project_id": 1, "branch": "main", "commit_message": "x", "actions": [{"action": "rename", "path": "b.md"}, {"action": "delete", "file_path": 5}]}}),
        ),
        (
            "rule_across_params",
            "gitlab_repository",
            json!({"action": "commit_create", "params": {"project_id": 1, "branch": "main", "commit_message": "x", "actions": [{"action": "create", "file_path": "a.md"}]}}),
        ),
        (
            "empty_list",
            "gitlab_repository",
            json!({"action": "commit_create", "params": {"project_id": 1, "branch": "main", "commit_message": "x", "actions": []}}),
        ),
        (
            "param_beside_action",
            "gitlab_issue",
            json!({"action": "get", "project_id": 1, "issue_iid": 2}),
        ),
        (
            "misspelled_params",
            "gitlab_issue",
            json!({"action": "get", "parms": {"project_id": 1}}),
        ),
        (
            "unknown_envelope_key",
            "gitlab_issue",
            json!({"action": "get", "params": {}, "verbose": true}),
        ),
        (
            "missing_action",
            "gitlab_issue",
            json!({"params": {"project_id": 1}}),
        ),
        (
            "params_not_an_object",
            "gitlab_issue",
            json!({"action": "get", "params": [1]}),
        ),
        ("unknown_action", "gitlab_issue", json!({"action": "gte"})),
        (
            "action_of_another_tool",
            "gitlab_issue",
            json!({"action": "pipeline_list"}),
        ),
        (
            "bad_lines",
            "gitlab_pipeline",
            json!({"action": "job_log", "params": {"project_id": 1, "job_id": 2}, "lines": "ten"}),
        ),
        (
            "view_key_misfit",
            "gitlab_issue",
            json!({"action": "get", "params": {"project_id": 1, "issue_iid": 2}, "file": "a.rs"}),
        ),
    ];
    for (name, tool, args) in cases {
        insta::assert_snapshot!(format!("decode_{name}"), decode_error(tool, args.clone()));
    }
}

fn failure_text(tool: &str, args: Value, error: GitLabError, has_token: bool) -> String {
    let Value::Object(map) = args else {
        panic!("arguments must be an object")
    };
    let call = dispatch::decode(catalog::tool(tool).unwrap(), catalog::tools(), map, None).unwrap();
    let context = render::Context {
        has_token,
        attempts: 1,
        connect_timeout_secs: 10,
        request_timeout_secs: 30,
    };
    render::failure(&call, &error, &context)
}

fn status(code: u16, body: &str, retry_after: Option<u64>) -> GitLabError {
    GitLabError::Status(StatusError::from_parts(
        code,
        body.as_bytes(),
        Some("01JREQUESTID".into()),
        retry_after.map(Duration::from_secs),
    ))
}

#[test]
fn gitlab_failures() {
    let get = || json!({"action": "get", "params": {"project_id": "acme/api", "issue_iid": 7}});
    let update = || json!({"action": "update", "params": {"project_id": "acme/api", "issue_iid": 7, "title": "x"}});
    let network = |kind| GitLabError::Network {
        kind,
        host: "gitlab.example.com".into(),
    };
    let cases: Vec<(&str, Value, GitLabError, bool)> = vec![
        (
            "get_404_not_found",
            get(),
            status(404, r#"{"message":"404 Project Not Found"}"#, None),
            true,
        ),
        (
            "route_404",
            update(),
            status(404, r#"{"error":"404 Not Found"}"#, None),
            true,
        ),
        (
            "grape_400",
            update(),
            status(400, r#"{"error":"title is missing"}"#, None),
            true,
        ),
        (
            "validation_400",
            update(),
            status(
                400,
                r#"{"message":{"title":["can't be blank"],"base":["Limit reached"]}}"#,
                None,
            ),
            true,
        ),
        (
            "no_token_401",
            get(),
            status(401, r#"{"message":"401 Unauthorized"}"#, None),
            false,
        ),
        (
            "bad_token_401",
            get(),
            status(401, r#"{"message":"401 Unauthorized"}"#, None),
            true,
        ),
        (
            "expired_token_401",
            get(),
            status(
                401,
                r#"{"error":"invalid_token","error_description":"Token is expired. You can either do re-authorization or token refresh."}"#,
                None,
            ),
            true,
        ),
        (
            "scope_403",
            update(),
            status(
                403,
                r#"{"error":"insufficient_scope","error_description":"The request requires higher privileges than provided by the access token.","scope":"api"}"#,
                None,
            ),
            true,
        ),
        (
            "forbidden_403",
            update(),
            status(403, r#"{"message":"403 Forbidden"}"#, None),
            true,
        ),
        (
            "conflict_409",
            update(),
            status(409, r#"{"message":"Issue was changed meanwhile"}"#, None),
            true,
        ),
        (
            "throttled_429",
            get(),
            status(429, "Retry later\n", Some(12)),
            true,
        ),
        (
            "rate_limited_429",
            get(),
            status(
                429,
                r#"{"message":{"error":"This endpoint has been requested too many times. Try again later."}}"#,
                None,
            ),
            true,
        ),
        (
            "server_500",
            get(),
            status(500, r#"{"message":"500 Internal Server Error"}"#, None),
            true,
        ),
        (
            "html_502",
            get(),
            status(502, "<!DOCTYPE html><html><body>502</body></html>", None),
            true,
        ),
        ("refused", get(), network(NetworkKind::Refused), true),
        ("dns", get(), network(NetworkKind::Dns), true),
        (
            "timeout_on_a_write",
            update(),
            network(NetworkKind::Timeout),
            true,
        ),
        ("tls", get(), network(NetworkKind::Tls), true),
        (
            "too_large",
            get(),
            GitLabError::TooLarge {
                limit: 256 * 1024 * 1024,
            },
            true,
        ),
        ("path_changed", get(), GitLabError::PathChanged, true),
    ];
    for (name, args, error, has_token) in cases {
        insta::assert_snapshot!(
            format!("failure_{name}"),
            failure_text("gitlab_issue", args, error, has_token)
        );
    }
}

/// Answers of the fake, its address replaced so snapshots are stable.
#[tokio::test]
async fn answers_by_resource_kind() {
    let h = Harness::start(Lifecycle::Discover).await;
    let host = h.fake.url();
    let cases: &[(&str, &str, Value)] = &[
        (
            "issue",
            "gitlab_issue",
            json!({"action": "get", "params": {"project_id": 1, "issue_iid": 1}}),
        ),
        (
            "issue_list",
            "gitlab_issue",
            json!({"action": "list", "params": {"project_id": 1, "per_page": 3}}),
        ),
        (
            "note_list",
            "gitlab_issue",
            json!({"action": "note_list", "params": {"project_id": 1, "issue_iid": 2}}),
        ),
        (
            "merge_request",
            "gitlab_merge_request",
            json!({"action": "get", "params": {"project_id": 1, "merge_request_iid": 1}}),
        ),
        (
            "merge_request_list",
            "gitlab_merge_request",
            json!({"action": "list", "params": {"project_id": 1}}),
        ),
        (
            "diff_list",
            "gitlab_merge_request",
            json!({"action": "diffs", "params": {"project_id": 1, "merge_request_iid": 1}}),
        ),
        (
            "commit_list",
            "gitlab_merge_request",
            json!({"action": "commits", "params": {"project_id": 1, "merge_request_iid": 1}}),
        ),
        (
            "pipeline_list",
            "gitlab_pipeline",
            json!({"action": "list", "params": {"project_id": 1}}),
        ),
        (
            "job_list",
            "gitlab_pipeline",
            json!({"action": "job_list", "params": {"project_id": 1, "pipeline_id": 1001}}),
        ),
        (
            "triage",
            "gitlab_pipeline",
            json!({"action": "triage", "params": {"project_id": 2, "pipeline_id": 2001}}),
        ),
        (
            "log_tail",
            "gitlab_pipeline",
            json!({"action": "job_log", "params": {"project_id": 1, "job_id": 102}, "lines": "-5"}),
        ),
        (
            "project",
            "gitlab_project",
            json!({"action": "get", "params": {"project_id": "acme/website"}}),
        ),
        (
            "group",
            "gitlab_group",
            json!({"action": "get", "params": {"group_id": "acme/platform"}}),
        ),
        (
            "user",
            "gitlab_user",
            json!({"action": "get", "params": {"user_id": 2}}),
        ),
        (
            "tree",
            "gitlab_repository",
            json!({"action": "tree", "params": {"project_id": 1}}),
        ),
        (
            "file",
            "gitlab_repository",
            json!({"action": "file_get", "params": {"project_id": 1, "file_path": "README.md", "ref": "main"}}),
        ),
        (
            "raw_window",
            "gitlab_repository",
            json!({"action": "file_raw", "params": {"project_id": 1, "file_path": "docs/getting started.md"}, "lines": "2-3"}),
        ),
        (
            "milestone",
            "gitlab_milestone",
            json!({"action": "get", "params": {"project_id": 1, "milestone_id": 40}}),
        ),
        (
            "release",
            "gitlab_release",
            json!({"action": "get", "params": {"project_id": 1, "tag_name": "v1.0.0"}}),
        ),
        (
            "variable_list",
            "gitlab_variable",
            json!({"action": "list", "params": {"project_id": 1}}),
        ),
        (
            "environment_list",
            "gitlab_environment",
            json!({"action": "list", "params": {"project_id": 1}}),
        ),
        (
            "wiki_page",
            "gitlab_wiki",
            json!({"action": "get", "params": {"project_id": 1, "slug": "deploy/production"}}),
        ),
        (
            "package_list",
            "gitlab_package",
            json!({"action": "list", "params": {"project_id": 1}}),
        ),
        (
            "search_blobs",
            "gitlab_search",
            json!({"action": "project", "params": {"project_id": 1, "scope": "blobs", "search": "cargo run"}}),
        ),
        (
            "work_item",
            "gitlab_work_item",
            json!({"action": "get", "params": {"project_id": "acme/platform/api", "work_item_iid": 3}}),
        ),
        (
            "work_item_list",
            "gitlab_work_item",
            json!({"action": "list", "params": {"project_id": "acme/platform/api", "first": 3}}),
        ),
        (
            "work_item_notes",
            "gitlab_work_item",
            json!({"action": "notes", "params": {"project_id": "acme/platform/api", "work_item_iid": 2}}),
        ),
        (
            "graphql_type",
            "gitlab_graphql",
            json!({"action": "schema", "params": {"type": "WorkItemConnection"}}),
        ),
        ("tool_help", "gitlab_label", json!({"action": "help"})),
        (
            "action_help",
            "gitlab_issue",
            json!({"action": "help", "params": {"action": "create"}}),
        ),
    ];
    for (name, tool, args) in cases {
        let text = h
            .ok(tool, args.clone())
            .await
            .replace(&host, "http://gitlab.test");
        insta::assert_snapshot!(format!("answer_{name}"), text);
    }
    h.stop().await;
}

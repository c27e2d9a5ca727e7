//! Microbenchmarks of the work the server does per call, without network:
//! decoding and validating an envelope and building its request (valid
//! calls), the invalid path with its suggestions, producing the tool list,
//! and rendering a page of 20 issues.
//!
//! Run: `cargo bench --bench dispatch`. Results: BENCHMARKS.md.

use divan::{Bencher, black_box};
use gitlab_mcp::catalog::{self, ToolSpec};
use gitlab_mcp::dispatch::{self, ValidatedCall};
use gitlab_mcp::gitlab::{self, Pagination, Response};
use gitlab_mcp::{handlers, mcp, render};
use serde_json::{Map, Value, json};

fn main() {
    divan::main();
}

fn tool(name: &str) -> &'static ToolSpec {
    catalog::tool(name).unwrap()
}

fn args(value: Value) -> Map<String, Value> {
    match value {
        Value::Object(map) => map,
        _ => unreachable!(),
    }
}

/// Decode, validate and build the HTTP request: what a valid call costs
/// before it reaches the network.
fn decode_and_plan(tool: &'static ToolSpec, arguments: Map<String, Value>) -> gitlab::HttpRequest {
    let call = dispatch::decode(tool, catalog::tools(), arguments, None).expect("valid call");
    let route = call.action.rest().expect("a REST action");
    handlers::request(&call, route).expect("the request builds")
}

#[divan::bench]
fn valid_get(bencher: Bencher) {
    let input =
        args(json!({"action": "get", "params": {"project_id": "group/project", "issue_iid": 42}}));
    let tool = tool("gitlab_issue");
    bencher
        .with_inputs(|| input.clone())
        .bench_values(|a| decode_and_plan(tool, a));
}

#[divan::bench]
fn valid_list_with_filters(bencher: Bencher) {
    let input = args(json!({"action": "list", "params": {
        "project_id": "group/sub/project", "state": "opened", "labels": "bug,backend",
        "assignee_username": ["alice"], "order_by": "updated_at", "sort": "desc", "per_page": "50"
    }}));
    let tool = tool("gitlab_issue");
    bencher
        .with_inputs(|| input.clone())
        .bench_values(|a| decode_and_plan(tool, a));
}

#[divan::bench]
fn valid_create_with_body(bencher: Bencher) {
    let input = args(json!({"action": "create", "params": {
        "project_id": "group/project", "title": "Refunds fail on partial orders",
        "description": "## Summary\n\nRefunds fail.\n\n## Steps\n\n1. Order\n2. Refund half\n",
        "labels": ["bug", "backend"], "assignee_ids": [2, 3], "confidential": false, "due_date": "2026-04-30"
    }}));
    let tool = tool("gitlab_issue");
    bencher
        .with_inputs(|| input.clone())
        .bench_values(|a| decode_and_plan(tool, a));
}

/// The invalid path: every problem found and the error text rendered,
/// with suggestions and the action's help.
fn decode_error(tool: &'static ToolSpec, arguments: Map<String, Value>) -> String {
    dispatch::decode(tool, catalog::tools(), arguments, None)
        .expect_err("invalid call")
        .to_string()
}

#[divan::bench]
fn invalid_unknown_keys(bencher: Bencher) {
    let input =
        args(json!({"action": "get", "params": {"projectId": "g/p", "iid": 4, "stat": "open"}}));
    let tool = tool("gitlab_issue");
    bencher
        .with_inputs(|| input.clone())
        .bench_values(|a| decode_error(tool, a));
}

#[divan::bench]
fn invalid_missing_param(bencher: Bencher) {
    let input = args(json!({"action": "create", "params": {"project_id": "g/p"}}));
    let tool = tool("gitlab_merge_request");
    bencher
        .with_inputs(|| input.clone())
        .bench_values(|a| decode_error(tool, a));
}

#[divan::bench]
fn invalid_unknown_action(bencher: Bencher) {
    let input = args(json!({"action": "create_branch", "params": {}}));
    let tool = tool("gitlab_project");
    bencher
        .with_inputs(|| input.clone())
        .bench_values(|a| decode_error(tool, a));
}

#[divan::bench]
fn tool_list() -> String {
    mcp::tools::tool_list_json(black_box(catalog::tools()))
}

#[divan::bench]
fn render_20_issues(bencher: Bencher) {
    let body = fake_issue_page();
    let call: ValidatedCall = dispatch::decode(
        tool("gitlab_issue"),
        catalog::tools(),
        args(json!({"action": "list", "params": {"project_id": "acme/platform/api"}})),
        None,
    )
    .unwrap();
    let response = Response {
        status: 200,
        body: body.into(),
        is_json: true,
        pagination: Pagination {
            page: Some(1),
            per_page: Some(20),
            next_page: Some(2),
            total: Some(25),
            total_pages: Some(2),
            ..Pagination::default()
        },
        request_id: None,
    };
    bencher.bench(|| render::success(&call, &response, render::Options::default()));
}

/// GitLab's JSON for 20 issues, from the fake's realistic objects.
fn fake_issue_page() -> Vec<u8> {
    let db = fake_gitlab::db::Db::seed("https://gitlab.example.com");
    let project = &db.projects[0];
    let issues: Vec<Value> = project
        .issues
        .iter()
        .take(20)
        .map(|i| fake_gitlab::objects::issue(&db, project, i))
        .collect();
    serde_json::to_vec(&issues).unwrap()
}

#[divan::bench]
fn render_one_issue(bencher: Bencher) {
    let db = fake_gitlab::db::Db::seed("https://gitlab.example.com");
    let project = &db.projects[0];
    let body = serde_json::to_vec(&fake_gitlab::objects::issue(
        &db,
        project,
        &project.issues[2],
    ))
    .unwrap();
    let call: ValidatedCall = dispatch::decode(
        tool("gitlab_issue"),
        catalog::tools(),
        args(json!({"action": "get", "params": {"project_id": 1, "issue_iid": 3}})),
        None,
    )
    .unwrap();
    let response = Response {
        status: 200,
        body: body.into(),
        is_json: true,
        pagination: Pagination::default(),
        request_id: None,
    };
    bencher.bench(|| render::success(&call, &response, render::Options::default()));
}

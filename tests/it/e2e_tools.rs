//! At least one action of every tool end to end, and every action whose
//! request is more than a plain mapping: the multi-file commit, a single
//! artifact file (a wildcard path), the multipart upload.

use crate::common;

use std::collections::BTreeSet;

use common::{Harness, Lifecycle};
use gitlab_mcp::catalog;
use serde_json::{Value, json};

/// (tool, call, the request line the fake must receive, text the answer must hold).
fn one_call_per_tool() -> Vec<(&'static str, Value, &'static str, &'static str)> {
    vec![
        (
            "gitlab_project",
            json!({"action": "get", "params": {"project_id": "acme/website"}}),
            "GET /api/v4/projects/acme%2Fwebsite",
            "\"path_with_namespace\":\"acme/website\"",
        ),
        (
            "gitlab_group",
            json!({"action": "get", "params": {"group_id": "acme/platform"}}),
            "GET /api/v4/groups/acme%2Fplatform",
            "\"full_path\":\"acme/platform\"",
        ),
        (
            "gitlab_issue",
            json!({"action": "note_list", "params": {"project_id": 1, "issue_iid": 2}}),
            "GET /api/v4/projects/1/issues/2/notes",
            "I can reproduce this",
        ),
        (
            "gitlab_merge_request",
            json!({"action": "commits", "params": {"project_id": 1, "merge_request_iid": 1}}),
            "GET /api/v4/projects/1/merge_requests/1/commits",
            "\"short_id\"",
        ),
        (
            "gitlab_pipeline",
            json!({"action": "job_list", "params": {"project_id": 1, "pipeline_id": 1001}}),
            "GET /api/v4/projects/1/pipelines/1001/jobs",
            "\"name\":\"build\"",
        ),
        (
            "gitlab_repository",
            json!({"action": "tree", "params": {"project_id": 1, "path": "docs"}}),
            "GET /api/v4/projects/1/repository/tree?path=docs",
            "docs/getting started.md",
        ),
        (
            "gitlab_user",
            json!({"action": "get", "params": {"user_id": 2}}),
            "GET /api/v4/users/2",
            "\"username\":\"bob\"",
        ),
        (
            "gitlab_label",
            json!({"action": "create", "params": {"project_id": 1, "name": "needs-triage", "color": "#aabbcc"}}),
            "POST /api/v4/projects/1/labels",
            "\"name\":\"needs-triage\"",
        ),
        (
            "gitlab_milestone",
            json!({"action": "get", "params": {"project_id": 1, "milestone_id": 40}}),
            "GET /api/v4/projects/1/milestones/40",
            "\"title\":\"v1.2\"",
        ),
        (
            "gitlab_release",
            json!({"action": "get", "params": {"project_id": 1, "tag_name": "v1.0.0"}}),
            "GET /api/v4/projects/1/releases/v1.0.0",
            "\"name\":\"Acme API 1.0\"",
        ),
        (
            "gitlab_variable",
            json!({"action": "list", "params": {"project_id": 1}}),
            "GET /api/v4/projects/1/variables",
            "\"key\":\"DEPLOY_TARGET\"",
        ),
        (
            "gitlab_environment",
            json!({"action": "list", "params": {"project_id": 1}}),
            "GET /api/v4/projects/1/environments",
            "\"name\":\"production\"",
        ),
        (
            "gitlab_search",
            json!({"action": "project", "params": {"project_id": 1, "scope": "blobs", "search": "cargo run"}}),
            "GET /api/v4/projects/1/search?scope=blobs&search=cargo%20run",
            "README.md",
        ),
        (
            "gitlab_wiki",
            json!({"action": "get", "params": {"project_id": 1, "slug": "deploy/production"}}),
            "GET /api/v4/projects/1/wikis/deploy%2Fproduction",
            "Deploying to production",
        ),
        (
            "gitlab_snippet",
            json!({"action": "project_raw", "params": {"project_id": 1, "snippet_id": 71}}),
            "GET /api/v4/projects/1/snippets/71/raw",
            "curl -X POST",
        ),
        (
            "gitlab_package",
            json!({"action": "list", "params": {"project_id": 1}}),
            "GET /api/v4/projects/1/packages",
            "\"name\":\"acme-api-client\"",
        ),
        (
            "gitlab_instance",
            json!({"action": "metadata", "params": {}}),
            "GET /api/v4/metadata",
            "\"version\":\"19.5.0-pre\"",
        ),
        (
            "gitlab_work_item",
            json!({"action": "get", "params": {"project_id": "acme/platform/api", "work_item_iid": 2}}),
            "POST /api/graphql",
            "\"iid\":2",
        ),
        (
            "gitlab_graphql",
            json!({"action": "query", "params": {"query": "{ project(fullPath: \"acme/platform/api\") { workItems(first: 1) { count } } }"}}),
            "POST /api/graphql",
            "\"count\":25",
        ),
    ]
}

#[tokio::test]
async fn every_tool_reaches_gitlab_with_the_exact_request() {
    let covered: BTreeSet<&str> = one_call_per_tool().iter().map(|(t, ..)| *t).collect();
    let all: BTreeSet<&str> = catalog::tools().iter().map(|t| t.name).collect();
    assert_eq!(covered, all, "a tool without an end-to-end call");

    let h = Harness::start(Lifecycle::Discover).await;
    for (tool, call, line, expected) in one_call_per_tool() {
        h.fake.clear_requests();
        let text = h.ok(tool, call.clone()).await;
        assert_eq!(h.only_request().line(), line, "{tool} {call}");
        assert!(
            text.contains(expected),
            "{tool}: {expected:?} not in {text}"
        );
    }
    h.stop().await;
}

#[tokio::test]
async fn a_multi_file_commit_sends_every_file_action_in_one_request() {
    let h = Harness::start(Lifecycle::Initialize).await;
    let call = json!({"action": "commit_create", "params": {
        "project_id": "acme/platform/api", "branch": "main", "commit_message": "Rework docs",
        "actions": [
            {"action": "create", "file_path": "docs/new.md", "content": "# New\n"},
            {"action": "update", "file_path": "README.md", "content": "# Acme API v2\n"},
            {"action": "move", "file_path": "docs/start.md", "previous_path": "docs/getting started.md"},
            {"action": "delete", "file_path": "src/orders.rs"}
        ]
    }});
    let text = h.ok("gitlab_repository", call).await;
    assert!(text.contains("\"title\":\"Rework docs\""), "{text}");
    let request = h.only_request();
    assert_eq!(
        request.line(),
        "POST /api/v4/projects/acme%2Fplatform%2Fapi/repository/commits"
    );
    let body = request.json();
    assert_eq!(body["actions"].as_array().unwrap().len(), 4);
    assert_eq!(
        body["actions"][2],
        json!({"action": "move", "file_path": "docs/start.md", "previous_path": "docs/getting started.md"})
    );
    // GitLab applied it: the moved file is readable under its new name.
    let raw = h.ok("gitlab_repository", json!({"action": "file_raw", "params": {"project_id": 1, "file_path": "docs/start.md"}})).await;
    assert!(common::data(&raw).starts_with("# Getting started"), "{raw}");
    h.stop().await;
}

#[tokio::test]
async fn each_file_action_is_checked_before_anything_is_sent() {
    let h = Harness::start(Lifecycle::Initialize).await;
    let text = h
        .err(
            "gitlab_repository",
            json!({"action": "commit_create", "params": {
                "project_id": 1, "branch": "main", "commit_message": "x",
                "actions": [
                    {"action": "create", "file_path": "a.md"},
                    {"action": "rename", "path": "b.md"},
                    {"action": "move", "file_path": "c.md"}
                ]
            }}),
        )
        .await;
    for expected in [
        "`actions[1].action` must be one of create, delete, move, update, chmod; got \"rename\"",
        "`actions[1].path` is not a field of `actions`; did you mean `file_path`?",
        "`actions[1].file_path` is missing (required)",
    ] {
        assert!(text.contains(expected), "missing {expected:?} in:\n{text}");
    }
    assert!(h.requests().is_empty());
    // With the fields right, the per-kind rule speaks.
    let text = h
        .err("gitlab_repository", json!({"action": "commit_create", "params": {
            "project_id": 1, "branch": "main", "commit_message": "x",
            "actions": [{"action": "create", "file_path": "a.md"}, {"action": "move", "file_path": "c.md"}]
        }}))
        .await;
    assert!(
        text.contains("`actions[0].content` is missing: a `create` action needs it"),
        "{text}"
    );
    assert!(
        text.contains("`actions[1].previous_path` is missing: a `move` action needs it"),
        "{text}"
    );
    assert!(h.requests().is_empty());
    h.stop().await;
}

#[tokio::test]
async fn an_artifact_file_path_keeps_its_slashes_and_encodes_each_part() {
    let h = Harness::start(Lifecycle::Discover).await;
    let text = h
        .ok("gitlab_pipeline", json!({"action": "job_artifact_file", "params": {"project_id": 1, "job_id": 101, "artifact_path": "reports/junit ü.xml"}}))
        .await;
    assert!(
        common::data(&text).starts_with("<testsuite tests=\"3\""),
        "{text}"
    );
    assert_eq!(
        h.only_request().line(),
        "GET /api/v4/projects/1/jobs/101/artifacts/reports/junit%20%C3%BC.xml"
    );
    h.fake.clear_requests();
    let text = h
        .err("gitlab_pipeline", json!({"action": "job_artifact_file", "params": {"project_id": 1, "job_id": 101, "artifact_path": "reports/../../../secrets"}}))
        .await;
    assert!(text.contains("`artifact_path` cannot be"), "{text}");
    assert!(h.requests().is_empty());
    h.stop().await;
}

#[tokio::test]
async fn an_upload_sends_the_file_as_multipart_from_text_or_base64() {
    let h = Harness::start(Lifecycle::Initialize).await;
    let text = h
        .ok("gitlab_project", json!({"action": "upload", "params": {"project_id": "acme/platform/api", "file_name": "notes.txt", "content": "hello"}}))
        .await;
    assert!(
        text.contains("\"markdown\":\"[notes.txt](/uploads/"),
        "{text}"
    );
    let request = h.only_request();
    assert_eq!(
        request.line(),
        "POST /api/v4/projects/acme%2Fplatform%2Fapi/uploads"
    );
    assert!(
        request.body.contains("filename=\"notes.txt\"")
            && request.body.contains("\r\n\r\nhello\r\n"),
        "{}",
        request.body
    );
    h.fake.clear_requests();
    // base64 "PNG!" bytes arrive decoded.
    h.ok("gitlab_project", json!({"action": "upload", "params": {"project_id": 1, "file_name": "shot.png", "content": "UE5HIQ==", "encoding": "base64"}})).await;
    assert!(h.only_request().body.contains("\r\n\r\nPNG!\r\n"));
    h.fake.clear_requests();
    let text = h
        .err("gitlab_project", json!({"action": "upload", "params": {"project_id": 1, "file_name": "x", "content": "@@not base64@@", "encoding": "base64"}}))
        .await;
    assert!(text.contains("`content` is not valid base64"), "{text}");
    assert!(h.requests().is_empty());
    h.stop().await;
}

#[tokio::test]
async fn a_generic_package_file_goes_as_the_raw_body_and_comes_back_from_the_download() {
    let h = Harness::start(Lifecycle::Initialize).await;
    let text = h
        .ok("gitlab_package", json!({"action": "generic_upload", "params": {"project_id": 1, "package_name": "cli", "package_version": "1.2.0", "file_name": "bin/tool.sh", "content": "#!/bin/sh\necho hi\n", "status": "hidden", "select": "package_file"}}))
        .await;
    assert!(text.contains("\"file_name\":\"bin/tool.sh\""), "{text}");
    let request = h.only_request();
    assert_eq!(
        request.line(),
        "PUT /api/v4/projects/1/packages/generic/cli/1.2.0/bin/tool.sh?status=hidden&select=package_file"
    );
    // The file itself, not a JSON field.
    assert_eq!(request.body, "#!/bin/sh\necho hi\n");
    h.fake.clear_requests();
    let text = h
        .ok("gitlab_package", json!({"action": "generic_download", "params": {"project_id": 1, "package_name": "cli", "package_version": "1.2.0", "file_name": "bin/tool.sh"}}))
        .await;
    assert!(text.contains("echo hi"), "{text}");
    // Hidden: out of the package list.
    let text = h
        .ok(
            "gitlab_package",
            json!({"action": "list", "params": {"project_id": 1, "package_type": "generic"}}),
        )
        .await;
    assert!(!text.contains("\"cli\""), "{text}");
    h.fake.clear_requests();
    // base64 arrives decoded; bad base64 sends nothing.
    h.ok("gitlab_package", json!({"action": "generic_upload", "params": {"project_id": 1, "package_name": "cli", "package_version": "1.2.0", "file_name": "logo.bin", "content": "UE5HIQ==", "encoding": "base64"}})).await;
    assert_eq!(h.only_request().body, "PNG!");
    h.fake.clear_requests();
    let text = h
        .err("gitlab_package", json!({"action": "generic_upload", "params": {"project_id": 1, "package_name": "cli", "package_version": "1.2.0", "file_name": "x", "content": "@@", "encoding": "base64"}}))
        .await;
    assert!(text.contains("`content` is not valid base64"), "{text}");
    assert!(h.requests().is_empty());
    h.stop().await;
}

#[tokio::test]
async fn archive_and_export_links_are_answered_without_fetching_and_without_the_token() {
    let h = Harness::start(Lifecycle::Initialize).await;
    let root = format!("{}/api/v4", h.fake.url());
    let text = h
        .ok("gitlab_repository", json!({"action": "archive_link", "params": {"project_id": "acme/platform/api", "sha": "v1.0", "format": "zip", "path": "src/a b"}}))
        .await;
    // GitLab reads the format from the path's extension.
    let url = format!(
        "{root}/projects/acme%2Fplatform%2Fapi/repository/archive.zip?sha=v1.0&path=src%2Fa%20b"
    );
    assert!(text.starts_with(&url), "{text}");
    assert!(
        text.contains(&format!(
            "--header \"PRIVATE-TOKEN: <token>\" --output <file> \"{url}\""
        )),
        "{text}"
    );
    let text = h
        .ok(
            "gitlab_project",
            json!({"action": "export_link", "params": {"project_id": 1}}),
        )
        .await;
    assert!(
        text.starts_with(&format!("{root}/projects/1/export/download\n")),
        "{text}"
    );
    let text = h
        .ok(
            "gitlab_group",
            json!({"action": "export_link", "params": {"group_id": "acme"}}),
        )
        .await;
    assert!(
        text.starts_with(&format!("{root}/groups/acme/export/download\n")),
        "{text}"
    );
    assert!(!text.contains(common::TOKEN), "{text}");
    // A link is not a download: GitLab saw nothing.
    assert!(h.requests().is_empty(), "{:?}", h.requests());
    h.stop().await;
}

#[tokio::test]
async fn an_artifacts_archive_is_listed_from_its_zip() {
    let h = Harness::start(Lifecycle::Initialize).await;
    let text = h
        .ok(
            "gitlab_pipeline",
            json!({"action": "job_artifact_list", "params": {"project_id": 1, "job_id": 101}}),
        )
        .await;
    assert_eq!(
        common::data(&text),
        "2 files, 65 bytes uncompressed:\ncoverage/summary.txt (29 bytes)\nreports/junit ü.xml (36 bytes)"
    );
    assert_eq!(
        h.only_request().line(),
        "GET /api/v4/projects/1/jobs/101/artifacts"
    );
    let text = h
        .err(
            "gitlab_pipeline",
            json!({"action": "job_artifact_list", "params": {"project_id": 1, "job_id": 102}}),
        )
        .await;
    assert!(text.contains("The job has no artifacts archive"), "{text}");
    h.stop().await;
}

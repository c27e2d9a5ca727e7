//! Resource templates: a file, a merge request's diff, a job's log and an
//! issue, each read through the engine as the tool call it stands for, so
//! the fake receives that call's request and the client reads that call's
//! text; read-only mode allows them (they read), lockdown screens them, and
//! a URI no template matches is "resource not found".

use crate::common;

use common::{BOTH, Harness, Lifecycle};
use rmcp::model::{ErrorCode, ReadResourceRequestParams, ResourceContents};
use serde_json::{Value, json};

const TEMPLATES: [&str; 4] = [
    "gitlab://{project}/-/blob/{ref}/{+path}",
    "gitlab://{project}/-/merge_requests/{iid}/diff",
    "gitlab://{project}/-/jobs/{id}/log",
    "gitlab://{project}/-/issues/{iid}",
];

/// Each template's URI, the tool call it stands for, and the request the
/// fake receives for it.
fn reads() -> [(&'static str, &'static str, Value, &'static str); 4] {
    [
        (
            "gitlab://acme%2Fplatform%2Fapi/-/blob/main/README.md",
            "gitlab_repository",
            json!({"action": "file_raw", "params": {"project_id": "acme/platform/api", "ref": "main", "file_path": "README.md"}}),
            "GET /api/v4/projects/acme%2Fplatform%2Fapi/repository/files/README.md/raw?ref=main",
        ),
        (
            "gitlab://acme/platform/api/-/merge_requests/1/diff",
            "gitlab_merge_request",
            json!({"action": "diffs", "params": {"project_id": "acme/platform/api", "merge_request_iid": 1}}),
            "GET /api/v4/projects/acme%2Fplatform%2Fapi/merge_requests/1/diffs",
        ),
        (
            "gitlab://1/-/jobs/101/log",
            "gitlab_pipeline",
            json!({"action": "job_log", "params": {"project_id": 1, "job_id": 101}}),
            "GET /api/v4/projects/1/jobs/101/trace",
        ),
        (
            "gitlab://acme%2Fwebsite/-/issues/2",
            "gitlab_issue",
            json!({"action": "get", "params": {"project_id": "acme/website", "issue_iid": 2}}),
            "GET /api/v4/projects/acme%2Fwebsite/issues/2",
        ),
    ]
}

/// The text of a resource, and the request it cost.
async fn read(h: &Harness, uri: &str) -> (String, String) {
    h.fake.clear_requests();
    let result = h
        .client
        .read_resource(ReadResourceRequestParams::new(uri))
        .await
        .unwrap_or_else(|e| panic!("{uri}: {e}"));
    assert_eq!(result.contents.len(), 1);
    let ResourceContents::TextResourceContents {
        uri: read_uri,
        mime_type,
        text,
        ..
    } = &result.contents[0]
    else {
        panic!("{uri}: not text");
    };
    assert_eq!(
        (read_uri.as_str(), mime_type.as_deref()),
        (uri, Some("text/plain"))
    );
    (text.clone(), h.only_request().line())
}

#[tokio::test]
async fn every_template_reads_as_the_tool_call_it_stands_for() {
    for lifecycle in BOTH {
        let h = Harness::start(lifecycle).await;
        let templates = h.client.list_all_resource_templates().await.unwrap();
        let uris: Vec<&str> = templates.iter().map(|t| t.uri_template.as_str()).collect();
        assert_eq!(uris, TEMPLATES);
        assert_eq!(h.client.list_all_resources().await.unwrap(), Vec::new());
        for (uri, tool, call, request) in reads() {
            let (text, sent) = read(&h, uri).await;
            assert_eq!(sent, request, "{uri}");
            h.fake.clear_requests();
            let by_tool = h.ok(tool, call).await;
            assert_eq!(text, by_tool, "{uri} reads as {tool}");
            assert_eq!(h.only_request().line(), request);
        }
        h.stop().await;
    }
}

#[tokio::test]
async fn a_read_only_server_reads_resources() {
    let h = Harness::start_with(Lifecycle::Discover, &[("GITLAB_READ_ONLY", "true")]).await;
    for (uri, _, _, request) in reads() {
        let (text, sent) = read(&h, uri).await;
        assert_eq!(sent, request);
        assert!(!text.is_empty());
    }
    h.stop().await;
}

#[tokio::test]
async fn lockdown_screens_what_a_resource_shows() {
    let h = Harness::start_with(
        Lifecycle::Initialize,
        &[("GITLAB_MCP_LOCKDOWN", "developer")],
    )
    .await;
    crate::lockdown::carol_writes(&h);
    let result = h
        .client
        .read_resource(ReadResourceRequestParams::new(
            "gitlab://acme%2Fwebsite/-/issues/2",
        ))
        .await
        .unwrap();
    let ResourceContents::TextResourceContents { text, .. } = &result.contents[0] else {
        panic!("not text");
    };
    assert!(
        text.contains("[withheld: written by @carol]")
            && !text.contains("Ignore your instructions"),
        "{text}"
    );
    h.stop().await;
}

#[tokio::test]
async fn a_uri_no_template_matches_is_not_found_and_nothing_is_sent() {
    for (lifecycle, code) in [
        (Lifecycle::Initialize, ErrorCode::RESOURCE_NOT_FOUND),
        // 2026-07-28 names it -32602 (SEP-2164); rmcp maps the code.
        (Lifecycle::Discover, ErrorCode::INVALID_PARAMS),
    ] {
        let h = Harness::start(lifecycle).await;
        for uri in [
            "test://static-text",
            "gitlab://acme/website/issues/2",
            "gitlab://g/p/-/issues/x",
        ] {
            let error = h
                .client
                .read_resource(ReadResourceRequestParams::new(uri))
                .await
                .expect_err(uri);
            let rmcp::ServiceError::McpError(error) = error else {
                panic!("{uri}: {error}");
            };
            assert_eq!(error.code, code, "{uri}");
            assert_eq!(error.data, Some(json!({ "uri": uri })));
        }
        assert_eq!(h.requests(), Vec::new());
        h.stop().await;
    }
}

#[tokio::test]
async fn a_gitlab_error_is_an_error_naming_the_uri() {
    let h = Harness::start(Lifecycle::Initialize).await;
    let uri = "gitlab://acme%2Fsecret/-/issues/1";
    let error = h
        .client
        .read_resource(ReadResourceRequestParams::new(uri))
        .await
        .expect_err("a project alice cannot see");
    let rmcp::ServiceError::McpError(error) = error else {
        panic!("{error}");
    };
    assert_eq!(error.code, ErrorCode::INVALID_PARAMS);
    assert!(error.message.contains("404"), "{}", error.message);
    assert_eq!(error.data, Some(json!({ "uri": uri })));
    h.stop().await;
}

/// A token that may not read issues is not offered their template.
#[tokio::test]
async fn the_templates_follow_the_token() {
    let h = Harness::start_with(
        Lifecycle::Discover,
        &[("GITLAB_TOKEN", "glpat-alice-files")],
    )
    .await;
    let templates = h.client.list_all_resource_templates().await.unwrap();
    let uris: Vec<&str> = templates.iter().map(|t| t.uri_template.as_str()).collect();
    assert_eq!(uris, [TEMPLATES[0]]);
    h.stop().await;
}

/// 2026-07-28's caching hints (SEP-2549): the lists follow the caller's
/// token, so only that caller may reuse them, for as long as its scopes
/// are trusted; a read is GitLab's data, stale at once. Legacy sessions
/// get none (rmcp leaves the older shape alone).
#[tokio::test]
async fn lists_and_reads_say_how_long_they_may_be_reused() {
    use rmcp::model::CacheScope;
    // rmcp's client reports what is left of a cached list's freshness: a
    // few milliseconds may have gone.
    let fresh = |ttl: Option<u64>| ttl.map(|t| (290_000..=300_000).contains(&t));
    for (lifecycle, list, read) in [
        (
            Lifecycle::Discover,
            (Some(true), Some(CacheScope::Private)),
            (Some(0), Some(CacheScope::Private)),
        ),
        (Lifecycle::Initialize, (None, None), (None, None)),
    ] {
        let h = Harness::start(lifecycle).await;
        let tools = h.client.list_tools(None).await.unwrap();
        assert_eq!(
            (fresh(tools.ttl_ms), tools.cache_scope),
            list,
            "{lifecycle:?}"
        );
        let prompts = h.client.list_prompts(None).await.unwrap();
        assert_eq!((fresh(prompts.ttl_ms), prompts.cache_scope), list);
        let templates = h.client.list_resource_templates(None).await.unwrap();
        assert_eq!((fresh(templates.ttl_ms), templates.cache_scope), list);
        let resources = h.client.list_resources(None).await.unwrap();
        assert_eq!((fresh(resources.ttl_ms), resources.cache_scope), list);
        let result = h
            .client
            .read_resource(ReadResourceRequestParams::new("gitlab://1/-/issues/1"))
            .await
            .unwrap();
        assert_eq!((result.ttl_ms, result.cache_scope), read, "{lifecycle:?}");
        h.stop().await;
    }
}

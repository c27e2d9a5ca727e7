//! `completion/complete` against the fake: project paths as the user
//! types (the caller's projects), branches and tags of the chosen project,
//! open merge requests' iids; one GitLab request each, at most 20 values
//! with `hasMore` said honestly, nothing sent without a chosen project, an
//! empty completion when GitLab fails, and -32602 for a prompt or template
//! the server does not have.

use crate::common;

use std::collections::HashMap;

use common::{BOTH, Harness, Lifecycle};
use fake_gitlab::Fault;
use rmcp::model::{
    ArgumentInfo, CompleteRequestParams, CompletionContext, CompletionInfo, ErrorCode, Reference,
};

const BLOB: &str = "gitlab://{project}/-/blob/{ref}/{+path}";
const DIFF: &str = "gitlab://{project}/-/merge_requests/{iid}/diff";

async fn complete(
    h: &Harness,
    reference: Reference,
    argument: &str,
    typed: &str,
    project: Option<&str>,
) -> CompletionInfo {
    let mut request = CompleteRequestParams::new(reference, ArgumentInfo::new(argument, typed));
    if let Some(project) = project {
        request = request.with_context(CompletionContext::with_arguments(HashMap::from([(
            "project".to_string(),
            project.to_string(),
        )])));
    }
    h.fake.clear_requests();
    h.client
        .complete(request)
        .await
        .unwrap_or_else(|e| panic!("{argument}={typed}: {e}"))
        .completion
}

#[tokio::test]
async fn projects_branches_tags_and_merge_requests_complete_from_one_request_each() {
    for lifecycle in BOTH {
        let h = Harness::start(lifecycle).await;
        let prompt = || Reference::for_prompt("review_merge_request");

        let projects = complete(&h, prompt(), "project", "plat", None).await;
        assert_eq!(projects.values, ["acme/platform/api"]);
        assert_eq!(projects.has_more, Some(false));
        assert_eq!(
            h.only_request().line(),
            "GET /api/v4/projects?per_page=20&search=plat&membership=true&order_by=last_activity_at&simple=true"
        );

        let branches = complete(
            &h,
            Reference::for_resource(BLOB),
            "ref",
            "feat",
            Some("acme/platform/api"),
        )
        .await;
        assert_eq!(
            branches.values,
            ["feature/orders-v2", "feature/ünïcode-naïve"]
        );
        assert_eq!(
            h.only_request().line(),
            "GET /api/v4/projects/acme%2Fplatform%2Fapi/repository/branches?per_page=20&search=%5Efeat"
        );

        let tags = complete(
            &h,
            Reference::for_prompt("release_notes"),
            "since",
            "v1",
            Some("1"),
        )
        .await;
        assert_eq!(tags.values, ["v1.1.0", "v1.0.0"]);

        let open = complete(&h, prompt(), "merge_request", "", Some("acme/platform/api")).await;
        assert_eq!(open.values, ["2", "1"], "the open ones, not the merged 3");
        assert_eq!(
            h.only_request().line(),
            "GET /api/v4/projects/acme%2Fplatform%2Fapi/merge_requests?per_page=20&state=opened&order_by=updated_at"
        );
        let by_title = complete(
            &h,
            Reference::for_resource(DIFF),
            "iid",
            "okta",
            Some("acme/platform/api"),
        )
        .await;
        assert_eq!(by_title.values, ["2"]);
        let by_iid = complete(
            &h,
            prompt(),
            "merge_request",
            "1",
            Some("acme/platform/api"),
        )
        .await;
        assert_eq!(by_iid.values, ["1"]);
        h.stop().await;
    }
}

#[tokio::test]
async fn without_a_project_or_for_free_text_nothing_is_asked() {
    let h = Harness::start(Lifecycle::Initialize).await;
    let prompt = || Reference::for_prompt("review_merge_request");
    let none = complete(&h, prompt(), "merge_request", "", None).await;
    assert_eq!(none.values, Vec::<String>::new());
    let focus = complete(&h, prompt(), "focus", "sec", Some("1")).await;
    assert_eq!(focus.values, Vec::<String>::new());
    assert_eq!(h.requests(), Vec::new());
    h.stop().await;
}

#[tokio::test]
async fn at_most_twenty_values_and_has_more_when_gitlab_has_another_page() {
    let h = Harness::start(Lifecycle::Discover).await;
    {
        let mut db = h.fake.db();
        let project = &mut db.projects[0];
        let sha = project.branches[0].commit_sha.clone();
        for n in 0..30 {
            project.branches.push(fake_gitlab::db::Branch {
                name: format!("topic/{n:02}"),
                commit_sha: sha.clone(),
                protected: false,
                allow_force_push: false,
            });
        }
    }
    let topics = complete(
        &h,
        Reference::for_resource(BLOB),
        "ref",
        "topic/",
        Some("1"),
    )
    .await;
    assert_eq!(topics.values.len(), 20);
    assert_eq!(topics.values[0], "topic/00");
    assert_eq!((topics.total, topics.has_more), (Some(30), Some(true)));
    h.stop().await;
}

#[tokio::test]
async fn a_failing_or_slow_gitlab_gives_an_empty_completion() {
    let h = Harness::start(Lifecycle::Initialize).await;
    h.fake
        .inject(Fault::status(500).on("GET", "/api/v4/projects").times(1));
    let failed = complete(
        &h,
        Reference::for_prompt("triage_issues"),
        "project",
        "web",
        None,
    )
    .await;
    assert_eq!(failed.values, Vec::<String>::new());
    // Past the 2 s limit the request is dropped and the answer is empty.
    h.fake
        .inject(Fault::delay(std::time::Duration::from_secs(3600)).on("GET", "/api/v4/projects"));
    let slow = complete(
        &h,
        Reference::for_prompt("triage_issues"),
        "project",
        "web",
        None,
    )
    .await;
    assert_eq!(slow.values, Vec::<String>::new());
    assert_eq!(h.requests().len(), 1, "one request, abandoned");
    h.stop().await;
}

#[tokio::test]
async fn an_unknown_prompt_or_template_is_invalid_params() {
    let h = Harness::start(Lifecycle::Initialize).await;
    for reference in [
        Reference::for_prompt("test_prompt_with_arguments"),
        Reference::for_resource("test://template/{id}/data"),
    ] {
        let error = h
            .client
            .complete(CompleteRequestParams::new(
                reference,
                ArgumentInfo::new("arg1", "x"),
            ))
            .await
            .expect_err("unknown");
        let rmcp::ServiceError::McpError(error) = error else {
            panic!("{error}");
        };
        assert_eq!(error.code, ErrorCode::INVALID_PARAMS);
    }
    assert_eq!(h.requests(), Vec::new());
    h.stop().await;
}

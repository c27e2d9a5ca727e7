//! `gitlab_pipeline wait` end to end: progress notifications while the
//! seed's pipeline 2003 runs (it finishes on its third read), a timeout
//! answered with the last status and the call to go on, a cancel that
//! stops the polling (the fake's request count stops growing), a failed
//! pipeline pointing to `triage`. The reads come at 0, 1, 3 and 7 s (the
//! schedule in `src/handlers/poll.rs`), so each test takes a few seconds.

use crate::common;

use std::time::Duration;

use crate::progress::{Watcher, with_progress};
use common::{Harness, Lifecycle};
use rmcp::ClientHandler;
use rmcp::model::{CallToolRequest, CallToolRequestParams, ClientRequest};
use rmcp::service::PeerRequestOptions;
use serde_json::{Value, json};

fn wait(params: Value) -> CallToolRequestParams {
    let Value::Object(map) = json!({"action": "wait", "params": params}) else {
        unreachable!()
    };
    CallToolRequestParams::new("gitlab_pipeline".to_string()).with_arguments(map)
}

fn text(result: &rmcp::model::CallToolResult) -> String {
    result
        .content
        .iter()
        .filter_map(|c| c.as_text().map(|t| t.text.clone()))
        .collect()
}

/// How many times the fake was asked for this path (any query).
fn reads<C: ClientHandler>(h: &Harness<C>, path: &str) -> usize {
    h.requests().iter().filter(|r| r.raw_path == path).count()
}

#[tokio::test]
async fn progress_is_reported_until_the_pipeline_finishes() {
    for lifecycle in common::BOTH {
        let watcher = Watcher::default();
        let h = Harness::start_client(watcher.clone(), lifecycle, &[]).await;
        let params = json!({"action": "wait", "params": {"project_id": 2, "pipeline_id": 2003, "timeout_seconds": 60}});
        let result = h
            .client
            .call_tool(with_progress("gitlab_pipeline", params))
            .await
            .unwrap();
        let answer = text(&result);
        assert_ne!(result.is_error, Some(true), "{answer}");
        assert!(
            answer.starts_with("Pipeline finished: success, after 3 s of waiting (3 reads).\n⟦\n"),
            "{answer}"
        );
        assert!(answer.contains("\"status\":\"success\""), "{answer}");
        assert_eq!(reads(&h, "/api/v4/projects/2/pipelines/2003"), 3);
        // The jobs are listed after each read that finds it running.
        assert_eq!(reads(&h, "/api/v4/projects/2/pipelines/2003/jobs"), 2);

        let seen = watcher.seen.lock().unwrap().clone();
        let messages: Vec<&str> = seen.iter().filter_map(|p| p.message.as_deref()).collect();
        // Read 1 finished job 211; read 2 started 212; read 3 found it done.
        assert_eq!(
            messages,
            ["running, 1 of 2 jobs over", "running, 1 of 2 jobs over"],
            "{lifecycle:?}"
        );
        let progress: Vec<f64> = seen.iter().map(|p| p.progress).collect();
        assert!(progress[0] < 0.5 && progress[1] >= 1.0, "{progress:?}");
        assert!(seen.iter().all(|p| p.total == Some(60.0)), "{seen:?}");
        h.stop().await;
    }
}

#[tokio::test]
async fn a_timeout_answers_the_last_status_and_the_call_to_go_on() {
    let h = Harness::start(Lifecycle::Initialize).await;
    // The seed's pipeline 1003 runs for ever.
    let out = h
        .call(
            "gitlab_pipeline",
            json!({"action": "wait", "params": {"project_id": 1, "pipeline_id": 1003, "timeout_seconds": 3}}),
        )
        .await;
    assert!(!out.is_error, "a timeout is no error: {}", out.text);
    assert_eq!(
        out.text,
        "Still waiting after 3 s; the last status:\n⟦\nrunning, 0 of 1 jobs over\n⟧\n[to go on waiting, call gitlab_pipeline again with {\"action\":\"wait\",\"params\":{\"project_id\":\"1\",\"pipeline_id\":1003,\"timeout_seconds\":3}}]"
    );
    // Reads at 0, 1 and 3 s (the limit).
    assert_eq!(reads(&h, "/api/v4/projects/1/pipelines/1003"), 3);
    h.stop().await;
}

#[tokio::test]
async fn a_cancelled_wait_stops_polling() {
    let h = Harness::start(Lifecycle::Initialize).await;
    let request = ClientRequest::CallToolRequest(CallToolRequest::new(wait(
        json!({"project_id": 1, "pipeline_id": 1003, "timeout_seconds": 60}),
    )));
    let handle = h
        .client
        .send_cancellable_request(request, PeerRequestOptions::no_options())
        .await
        .unwrap();
    // Reads at 0, 1 and 3 s; the next would be at 7 s.
    tokio::time::sleep(Duration::from_millis(4_500)).await;
    let before = h.requests().len();
    assert_eq!(reads(&h, "/api/v4/projects/1/pipelines/1003"), 3);
    handle
        .cancel(Some("the agent moved on".into()))
        .await
        .unwrap();
    tokio::time::sleep(Duration::from_millis(4_000)).await;
    assert_eq!(h.requests().len(), before, "no read after the cancel");
    // The session goes on.
    h.ok(
        "gitlab_pipeline",
        json!({"action": "get", "params": {"project_id": 1, "pipeline_id": 1003}}),
    )
    .await;
    h.stop().await;
}

#[tokio::test]
async fn a_failed_pipeline_ends_the_wait_and_points_to_triage() {
    let h = Harness::start(Lifecycle::Initialize).await;
    let out = h
        .ok(
            "gitlab_pipeline",
            json!({"action": "wait", "params": {"project_id": "acme/website", "pipeline_id": 2001}}),
        )
        .await;
    assert!(
        out.starts_with("Pipeline finished: failed, after 0 s of waiting (1 read).\n⟦\n"),
        "{out}"
    );
    assert!(
        out.ends_with(
            "\n[why it failed: {\"action\":\"triage\",\"params\":{\"project_id\":\"acme/website\",\"pipeline_id\":2001}}]"
        ),
        "{out}"
    );
    h.stop().await;
}

#[tokio::test]
async fn a_pipeline_that_does_not_exist_is_an_error_at_once() {
    let h = Harness::start(Lifecycle::Initialize).await;
    let out = h
        .err(
            "gitlab_pipeline",
            json!({"action": "wait", "params": {"project_id": 1, "pipeline_id": 999}}),
        )
        .await;
    assert!(
        out.contains("Use action `list` (filters: ref, status)"),
        "{out}"
    );
    assert_eq!(reads(&h, "/api/v4/projects/1/pipelines/999"), 1);
    h.stop().await;
}

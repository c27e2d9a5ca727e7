//! Following a list's pages (`max_items`): every item in one answer,
//! MCP progress notifications after each page when the client asked for
//! them, and no further page once the call is cancelled.

use crate::common;

use std::sync::{Arc, Mutex};
use std::time::Duration;

use common::{Harness, Lifecycle};
use fake_gitlab::Fault;
use rmcp::model::{
    CallToolRequestParams, NumberOrString, ProgressNotificationParam, ProgressToken,
    RequestMetaObject,
};
use rmcp::service::NotificationContext;
use rmcp::{ClientHandler, RoleClient};
use serde_json::{Value, json};

/// A client that keeps every progress notification it receives.
#[derive(Clone, Default)]
pub struct Watcher {
    pub seen: Arc<Mutex<Vec<ProgressNotificationParam>>>,
}

impl ClientHandler for Watcher {
    async fn on_progress(
        &self,
        params: ProgressNotificationParam,
        _context: NotificationContext<RoleClient>,
    ) {
        self.seen.lock().unwrap().push(params);
    }
}

/// A call to `tool` that asks for progress (token 7).
pub fn with_progress(tool: &str, args: Value) -> CallToolRequestParams {
    let Value::Object(map) = args else {
        unreachable!()
    };
    let mut meta = RequestMetaObject::new();
    meta.set_progress_token(ProgressToken(NumberOrString::Number(7)));
    let mut params = CallToolRequestParams::new(tool.to_string()).with_arguments(map);
    params.meta = Some(meta);
    params
}

#[tokio::test]
async fn max_items_follows_pages_and_reports_progress() {
    for lifecycle in common::BOTH {
        let watcher = Watcher::default();
        let h = Harness::start_client(watcher.clone(), lifecycle, &[]).await;
        let result = h
            .client
            .call_tool(with_progress("gitlab_issue", json!({"action": "list", "params": {"project_id": 1, "per_page": 5}, "max_items": 12})))
            .await
            .unwrap();
        let text: String = result
            .content
            .iter()
            .filter_map(|c| c.as_text().map(|t| t.text.clone()))
            .collect();
        assert_eq!(
            text.lines().filter(|l| l.starts_with("{\"id\"")).count(),
            12,
            "{text}"
        );
        assert!(
            text.contains("[followed 3 pages: 12 items; more remain"),
            "{text}"
        );
        let pages: Vec<String> = h.requests().iter().map(|r| r.line()).collect();
        assert_eq!(
            pages,
            [
                "GET /api/v4/projects/1/issues?per_page=5",
                "GET /api/v4/projects/1/issues?per_page=5&page=2",
                "GET /api/v4/projects/1/issues?per_page=5&page=3",
            ]
        );
        let seen = watcher.seen.lock().unwrap().clone();
        let progress: Vec<f64> = seen.iter().map(|p| p.progress).collect();
        assert_eq!(progress, [5.0, 10.0, 12.0], "{lifecycle:?}");
        // rmcp's client puts its own progress token on each request.
        assert!(
            seen.iter()
                .all(|p| p.progress_token == seen[0].progress_token && p.total == Some(12.0)),
            "{seen:?}"
        );
        assert_eq!(seen[2].message.as_deref(), Some("3 pages, 12 items"));
        h.stop().await;
    }
}

/// A single request reports progress only once it has waited past
/// `SLOW_REQUEST` (300 ms): a fast call sends no notification, since rmcp's
/// client asks for progress on every call.
#[tokio::test]
async fn a_slow_single_request_reports_its_wait_and_end_and_a_fast_one_nothing() {
    let watcher = Watcher::default();
    let h = Harness::start_client(watcher.clone(), Lifecycle::Initialize, &[]).await;
    let job_log = || {
        with_progress(
            "gitlab_pipeline",
            json!({"action": "job_log", "params": {"project_id": 1, "job_id": 102}}),
        )
    };
    let seen = || -> Vec<(f64, Option<String>)> {
        watcher
            .seen
            .lock()
            .unwrap()
            .iter()
            .map(|p| (p.progress, p.message.clone()))
            .collect()
    };
    h.client.call_tool(job_log()).await.unwrap();
    assert_eq!(seen(), [], "a fast call reports nothing");
    h.fake
        .inject(Fault::delay(Duration::from_millis(800)).on("GET", "/api/v4/projects/1/jobs/102"));
    h.client.call_tool(job_log()).await.unwrap();
    assert_eq!(
        seen(),
        [
            (0.0, Some("sent to GitLab, waiting for its answer".into())),
            (1.0, Some("answered".into()))
        ]
    );
    h.stop().await;
}

#[tokio::test]
async fn a_cancelled_call_stops_following_pages() {
    let h = Harness::start(Lifecycle::Initialize).await;
    h.fake.inject(Fault::delay(Duration::from_millis(300)));
    let slow = h.call(
        "gitlab_issue",
        json!({"action": "list", "params": {"project_id": 1, "per_page": 2}, "max_items": 20}),
    );
    assert!(
        tokio::time::timeout(Duration::from_millis(700), slow)
            .await
            .is_err()
    );
    tokio::time::sleep(Duration::from_millis(800)).await;
    let sent = h.requests().len();
    assert!(sent <= 3, "pages after the cancel: {sent} requests");
    h.stop().await;
}

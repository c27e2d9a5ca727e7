//! Long-running actions as tasks (the tasks extension, SEP-2663): a client
//! that declared the extension gets a task for an action the catalog marks
//! `long_running` and polls it for the same answer an inline call gives,
//! the action's progress as the task's status message; a client that did
//! not, or any other action, is answered inline as before; a cancelled task
//! stops its GitLab request; over HTTP, only the token that started a task
//! sees it.

use crate::common;

use std::time::Duration;

use common::http::HttpServer;
use common::{BOTH, Harness, Lifecycle};
use fake_gitlab::db::{AutoMerge, AutoMergeEnd};
use fake_gitlab::{FakeGitLab, Fault};
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, CancelTaskParams, ClientCapabilities,
    ClientConfig, CreateTaskResult, GetTaskParams, Implementation, TaskPayload, TaskStatus,
};
use rmcp::service::RunningService;
use rmcp::{ClientHandler, RoleClient};
use serde_json::{Value, json};

const EXPORT: &str = "POST /api/v4/projects/1/export";

/// A client that declared the tasks extension.
#[derive(Clone, Default)]
struct TasksClient;

impl ClientHandler for TasksClient {
    fn get_info(&self) -> ClientConfig {
        ClientConfig::new(
            ClientCapabilities::builder().enable_tasks().build(),
            Implementation::new("tasks-client", "1.0.0"),
        )
    }
}

/// GitLab accepting an export (202, lib/api/project_export.rb), after
/// `delay`.
fn export_accepted(fake: &FakeGitLab, delay: Duration) {
    fake.inject(Fault {
        delay: Some(delay),
        ..Fault::status(202)
            .body("application/json", r#"{"message":"202 Accepted"}"#)
            .on("POST", "/api/v4/projects/1/export")
    });
}

fn export() -> CallToolRequestParams {
    let arguments = json!({"action": "export", "params": {"project_id": 1}});
    CallToolRequestParams::new("gitlab_project")
        .with_arguments(arguments.as_object().unwrap().clone())
}

async fn call_once<C: ClientHandler>(
    client: &RunningService<RoleClient, C>,
    params: CallToolRequestParams,
) -> CallToolResponse {
    client
        .call_tool_once(params)
        .await
        .expect("tools/call answers")
}

fn task_of(response: CallToolResponse) -> CreateTaskResult {
    match response {
        CallToolResponse::Task(task) => task,
        other => panic!("expected a task, got {other:?}"),
    }
}

fn inline(response: CallToolResponse) -> CallToolResult {
    match response {
        CallToolResponse::Complete(result) => result,
        other => panic!("expected an inline answer, got {other:?}"),
    }
}

/// Poll `tasks/get` until the task ends; its last state. A task that
/// never ends fails the test rather than hang it.
async fn until_done<C: ClientHandler>(
    client: &RunningService<RoleClient, C>,
    task_id: &str,
) -> TaskPayload {
    for _ in 0..3000 {
        let state = client
            .get_task(GetTaskParams::new(task_id))
            .await
            .expect("tasks/get answers");
        if state.task.status().is_terminal() {
            return state.task.payload;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    panic!("task {task_id} did not end");
}

fn completed(payload: TaskPayload) -> CallToolResult {
    match payload {
        TaskPayload::Completed { result } => {
            serde_json::from_value(Value::Object(result)).expect("a tool result")
        }
        other => panic!("expected a completed task, got {other:?}"),
    }
}

fn sent(fake: &FakeGitLab) -> Vec<String> {
    fake.requests()
        .iter()
        .filter(|r| !common::is_scope_lookup(r))
        .map(|r| r.line())
        .collect()
}

#[tokio::test]
async fn an_export_runs_as_a_task_whose_answer_is_the_inline_one() {
    for lifecycle in BOTH {
        let h = Harness::start_client(TasksClient, lifecycle, &[]).await;
        export_accepted(&h.fake, Duration::from_millis(300));
        let task = task_of(call_once(&h.client, export()).await).task;
        assert_eq!(task.status, TaskStatus::Working, "{lifecycle:?}");
        assert_eq!(task.ttl_ms, Some(3_600_000));
        assert_eq!(task.poll_interval_ms, Some(2_000));
        assert_eq!(
            task.status_message.as_deref(),
            Some("gitlab_project running")
        );
        let from_task = completed(until_done(&h.client, &task.task_id).await);
        assert_eq!(sent(&h.fake), [EXPORT], "{lifecycle:?}: one request");

        // The same call from a client without tasks, answered inline.
        let plain = Harness::start_on(h.fake.clone(), lifecycle, &[]).await;
        let inline = inline(call_once(&plain.client, export()).await);
        // The same answer (the wire's `resultType` aside).
        let answer =
            |r: &CallToolResult| (r.content.clone(), r.is_error, r.structured_content.clone());
        assert_eq!(answer(&from_task), answer(&inline), "{lifecycle:?}");
        assert_eq!(from_task.is_error, Some(false), "{from_task:?}");
        plain.stop().await;
        h.stop().await;
    }
}

/// A wait for an auto-merge is a task whose status message is the merge
/// request's state as each read finds it, and whose answer is the merge.
#[tokio::test]
async fn wait_merge_runs_as_a_task_whose_status_follows_its_progress() {
    let h = Harness::start_client(TasksClient, Lifecycle::Discover, &[]).await;
    {
        let mut db = h.fake.db();
        let project = db.projects.iter_mut().find(|p| p.id == 1).unwrap();
        let mr = &mut project.merge_requests[0];
        mr.head_pipeline_id = Some(1003);
        mr.auto_merge = Some(AutoMerge {
            reads_left: 3,
            then: AutoMergeEnd::Merged,
            merge_user: 1,
        });
    }
    let arguments =
        json!({"action": "wait_merge", "params": {"project_id": 1, "merge_request_iid": 1}});
    let wait = CallToolRequestParams::new("gitlab_merge_request")
        .with_arguments(arguments.as_object().unwrap().clone());
    let task = task_of(call_once(&h.client, wait).await).task;
    let (messages, payload) = until_terminal(&h.client, &task.task_id).await;
    // The task starts as "running"; the first read (at once) and each
    // after it report the merge request's state.
    let progress: Vec<&String> = messages
        .iter()
        .filter(|m| *m != "gitlab_merge_request running")
        .collect();
    assert_eq!(
        progress,
        [
            "!1 opened, detailed_merge_status ci_still_running, head pipeline running, auto-merge set"
        ],
        "{messages:?}"
    );
    let answer = completed(payload);
    let text = answer.content[0].as_text().unwrap().text.clone();
    assert!(text.starts_with("Merged.\n⟦\n!1 merged at "), "{text}");
    assert_eq!(
        sent(&h.fake),
        vec!["GET /api/v4/projects/1/merge_requests/1".to_string(); 3]
    );
    h.stop().await;
}

/// Polls a task until it ends: the distinct status messages it showed, in
/// order, and its payload.
async fn until_terminal<C: ClientHandler>(
    client: &RunningService<RoleClient, C>,
    task_id: &str,
) -> (Vec<String>, TaskPayload) {
    let mut messages = Vec::new();
    loop {
        let state = client
            .get_task(GetTaskParams::new(task_id))
            .await
            .expect("tasks/get answers");
        if let Some(message) = state.task.task.status_message.clone()
            && messages.last() != Some(&message)
        {
            messages.push(message);
        }
        if state.task.status().is_terminal() {
            return (messages, state.task.payload);
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// A pipeline wait is a task too (`long_running` in catalog/gitlab_pipeline.toml):
/// the seed's pipeline 2003 finishes on its third read, and the task's
/// answer is the inline one.
#[tokio::test]
async fn a_pipeline_wait_runs_as_a_task() {
    let h = Harness::start_client(TasksClient, Lifecycle::Discover, &[]).await;
    let arguments = json!({"action": "wait", "params": {"project_id": 2, "pipeline_id": 2003, "timeout_seconds": 60}});
    let wait = CallToolRequestParams::new("gitlab_pipeline")
        .with_arguments(arguments.as_object().unwrap().clone());
    let task = task_of(call_once(&h.client, wait).await).task;
    let (_, payload) = until_terminal(&h.client, &task.task_id).await;
    let answer = completed(payload);
    let text = answer.content[0].as_text().unwrap().text.clone();
    assert!(
        text.starts_with("Pipeline finished: success, after 3 s of waiting (3 reads).\n⟦\n"),
        "{text}"
    );
    let reads = sent(&h.fake)
        .iter()
        .filter(|r| *r == "GET /api/v4/projects/2/pipelines/2003")
        .count();
    assert_eq!(reads, 3);
    h.stop().await;
}

#[tokio::test]
async fn a_client_that_did_not_declare_tasks_and_other_actions_are_answered_inline() {
    let plain = Harness::start(Lifecycle::Discover).await;
    export_accepted(&plain.fake, Duration::ZERO);
    let answer = inline(call_once(&plain.client, export()).await);
    assert_eq!(answer.is_error, Some(false), "{answer:?}");
    assert_eq!(sent(&plain.fake), [EXPORT]);
    plain.stop().await;

    let h = Harness::start_client(TasksClient, Lifecycle::Discover, &[]).await;
    let arguments = json!({"action": "get", "params": {"project_id": 1, "issue_iid": 1}});
    let get = CallToolRequestParams::new("gitlab_issue")
        .with_arguments(arguments.as_object().unwrap().clone());
    let answer = inline(call_once(&h.client, get).await);
    assert_eq!(answer.is_error, Some(false), "{answer:?}");
    assert_eq!(sent(&h.fake), ["GET /api/v4/projects/1/issues/1"]);
    h.stop().await;
}

#[tokio::test]
async fn a_cancelled_task_stops_its_gitlab_request() {
    let h = Harness::start_client(TasksClient, Lifecycle::Discover, &[]).await;
    export_accepted(&h.fake, Duration::from_secs(3600));
    let task = task_of(call_once(&h.client, export()).await).task;
    while sent(&h.fake).is_empty() {
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    h.client
        .cancel_task(CancelTaskParams::new(&task.task_id))
        .await
        .expect("tasks/cancel answers");
    assert_eq!(
        until_done(&h.client, &task.task_id).await,
        TaskPayload::Cancelled
    );
    assert_eq!(sent(&h.fake), [EXPORT]);
    assert!(
        !h.fake.completed().iter().any(|line| line == EXPORT),
        "GitLab's request was dropped, not answered: {:?}",
        h.fake.completed()
    );
    h.stop().await;
}

#[tokio::test]
async fn over_http_a_task_is_seen_only_by_the_token_that_started_it() {
    let fake = FakeGitLab::start().await;
    export_accepted(&fake, Duration::from_millis(300));
    let server = HttpServer::start(&fake, &[], &[]).await;
    let alice = server
        .client(
            TasksClient,
            Lifecycle::Discover,
            &[("private-token", "glpat-alice")],
        )
        .await;
    let bob = server
        .client(
            TasksClient,
            Lifecycle::Discover,
            &[("private-token", "glpat-bob")],
        )
        .await;
    let task = task_of(call_once(&alice, export()).await).task;

    let unknown = format!("unknown task: {}", task.task_id);
    let asked = bob
        .get_task(GetTaskParams::new(&task.task_id))
        .await
        .expect_err("bob cannot read alice's task");
    assert!(asked.to_string().contains(&unknown), "{asked}");
    let cancelled = bob
        .cancel_task(CancelTaskParams::new(&task.task_id))
        .await
        .expect_err("bob cannot cancel alice's task");
    assert!(cancelled.to_string().contains(&unknown), "{cancelled}");

    let answer = completed(until_done(&alice, &task.task_id).await);
    assert_eq!(answer.is_error, Some(false), "{answer:?}");
    assert_eq!(sent(&fake), [EXPORT]);
    let export = fake
        .requests()
        .into_iter()
        .find(|r| r.line() == EXPORT)
        .unwrap();
    assert_eq!(export.private_token.as_deref(), Some("glpat-alice"));
    alice.cancel().await.unwrap();
    bob.cancel().await.unwrap();
}

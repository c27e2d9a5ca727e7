//! Safety and control, end to end: read-only mode, tool and action
//! filters, confirmation of destructive actions (elicitation in both
//! lifecycles, the model's `confirm`, the operator's `--yes`), the
//! quick-action guard, retries, timeouts, cancellation and the limit on
//! concurrent requests. Each test asserts what the fake received.

use crate::common;

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use common::{BOTH, Harness, Lifecycle};
use fake_gitlab::Fault;
use rmcp::model::{
    ClientCapabilities, ClientConfig, ElicitRequestParams, ElicitResult, ElicitationAction,
    Implementation,
};
use rmcp::service::RequestContext;
use rmcp::{ClientHandler, ErrorData, RoleClient};
use serde_json::{Value, json};

/// A client that declares elicitation and answers every question the same way.
#[derive(Clone)]
struct User {
    action: ElicitationAction,
    confirm: bool,
    asked: Arc<AtomicUsize>,
}

impl User {
    fn answering(action: ElicitationAction, confirm: bool) -> Self {
        User {
            action,
            confirm,
            asked: Arc::new(AtomicUsize::new(0)),
        }
    }
}

impl ClientHandler for User {
    fn get_info(&self) -> ClientConfig {
        ClientConfig::new(
            ClientCapabilities::builder().enable_elicitation().build(),
            Implementation::new("test-user", "1.0.0"),
        )
    }

    async fn create_elicitation(
        &self,
        request: ElicitRequestParams,
        _context: RequestContext<RoleClient>,
    ) -> Result<ElicitResult, ErrorData> {
        self.asked.fetch_add(1, Ordering::SeqCst);
        let ElicitRequestParams::FormElicitationParams { message, .. } = request else {
            panic!("expected a form elicitation");
        };
        assert!(
            message.contains("gitlab_issue delete") && message.contains("cannot be undone"),
            "{message}"
        );
        let mut result = ElicitResult::new(self.action.clone());
        if self.action == ElicitationAction::Accept {
            result = result.with_content(json!({ "confirm": self.confirm }));
        }
        Ok(result)
    }
}

const DELETE: &str = r#"{"action": "delete", "params": {"project_id": 1, "issue_iid": 5}}"#;

fn delete_call() -> Value {
    serde_json::from_str(DELETE).unwrap()
}

fn actions_of(tools: &[rmcp::model::Tool], name: &str) -> Vec<String> {
    let tool = tools
        .iter()
        .find(|t| t.name == name)
        .unwrap_or_else(|| panic!("no {name}"));
    tool.input_schema["properties"]["action"]["enum"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a.as_str().unwrap().to_string())
        .collect()
}

fn deletes(h: &Harness<impl ClientHandler>) -> usize {
    h.requests().iter().filter(|r| r.method == "DELETE").count()
}

#[tokio::test]
async fn read_only_mode_lists_only_reads_and_refuses_writes_without_sending() {
    for env in [
        ("GITLAB_READ_ONLY", "true"),
        ("GITLAB_READ_ONLY_MODE", "true"),
    ] {
        let h = Harness::start_with(Lifecycle::Initialize, &[env]).await;
        let tools = h.client.list_all_tools().await.unwrap();
        let issue = actions_of(&tools, "gitlab_issue");
        assert!(
            issue.contains(&"get".to_string()) && !issue.contains(&"create".to_string()),
            "{issue:?}"
        );
        for tool in &tools {
            let a = tool.annotations.as_ref().unwrap();
            assert_eq!(a.read_only_hint, Some(true), "{}", tool.name);
            assert_eq!(a.destructive_hint, Some(false), "{}", tool.name);
        }
        let text = h
            .err(
                "gitlab_issue",
                json!({"action": "create", "params": {"project_id": 1, "title": "x"}}),
            )
            .await;
        assert!(
            text.contains("refused") && text.contains("read-only mode"),
            "{text}"
        );
        let text = h.err("gitlab_issue", delete_call()).await;
        assert!(text.contains("read-only mode"), "{text}");
        assert!(h.requests().is_empty(), "nothing reached GitLab");
        h.ok(
            "gitlab_issue",
            json!({"action": "get", "params": {"project_id": 1, "issue_iid": 1}}),
        )
        .await;
        h.stop().await;
    }
    // The flag does the same, and `tools` shows what would be served.
    let out = std::process::Command::new(common::BIN)
        .args(["--read-only", "tools", "--json"])
        .output()
        .unwrap();
    let list: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(!list.to_string().contains("\"create\""));
}

#[tokio::test]
async fn tool_and_action_filters_prune_the_schema_and_refuse() {
    let h = Harness::start_with(
        Lifecycle::Discover,
        &[
            ("GITLAB_MCP_TOOLS", "issue,ci"),
            ("GITLAB_MCP_DENY_ACTIONS", "*.delete,gitlab_pipeline.job_*"),
        ],
    )
    .await;
    let tools = h.client.list_all_tools().await.unwrap();
    let names: Vec<&str> = tools.iter().map(|t| t.name.as_ref()).collect();
    assert_eq!(
        names,
        [
            "gitlab_environment",
            "gitlab_issue",
            "gitlab_pipeline",
            "gitlab_variable"
        ]
    );
    assert!(!actions_of(&tools, "gitlab_issue").contains(&"delete".to_string()));
    assert!(
        actions_of(&tools, "gitlab_issue").contains(&"note_delete".to_string()),
        "only exact `delete`"
    );
    assert!(
        !actions_of(&tools, "gitlab_pipeline")
            .iter()
            .any(|a| a.starts_with("job_"))
    );
    let text = h.err("gitlab_issue", delete_call()).await;
    assert!(
        text.contains("refused") && text.contains("pattern `*.delete`"),
        "{text}"
    );
    let text = h
        .err(
            "gitlab_pipeline",
            json!({"action": "job_log", "params": {"project_id": 1, "job_id": 101}}),
        )
        .await;
    assert!(text.contains("pattern `gitlab_pipeline.job_*`"), "{text}");
    // Help knows only what is enabled.
    let help = h.ok("gitlab_pipeline", json!({"action": "help"})).await;
    assert!(!help.contains("job_log"), "{help}");
    let error = h
        .client
        .call_tool(rmcp::model::CallToolRequestParams::new("gitlab_project"))
        .await;
    assert!(error.is_err(), "a disabled tool cannot be routed");
    assert!(h.requests().is_empty());
    h.stop().await;
}

#[tokio::test]
async fn no_delete_access_removes_every_destructive_action() {
    let h = Harness::start_with(Lifecycle::Initialize, &[("GITLAB_MCP_ACCESS", "no-delete")]).await;
    let tools = h.client.list_all_tools().await.unwrap();
    for tool in &tools {
        assert_eq!(
            tool.annotations.as_ref().unwrap().destructive_hint,
            Some(false),
            "{}",
            tool.name
        );
    }
    assert!(actions_of(&tools, "gitlab_issue").contains(&"create".to_string()));
    assert!(!actions_of(&tools, "gitlab_pipeline").contains(&"job_erase".to_string()));
    let text = h
        .err(
            "gitlab_project",
            json!({"action": "transfer", "params": {"project_id": 1, "namespace": "acme"}}),
        )
        .await;
    assert!(text.contains("no-delete mode"), "{text}");
    assert!(h.requests().is_empty());
    h.stop().await;
}

#[tokio::test]
async fn a_destructive_call_without_confirmation_sends_nothing() {
    for lifecycle in BOTH {
        // The plain test client declares no elicitation.
        let h = Harness::start(lifecycle).await;
        let text = h.err("gitlab_issue", delete_call()).await;
        assert!(
            text.contains("refused, nothing was sent") && text.contains("--yes"),
            "{text}"
        );
        // The model cannot confirm unless the operator allows it.
        let mut with_confirm = delete_call();
        with_confirm["confirm"] = json!(true);
        h.err("gitlab_issue", with_confirm).await;
        assert!(h.requests().is_empty(), "{lifecycle:?}");
        h.stop().await;
    }
}

#[tokio::test]
async fn operator_and_model_confirmation_send_exactly_once() {
    let h = Harness::start_with(
        Lifecycle::Initialize,
        &[("GITLAB_MCP_AUTO_CONFIRM", "true")],
    )
    .await;
    h.ok("gitlab_issue", delete_call()).await;
    assert_eq!(deletes(&h), 1);
    h.stop().await;

    let h = Harness::start_with(
        Lifecycle::Initialize,
        &[("GITLAB_MCP_MODEL_CONFIRM", "true")],
    )
    .await;
    let text = h.err("gitlab_issue", delete_call()).await;
    assert!(text.contains("add \"confirm\": true"), "{text}");
    assert_eq!(deletes(&h), 0);
    let mut with_confirm = delete_call();
    with_confirm["confirm"] = json!(true);
    h.ok("gitlab_issue", with_confirm).await;
    assert_eq!(deletes(&h), 1);
    h.stop().await;
}

#[tokio::test]
async fn elicitation_on_a_legacy_session_accepted_and_declined() {
    let user = User::answering(ElicitationAction::Accept, true);
    let h = Harness::start_client(user.clone(), Lifecycle::Initialize, &[]).await;
    h.ok("gitlab_issue", delete_call()).await;
    assert_eq!(user.asked.load(Ordering::SeqCst), 1);
    assert_eq!(deletes(&h), 1, "sent once after the user agreed");
    h.stop().await;

    for (action, confirm) in [
        (ElicitationAction::Decline, false),
        (ElicitationAction::Cancel, false),
        (ElicitationAction::Accept, false),
    ] {
        let user = User::answering(action.clone(), confirm);
        let h = Harness::start_client(user.clone(), Lifecycle::Initialize, &[]).await;
        let text = h.err("gitlab_issue", delete_call()).await;
        assert!(
            text.contains("the user did not confirm; nothing was sent"),
            "{action:?}: {text}"
        );
        assert_eq!(user.asked.load(Ordering::SeqCst), 1);
        assert_eq!(deletes(&h), 0, "{action:?}");
        h.stop().await;
    }
}

#[tokio::test]
async fn input_required_on_a_2026_session_accepted_and_declined() {
    let user = User::answering(ElicitationAction::Accept, true);
    let h = Harness::start_client(user.clone(), Lifecycle::Discover, &[]).await;
    // rmcp's client answers the input-required round through its handler
    // and retries the call with the answer.
    h.ok("gitlab_issue", delete_call()).await;
    assert_eq!(user.asked.load(Ordering::SeqCst), 1);
    assert_eq!(deletes(&h), 1);
    h.stop().await;

    let user = User::answering(ElicitationAction::Decline, false);
    let h = Harness::start_client(user.clone(), Lifecycle::Discover, &[]).await;
    let text = h.err("gitlab_issue", delete_call()).await;
    assert!(text.contains("nothing was sent"), "{text}");
    assert_eq!(deletes(&h), 0);
    h.stop().await;
}

#[tokio::test]
async fn an_input_required_answer_only_confirms_the_call_it_was_asked_for() {
    let h = Harness::start(Lifecycle::Discover).await;
    let mut responses = std::collections::BTreeMap::new();
    responses.insert(
        "confirm".to_string(),
        json!({"action": "accept", "content": {"confirm": true}}),
    );
    let Value::Object(args) = delete_call() else {
        unreachable!()
    };
    let params = rmcp::model::CallToolRequestParams::new("gitlab_issue")
        .with_arguments(args)
        .with_input_responses(responses)
        .with_request_state("confirm:0000000000000000");
    let out = h.client.call_tool_once(params).await.unwrap();
    // A made-up state is not an answer: the call is asked again or refused.
    assert!(
        !matches!(out, rmcp::model::CallToolResponse::Complete(ref r) if r.is_error == Some(false))
    );
    assert_eq!(deletes(&h), 0);
    h.stop().await;
}

#[tokio::test]
async fn quick_action_text_is_refused_unless_opted_in() {
    let h = Harness::start(Lifecycle::Initialize).await;
    let note = json!({"action": "note_create", "params": {"project_id": 1, "issue_iid": 1, "body": "Agreed.\n/close\n/assign @bob"}});
    let text = h.err("gitlab_issue", note.clone()).await;
    assert!(
        text.contains("`body` has /close, /assign") && text.contains("quick actions"),
        "{text}"
    );
    let text = h
        .err("gitlab_merge_request", json!({"action": "update", "params": {"project_id": 1, "merge_request_iid": 1, "description": "/merge"}}))
        .await;
    assert!(text.contains("`description` has /merge"), "{text}");
    assert!(h.requests().is_empty());
    // Code blocks and paths are not quick actions.
    h.ok("gitlab_issue", json!({"action": "note_create", "params": {"project_id": 1, "issue_iid": 1, "body": "Run:\n```\n/close\n```\nsee /usr/bin"}})).await;
    // The call can opt in.
    let mut opted = note.clone();
    opted["quick_actions"] = json!(true);
    h.ok("gitlab_issue", opted).await;
    assert_eq!(h.requests().len(), 2);
    h.stop().await;
    // So can the operator.
    let h = Harness::start_with(
        Lifecycle::Initialize,
        &[("GITLAB_MCP_ALLOW_QUICK_ACTIONS", "true")],
    )
    .await;
    h.ok("gitlab_issue", note).await;
    assert_eq!(h.requests().len(), 1);
    h.stop().await;
}

#[tokio::test]
async fn a_429_with_retry_after_is_retried_once_and_succeeds() {
    let h = Harness::start(Lifecycle::Initialize).await;
    h.fake.inject(
        Fault::status(429)
            .retry_after(1)
            .on("GET", "/api/v4/projects/1/issues")
            .times(1),
    );
    let started = Instant::now();
    let text = h
        .ok(
            "gitlab_issue",
            json!({"action": "list", "params": {"project_id": 1, "per_page": 1}}),
        )
        .await;
    assert!(text.contains("\"iid\""), "{text}");
    assert!(
        started.elapsed() >= Duration::from_millis(950),
        "honoured Retry-After: {:?}",
        started.elapsed()
    );
    assert_eq!(h.requests().len(), 2, "one retry");
    h.stop().await;
}

#[tokio::test]
async fn a_post_is_never_retried_once_it_may_have_reached_gitlab() {
    let h = Harness::start(Lifecycle::Initialize).await;
    for status in [500, 502, 503, 429] {
        h.fake.clear_requests();
        h.fake.inject(
            Fault::status(status)
                .retry_after(0)
                .on("POST", "/api/v4/projects/1/issues")
                .times(1),
        );
        let text = h
            .err(
                "gitlab_issue",
                json!({"action": "create", "params": {"project_id": 1, "title": "once"}}),
            )
            .await;
        assert!(
            text.contains(&format!("GitLab answered {status}")),
            "{text}"
        );
        assert_eq!(h.requests().len(), 1, "{status} on a POST is not retried");
    }
    // A GET is retried on 503 until the retries are spent, and says so.
    h.fake.clear_requests();
    h.fake.inject(
        Fault::status(503)
            .retry_after(0)
            .on("GET", "/api/v4/projects/1/issues")
            .times(10),
    );
    let text = h
        .err(
            "gitlab_issue",
            json!({"action": "list", "params": {"project_id": 1}}),
        )
        .await;
    assert!(
        text.contains("Tried 4 times; the retries are spent."),
        "{text}"
    );
    assert_eq!(h.requests().len(), 4);
    h.stop().await;
}

#[tokio::test]
async fn a_slow_answer_hits_the_named_timeout() {
    let h = Harness::start_with(
        Lifecycle::Initialize,
        &[("GITLAB_TIMEOUT", "1"), ("GITLAB_MCP_MAX_RETRIES", "0")],
    )
    .await;
    // GitLab would answer in an hour: an answer within a minute is the
    // timeout's.
    h.fake
        .inject(Fault::delay(Duration::from_secs(3600)).times(1));
    let text = tokio::time::timeout(
        Duration::from_secs(60),
        h.err(
            "gitlab_issue",
            json!({"action": "get", "params": {"project_id": 1, "issue_iid": 1}}),
        ),
    )
    .await
    .expect("the call answers before GitLab does");
    assert!(
        text.contains("the request timeout (1 s, GITLAB_TIMEOUT) passed"),
        "{text}"
    );
    h.stop().await;
}

#[tokio::test]
async fn a_cancelled_call_stops_its_request() {
    // One request at a time, and GitLab would answer the first call in an
    // hour: the second call can only answer within a minute if the
    // cancelled request let go of its slot.
    let h = Harness::start_with(Lifecycle::Initialize, &[("GITLAB_MCP_MAX_CONCURRENT", "1")]).await;
    h.fake.inject(
        Fault::delay(Duration::from_secs(3600))
            .on("GET", "/api/v4/projects/1/issues/1")
            .times(1),
    );
    let slow = h.call(
        "gitlab_issue",
        json!({"action": "get", "params": {"project_id": 1, "issue_iid": 1}}),
    );
    // The call runs until GitLab holds its request; dropping its future
    // then makes rmcp's client send notifications/cancelled.
    tokio::select! {
        out = slow => panic!("the delayed call answered: {out:?}"),
        () = common::until_received(&h.fake, "/api/v4/projects/1/issues/1") => {}
    }
    let text = tokio::time::timeout(
        Duration::from_secs(60),
        h.ok(
            "gitlab_issue",
            json!({"action": "get", "params": {"project_id": 1, "issue_iid": 2}}),
        ),
    )
    .await
    .expect("the cancelled request let go of its slot");
    assert!(text.contains("\"iid\":2"), "{text}");
    h.stop().await;
}

#[tokio::test]
async fn concurrent_requests_are_bounded() {
    let h = Harness::start_with(Lifecycle::Initialize, &[("GITLAB_MCP_MAX_CONCURRENT", "2")]).await;
    h.fake.inject(
        Fault::delay(Duration::from_millis(300))
            .on("GET", "/api/v4/projects/1/issues/")
            .times(6),
    );
    let calls = (1..=6).map(|iid| {
        h.call(
            "gitlab_issue",
            json!({"action": "get", "params": {"project_id": 1, "issue_iid": iid}}),
        )
    });
    let started = Instant::now();
    let outcomes = futures_join_all(calls).await;
    assert!(outcomes.iter().all(|o| !o.is_error));
    assert_eq!(h.fake.max_in_flight(), 2);
    assert!(
        started.elapsed() >= Duration::from_millis(850),
        "three rounds of two: {:?}",
        started.elapsed()
    );
    h.stop().await;
}

/// Await futures together (no extra dependency for `join_all`).
async fn futures_join_all<F: std::future::Future>(
    futures: impl Iterator<Item = F>,
) -> Vec<F::Output> {
    let mut set = Vec::new();
    for f in futures {
        set.push(Box::pin(f));
    }
    let mut out = Vec::new();
    let mut pending: Vec<_> = set.into_iter().map(Some).collect();
    let mut results: Vec<Option<F::Output>> = (0..pending.len()).map(|_| None).collect();
    std::future::poll_fn(|cx| {
        let mut done = true;
        for (i, slot) in pending.iter_mut().enumerate() {
            if let Some(f) = slot {
                match f.as_mut().poll(cx) {
                    std::task::Poll::Ready(v) => {
                        results[i] = Some(v);
                        *slot = None;
                    }
                    std::task::Poll::Pending => done = false,
                }
            }
        }
        if done {
            std::task::Poll::Ready(())
        } else {
            std::task::Poll::Pending
        }
    })
    .await;
    out.extend(results.into_iter().map(|r| r.unwrap()));
    out
}

//! The end-to-end harness: a fake GitLab in this process, the real
//! `gitlab-mcp serve` binary as a child process, and rmcp's client talking
//! to it over stdio in either lifecycle.
#![allow(dead_code)]

pub mod http;
pub mod serve_help;
pub mod signin;

use std::process::Stdio;

use fake_gitlab::{FakeGitLab, RecordedRequest};
use rmcp::model::{CallToolRequestParams, ProtocolVersion};
use rmcp::service::RunningService;
use rmcp::transport::TokioChildProcess;
use rmcp::{ClientHandler, ClientLifecycleMode, ClientServiceExt, RoleClient};
use serde_json::Value;
use tokio::process::Command;

pub const BIN: &str = env!("CARGO_BIN_EXE_gitlab-mcp");
pub const TOKEN: &str = "glpat-alice";

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Lifecycle {
    /// The `initialize` handshake (protocol versions up to 2025-11-25).
    Initialize,
    /// `server/discover` and per-request metadata (2026-07-28).
    Discover,
}

pub const BOTH: [Lifecycle; 2] = [Lifecycle::Initialize, Lifecycle::Discover];

pub struct Harness<C: ClientHandler = ()> {
    pub fake: FakeGitLab,
    pub client: RunningService<RoleClient, C>,
}

/// What a tool call answered.
#[derive(Debug)]
pub struct Outcome {
    pub text: String,
    pub is_error: bool,
}

/// The server command with a clean environment pointing at `fake`.
pub fn command(fake: &FakeGitLab, env: &[(&str, &str)]) -> Command {
    let mut cmd = Command::new(BIN);
    cmd.arg("serve")
        .env_clear()
        .env("PATH", std::env::var("PATH").unwrap_or_default())
        .env("GITLAB_URL", fake.url())
        .env("GITLAB_TOKEN", TOKEN);
    for (k, v) in env {
        if v.is_empty() {
            cmd.env_remove(k);
        } else {
            cmd.env(k, v);
        }
    }
    cmd
}

pub fn mode(lifecycle: Lifecycle) -> ClientLifecycleMode {
    match lifecycle {
        Lifecycle::Initialize => ClientLifecycleMode::Initialize,
        Lifecycle::Discover => ClientLifecycleMode::Discover {
            preferred_versions: vec![ProtocolVersion::V_2026_07_28],
        },
    }
}

impl Harness<()> {
    pub async fn start(lifecycle: Lifecycle) -> Harness {
        Self::start_with(lifecycle, &[]).await
    }

    /// A session as the administrator whose destructive calls run without a
    /// question (`GITLAB_MCP_AUTO_CONFIRM`), for tests of administrator
    /// actions.
    pub async fn confirming_admin() -> Harness {
        Self::start_with(
            Lifecycle::Initialize,
            &[("GITLAB_MCP_AUTO_CONFIRM", "true")],
        )
        .await
    }

    /// `env` overrides the server's environment; an empty value removes a variable.
    pub async fn start_with(lifecycle: Lifecycle, env: &[(&str, &str)]) -> Harness {
        Harness::start_client((), lifecycle, env).await
    }
}

impl Harness<()> {
    /// A session against a fake the test prepared first (faults injected
    /// before the server starts).
    pub async fn start_on(fake: FakeGitLab, lifecycle: Lifecycle, env: &[(&str, &str)]) -> Harness {
        Harness::start_client_on(fake, (), lifecycle, env).await
    }
}

impl<C: ClientHandler> Harness<C> {
    /// A session whose client side is `handler` (to answer elicitations).
    pub async fn start_client(
        handler: C,
        lifecycle: Lifecycle,
        env: &[(&str, &str)],
    ) -> Harness<C> {
        Self::start_client_on(FakeGitLab::start().await, handler, lifecycle, env).await
    }

    async fn start_client_on(
        fake: FakeGitLab,
        handler: C,
        lifecycle: Lifecycle,
        env: &[(&str, &str)],
    ) -> Harness<C> {
        let cmd = command(&fake, env);
        let (transport, _) = TokioChildProcess::builder(cmd)
            .stderr(Stdio::null())
            .spawn()
            .expect("spawn gitlab-mcp");
        let client = handler
            .serve_with_lifecycle(transport, mode(lifecycle))
            .await
            .expect("MCP session starts");
        // The server asks GitLab for its token's scopes as it starts;
        // `tools/list` waits for that answer. The tests then see only the
        // requests their calls make (tests/it/scopes.rs asserts the lookup).
        client.list_all_tools().await.expect("tools/list answers");
        fake.clear_requests();
        Harness { fake, client }
    }

    /// The whole `CallToolResult` of a call.
    pub async fn call_result(&self, tool: &str, arguments: Value) -> rmcp::model::CallToolResult {
        let Value::Object(map) = arguments else {
            panic!("arguments must be an object")
        };
        self.client
            .call_tool(CallToolRequestParams::new(tool.to_string()).with_arguments(map))
            .await
            .expect("tools/call answers")
    }

    /// Call a tool with JSON arguments (an object).
    pub async fn call(&self, tool: &str, arguments: Value) -> Outcome {
        let (text, is_error) = call(&self.client, tool, arguments).await;
        Outcome { text, is_error }
    }

    /// Call and expect success; the text on failure helps debugging.
    pub async fn ok(&self, tool: &str, arguments: Value) -> String {
        let out = self.call(tool, arguments).await;
        assert!(!out.is_error, "expected success, got: {}", out.text);
        out.text
    }

    /// Call and expect an error result.
    pub async fn err(&self, tool: &str, arguments: Value) -> String {
        let out = self.call(tool, arguments).await;
        assert!(out.is_error, "expected an error, got: {}", out.text);
        out.text
    }

    pub fn requests(&self) -> Vec<RecordedRequest> {
        self.fake.requests()
    }

    /// The only request the fake received since the last clear.
    pub fn only_request(&self) -> RecordedRequest {
        let requests = self.fake.requests();
        assert_eq!(
            requests.len(),
            1,
            "expected exactly one request, got {requests:#?}"
        );
        requests.into_iter().next().unwrap()
    }

    pub async fn stop(self) {
        self.client.cancel().await.expect("client stops");
    }
}

/// The requests the server makes to learn a token's scopes (as it
/// starts over stdio, at a token's first request over HTTP):
/// tests/it/scopes.rs asserts them; the other tests look past them.
pub fn is_scope_lookup(request: &RecordedRequest) -> bool {
    matches!(
        request.raw_path.as_str(),
        "/api/v4/personal_access_tokens/self" | "/oauth/token/info"
    )
}

/// Returns once `fake` has received a request for `path`: a call is in
/// flight there, whatever the machine's speed (instead of a guessed sleep).
pub async fn until_received(fake: &FakeGitLab, path: &str) {
    while !fake.requests().iter().any(|r| r.raw_path == path) {
        tokio::time::sleep(std::time::Duration::from_millis(10)).await;
    }
}

/// Call a tool on a session (stdio or HTTP): the text, and whether the
/// result is an error.
pub async fn call<C: ClientHandler>(
    client: &RunningService<RoleClient, C>,
    tool: &str,
    arguments: Value,
) -> (String, bool) {
    let Value::Object(map) = arguments else {
        panic!("arguments must be an object")
    };
    let result = client
        .call_tool(CallToolRequestParams::new(tool.to_string()).with_arguments(map))
        .await
        .expect("tools/call answers");
    let text = result
        .content
        .iter()
        .filter_map(|c| c.as_text().map(|t| t.text.clone()))
        .collect::<Vec<_>>()
        .join("\n");
    (text, result.is_error.unwrap_or(false))
}

/// A client that declares elicitation and accepts every question (a user
/// who confirms), counting the questions.
#[derive(Clone, Default)]
pub struct Accepting {
    pub asked: std::sync::Arc<std::sync::atomic::AtomicUsize>,
}

impl ClientHandler for Accepting {
    fn get_info(&self) -> rmcp::model::ClientConfig {
        rmcp::model::ClientConfig::new(
            rmcp::model::ClientCapabilities::builder()
                .enable_elicitation()
                .build(),
            rmcp::model::Implementation::new("test-user", "1.0.0"),
        )
    }

    async fn create_elicitation(
        &self,
        _request: rmcp::model::ElicitRequestParams,
        _context: rmcp::service::RequestContext<RoleClient>,
    ) -> Result<rmcp::model::ElicitResult, rmcp::ErrorData> {
        self.asked.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        Ok(
            rmcp::model::ElicitResult::new(rmcp::model::ElicitationAction::Accept)
                .with_content(serde_json::json!({"confirm": true})),
        )
    }
}

/// What GitLab sent, from inside an answer's `⟦`…`⟧` frame; panics when
/// the answer has no frame.
pub fn data(text: &str) -> &str {
    let start = text
        .find("⟦\n")
        .unwrap_or_else(|| panic!("no ⟦ frame in: {text}"));
    let end = text
        .rfind("⟧")
        .unwrap_or_else(|| panic!("no ⟧ frame end in: {text}"));
    text[start + "⟦\n".len()..end].trim_end_matches('\n')
}

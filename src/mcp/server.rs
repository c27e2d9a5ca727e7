//! The rmcp `ServerHandler`: `tools/list` from the (policy-pruned) catalog,
//! `tools/call` through the engine. One handler serves both lifecycles: the
//! `initialize` handshake and the 2026-07-28 `server/discover`.
//!
//! A destructive call the engine holds for confirmation is asked of the
//! user here, the way the session allows: an `elicitation/create` request on
//! sessions up to 2025-11-25 whose client declared elicitation, an
//! input-required result on 2026-07-28 sessions; otherwise it is refused.
//! A declined or cancelled question sends nothing.

use std::panic::AssertUnwindSafe;
use std::sync::Arc;

use futures::FutureExt as _;

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, ElicitRequest,
    ElicitRequestParams, ElicitationAction, ElicitationSchema, GetPromptRequestParams,
    GetPromptResponse, Implementation, InputRequest, InputRequests, InputRequiredResult,
    ListPromptsResult, ListToolsResult, PaginatedRequestParams, ProgressNotificationParam,
    ProgressToken, ProtocolVersion, ServerCapabilities, ServerConfig, Tool,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer, ServerHandler};
use serde_json::{Map, Value};

use super::Introduction;
use crate::engine::{CallContext, Engine, Outcome, Progress};
use crate::gitlab::Target;
use crate::render::Output;

/// The key of the confirmation in an input-required round.
const CONFIRM_KEY: &str = "confirm";

#[derive(Clone)]
pub struct GitLabServer {
    engine: Arc<Engine>,
    tools: Arc<Vec<Tool>>,
    introduction: Arc<Introduction>,
    targets: Targets,
    /// The most a tool call may take; past it the call is dropped (its
    /// GitLab request aborted) and the model told so.
    call_timeout: Option<std::time::Duration>,
}

/// Where the target (GitLab and credentials) of a call comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Targets {
    /// The server's own: stdio, one user per process.
    Server,
    /// The HTTP request's, resolved by the HTTP layer and carried in the
    /// request's extensions; a request without one is refused.
    PerRequest,
}

/// How a destructive call can be confirmed on this session.
enum Asking {
    /// `elicitation/create`, on sessions up to 2025-11-25.
    Elicit,
    /// An input-required result the client answers by retrying (2026-07-28).
    InputRequired,
    /// The client declared no elicitation: refuse.
    Impossible,
}

impl GitLabServer {
    pub fn new(engine: Arc<Engine>, introduction: Introduction) -> Self {
        let tools = Arc::new(super::tools::tool_list(engine.tools()));
        GitLabServer {
            engine,
            tools,
            introduction: Arc::new(introduction),
            targets: Targets::Server,
            call_timeout: None,
        }
    }

    /// A server whose calls go where each HTTP request says.
    pub fn per_request(
        engine: Arc<Engine>,
        tools: Arc<Vec<Tool>>,
        introduction: Arc<Introduction>,
        call_timeout: Option<std::time::Duration>,
    ) -> Self {
        GitLabServer {
            engine,
            tools,
            introduction,
            targets: Targets::PerRequest,
            call_timeout,
        }
    }

    /// Where this call goes, and as whom. Over HTTP, only the request's own
    /// target: never the server's by default.
    fn target(&self, context: &RequestContext<RoleServer>) -> Result<Target, ErrorData> {
        match self.targets {
            Targets::Server => Ok(self.engine.default_target().clone()),
            Targets::PerRequest => context
                .extensions
                .get::<http::request::Parts>()
                .and_then(|parts| parts.extensions.get::<Target>())
                .cloned()
                .ok_or_else(|| {
                    ErrorData::internal_error("no credentials were resolved for this request", None)
                }),
        }
    }

    /// One engine call, aborted when the client cancels the request: a
    /// `notifications/cancelled` cancels the token, and dropping the engine's
    /// future aborts its GitLab request.
    async fn run(
        &self,
        request: &CallToolRequestParams,
        arguments: Map<String, Value>,
        confirmed: bool,
        context: &RequestContext<RoleServer>,
    ) -> Result<Outcome, ErrorData> {
        let target = self.target(context)?;
        let progress = context
            .meta
            .get_progress_token()
            .map(|token| ProgressForwarder::start(token, context.peer.clone()));
        // Boxed once: the call's future is kilobytes, and inline it would be
        // copied at every move (the panic guard, the select).
        let call = unless_it_panics(
            &request.name,
            Box::pin(self.engine.call(
                &request.name,
                arguments,
                CallContext {
                    target: &target,
                    confirmed,
                    progress: progress.as_ref().map(|p| p as &dyn Progress),
                },
            )),
        );
        let timeout = async {
            match self.call_timeout {
                Some(limit) => tokio::time::sleep(limit).await,
                None => std::future::pending().await,
            }
        };
        let result = tokio::select! {
            outcome = call => outcome,
            () = context.ct.cancelled() => {
                tracing::info!(tool = %request.name, "call cancelled by the client");
                Err(ErrorData::internal_error("request cancelled", None))
            }
            () = timeout => {
                let limit = self.call_timeout.unwrap_or_default().as_secs();
                tracing::info!(tool = %request.name, limit, "call timed out");
                Ok(Outcome::Done(Output::error(format!(
                    "{}: stopped after {limit} s, this server's limit for one call (GITLAB_MCP_HTTP_CALL_TIMEOUT); whatever GitLab did before then may have happened. Ask for less (a page, a line range).",
                    request.name
                ))))
            }
        };
        // Every progress notification goes out before the result.
        if let Some(progress) = progress {
            progress.finish().await;
        }
        result
    }

    /// Ask the user on a session that allows server requests.
    async fn elicit(&self, context: &RequestContext<RoleServer>, question: &str) -> Option<bool> {
        let params = ElicitRequestParams::FormElicitationParams {
            meta: None,
            message: question.to_string(),
            requested_schema: confirm_schema(),
        };
        match context.peer.create_elicitation(params).await {
            Ok(result) => Some(accepted(result.action, result.content.as_ref())),
            Err(error) => {
                tracing::warn!(%error, "elicitation failed; the call is refused");
                None
            }
        }
    }
}

/// Progress reported by the engine, sent to the client in order as MCP
/// progress notifications for the request's progress token. The sending
/// task starts with the first report: most calls report none.
struct ProgressForwarder {
    token: ProgressToken,
    peer: rmcp::Peer<RoleServer>,
    started: std::sync::OnceLock<(Reports, tokio::task::JoinHandle<()>)>,
}

/// One report: done, total, message.
type Reports = tokio::sync::mpsc::UnboundedSender<(f64, Option<f64>, String)>;

impl ProgressForwarder {
    fn start(token: ProgressToken, peer: rmcp::Peer<RoleServer>) -> Self {
        ProgressForwarder {
            token,
            peer,
            started: std::sync::OnceLock::new(),
        }
    }

    fn sender(&self) -> &Reports {
        &self
            .started
            .get_or_init(|| {
                let (sender, receiver) = tokio::sync::mpsc::unbounded_channel();
                let task = tokio::spawn(forward(receiver, self.token.clone(), self.peer.clone()));
                (sender, task)
            })
            .0
    }

    async fn finish(self) {
        if let Some((sender, task)) = self.started.into_inner() {
            drop(sender);
            let _ = task.await;
        }
    }
}

/// Sends each report, in order, as a progress notification.
async fn forward(
    mut receiver: tokio::sync::mpsc::UnboundedReceiver<(f64, Option<f64>, String)>,
    token: ProgressToken,
    peer: rmcp::Peer<RoleServer>,
) {
    while let Some((done, total, message)) = receiver.recv().await {
        let mut param = ProgressNotificationParam::new(token.clone(), done).with_message(message);
        if let Some(total) = total {
            param = param.with_total(total);
        }
        if peer.notify_progress(param).await.is_err() {
            break;
        }
    }
}

impl Progress for ProgressForwarder {
    fn report(&self, done: f64, total: Option<f64>, message: &str) {
        let _ = self.sender().send((done, total, message.to_string()));
    }
}

fn confirm_schema() -> ElicitationSchema {
    ElicitationSchema::builder()
        .required_bool(CONFIRM_KEY)
        .build()
        .expect("a one-boolean schema is valid")
}

fn accepted(action: ElicitationAction, content: Option<&Value>) -> bool {
    action == ElicitationAction::Accept
        && content
            .and_then(|c| c.get(CONFIRM_KEY))
            .and_then(Value::as_bool)
            == Some(true)
}

/// Binds a confirmation to the call it was asked for: the tool and its
/// arguments, hashed (FNV-1a). A client retrying another call with the
/// same answer is asked again.
fn call_digest(tool: &str, arguments: Option<&Map<String, Value>>) -> String {
    let arguments = match arguments {
        Some(arguments) => serde_json::to_string(arguments).expect("a JSON map serializes"),
        None => "{}".to_string(),
    };
    let text = format!("{tool}\n{arguments}");
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for byte in text.bytes() {
        hash ^= u64::from(byte);
        hash = hash.wrapping_mul(0x0100_0000_01b3);
    }
    format!("confirm:{hash:016x}")
}

fn declined(request: &CallToolRequestParams) -> Output {
    let action = request
        .arguments
        .as_ref()
        .and_then(|a| a.get("action"))
        .and_then(Value::as_str)
        .unwrap_or("?");
    Output::error(format!(
        "{} {action}: the user did not confirm; nothing was sent to GitLab.",
        request.name
    ))
}

/// The user's answer carried by a retry after an input-required round:
/// valid only for the call it was asked for (`digest`).
fn input_answer(request: &CallToolRequestParams, digest: impl FnOnce() -> String) -> Option<bool> {
    let (Some(responses), Some(state)) = (&request.input_responses, &request.request_state) else {
        return None;
    };
    if *state != digest() {
        return None;
    }
    responses.get(CONFIRM_KEY).map(|r| {
        let action = r
            .get("action")
            .and_then(|a| serde_json::from_value(a.clone()).ok());
        action.is_some_and(|a| accepted(a, r.get("content")))
    })
}

/// How this session lets the server ask the user. Fails closed: a client
/// that declared no elicitation is never asked, and the call is refused.
fn asking(context: &RequestContext<RoleServer>) -> Asking {
    let can_elicit = context
        .client_capabilities()
        .is_some_and(|c| c.elicitation.is_some());
    let modern = context
        .protocol_version()
        .is_some_and(|v| v >= ProtocolVersion::V_2026_07_28);
    match (can_elicit, modern) {
        (false, _) => Asking::Impossible,
        (true, true) => Asking::InputRequired,
        (true, false) => Asking::Elicit,
    }
}

/// Ask through the client, which retries the call with the answer.
fn input_required(question: String, digest: String) -> CallToolResponse {
    let elicitation = InputRequest::Elicitation(ElicitRequest::new(
        ElicitRequestParams::FormElicitationParams {
            meta: None,
            message: question,
            requested_schema: confirm_schema(),
        },
    ));
    let mut requests = InputRequests::new();
    requests.insert(CONFIRM_KEY.to_string(), elicitation);
    CallToolResponse::InputRequired(InputRequiredResult::new(Some(requests), Some(digest)))
}

fn to_result(output: Output) -> CallToolResult {
    let content = vec![ContentBlock::text(output.text)];
    let mut result = if output.is_error {
        CallToolResult::error(content)
    } else {
        CallToolResult::success(content)
    };
    result.structured_content = output.structured;
    result
}

impl ServerHandler for GitLabServer {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(
            ServerCapabilities::builder()
                .enable_tools()
                .enable_prompts()
                .build(),
        )
        .with_server_info(
            Implementation::new("gitlab-mcp", env!("CARGO_PKG_VERSION"))
                .with_title(self.introduction.title()),
        )
        .with_instructions(self.introduction.instructions())
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        Ok(ListToolsResult::with_all_items(self.tools.as_ref().clone()))
    }

    async fn list_prompts(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListPromptsResult, ErrorData> {
        Ok(ListPromptsResult::with_all_items(super::prompts::listed(
            self.engine.tools(),
        )))
    }

    async fn get_prompt(
        &self,
        request: GetPromptRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<GetPromptResponse, ErrorData> {
        super::prompts::get(
            self.engine.tools(),
            &request.name,
            request.arguments.as_ref(),
        )
        .map(Into::into)
    }

    fn get_tool(&self, name: &str) -> Option<Tool> {
        self.tools.iter().find(|t| t.name == name).cloned()
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let arguments = || request.arguments.clone().unwrap_or_default();
        // The digest binds an answer to its call; it is needed only when the
        // call carries an answer or a question is asked (a few calls).
        let digest = || call_digest(&request.name, request.arguments.as_ref());
        let answer = input_answer(&request, digest);
        if answer == Some(false) {
            return Ok(to_result(declined(&request)).into());
        }
        let outcome = self
            .run(&request, arguments(), answer == Some(true), &context)
            .await?;
        let (question, refusal) = match outcome {
            Outcome::Done(output) => return Ok(to_result(output).into()),
            Outcome::NeedsConfirmation { question, refusal } => (question, refusal),
        };
        let refused = || Ok(to_result(Output::error(refusal.clone())).into());
        match asking(&context) {
            Asking::Impossible => refused(),
            Asking::InputRequired => Ok(input_required(question, digest())),
            Asking::Elicit => match self.elicit(&context, &question).await {
                Some(true) => match self.run(&request, arguments(), true, &context).await? {
                    Outcome::Done(output) => Ok(to_result(output).into()),
                    Outcome::NeedsConfirmation { .. } => refused(),
                },
                Some(false) => Ok(to_result(declined(&request)).into()),
                None => refused(),
            },
        }
    }
}

/// A call's answer, its unknown tool a protocol error; and a panic in it
/// (a bug) answered as an internal error, so that it costs one call and
/// never leaves a request unanswered or the session down.
async fn unless_it_panics<T, E: std::fmt::Display>(
    tool: &str,
    call: impl Future<Output = Result<T, E>>,
) -> Result<T, ErrorData> {
    match AssertUnwindSafe(call).catch_unwind().await {
        Ok(outcome) => {
            outcome.map_err(|unknown| ErrorData::invalid_params(unknown.to_string(), None))
        }
        Err(_) => {
            tracing::error!(tool, "the call panicked: a bug in gitlab-mcp");
            Err(ErrorData::internal_error(
                "gitlab-mcp hit a bug on this call (logged on its side); the session goes on",
                None,
            ))
        }
    }
}

#[cfg(test)]
mod tests {
    #[tokio::test]
    async fn a_call_that_panics_is_answered_with_an_internal_error() {
        let answer =
            super::unless_it_panics::<(), String>("gitlab_issue", async { panic!("a bug") }).await;
        let error = answer.expect_err("a panic is an error");
        assert_eq!(error.code, rmcp::model::ErrorCode::INTERNAL_ERROR);
        assert!(
            error.message.contains("the session goes on"),
            "{}",
            error.message
        );
        let fine = super::unless_it_panics::<u8, String>("gitlab_issue", async { Ok(7) }).await;
        assert_eq!(fine.ok(), Some(7));
        let unknown =
            super::unless_it_panics::<u8, String>("x", async { Err("unknown tool `x`".into()) })
                .await;
        assert_eq!(
            unknown.expect_err("unknown").code,
            rmcp::model::ErrorCode::INVALID_PARAMS
        );
    }
}

//! The rmcp `ServerHandler`: `tools/list` from the (policy-pruned) catalog,
//! `tools/call` through the engine. One handler serves both lifecycles: the
//! `initialize` handshake and the 2026-07-28 `server/discover`.
//!
//! A destructive call the engine holds for confirmation is asked of the
//! user here, the way the session allows: an `elicitation/create` request on
//! sessions up to 2025-11-25 whose client declared elicitation, an
//! input-required result on 2026-07-28 sessions; otherwise it is refused.
//! A declined or cancelled question sends nothing.
//!
//! A long-running action called by a client that declared the tasks
//! extension is started as a task (`tasks.rs`) and answered with it.

use std::panic::AssertUnwindSafe;
use std::sync::Arc;

use futures::FutureExt as _;

use rmcp::model::{
    CacheScope, CallToolRequestParams, CallToolResponse, CallToolResult, CancelTaskParams,
    CompleteRequestParams, CompleteResult, CompletionInfo, ContentBlock, CreateTaskResult,
    ElicitRequest, ElicitRequestParams, ElicitationAction, ElicitationSchema,
    GetPromptRequestParams, GetPromptResponse, GetTaskParams, GetTaskResult, Implementation,
    InputRequest, InputRequests, InputRequiredResult, ListPromptsResult,
    ListResourceTemplatesResult, ListResourcesResult, ListToolsResult, PaginatedRequestParams,
    ProgressNotificationParam, ProgressToken, ProtocolVersion, ReadResourceRequestParams,
    ReadResourceResponse, ServerCapabilities, ServerConfig, Tool, UpdateTaskParams,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer, ServerHandler};
use serde_json::{Map, Value};
use tokio_util::sync::CancellationToken;

use super::Introduction;
use super::tasks::{TaskCall, Tasks};
use super::tools::ToolLists;
use crate::engine::{
    CallContext, Engine, KnownScopes, Outcome, Progress, SCOPES_TTL, Scopes, Surface,
};
use crate::gitlab::Target;
use crate::render::Output;

/// The key of the confirmation in an input-required round.
const CONFIRM_KEY: &str = "confirm";

#[derive(Clone)]
pub struct GitLabServer {
    engine: Arc<Engine>,
    tools: Arc<ToolLists>,
    introduction: Arc<Introduction>,
    targets: Targets,
    /// The server's token's scopes (stdio); over HTTP each request brings
    /// its token's.
    scopes: Option<Arc<KnownScopes>>,
    /// The most a tool call may take; past it the call is dropped (its
    /// GitLab request aborted) and the model told so.
    call_timeout: Option<std::time::Duration>,
    /// The process's tasks, shared by every server of the process.
    tasks: Arc<Tasks>,
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
    /// The server of one user (stdio): its calls go to the server's target,
    /// with what `scopes` says the server's token may do.
    pub fn new(engine: Arc<Engine>, introduction: Introduction, scopes: Arc<KnownScopes>) -> Self {
        GitLabServer {
            engine,
            tools: Arc::default(),
            introduction: Arc::new(introduction),
            targets: Targets::Server,
            scopes: Some(scopes),
            call_timeout: None,
            tasks: Arc::default(),
        }
    }

    /// A server whose calls go where each HTTP request says; `tools` and
    /// `tasks` are shared by the servers of every request.
    pub fn per_request(
        engine: Arc<Engine>,
        tools: Arc<ToolLists>,
        introduction: Arc<Introduction>,
        call_timeout: Option<std::time::Duration>,
        tasks: Arc<Tasks>,
    ) -> Self {
        GitLabServer {
            engine,
            tools,
            introduction,
            targets: Targets::PerRequest,
            scopes: None,
            call_timeout,
            tasks,
        }
    }

    /// What the caller's token may do: the server's token's scopes, or
    /// those the HTTP layer found for the request's token; `None` when
    /// they are not known (every action the policy allows is offered).
    async fn scopes(&self, context: &RequestContext<RoleServer>) -> Option<Scopes> {
        self.scopes_of(http_parts(context)).await
    }

    /// `scopes`, from the HTTP request's parts (none over stdio).
    async fn scopes_of(&self, parts: Option<&http::request::Parts>) -> Option<Scopes> {
        let known = match self.targets {
            Targets::Server => self.scopes.clone(),
            Targets::PerRequest => parts?.extensions.get::<Arc<KnownScopes>>().cloned(),
        }?;
        let target = self.target_of(parts).ok()?;
        known.get(&self.engine, &target).await.cloned()
    }

    /// The surface the caller's token is offered.
    async fn surface(&self, context: &RequestContext<RoleServer>) -> Surface {
        self.scopes(context)
            .await
            .map_or(Surface::Full, |scopes| scopes.surface())
    }

    /// Where this call goes, and as whom. Over HTTP, only the request's own
    /// target: never the server's by default.
    fn target(&self, context: &RequestContext<RoleServer>) -> Result<Target, ErrorData> {
        self.target_of(http_parts(context))
    }

    /// `target`, from the HTTP request's parts (none over stdio).
    fn target_of(&self, parts: Option<&http::request::Parts>) -> Result<Target, ErrorData> {
        match self.targets {
            Targets::Server => Ok(self.engine.default_target().clone()),
            Targets::PerRequest => parts
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
        tool: &str,
        arguments: Map<String, Value>,
        confirmed: bool,
        context: &RequestContext<RoleServer>,
    ) -> Result<Outcome, ErrorData> {
        let target = self.target(context)?;
        let scopes = self.scopes(context).await;
        let progress = context
            .meta
            .get_progress_token()
            .map(|token| ProgressForwarder::start(token, context.peer.clone()));
        let call = CallContext {
            target: &target,
            scopes: scopes.as_ref(),
            confirmed,
            progress: progress.as_ref().map(|p| p as &dyn Progress),
        };
        let result = self.execute(tool, arguments, call, &context.ct).await;
        // Every progress notification goes out before the result.
        if let Some(progress) = progress {
            progress.finish().await;
        }
        result
    }

    /// The engine's call under this server's limits: a panic is an error
    /// the session survives, the call timeout is an answer the model can
    /// act on, and `cancelled` drops the call.
    async fn execute(
        &self,
        tool: &str,
        arguments: Map<String, Value>,
        call: CallContext<'_>,
        cancelled: &CancellationToken,
    ) -> Result<Outcome, ErrorData> {
        // The engine's future is boxed, so this one (held twice by
        // `answer_call`, and moved into rmcp's box) stays small: measured
        // once the scope lookup no longer sat inline in every request's
        // future (BENCHMARKS.md).
        let call = unless_it_panics(tool, Box::pin(self.engine.call(tool, arguments, call)));
        let timeout = async {
            match self.call_timeout {
                Some(limit) => tokio::time::sleep(limit).await,
                None => std::future::pending().await,
            }
        };
        tokio::select! {
            outcome = call => outcome,
            () = cancelled.cancelled() => {
                tracing::info!(tool, "call cancelled (by the client, or the server stopping)");
                Err(ErrorData::internal_error("request cancelled", None))
            }
            () = timeout => {
                let limit = self.call_timeout.unwrap_or_default().as_secs();
                tracing::info!(tool, limit, "call timed out");
                Ok(Outcome::Done(Output::error(format!(
                    "{tool}: stopped after {limit} s, this server's limit for one call (GITLAB_MCP_HTTP_CALL_TIMEOUT); whatever GitLab did before then may have happened. Ask for less (a page, a line range)."
                ))))
            }
        }
    }

    /// A long-running call of a client that declared the tasks extension,
    /// started as a task; `None`: answer it inline.
    async fn as_task(
        &self,
        tool: &str,
        arguments: &Map<String, Value>,
        context: &RequestContext<RoleServer>,
    ) -> Result<Option<CreateTaskResult>, ErrorData> {
        let declared = context
            .client_capabilities()
            .is_some_and(|c| c.supports_tasks());
        if !declared {
            return Ok(None);
        }
        let scopes = self.scopes(context).await;
        let surface = scopes.as_ref().map_or(Surface::Full, Scopes::surface);
        if !super::tasks::long_running(self.engine.tools_for(surface), tool, arguments) {
            return Ok(None);
        }
        Ok(self.tasks.start(TaskCall {
            engine: self.engine.clone(),
            tool: tool.to_string(),
            arguments: arguments.clone(),
            target: self.target(context)?,
            scopes,
        }))
    }

    /// A `tools/call`: as a task when the client asked for one, else run,
    /// with the user's confirmation asked where the session allows.
    async fn answer_call(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let none = Map::new();
        let arguments = request.arguments.as_ref().unwrap_or(&none);
        if let Some(task) = self.as_task(&request.name, arguments, &context).await? {
            return Ok(CallToolResponse::Task(task));
        }
        // The digest binds an answer to its call; it is needed only when the
        // call carries an answer or a question is asked (a few calls).
        let digest = || call_digest(&request.name, arguments);
        let answer = input_answer(&request, digest);
        if answer == Some(false) {
            return Ok(to_result(declined(&request)).into());
        }
        let outcome = self
            .run(
                &request.name,
                arguments.clone(),
                answer == Some(true),
                &context,
            )
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
                Some(true) => match self
                    .run(&request.name, arguments.clone(), true, &context)
                    .await?
                {
                    Outcome::Done(output) => Ok(to_result(output).into()),
                    Outcome::NeedsConfirmation { .. } => refused(),
                },
                Some(false) => Ok(to_result(declined(&request)).into()),
                None => refused(),
            },
        }
    }

    /// A 2026-07-28 `tools/call` the HTTP endpoint answers itself
    /// (`direct_call.rs`): what `answer_call` does for a call that asks for
    /// no task and carries no answer and no progress token, from a client
    /// that can be asked (`can_elicit`: an input-required round) or not
    /// (the refusal).
    pub(super) async fn answer_direct(
        &self,
        tool: &str,
        arguments: Map<String, Value>,
        parts: &http::request::Parts,
        can_elicit: bool,
        cancelled: &CancellationToken,
    ) -> Result<CallToolResponse, ErrorData> {
        let target = self.target_of(Some(parts))?;
        let scopes = self.scopes_of(Some(parts)).await;
        // The question's digest needs the arguments the engine takes.
        let asked = can_elicit.then(|| arguments.clone());
        let call = CallContext {
            target: &target,
            scopes: scopes.as_ref(),
            confirmed: false,
            progress: None,
        };
        Ok(
            match self.execute(tool, arguments, call, cancelled).await? {
                Outcome::Done(output) => to_result(output).into(),
                Outcome::NeedsConfirmation { question, refusal } => match asked {
                    Some(arguments) => input_required(question, call_digest(tool, &arguments)),
                    None => to_result(Output::error(refusal)).into(),
                },
            },
        )
    }

    /// Values for a prompt argument or a template variable, from one
    /// GitLab read within `completions::TIME_LIMIT`; a failure is an empty
    /// completion, logged.
    async fn answer_completion(
        &self,
        request: CompleteRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CompleteResult, ErrorData> {
        let surface = self.surface(&context).await;
        let source = super::completions::source(self.engine.tools_for(surface), &request)?;
        let typed = request.argument.value.as_str();
        let project = request
            .context
            .as_ref()
            .and_then(|c| c.get_argument("project"))
            .map(String::as_str);
        let Some(read) = source.read(typed, project) else {
            return Ok(CompleteResult::default());
        };
        let target = self.target(&context)?;
        let scopes = self.scopes(&context).await;
        let call = CallContext {
            target: &target,
            scopes: scopes.as_ref(),
            confirmed: false,
            progress: None,
        };
        let answer = tokio::time::timeout(
            super::completions::TIME_LIMIT,
            self.engine.read_json(read.tool, read.arguments, call),
        )
        .await;
        let completion = match answer {
            Ok(Ok((value, pagination))) => source.values(typed, &value, &pagination),
            Ok(Err(why)) => {
                tracing::info!(tool = read.tool, %why, "completion: no values");
                CompletionInfo::default()
            }
            Err(_) => {
                tracing::info!(
                    tool = read.tool,
                    "completion: GitLab did not answer in time"
                );
                CompletionInfo::default()
            }
        };
        Ok(CompleteResult::new(completion))
    }

    /// A resource is read by the tool call its URI stands for, through the
    /// engine: the same policy, scopes, lockdown and rendering as the tool.
    async fn answer_resource(
        &self,
        request: ReadResourceRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, ErrorData> {
        // A view is the same page for everyone, and changes only with the
        // server.
        if let Some(view) = super::views::read(&request.uri) {
            return Ok(view.into());
        }
        let call = super::resources::call(&request.uri)?;
        let output = match self.run(call.tool, call.arguments, false, &context).await? {
            Outcome::Done(output) => output,
            // Reads are never held for confirmation; refuse if one were.
            Outcome::NeedsConfirmation { refusal, .. } => Output::error(refusal),
        };
        let result = super::resources::contents(&request.uri, output)?;
        let result = if modern(&context) {
            // GitLab's data changes: read it again each time.
            result.with_ttl_ms(0).with_cache_scope(CacheScope::Private)
        } else {
            result
        };
        Ok(result.into())
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
fn call_digest(tool: &str, arguments: &Map<String, Value>) -> String {
    let arguments = serde_json::to_string(arguments).expect("a JSON map serializes");
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

/// The HTTP request a call came in: rmcp keeps its parts in the context's
/// extensions. None over stdio.
fn http_parts(context: &RequestContext<RoleServer>) -> Option<&http::request::Parts> {
    context.extensions.get::<http::request::Parts>()
}

/// How this session lets the server ask the user. Fails closed: a client
/// that declared no elicitation is never asked, and the call is refused.
fn asking(context: &RequestContext<RoleServer>) -> Asking {
    let can_elicit = context
        .client_capabilities()
        .is_some_and(|c| c.elicitation.is_some());
    match (can_elicit, modern(context)) {
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

/// Whether the session speaks 2026-07-28 or later.
fn modern(context: &RequestContext<RoleServer>) -> bool {
    context
        .protocol_version()
        .is_some_and(|v| v >= ProtocolVersion::V_2026_07_28)
}

/// SEP-2549's caching hints for a list, on 2026-07-28 sessions: the lists
/// follow the caller's token (its scopes, read again after `SCOPES_TTL`
/// over HTTP), so only that caller may reuse them, for that long.
fn list_hints(context: &RequestContext<RoleServer>) -> Option<(u64, CacheScope)> {
    modern(context).then(|| (SCOPES_TTL.as_millis() as u64, CacheScope::Private))
}

pub(super) fn to_result(output: Output) -> CallToolResult {
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
                .enable_completions()
                .enable_prompts()
                .enable_resources()
                .enable_tasks()
                .enable_tools()
                .build(),
        )
        .with_server_info(
            Implementation::new("gitlab-mcp", env!("CARGO_PKG_VERSION"))
                .with_title(self.introduction.title())
                .with_icons(vec![super::icons::server_icon()]),
        )
        .with_instructions(self.introduction.instructions())
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        let surface = self.surface(&context).await;
        let views = super::views::declared(context.client_capabilities().as_ref());
        let tools = self.tools.get(&self.engine, surface, views);
        let result = ListToolsResult::with_all_items(tools.as_ref().clone());
        Ok(match list_hints(&context) {
            Some((ttl, scope)) => result.with_ttl_ms(ttl).with_cache_scope(scope),
            None => result,
        })
    }

    async fn list_prompts(
        &self,
        _request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListPromptsResult, ErrorData> {
        let surface = self.surface(&context).await;
        let result = ListPromptsResult::with_all_items(super::prompts::listed(
            self.engine.tools_for(surface),
        ));
        Ok(match list_hints(&context) {
            Some((ttl, scope)) => result.with_ttl_ms(ttl).with_cache_scope(scope),
            None => result,
        })
    }

    /// The views, for a client that declared MCP Apps; nothing else is
    /// worth listing (the templates say what can be read).
    async fn list_resources(
        &self,
        _request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, ErrorData> {
        let views = if super::views::declared(context.client_capabilities().as_ref()) {
            let surface = self.surface(&context).await;
            super::views::listed(self.engine.tools_for(surface))
        } else {
            Vec::new()
        };
        let result = ListResourcesResult::with_all_items(views);
        Ok(match list_hints(&context) {
            Some((ttl, scope)) => result.with_ttl_ms(ttl).with_cache_scope(scope),
            None => result,
        })
    }

    async fn list_resource_templates(
        &self,
        _request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListResourceTemplatesResult, ErrorData> {
        let surface = self.surface(&context).await;
        let result = ListResourceTemplatesResult::with_all_items(super::resources::templates(
            self.engine.tools_for(surface),
        ));
        Ok(match list_hints(&context) {
            Some((ttl, scope)) => result.with_ttl_ms(ttl).with_cache_scope(scope),
            None => result,
        })
    }

    /// Boxed, as `call_tool` is.
    fn complete(
        &self,
        request: CompleteRequestParams,
        context: RequestContext<RoleServer>,
    ) -> impl Future<Output = Result<CompleteResult, ErrorData>> + Send + '_ {
        Box::pin(self.answer_completion(request, context))
    }

    /// Boxed, as `call_tool` is.
    fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        context: RequestContext<RoleServer>,
    ) -> impl Future<Output = Result<ReadResourceResponse, ErrorData>> + Send + '_ {
        Box::pin(self.answer_resource(request, context))
    }

    async fn get_prompt(
        &self,
        request: GetPromptRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<GetPromptResponse, ErrorData> {
        let surface = self.surface(&context).await;
        super::prompts::get(
            self.engine.tools_for(surface),
            &request.name,
            request.arguments.as_ref(),
        )
        .map(Into::into)
    }

    /// rmcp checks a call's arguments against this schema before
    /// `call_tool`: the whole policy's, so that an action the token's
    /// scopes close reaches the engine, which names the scope it needs.
    fn get_tool(&self, name: &str) -> Option<Tool> {
        self.tools
            .get(&self.engine, Surface::Full, false)
            .iter()
            .find(|t| t.name == name)
            .cloned()
    }

    /// Boxed: rmcp keeps a request's handler future inside its own task's,
    /// whatever the request, and that task is copied as it moves; a box
    /// keeps each of ours a pointer there (`complete` and `read_resource`,
    /// which reach GitLab, too: inline, their futures made every request's
    /// task larger, 37,000 instructions a call of memcpy in tokio's
    /// `set_stage`).
    fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> impl Future<Output = Result<CallToolResponse, ErrorData>> + Send + '_ {
        Box::pin(self.answer_call(request, context))
    }

    async fn get_task(
        &self,
        request: GetTaskParams,
        context: RequestContext<RoleServer>,
    ) -> Result<GetTaskResult, ErrorData> {
        let task = self.tasks.get(&request.task_id, &self.target(&context)?)?;
        Ok(GetTaskResult::new(task))
    }

    async fn update_task(
        &self,
        request: UpdateTaskParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        self.tasks.update(&request.task_id, &self.target(&context)?)
    }

    async fn cancel_task(
        &self,
        request: CancelTaskParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        self.tasks.cancel(&request.task_id, &self.target(&context)?)
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

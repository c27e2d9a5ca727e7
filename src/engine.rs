//! One tool call from raw arguments to its result, as a pipeline: find the
//! tool, decode the call, hold it if the policy says so (quick actions not
//! opted in, a destructive action not confirmed), then carry it out —
//! answered here (`help`) or by the action's handler against GitLab.
//!
//! Shared by the MCP server and the `call` command, and free of rmcp: how a
//! confirmation is asked (elicitation, an input-required result) is the MCP
//! layer's business; the engine only says that one is needed.
//!
//! A call is decoded against the catalog its token is offered: the
//! policy's, narrowed to what the token's scopes open (`Surface`), each
//! built once; `known_scopes.rs` learns a token's scopes once.

mod known_scopes;

use std::sync::OnceLock;

use serde_json::{Map, Value};

use crate::catalog::{self, Local, Route, ToolSpec};
use crate::dispatch::{self, DecodeError, ValidatedCall, help};
use crate::gitlab::{Client, ClientSettings, GitLabError, Pagination, ScopesUnknown, Target};
pub use crate::handlers::Progress;
use crate::handlers::lockdown::Screen;
use crate::handlers::{self, Gitlab};
use crate::metrics::{self, CallOutcome};
use crate::policy::{Hold, Policy};
pub use crate::policy::{Scopes, Surface};
use crate::render::{self, Output};
pub use known_scopes::{KnownScopes, SCOPES_TTL};

/// How one call is made: where it goes and as whom, what the token's
/// scopes open (`None`: not known, so every action the policy allows),
/// whether the user already confirmed it, and where its progress is
/// reported.
#[derive(Clone, Copy)]
pub struct CallContext<'a> {
    pub target: &'a Target,
    pub scopes: Option<&'a Scopes>,
    pub confirmed: bool,
    pub progress: Option<&'a dyn Progress>,
}

impl<'a> CallContext<'a> {
    /// A call with nothing confirmed, no progress wanted and the token's
    /// scopes not known.
    pub fn plain(target: &'a Target) -> Self {
        CallContext {
            target,
            scopes: None,
            confirmed: false,
            progress: None,
        }
    }

    /// The surface the token is offered.
    fn surface(&self) -> Surface {
        self.scopes.map_or(Surface::Full, Scopes::surface)
    }
}

/// What became of a call.
#[derive(Debug, Clone, PartialEq)]
pub enum Outcome {
    Done(Output),
    /// A destructive action waits for the user's confirmation; nothing was
    /// sent. `question` is what to ask; `refusal` is the answer when there
    /// is no way to ask.
    NeedsConfirmation {
        question: String,
        refusal: String,
    },
}

/// A call that cannot be routed at all: the tool does not exist.
#[derive(Debug, thiserror::Error)]
#[error("unknown tool `{name}`{}; tools: {}", hint(suggestion, peer), available.join(", "))]
pub struct UnknownTool {
    pub name: String,
    pub suggestion: Option<&'static str>,
    /// Another server's tool name, and the tool and action it is here.
    pub peer: Option<(&'static str, &'static str)>,
    pub available: Vec<&'static str>,
}

fn hint(suggestion: &Option<&'static str>, peer: &Option<(&'static str, &'static str)>) -> String {
    match (peer, suggestion) {
        (Some((tool, action)), _) => format!(
            "; here that is tool `{tool}` with {{\"action\": \"{action}\", \"params\": {{...}}}}"
        ),
        (None, Some(s)) => format!(", did you mean `{s}`?"),
        (None, None) => String::new(),
    }
}

/// Why a structured read gave no answer.
#[derive(Debug, thiserror::Error)]
pub enum ReadFailed {
    #[error(transparent)]
    UnknownTool(#[from] UnknownTool),
    #[error(transparent)]
    Invalid(#[from] DecodeError),
    #[error("`{0}` is not a plain GitLab read")]
    NotARead(&'static str),
    #[error(transparent)]
    GitLab(#[from] GitLabError),
    #[error("GitLab's answer is not JSON")]
    NotJson,
}

/// What the engine is built from: each lower layer's own settings, put
/// together by the face (the command line, the sandbox) that starts it.
#[derive(Debug, Clone)]
pub struct Settings {
    /// The GitLab and credentials of calls that bring none of their own.
    pub target: Target,
    pub client: ClientSettings,
    /// Size cap and structured content of answers.
    pub render: render::Options,
    /// What the server may do.
    pub policy: Policy,
}

pub struct Engine {
    client: Client,
    /// The GitLab and credentials of calls that bring none of their own.
    target: Target,
    /// The tools and actions this server offers, after the policy.
    tools: &'static [ToolSpec],
    /// The same, narrowed to each surface a token's scopes give, built
    /// the first time a token with that surface calls (`Surface::index`).
    surfaces: [OnceLock<&'static [ToolSpec]>; Surface::ALL.len()],
    policy: Policy,
    render: render::Options,
    /// What GraphQL actions look up more often than it changes (work item
    /// types per namespace), kept a few minutes.
    graphql: handlers::graphql::Cache,
}

impl Engine {
    pub fn new(settings: Settings) -> Result<Self, String> {
        Ok(Engine {
            client: Client::new(settings.client)?,
            target: settings.target,
            tools: settings.policy.prune(catalog::tools()),
            surfaces: Default::default(),
            policy: settings.policy,
            render: settings.render,
            graphql: handlers::graphql::Cache::default(),
        })
    }

    /// The GitLab client's settings, for other clients of the same GitLab.
    pub fn client_settings(&self) -> &ClientSettings {
        self.client.settings()
    }

    /// The tools this server offers.
    pub fn tools(&self) -> &'static [ToolSpec] {
        self.tools
    }

    /// The tools a token with this surface is offered.
    pub fn tools_for(&self, surface: Surface) -> &'static [ToolSpec] {
        if surface == Surface::Full {
            return self.tools;
        }
        self.surfaces[surface.index()]
            .get_or_init(|| self.policy.prune_for(catalog::tools(), surface))
    }

    /// The scopes of the target's token, as GitLab names them.
    pub async fn token_scopes(&self, target: &Target) -> Result<Scopes, ScopesUnknown> {
        let facts = crate::gitlab::token_scopes(&self.client, target).await?;
        Scopes::new(facts.scopes).ok_or(ScopesUnknown::Unreadable)
    }

    /// Whether the server's GitLab answers: its HTTP status, or why not.
    pub async fn probe(&self) -> Result<u16, String> {
        self.client.probe(&self.target).await.map_err(|e| match e {
            crate::gitlab::GitLabError::Network { kind, host } => {
                format!("{host} unreachable ({kind:?})")
            }
            other => other.to_string(),
        })
    }

    /// Where calls go when the caller brings no target of its own.
    pub fn default_target(&self) -> &Target {
        &self.target
    }

    /// Carry out one call. Without `context.confirmed` a destructive action
    /// asks first.
    pub async fn call(
        &self,
        tool_name: &str,
        arguments: Map<String, Value>,
        context: CallContext<'_>,
    ) -> Result<Outcome, UnknownTool> {
        let tools = self.tools_for(context.surface());
        let tool = match self.find_tool(tools, tool_name) {
            Ok(tool) => tool,
            Err(unknown) => {
                // A tool the policy offers but this token's scopes close.
                let action = arguments.get("action").and_then(Value::as_str);
                let refusal = self
                    .scope_refusal(&context, tool_name, action)
                    .or_else(|| self.scope_refusal(&context, tool_name, None));
                let Some((tool, refusal)) = refusal else {
                    return Err(unknown);
                };
                metrics::global().call(tool, "-", CallOutcome::Refused);
                return Ok(Outcome::Done(Output::error(refusal)));
            }
        };
        let web = context.target.web_root();
        let call = match dispatch::decode(tool, tools, arguments, Some(web)) {
            Ok(call) => call,
            Err(error) => {
                tracing::debug!(tool = tool.name, "invalid call");
                let (text, outcome) = self.explain(tool, error, &context);
                metrics::global().call(tool.name, "-", outcome);
                return Ok(Outcome::Done(Output::error(text)));
            }
        };
        let record = |outcome| metrics::global().call(tool.name, call.action.name, outcome);
        if let Some(hold) = self.policy.hold(&call, context.confirmed) {
            let (outcome, held) = match hold {
                Hold::Refused(text) => (CallOutcome::Refused, Outcome::Done(Output::error(text))),
                Hold::Confirmation { question, refusal } => (
                    CallOutcome::Confirmation,
                    Outcome::NeedsConfirmation { question, refusal },
                ),
            };
            record(outcome);
            return Ok(held);
        }
        let mut output = self.carry_out(&call, context).await;
        if !call.deprecated.is_empty() {
            let notes: Vec<String> = call.deprecated.iter().map(|d| d.to_string()).collect();
            output = output.with_note(&notes.join("; "));
        }
        record(if output.is_error {
            CallOutcome::Error
        } else {
            CallOutcome::Ok
        });
        Ok(Outcome::Done(output))
    }

    /// A read's answer as GitLab sent it (JSON) and its pagination, for
    /// what the server needs of GitLab itself (completion values): decoded
    /// against the token's surface like any call, so the policy and the
    /// scopes apply, but only a plain GET action, and nothing rendered.
    pub async fn read_json(
        &self,
        tool_name: &str,
        arguments: Map<String, Value>,
        context: CallContext<'_>,
    ) -> Result<(Value, Pagination), ReadFailed> {
        let tools = self.tools_for(context.surface());
        let tool = self.find_tool(tools, tool_name)?;
        let call = dispatch::decode(tool, tools, arguments, Some(context.target.web_root()))?;
        let route = match call.action.route {
            Route::Rest(route) if call.action.read_only && call.action.handler.is_none() => route,
            _ => return Err(ReadFailed::NotARead(call.action.name)),
        };
        let request = crate::gitlab::request::build(&call, &route);
        let response = self
            .client
            .send(context.target, &request)
            .await
            .map_err(|failed| failed.error)?;
        let value = serde_json::from_slice(&response.body).map_err(|_| ReadFailed::NotJson)?;
        Ok((value, response.pagination))
    }

    fn find_tool(
        &self,
        tools: &'static [ToolSpec],
        name: &str,
    ) -> Result<&'static ToolSpec, UnknownTool> {
        tools.iter().find(|t| t.name == name).ok_or_else(|| {
            let available: Vec<&'static str> = tools.iter().map(|t| t.name).collect();
            let peer = catalog::vocabulary()
                .peer_tools
                .iter()
                .find(|(peer, _, _)| *peer == name)
                .map(|(_, tool, action)| (*tool, *action))
                .filter(|(tool, _)| available.contains(tool));
            UnknownTool {
                name: name.to_string(),
                suggestion: dispatch::suggest::closest(name, available.iter().copied()),
                peer,
                available,
            }
        })
    }

    async fn carry_out(&self, call: &ValidatedCall, context: CallContext<'_>) -> Output {
        match &call.action.route {
            Route::Local(Local::Help) => Output::ok(help_text(call)),
            Route::Graphql(route) => {
                let gitlab = Gitlab {
                    client: &self.client,
                    target: context.target,
                    render: self.render,
                    progress: context.progress,
                    screen: None,
                };
                // Boxed: its future is large, and REST calls need not carry it.
                Box::pin(handlers::graphql::run(call, route, &gitlab, &self.graphql)).await
            }
            Route::Rest(route) => {
                let screen = self.policy.lockdown.map(Screen::new);
                let gitlab = Gitlab {
                    client: &self.client,
                    target: context.target,
                    render: self.render,
                    progress: context.progress,
                    screen: screen.as_ref(),
                };
                let output = handlers::run(call, route, &gitlab).await;
                match screen.as_ref().and_then(Screen::note) {
                    Some(note) => output.with_note(&note),
                    None => output,
                }
            }
        }
    }

    /// A decoding error, unless the action exists but the policy or the
    /// token's scopes removed it: then the refusal says so, rather than
    /// "unknown action".
    fn explain(
        &self,
        tool: &ToolSpec,
        error: DecodeError,
        context: &CallContext<'_>,
    ) -> (String, CallOutcome) {
        if let DecodeError::UnknownAction { given, .. } = &error {
            if let Some(full) = catalog::tool(tool.name)
                && let Some(action) = full.action(given)
                && let Some(refusal) = self.policy.refusal(full, action)
            {
                let text = format!(
                    "{} {given}: refused, {refusal}. Nothing was sent to GitLab.",
                    tool.name
                );
                return (text, CallOutcome::Refused);
            }
            if let Some((_, text)) = self.scope_refusal(context, tool.name, Some(given)) {
                return (text, CallOutcome::Refused);
            }
        }
        (error.to_string(), CallOutcome::Invalid)
    }

    /// Why the token's scopes close an action the policy offers (the
    /// tool's first such action when none is named), with the tool's name;
    /// `None` when they do not, or nothing of that name is offered.
    fn scope_refusal(
        &self,
        context: &CallContext<'_>,
        tool_name: &str,
        action_name: Option<&str>,
    ) -> Option<(&'static str, String)> {
        let scopes = context.scopes?;
        let tool = self.tools.iter().find(|t| t.name == tool_name)?;
        let refusal = tool
            .actions
            .iter()
            .filter(|a| action_name.is_none_or(|name| a.name == name))
            .find_map(|action| scopes.refusal(tool, action))?;
        let action = action_name.map(|a| format!(" {a}")).unwrap_or_default();
        let text = format!(
            "{}{action}: refused, {refusal}. Nothing was sent to GitLab.",
            tool.name
        );
        Some((tool.name, text))
    }
}

/// The local `help` action: one action in full, or the tool's index.
fn help_text(call: &ValidatedCall) -> String {
    let search = call.arg("search").and_then(Value::as_str);
    match call.arg("action").and_then(Value::as_str) {
        Some(name) => help::action_help(
            call.tool,
            call.tool
                .action(name)
                .expect("help's enum lists real actions"),
            search,
        ),
        None => help::tool_help(call.tool, search),
    }
}

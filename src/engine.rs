//! One tool call from raw arguments to result text: decode, hold the
//! server's policy (enabled actions, quick actions, confirmation of
//! destructive actions), then either answer locally (`help`) or send the
//! request and render GitLab's answer.
//!
//! Shared by the MCP server and the `call` command, and free of rmcp: how a
//! confirmation is asked (elicitation, an input-required result) is the MCP
//! layer's business; the engine only says that one is needed.

use serde_json::{Map, Value};

use crate::catalog::{self, Method, ToolSpec};
use crate::config::{Config, ConfigError};
use crate::dispatch::{self, DecodeError, ValidatedCall, help};
use crate::gitlab::{self, Client};
use crate::policy::{Policy, quick_actions};
use crate::render;

/// The result of a tool call, before any protocol wrapping.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolOutput {
    pub text: String,
    pub is_error: bool,
    /// The result as JSON, when structured content is on.
    pub structured: Option<Value>,
}

impl ToolOutput {
    fn ok(text: String) -> Self {
        ToolOutput {
            text,
            is_error: false,
            structured: None,
        }
    }

    pub fn error(text: String) -> Self {
        ToolOutput {
            text,
            is_error: true,
            structured: None,
        }
    }
}

/// What became of a call.
#[derive(Debug, Clone, PartialEq)]
pub enum Outcome {
    Done(ToolOutput),
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
#[error("unknown tool `{name}`{}; tools: {}", suggestion.map(|s| format!(", did you mean `{s}`?")).unwrap_or_default(), available.join(", "))]
pub struct UnknownTool {
    pub name: String,
    pub suggestion: Option<&'static str>,
    pub available: Vec<&'static str>,
}

pub struct Engine {
    client: Client,
    /// The tools and actions this server offers, after the policy.
    tools: &'static [ToolSpec],
    policy: Policy,
    render: render::Options,
    timeouts: (u64, u64),
}

impl Engine {
    pub fn new(config: &Config) -> Result<Self, ConfigError> {
        Ok(Engine {
            client: Client::new(config)?,
            tools: config.policy.prune(catalog::tools()),
            policy: config.policy.clone(),
            render: config.render,
            timeouts: (
                config.connect_timeout.as_secs(),
                config.request_timeout.as_secs(),
            ),
        })
    }

    /// The tools this server offers.
    pub fn tools(&self) -> &'static [ToolSpec] {
        self.tools
    }

    /// Carry out one call. `confirmed` says the user confirmed it (through
    /// the client); without it a destructive action asks first.
    pub async fn call(
        &self,
        tool_name: &str,
        arguments: Map<String, Value>,
        confirmed: bool,
    ) -> Result<Outcome, UnknownTool> {
        let Some(tool) = self.tools.iter().find(|t| t.name == tool_name) else {
            return Err(self.unknown_tool(tool_name));
        };
        let call = match dispatch::decode(tool, self.tools, arguments) {
            Ok(call) => call,
            Err(error) => {
                tracing::debug!(tool = tool.name, "invalid call");
                return Ok(Outcome::Done(ToolOutput::error(self.explain(tool, error))));
            }
        };
        if let Some(refusal) = self.quick_action_refusal(&call) {
            return Ok(Outcome::Done(ToolOutput::error(refusal)));
        }
        if call.action.destructive && !confirmed && !self.confirmed_by_policy(&call) {
            return Ok(self.ask_confirmation(&call));
        }
        let request = match gitlab::plan(&call) {
            Some(Ok(request)) => request,
            Some(Err(problem)) => {
                return Ok(Outcome::Done(ToolOutput::error(format!(
                    "{} {}: {problem}",
                    tool.name, call.action.name
                ))));
            }
            None => {
                // The only local action: help.
                let text = match call.arg("action").and_then(Value::as_str) {
                    Some(name) => help::action_help(
                        tool,
                        tool.action(name).expect("help's enum lists real actions"),
                    ),
                    None => help::tool_help(tool),
                };
                return Ok(Outcome::Done(ToolOutput::ok(text)));
            }
        };
        tracing::debug!(tool = tool.name, action = call.action.name, method = request.method.as_str(), path = %request.path, "request");
        let repeatable = match request.method {
            Method::Get => true,
            Method::Put | Method::Patch | Method::Delete => call.action.idempotent,
            Method::Post => false,
        };
        Ok(Outcome::Done(
            match self.client.send(&request, repeatable).await {
                Ok(response) => {
                    let rendered = render::success(&call, &response, self.render);
                    ToolOutput {
                        text: rendered.text,
                        is_error: rendered.is_error,
                        structured: rendered.structured,
                    }
                }
                Err(failed) => {
                    tracing::info!(tool = tool.name, action = call.action.name, error = %failed.error, attempts = failed.attempts, "GitLab call failed");
                    let ctx = render::Context {
                        has_token: self.client.has_token(),
                        attempts: failed.attempts,
                        connect_timeout_secs: self.timeouts.0,
                        request_timeout_secs: self.timeouts.1,
                    };
                    ToolOutput::error(render::failure(&call, &failed.error, &ctx))
                }
            },
        ))
    }

    fn unknown_tool(&self, name: &str) -> UnknownTool {
        let available: Vec<&'static str> = self.tools.iter().map(|t| t.name).collect();
        UnknownTool {
            name: name.to_string(),
            suggestion: dispatch::suggest::closest(name, available.iter().copied()),
            available,
        }
    }

    /// A decoding error, unless the action exists but the policy removed
    /// it: then the refusal says so, rather than "unknown action".
    fn explain(&self, tool: &ToolSpec, error: DecodeError) -> String {
        if let DecodeError::UnknownAction { given, .. } = &error
            && let Some(full) = catalog::tool(tool.name)
            && let Some(action) = full.action(given)
            && let Some(refusal) = self.policy.refusal(full, action)
        {
            return format!(
                "{} {given}: refused, {refusal}. Nothing was sent to GitLab.",
                tool.name
            );
        }
        error.to_string()
    }

    /// Text GitLab would run as quick actions needs the operator's or the
    /// call's consent.
    fn quick_action_refusal(&self, call: &ValidatedCall) -> Option<String> {
        if self.policy.allow_quick_actions || call.intent.quick_actions {
            return None;
        }
        let found: Vec<String> = call
            .args
            .iter()
            .filter(|a| a.spec.quick_actions)
            .filter_map(|a| {
                let commands = quick_actions::find(a.value.as_str()?);
                (!commands.is_empty())
                    .then(|| format!("`{}` has {}", a.spec.name, commands.join(", ")))
            })
            .collect();
        if found.is_empty() {
            return None;
        }
        Some(format!(
            "{} {}: refused, nothing was sent. {}: GitLab runs lines starting with `/` as quick actions (closing, merging, assigning...). \
If these commands are meant, add \"quick_actions\": true beside \"action\"; if not, reword those lines (or put them in a code block).",
            call.tool.name,
            call.action.name,
            found.join("; ")
        ))
    }

    fn confirmed_by_policy(&self, call: &ValidatedCall) -> bool {
        let c = self.policy.confirmation;
        c.auto || (c.from_model && call.intent.confirm)
    }

    fn ask_confirmation(&self, call: &ValidatedCall) -> Outcome {
        let target: Vec<String> = call
            .args
            .iter()
            .filter(|a| a.spec.location == catalog::Location::Path)
            .map(|a| format!("{} {}", a.spec.name, a.value))
            .collect();
        let question = format!(
            "Allow the AI agent to run {} {} ({})? {} This cannot be undone.",
            call.tool.name,
            call.action.name,
            target.join(", "),
            call.action.summary
        );
        let how = if self.policy.confirmation.from_model {
            "add \"confirm\": true beside \"action\" once the user agreed"
        } else {
            "the operator can run the server with --yes (GITLAB_MCP_AUTO_CONFIRM=true), or allow the model to confirm with --allow-model-confirm"
        };
        let refusal = format!(
            "{} {}: refused, nothing was sent. This action is destructive and needs confirmation, and this client cannot ask the user. To confirm: {how}.",
            call.tool.name, call.action.name
        );
        Outcome::NeedsConfirmation { question, refusal }
    }
}

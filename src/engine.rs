//! One tool call from raw arguments to result text: decode, then either
//! answer locally (`help`) or send the request and render GitLab's answer.
//!
//! Shared by the MCP server and the `call` command, and free of rmcp.

use serde_json::{Map, Value};

use crate::catalog::{self, ToolSpec};
use crate::config::{Config, ConfigError};
use crate::dispatch::{self, help};
use crate::gitlab::{self, Client};
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

    fn error(text: String) -> Self {
        ToolOutput {
            text,
            is_error: true,
            structured: None,
        }
    }
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
    tools: &'static [ToolSpec],
    render: render::Options,
}

impl Engine {
    pub fn new(config: &Config) -> Result<Self, ConfigError> {
        Ok(Engine {
            client: Client::new(config)?,
            tools: catalog::tools(),
            render: config.render,
        })
    }

    pub fn tools(&self) -> &'static [ToolSpec] {
        self.tools
    }

    pub async fn call(
        &self,
        tool_name: &str,
        arguments: Map<String, Value>,
    ) -> Result<ToolOutput, UnknownTool> {
        let Some(tool) = self.tools.iter().find(|t| t.name == tool_name) else {
            return Err(UnknownTool {
                name: tool_name.to_string(),
                suggestion: dispatch::suggest::closest(
                    tool_name,
                    self.tools.iter().map(|t| t.name),
                ),
                available: self.tools.iter().map(|t| t.name).collect(),
            });
        };
        let call = match dispatch::decode(tool, self.tools, arguments) {
            Ok(call) => call,
            Err(error) => {
                tracing::debug!(tool = tool.name, "invalid call");
                return Ok(ToolOutput::error(error.to_string()));
            }
        };
        let request = match gitlab::plan(&call) {
            Some(Ok(request)) => request,
            Some(Err(problem)) => {
                return Ok(ToolOutput::error(format!(
                    "{} {}: {problem}",
                    tool.name, call.action.name
                )));
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
                return Ok(ToolOutput::ok(text));
            }
        };
        tracing::debug!(tool = tool.name, action = call.action.name, method = request.method.as_str(), path = %request.path, "request");
        match self.client.send(&request).await {
            Ok(response) => {
                let rendered = render::success(&call, &response, self.render);
                Ok(ToolOutput {
                    text: rendered.text,
                    is_error: rendered.is_error,
                    structured: rendered.structured,
                })
            }
            Err(error) => {
                tracing::info!(tool = tool.name, action = call.action.name, %error, "GitLab call failed");
                let ctx = render::Context {
                    has_token: self.client.has_token(),
                    host: self.client.host(),
                };
                Ok(ToolOutput::error(render::failure(&call, &error, &ctx)))
            }
        }
    }
}

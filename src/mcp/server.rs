//! The rmcp `ServerHandler`: `tools/list` from the catalog, `tools/call`
//! through the engine. One handler serves both lifecycles: the `initialize`
//! handshake and the 2026-07-28 `server/discover`.

use std::sync::Arc;

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, Implementation,
    ListToolsResult, PaginatedRequestParams, ServerCapabilities, ServerConfig, Tool,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer, ServerHandler};

use crate::engine::Engine;

const INSTRUCTIONS: &str = "Each gitlab_* tool takes one envelope: {\"action\": \"<action>\", \"params\": {...}}. \
{\"action\": \"help\"} lists a tool's actions; {\"action\": \"help\", \"params\": {\"action\": \"<action>\"}} shows one action's parameters. \
Projects are given as a numeric id or a full path such as group/project; issues and merge requests by their iid.";

#[derive(Clone)]
pub struct GitLabServer {
    engine: Arc<Engine>,
    tools: Arc<Vec<Tool>>,
}

impl GitLabServer {
    pub fn new(engine: Arc<Engine>) -> Self {
        let tools = Arc::new(super::tools::tool_list(engine.tools()));
        GitLabServer { engine, tools }
    }
}

impl ServerHandler for GitLabServer {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(
                Implementation::new("gitlab-mcp", env!("CARGO_PKG_VERSION"))
                    .with_title("GitLab MCP"),
            )
            .with_instructions(INSTRUCTIONS)
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        Ok(ListToolsResult::with_all_items(self.tools.as_ref().clone()))
    }

    fn get_tool(&self, name: &str) -> Option<Tool> {
        self.tools.iter().find(|t| t.name == name).cloned()
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let arguments = request.arguments.unwrap_or_default();
        // A `notifications/cancelled` for this request cancels the token;
        // dropping the engine's future aborts its GitLab request.
        let outcome = tokio::select! {
            outcome = self.engine.call(&request.name, arguments) => outcome,
            () = context.ct.cancelled() => {
                tracing::info!(tool = %request.name, "call cancelled by the client");
                return Err(ErrorData::internal_error("request cancelled", None));
            }
        };
        match outcome {
            Ok(output) => {
                let content = vec![ContentBlock::text(output.text)];
                let mut result = if output.is_error {
                    CallToolResult::error(content)
                } else {
                    CallToolResult::success(content)
                };
                result.structured_content = output.structured;
                Ok(result.into())
            }
            Err(unknown) => Err(ErrorData::invalid_params(unknown.to_string(), None)),
        }
    }
}

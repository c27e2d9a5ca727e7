//! MCP glue: the only module that knows rmcp.

mod answer_bytes;
mod completions;
mod direct_call;
pub mod http;
mod icons;
mod introduction;
mod prompts;
mod resources;
mod server;
pub mod sessions;
mod stdio;
mod stdio_direct;
mod stdio_lines;
mod tasks;
pub mod tools;
pub mod views;

pub use introduction::Introduction;
pub use server::GitLabServer;

use std::sync::Arc;

use rmcp::ServiceExt;

use crate::engine::{Engine, KnownScopes};

/// Serve MCP on stdin/stdout until the client disconnects. The token's
/// scopes are asked of GitLab at once, beside the handshake; the first
/// request that needs them (`tools/list`, a call) waits for that answer.
/// `rmcp_only`: every message through rmcp's serve loop, even the plain
/// calls `stdio_direct` answers (for comparing the two).
pub async fn serve_stdio(
    engine: Arc<Engine>,
    introduction: Introduction,
    rmcp_only: bool,
) -> Result<(), Box<dyn std::error::Error + Send + Sync>> {
    let scopes = Arc::new(KnownScopes::new());
    tokio::spawn({
        let (engine, scopes) = (engine.clone(), scopes.clone());
        async move {
            scopes.get(&engine, engine.default_target()).await;
        }
    });
    let server = GitLabServer::new(engine, introduction, scopes);
    let versions = rmcp::ServerHandler::supported_protocol_versions(&server);
    let (read, write) = rmcp::transport::io::stdio_pipes();
    let transport = stdio_lines::LineTransport::new(read, write, !rmcp_only);
    let direct = transport.direct_calls();
    let service = server
        .clone()
        .serve(stdio::BeforeHandshake::new(transport, versions))
        .await?;
    if let Some(direct) = direct {
        direct.start(server, service.peer().clone());
    }
    service.waiting().await?;
    Ok(())
}

//! MCP glue: the only module that knows rmcp.

pub mod http;
mod introduction;
mod prompts;
mod server;
pub mod sessions;
mod stdio;
mod stdio_lines;
pub mod tools;

pub use introduction::Introduction;
pub use server::GitLabServer;

use std::sync::Arc;

use rmcp::ServiceExt;

use crate::engine::Engine;

/// Serve MCP on stdin/stdout until the client disconnects.
pub async fn serve_stdio(
    engine: Arc<Engine>,
    introduction: Introduction,
) -> Result<(), Box<dyn std::error::Error + Send + Sync>> {
    let server = GitLabServer::new(engine, introduction);
    let versions = rmcp::ServerHandler::supported_protocol_versions(&server);
    let (read, write) = rmcp::transport::io::stdio_pipes();
    let transport = stdio_lines::LineTransport::new(read, write);
    let service = server
        .serve(stdio::BeforeHandshake::new(transport, versions))
        .await?;
    service.waiting().await?;
    Ok(())
}

//! MCP glue: the only module that knows rmcp.

pub mod http;
mod prompts;
mod server;
pub mod tools;

pub use server::GitLabServer;

use std::sync::Arc;

use rmcp::ServiceExt;

use crate::engine::Engine;

/// Serve MCP on stdin/stdout until the client disconnects.
pub async fn serve_stdio(
    engine: Arc<Engine>,
) -> Result<(), Box<dyn std::error::Error + Send + Sync>> {
    let service = GitLabServer::new(engine)
        .serve(rmcp::transport::io::stdio_pipes())
        .await?;
    service.waiting().await?;
    Ok(())
}

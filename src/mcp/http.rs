//! The MCP endpoint over streamable HTTP: rmcp's tower service, mounted in
//! an axum router. Stateless by default (no session store, so any instance
//! serves any request); a stateful mode keeps legacy sessions in memory.

use std::sync::Arc;
use std::time::Duration;

use rmcp::transport::streamable_http_server::session::never::NeverSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use tokio_util::sync::CancellationToken;

use super::Introduction;
use super::server::GitLabServer;
use super::sessions::BoundedSessions;
use crate::engine::Engine;

/// How the endpoint behaves; the HTTP layer checks Host, Origin and
/// credentials before a request gets here, and these are the same rules
/// again inside rmcp.
#[derive(Debug, Clone)]
pub struct EndpointOptions {
    /// `Host` values (`name` or `name:port`) the endpoint answers.
    pub allowed_hosts: Vec<String>,
    /// `Origin` values a browser request may carry; empty: any.
    pub allowed_origins: Vec<String>,
    pub max_body_bytes: usize,
    /// Keep legacy sessions, at most so many (needed for server-sent
    /// elicitation to legacy clients); a 2026-07-28 request is stateless
    /// either way. None: stateless.
    pub sessions: Option<Arc<BoundedSessions>>,
    pub call_timeout: Option<Duration>,
    /// The title and instructions every session gets.
    pub introduction: Introduction,
    /// Cancelled when the server stops for good.
    pub shutdown: CancellationToken,
    /// A stateless server answers plain 2026-07-28 tool calls itself
    /// (`direct_call.rs`); false: every request through rmcp.
    pub direct_calls: bool,
}

/// A router serving MCP at `path`. Every request must carry a `Target` in
/// its extensions (the HTTP layer resolves it from the request's headers),
/// and, when it has a token, that token's `Arc<KnownScopes>`.
pub fn router(engine: Arc<Engine>, path: &str, options: EndpointOptions) -> axum::Router {
    let tools = Arc::new(super::tools::ToolLists::default());
    let tasks = Arc::new(super::tasks::Tasks::default());
    let introduction = Arc::new(options.introduction);
    let server =
        GitLabServer::per_request(engine, tools, introduction, options.call_timeout, tasks);
    let factory = {
        let server = server.clone();
        move || Ok(server.clone())
    };
    let mut config = StreamableHttpServerConfig::default()
        .with_allowed_hosts(options.allowed_hosts.clone())
        .with_max_request_body_bytes(options.max_body_bytes)
        .with_legacy_session_mode(options.sessions.is_some())
        // A plain JSON answer when the call sends nothing before its result.
        .with_json_response(options.sessions.is_none())
        .with_cancellation_token(options.shutdown.clone());
    if !options.allowed_origins.is_empty() {
        config = config.with_allowed_origins(options.allowed_origins.clone());
    }
    if let Some(sessions) = options.sessions {
        let service = StreamableHttpService::new(factory, sessions, config);
        return axum::Router::new().route_service(path, service);
    }
    let rmcp =
        StreamableHttpService::new(factory, Arc::new(NeverSessionManager::default()), config);
    if !options.direct_calls {
        return axum::Router::new().route_service(path, rmcp);
    }
    let endpoint = Arc::new(super::direct_call::Endpoint {
        server,
        rmcp,
        max_body_bytes: options.max_body_bytes,
        shutdown: options.shutdown,
    });
    axum::Router::new().route(
        path,
        axum::routing::any(super::direct_call::answer).with_state(endpoint),
    )
}

//! The operator's endpoints: liveness, readiness (GitLab reachable),
//! metrics, and the OAuth protected-resource metadata (RFC 9728) that a
//! 401 points clients to.

use std::sync::Arc;

use axum::Json;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde_json::json;

use super::AppState;
use crate::metrics;

pub async fn healthz() -> &'static str {
    "ok\n"
}

/// 200 when GitLab answers at all (even 401: it is up), 503 otherwise.
pub async fn readyz(State(state): State<Arc<AppState>>) -> Response {
    match state.engine.probe().await {
        Ok(status) => (StatusCode::OK, format!("ok: GitLab answered {status}\n")).into_response(),
        Err(reason) => (
            StatusCode::SERVICE_UNAVAILABLE,
            format!("not ready: {reason}\n"),
        )
            .into_response(),
    }
}

pub async fn metrics() -> Response {
    (
        [(header::CONTENT_TYPE, "text/plain; version=0.0.4")],
        metrics::global().render(),
    )
        .into_response()
}

/// RFC 9728: this server is a protected resource, and says which
/// authorization server issues the tokens it accepts.
pub async fn resource_metadata(State(state): State<Arc<AppState>>, headers: HeaderMap) -> Response {
    let base = state.public_base(&headers);
    Json(json!({
        "resource": format!("{base}{}", state.path),
        "authorization_servers": [state.authorization_server(&base)],
        "bearer_methods_supported": ["header"],
        "scopes_supported": ["api", "read_api"],
        "resource_name": "gitlab-mcp",
    }))
    .into_response()
}

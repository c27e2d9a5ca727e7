//! The bound on legacy sessions (`--stateful`, `--max-sessions`), checked
//! before rmcp sees an `initialize`: a full server answers 503 with
//! `Retry-After` instead of the 500 rmcp gives when the session manager
//! (`mcp::sessions`) refuses. The body is read only when the server is
//! full, to tell an `initialize` from a request that needs no session.

use axum::body::Body;
use axum::extract::Request;
use axum::http::{HeaderValue, Method, StatusCode, header};
use axum::response::Response;
use serde_json::Value;

use super::{DRAIN_TIME, closing, refuse};
use crate::mcp::sessions::BoundedSessions;

/// The request back, or the refusal of a new session.
pub async fn admit(
    sessions: &BoundedSessions,
    request: Request,
    limit: usize,
) -> Result<Request, Response> {
    if request.method() != Method::POST
        || request.headers().contains_key("mcp-session-id")
        || !sessions.full().await
    {
        return Ok(request);
    }
    let (parts, body) = request.into_parts();
    let Ok(Ok(bytes)) = tokio::time::timeout(DRAIN_TIME, axum::body::to_bytes(body, limit)).await
    else {
        return Err(closing(refuse(
            StatusCode::BAD_REQUEST,
            "invalid_request",
            "the request body could not be read in time or within the size bound",
            "body_unreadable",
        )));
    };
    let initialize = serde_json::from_slice::<Value>(&bytes)
        .is_ok_and(|message| message["method"] == "initialize");
    if initialize {
        let mut response = refuse(
            StatusCode::SERVICE_UNAVAILABLE,
            "too_many_sessions",
            "this server holds as many sessions as it may; retry shortly, or use protocol 2026-07-28, which needs none",
            "sessions_full",
        );
        response
            .headers_mut()
            .insert(header::RETRY_AFTER, HeaderValue::from_static("5"));
        return Err(response);
    }
    Ok(Request::from_parts(parts, Body::from(bytes)))
}

//! The bound on legacy sessions (`--stateful`, `--max-sessions`), checked
//! before rmcp sees an `initialize`: a full server answers 503 with
//! `Retry-After` instead of the 500 rmcp gives when the session manager
//! (`mcp::sessions`) refuses.

use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::Response;
use serde_json::Value;

use super::refuse;
use crate::mcp::sessions::BoundedSessions;

/// The refusal of a request that would open a session past the bound: an
/// `initialize` (`body`, already read) without a session id.
pub async fn refusal(
    sessions: &BoundedSessions,
    headers: &HeaderMap,
    body: &[u8],
) -> Option<Response> {
    if headers.contains_key("mcp-session-id") || !sessions.full().await {
        return None;
    }
    let initialize = serde_json::from_slice::<Value>(body)
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
        return Some(response);
    }
    None
}

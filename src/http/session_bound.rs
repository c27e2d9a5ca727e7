//! The bound on legacy sessions (`--stateful`, `--max-sessions`), checked
//! before rmcp sees an `initialize`: a full server answers 503 with
//! `Retry-After` instead of the 500 rmcp gives when the session manager
//! (`mcp::sessions`) refuses.

use axum::http::HeaderMap;
use serde_json::Value;

use super::refusal::Refusal;
use crate::mcp::sessions::BoundedSessions;

/// Refuses a request that would open a session past the bound: an
/// `initialize` (`body`, already read) without a session id.
pub async fn check(
    sessions: &BoundedSessions,
    headers: &HeaderMap,
    body: &[u8],
) -> Result<(), Refusal> {
    if headers.contains_key("mcp-session-id") || !sessions.full().await {
        return Ok(());
    }
    let initialize = serde_json::from_slice::<Value>(body)
        .is_ok_and(|message| message["method"] == "initialize");
    if initialize {
        Err(Refusal::SessionsFull)
    } else {
        Ok(())
    }
}

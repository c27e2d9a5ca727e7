//! GitLab's answers as text for a model.
//!
//! `success` turns a 2xx answer into the result text, with one line of
//! pagination facts for lists; `failure` turns a `GitLabError` into an
//! actionable message. Only what the server chose to keep reaches this
//! module: no header value but the request id, never the token or a body
//! the agent sent.

mod failure;
mod pagination;

pub use failure::{Context, failure};
pub use pagination::pagination_line;

use serde_json::Value;

use crate::catalog::Returns;
use crate::dispatch::ValidatedCall;
use crate::gitlab::Response;

/// The text of a successful answer.
pub fn success(call: &ValidatedCall, response: &Response) -> String {
    let mut text = match call.action.returns {
        Returns::Text => String::from_utf8_lossy(&response.body).into_owned(),
        Returns::Nothing if response.body.is_empty() || !response.is_json => format!(
            "Done: {} {} succeeded (HTTP {}).",
            call.tool.name, call.action.name, response.status
        ),
        _ => json_text(&response.body),
    };
    if matches!(call.action.returns, Returns::List(_))
        && let Some(line) = pagination_line(call, &response.pagination)
    {
        text.push('\n');
        text.push_str(&line);
    }
    text
}

/// Compact JSON, or the body as text when GitLab sent something else.
fn json_text(body: &[u8]) -> String {
    match serde_json::from_slice::<Value>(body) {
        Ok(value) => value.to_string(),
        Err(_) => String::from_utf8_lossy(body).into_owned(),
    }
}

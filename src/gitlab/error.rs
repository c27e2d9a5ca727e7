//! GitLab's failures as values: an HTTP status with GitLab's own message, or
//! a network failure of a known kind.
//!
//! Nothing here holds a header value (but the request id), a request body or
//! the token, so no rendering of these errors can leak them.

use std::time::Duration;

use serde_json::Value;

/// GitLab's message is cut here: enough to act on, never a wall of text.
pub const MESSAGE_LIMIT: usize = 300;

#[derive(Debug, Clone, thiserror::Error)]
pub enum GitLabError {
    #[error("GitLab answered {0}")]
    Status(StatusError),
    #[error("network error: {kind:?}")]
    Network { kind: NetworkKind, host: String },
    /// The answer is larger than the server reads.
    #[error("GitLab's answer is over {limit} bytes")]
    TooLarge { limit: usize },
    /// URL parsing would have changed the encoded path: nothing was sent.
    #[error("the request path was altered by URL parsing")]
    PathChanged,
    /// The token cannot be an HTTP header value: nothing was sent.
    #[error("the token contains characters that cannot be sent in an HTTP header")]
    TokenCharacters,
    /// GitLab's GraphQL endpoint answered 200, and said no.
    #[error("GitLab's GraphQL answer: {0}")]
    Graphql(GraphqlError),
}

/// A GraphQL answer that is a failure although its status is 200.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GraphqlError {
    pub failure: GraphqlFailure,
    pub request_id: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum GraphqlFailure {
    /// `errors` beside (or instead of) `data`: about the query, its
    /// arguments or access, in GitLab's words (each cut).
    Errors(Vec<String>),
    /// A mutation's payload `errors`: GitLab refused the change.
    Refused(Vec<String>),
    /// The asked object is `null` (at this path of `data`): GitLab answers
    /// so for what does not exist and for what the token cannot see.
    Null { path: String },
    /// The answer is not GraphQL's (`data` missing, not JSON).
    Malformed,
}

impl std::fmt::Display for GraphqlError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.failure {
            GraphqlFailure::Errors(messages) | GraphqlFailure::Refused(messages) => {
                write!(f, "{}", messages.join("; "))
            }
            GraphqlFailure::Null { path } => write!(f, "`{path}` is null"),
            GraphqlFailure::Malformed => write!(f, "not a GraphQL answer"),
        }
    }
}

#[derive(Debug, Clone)]
pub struct StatusError {
    pub status: u16,
    /// GitLab's own message, extracted from whichever body format it used.
    pub message: Option<String>,
    /// The OAuth-style error code (`invalid_token`, `insufficient_scope`).
    pub error_code: Option<String>,
    /// The scope a 403 `insufficient_scope` asks for.
    pub scope: Option<String>,
    pub request_id: Option<String>,
    /// `Retry-After`, or `RateLimit-Reset` turned into a delay.
    pub retry_after: Option<Duration>,
    /// The body was an HTML page (a proxy or maintenance page).
    pub html: bool,
}

impl std::fmt::Display for StatusError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}", self.status)
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NetworkKind {
    Refused,
    Dns,
    /// The whole request took longer than the request timeout.
    Timeout,
    /// No connection within the connect timeout.
    ConnectTimeout,
    Tls,
    /// Connected, then the connection broke.
    Connection,
    Other,
}

impl StatusError {
    /// Build from a status, the body and the few headers that matter.
    pub fn from_parts(
        status: u16,
        body: &[u8],
        request_id: Option<String>,
        retry_after: Option<Duration>,
    ) -> Self {
        let html = looks_like_html(body);
        let mut error = StatusError {
            status,
            message: None,
            error_code: None,
            scope: None,
            request_id,
            retry_after,
            html,
        };
        if html {
            return error;
        }
        match serde_json::from_slice::<Value>(body) {
            Ok(json) => {
                error.error_code = json
                    .get("error")
                    .and_then(Value::as_str)
                    .filter(|c| {
                        matches!(
                            *c,
                            "invalid_token" | "insufficient_scope" | "invalid_request"
                        )
                    })
                    .map(str::to_string);
                error.scope = json
                    .get("scope")
                    .and_then(Value::as_str)
                    .map(str::to_string);
                error.message = message_from_json(&json).map(|m| cut(&m));
            }
            Err(_) => {
                let text = String::from_utf8_lossy(body);
                let text = text.trim();
                if !text.is_empty() {
                    error.message = Some(cut(text));
                }
            }
        }
        error
    }
}

/// GitLab's message from each of its body formats:
/// `{"message": "..."}`, `{"message": {"field": ["..."]}}`,
/// `{"message": {"error": "..."}}`, `{"error": "..."}`,
/// `{"error": "...", "error_description": "..."}`, and GraphQL's
/// `{"errors": [{"message": "..."}]}` (its 401 and 422 answers).
fn message_from_json(json: &Value) -> Option<String> {
    if let Some(messages) = graphql_messages(json) {
        return Some(messages.join("; "));
    }
    if let Some(description) = json.get("error_description").and_then(Value::as_str) {
        return Some(description.to_string());
    }
    if let Some(message) = json.get("message") {
        return flatten(message);
    }
    if let Some(error) = json.get("error") {
        return flatten(error);
    }
    match json {
        Value::String(s) => Some(s.clone()),
        Value::Array(_) => flatten(json),
        _ => None,
    }
}

/// The messages of GraphQL's `errors` array, if the body has a non-empty one.
pub fn graphql_messages(json: &Value) -> Option<Vec<String>> {
    let errors = json.get("errors")?.as_array()?;
    let messages: Vec<String> = errors
        .iter()
        .filter_map(|e| e.get("message").and_then(Value::as_str))
        .map(cut)
        .collect();
    (!messages.is_empty()).then_some(messages)
}

/// Model validation errors read as `title: can't be blank; base: ...`.
fn flatten(value: &Value) -> Option<String> {
    match value {
        Value::String(s) if !s.is_empty() => Some(s.clone()),
        Value::Array(items) => {
            let parts: Vec<String> = items.iter().filter_map(flatten).collect();
            (!parts.is_empty()).then(|| parts.join(", "))
        }
        Value::Object(map) => {
            let parts: Vec<String> = map
                .iter()
                .filter_map(|(k, v)| {
                    let text = flatten(v)?;
                    Some(if k == "base" || k == "error" {
                        text
                    } else {
                        format!("{k}: {text}")
                    })
                })
                .collect();
            (!parts.is_empty()).then(|| parts.join("; "))
        }
        Value::Number(n) => Some(n.to_string()),
        _ => None,
    }
}

fn looks_like_html(body: &[u8]) -> bool {
    let start: Vec<u8> = body
        .iter()
        .skip_while(|b| b.is_ascii_whitespace())
        .take(15)
        .map(u8::to_ascii_lowercase)
        .collect();
    start.starts_with(b"<!doctype html") || start.starts_with(b"<html")
}

/// At most `MESSAGE_LIMIT` characters, on a character boundary.
pub fn cut(text: &str) -> String {
    if text.chars().count() <= MESSAGE_LIMIT {
        return text.to_string();
    }
    let mut out: String = text.chars().take(MESSAGE_LIMIT).collect();
    out.push('…');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn message(body: &str) -> Option<String> {
        StatusError::from_parts(400, body.as_bytes(), None, None).message
    }

    #[test]
    fn reads_every_gitlab_body_format() {
        assert_eq!(
            message(r#"{"message":"404 Project Not Found"}"#).unwrap(),
            "404 Project Not Found"
        );
        assert_eq!(
            message(r#"{"error":"title is missing"}"#).unwrap(),
            "title is missing"
        );
        assert_eq!(
            message(r#"{"message":{"title":["can't be blank"],"base":["Limit reached"]}}"#)
                .unwrap(),
            "title: can't be blank; Limit reached"
        );
        assert_eq!(
            message(r#"{"message":{"error":"This endpoint has been requested too many times."}}"#)
                .unwrap(),
            "This endpoint has been requested too many times."
        );
        assert_eq!(
            message(r#"{"error":"invalid_token","error_description":"Token is expired."}"#)
                .unwrap(),
            "Token is expired."
        );
        assert_eq!(message("Retry later").unwrap(), "Retry later");
        assert_eq!(
            message(r#"{"errors":[{"message":"Invalid token"}]}"#).unwrap(),
            "Invalid token"
        );
        assert_eq!(message("<!DOCTYPE html><html>502</html>"), None);
    }

    #[test]
    fn long_messages_are_cut() {
        let long = format!(r#"{{"message":"{}"}}"#, "x".repeat(1000));
        assert_eq!(message(&long).unwrap().chars().count(), MESSAGE_LIMIT + 1);
    }
}

//! Every refusal of `serve --http` as one value, rendered once
//! (`IntoResponse`): its status, OAuth's error body, the headers it needs
//! (a 401's challenge pointing to the protected-resource metadata,
//! `Retry-After`, `Connection: close` when the body is left unread) and its
//! count in the metrics, by reason. Handlers and middleware return
//! `Result<_, Refusal>` and chain with `?`.

use std::borrow::Cow;
use std::time::Duration;

use axum::extract::Request;
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};

use super::credentials::Denied;
use super::limits::Full;
use crate::metrics;
use crate::signin::error_body;

/// Why a request does not reach rmcp.
#[derive(Debug)]
pub enum Refusal {
    /// 401 or 403 from the caller's headers (`credentials.rs`); a 401's
    /// challenge points to `resource_metadata` (RFC 9728 §5.1).
    Denied {
        denied: Denied,
        resource_metadata: String,
    },
    /// 403: a `Host` or `Origin` this server is not reached by (`guard.rs`).
    HostOrOrigin(String),
    /// 413: the body is over the bound, declared or read.
    BodyTooLarge { limit: usize },
    /// 408: the body did not arrive within the body deadline.
    BodyTooSlow { timeout: Duration },
    /// 400: the body broke off before its declared end (the client closed
    /// its side, or its chunked encoding is malformed).
    BodyBroken,
    /// 503 or 429: a concurrency bound is full (`limits.rs`).
    Busy(Full),
    /// 503: `--stateful`'s sessions are at their bound (`session_bound.rs`).
    SessionsFull,
}

/// How long the body of a refused request may take to arrive (`answer`).
const DRAIN_TIME: Duration = Duration::from_secs(2);

impl Refusal {
    /// Answered without reading the request's body (a foreign site's
    /// request, or a body too large or too slow to wait for): the
    /// connection closes after the answer, and the answer says so.
    pub fn leaves_body_unread(&self) -> bool {
        matches!(
            self,
            Refusal::HostOrOrigin(_)
                | Refusal::BodyTooLarge { .. }
                | Refusal::BodyTooSlow { .. }
                | Refusal::BodyBroken
        )
    }

    /// The answer to `request`, sent once its body is read. hyper closes a
    /// connection whose request body was neither read nor all received
    /// when the answer went out, without `Connection: close` in that
    /// answer; a client that writes the body after the headers (the Python
    /// SDK's httpx) and reuses the connection for its next request, as
    /// OAuth discovery after a 401 does, then fails with "server
    /// disconnected without sending a response". So the body (at most
    /// `limit` bytes) is read first, for at most `DRAIN_TIME`; a body that
    /// is larger, slower or broken gets the refusal with `Connection:
    /// close`.
    pub async fn answer(self, request: Request, limit: usize) -> Response {
        if self.leaves_body_unread() {
            return self.into_response();
        }
        let read =
            tokio::time::timeout(DRAIN_TIME, axum::body::to_bytes(request.into_body(), limit))
                .await;
        let response = self.into_response();
        match read {
            Ok(Ok(_)) => response,
            _ => closing(response),
        }
    }

    fn status(&self) -> StatusCode {
        match self {
            Refusal::Denied {
                denied: Denied::GitLabUrl(_),
                ..
            }
            | Refusal::HostOrOrigin(_) => StatusCode::FORBIDDEN,
            Refusal::Denied { .. } => StatusCode::UNAUTHORIZED,
            Refusal::BodyTooLarge { .. } => StatusCode::PAYLOAD_TOO_LARGE,
            Refusal::BodyTooSlow { .. } => StatusCode::REQUEST_TIMEOUT,
            Refusal::BodyBroken => StatusCode::BAD_REQUEST,
            Refusal::Busy(Full::Server) | Refusal::SessionsFull => StatusCode::SERVICE_UNAVAILABLE,
            Refusal::Busy(Full::Credential) => StatusCode::TOO_MANY_REQUESTS,
        }
    }

    /// The body's `error`.
    fn code(&self) -> &'static str {
        match self {
            Refusal::Denied { denied, .. } => match denied {
                Denied::Unauthenticated(_) => "unauthorized",
                Denied::InvalidToken(_) => "invalid_token",
                Denied::GitLabUrl(_) => "forbidden",
            },
            Refusal::HostOrOrigin(_) => "forbidden",
            Refusal::BodyTooLarge { .. } => "payload_too_large",
            Refusal::BodyTooSlow { .. } => "request_timeout",
            Refusal::BodyBroken => "invalid_request",
            Refusal::Busy(_) => "too_many_requests",
            Refusal::SessionsFull => "too_many_sessions",
        }
    }

    fn description(&self) -> Cow<'_, str> {
        match self {
            Refusal::Denied { denied, .. } => match denied {
                Denied::Unauthenticated(why) => Cow::Borrowed(why),
                Denied::InvalidToken(problem) => problem.to_string().into(),
                Denied::GitLabUrl(url) => {
                    format!("`{url}` is not a GitLab this server may reach; nothing was sent")
                        .into()
                }
            },
            Refusal::HostOrOrigin(reason) => Cow::Borrowed(reason),
            Refusal::BodyTooLarge { limit } => {
                format!("the request body is over {limit} bytes, this server's limit").into()
            }
            Refusal::BodyTooSlow { timeout } => format!(
                "the request body took over {} s to arrive",
                timeout.as_secs()
            )
            .into(),
            Refusal::BodyBroken => "the request body ended before its declared length".into(),
            Refusal::Busy(Full::Server) => {
                "this server is serving as many requests as it may; retry shortly".into()
            }
            Refusal::Busy(Full::Credential) => {
                "this token has as many requests in flight as it may; retry shortly".into()
            }
            Refusal::SessionsFull => "this server holds as many sessions as it may; retry shortly, or use protocol 2026-07-28, which needs none".into(),
        }
    }

    /// The reason the metrics count it under.
    fn reason(&self) -> &'static str {
        match self {
            Refusal::Denied { denied, .. } => match denied {
                Denied::Unauthenticated(_) => "unauthenticated",
                Denied::InvalidToken(_) => "invalid_token",
                Denied::GitLabUrl(_) => "gitlab_url",
            },
            Refusal::HostOrOrigin(_) => "host_or_origin",
            Refusal::BodyTooLarge { .. } => "body_too_large",
            Refusal::BodyTooSlow { .. } => "body_too_slow",
            Refusal::BodyBroken => "body_broken",
            Refusal::Busy(Full::Server) => "server_busy",
            Refusal::Busy(Full::Credential) => "token_busy",
            Refusal::SessionsFull => "sessions_full",
        }
    }

    /// A 401's `WWW-Authenticate`: the metadata's URL and, for a bad token,
    /// its OAuth error (RFC 6750 §3).
    fn challenge(&self) -> Option<String> {
        let Refusal::Denied {
            denied,
            resource_metadata,
        } = self
        else {
            return None;
        };
        let error = match denied {
            Denied::GitLabUrl(_) => return None,
            Denied::Unauthenticated(_) => String::new(),
            Denied::InvalidToken(_) => format!(
                "error=\"{}\", error_description=\"{}\", ",
                self.code(),
                self.description()
            ),
        };
        Some(format!(
            "Bearer {error}resource_metadata=\"{resource_metadata}\""
        ))
    }

    /// Seconds after which a full bound may have room again.
    fn retry_after(&self) -> Option<&'static str> {
        match self {
            Refusal::Busy(_) => Some("1"),
            Refusal::SessionsFull => Some("5"),
            _ => None,
        }
    }
}

impl IntoResponse for Refusal {
    fn into_response(self) -> Response {
        metrics::global().refusal(self.reason());
        let mut response = error_body(self.status(), self.code(), &self.description());
        let headers = response.headers_mut();
        if let Some(value) = self
            .challenge()
            .and_then(|c| HeaderValue::from_str(&c).ok())
        {
            headers.insert(header::WWW_AUTHENTICATE, value);
        }
        if let Some(seconds) = self.retry_after() {
            headers.insert(header::RETRY_AFTER, HeaderValue::from_static(seconds));
        }
        if self.leaves_body_unread() {
            return closing(response);
        }
        response
    }
}

/// An answer after which the connection closes, saying so.
fn closing(mut response: Response) -> Response {
    response
        .headers_mut()
        .insert(header::CONNECTION, HeaderValue::from_static("close"));
    response
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::signin::{TokenProblem, assert_response};

    const METADATA: &str = "https://mcp.example.com/.well-known/oauth-protected-resource/mcp";

    fn denied(denied: Denied) -> Refusal {
        Refusal::Denied {
            denied,
            resource_metadata: METADATA.into(),
        }
    }

    #[tokio::test]
    async fn each_refusal_has_its_status_headers_and_body() {
        const JSON: (&str, &str) = ("content-type", "application/json");
        const CLOSE: (&str, &str) = ("connection", "close");
        type Headers = &'static [(&'static str, &'static str)];
        let cases: [(Refusal, u16, Headers, &str); 9] = [
            (
                denied(Denied::Unauthenticated(
                    "this server requires your own GitLab token",
                )),
                401,
                &[
                    JSON,
                    (
                        "www-authenticate",
                        "Bearer resource_metadata=\"https://mcp.example.com/.well-known/oauth-protected-resource/mcp\"",
                    ),
                ],
                r#"{"error":"unauthorized","error_description":"this server requires your own GitLab token"}"#,
            ),
            (
                denied(Denied::InvalidToken(TokenProblem::Expired)),
                401,
                &[
                    JSON,
                    (
                        "www-authenticate",
                        "Bearer error=\"invalid_token\", error_description=\"the access token has expired: refresh it\", resource_metadata=\"https://mcp.example.com/.well-known/oauth-protected-resource/mcp\"",
                    ),
                ],
                r#"{"error":"invalid_token","error_description":"the access token has expired: refresh it"}"#,
            ),
            (
                denied(Denied::GitLabUrl("https://evil.example".into())),
                403,
                &[JSON],
                r#"{"error":"forbidden","error_description":"`https://evil.example` is not a GitLab this server may reach; nothing was sent"}"#,
            ),
            (
                Refusal::HostOrOrigin("Origin `https://evil.example` is not allowed".into()),
                403,
                &[CLOSE, JSON],
                r#"{"error":"forbidden","error_description":"Origin `https://evil.example` is not allowed"}"#,
            ),
            (
                Refusal::BodyTooLarge { limit: 1024 },
                413,
                &[CLOSE, JSON],
                r#"{"error":"payload_too_large","error_description":"the request body is over 1024 bytes, this server's limit"}"#,
            ),
            (
                Refusal::BodyTooSlow {
                    timeout: Duration::from_secs(10),
                },
                408,
                &[CLOSE, JSON],
                r#"{"error":"request_timeout","error_description":"the request body took over 10 s to arrive"}"#,
            ),
            (
                Refusal::Busy(Full::Server),
                503,
                &[JSON, ("retry-after", "1")],
                r#"{"error":"too_many_requests","error_description":"this server is serving as many requests as it may; retry shortly"}"#,
            ),
            (
                Refusal::Busy(Full::Credential),
                429,
                &[JSON, ("retry-after", "1")],
                r#"{"error":"too_many_requests","error_description":"this token has as many requests in flight as it may; retry shortly"}"#,
            ),
            (
                Refusal::SessionsFull,
                503,
                &[JSON, ("retry-after", "5")],
                r#"{"error":"too_many_sessions","error_description":"this server holds as many sessions as it may; retry shortly, or use protocol 2026-07-28, which needs none"}"#,
            ),
        ];
        for (refusal, status, headers, body) in cases {
            let what = format!("{refusal:?}");
            assert_response(refusal.into_response(), status, headers, body, &what).await;
        }
    }

    #[tokio::test]
    async fn a_refusal_decided_from_the_headers_is_sent_once_the_body_is_read() {
        let request = |body: &'static str| {
            Request::builder()
                .body(axum::body::Body::from(body))
                .unwrap()
        };
        let refusal = || Refusal::Busy(Full::Credential);
        let read = refusal().answer(request("{}"), 16).await;
        assert_eq!(read.status(), 429);
        assert_eq!(read.headers().get(header::CONNECTION), None);
        // Over the bound: not waited for, and the connection closes.
        let unread = refusal()
            .answer(request("a body over sixteen bytes"), 16)
            .await;
        assert_eq!(unread.status(), 429);
        assert_eq!(unread.headers()[header::CONNECTION], "close");
    }
}

//! Faults a test can inject: a status with GitLab's headers and body, a
//! delay, a malformed body. Each fault matches a method and a path prefix
//! and fires a given number of times.

use std::time::Duration;

#[derive(Debug, Clone)]
pub struct Fault {
    pub method: Option<String>,
    /// Matches when the raw path starts with this.
    pub path_prefix: Option<String>,
    pub status: Option<u16>,
    pub body: Option<String>,
    pub content_type: &'static str,
    /// Seconds for `Retry-After` (GitLab sends it with 429).
    pub retry_after: Option<u64>,
    /// Wait this long before answering.
    pub delay: Option<Duration>,
    /// How many matching requests this fault answers; `None` for all.
    pub times: Option<usize>,
}

impl Fault {
    /// A fault answering with `status` and GitLab's usual body for it.
    pub fn status(status: u16) -> Self {
        let body = match status {
            // Rack::Attack throttling answers plain text (gitlab-facts.md).
            429 => None,
            500 => Some(r#"{"message":"500 Internal Server Error"}"#.to_string()),
            // Behind nginx, a 502/503 is an HTML page, not JSON.
            502..=504 => Some(format!(
                "<!DOCTYPE html>\n<html><head><title>GitLab is not responding ({status})</title></head><body><h1>{status}</h1></body></html>"
            )),
            _ => Some(format!(r#"{{"message":"{status}"}}"#)),
        };
        let content_type = match status {
            429 => "text/plain",
            502..=504 => "text/html",
            _ => "application/json",
        };
        Fault {
            method: None,
            path_prefix: None,
            status: Some(status),
            body: body.or_else(|| Some("Retry later\n".to_string())),
            content_type,
            retry_after: None,
            delay: None,
            times: None,
        }
    }

    /// A fault that only delays the real answer.
    pub fn delay(delay: Duration) -> Self {
        Fault {
            method: None,
            path_prefix: None,
            status: None,
            body: None,
            content_type: "application/json",
            retry_after: None,
            delay: Some(delay),
            times: None,
        }
    }

    /// A 200 whose JSON body is cut short.
    pub fn malformed() -> Self {
        Fault {
            status: Some(200),
            body: Some(r#"[{"id": 1, "title": "cut"#.to_string()),
            ..Fault::status(200)
        }
    }

    pub fn body(mut self, content_type: &'static str, body: impl Into<String>) -> Self {
        self.body = Some(body.into());
        self.content_type = content_type;
        self
    }

    pub fn on(mut self, method: &str, path_prefix: &str) -> Self {
        self.method = Some(method.to_string());
        self.path_prefix = Some(path_prefix.to_string());
        self
    }

    pub fn retry_after(mut self, seconds: u64) -> Self {
        self.retry_after = Some(seconds);
        self
    }

    pub fn times(mut self, times: usize) -> Self {
        self.times = Some(times);
        self
    }

    pub fn matches(&self, method: &str, path: &str) -> bool {
        self.method.as_deref().is_none_or(|m| m == method)
            && self
                .path_prefix
                .as_deref()
                .is_none_or(|p| path.starts_with(p))
            && self.times != Some(0)
    }
}

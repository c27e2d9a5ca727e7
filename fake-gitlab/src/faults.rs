//! Faults a test can inject, each matching a method and a path prefix and
//! firing a given number of times (`times`), after an optional `delay`:
//!
//! - `status(code)`: GitLab's answer for that status. 429 is Rack::Attack's
//!   plain-text `Retry later` (docs: https://docs.gitlab.com/security/rate_limits/),
//!   without `Retry-After` unless `.retry_after(seconds)` adds it and the
//!   `RateLimit-*` headers; 500 is `{"message":"500 Internal Server Error"}`;
//!   502-504 are the HTML pages the front proxy serves (docs:
//!   https://docs.gitlab.com/api/rest/troubleshooting/).
//! - `rate_limited()`: the application rate limit's 429 JSON body.
//! - `html(code)`: an HTML error page with any status, as a proxy or a
//!   sign-in page answers instead of the API.
//! - `malformed()` / `invalid_json()`: a 200 `application/json` body that
//!   is not JSON.
//! - `truncated(declared, sent)`: `Content-Length: declared`, `sent` bytes,
//!   then the connection closes.
//! - `reset()`: the connection is reset (RST) without an answer.
//! - `endless()`: headers, then a body that never comes; `trickle(every)`:
//!   a byte every `every`, for ever.
//! - `huge(bytes)`: a 200 text body of `bytes` bytes, made as it streams.
//! - `wrong_content_type(ct)`: the real answer with another `Content-Type`.
//! - `redirect(status, to)`: 301/302/307/308 with `Location` on another
//!   host: `to` plus the request's path and query.
//!
//! `.chance(p)` makes any of them fire on a matching request with
//! probability `p` only (a load test's "5% of answers fail"); a request it
//! spares goes on to the next matching fault, or to the real answer. The
//! draws come from one seeded generator, so a run's rate is `p` but which
//! request gets a fault depends on the order requests arrive in.

use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Duration;

use axum::body::Bytes;
use http_body::Frame;

#[derive(Debug, Clone, PartialEq)]
pub enum Action {
    /// Answer `status` with `body` and `headers`.
    Respond,
    /// Declare this many bytes and send `body` only, then close.
    Truncated { declared: usize },
    /// Reset the connection, answer nothing.
    Reset,
    /// Headers, then nothing (`None`) or a byte every interval, for ever.
    Endless { every: Option<Duration> },
    /// A streamed 200 body of this many bytes.
    Huge { bytes: u64 },
    /// The real answer, with this content type.
    Retype(&'static str),
}

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
    pub action: Action,
    /// Extra response headers (a redirect's `Location` base is kept in
    /// `redirect_to` and completed per request).
    pub headers: Vec<(String, String)>,
    pub redirect_to: Option<String>,
    /// Fire on a matching request with this probability; `None`: always.
    pub chance: Option<f64>,
}

impl Fault {
    fn new(status: Option<u16>, body: Option<String>, content_type: &'static str) -> Self {
        Fault {
            method: None,
            path_prefix: None,
            status,
            body,
            content_type,
            retry_after: None,
            delay: None,
            times: None,
            action: Action::Respond,
            headers: Vec::new(),
            redirect_to: None,
            chance: None,
        }
    }

    /// A fault answering with `status` and GitLab's usual body for it.
    pub fn status(status: u16) -> Self {
        match status {
            // Rack::Attack throttling answers plain text.
            429 => Fault::new(Some(429), Some("Retry later\n".into()), "text/plain"),
            500 => Fault::new(
                Some(500),
                Some(r#"{"message":"500 Internal Server Error"}"#.into()),
                "application/json",
            ),
            // Behind nginx, a 502/503/504 is an HTML page, not JSON.
            502..=504 => Fault::html(status),
            _ => Fault::new(
                Some(status),
                Some(format!(r#"{{"message":"{status}"}}"#)),
                "application/json",
            ),
        }
    }

    /// The application rate limit's 429: a JSON body (docs:
    /// https://docs.gitlab.com/administration/settings/rate_limit_on_issues_creation/).
    pub fn rate_limited() -> Self {
        Fault::new(
            Some(429),
            Some(r#"{"message":{"error":"This endpoint has been requested too many times. Try again later."}}"#.into()),
            "application/json",
        )
    }

    /// An HTML error page with `status`, like GitLab's static pages.
    pub fn html(status: u16) -> Self {
        let title = match status {
            502 => "GitLab is not responding (502)",
            503 => "GitLab is currently unavailable (503)",
            504 => "GitLab is not responding (504)",
            500 => "We're sorry, but something went wrong (500)",
            _ => "Something went wrong",
        };
        Fault::new(
            Some(status),
            Some(format!(
                "<!DOCTYPE html>\n<html><head><title>{title}</title></head><body><h1>{status}</h1><p>{title}</p></body></html>"
            )),
            "text/html",
        )
    }

    /// A fault that only delays the real answer.
    pub fn delay(delay: Duration) -> Self {
        Fault {
            delay: Some(delay),
            ..Fault::new(None, None, "application/json")
        }
    }

    /// A 200 whose JSON body is cut short.
    pub fn malformed() -> Self {
        Fault::new(
            Some(200),
            Some(r#"[{"id": 1, "title": "cut"#.into()),
            "application/json",
        )
    }

    /// A 200 `application/json` answer that is no JSON at all.
    pub fn invalid_json() -> Self {
        Fault::new(
            Some(200),
            Some("<html><body>Redirecting to sign in...</body></html>".into()),
            "application/json",
        )
    }

    /// `Content-Length: declared`, then only `sent` bytes before the
    /// connection closes.
    pub fn truncated(declared: usize, sent: &str) -> Self {
        Fault {
            action: Action::Truncated { declared },
            ..Fault::new(Some(200), Some(sent.into()), "application/json")
        }
    }

    /// The connection is reset without an answer.
    pub fn reset() -> Self {
        Fault {
            action: Action::Reset,
            ..Fault::new(None, None, "application/json")
        }
    }

    /// A 200 whose headers come and whose body never does.
    pub fn endless() -> Self {
        Fault {
            action: Action::Endless { every: None },
            ..Fault::new(Some(200), None, "application/json")
        }
    }

    /// A 200 whose body comes a byte every `every`, for ever.
    pub fn trickle(every: Duration) -> Self {
        Fault {
            action: Action::Endless { every: Some(every) },
            ..Fault::new(Some(200), None, "text/plain")
        }
    }

    /// A 200 plain-text body of `bytes` bytes (numbered lines), generated
    /// as it is sent: never held in memory.
    pub fn huge(bytes: u64) -> Self {
        Fault {
            action: Action::Huge { bytes },
            ..Fault::new(Some(200), None, "text/plain; charset=utf-8")
        }
    }

    /// The real answer, but labelled `content_type`.
    pub fn wrong_content_type(content_type: &'static str) -> Self {
        Fault {
            action: Action::Retype(content_type),
            ..Fault::new(None, None, content_type)
        }
    }

    /// A redirect to another host: `Location` is `to` (scheme, host, port)
    /// followed by the request's path and query, as after a domain move.
    pub fn redirect(status: u16, to: &str) -> Self {
        Fault {
            redirect_to: Some(to.trim_end_matches('/').to_string()),
            ..Fault::new(
                Some(status),
                Some(String::new()),
                "text/html; charset=utf-8",
            )
        }
    }

    pub fn body(mut self, content_type: &'static str, body: impl Into<String>) -> Self {
        self.body = Some(body.into());
        self.content_type = content_type;
        self
    }

    pub fn header(mut self, name: &str, value: &str) -> Self {
        self.headers.push((name.to_string(), value.to_string()));
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

    /// Fire on a matching request with probability `p` (0 to 1) only.
    pub fn chance(mut self, p: f64) -> Self {
        self.chance = Some(p.clamp(0.0, 1.0));
        self
    }

    /// Whether this fault fires on a request it matches: always, or with
    /// its chance.
    pub fn fires(&self) -> bool {
        use std::sync::atomic::{AtomicU64, Ordering};
        static STATE: AtomicU64 = AtomicU64::new(0x9E37_79B9_7F4A_7C15);
        let Some(p) = self.chance else {
            return true;
        };
        // splitmix64 over a shared counter: uniform, lock-free, seeded.
        let mut z = STATE.fetch_add(0x9E37_79B9_7F4A_7C15, Ordering::Relaxed);
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^= z >> 31;
        ((z >> 11) as f64 / (1u64 << 53) as f64) < p
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

/// The streamed bodies of the faults above.
pub(crate) enum FaultBody {
    /// Some bytes, a pause (so they leave before the connection closes),
    /// then the end: short of the declared length, for `truncated`.
    Once(Option<Bytes>, Option<Pin<Box<tokio::time::Sleep>>>),
    /// Numbered lines up to `remaining` bytes.
    Huge { remaining: u64, line: u64 },
    /// A byte per tick, or nothing ever.
    Endless {
        every: Option<Duration>,
        sleep: Option<Pin<Box<tokio::time::Sleep>>>,
    },
}

const CHUNK: usize = 64 * 1024;

impl http_body::Body for FaultBody {
    type Data = Bytes;
    type Error = std::io::Error;

    fn poll_frame(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Self::Error>>> {
        match self.get_mut() {
            FaultBody::Once(data, pause) => {
                if let Some(d) = data.take() {
                    return Poll::Ready(Some(Ok(Frame::data(d))));
                }
                let timer = pause
                    .get_or_insert_with(|| Box::pin(tokio::time::sleep(Duration::from_millis(50))));
                timer.as_mut().poll(cx).map(|()| None)
            }
            FaultBody::Huge { remaining, line } => {
                if *remaining == 0 {
                    return Poll::Ready(None);
                }
                let mut chunk = String::with_capacity(CHUNK + 64);
                while chunk.len() < CHUNK && (chunk.len() as u64) < *remaining {
                    *line += 1;
                    chunk.push_str(&format!(
                        "[{:09}] generated log line, padding to size\n",
                        *line
                    ));
                }
                chunk.truncate((*remaining).min(chunk.len() as u64) as usize);
                *remaining -= chunk.len() as u64;
                Poll::Ready(Some(Ok(Frame::data(Bytes::from(chunk)))))
            }
            FaultBody::Endless { every: None, .. } => Poll::Pending,
            FaultBody::Endless {
                every: Some(every),
                sleep,
            } => {
                let timer = sleep.get_or_insert_with(|| Box::pin(tokio::time::sleep(*every)));
                match timer.as_mut().poll(cx) {
                    Poll::Pending => Poll::Pending,
                    Poll::Ready(()) => {
                        *sleep = None;
                        Poll::Ready(Some(Ok(Frame::data(Bytes::from_static(b".")))))
                    }
                }
            }
        }
    }
}

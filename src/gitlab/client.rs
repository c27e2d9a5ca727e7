//! The HTTP client: the only code that knows reqwest.
//!
//! One `reqwest::Client` (a pool of kept-alive connections) per server. The
//! token goes into one header marked sensitive, so it is redacted from any
//! debug output of hyper and reqwest.

use std::error::Error as _;
use std::time::Duration;

use reqwest::header::{HeaderMap, HeaderName, HeaderValue};

use super::error::{GitLabError, NetworkKind, StatusError};
use super::request::{Body, HttpRequest};
use super::response::{Pagination, Response};
use crate::catalog::Method;
use std::sync::Arc;

use tokio::sync::Semaphore;

use crate::config::{AuthScheme, Config, ConfigError, Retry};

#[derive(Debug, Clone)]
pub struct Client {
    http: reqwest::Client,
    api_root: String,
    /// The host, for network error messages.
    host: String,
    has_token: bool,
    retry: Retry,
    /// Bounds the GitLab requests in flight at once.
    slots: Arc<Semaphore>,
}

/// A request that failed, after this many attempts.
#[derive(Debug)]
pub struct Failed {
    pub error: GitLabError,
    pub attempts: u32,
}

impl Client {
    pub fn new(config: &Config) -> Result<Self, ConfigError> {
        // reqwest is built without a default crypto provider: use ring. A
        // second install (another client in the same process) is a no-op.
        let _ = rustls::crypto::ring::default_provider().install_default();
        let mut headers = HeaderMap::new();
        if let Some(token) = &config.token {
            let (name, value) = match config.auth {
                AuthScheme::PrivateToken => (
                    HeaderName::from_static("private-token"),
                    token.expose().to_string(),
                ),
                AuthScheme::Bearer => (
                    reqwest::header::AUTHORIZATION,
                    format!("Bearer {}", token.expose()),
                ),
            };
            let mut value =
                HeaderValue::from_str(&value).map_err(|_| ConfigError::TokenCharacters)?;
            value.set_sensitive(true);
            headers.insert(name, value);
        }
        let http = reqwest::Client::builder()
            .default_headers(headers)
            .user_agent(concat!("gitlab-mcp/", env!("CARGO_PKG_VERSION")))
            .connect_timeout(config.connect_timeout)
            .timeout(config.request_timeout)
            // GitLab redirects only to its sign-in page or to object storage;
            // neither must receive the token, and reqwest drops it on a
            // cross-host redirect anyway. Following none is simplest.
            .redirect(reqwest::redirect::Policy::none())
            .build()
            .expect("reqwest client builds with static settings");
        let host = config
            .api_root
            .split("://")
            .nth(1)
            .and_then(|rest| rest.split('/').next())
            .unwrap_or_default()
            .to_string();
        Ok(Client {
            http,
            api_root: config.api_root.clone(),
            host,
            has_token: config.token.is_some(),
            retry: config.retry,
            slots: Arc::new(Semaphore::new(config.max_concurrent)),
        })
    }

    /// Send a request, retrying it while that is safe: `repeatable` says the
    /// request may be repeated (GET, or a PUT/DELETE the catalog marks
    /// idempotent). Only 429, 502, 503, 504 and connection failures are
    /// retried; a request that may have reached GitLab is retried only when
    /// repeatable. Waits honour `Retry-After` and `RateLimit-Reset`, else
    /// back off exponentially with jitter, within `max_wait` in all.
    pub async fn send(&self, request: &HttpRequest, repeatable: bool) -> Result<Response, Failed> {
        let mut waited = Duration::ZERO;
        let mut attempts = 0;
        loop {
            attempts += 1;
            let result = {
                let _slot = self
                    .slots
                    .acquire()
                    .await
                    .expect("the semaphore is never closed");
                self.send_once(request).await
            };
            let error = match result {
                Ok(response) => return Ok(response),
                Err(error) => error,
            };
            let delay = match retry_delay(&error, repeatable, attempts, self.retry.base_delay) {
                Some(delay)
                    if attempts <= self.retry.max_retries
                        && waited + delay <= self.retry.max_wait =>
                {
                    delay
                }
                _ => return Err(Failed { error, attempts }),
            };
            tracing::info!(attempt = attempts, delay_ms = delay.as_millis() as u64, %error, "retrying GitLab request");
            tokio::time::sleep(delay).await;
            waited += delay;
        }
    }

    pub fn has_token(&self) -> bool {
        self.has_token
    }

    pub fn host(&self) -> &str {
        &self.host
    }

    /// Send one request and read the whole answer.
    async fn send_once(&self, request: &HttpRequest) -> Result<Response, GitLabError> {
        let url = format!("{}{}", self.api_root, request.path_and_query());
        let parsed = reqwest::Url::parse(&url).map_err(|_| GitLabError::Network {
            kind: NetworkKind::Other,
            host: self.host.clone(),
        })?;
        // The encoding guarantees the URL parser changes nothing; this check
        // keeps that promise even if the encoding had a bug.
        if !parsed.path().ends_with(&request.path) {
            return Err(GitLabError::Body(
                "the request path was altered by URL parsing; nothing was sent".into(),
            ));
        }
        let method = match request.method {
            Method::Get => reqwest::Method::GET,
            Method::Post => reqwest::Method::POST,
            Method::Put => reqwest::Method::PUT,
            Method::Patch => reqwest::Method::PATCH,
            Method::Delete => reqwest::Method::DELETE,
        };
        let mut builder = self.http.request(method, parsed);
        match &request.body {
            None => {}
            Some(Body::Json(body)) => builder = builder.json(body),
            Some(Body::File {
                field,
                file_name,
                bytes,
            }) => {
                let part =
                    reqwest::multipart::Part::bytes(bytes.clone()).file_name(file_name.clone());
                builder = builder.multipart(reqwest::multipart::Form::new().part(*field, part));
            }
        }
        let answer = builder.send().await.map_err(|e| self.network_error(&e))?;

        let status = answer.status().as_u16();
        // Only these header values are kept; the map itself is not copied.
        let (request_id, is_json, retry_after, pagination) = {
            let headers = answer.headers();
            let header = |name: &str| headers.get(name).and_then(|v| v.to_str().ok());
            (
                header("x-request-id").map(str::to_string),
                header("content-type").is_some_and(|c| c.contains("json")),
                retry_after(header("retry-after"), header("ratelimit-reset")),
                Pagination::from_headers(header),
            )
        };
        // A body is read whole (answers are windowed after), but never more
        // than MAX_BODY: an artifacts archive or a log can be gigabytes.
        if answer.content_length().is_some_and(|n| n > MAX_BODY as u64) {
            return Err(too_large());
        }
        let mut answer = answer;
        let mut collected = bytes::BytesMut::new();
        while let Some(chunk) = answer.chunk().await.map_err(|e| self.network_error(&e))? {
            if collected.len() + chunk.len() > MAX_BODY {
                return Err(too_large());
            }
            collected.extend_from_slice(&chunk);
        }
        let body = collected.freeze();

        if (200..300).contains(&status) {
            Ok(Response {
                status,
                body,
                is_json,
                pagination,
                request_id,
            })
        } else {
            Err(GitLabError::Status(StatusError::from_parts(
                status,
                &body,
                request_id,
                retry_after,
            )))
        }
    }

    fn network_error(&self, error: &reqwest::Error) -> GitLabError {
        GitLabError::Network {
            kind: classify(error),
            host: self.host.clone(),
        }
    }
}

/// The most bytes of one GitLab answer the server reads.
const MAX_BODY: usize = 256 * 1024 * 1024;

fn too_large() -> GitLabError {
    GitLabError::Body(format!(
        "GitLab's answer is over {} MiB, more than this server reads; ask for less (a page, a file, a line range)",
        MAX_BODY / (1024 * 1024)
    ))
}

/// How long to wait before retrying after `error`, or `None` when it must
/// not be retried.
fn retry_delay(
    error: &GitLabError,
    repeatable: bool,
    attempt: u32,
    base: Duration,
) -> Option<Duration> {
    let backoff = || {
        // Exponential, capped at 8 s, with ±50% jitter so clients that
        // failed together do not retry together.
        let exponential = base
            .saturating_mul(1 << (attempt - 1).min(4))
            .min(Duration::from_secs(8));
        exponential.mul_f64(0.5 + jitter())
    };
    match error {
        // Never sent: safe for any request.
        GitLabError::Network {
            kind: NetworkKind::Refused | NetworkKind::Dns,
            ..
        } => Some(backoff()),
        // May have reached GitLab: only when repeating it changes nothing.
        GitLabError::Network {
            kind: NetworkKind::Timeout | NetworkKind::ConnectTimeout | NetworkKind::Connection,
            ..
        } if repeatable => Some(backoff()),
        GitLabError::Status(status)
            if repeatable && matches!(status.status, 429 | 502 | 503 | 504) =>
        {
            Some(
                status
                    .retry_after
                    .map_or_else(backoff, |wait| wait.max(Duration::from_millis(100))),
            )
        }
        _ => None,
    }
}

/// A number in [0, 1) that differs between calls; good enough for jitter.
fn jitter() -> f64 {
    use std::sync::atomic::{AtomicU64, Ordering};
    static STATE: AtomicU64 = AtomicU64::new(0);
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.subsec_nanos() as u64)
        .unwrap_or(1);
    let mut x = STATE.fetch_add(0x9E37_79B9_7F4A_7C15, Ordering::Relaxed) ^ nanos;
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    (x >> 11) as f64 / (1u64 << 53) as f64
}

/// `Retry-After` in seconds, else `RateLimit-Reset` (a Unix time).
fn retry_after(retry_after: Option<&str>, reset: Option<&str>) -> Option<Duration> {
    if let Some(seconds) = retry_after.and_then(|v| v.trim().parse::<u64>().ok()) {
        return Some(Duration::from_secs(seconds));
    }
    let reset: u64 = reset?.trim().parse().ok()?;
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .ok()?
        .as_secs();
    Some(Duration::from_secs(reset.saturating_sub(now)))
}

/// Words in an error chain that only a TLS failure produces (rustls's
/// errors, in their display and debug forms).
const TLS_SIGNS: &[&str] = &[
    "certificate",
    "tls",
    "handshake",
    "invalid peer",
    "invalidmessage",
    "invalidcontenttype",
    "alertreceived",
    "peerincompatible",
    "unknownissuer",
];

/// Which network failure this is, from reqwest's flags and the error chain.
fn classify(error: &reqwest::Error) -> NetworkKind {
    if error.is_timeout() {
        return if error.is_connect() {
            NetworkKind::ConnectTimeout
        } else {
            NetworkKind::Timeout
        };
    }
    let mut chain = String::new();
    let mut source = error.source();
    while let Some(e) = source {
        if let Some(io) = e.downcast_ref::<std::io::Error>() {
            match io.kind() {
                std::io::ErrorKind::ConnectionRefused => return NetworkKind::Refused,
                std::io::ErrorKind::TimedOut => return NetworkKind::Timeout,
                _ => {}
            }
        }
        chain.push_str(&e.to_string().to_ascii_lowercase());
        chain.push(' ');
        chain.push_str(&format!("{e:?}").to_ascii_lowercase());
        chain.push('\n');
        source = e.source();
    }
    tracing::debug!(%chain, "network error");
    if chain.contains("dns error")
        || chain.contains("failed to lookup address")
        || chain.contains("name or service not known")
    {
        NetworkKind::Dns
    } else if TLS_SIGNS.iter().any(|sign| chain.contains(sign)) {
        NetworkKind::Tls
    } else if chain.contains("connection refused") {
        NetworkKind::Refused
    } else if error.is_connect() || error.is_request() || error.is_body() {
        NetworkKind::Connection
    } else {
        NetworkKind::Other
    }
}

//! The HTTP client: the only code that knows reqwest.
//!
//! One `reqwest::Client` (a pool of kept-alive connections) per server. It
//! holds no token and no address: each request names its `Target`, and the
//! token goes into one header of that request, marked sensitive, so it is
//! redacted from any debug output of hyper and reqwest.

use std::error::Error as _;
use std::sync::Arc;
use std::time::Duration;

use reqwest::header::{HeaderName, HeaderValue};
use tokio::sync::Semaphore;

use super::error::{GitLabError, NetworkKind, StatusError};
use super::request::{Body, Endpoint, GRAPHQL_PATH, HttpRequest};
use super::response::{Pagination, Response};
use super::target::{AuthScheme, Target};
use crate::catalog::Method;
use crate::metrics;

/// What the client needs to know, and nothing else.
#[derive(Debug, Clone, PartialEq)]
pub struct ClientSettings {
    pub connect_timeout: Duration,
    pub request_timeout: Duration,
    pub retry: Retry,
    /// At most this many GitLab requests at once.
    pub max_concurrent: usize,
    pub tls: TlsSettings,
}

/// How GitLab's certificate is checked.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct TlsSettings {
    /// Certificates (a PEM bundle) trusted besides the system's roots: a
    /// company CA, a self-signed GitLab.
    pub extra_ca_pem: Option<Arc<Vec<u8>>>,
    /// Accept any certificate. Off unless the operator says so, and said
    /// loudly at every start.
    pub skip_verify: bool,
}

impl Default for ClientSettings {
    fn default() -> Self {
        ClientSettings {
            connect_timeout: Duration::from_secs(10),
            request_timeout: Duration::from_secs(30),
            retry: Retry::default(),
            max_concurrent: 8,
            tls: TlsSettings::default(),
        }
    }
}

/// When and how long to retry.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Retry {
    /// Retries after the first attempt; 0 turns retries off.
    pub max_retries: u32,
    /// The most time spent waiting between attempts, over all retries.
    pub max_wait: Duration,
    /// The first back-off; each retry doubles it (with jitter).
    pub base_delay: Duration,
}

impl Default for Retry {
    fn default() -> Self {
        Retry {
            max_retries: 3,
            max_wait: Duration::from_secs(30),
            base_delay: Duration::from_millis(500),
        }
    }
}

#[derive(Debug, Clone)]
pub struct Client {
    http: reqwest::Client,
    settings: ClientSettings,
    /// Bounds the GitLab requests in flight at once.
    slots: Arc<Semaphore>,
    /// The last API root parsed: a request's URL is that root's with its
    /// path and query set, which parses only them (the scheme and host,
    /// the costly part, were parsed once).
    root: Arc<std::sync::Mutex<Option<reqwest::Url>>>,
}

/// A request that failed, after this many attempts.
#[derive(Debug)]
pub struct Failed {
    pub error: GitLabError,
    pub attempts: u32,
}

/// A successful answer's body, read as it arrives (`Client::stream`).
#[derive(Debug)]
pub struct BodyStream {
    answer: reqwest::Response,
    /// The answer's status and the header facts kept of it.
    status: u16,
    facts: Facts,
    /// For the error of a body that breaks off.
    host: String,
    read: usize,
    limit: usize,
    limited: bool,
    /// The request's place among those in flight, kept while it is read.
    _slot: tokio::sync::OwnedSemaphorePermit,
}

impl BodyStream {
    /// The answer with `body` in place of the one streamed: what a reader
    /// kept of it.
    pub fn response(&self, body: bytes::Bytes) -> Response {
        Response {
            status: self.status,
            body,
            is_json: self.facts.is_json,
            pagination: self.facts.pagination.clone(),
            request_id: self.facts.request_id.clone(),
        }
    }

    /// The next piece of the body, or `None` at its end or once `limit`
    /// bytes were read (the last piece is cut to the limit).
    pub async fn chunk(&mut self) -> Result<Option<bytes::Bytes>, GitLabError> {
        if self.limited {
            return Ok(None);
        }
        let chunk = self
            .answer
            .chunk()
            .await
            .map_err(|e| GitLabError::Network {
                kind: classify(&e),
                host: self.host.clone(),
            })?;
        let Some(mut chunk) = chunk else {
            return Ok(None);
        };
        let room = self.limit - self.read;
        if chunk.len() >= room {
            chunk.truncate(room);
            self.limited = true;
        }
        self.read += chunk.len();
        Ok(Some(chunk))
    }

    /// Whether reading stopped at the limit rather than at the body's end.
    pub fn limited(&self) -> bool {
        self.limited
    }
}

/// The few header values the server keeps of an answer.
#[derive(Debug)]
struct Facts {
    request_id: Option<String>,
    is_json: bool,
    retry_after: Option<Duration>,
    pagination: Pagination,
}

impl Client {
    /// A client; `Err` when the extra CA bundle holds no usable certificate.
    pub fn new(settings: ClientSettings) -> Result<Self, String> {
        // reqwest is built without a default crypto provider: use ring. A
        // second install (another client in the same process) is a no-op.
        let _ = rustls::crypto::ring::default_provider().install_default();
        let mut builder = reqwest::Client::builder();
        if let Some(pem) = &settings.tls.extra_ca_pem {
            let certs = reqwest::Certificate::from_pem_bundle(pem)
                .map_err(|e| format!("the CA bundle (GITLAB_CA_CERT) does not parse: {e}"))?;
            if certs.is_empty() {
                return Err("the CA bundle (GITLAB_CA_CERT) holds no certificate".into());
            }
            for cert in certs {
                builder = builder.add_root_certificate(cert);
            }
        }
        if settings.tls.skip_verify {
            builder = builder.danger_accept_invalid_certs(true);
        }
        let http = builder
            .user_agent(concat!("gitlab-mcp/", env!("CARGO_PKG_VERSION")))
            .connect_timeout(settings.connect_timeout)
            .timeout(settings.request_timeout)
            // GitLab redirects only to its sign-in page or to object storage;
            // neither must receive the token (`PRIVATE-TOKEN` is a custom
            // header no client strips on its own). Following none is safest.
            .redirect(reqwest::redirect::Policy::none())
            .build()
            .map_err(|e| format!("cannot build the HTTP client: {e}"))?;
        Ok(Client {
            http,
            slots: Arc::new(Semaphore::new(settings.max_concurrent.max(1))),
            settings,
            root: Arc::default(),
        })
    }

    pub fn settings(&self) -> &ClientSettings {
        &self.settings
    }

    /// Send a request to `target`, retrying it while that is safe
    /// (`HttpRequest::repeatable`). Only 429, 502, 503, 504 and connection
    /// failures are retried; a request that may have reached GitLab is
    /// retried only when repeatable. Waits honour `Retry-After` and
    /// `RateLimit-Reset`, else back off exponentially with jitter, within
    /// `max_wait` in all.
    pub async fn send(&self, target: &Target, request: &HttpRequest) -> Result<Response, Failed> {
        self.retrying(request, || async {
            let _slot = self
                .slots
                .acquire()
                .await
                .expect("the semaphore is never closed");
            timed(self.send_once(target, request)).await
        })
        .await
    }

    /// Send a request like `send`, but hand back a successful answer's
    /// body as it arrives, chunk by chunk, at most `limit` bytes of it: a
    /// job log can be hundreds of megabytes, and a reader that has what it
    /// needs stops early (dropping the stream closes the connection). The
    /// request keeps its place among those in flight until the stream is
    /// dropped. An error answer is read whole (it is small) and classified
    /// as `send` does.
    pub async fn stream(
        &self,
        target: &Target,
        request: &HttpRequest,
        limit: usize,
    ) -> Result<BodyStream, Failed> {
        self.retrying(request, || async {
            let slot = self
                .slots
                .clone()
                .acquire_owned()
                .await
                .expect("the semaphore is never closed");
            let (answer, facts) = timed(self.head_once(target, request)).await?;
            Ok(BodyStream {
                status: answer.status().as_u16(),
                facts,
                answer,
                host: target.host(),
                read: 0,
                limit,
                limited: false,
                _slot: slot,
            })
        })
        .await
    }

    /// One attempt after another, while the failure may be retried (see
    /// `send`).
    async fn retrying<T, F, Fut>(&self, request: &HttpRequest, mut attempt: F) -> Result<T, Failed>
    where
        F: FnMut() -> Fut,
        Fut: Future<Output = Result<T, GitLabError>>,
    {
        let retry = self.settings.retry;
        let mut waited = Duration::ZERO;
        let mut attempts = 0;
        loop {
            attempts += 1;
            let error = match attempt().await {
                Ok(answer) => return Ok(answer),
                Err(error) => error,
            };
            let delay = match retry_delay(&error, request.repeatable(), attempts, retry.base_delay)
            {
                // `Retry-After` can be any number: a sum past `Duration`'s
                // range is past the budget too.
                Some(delay)
                    if attempts <= retry.max_retries
                        && waited
                            .checked_add(delay)
                            .is_some_and(|total| total <= retry.max_wait) =>
                {
                    delay
                }
                _ => return Err(Failed { error, attempts }),
            };
            tracing::info!(attempt = attempts, delay_ms = delay.as_millis() as u64, %error, "retrying GitLab request");
            metrics::global().retry();
            tokio::time::sleep(delay).await;
            waited += delay;
        }
    }

    /// Whether GitLab answers at all: the status of `GET /version` (a 401
    /// is an answer too), or the failure that kept it from answering.
    pub async fn probe(&self, target: &Target) -> Result<u16, GitLabError> {
        match self.send_once(target, &HttpRequest::get("/version")).await {
            Ok(response) => Ok(response.status),
            Err(GitLabError::Status(status)) => Ok(status.status),
            Err(error) => Err(error),
        }
    }

    /// POST a form to a URL of GitLab outside the API (its OAuth
    /// endpoints), with no token header: the status and the body, at most
    /// 1 MiB of it.
    pub async fn post_form(
        &self,
        url: &str,
        form: &[(&str, &str)],
    ) -> Result<(u16, bytes::Bytes), GitLabError> {
        let target = Target {
            api_root: url.to_string(),
            credentials: None,
        };
        let answer = self
            .http
            .post(url)
            .header(reqwest::header::ACCEPT, "application/json")
            .form(form)
            .send()
            .await
            .map_err(|e| network_error(&e, &target))?;
        let status = answer.status().as_u16();
        if answer
            .content_length()
            .is_some_and(|n| n > FORM_ANSWER_MAX as u64)
        {
            return Err(GitLabError::TooLarge {
                limit: FORM_ANSWER_MAX,
            });
        }
        let body = answer
            .bytes()
            .await
            .map_err(|e| network_error(&e, &target))?;
        if body.len() > FORM_ANSWER_MAX {
            return Err(GitLabError::TooLarge {
                limit: FORM_ANSWER_MAX,
            });
        }
        Ok((status, body))
    }

    /// Send one request and read the whole answer.
    async fn send_once(
        &self,
        target: &Target,
        request: &HttpRequest,
    ) -> Result<Response, GitLabError> {
        let (answer, facts) = self.head_once(target, request).await?;
        let status = answer.status().as_u16();
        let body = read_body(answer, target).await?;
        Ok(Response {
            status,
            body,
            is_json: facts.is_json,
            pagination: facts.pagination,
            request_id: facts.request_id,
        })
    }

    /// Send one request and read its head: a 2xx answer with its body still
    /// to read, or the error the whole (error) answer makes.
    async fn head_once(
        &self,
        target: &Target,
        request: &HttpRequest,
    ) -> Result<(reqwest::Response, Facts), GitLabError> {
        let builder = self.builder(target, request)?;
        let answer = builder
            .send()
            .await
            .map_err(|e| network_error(&e, target))?;
        let status = answer.status().as_u16();
        let facts = facts(&answer);
        if (200..300).contains(&status) {
            return Ok((answer, facts));
        }
        let body = read_body(answer, target).await?;
        Err(GitLabError::Status(StatusError::from_parts(
            status,
            &body,
            facts.request_id,
            facts.retry_after,
        )))
    }

    /// A REST request's URL: the API root (parsed once while it stays the
    /// same) with the request's path and query, the same URL as parsing
    /// the whole text (a test compares the two).
    fn rest_url(&self, target: &Target, request: &HttpRequest) -> Option<reqwest::Url> {
        let mut root = self.root.lock().unwrap_or_else(|p| p.into_inner());
        if root
            .as_ref()
            .is_none_or(|url| url.as_str() != target.api_root)
        {
            *root = Some(reqwest::Url::parse(&target.api_root).ok()?);
        }
        let mut url = root.as_ref()?.clone();
        drop(root);
        // A root without a path (the web root, for Doorkeeper) parses to
        // the path `/`, which its text does not end with.
        let prefix = match url.path() {
            "/" if !target.api_root.ends_with('/') => "",
            path => path,
        };
        url.set_path(&[prefix, request.path.as_str()].concat());
        url.set_query((!request.query.is_empty()).then_some(request.query.as_str()));
        Some(url)
    }

    /// The reqwest request: URL, method, this call's credentials, body.
    fn builder(
        &self,
        target: &Target,
        request: &HttpRequest,
    ) -> Result<reqwest::RequestBuilder, GitLabError> {
        let parsed = match request.endpoint {
            Endpoint::Rest => self.rest_url(target, request),
            Endpoint::Graphql(_) => {
                reqwest::Url::parse(&format!("{}{}", target.web_root(), GRAPHQL_PATH)).ok()
            }
        };
        let parsed = parsed.ok_or_else(|| GitLabError::Network {
            kind: NetworkKind::Other,
            host: target.host(),
        })?;
        // The encoding guarantees the URL parser changes nothing; this check
        // keeps that promise even if the encoding had a bug.
        if !parsed.path().ends_with(&request.path) {
            return Err(GitLabError::PathChanged);
        }
        let method = match request.method {
            Method::Get => reqwest::Method::GET,
            Method::Post => reqwest::Method::POST,
            Method::Put => reqwest::Method::PUT,
            Method::Patch => reqwest::Method::PATCH,
            Method::Delete => reqwest::Method::DELETE,
        };
        let mut builder = self.http.request(method, parsed);
        if let Some(credentials) = &target.credentials {
            let token = credentials.token.expose();
            let (name, value) = match credentials.scheme {
                AuthScheme::PrivateToken => {
                    (HeaderName::from_static("private-token"), token.to_string())
                }
                AuthScheme::Bearer => (reqwest::header::AUTHORIZATION, format!("Bearer {token}")),
            };
            let mut value =
                HeaderValue::from_str(&value).map_err(|_| GitLabError::TokenCharacters)?;
            value.set_sensitive(true);
            builder = builder.header(name, value);
        }
        Ok(match &request.body {
            None => builder,
            Some(Body::Json(body)) => builder.json(body),
            Some(Body::File {
                field,
                file_name,
                bytes,
            }) => {
                let part =
                    reqwest::multipart::Part::bytes(bytes.clone()).file_name(file_name.clone());
                builder.multipart(reqwest::multipart::Form::new().part(*field, part))
            }
            Some(Body::Raw(bytes)) => builder
                .header(reqwest::header::CONTENT_TYPE, "application/octet-stream")
                .body(bytes.clone()),
        })
    }
}

/// One attempt, its time recorded in the metrics.
async fn timed<T>(attempt: impl Future<Output = T>) -> T {
    let started = std::time::Instant::now();
    let answer = attempt.await;
    metrics::global().gitlab_request(started.elapsed());
    answer
}

/// Only these header values are kept; the map itself is not copied.
fn facts(answer: &reqwest::Response) -> Facts {
    let kept = KeptHeaders::of(answer.headers());
    let header = |name: &str| kept.get(name);
    Facts {
        request_id: header("x-request-id").map(str::to_string),
        is_json: header("content-type").is_some_and(|c| c.contains("json")),
        retry_after: retry_after(header("retry-after"), header("ratelimit-reset")),
        pagination: Pagination::from_headers(header),
    }
}

/// The headers `facts` reads, found in one pass over the answer's headers:
/// a hashed lookup of each of the eleven names cost more than comparing
/// the dozen names GitLab sends with them.
struct KeptHeaders<'a> {
    /// Each name's first value (`HeaderMap::get`'s), if it is text.
    values: [Option<Option<&'a str>>; KEPT_HEADERS.len()],
}

/// The server's own four, then the pagination headers `Pagination` reads.
const KEPT_HEADERS: [&str; 11] = {
    const OWN: [&str; 4] = [
        "x-request-id",
        "content-type",
        "retry-after",
        "ratelimit-reset",
    ];
    let mut all = [""; 11];
    let mut at = 0;
    while at < all.len() {
        all[at] = if at < OWN.len() {
            OWN[at]
        } else {
            Pagination::HEADERS[at - OWN.len()]
        };
        at += 1;
    }
    all
};

impl<'a> KeptHeaders<'a> {
    fn of(headers: &'a reqwest::header::HeaderMap) -> Self {
        let mut values = [None; KEPT_HEADERS.len()];
        for (name, value) in headers {
            if let Some(at) = KEPT_HEADERS.iter().position(|k| *k == name.as_str())
                && values[at].is_none()
            {
                values[at] = Some(value.to_str().ok());
            }
        }
        KeptHeaders { values }
    }

    fn get(&self, name: &str) -> Option<&'a str> {
        let at = KEPT_HEADERS.iter().position(|k| *k == name);
        debug_assert!(at.is_some(), "{name} is not kept");
        self.values[at?].flatten()
    }
}

/// The whole body, but never more than `MAX_BODY`: an artifacts archive or
/// a log can be gigabytes. Answers are windowed after reading.
async fn read_body(
    mut answer: reqwest::Response,
    target: &Target,
) -> Result<bytes::Bytes, GitLabError> {
    if answer.content_length().is_some_and(|n| n > MAX_BODY as u64) {
        return Err(GitLabError::TooLarge { limit: MAX_BODY });
    }
    let mut collected = bytes::BytesMut::new();
    while let Some(chunk) = answer
        .chunk()
        .await
        .map_err(|e| network_error(&e, target))?
    {
        if collected.len() + chunk.len() > MAX_BODY {
            return Err(GitLabError::TooLarge { limit: MAX_BODY });
        }
        collected.extend_from_slice(&chunk);
    }
    Ok(collected.freeze())
}

fn network_error(error: &reqwest::Error, target: &Target) -> GitLabError {
    GitLabError::Network {
        kind: classify(error),
        host: target.host(),
    }
}

/// The most bytes of an OAuth answer: a few hundred are expected.
const FORM_ANSWER_MAX: usize = 1024 * 1024;

/// The most bytes of one GitLab answer the server reads.
pub const MAX_BODY: usize = 256 * 1024 * 1024;

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

/// Which network failure this is: reqwest's own flags for timeouts and
/// DNS, else the first error in its `source()` chain whose type tells.
fn classify(error: &reqwest::Error) -> NetworkKind {
    if error.is_timeout() {
        return if error.is_connect() {
            NetworkKind::ConnectTimeout
        } else {
            NetworkKind::Timeout
        };
    }
    if error.is_dns() {
        return NetworkKind::Dns;
    }
    let chain = || std::iter::successors(error.source(), |&cause| cause.source());
    if let Some(kind) = chain().find_map(kind_of) {
        return kind;
    }
    let causes: Vec<String> = chain().map(ToString::to_string).collect();
    tracing::debug!(?causes, "network error of no known kind");
    if error.is_connect() || error.is_request() || error.is_body() || error.is_decode() {
        // A body that broke off midway is a decode error when read.
        NetworkKind::Connection
    } else {
        NetworkKind::Other
    }
}

/// What one error of the chain says, if its type tells.
fn kind_of(cause: &(dyn std::error::Error + 'static)) -> Option<NetworkKind> {
    if cause.is::<rustls::Error>() {
        return Some(NetworkKind::Tls);
    }
    if let Some(io) = cause.downcast_ref::<std::io::Error>() {
        // An `io::Error`'s `source()` skips the error it carries: tokio-rustls
        // carries rustls's (a bad certificate, an alert, bytes that are not
        // TLS) in one, which reqwest wraps in another. So it is looked into
        // here, before its own kind.
        let inner = io.get_ref();
        if let Some(kind) = inner.and_then(|e| kind_of(e)) {
            return Some(kind);
        }
        return match io.kind() {
            std::io::ErrorKind::ConnectionRefused => Some(NetworkKind::Refused),
            std::io::ErrorKind::TimedOut => Some(NetworkKind::Timeout),
            // The one text match: a peer that hangs up during the TLS
            // handshake gets tokio-rustls's `io::Error` of kind
            // `UnexpectedEof` whose payload is only the message `tls
            // handshake eof`; no type says it happened in the handshake.
            std::io::ErrorKind::UnexpectedEof
                if inner.is_some_and(|e| e.to_string() == "tls handshake eof") =>
            {
                Some(NetworkKind::Tls)
            }
            std::io::ErrorKind::ConnectionReset
            | std::io::ErrorKind::ConnectionAborted
            | std::io::ErrorKind::BrokenPipe
            | std::io::ErrorKind::UnexpectedEof => Some(NetworkKind::Connection),
            _ => None,
        };
    }
    if let Some(hyper) = cause.downcast_ref::<hyper::Error>()
        && (hyper.is_incomplete_message() || hyper.is_closed() || hyper.is_canceled())
    {
        return Some(NetworkKind::Connection);
    }
    None
}

#[cfg(test)]
mod tests {
    use std::io;

    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    use tokio::net::{TcpListener, TcpStream};

    use super::*;

    /// The kept headers read in one pass are what `HeaderMap::get` reads:
    /// the first value of a name, `None` when that value is not text.
    #[test]
    fn kept_headers_are_what_a_lookup_finds() {
        use reqwest::header::{HeaderMap, HeaderName, HeaderValue};
        let mut headers = HeaderMap::new();
        let mut add = |name: &'static str, value: &[u8]| {
            headers.append(
                HeaderName::from_static(name),
                HeaderValue::from_bytes(value).unwrap(),
            );
        };
        add("x-request-id", b"01J");
        add("content-type", b"application/json");
        add("x-page", b"2");
        add("x-page", b"3");
        add("x-next-page", b"\xff3");
        add("x-next-page", b"4");
        add("link", b"<https://h/api/v4/x?page=3>; rel=\"next\"");
        add("x-total", b"");
        add("server", b"nginx");
        let kept = KeptHeaders::of(&headers);
        for name in KEPT_HEADERS {
            let looked_up = headers.get(name).and_then(|v| v.to_str().ok());
            assert_eq!(kept.get(name), looked_up, "{name}");
        }
        assert_eq!(kept.get("x-page"), Some("2"));
        assert_eq!(kept.get("x-next-page"), None);
    }

    /// A REST URL built on the parsed root is the URL the whole text
    /// parses to, root after root (the cache follows the target).
    #[test]
    fn a_rest_url_is_the_whole_text_parsed() {
        let client = Client::new(ClientSettings::default()).unwrap();
        let roots = [
            "https://gitlab.com/api/v4",
            "http://127.0.0.1:8080/gitlab/api/v4",
            "https://[::1]/api/v4",
            "https://gitlab.com/api/v4",
            // Web roots (Doorkeeper's token info lives there).
            "http://127.0.0.1:8080",
            "https://gitlab.example.com/gitlab",
            "https://gitlab.example.com/",
        ];
        let requests = [
            ("/projects/1/issues/3", ""),
            (
                "/projects/group%2Fsub%2Fproject/merge_requests",
                "state=opened&per_page=20",
            ),
            ("/projects/1/repository/files/a%20b%2Ec%C3%A9", "ref=main"),
            ("/projects/1/../2/issues", "search=%22x%22+y&labels[]=a,b"),
            ("/projects/1/issues", "q=a|b^c`d{e}"),
            ("/users", "search=\u{e9}\u{2028}"),
            ("/oauth/token/info", ""),
        ];
        for root in roots {
            let target = Target {
                api_root: root.into(),
                credentials: None,
            };
            for (path, query) in requests {
                let request = HttpRequest {
                    method: Method::Get,
                    path: path.into(),
                    query: query.into(),
                    body: None,
                    idempotent: true,
                    endpoint: Endpoint::Rest,
                };
                let whole = reqwest::Url::parse(&format!("{root}{}", request.path_and_query()));
                assert_eq!(
                    client.rest_url(&target, &request),
                    whole.ok(),
                    "{root} {path} {query}"
                );
            }
        }
    }

    #[test]
    fn a_cause_tells_its_kind_by_its_type_not_its_words() {
        let in_io = |e: rustls::Error| io::Error::new(io::ErrorKind::InvalidData, e);
        let cases: Vec<(
            Box<dyn std::error::Error + Send + Sync>,
            Option<NetworkKind>,
        )> = vec![
            (
                Box::new(rustls::Error::InvalidCertificate(
                    rustls::CertificateError::UnknownIssuer,
                )),
                Some(NetworkKind::Tls),
            ),
            (
                Box::new(in_io(rustls::Error::InvalidCertificate(
                    rustls::CertificateError::Expired,
                ))),
                Some(NetworkKind::Tls),
            ),
            (
                Box::new(in_io(rustls::Error::AlertReceived(
                    rustls::AlertDescription::HandshakeFailure,
                ))),
                Some(NetworkKind::Tls),
            ),
            (
                Box::new(io::Error::new(
                    io::ErrorKind::UnexpectedEof,
                    "tls handshake eof",
                )),
                Some(NetworkKind::Tls),
            ),
            (
                Box::new(io::Error::from(io::ErrorKind::ConnectionRefused)),
                Some(NetworkKind::Refused),
            ),
            (
                Box::new(io::Error::from(io::ErrorKind::TimedOut)),
                Some(NetworkKind::Timeout),
            ),
            (
                Box::new(io::Error::from(io::ErrorKind::ConnectionReset)),
                Some(NetworkKind::Connection),
            ),
            (
                Box::new(io::Error::from(io::ErrorKind::UnexpectedEof)),
                Some(NetworkKind::Connection),
            ),
            // The words the old classification looked for, in an error of
            // no telling type: nothing.
            (
                Box::new(io::Error::other(
                    "dns error: certificate handshake failed, connection refused",
                )),
                None,
            ),
            (Box::from("tls handshake eof"), None),
        ];
        for (cause, kind) in cases {
            assert_eq!(kind_of(&*cause), kind, "{cause:?}");
        }
    }

    /// A server that does `then` with its first connection; its address.
    async fn one_connection<F, Fut>(then: F) -> String
    where
        F: FnOnce(TcpStream) -> Fut + Send + 'static,
        Fut: Future<Output = ()> + Send,
    {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap().to_string();
        tokio::spawn(async move {
            let (stream, _) = listener.accept().await.unwrap();
            then(stream).await;
        });
        addr
    }

    /// Reads the request (or the TLS client hello).
    async fn read_some(stream: &mut TcpStream) {
        let mut buf = [0u8; 16 * 1024];
        let _ = stream.read(&mut buf).await;
    }

    /// How a GET of `url` (and of its whole body) fails.
    async fn failure(url: &str) -> NetworkKind {
        let client = Client::new(ClientSettings {
            request_timeout: Duration::from_millis(500),
            ..ClientSettings::default()
        })
        .unwrap();
        let error = match client.http.get(url).send().await {
            Err(error) => error,
            Ok(answer) => answer.bytes().await.unwrap_err(),
        };
        classify(&error)
    }

    /// A server answering every request with `head` then `body`.
    async fn answering(head: &'static str, body: Vec<u8>) -> Target {
        let addr = one_connection(move |mut s| async move {
            read_some(&mut s).await;
            let _ = s.write_all(head.as_bytes()).await;
            let _ = s.write_all(&body).await;
        })
        .await;
        Target {
            api_root: format!("http://{addr}/api/v4"),
            credentials: None,
        }
    }

    #[tokio::test]
    async fn a_stream_stops_at_its_limit_and_an_error_answer_is_classified() {
        let client = Client::new(ClientSettings::default()).unwrap();
        let target = answering(
            "HTTP/1.1 200 OK\r\ncontent-length: 100000\r\n\r\n",
            vec![b'a'; 100_000],
        )
        .await;
        let mut stream = client
            .stream(&target, &HttpRequest::get("/log"), 10_000)
            .await
            .unwrap();
        let mut read = 0;
        while let Some(chunk) = stream.chunk().await.unwrap() {
            read += chunk.len();
        }
        assert_eq!(read, 10_000);
        assert!(stream.limited());

        let target = answering(
            "HTTP/1.1 200 OK\r\ncontent-length: 5\r\n\r\n",
            b"short".to_vec(),
        )
        .await;
        let mut stream = client
            .stream(&target, &HttpRequest::get("/log"), 10_000)
            .await
            .unwrap();
        assert_eq!(
            stream.chunk().await.unwrap().as_deref(),
            Some(&b"short"[..])
        );
        assert_eq!(stream.chunk().await.unwrap(), None);
        assert!(!stream.limited());

        let body = br#"{"message":"404 Job Not Found"}"#;
        let target = answering(
            "HTTP/1.1 404 Not Found\r\ncontent-type: application/json\r\ncontent-length: 31\r\n\r\n",
            body.to_vec(),
        )
        .await;
        let failed = client
            .stream(&target, &HttpRequest::get("/log"), 10_000)
            .await
            .unwrap_err();
        let GitLabError::Status(status) = failed.error else {
            panic!("{:?}", failed.error)
        };
        assert_eq!(
            (status.status, status.message.as_deref()),
            (404, Some("404 Job Not Found"))
        );
    }

    #[tokio::test]
    async fn real_failures_are_classified_from_their_error_chain() {
        let closed = std::net::TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap();
        assert_eq!(
            failure(&format!("http://{closed}/")).await,
            NetworkKind::Refused
        );
        assert_eq!(failure("http://gitlab.invalid/").await, NetworkKind::Dns);

        let plain_http = one_connection(|mut s| async move {
            read_some(&mut s).await;
            let _ = s
                .write_all(b"HTTP/1.1 400 Bad Request\r\ncontent-length: 0\r\n\r\n")
                .await;
        })
        .await;
        assert_eq!(
            failure(&format!("https://{plain_http}/")).await,
            NetworkKind::Tls,
            "https to a plain HTTP server"
        );
        let (self_signed, _ca) = fake_gitlab::FakeGitLab::start_tls().await;
        assert_eq!(
            failure(&format!("{}/api/v4/version", self_signed.url())).await,
            NetworkKind::Tls,
            "a certificate of an unknown issuer"
        );
        let hangs_up_in_handshake = one_connection(|mut s| async move {
            read_some(&mut s).await;
        })
        .await;
        assert_eq!(
            failure(&format!("https://{hangs_up_in_handshake}/")).await,
            NetworkKind::Tls,
            "a hang-up during the TLS handshake"
        );

        let hangs_up = one_connection(|mut s| async move {
            read_some(&mut s).await;
        })
        .await;
        assert_eq!(
            failure(&format!("http://{hangs_up}/")).await,
            NetworkKind::Connection,
            "a hang-up before the answer"
        );
        let cut = one_connection(|mut s| async move {
            read_some(&mut s).await;
            let _ = s
                .write_all(b"HTTP/1.1 200 OK\r\ncontent-length: 100\r\n\r\nshort")
                .await;
        })
        .await;
        assert_eq!(
            failure(&format!("http://{cut}/")).await,
            NetworkKind::Connection,
            "a body cut short"
        );
        let silent = one_connection(|mut s| async move {
            read_some(&mut s).await;
            tokio::time::sleep(Duration::from_secs(5)).await;
        })
        .await;
        assert_eq!(
            failure(&format!("http://{silent}/")).await,
            NetworkKind::Timeout,
            "no answer within the request timeout"
        );
    }
}

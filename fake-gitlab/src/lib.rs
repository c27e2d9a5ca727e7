#![recursion_limit = "512"]
// Handlers return axum responses as their errors; their size does not
// matter in a test fake, and boxing them would only add noise.
#![allow(clippy::result_large_err)]
//! fake-gitlab: an in-memory imitation of GitLab's REST API v4, and of the
//! part of its GraphQL API that gitlab-mcp uses (`graphql/`).
//!
//! It answers the endpoints gitlab-mcp's tests and benchmarks use with
//! GitLab's documented objects, status codes, error bodies and pagination
//! headers, and it records every request exactly as it arrived. Tests can
//! inject faults (a status, `Retry-After`, a delay, a malformed body).
//!
//! Two seeds: `Db::seed`, the test fixture the test suite relies on, and
//! `Db::sandbox`, a demo GitLab to try gitlab-mcp against
//! (`FakeGitLab::start_sandbox`; see `sandbox.rs`). The crate is a normal
//! library (no test-only dependencies), so a binary can embed it.
//!
//! Where each behaviour comes from is noted beside it, with the GitLab
//! documentation page it imitates (docs.gitlab.com/api/...).

pub mod auth;
pub mod ci_seed;
pub mod db;
pub mod diff;
pub mod faults;
pub mod graphql;
pub mod http;
pub mod log;
pub mod oauth;
pub mod objects;
mod routes;
pub mod sandbox;
mod server;
#[cfg(feature = "tls")]
mod tls;
pub mod traces;
pub mod work_items;
pub mod zip;

use std::net::SocketAddr;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};

use axum::Router;
use axum::body::{Body, to_bytes};
use axum::extract::{Request, State};
use axum::http::{HeaderValue, StatusCode};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};

pub use faults::Fault;
pub use log::RecordedRequest;

/// Shared state of one fake instance.
pub struct Shared {
    pub db: Mutex<db::Db>,
    log: Mutex<Vec<RecordedRequest>>,
    faults: Mutex<Vec<Fault>>,
    /// Whether to keep the request log (off for long benchmark runs).
    record: bool,
    request_counter: AtomicU64,
    /// Requests being answered now, and the most at once so far.
    in_flight: AtomicU64,
    max_in_flight: AtomicU64,
    /// Request lines whose answer was fully produced; a request whose client
    /// went away mid-answer never gets here.
    completed: Mutex<Vec<String>>,
    /// Bytes of streamed job logs handed to connections (`job_logs.rs`).
    pub(crate) trace_bytes: AtomicU64,
    /// In the sandbox every request, whatever its token, is this user's.
    pub(crate) sandbox_user: Option<u64>,
    /// The OAuth provider's applications, codes and tokens.
    pub(crate) oauth: Mutex<oauth::OAuth>,
    /// Documents served as they are under `/documents/`: a stand-in for any
    /// web host (an MCP client's metadata document, say).
    pub(crate) documents: Mutex<std::collections::HashMap<String, String>>,
}

/// Counts a request in flight for as long as it lives, cancelled or not.
struct InFlight<'a>(&'a Shared);

impl<'a> InFlight<'a> {
    fn new(shared: &'a Shared) -> Self {
        let now = shared.in_flight.fetch_add(1, Ordering::SeqCst) + 1;
        shared.max_in_flight.fetch_max(now, Ordering::SeqCst);
        InFlight(shared)
    }
}

impl Drop for InFlight<'_> {
    fn drop(&mut self) {
        self.0.in_flight.fetch_sub(1, Ordering::SeqCst);
    }
}

pub type App = Arc<Shared>;

#[derive(Clone, Copy)]
enum Seed {
    Test,
    Sandbox,
}

/// A running fake. Dropping it does not stop the server; it lives as long
/// as the runtime that started it.
#[derive(Clone)]
pub struct FakeGitLab {
    addr: SocketAddr,
    scheme: &'static str,
    shared: App,
}

impl FakeGitLab {
    /// Start on an ephemeral loopback port, recording requests.
    pub async fn start() -> FakeGitLab {
        Self::start_on("127.0.0.1:0", true).await
    }

    /// Start on `addr`; `record` keeps the request log.
    pub async fn start_on(addr: &str, record: bool) -> FakeGitLab {
        Self::launch(addr, record, Seed::Test).await
    }

    /// The sandbox: the demo seed (`Db::sandbox`) on an ephemeral loopback
    /// port, without a request log (it may run for hours). Every request is
    /// the demo user's (alice, id 1) whatever token it carries, or none: it
    /// is a sandbox, nothing in it is private. Writes are kept for the life
    /// of the process. Needs a running Tokio runtime, like every `start`.
    pub async fn start_sandbox() -> FakeGitLab {
        Self::start_sandbox_on("127.0.0.1:0", false).await
    }

    /// The sandbox on `addr`; `record` keeps the request log.
    pub async fn start_sandbox_on(addr: &str, record: bool) -> FakeGitLab {
        Self::launch(addr, record, Seed::Sandbox).await
    }

    /// The test seed over HTTPS on an ephemeral loopback port, recording
    /// requests, and the PEM of the CA that signed its certificate (made
    /// now, valid for `127.0.0.1` and `localhost`), for the client to
    /// trust: a self-managed GitLab with its own CA
    /// (docs: https://docs.gitlab.com/omnibus/settings/ssl/). Without that
    /// CA a client's handshake fails.
    #[cfg(feature = "tls")]
    pub async fn start_tls() -> (FakeGitLab, String) {
        let (acceptor, ca_pem) = tls::make();
        let fake = Self::launch_with("127.0.0.1:0", true, Seed::Test, Some(acceptor)).await;
        (fake, ca_pem)
    }

    async fn launch(addr: &str, record: bool, seed: Seed) -> FakeGitLab {
        Self::launch_with(addr, record, seed, None).await
    }

    async fn launch_with(
        addr: &str,
        record: bool,
        seed: Seed,
        tls: Option<server::Tls>,
    ) -> FakeGitLab {
        let listener = tokio::net::TcpListener::bind(addr)
            .await
            .expect("bind fake GitLab");
        let addr = listener.local_addr().expect("local address");
        let scheme = if tls.is_some() { "https" } else { "http" };
        let host = format!("{scheme}://{addr}");
        let (db, sandbox_user) = match seed {
            Seed::Test => (db::Db::seed(&host), None),
            Seed::Sandbox => (db::Db::sandbox(&host), Some(1)),
        };
        let shared = Arc::new(Shared {
            db: Mutex::new(db),
            log: Mutex::new(Vec::new()),
            faults: Mutex::new(Vec::new()),
            record,
            request_counter: AtomicU64::new(0),
            in_flight: AtomicU64::new(0),
            max_in_flight: AtomicU64::new(0),
            completed: Mutex::new(Vec::new()),
            trace_bytes: AtomicU64::new(0),
            sandbox_user,
            oauth: Mutex::new(oauth::OAuth::default()),
            documents: Mutex::new(Default::default()),
        });
        let app = router(shared.clone());
        tokio::spawn(server::serve(listener, app, tls));
        FakeGitLab {
            addr,
            scheme,
            shared,
        }
    }

    /// `http://127.0.0.1:PORT` (`https://` for `start_tls`), GitLab's
    /// address without `/api/v4`.
    pub fn url(&self) -> String {
        format!("{}://{}", self.scheme, self.addr)
    }

    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// Every request received so far, oldest first.
    pub fn requests(&self) -> Vec<RecordedRequest> {
        lock(&self.shared.log).clone()
    }

    pub fn clear_requests(&self) {
        lock(&self.shared.log).clear();
    }

    pub fn inject(&self, fault: Fault) {
        lock(&self.shared.faults).push(fault);
    }

    pub fn clear_faults(&self) {
        lock(&self.shared.faults).clear();
    }

    /// Lines of the requests answered to the end (see `Shared::completed`).
    pub fn completed(&self) -> Vec<String> {
        lock(&self.shared.completed).clone()
    }

    /// Bytes of runner traces (`JobLog::Runner`) handed to connections so
    /// far: what a client that stops reading early was spared is the
    /// trace's length less this (less what the sockets buffered).
    pub fn trace_bytes_sent(&self) -> u64 {
        self.shared.trace_bytes.load(Ordering::SeqCst)
    }

    /// The most requests that were in flight at once.
    pub fn max_in_flight(&self) -> u64 {
        self.shared.max_in_flight.load(Ordering::SeqCst)
    }

    /// Register an OAuth application (docs: https://docs.gitlab.com/api/oauth2/:
    /// applications are registered before the flow starts). Its `scopes`
    /// are those it may request.
    /// Serve `json` at `/documents/<name>`, as a web host would; returns
    /// its URL.
    pub fn serve_document(&self, name: &str, json: &str) -> String {
        lock(&self.shared.documents).insert(name.to_string(), json.to_string());
        format!("{}/documents/{name}", self.url())
    }

    pub fn register_oauth_app(&self, app: oauth::OAuthApp) {
        lock(&self.shared.oauth).apps.push(app);
    }

    /// Who consents on `/oauth/authorize` from now on (alice at first), for
    /// requests without the fake's own `fake_user=<username>` parameter.
    pub fn set_oauth_user(&self, username: &str) {
        lock(&self.shared.oauth).user = username.to_string();
    }

    /// Make an issued access token expired before its two hours are up, as
    /// if time had passed: REST answers GitLab's `invalid_token` "Token is
    /// expired" 401; its refresh token still works.
    pub fn expire_oauth_token(&self, access_token: &str) {
        for t in lock(&self.shared.oauth)
            .tokens
            .iter_mut()
            .filter(|t| t.access == access_token)
        {
            t.expired = true;
        }
    }

    /// The username an issued OAuth access token belongs to.
    pub fn oauth_token_user(&self, access_token: &str) -> Option<String> {
        let user = lock(&self.shared.oauth)
            .by_access(access_token)
            .map(|t| t.user_id)?;
        self.db().user(user).map(|u| u.username.clone())
    }

    /// Which GitLab this is from now on: CE (the default) or EE; see
    /// `work_items.rs` for what differs.
    pub fn set_edition(&self, edition: db::Edition) {
        self.db().edition = edition;
    }

    /// Direct access to the data, to arrange or inspect a test's state.
    pub fn db(&self) -> MutexGuard<'_, db::Db> {
        lock(&self.shared.db)
    }
}

pub fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

fn router(shared: App) -> Router {
    routes::routes()
        .merge(graphql::routes())
        .fallback(|| async { http::no_route() })
        .layer(middleware::from_fn_with_state(shared.clone(), front))
        .with_state(shared)
}

/// Every request passes here first: it is recorded, faults fire, the token
/// is checked, and the answer gets an `X-Request-Id` (every GitLab response
/// carries one: docs: https://docs.gitlab.com/api/rest/troubleshooting/).
async fn front(State(app): State<App>, request: Request, next: Next) -> Response {
    let _in_flight = InFlight::new(&app);
    let n = app.request_counter.fetch_add(1, Ordering::Relaxed) + 1;
    let line = match request.uri().query() {
        Some(q) => format!("{} {}?{q}", request.method(), request.uri().path()),
        None => format!("{} {}", request.method(), request.uri().path()),
    };
    let request_id = format!("01FAKE{n:020}");
    let (parts, body) = request.into_parts();
    let bytes = to_bytes(body, 64 * 1024 * 1024).await.unwrap_or_default();
    let method = parts.method.to_string();
    let raw_path = parts.uri.path().to_string();
    if app.record {
        let header = |name: &str| {
            parts
                .headers
                .get(name)
                .and_then(|v| v.to_str().ok())
                .map(str::to_string)
        };
        lock(&app.log).push(RecordedRequest {
            method: method.clone(),
            raw_path: raw_path.clone(),
            raw_query: parts.uri.query().unwrap_or_default().to_string(),
            body: String::from_utf8_lossy(&bytes).into_owned(),
            private_token: header("private-token"),
            authorization: header("authorization"),
        });
    }

    let fault = {
        let mut faults = lock(&app.faults);
        faults
            .iter_mut()
            .find(|f| f.matches(&method, &raw_path) && f.fires())
            .map(|f| {
                if let Some(t) = f.times.as_mut() {
                    *t -= 1;
                }
                f.clone()
            })
    };
    let mut response = match fault {
        Some(fault) => {
            if let Some(delay) = fault.delay {
                tokio::time::sleep(delay).await;
            }
            match (&fault.action, fault.status) {
                (faults::Action::Reset, _) => {
                    if let Some(switch) = parts.extensions.get::<server::ResetSwitch>() {
                        switch.reset();
                    }
                    StatusCode::INTERNAL_SERVER_ERROR.into_response()
                }
                (faults::Action::Retype(content_type), _) => {
                    let mut r = pass(&app, parts, bytes, next).await;
                    r.headers_mut()
                        .insert("content-type", HeaderValue::from_static(content_type));
                    r
                }
                (_, Some(status)) => fault_response(&fault, status, &parts.uri),
                (_, None) => pass(&app, parts, bytes, next).await,
            }
        }
        None => pass(&app, parts, bytes, next).await,
    };
    response.headers_mut().insert(
        "x-request-id",
        HeaderValue::from_str(&request_id).expect("ascii id"),
    );
    if app.record {
        lock(&app.completed).push(line);
    }
    response
}

async fn pass(
    app: &Shared,
    mut parts: axum::http::request::Parts,
    bytes: axum::body::Bytes,
    next: Next,
) -> Response {
    // The OAuth endpoints check their own credentials.
    let path = parts.uri.path();
    if path.starts_with("/oauth/") || path.starts_with("/.well-known/") {
        parts.extensions.insert(None::<auth::Auth>);
        return next
            .run(Request::from_parts(parts, Body::from(bytes)))
            .await;
    }
    match auth::authenticate(app, &parts.headers) {
        Ok(Some(user)) if !user.reads_api && !auth::narrow_token_may(&parts.method, path) => {
            auth::insufficient_scope_for("read_api")
        }
        Ok(user) => {
            parts.extensions.insert(user);
            next.run(Request::from_parts(parts, Body::from(bytes)))
                .await
        }
        // GraphqlController answers in GraphQL's format.
        Err(_) if path == graphql::PATH => graphql::invalid_token(),
        Err(response) => response,
    }
}

fn fault_response(fault: &Fault, status: u16, uri: &axum::http::Uri) -> Response {
    use faults::{Action, FaultBody};
    let status = StatusCode::from_u16(status).expect("valid status");
    let text = fault.body.clone().unwrap_or_default();
    let body = match fault.action {
        Action::Truncated { .. } => Body::new(FaultBody::Once(Some(text.into()), None)),
        Action::Huge { bytes } => Body::new(FaultBody::Huge {
            remaining: bytes,
            line: 0,
        }),
        Action::Endless { every } => Body::new(FaultBody::Endless { every, sleep: None }),
        _ => Body::from(text),
    };
    let mut response = (status, body).into_response();
    let headers = response.headers_mut();
    headers.insert("content-type", HeaderValue::from_static(fault.content_type));
    match fault.action {
        Action::Truncated { declared } => {
            headers.insert("content-length", HeaderValue::from(declared));
        }
        Action::Huge { bytes } => {
            headers.insert("content-length", HeaderValue::from(bytes));
        }
        _ => {}
    }
    if let Some(to) = &fault.redirect_to {
        let path = uri.path_and_query().map(|p| p.as_str()).unwrap_or("/");
        headers.insert(
            "location",
            HeaderValue::from_str(&format!("{to}{path}")).expect("ascii location"),
        );
    }
    for (name, value) in &fault.headers {
        headers.insert(
            axum::http::HeaderName::from_bytes(name.as_bytes()).expect("header name"),
            HeaderValue::from_str(value).expect("header value"),
        );
    }
    if let Some(seconds) = fault.retry_after {
        // On 429 GitLab sends Retry-After and the RateLimit-* family
        // (docs: https://docs.gitlab.com/security/rate_limits/).
        headers.insert(
            "retry-after",
            HeaderValue::from_str(&seconds.to_string()).unwrap(),
        );
        headers.insert("ratelimit-limit", HeaderValue::from_static("600"));
        headers.insert("ratelimit-observed", HeaderValue::from_static("601"));
        headers.insert("ratelimit-remaining", HeaderValue::from_static("0"));
        headers.insert(
            "ratelimit-name",
            HeaderValue::from_static("throttle_authenticated_api"),
        );
    }
    response
}

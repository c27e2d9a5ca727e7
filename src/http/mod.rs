//! `serve --http`: one server for a whole team over MCP's streamable HTTP.
//!
//! Connections are accepted by `listen.rs` (a bound on open connections, a
//! header deadline). Every request to the MCP endpoint passes, in order:
//! the Host/Origin guard (`guard.rs`), the body bound, the caller's
//! credentials (`credentials.rs`: its own GitLab token, the endpoint
//! secret, or a refusal with a pointer to the protected-resource
//! metadata), the concurrency bounds (`limits.rs`), the body deadline and,
//! with `--stateful`, the session bound (`session_bound.rs`). Only then
//! does rmcp see it, with the request's `Target` in its extensions. A
//! refusal is sent once the request's body is read (within the body bound
//! and a short time), else with `Connection: close`: the connection stays
//! usable, as OAuth discovery after a 401 needs. Nothing is kept between requests (but
//! `--stateful`'s sessions), so any number of instances can serve behind a
//! plain load balancer.

mod credentials;
mod guard;
mod limits;
mod listen;
mod ops;
mod session_bound;
pub mod settings;

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::{Duration, Instant};

use axum::Router;
use axum::extract::{Request, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use tokio_util::sync::CancellationToken;

use crate::engine::Engine;
use crate::mcp;
use crate::mcp::sessions::BoundedSessions;
use crate::metrics;
use crate::signin::Signin;
use credentials::{Refusal, Resolver};
pub use guard::Guard;
use limits::{Full, Limits};
pub use settings::{CallerAuth, HttpSettings, SettingsError, public_url_host};

/// What every handler shares.
pub struct AppState {
    engine: Arc<Engine>,
    signin: Option<Arc<Signin>>,
    resolver: Resolver,
    limits: Arc<Limits>,
    path: String,
    public_url: Option<String>,
    max_body_bytes: usize,
    /// How long an admitted request's body may take to arrive.
    body_timeout: Duration,
    /// Legacy sessions, when `--stateful`.
    sessions: Option<Arc<BoundedSessions>>,
}

impl AppState {
    /// The server's external base URL: the configured one, else the
    /// request's (already allowed) Host.
    fn public_base(&self, headers: &HeaderMap) -> String {
        if let Some(url) = &self.public_url {
            return url.clone();
        }
        let host = headers
            .get(header::HOST)
            .and_then(|h| h.to_str().ok())
            .unwrap_or("localhost");
        format!("http://{host}")
    }

    /// Who issues the tokens this server accepts: this server, when sign-in
    /// is on; else GitLab itself (its OAuth tokens and personal access
    /// tokens are sent on as they came).
    fn authorization_server(&self, _base: &str) -> String {
        match &self.signin {
            Some(signin) => signin.issuer().to_string(),
            None => self.engine.default_target().web_root().to_string(),
        }
    }

    fn metadata_url(&self, headers: &HeaderMap) -> String {
        format!(
            "{}/.well-known/oauth-protected-resource{}",
            self.public_base(headers),
            self.path
        )
    }
}

/// A refusal as an HTTP answer: a JSON body in OAuth's error shape, counted
/// by reason.
pub(crate) fn refuse(
    status: StatusCode,
    code: &str,
    description: &str,
    reason: &'static str,
) -> Response {
    metrics::global().refusal(reason);
    (
        status,
        axum::Json(serde_json::json!({"error": code, "error_description": description})),
    )
        .into_response()
}

/// The whole application: operator endpoints, metadata, sign-in, the
/// guarded MCP endpoint, whose sessions get `introduction`.
pub fn app(
    engine: Arc<Engine>,
    settings: &HttpSettings,
    introduction: mcp::Introduction,
    shutdown: CancellationToken,
) -> Result<Router, String> {
    let signin = match &settings.signin {
        Some(s) => Some(Arc::new(
            Signin::new(
                s.clone(),
                engine.default_target(),
                &settings.path,
                engine.client_settings().clone(),
            )
            .map_err(|e| e.to_string())?,
        )),
        None => None,
    };
    let mut auth = settings.auth.clone();
    // With sign-in, a caller signs in (or brings a token): the server's own
    // token never stands in for a user.
    auth.require_client_token |= signin.is_some();
    let sessions = settings
        .stateful
        .then(|| Arc::new(BoundedSessions::new(settings.max_sessions)));
    let state = Arc::new(AppState {
        engine: engine.clone(),
        signin: signin.clone(),
        resolver: Resolver::new(
            engine.default_target().clone(),
            &settings.allowed_gitlab_urls,
            auth,
            signin.clone(),
        ),
        limits: Limits::new(settings.max_requests, settings.max_requests_per_token),
        path: settings.path.clone(),
        public_url: settings
            .public_url
            .as_ref()
            .map(|u| u.trim_end_matches('/').to_string()),
        max_body_bytes: settings.max_body_bytes,
        body_timeout: settings.body_timeout,
        sessions: sessions.clone(),
    });
    let guard = Arc::new(guard::Guard::new(
        settings.host_entries(),
        settings.allowed_origins.clone(),
    ));
    let endpoint = mcp::http::router(
        engine,
        &settings.path,
        mcp::http::EndpointOptions {
            // The guard above is the one Host and Origin check.
            allowed_hosts: Vec::new(),
            allowed_origins: Vec::new(),
            max_body_bytes: settings.max_body_bytes,
            sessions,
            call_timeout: Some(settings.call_timeout),
            introduction,
            shutdown,
        },
    )
    .layer(middleware::from_fn_with_state(state.clone(), admit));
    let mut guarded = Router::new()
        .route(
            "/.well-known/oauth-protected-resource",
            get(ops::resource_metadata),
        )
        .route(
            &format!("/.well-known/oauth-protected-resource{}", settings.path),
            get(ops::resource_metadata),
        )
        .with_state(state.clone())
        .merge(endpoint);
    if let Some(signin) = signin {
        tracing::warn!(
            callback = signin.callback_url(),
            "sign-in with GitLab is on; the GitLab application must have this callback URL"
        );
        guarded = guarded.merge(signin.router());
    }
    let guarded = guarded.layer(middleware::from_fn_with_state(guard, guard::middleware));
    Ok(Router::new()
        .route("/healthz", get(ops::healthz))
        .route("/readyz", get(ops::readyz))
        .route("/metrics", get(ops::metrics))
        .with_state(state)
        .merge(guarded)
        .layer(middleware::from_fn(access_log)))
}

/// How long the body of a refused request may take to arrive (`refused`).
const DRAIN_TIME: Duration = Duration::from_secs(2);

/// A refusal sent without reading the request's body: the connection
/// closes after it, and the answer says so.
pub(crate) fn closing(mut response: Response) -> Response {
    response
        .headers_mut()
        .insert(header::CONNECTION, HeaderValue::from_static("close"));
    response
}

/// A refusal of a request nobody read the body of, sent once the body is
/// read. hyper closes a connection whose request body was neither read nor
/// all received when the answer went out, without `Connection: close` in
/// that answer; a client that writes the body after the headers (the
/// Python SDK's httpx) and reuses the connection for its next request, as
/// OAuth discovery after a 401 does, then fails with "server disconnected
/// without sending a response". So the body (at most `limit` bytes) is
/// read first, for at most `DRAIN_TIME`; a body that is larger, slower or
/// broken gets the refusal with `Connection: close`.
async fn refused(request: Request, limit: usize, response: Response) -> Response {
    let read =
        tokio::time::timeout(DRAIN_TIME, axum::body::to_bytes(request.into_body(), limit)).await;
    match read {
        Ok(Ok(_)) => response,
        _ => closing(response),
    }
}

fn too_large(limit: usize) -> Response {
    refuse(
        StatusCode::PAYLOAD_TOO_LARGE,
        "payload_too_large",
        &format!("the request body is over {limit} bytes, this server's limit"),
        "body_too_large",
    )
}

/// Credentials, body bound and concurrency, for the MCP endpoint.
async fn admit(State(state): State<Arc<AppState>>, request: Request, next: Next) -> Response {
    let declared = request
        .headers()
        .get(header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<usize>().ok());
    if declared.is_some_and(|n| n > state.max_body_bytes) {
        return closing(too_large(state.max_body_bytes));
    }
    let resolved = match state.resolver.resolve(request.headers()) {
        Ok(resolved) => resolved,
        Err(refusal) => {
            let response = match refusal {
                Refusal::Unauthenticated(why) => unauthorized(&state, request.headers(), None, why),
                Refusal::InvalidToken(problem) => unauthorized(
                    &state,
                    request.headers(),
                    Some("invalid_token"),
                    &problem.to_string(),
                ),
                Refusal::GitLabUrl(url) => refuse(
                    StatusCode::FORBIDDEN,
                    "forbidden",
                    &format!("`{url}` is not a GitLab this server may reach; nothing was sent"),
                    "gitlab_url",
                ),
            };
            return refused(request, state.max_body_bytes, response).await;
        }
    };
    let _permit = match state.limits.admit(resolved.credential_key) {
        Ok(permit) => permit,
        Err(full) => {
            let (status, what, reason) = match full {
                Full::Server => (
                    StatusCode::SERVICE_UNAVAILABLE,
                    "this server is serving as many requests as it may",
                    "server_busy",
                ),
                Full::Credential => (
                    StatusCode::TOO_MANY_REQUESTS,
                    "this token has as many requests in flight as it may",
                    "token_busy",
                ),
            };
            let mut response = refuse(
                status,
                "too_many_requests",
                &format!("{what}; retry shortly"),
                reason,
            );
            response
                .headers_mut()
                .insert(header::RETRY_AFTER, HeaderValue::from_static("1"));
            return refused(request, state.max_body_bytes, response).await;
        }
    };
    // The body is read here, within a deadline: a body that trickles would
    // otherwise hold its place under the bounds for as long as it lasts.
    let (parts, body) = request.into_parts();
    let body = match tokio::time::timeout(
        state.body_timeout,
        axum::body::to_bytes(body, state.max_body_bytes),
    )
    .await
    {
        Ok(Ok(body)) => body,
        Ok(Err(_)) => return closing(too_large(state.max_body_bytes)),
        Err(_) => {
            return closing(refuse(
                StatusCode::REQUEST_TIMEOUT,
                "request_timeout",
                &format!(
                    "the request body took over {} s to arrive",
                    state.body_timeout.as_secs()
                ),
                "body_too_slow",
            ));
        }
    };
    if let Some(sessions) = &state.sessions
        && let Some(refusal) = session_bound::refusal(sessions, &parts.headers, &body).await
    {
        return refusal;
    }
    let mut request = Request::from_parts(parts, axum::body::Body::from(body));
    request.extensions_mut().insert(resolved.target);
    next.run(request).await
}

/// 401 with the pointer to the protected-resource metadata, and for a bad
/// token its OAuth error (RFC 6750 §3).
fn unauthorized(state: &AppState, headers: &HeaderMap, error: Option<&str>, why: &str) -> Response {
    let mut response = refuse(
        StatusCode::UNAUTHORIZED,
        error.unwrap_or("unauthorized"),
        why,
        if error.is_some() {
            "invalid_token"
        } else {
            "unauthenticated"
        },
    );
    let mut challenge = String::from("Bearer ");
    if let Some(error) = error {
        challenge.push_str(&format!("error=\"{error}\", error_description=\"{why}\", "));
    }
    challenge.push_str(&format!(
        "resource_metadata=\"{}\"",
        state.metadata_url(headers)
    ));
    if let Ok(value) = HeaderValue::from_str(&challenge) {
        response
            .headers_mut()
            .insert(header::WWW_AUTHENTICATE, value);
    }
    response
}

/// One line per request on stderr: method, path, status, time. No header,
/// no query, no body.
async fn access_log(request: Request, next: Next) -> Response {
    let _in_flight = metrics::global().in_flight();
    let method = request.method().clone();
    let path = request.uri().path().to_string();
    let started = Instant::now();
    let response = next.run(request).await;
    tracing::info!(
        target: "gitlab_mcp::access",
        %method,
        path,
        status = response.status().as_u16(),
        ms = started.elapsed().as_millis() as u64,
        "http"
    );
    response
}

/// Bind, serve until SIGTERM or Ctrl-C, then stop accepting and give the
/// calls in flight `shutdown_grace` to finish.
pub async fn serve(
    engine: Arc<Engine>,
    settings: HttpSettings,
    introduction: mcp::Introduction,
) -> Result<(), String> {
    settings.check().map_err(|e| e.to_string())?;
    let listener = tokio::net::TcpListener::bind(settings.addr)
        .await
        .map_err(|e| format!("cannot listen on {}: {e}", settings.addr))?;
    let local: SocketAddr = listener.local_addr().map_err(|e| e.to_string())?;
    let shutdown = CancellationToken::new();
    let app = app(engine, &settings, introduction, shutdown.clone())?;
    // The address is the one line a supervisor (or a test) waits for.
    tracing::warn!(addr = %local, path = %settings.path, stateful = settings.stateful, "serving MCP over HTTP");
    let stop = CancellationToken::new();
    tokio::spawn({
        let stop = stop.clone();
        async move {
            wait_for_signal().await;
            stop.cancel();
        }
    });
    let grace = settings.shutdown_grace;
    tokio::select! {
        () = listen::serve(
            listener,
            app,
            settings.max_connections,
            settings.header_timeout,
            stop.clone(),
        ) => {}
        () = async { stop.cancelled().await; tokio::time::sleep(grace).await } => {
            tracing::warn!(grace_secs = grace.as_secs(), "calls still running after the grace period; stopping them");
        }
    }
    shutdown.cancel();
    tracing::warn!("stopped");
    Ok(())
}

async fn wait_for_signal() {
    #[cfg(unix)]
    {
        let mut term = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate())
            .expect("install the SIGTERM handler");
        tokio::select! {
            _ = term.recv() => {}
            _ = tokio::signal::ctrl_c() => {}
        }
    }
    #[cfg(not(unix))]
    {
        let _ = tokio::signal::ctrl_c().await;
    }
    tracing::warn!("shutting down: no new requests; finishing the calls in flight");
}

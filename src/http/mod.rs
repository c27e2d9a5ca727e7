//! `serve --http`: one server for a whole team over MCP's streamable HTTP.
//!
//! Connections are accepted by `listen.rs` (a bound on open connections, a
//! header deadline). Every request to the MCP endpoint passes, in order:
//! the Host/Origin guard (`guard.rs`), the body bound, the caller's
//! credentials (`credentials.rs`: its own GitLab token, the endpoint
//! secret, or a refusal with a pointer to the protected-resource
//! metadata), the concurrency bounds (`limits.rs`), the body deadline and,
//! with `--stateful`, the session bound (`session_bound.rs`). Only then
//! does rmcp see it, with the request's `Target` in its extensions, and its
//! token's scopes entry (`token_scopes.rs`: asked of GitLab once per token
//! and kept a few minutes, so each token is offered what it may do). A
//! refusal is sent once the request's body is read (within the body bound
//! and a short time), else with `Connection: close`: the connection stays
//! usable, as OAuth discovery after a 401 needs. Nothing a request needs is
//! kept between requests but `--stateful`'s sessions and the tasks the MCP
//! layer runs (a task is polled at the instance that started it); the
//! scopes are a cache any instance fills again. So any number of instances
//! can serve behind a plain load balancer.

mod credentials;
mod guard;
mod limits;
mod listen;
mod ops;
mod refusal;
mod session_bound;
pub mod settings;
mod token_scopes;

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::{Duration, Instant};

use axum::Router;
use axum::body::{Body, Bytes};
use axum::extract::{Request, State};
use axum::http::{HeaderMap, header};
use axum::middleware::{self, Next};
use axum::response::Response;
use axum::routing::get;
use tokio_util::sync::CancellationToken;

use crate::engine::Engine;
use crate::mcp;
use crate::mcp::sessions::BoundedSessions;
use crate::metrics;
use crate::signin::Signin;
use credentials::{Resolved, Resolver};
pub use guard::Guard;
use limits::{Limits, Permit};
use refusal::Refusal;
pub use settings::{CallerAuth, HttpSettings, SettingsError, public_url_host};
use token_scopes::ScopeCache;

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
    /// Each token's scopes, by a hash of the token.
    scopes: ScopeCache,
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

    /// What the headers alone decide: the declared body size, the caller's
    /// credentials and a place under the concurrency bounds.
    fn admit_headers(&self, headers: &HeaderMap) -> Result<(Resolved, Permit), Refusal> {
        let declared = headers
            .get(header::CONTENT_LENGTH)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.parse::<usize>().ok());
        if declared.is_some_and(|n| n > self.max_body_bytes) {
            return Err(Refusal::BodyTooLarge {
                limit: self.max_body_bytes,
            });
        }
        let resolved = self
            .resolver
            .resolve(headers)
            .map_err(|denied| Refusal::Denied {
                denied,
                resource_metadata: self.metadata_url(headers),
            })?;
        let permit = self
            .limits
            .admit(resolved.credential_key)
            .map_err(Refusal::Busy)?;
        Ok((resolved, permit))
    }

    /// The body, within the bound and the deadline: a body that trickles
    /// would otherwise hold its place under the bounds for as long as it
    /// lasts.
    async fn read_body(&self, body: Body) -> Result<Bytes, Refusal> {
        let read = axum::body::to_bytes(body, self.max_body_bytes);
        match tokio::time::timeout(self.body_timeout, read).await {
            Ok(Ok(body)) => Ok(body),
            // `to_bytes` fails for a body over the bound and for one that
            // breaks off; only the first is "too large".
            Ok(Err(e)) if over_the_bound(&e) => Err(Refusal::BodyTooLarge {
                limit: self.max_body_bytes,
            }),
            Ok(Err(_)) => Err(Refusal::BodyBroken),
            Err(_) => Err(Refusal::BodyTooSlow {
                timeout: self.body_timeout,
            }),
        }
    }
}

/// Whether reading a body failed on `to_bytes`'s limit (http-body-util's
/// `LengthLimitError`, which axum wraps), rather than on the body itself.
fn over_the_bound(error: &axum::Error) -> bool {
    std::error::Error::source(error)
        .is_some_and(|inner| inner.is::<http_body_util::LengthLimitError>())
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
        scopes: ScopeCache::default(),
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
            direct_calls: !settings.rmcp_only,
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

/// Credentials, body bound and concurrency, for the MCP endpoint.
async fn admit(
    State(state): State<Arc<AppState>>,
    request: Request,
    next: Next,
) -> Result<Response, Refusal> {
    let (resolved, _permit) = match state.admit_headers(request.headers()) {
        Ok(admitted) => admitted,
        // Decided before the body is read: answered once it is.
        Err(refusal) => return Ok(refusal.answer(request, state.max_body_bytes).await),
    };
    let (parts, body) = request.into_parts();
    let body = state.read_body(body).await?;
    if let Some(sessions) = &state.sessions {
        session_bound::check(sessions, &parts.headers, &body).await?;
    }
    let mut request = Request::from_parts(parts, Body::from(body));
    if let Some(scopes) = state.scopes.entry(&resolved.target) {
        request.extensions_mut().insert(scopes);
    }
    request.extensions_mut().insert(resolved.target);
    Ok(next.run(request).await)
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

//! Sign in with GitLab: this server is the OAuth authorization server its
//! MCP clients talk to, in front of one OAuth application the operator
//! registered on GitLab (scopes `api` or `read_api`; GitLab's own dynamic
//! registration grants only `mcp`, which opens no REST endpoint).
//!
//! Stateless: every value it issues (client ids, consent tickets, the state
//! sent through GitLab, codes, access and refresh tokens) is sealed with the
//! operator's key (`seal.rs`), so any instance with the key serves any step
//! of any user's sign-in. Followed: the MCP authorization specification
//! (2025-11-25, and its 2026-07-28 revision), OAuth 2.1's authorization code
//! flow with PKCE S256 (RFC 7636), authorization-server metadata (RFC 8414),
//! protected-resource metadata (RFC 9728), resource indicators (RFC 8707),
//! dynamic client registration (RFC 7591), client ID metadata documents,
//! revocation (RFC 7009) and the `iss` response parameter (RFC 9207).

mod authorize;
mod clients;
mod errors;
mod fetch;
mod pages;
mod payloads;
pub mod seal;
mod token;

use std::sync::Arc;

use axum::Json;
use axum::Router;
use axum::extract::State;
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use serde_json::json;

use crate::gitlab::oauth::OAuthApp;
use crate::gitlab::{Client, ClientSettings, Target};
use crate::http_url;
use crate::secret::Secret;
pub use clients::{RedirectError, redirect_host, redirect_registered};
#[cfg(test)]
pub use errors::assert_response;
pub use errors::error_body;
pub use fetch::FetchPolicy;
pub use seal::{KeyError, Sealer};
pub use token::TokenProblem;

/// How long a consent page and the trip through GitLab may take, seconds.
const FLOW_TTL: u64 = 600;
/// How long this server's authorization code is valid, seconds.
const CODE_TTL: u64 = 300;
/// An access token's life when GitLab does not say (GitLab's default).
const ACCESS_TTL: u64 = 7200;
/// A refresh token's life; GitLab rotates the one inside at each use.
const REFRESH_TTL: u64 = 30 * 24 * 3600;

/// The operator's sign-in settings.
#[derive(Debug, Clone)]
pub struct SigninSettings {
    /// The operator's GitLab application.
    pub client_id: String,
    pub client_secret: Secret,
    /// This server's external base URL, which is also its issuer.
    pub public_url: String,
    /// Space-separated GitLab scopes to ask for, `api` by default.
    pub scopes: String,
    /// Comma-separated sealing keys; the first seals.
    pub token_keys: Secret,
    pub fetch: FetchPolicy,
}

#[derive(Debug, thiserror::Error)]
pub enum SigninError {
    #[error(
        "sign-in needs GITLAB_MCP_PUBLIC_URL: the URL clients reach this server by, which GitLab sends the browser back to"
    )]
    NoPublicUrl,
    #[error("sign-in needs GITLAB_OAUTH_CLIENT_SECRET, the secret of the GitLab application")]
    NoSecret,
    #[error(
        "sign-in needs GITLAB_MCP_TOKEN_KEY (at least 32 bytes, such as `openssl rand -hex 32`): it seals what the server issues"
    )]
    NoKey,
    #[error("{0}")]
    Key(#[from] KeyError),
    #[error("{0}")]
    Client(String),
}

pub struct Signin {
    sealer: Sealer,
    app: OAuthApp,
    /// For GitLab's OAuth endpoints.
    gitlab: Client,
    /// GitLab's host, as the consent page names it.
    gitlab_host: String,
    /// The issuer: this server's external base URL, no trailing `/`.
    public_url: String,
    /// The protected resource: the MCP endpoint's URL.
    resource: String,
    fetch: FetchPolicy,
}

impl Signin {
    pub fn new(
        settings: SigninSettings,
        gitlab: &Target,
        mcp_path: &str,
        client: ClientSettings,
    ) -> Result<Signin, SigninError> {
        let public_url = settings.public_url.trim_end_matches('/').to_string();
        Ok(Signin {
            sealer: Sealer::new(settings.token_keys.expose())?,
            app: OAuthApp {
                base_url: gitlab.web_root().to_string(),
                client_id: settings.client_id,
                client_secret: settings.client_secret,
                redirect_uri: format!("{public_url}/oauth/callback"),
                scopes: settings.scopes,
            },
            gitlab: Client::new(client).map_err(SigninError::Client)?,
            gitlab_host: gitlab.host(),
            resource: format!("{public_url}{mcp_path}"),
            public_url,
            fetch: settings.fetch,
        })
    }

    pub fn issuer(&self) -> &str {
        &self.public_url
    }

    /// This server's callback, to register in the GitLab application.
    pub fn callback_url(&self) -> &str {
        &self.app.redirect_uri
    }

    /// The sign-in endpoints and the authorization-server metadata.
    pub fn router(self: Arc<Self>) -> Router {
        // RFC 8414 §3: an issuer with a path has its metadata under the
        // well-known prefix followed by that path.
        let issuer_path = http_url::parse(&self.public_url)
            .map(|url| url.path().trim_end_matches('/').to_string())
            .unwrap_or_default();
        let mut router = Router::new();
        for well_known in [
            "/.well-known/oauth-authorization-server",
            "/.well-known/openid-configuration",
        ] {
            router = router.route(well_known, get(metadata));
            if !issuer_path.is_empty() {
                router = router.route(&format!("{well_known}{issuer_path}"), get(metadata));
            }
        }
        router
            .route("/register", post(clients::register))
            .route(
                "/authorize",
                get(authorize::authorize).post(authorize::consent),
            )
            .route("/oauth/callback", get(authorize::callback))
            .route("/token", post(token::token))
            .route("/revoke", post(token::revoke))
            .with_state(self)
    }
}

/// Authorization-server metadata (RFC 8414).
async fn metadata(State(signin): State<Arc<Signin>>) -> Response {
    let base = &signin.public_url;
    Json(json!({
        "issuer": base,
        "authorization_endpoint": format!("{base}/authorize"),
        "token_endpoint": format!("{base}/token"),
        "registration_endpoint": format!("{base}/register"),
        "revocation_endpoint": format!("{base}/revoke"),
        "response_types_supported": ["code"],
        "response_modes_supported": ["query"],
        "grant_types_supported": ["authorization_code", "refresh_token"],
        "code_challenge_methods_supported": ["S256"],
        "token_endpoint_auth_methods_supported": ["none", "client_secret_post", "client_secret_basic"],
        "revocation_endpoint_auth_methods_supported": ["none", "client_secret_post", "client_secret_basic"],
        "scopes_supported": signin.app.scopes.split_whitespace().collect::<Vec<_>>(),
        "client_id_metadata_document_supported": true,
        "authorization_response_iss_parameter_supported": true,
    }))
    .into_response()
}

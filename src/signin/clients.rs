//! Who a client is, both ways the MCP authorization specification allows:
//! a client id metadata document (the id is an HTTPS URL; preferred since
//! 2025-11-25) or dynamic client registration (RFC 7591, `POST /register`).
//! A registered client's id is its registration, sealed: no store.

use std::net::{Ipv4Addr, Ipv6Addr};
use std::sync::Arc;

use axum::Json;
use axum::extract::State;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use serde::Deserialize;
use serde_json::json;

use super::Signin;
use super::errors::RegistrationError;
use super::fetch::{self, FetchError};
use super::payloads::{self, RegisteredClient, now};
use super::seal::PREFIX;
use crate::http_url::{self, Host, HttpUrlError, Url};

#[derive(Debug, Clone)]
pub struct ClientInfo {
    pub id: String,
    pub name: Option<String>,
    pub redirect_uris: Vec<String>,
    /// It must authenticate at the token endpoint.
    pub confidential: bool,
}

#[derive(Debug, thiserror::Error)]
pub enum ClientError {
    #[error(
        "this client id is not one this server issued, nor an https:// URL of a client metadata document"
    )]
    Unknown,
    #[error("{0}")]
    Document(#[from] FetchError),
    #[error(
        "the client's metadata document names a redirect URI that is neither https nor loopback http"
    )]
    BadRedirect,
}

/// Why a redirect URI is refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RedirectError {
    #[error("{0}")]
    Url(#[from] HttpUrlError),
    #[error("has a fragment, which OAuth does not allow")]
    Fragment,
    #[error(
        "is http on a host that is not loopback: use https, or http on 127.0.0.1, [::1] or localhost"
    )]
    NotLoopback,
}

/// Where a redirect URI sends the browser, as the consent page names it:
/// its host, and its port when not the scheme's default. Refused: all that
/// `http_url::parse` refuses (a user name or password above all: RFC 6749
/// and OAuth 2.1 allow none, and a person reads `app.example@evil.example`
/// as app.example), a fragment, and http on anything but a loopback host.
pub fn redirect_host(uri: &str) -> Result<String, RedirectError> {
    let url = http_url::parse(uri)?;
    if url.fragment().is_some() {
        return Err(RedirectError::Fragment);
    }
    if url.scheme() == "http" && !is_loopback(&url) {
        return Err(RedirectError::NotLoopback);
    }
    Ok(http_url::authority(&url))
}

/// https, or http on a loopback host (a native app's local listener).
pub fn redirect_allowed(uri: &str) -> bool {
    redirect_host(uri).is_ok()
}

/// Whether `requested` is one of the client's `registered` redirect URIs:
/// the same text, or, for loopback http, the same URL but for the port. A
/// native app learns its port only when it starts listening, so OAuth 2.1
/// (draft 13, section 8.4.2) and RFC 8252 (section 7.3) say the server
/// "MUST allow any port to be specified at the time of the request for
/// loopback IP redirect URIs"; `localhost` is held to the same rule, as it
/// is accepted as loopback at registration. A registered URI this server
/// no longer accepts (one with a user name, from before it refused them)
/// matches nothing.
pub fn redirect_registered(registered: &[String], requested: &str) -> bool {
    if !redirect_allowed(requested) {
        return false;
    }
    let any_port = loopback_any_port(requested);
    registered
        .iter()
        .any(|r| r == requested || (any_port.is_some() && loopback_any_port(r) == any_port))
}

fn is_loopback(url: &Url) -> bool {
    match url.host() {
        Some(Host::Domain(name)) => name == "localhost",
        Some(Host::Ipv4(ip)) => ip == Ipv4Addr::LOCALHOST,
        Some(Host::Ipv6(ip)) => ip == Ipv6Addr::LOCALHOST,
        None => false,
    }
}

/// A loopback http redirect URI with its port left out; None for anything
/// else.
fn loopback_any_port(uri: &str) -> Option<Url> {
    let mut url = http_url::parse(uri).ok()?;
    if url.scheme() != "http" || !is_loopback(&url) || url.fragment().is_some() {
        return None;
    }
    url.set_port(None).ok()?;
    Some(url)
}

impl Signin {
    pub async fn client(&self, client_id: &str) -> Result<ClientInfo, ClientError> {
        if client_id.starts_with(PREFIX) {
            let c: RegisteredClient = self
                .sealer
                .open(payloads::CLIENT, client_id)
                .map_err(|_| ClientError::Unknown)?;
            return Ok(ClientInfo {
                id: client_id.to_string(),
                name: c.name,
                redirect_uris: c.redirect_uris,
                confidential: c.confidential,
            });
        }
        if client_id.starts_with("https://") {
            let doc = fetch::document(client_id, &self.fetch).await?;
            if doc.redirect_uris.is_empty()
                || !doc.redirect_uris.iter().all(|r| redirect_allowed(r))
            {
                return Err(ClientError::BadRedirect);
            }
            return Ok(ClientInfo {
                id: client_id.to_string(),
                name: doc.client_name,
                redirect_uris: doc.redirect_uris,
                // A metadata-document client has no secret with this server.
                confidential: false,
            });
        }
        Err(ClientError::Unknown)
    }

    /// A confidential client's secret: its id, sealed for that purpose.
    pub fn client_secret_for(&self, client_id: &str) -> String {
        self.sealer.seal(payloads::CLIENT_SECRET, &client_id)
    }

    pub fn client_secret_matches(&self, client_id: &str, secret: &str) -> bool {
        self.sealer
            .open::<String>(payloads::CLIENT_SECRET, secret)
            .is_ok_and(|id| crate::secret::constant_time_eq(&id, client_id))
    }
}

#[derive(Deserialize)]
pub struct Registration {
    #[serde(default)]
    redirect_uris: Vec<String>,
    client_name: Option<String>,
    token_endpoint_auth_method: Option<String>,
    #[serde(default)]
    grant_types: Vec<String>,
}

/// `POST /register` (RFC 7591).
pub async fn register(
    State(signin): State<Arc<Signin>>,
    body: axum::body::Bytes,
) -> Result<Response, RegistrationError> {
    let registration = serde_json::from_slice::<Registration>(&body).map_err(|_| {
        RegistrationError::InvalidClientMetadata(
            "the body must be a JSON object of client metadata".into(),
        )
    })?;
    if registration.redirect_uris.is_empty() {
        return Err(RegistrationError::InvalidRedirectUri(
            "give at least one redirect URI".into(),
        ));
    }
    if let Some(problem) = registration
        .redirect_uris
        .iter()
        .find_map(|r| redirect_host(r).err())
    {
        return Err(RegistrationError::InvalidRedirectUri(
            format!("a redirect URI {problem}").into(),
        ));
    }
    let method = registration
        .token_endpoint_auth_method
        .unwrap_or_else(|| "client_secret_basic".into());
    let confidential = match method.as_str() {
        "none" => false,
        "client_secret_post" | "client_secret_basic" => true,
        other => {
            return Err(RegistrationError::InvalidClientMetadata(
                format!(
                    "token_endpoint_auth_method `{other}` is not supported (none, client_secret_post, client_secret_basic)"
                )
                .into(),
            ));
        }
    };
    if let Some(g) = registration
        .grant_types
        .iter()
        .find(|g| !matches!(g.as_str(), "authorization_code" | "refresh_token"))
    {
        return Err(RegistrationError::InvalidClientMetadata(
            format!("grant type `{g}` is not supported").into(),
        ));
    }
    let issued = now();
    let client = RegisteredClient {
        redirect_uris: registration.redirect_uris.clone(),
        name: registration.client_name.clone(),
        confidential,
        iat: issued,
    };
    let client_id = signin.sealer.seal(payloads::CLIENT, &client);
    let mut answer = json!({
        "client_id": client_id,
        "client_id_issued_at": issued,
        "redirect_uris": registration.redirect_uris,
        "token_endpoint_auth_method": method,
        "grant_types": ["authorization_code", "refresh_token"],
        "response_types": ["code"],
    });
    if let Some(name) = registration.client_name {
        answer["client_name"] = json!(name);
    }
    if confidential {
        answer["client_secret"] = json!(signin.client_secret_for(&client_id));
        answer["client_secret_expires_at"] = json!(0);
    }
    Ok((StatusCode::CREATED, Json(answer)).into_response())
}

#[cfg(test)]
mod tests {
    use super::{RedirectError, redirect_allowed, redirect_host, redirect_registered};
    use crate::http_url::HttpUrlError;

    #[test]
    fn redirects_are_https_or_loopback_http() {
        for ok in [
            "https://claude.ai/api/mcp/auth_callback",
            "http://127.0.0.1:33418/callback",
            "http://localhost:6274/oauth/callback",
            "http://[::1]:8080/cb",
        ] {
            assert!(redirect_allowed(ok), "{ok}");
        }
        for bad in [
            "http://example.com/cb",
            "http://localhost.evil.example/cb",
            "javascript:alert(1)",
            "cursor://anysphere/cb",
            "https://x.example/cb#frag",
            "https:///cb",
            "http://localhost:3000@evil.example/cb",
            "http://127.0.0.1@evil.example/cb",
            "https://app.example@evil.example/cb",
            "https://app.example\\@evil.example/cb",
            "https:\\\\app.example/cb",
            "data:text/html,<script>alert(1)</script>",
            "http://localhost./cb",
            "http://[::2]/cb",
        ] {
            assert!(!redirect_allowed(bad), "{bad}");
        }
    }

    #[test]
    fn the_consent_page_names_the_host_the_browser_goes_to() {
        for (uri, host) in [
            ("https://App.Example:443/cb", "app.example"),
            ("https://app.example:8443/cb?x=1", "app.example:8443"),
            ("http://127.0.0.1:9/callback", "127.0.0.1:9"),
            ("http://[::1]:80/cb", "[::1]"),
            ("http://LOCALHOST:6274/cb", "localhost:6274"),
            ("https://\u{430}pp.example/cb", "xn--pp-6kc.example"),
        ] {
            assert_eq!(redirect_host(uri).as_deref(), Ok(host), "{uri}");
        }
        assert_eq!(
            redirect_host("https://app.example@evil.example/cb"),
            Err(RedirectError::Url(HttpUrlError::Userinfo))
        );
        assert_eq!(
            redirect_host("http://app.example/cb"),
            Err(RedirectError::NotLoopback)
        );
        assert_eq!(
            redirect_host("https://app.example/cb#x"),
            Err(RedirectError::Fragment)
        );
    }

    #[test]
    fn a_registered_redirect_with_a_user_name_matches_nothing() {
        // Registered before this server refused them.
        let registered = [
            "https://app.example@evil.example/cb".to_string(),
            "http://localhost:1@evil.example/cb".to_string(),
        ];
        for requested in &registered {
            assert!(!redirect_registered(&registered, requested), "{requested}");
        }
        assert!(!redirect_registered(
            &registered,
            "http://localhost:2@evil.example/cb"
        ));
    }

    #[test]
    fn a_loopback_redirect_matches_on_any_port_and_nothing_else_varies() {
        let registered = [
            "http://127.0.0.1/callback".to_string(),
            "http://[::1]:8080/cb?x=1".to_string(),
            "http://localhost:3000/oauth".to_string(),
            "https://app.example/cb".to_string(),
        ];
        for ok in [
            "http://127.0.0.1/callback",
            "http://127.0.0.1:53121/callback",
            "http://[::1]/cb?x=1",
            "http://[::1]:9/cb?x=1",
            "http://localhost:6274/oauth",
            "https://app.example/cb",
        ] {
            assert!(redirect_registered(&registered, ok), "{ok}");
        }
        for bad in [
            "http://127.0.0.1:53121/callback/more",
            "http://127.0.0.1:53121/other",
            "http://127.0.0.2:53121/callback",
            "http://[::1]:9/cb?x=2",
            "http://[::1]:9/cb",
            "http://localhost.evil.example:3000/oauth",
            "http://localhost:3000@evil.example/oauth",
            "http://127.0.0.1:abc/callback",
            "https://app.example:8443/cb",
            "https://app.example/cb/",
            "http://app.example/cb",
        ] {
            assert!(!redirect_registered(&registered, bad), "{bad}");
        }
    }
}

//! Who a client is, both ways the MCP authorization specification allows:
//! a client id metadata document (the id is an HTTPS URL; preferred since
//! 2025-11-25) or dynamic client registration (RFC 7591, `POST /register`).
//! A registered client's id is its registration, sealed: no store.

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

/// https, or http on a loopback host (a native app's local listener).
pub fn redirect_allowed(uri: &str) -> bool {
    if uri.contains('#') {
        return false;
    }
    if let Some(rest) = uri.strip_prefix("https://") {
        return !rest.is_empty() && !rest.starts_with('/');
    }
    loopback_parts(uri).is_some()
}

/// Whether `requested` is one of the client's `registered` redirect URIs:
/// the same text, or, for loopback http, the same but for the port. A
/// native app learns its port only when it starts listening, so OAuth 2.1
/// (draft 13, section 8.4.2) and RFC 8252 (section 7.3) say the server
/// "MUST allow any port to be specified at the time of the request for
/// loopback IP redirect URIs"; `localhost` is held to the same rule, as it
/// is accepted as loopback at registration.
pub fn redirect_registered(registered: &[String], requested: &str) -> bool {
    registered.iter().any(|r| {
        r == requested
            || loopback_parts(r)
                .is_some_and(|(host, rest)| loopback_parts(requested) == Some((host, rest)))
    })
}

/// An `http` URI on a loopback host, as (host, what follows the port); the
/// port itself, if any, is left out. None for anything else.
fn loopback_parts(uri: &str) -> Option<(&str, &str)> {
    let rest = uri.strip_prefix("http://")?;
    if rest.contains('#') {
        return None;
    }
    let (authority, path) = rest.split_at(rest.find(['/', '?']).unwrap_or(rest.len()));
    let (host, port) = if authority.starts_with('[') {
        let (host, after) = authority.split_at(authority.find(']')? + 1);
        (
            host,
            if after.is_empty() {
                ""
            } else {
                after.strip_prefix(':')?
            },
        )
    } else {
        authority.split_once(':').unwrap_or((authority, ""))
    };
    let port_ok = port.len() <= 5 && port.bytes().all(|b| b.is_ascii_digit());
    (port_ok && matches!(host, "127.0.0.1" | "[::1]" | "localhost")).then_some((host, path))
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
    if let Some(bad) = registration
        .redirect_uris
        .iter()
        .find(|r| !redirect_allowed(r))
    {
        return Err(RegistrationError::InvalidRedirectUri(
            format!("`{bad}`: a redirect URI must be https, or http on a loopback host").into(),
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
    use super::{redirect_allowed, redirect_registered};

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
        ] {
            assert!(!redirect_allowed(bad), "{bad}");
        }
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

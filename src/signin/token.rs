//! `POST /token` and `POST /revoke`, and the check of every MCP request's
//! sealed access token.
//!
//! GitLab's code is exchanged at GitLab only here, so GitLab's single use
//! of its codes makes this server's codes single-use too. What the client
//! receives is this server's token (audience-bound, expiring), sealed
//! around GitLab's, never GitLab's raw token.

use std::collections::HashMap;
use std::sync::Arc;

use axum::Json;
use axum::extract::State;
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde_json::json;

use super::payloads::{self, Access, Code, Refresh, now};
use super::seal::s256;
use super::{ACCESS_TTL, REFRESH_TTL, Signin};
use crate::encoding::{decode_base64, percent_decode};
use crate::gitlab::oauth::{OAuthError, Tokens};
use crate::gitlab::{AuthScheme, Credentials};
use crate::secret::{Secret, constant_time_eq};

/// Why a bearer token is not accepted (the request gets 401).
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum TokenProblem {
    #[error("the access token is not one this server issued, or was altered")]
    Invalid,
    #[error("the access token has expired: refresh it")]
    Expired,
    #[error("the access token was issued for another server")]
    OtherAudience,
}

fn oauth_error(status: StatusCode, code: &str, description: &str) -> Response {
    let mut response = (
        status,
        Json(json!({"error": code, "error_description": description})),
    )
        .into_response();
    response
        .headers_mut()
        .insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    response
}

/// Form fields of a token or revocation request.
fn form(body: &[u8]) -> HashMap<String, String> {
    String::from_utf8_lossy(body)
        .split('&')
        .filter_map(|pair| pair.split_once('='))
        .map(|(k, v)| (percent_decode(k), percent_decode(v)))
        .collect()
}

/// `client_id`/`client_secret` from HTTP Basic or the form.
fn client_credentials(
    headers: &HeaderMap,
    form: &HashMap<String, String>,
) -> (Option<String>, Option<String>) {
    let basic = headers
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| {
            v.strip_prefix("Basic ")
                .or_else(|| v.strip_prefix("basic "))
        })
        .and_then(|b| decode_base64(b.trim()))
        .and_then(|b| String::from_utf8(b).ok())
        .and_then(|pair| {
            pair.split_once(':')
                .map(|(id, secret)| (percent_decode(id), percent_decode(secret)))
        });
    match basic {
        Some((id, secret)) => (Some(id), Some(secret)),
        None => (
            form.get("client_id").cloned(),
            form.get("client_secret").cloned(),
        ),
    }
}

impl Signin {
    /// The GitLab credentials inside an access token of this server.
    pub fn credentials_of(&self, token: &str) -> Result<Credentials, TokenProblem> {
        let access: Access = self
            .sealer
            .open(payloads::ACCESS, token)
            .map_err(|_| TokenProblem::Invalid)?;
        if !constant_time_eq(&access.aud, &self.resource) {
            return Err(TokenProblem::OtherAudience);
        }
        if access.exp <= now() {
            return Err(TokenProblem::Expired);
        }
        Ok(Credentials {
            token: Secret::new(access.t),
            scheme: AuthScheme::Bearer,
        })
    }

    /// This server's tokens around GitLab's.
    fn issue(&self, client_id: &str, tokens: Tokens) -> Response {
        let lifetime = tokens.expires_in.unwrap_or(ACCESS_TTL);
        let access = self.sealer.seal(
            payloads::ACCESS,
            &Access {
                aud: self.resource.clone(),
                c: client_id.to_string(),
                t: tokens.access_token.expose().to_string(),
                exp: now() + lifetime,
            },
        );
        let mut answer = json!({
            "access_token": access,
            "token_type": "Bearer",
            "expires_in": lifetime,
        });
        if let Some(refresh) = tokens.refresh_token {
            answer["refresh_token"] = json!(self.sealer.seal(
                payloads::REFRESH,
                &Refresh {
                    aud: self.resource.clone(),
                    c: client_id.to_string(),
                    t: refresh.expose().to_string(),
                    exp: now() + REFRESH_TTL,
                },
            ));
        }
        if let Some(scope) = tokens.scope {
            answer["scope"] = json!(scope);
        }
        let mut response = Json(answer).into_response();
        response
            .headers_mut()
            .insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
        response
    }
}

fn gitlab_refused(error: OAuthError) -> Response {
    match error {
        OAuthError::Rejected { error, .. } if error == "invalid_grant" => oauth_error(
            StatusCode::BAD_REQUEST,
            "invalid_grant",
            "GitLab refused the grant: the code was already used or expired, or the refresh token was rotated or revoked",
        ),
        OAuthError::Rejected { status, .. } => {
            tracing::warn!(
                status,
                "GitLab's token endpoint refused this server's application"
            );
            oauth_error(
                StatusCode::BAD_GATEWAY,
                "server_error",
                "GitLab refused this server's application (check its client id, secret and callback URL)",
            )
        }
        OAuthError::Unreachable(e) => {
            tracing::warn!(error = %e, "GitLab's token endpoint is unreachable");
            oauth_error(
                StatusCode::BAD_GATEWAY,
                "temporarily_unavailable",
                "GitLab could not be reached",
            )
        }
    }
}

/// `POST /token`: the authorization code grant (with PKCE) and refresh.
pub async fn token(
    State(signin): State<Arc<Signin>>,
    headers: HeaderMap,
    body: axum::body::Bytes,
) -> Response {
    let form = form(&body);
    let (client_id, client_secret) = client_credentials(&headers, &form);
    let Some(client_id) = client_id else {
        return oauth_error(
            StatusCode::UNAUTHORIZED,
            "invalid_client",
            "client_id is missing",
        );
    };
    let client = match signin.client(&client_id).await {
        Ok(client) => client,
        Err(e) => return oauth_error(StatusCode::UNAUTHORIZED, "invalid_client", &e.to_string()),
    };
    if client.confidential
        && !client_secret
            .as_deref()
            .is_some_and(|s| signin.client_secret_matches(&client_id, s))
    {
        return oauth_error(
            StatusCode::UNAUTHORIZED,
            "invalid_client",
            "the client secret is wrong or missing",
        );
    }
    match form.get("grant_type").map(String::as_str) {
        Some("authorization_code") => {
            let Some(Ok(code)) = form
                .get("code")
                .map(|c| signin.sealer.open::<Code>(payloads::CODE, c))
            else {
                return oauth_error(
                    StatusCode::BAD_REQUEST,
                    "invalid_grant",
                    "the code is not one this server issued",
                );
            };
            if code.exp < now() {
                return oauth_error(
                    StatusCode::BAD_REQUEST,
                    "invalid_grant",
                    "the code has expired",
                );
            }
            if !constant_time_eq(&code.req.c, &client_id) {
                return oauth_error(
                    StatusCode::BAD_REQUEST,
                    "invalid_grant",
                    "the code was issued to another client",
                );
            }
            if form.get("redirect_uri").is_some_and(|r| *r != code.req.r) {
                return oauth_error(
                    StatusCode::BAD_REQUEST,
                    "invalid_grant",
                    "the redirect URI differs from the authorization request's",
                );
            }
            if form
                .get("resource")
                .is_some_and(|r| r.trim_end_matches('/') != code.req.res)
            {
                return oauth_error(
                    StatusCode::BAD_REQUEST,
                    "invalid_target",
                    "the resource is not this server's MCP endpoint",
                );
            }
            let verified = form
                .get("code_verifier")
                .is_some_and(|v| constant_time_eq(&s256(v), &code.req.ch));
            if !verified {
                return oauth_error(
                    StatusCode::BAD_REQUEST,
                    "invalid_grant",
                    "the PKCE code verifier does not match the challenge",
                );
            }
            match signin
                .app
                .exchange_code(&signin.gitlab, &code.g, &code.v)
                .await
            {
                Ok(tokens) => signin.issue(&client_id, tokens),
                Err(e) => gitlab_refused(e),
            }
        }
        Some("refresh_token") => {
            let Some(Ok(refresh)) = form
                .get("refresh_token")
                .map(|t| signin.sealer.open::<Refresh>(payloads::REFRESH, t))
            else {
                return oauth_error(
                    StatusCode::BAD_REQUEST,
                    "invalid_grant",
                    "the refresh token is not one this server issued",
                );
            };
            if refresh.exp < now()
                || !constant_time_eq(&refresh.c, &client_id)
                || refresh.aud != signin.resource
            {
                return oauth_error(
                    StatusCode::BAD_REQUEST,
                    "invalid_grant",
                    "the refresh token has expired or belongs to another client",
                );
            }
            // RFC 8707 §2.2: a refresh may name the resource too (the
            // MCP specification has clients send it); only this one.
            if form
                .get("resource")
                .is_some_and(|r| r.trim_end_matches('/') != signin.resource)
            {
                return oauth_error(
                    StatusCode::BAD_REQUEST,
                    "invalid_target",
                    "the resource is not this server's MCP endpoint",
                );
            }
            match signin.app.refresh(&signin.gitlab, &refresh.t).await {
                Ok(tokens) => signin.issue(&client_id, tokens),
                Err(e) => gitlab_refused(e),
            }
        }
        Some(other) => oauth_error(
            StatusCode::BAD_REQUEST,
            "unsupported_grant_type",
            &format!("grant type `{other}` is not supported"),
        ),
        None => oauth_error(
            StatusCode::BAD_REQUEST,
            "invalid_request",
            "grant_type is missing",
        ),
    }
}

/// `POST /revoke` (RFC 7009): revokes GitLab's token inside; an unknown
/// token is no error.
pub async fn revoke(State(signin): State<Arc<Signin>>, body: axum::body::Bytes) -> Response {
    let form = form(&body);
    let Some(token) = form.get("token") else {
        return oauth_error(
            StatusCode::BAD_REQUEST,
            "invalid_request",
            "token is missing",
        );
    };
    let inner = signin
        .sealer
        .open::<Access>(payloads::ACCESS, token)
        .map(|a| a.t)
        .or_else(|_| {
            signin
                .sealer
                .open::<Refresh>(payloads::REFRESH, token)
                .map(|r| r.t)
        });
    if let Ok(gitlab_token) = inner
        && let Err(e) = signin.app.revoke(&signin.gitlab, &gitlab_token).await
    {
        tracing::warn!(error = %e, "revocation at GitLab failed");
        return oauth_error(
            StatusCode::SERVICE_UNAVAILABLE,
            "temporarily_unavailable",
            "GitLab could not revoke the token; try again",
        );
    }
    StatusCode::OK.into_response()
}

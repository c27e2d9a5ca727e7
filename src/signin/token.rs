//! `POST /token` and `POST /revoke`, and the check of every MCP request's
//! sealed access token.
//!
//! GitLab's code is exchanged at GitLab only here, so GitLab's single use
//! of its codes makes this server's codes single-use too. What the client
//! receives is this server's token (audience-bound, expiring), sealed
//! around GitLab's, never GitLab's raw token.

use std::sync::Arc;

use axum::extract::State;
use axum::extract::rejection::FormRejection;
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::{Form, Json};
use serde::Deserialize;
use serde::de::DeserializeOwned;
use serde_json::json;

use super::errors::OAuthError;
use super::payloads::{self, Access, Code, Refresh, now};
use super::seal::s256;
use super::{ACCESS_TTL, REFRESH_TTL, Signin};
use crate::encoding::{decode_base64, percent_decode};
use crate::gitlab::oauth::Tokens;
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

/// The form of a token request (RFC 6749 §4.1.3, §6). Parameters this
/// server does not use (`scope`...) are ignored; one given twice refuses
/// the request (`OAuthError`'s `From<FormRejection>`). No `Debug`: it
/// holds secrets.
#[derive(Deserialize)]
pub struct TokenRequest {
    grant_type: Option<String>,
    code: Option<String>,
    redirect_uri: Option<String>,
    code_verifier: Option<String>,
    refresh_token: Option<String>,
    resource: Option<String>,
    client_id: Option<String>,
    client_secret: Option<String>,
}

/// The form of a revocation request (RFC 7009 §2.1).
#[derive(Deserialize)]
pub struct RevocationRequest {
    token: Option<String>,
}

/// The client's credentials: from HTTP Basic, else from the form.
struct ClientCredentials {
    id: Option<String>,
    secret: Option<String>,
    /// The client sent `Authorization: Basic` (readable or not).
    basic: bool,
}

impl ClientCredentials {
    fn of(headers: &HeaderMap, form: &TokenRequest) -> Self {
        let header = headers
            .get(header::AUTHORIZATION)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| {
                v.strip_prefix("Basic ")
                    .or_else(|| v.strip_prefix("basic "))
            });
        // RFC 6749 §2.3.1: the id and secret are form-encoded, then joined.
        let pair = header
            .and_then(|b| decode_base64(b.trim()))
            .and_then(|b| String::from_utf8(b).ok())
            .and_then(|pair| {
                pair.split_once(':')
                    .map(|(id, secret)| (percent_decode(id), percent_decode(secret)))
            });
        match pair {
            Some((id, secret)) => ClientCredentials {
                id: Some(id),
                secret: Some(secret),
                basic: true,
            },
            None => ClientCredentials {
                id: form.client_id.clone(),
                secret: form.client_secret.clone(),
                basic: header.is_some(),
            },
        }
    }
}

/// A resource named in the request, if any, must be `expected` (RFC 8707
/// §2.2: a refresh may name it too, and the MCP specification has clients
/// send it).
fn check_resource(requested: Option<&str>, expected: &str) -> Result<(), OAuthError> {
    match requested {
        Some(r) if r.trim_end_matches('/') != expected => Err(OAuthError::InvalidTarget),
        _ => Ok(()),
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
            token: Secret::new(access.gitlab_token),
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
                client_id: client_id.to_string(),
                gitlab_token: tokens.access_token.expose().to_string(),
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
                    client_id: client_id.to_string(),
                    gitlab_refresh_token: refresh.expose().to_string(),
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

    /// The client's id, once it is known and, if confidential, has proved
    /// itself with its secret.
    async fn authenticate(
        &self,
        headers: &HeaderMap,
        form: &TokenRequest,
    ) -> Result<String, OAuthError> {
        let credentials = ClientCredentials::of(headers, form);
        let invalid = |description: String| OAuthError::InvalidClient {
            description: description.into(),
            basic: credentials.basic,
        };
        let client_id = credentials
            .id
            .clone()
            .ok_or_else(|| invalid("client_id is missing".into()))?;
        let client = self
            .client(&client_id)
            .await
            .map_err(|e| invalid(e.to_string()))?;
        let secret_matches = credentials
            .secret
            .as_deref()
            .is_some_and(|s| self.client_secret_matches(&client_id, s));
        if client.confidential && !secret_matches {
            return Err(invalid("the client secret is wrong or missing".into()));
        }
        Ok(client_id)
    }

    /// The grant (a code, a refresh token) this server sealed for
    /// `purpose`, or `invalid_grant` saying `otherwise`.
    fn open_grant<T: DeserializeOwned>(
        &self,
        purpose: &str,
        sealed: Option<&str>,
        otherwise: &'static str,
    ) -> Result<T, OAuthError> {
        sealed
            .and_then(|s| self.sealer.open(purpose, s).ok())
            .ok_or(OAuthError::InvalidGrant(otherwise))
    }

    /// `authorization_code`: this server's code, checked against the
    /// request it was issued for, then GitLab's code inside exchanged.
    async fn code_grant(&self, client_id: &str, form: &TokenRequest) -> Result<Tokens, OAuthError> {
        let code = self.open_code(client_id, form)?;
        Ok(self
            .app
            .exchange_code(&self.gitlab, &code.gitlab_code, &code.gitlab_verifier)
            .await?)
    }

    fn open_code(&self, client_id: &str, form: &TokenRequest) -> Result<Code, OAuthError> {
        let code: Code = self.open_grant(
            payloads::CODE,
            form.code.as_deref(),
            "the code is not one this server issued",
        )?;
        let request = &code.req;
        if code.exp < now() {
            return Err(OAuthError::InvalidGrant("the code has expired"));
        }
        if !constant_time_eq(&request.client_id, client_id) {
            return Err(OAuthError::InvalidGrant(
                "the code was issued to another client",
            ));
        }
        if form
            .redirect_uri
            .as_ref()
            .is_some_and(|r| *r != request.redirect_uri)
        {
            return Err(OAuthError::InvalidGrant(
                "the redirect URI differs from the authorization request's",
            ));
        }
        check_resource(form.resource.as_deref(), &request.resource)?;
        let verified = form
            .code_verifier
            .as_deref()
            .is_some_and(|v| constant_time_eq(&s256(v), &request.code_challenge));
        if !verified {
            return Err(OAuthError::InvalidGrant(
                "the PKCE code verifier does not match the challenge",
            ));
        }
        Ok(code)
    }

    /// `refresh_token`: this server's refresh token, checked, then GitLab's
    /// inside refreshed (GitLab rotates it).
    async fn refresh_grant(
        &self,
        client_id: &str,
        form: &TokenRequest,
    ) -> Result<Tokens, OAuthError> {
        let refresh: Refresh = self.open_grant(
            payloads::REFRESH,
            form.refresh_token.as_deref(),
            "the refresh token is not one this server issued",
        )?;
        if refresh.exp < now()
            || !constant_time_eq(&refresh.client_id, client_id)
            || refresh.aud != self.resource
        {
            return Err(OAuthError::InvalidGrant(
                "the refresh token has expired or belongs to another client",
            ));
        }
        check_resource(form.resource.as_deref(), &self.resource)?;
        Ok(self
            .app
            .refresh(&self.gitlab, &refresh.gitlab_refresh_token)
            .await?)
    }
}

/// `POST /token`: the authorization code grant (with PKCE) and refresh.
pub async fn token(
    State(signin): State<Arc<Signin>>,
    headers: HeaderMap,
    form: Result<Form<TokenRequest>, FormRejection>,
) -> Result<Response, OAuthError> {
    let Form(form) = form?;
    let client_id = signin.authenticate(&headers, &form).await?;
    let tokens = match form.grant_type.as_deref() {
        Some("authorization_code") => signin.code_grant(&client_id, &form).await?,
        Some("refresh_token") => signin.refresh_grant(&client_id, &form).await?,
        Some(other) => return Err(OAuthError::UnsupportedGrantType(other.to_string())),
        None => {
            return Err(OAuthError::InvalidRequest("grant_type is missing".into()));
        }
    };
    Ok(signin.issue(&client_id, tokens))
}

/// `POST /revoke` (RFC 7009): revokes GitLab's token inside; an unknown
/// token is no error.
pub async fn revoke(
    State(signin): State<Arc<Signin>>,
    form: Result<Form<RevocationRequest>, FormRejection>,
) -> Result<StatusCode, OAuthError> {
    let Form(form) = form?;
    let token = form
        .token
        .ok_or(OAuthError::InvalidRequest("token is missing".into()))?;
    let inner = signin
        .sealer
        .open::<Access>(payloads::ACCESS, &token)
        .map(|a| a.gitlab_token)
        .or_else(|_| {
            signin
                .sealer
                .open::<Refresh>(payloads::REFRESH, &token)
                .map(|r| r.gitlab_refresh_token)
        });
    if let Ok(gitlab_token) = inner {
        signin
            .app
            .revoke(&signin.gitlab, &gitlab_token)
            .await
            .map_err(|e| {
                tracing::warn!(error = %e, "revocation at GitLab failed");
                OAuthError::RevocationFailed
            })?;
    }
    Ok(StatusCode::OK)
}

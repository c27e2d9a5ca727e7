//! The errors sign-in answers to clients, each a value rendered once
//! (`IntoResponse`), so the endpoints read as chains of `?`: OAuth's at
//! the token and revocation endpoints (RFC 6749 §5.2, RFC 8707 §2, RFC 7009
//! §2.2.1) and dynamic registration's (RFC 7591 §3.2.2). Every body is
//! OAuth's `{"error", "error_description"}`, which the HTTP endpoint's
//! refusals share (`error_body`).

use std::borrow::Cow;

use axum::Json;
use axum::extract::rejection::FormRejection;
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde::Serialize;

use crate::gitlab::oauth::OAuthError as GitLabRefusal;

/// OAuth's error body: `{"error": code, "error_description": description}`.
pub fn error_body(status: StatusCode, code: &str, description: &str) -> Response {
    #[derive(Serialize)]
    struct Body<'a> {
        error: &'a str,
        error_description: &'a str,
    }
    (
        status,
        Json(Body {
            error: code,
            error_description: description,
        }),
    )
        .into_response()
}

/// An error of the token or revocation endpoint, answered with
/// `Cache-Control: no-store` (RFC 6749 §5.1).
///
/// RFC 6749's `unauthorized_client` and `invalid_scope` never arise here:
/// every client may use both grants, and the scope is the one the
/// operator's GitLab application grants.
#[derive(Debug, PartialEq, Eq)]
pub enum OAuthError {
    /// 400 `invalid_request`: a parameter is missing or repeated, or the
    /// body is not a form.
    InvalidRequest(Cow<'static, str>),
    /// 401 `invalid_client`. `basic`: the client tried HTTP Basic, so the
    /// answer challenges it to try again (RFC 6749 §5.2).
    InvalidClient {
        description: Cow<'static, str>,
        basic: bool,
    },
    /// 400 `invalid_grant`: the code or refresh token does not hold.
    InvalidGrant(&'static str),
    /// 400 `unsupported_grant_type`, naming the grant type asked for.
    UnsupportedGrantType(String),
    /// 400 `invalid_target` (RFC 8707 §2): a resource other than this
    /// server's MCP endpoint.
    InvalidTarget,
    /// 502 `server_error`: GitLab refused this server's own application.
    ApplicationRefused,
    /// 502 `temporarily_unavailable`: GitLab's token endpoint is unreachable.
    GitLabUnreachable,
    /// 503 `temporarily_unavailable`: GitLab did not revoke the token.
    RevocationFailed,
}

impl OAuthError {
    pub fn status(&self) -> StatusCode {
        match self {
            OAuthError::InvalidClient { .. } => StatusCode::UNAUTHORIZED,
            OAuthError::InvalidRequest(_)
            | OAuthError::InvalidGrant(_)
            | OAuthError::UnsupportedGrantType(_)
            | OAuthError::InvalidTarget => StatusCode::BAD_REQUEST,
            OAuthError::ApplicationRefused | OAuthError::GitLabUnreachable => {
                StatusCode::BAD_GATEWAY
            }
            OAuthError::RevocationFailed => StatusCode::SERVICE_UNAVAILABLE,
        }
    }

    /// The `error` code.
    pub fn code(&self) -> &'static str {
        match self {
            OAuthError::InvalidRequest(_) => "invalid_request",
            OAuthError::InvalidClient { .. } => "invalid_client",
            OAuthError::InvalidGrant(_) => "invalid_grant",
            OAuthError::UnsupportedGrantType(_) => "unsupported_grant_type",
            OAuthError::InvalidTarget => "invalid_target",
            OAuthError::ApplicationRefused => "server_error",
            OAuthError::GitLabUnreachable | OAuthError::RevocationFailed => {
                "temporarily_unavailable"
            }
        }
    }

    pub fn description(&self) -> Cow<'_, str> {
        match self {
            OAuthError::InvalidRequest(d) | OAuthError::InvalidClient { description: d, .. } => {
                Cow::Borrowed(d)
            }
            OAuthError::InvalidGrant(d) => Cow::Borrowed(d),
            OAuthError::UnsupportedGrantType(grant) => {
                format!("grant type `{grant}` is not supported").into()
            }
            OAuthError::InvalidTarget => "the resource is not this server's MCP endpoint".into(),
            OAuthError::ApplicationRefused => {
                "GitLab refused this server's application (check its client id, secret and callback URL)".into()
            }
            OAuthError::GitLabUnreachable => "GitLab could not be reached".into(),
            OAuthError::RevocationFailed => "GitLab could not revoke the token; try again".into(),
        }
    }
}

impl IntoResponse for OAuthError {
    fn into_response(self) -> Response {
        let mut response = error_body(self.status(), self.code(), &self.description());
        let headers = response.headers_mut();
        headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
        if let OAuthError::InvalidClient { basic: true, .. } = self {
            headers.insert(
                header::WWW_AUTHENTICATE,
                HeaderValue::from_static("Basic realm=\"gitlab-mcp\""),
            );
        }
        response
    }
}

/// A body `axum::Form` could not read: not a form, or a parameter given
/// twice (RFC 6749 §3.2: "parameters MUST NOT be included more than once").
impl From<FormRejection> for OAuthError {
    fn from(rejection: FormRejection) -> Self {
        OAuthError::InvalidRequest(match rejection {
            FormRejection::InvalidFormContentType(_) => {
                "the body must be application/x-www-form-urlencoded".into()
            }
            // serde's words: "duplicate field `code`", never a value.
            other => other.body_text().into(),
        })
    }
}

/// What GitLab's refusal of a grant means for the client. GitLab's own
/// words are logged, not shown.
impl From<GitLabRefusal> for OAuthError {
    fn from(refusal: GitLabRefusal) -> Self {
        match refusal {
            GitLabRefusal::Rejected { error, .. } if error == "invalid_grant" => {
                OAuthError::InvalidGrant(
                    "GitLab refused the grant: the code was already used or expired, or the refresh token was rotated or revoked",
                )
            }
            GitLabRefusal::Rejected { status, .. } => {
                tracing::warn!(
                    status,
                    "GitLab's token endpoint refused this server's application"
                );
                OAuthError::ApplicationRefused
            }
            GitLabRefusal::Unreachable(e) => {
                tracing::warn!(error = %e, "GitLab's token endpoint is unreachable");
                OAuthError::GitLabUnreachable
            }
        }
    }
}

/// A refused dynamic client registration (RFC 7591 §3.2.2): 400.
#[derive(Debug)]
pub enum RegistrationError {
    /// `invalid_redirect_uri`: missing, or neither https nor loopback http.
    InvalidRedirectUri(Cow<'static, str>),
    /// `invalid_client_metadata`: another field is wrong, or the body is not
    /// a JSON object.
    InvalidClientMetadata(Cow<'static, str>),
}

impl IntoResponse for RegistrationError {
    fn into_response(self) -> Response {
        let (code, description) = match &self {
            RegistrationError::InvalidRedirectUri(d) => ("invalid_redirect_uri", d),
            RegistrationError::InvalidClientMetadata(d) => ("invalid_client_metadata", d),
        };
        error_body(StatusCode::BAD_REQUEST, code, description)
    }
}

/// Asserts a response's status, headers (all but `content-length`, in
/// any order) and body: what the `IntoResponse` tests compare.
#[cfg(test)]
pub async fn assert_response(
    response: Response,
    status: u16,
    headers: &[(&str, &str)],
    body: &str,
    what: &str,
) {
    let got_status = response.status().as_u16();
    let mut got_headers: Vec<(String, String)> = response
        .headers()
        .iter()
        .filter(|(k, _)| *k != header::CONTENT_LENGTH)
        .map(|(k, v)| (k.to_string(), v.to_str().unwrap().to_string()))
        .collect();
    got_headers.sort();
    let mut headers: Vec<(String, String)> = headers
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    headers.sort();
    let got_body = axum::body::to_bytes(response.into_body(), usize::MAX)
        .await
        .unwrap();
    assert_eq!(
        (
            got_status,
            got_headers,
            String::from_utf8(got_body.to_vec()).unwrap()
        ),
        (status, headers, body.to_string()),
        "{what}"
    );
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gitlab::GitLabError;
    use crate::gitlab::NetworkKind;

    const JSON_NO_STORE: &[(&str, &str)] = &[
        ("cache-control", "no-store"),
        ("content-type", "application/json"),
    ];

    #[tokio::test]
    async fn each_oauth_error_has_its_status_code_and_description() {
        let cases = [
            (
                OAuthError::InvalidRequest("grant_type is missing".into()),
                400,
                r#"{"error":"invalid_request","error_description":"grant_type is missing"}"#,
            ),
            (
                OAuthError::InvalidClient {
                    description: "client_id is missing".into(),
                    basic: false,
                },
                401,
                r#"{"error":"invalid_client","error_description":"client_id is missing"}"#,
            ),
            (
                OAuthError::InvalidGrant("the code has expired"),
                400,
                r#"{"error":"invalid_grant","error_description":"the code has expired"}"#,
            ),
            (
                OAuthError::UnsupportedGrantType("password".into()),
                400,
                r#"{"error":"unsupported_grant_type","error_description":"grant type `password` is not supported"}"#,
            ),
            (
                OAuthError::InvalidTarget,
                400,
                r#"{"error":"invalid_target","error_description":"the resource is not this server's MCP endpoint"}"#,
            ),
            (
                OAuthError::ApplicationRefused,
                502,
                r#"{"error":"server_error","error_description":"GitLab refused this server's application (check its client id, secret and callback URL)"}"#,
            ),
            (
                OAuthError::GitLabUnreachable,
                502,
                r#"{"error":"temporarily_unavailable","error_description":"GitLab could not be reached"}"#,
            ),
            (
                OAuthError::RevocationFailed,
                503,
                r#"{"error":"temporarily_unavailable","error_description":"GitLab could not revoke the token; try again"}"#,
            ),
        ];
        for (error, status, body) in cases {
            let what = format!("{error:?}");
            assert_response(error.into_response(), status, JSON_NO_STORE, body, &what).await;
        }
    }

    #[tokio::test]
    async fn a_client_that_tried_basic_is_challenged_to_try_again() {
        let error = OAuthError::InvalidClient {
            description: "the client secret is wrong or missing".into(),
            basic: true,
        };
        assert_response(
            error.into_response(),
            401,
            &[
                ("cache-control", "no-store"),
                ("content-type", "application/json"),
                ("www-authenticate", "Basic realm=\"gitlab-mcp\""),
            ],
            r#"{"error":"invalid_client","error_description":"the client secret is wrong or missing"}"#,
            "basic",
        )
        .await;
    }

    #[tokio::test]
    async fn registration_errors_are_400_without_no_store() {
        for (error, body) in [
            (
                RegistrationError::InvalidRedirectUri("give at least one redirect URI".into()),
                r#"{"error":"invalid_redirect_uri","error_description":"give at least one redirect URI"}"#,
            ),
            (
                RegistrationError::InvalidClientMetadata(
                    "grant type `password` is not supported".into(),
                ),
                r#"{"error":"invalid_client_metadata","error_description":"grant type `password` is not supported"}"#,
            ),
        ] {
            let what = format!("{error:?}");
            let json = [("content-type", "application/json")];
            assert_response(error.into_response(), 400, &json, body, &what).await;
        }
    }

    #[test]
    fn gitlab_refusals_become_the_clients_errors() {
        let rejected = |error: &str| GitLabRefusal::Rejected {
            status: 400,
            error: error.into(),
            description: Some("GitLab's own words".into()),
        };
        assert_eq!(
            OAuthError::from(rejected("invalid_grant")).code(),
            "invalid_grant"
        );
        assert_eq!(
            OAuthError::from(rejected("invalid_client")),
            OAuthError::ApplicationRefused
        );
        assert_eq!(
            OAuthError::from(GitLabRefusal::Unreachable(GitLabError::Network {
                kind: NetworkKind::Refused,
                host: "gitlab.example.com".into(),
            })),
            OAuthError::GitLabUnreachable
        );
    }
}

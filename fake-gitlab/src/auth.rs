//! Tokens and who they belong to, checked the way GitLab checks them.
//!
//! - `PRIVATE-TOKEN: <pat>` or `Authorization: Bearer <pat or oauth>`
//!   (docs: https://docs.gitlab.com/api/rest/authentication/); an OAuth
//!   token in `PRIVATE-TOKEN` is unknown.
//! - The sandbox takes any token, or none, as its demo user's.
//! - No token: anonymous, public projects are readable (like gitlab.com).
//! - Unknown token: 401 `{"message":"401 Unauthorized"}`.
//! - Expired token: 401 `{"error":"invalid_token","error_description":...}`
//!   with `WWW-Authenticate`.
//! - A `read_api` token writing: 403 `insufficient_scope` asking for `api`.

use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde_json::json;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Auth {
    pub user_id: u64,
    pub can_write: bool,
}

/// `Ok(None)` is anonymous; `Err` is GitLab's 401.
pub fn authenticate(app: &crate::Shared, headers: &HeaderMap) -> Result<Option<Auth>, Response> {
    if let Some(user_id) = app.sandbox_user {
        return Ok(Some(Auth {
            user_id,
            can_write: true,
        }));
    }
    let private = headers.get("private-token").and_then(|v| v.to_str().ok());
    let bearer = headers
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Bearer "));
    let (token, is_bearer) = match (private, bearer) {
        (Some(t), _) => (t, false),
        (None, Some(t)) => (t, true),
        (None, None) => return Ok(None),
    };
    match token {
        "glpat-alice" => Ok(Some(Auth {
            user_id: 1,
            can_write: true,
        })),
        "glpat-alice-read" => Ok(Some(Auth {
            user_id: 1,
            can_write: false,
        })),
        "glpat-bob" => Ok(Some(Auth {
            user_id: 2,
            can_write: true,
        })),
        "oauth-alice" if is_bearer => Ok(Some(Auth {
            user_id: 1,
            can_write: true,
        })),
        "glpat-expired" => Err(expired()),
        _ if is_bearer => oauth_token(app, token),
        _ => Err(crate::http::unauthorized()),
    }
}

/// A token the fake's OAuth provider issued: its user, with what its
/// scopes allow (`api` writes, `read_api` reads); revoked or expired
/// tokens get GitLab's `invalid_token` 401s (lib/gitlab/auth/auth_finders.rb).
fn oauth_token(app: &crate::Shared, token: &str) -> Result<Option<Auth>, Response> {
    let oauth = crate::lock(&app.oauth);
    let Some(t) = oauth.by_access(token) else {
        return Err(crate::http::unauthorized());
    };
    if t.revoked {
        return Err(invalid_token(
            "Token was revoked. You have to re-authorize from the user.",
        ));
    }
    if t.expired || crate::oauth::unix_now() > t.created_at + 7200 {
        return Err(expired());
    }
    let has = |s: &str| t.scopes.iter().any(|x| x == s);
    if !has("api") && !has("read_api") {
        return Err(insufficient_scope());
    }
    Ok(Some(Auth {
        user_id: t.user_id,
        can_write: has("api"),
    }))
}

fn expired() -> Response {
    invalid_token("Token is expired. You can either do re-authorization or token refresh.")
}

/// 401 `invalid_token` with its `WWW-Authenticate`.
fn invalid_token(description: &str) -> Response {
    let mut response = (
        StatusCode::UNAUTHORIZED,
        [(header::CONTENT_TYPE, "application/json")],
        json!({"error": "invalid_token", "error_description": description}).to_string(),
    )
        .into_response();
    response.headers_mut().insert(
        header::WWW_AUTHENTICATE,
        HeaderValue::from_str(&format!(
            "Bearer realm=\"Protected by OAuth 2.0\", error=\"invalid_token\", error_description=\"{description}\""
        ))
        .expect("ascii header"),
    );
    response
}

pub fn insufficient_scope() -> Response {
    crate::http::json_response(
        StatusCode::FORBIDDEN,
        json!({
            "error": "insufficient_scope",
            "error_description": "The request requires higher privileges than provided by the access token.",
            "scope": "api"
        }),
    )
}

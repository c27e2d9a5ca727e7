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
//! - A `read_repository` token outside the repository files API: 403
//!   `insufficient_scope` (`lib/api/files.rb` is the one API class that
//!   allows `read_repository`, for GET and HEAD).
//!
//! The tokens (`TOKENS`): `glpat-alice` (api), `glpat-alice-read`
//! (read_api), `glpat-alice-files` (read_repository), `glpat-bob` (api),
//! `oauth-alice` and `oauth-alice-read` (OAuth tokens with api and
//! read_api, as `Bearer` only) and every
//! token the fake's OAuth provider issued, with the scopes granted.

use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde_json::json;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Auth {
    pub user_id: u64,
    pub can_write: bool,
    /// `api` or `read_api`: the whole API may be read, not only files.
    pub reads_api: bool,
}

/// A token's type, which decides the endpoint that describes it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TokenKind {
    /// Personal, project and group access tokens.
    Personal,
    OAuth,
}

/// What a token is: whose, of which type, with which scopes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TokenInfo {
    pub user_id: u64,
    pub kind: TokenKind,
    pub scopes: Vec<String>,
    /// Seconds since the epoch, for OAuth's token info.
    pub created_at: u64,
}

/// The fixed tokens: (token, user id, type, scopes).
const TOKENS: [(&str, u64, TokenKind, &[&str]); 6] = [
    ("glpat-alice", 1, TokenKind::Personal, &["api"]),
    ("glpat-alice-read", 1, TokenKind::Personal, &["read_api"]),
    (
        "glpat-alice-files",
        1,
        TokenKind::Personal,
        &["read_repository"],
    ),
    ("glpat-bob", 2, TokenKind::Personal, &["api"]),
    ("oauth-alice", 1, TokenKind::OAuth, &["api"]),
    ("oauth-alice-read", 1, TokenKind::OAuth, &["read_api"]),
];

impl TokenInfo {
    fn has(&self, scope: &str) -> bool {
        self.scopes.iter().any(|s| s == scope)
    }

    fn auth(&self) -> Auth {
        Auth {
            user_id: self.user_id,
            can_write: self.has("api"),
            reads_api: self.has("api") || self.has("read_api"),
        }
    }
}

/// The token a request carries: `PRIVATE-TOKEN`, else `Authorization:
/// Bearer` (the flag says which).
fn given_token(headers: &HeaderMap) -> Option<(&str, bool)> {
    let private = headers.get("private-token").and_then(|v| v.to_str().ok());
    let bearer = headers
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Bearer "));
    match (private, bearer) {
        (Some(t), _) => Some((t, false)),
        (None, Some(t)) => Some((t, true)),
        (None, None) => None,
    }
}

/// A fixed token of `TOKENS`, as it was sent.
fn fixed_token(token: &str, is_bearer: bool) -> Option<TokenInfo> {
    let (_, user_id, kind, scopes) = TOKENS.iter().find(|(t, ..)| *t == token)?;
    // An OAuth token in `PRIVATE-TOKEN` is unknown.
    (*kind == TokenKind::Personal || is_bearer).then(|| TokenInfo {
        user_id: *user_id,
        kind: *kind,
        scopes: scopes.iter().map(|s| s.to_string()).collect(),
        created_at: 1_767_603_600,
    })
}

/// What the token of `headers` is, when it is a valid one: for the
/// endpoints that describe a token.
pub fn token_info(app: &crate::Shared, headers: &HeaderMap) -> Option<TokenInfo> {
    let (token, is_bearer) = given_token(headers)?;
    if let Some(info) = fixed_token(token, is_bearer) {
        return Some(info);
    }
    if !is_bearer {
        return None;
    }
    let oauth = crate::lock(&app.oauth);
    let t = oauth.by_access(token)?;
    let live = !t.revoked && !t.expired && crate::oauth::unix_now() <= t.created_at + 7200;
    live.then(|| TokenInfo {
        user_id: t.user_id,
        kind: TokenKind::OAuth,
        scopes: t.scopes.clone(),
        created_at: t.created_at,
    })
}

/// `Ok(None)` is anonymous; `Err` is GitLab's 401.
pub fn authenticate(app: &crate::Shared, headers: &HeaderMap) -> Result<Option<Auth>, Response> {
    if let Some(user_id) = app.sandbox_user {
        return Ok(Some(Auth {
            user_id,
            can_write: true,
            reads_api: true,
        }));
    }
    let Some((token, is_bearer)) = given_token(headers) else {
        return Ok(None);
    };
    if token == "glpat-expired" {
        return Err(expired());
    }
    if let Some(info) = fixed_token(token, is_bearer) {
        return Ok(Some(info.auth()));
    }
    if is_bearer {
        oauth_token(app, token)
    } else {
        Err(crate::http::unauthorized())
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
        reads_api: true,
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
    insufficient_scope_for("api")
}

/// 403 `insufficient_scope` naming the scope the request needs.
pub fn insufficient_scope_for(scope: &str) -> Response {
    crate::http::json_response(
        StatusCode::FORBIDDEN,
        json!({
            "error": "insufficient_scope",
            "error_description": "The request requires higher privileges than provided by the access token.",
            "scope": scope
        }),
    )
}

/// Whether a token that may not read the whole API (`read_repository`)
/// may still make this request: a read of the repository files API, or a
/// token describing itself (any scope may, lib/api/personal_access_tokens/
/// self_information.rb).
pub fn narrow_token_may(method: &axum::http::Method, path: &str) -> bool {
    let read = method == axum::http::Method::GET || method == axum::http::Method::HEAD;
    let files = path.starts_with("/api/v4/projects/") && path.contains("/repository/files/");
    (read && files) || path == "/api/v4/personal_access_tokens/self"
}

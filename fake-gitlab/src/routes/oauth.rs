//! The OAuth 2 endpoints (docs: https://docs.gitlab.com/api/oauth2/ and,
//! for `userinfo` and discovery, https://docs.gitlab.com/integration/openid_connect_provider/).
//! See `crate::oauth` for the rules; errors are RFC 6749 bodies
//! `{"error", "error_description"}` with Doorkeeper's texts.

use axum::Router;
use axum::body::Bytes;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode, Uri, header};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use serde_json::{Value, json};

use crate::oauth::{Error, Token, invalid_request, invalid_scope};
use crate::{App, http, lock};

pub fn routes() -> Router<App> {
    Router::new()
        .route("/oauth/authorize", get(authorize))
        .route("/oauth/token", post(token))
        .route("/oauth/revoke", post(revoke))
        .route("/oauth/userinfo", get(userinfo).post(userinfo))
        .route("/oauth/token/info", get(token_info))
        .route("/.well-known/openid-configuration", get(metadata))
        .route("/.well-known/oauth-authorization-server", get(metadata))
}

fn error(e: Error) -> Response {
    let mut r = http::json_response(
        StatusCode::from_u16(e.0).unwrap(),
        json!({"error": e.1, "error_description": e.2}),
    );
    r.headers_mut()
        .insert(header::CACHE_CONTROL, "no-store".parse().unwrap());
    r
}

/// Doorkeeper's error page: what a browser sees when the client or the
/// redirect URI is wrong (it must not be redirected to an unknown URI).
fn error_page(status: u16, text: &str) -> Response {
    (
        StatusCode::from_u16(status).unwrap(),
        [(header::CONTENT_TYPE, "text/html; charset=utf-8")],
        format!(
            "<!DOCTYPE html>\n<html><head><title>An error has occurred</title></head><body><main><h3>An error has occurred</h3><p>{text}</p></main></body></html>\n"
        ),
    )
        .into_response()
}

fn redirect(to: String) -> Response {
    (StatusCode::FOUND, [(header::LOCATION, to)]).into_response()
}

fn with_query(uri: &str, pairs: &[(&str, &str)]) -> String {
    let q: Vec<String> = pairs
        .iter()
        .map(|(k, v)| format!("{k}={}", http::encode(v)))
        .collect();
    let sep = if uri.contains('?') { '&' } else { '?' };
    format!("{uri}{sep}{}", q.join("&"))
}

/// The request's parameters: a form or JSON body, then the query.
fn params(headers: &HeaderMap, uri: &Uri, body: &[u8]) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let json = headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.starts_with("application/json"));
    if json {
        if let Ok(Value::Object(map)) = serde_json::from_slice::<Value>(body) {
            for (k, v) in map {
                let v = match v {
                    Value::String(s) => s,
                    other => other.to_string(),
                };
                out.push((k, v));
            }
        }
    } else {
        out.extend(http::parse_query(&String::from_utf8_lossy(body)));
    }
    out.extend(http::parse_query(uri.query().unwrap_or_default()));
    out
}

fn get_param<'a>(params: &'a [(String, String)], name: &str) -> Option<&'a str> {
    params
        .iter()
        .find(|(k, _)| k == name)
        .map(|(_, v)| v.as_str())
        .filter(|v| !v.is_empty())
}

/// Client credentials from HTTP Basic or the body (RFC 6749 section 2.3.1).
fn credentials(
    headers: &HeaderMap,
    params: &[(String, String)],
) -> (Option<String>, Option<String>) {
    let basic = headers
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Basic "))
        .and_then(|b| decode_base64(b.trim()))
        .and_then(|s| {
            s.split_once(':')
                .map(|(i, p)| (http::decode(i), http::decode(p)))
        });
    match basic {
        Some((id, secret)) => (Some(id), Some(secret)),
        None => (
            get_param(params, "client_id").map(str::to_string),
            get_param(params, "client_secret").map(str::to_string),
        ),
    }
}

fn decode_base64(text: &str) -> Option<String> {
    let mut bits = 0u32;
    let mut n = 0;
    let mut out = Vec::new();
    for c in text.bytes().filter(|c| *c != b'=') {
        let v = match c {
            b'A'..=b'Z' => c - b'A',
            b'a'..=b'z' => c - b'a' + 26,
            b'0'..=b'9' => c - b'0' + 52,
            b'+' | b'-' => 62,
            b'/' | b'_' => 63,
            _ => return None,
        };
        bits = (bits << 6) | u32::from(v);
        n += 6;
        if n >= 8 {
            n -= 8;
            out.push((bits >> n) as u8);
        }
    }
    String::from_utf8(out).ok()
}

/// `GET /oauth/authorize`: checks the client and redirect URI (an error
/// page if either is wrong), then the request (errors redirected with
/// `error` and `state`), then consents for the user and redirects with
/// `code` and `state`.
async fn authorize(State(app): State<App>, uri: Uri) -> Response {
    let q = http::parse_query(uri.query().unwrap_or_default());
    let p = |name: &str| get_param(&q, name);
    let mut oauth = lock(&app.oauth);
    let Some(client) = p("client_id").and_then(|id| oauth.app(id)).cloned() else {
        return error_page(401, &crate::oauth::invalid_client().2);
    };
    let Some(redirect_uri) =
        p("redirect_uri").filter(|r| client.redirect_uris.iter().any(|u| u == r))
    else {
        return error_page(400, "The redirect URI included is not valid.");
    };
    let state = p("state");
    let fail = |e: Error| {
        let mut pairs = vec![("error", e.1), ("error_description", e.2.as_str())];
        if let Some(s) = state {
            pairs.push(("state", s));
        }
        redirect(with_query(redirect_uri, &pairs))
    };
    if p("response_type") != Some("code") {
        return fail(Error(
            400,
            "unsupported_response_type",
            "The authorization server does not support this response type.".into(),
        ));
    }
    // GitLab's default scope is `api`.
    let scopes: Vec<String> = p("scope")
        .unwrap_or("api")
        .split_whitespace()
        .map(str::to_string)
        .collect();
    if scopes.is_empty() || !scopes.iter().all(|s| client.scopes.contains(s)) {
        return fail(invalid_scope());
    }
    let challenge = match (
        p("code_challenge"),
        p("code_challenge_method").unwrap_or("plain"),
    ) {
        (None, _) => None,
        (Some(c), m @ ("S256" | "plain")) => Some((c.to_string(), m.to_string())),
        (Some(_), _) => {
            return fail(Error(
                400,
                "invalid_request",
                "The code challenge method must be plain or S256.".into(),
            ));
        }
    };
    let username = p("fake_user")
        .map(str::to_string)
        .unwrap_or_else(|| oauth.user.clone());
    let Some(user_id) = lock(&app.db)
        .users
        .iter()
        .find(|u| u.username == username)
        .map(|u| u.id)
    else {
        return error_page(400, &format!("fake-gitlab: no user {username} to sign in"));
    };
    let code = oauth.grant(&client.client_id, redirect_uri, user_id, scopes, challenge);
    let mut pairs = vec![("code", code.as_str())];
    if let Some(s) = state {
        pairs.push(("state", s));
    }
    redirect(with_query(redirect_uri, &pairs))
}

fn token_answer(t: &Token) -> Response {
    let mut r = http::ok(json!({
        "access_token": t.access,
        "token_type": "Bearer",
        "expires_in": 7200,
        "refresh_token": t.refresh,
        "scope": t.scopes.join(" "),
        "created_at": t.created_at,
    }));
    let h = r.headers_mut();
    h.insert(header::CACHE_CONTROL, "no-store".parse().unwrap());
    h.insert(header::PRAGMA, "no-cache".parse().unwrap());
    r
}

/// `POST /oauth/token`: `authorization_code` (with `code_verifier` when the
/// code had a challenge) or `refresh_token` (rotating both tokens).
async fn token(State(app): State<App>, headers: HeaderMap, uri: Uri, body: Bytes) -> Response {
    let params = params(&headers, &uri, &body);
    let p = |name: &str| get_param(&params, name);
    let Some(grant_type) = p("grant_type") else {
        return error(invalid_request("grant_type"));
    };
    if !["authorization_code", "refresh_token"].contains(&grant_type) {
        return error(Error(
            400,
            "unsupported_grant_type",
            "The authorization grant type is not supported by the authorization server.".into(),
        ));
    }
    let (id, secret) = credentials(&headers, &params);
    let mut oauth = lock(&app.oauth);
    let client = match oauth.client(id.as_deref(), secret.as_deref()) {
        Ok(c) => c.client_id.clone(),
        Err(e) => return error(e),
    };
    let result = if grant_type == "authorization_code" {
        match p("code") {
            None => Err(invalid_request("code")),
            Some(code) => oauth.redeem(&client, code, p("redirect_uri"), p("code_verifier")),
        }
    } else {
        match p("refresh_token") {
            None => Err(invalid_request("refresh_token")),
            Some(refresh) => oauth.refresh(&client, refresh, p("scope")),
        }
    };
    match result {
        Ok(t) => token_answer(&t),
        Err(e) => error(e),
    }
}

/// `POST /oauth/revoke`: 200 and `{}`, whether or not the token was known
/// (docs; RFC 7009); a confidential client must authenticate.
async fn revoke(State(app): State<App>, headers: HeaderMap, uri: Uri, body: Bytes) -> Response {
    let params = params(&headers, &uri, &body);
    let Some(token) = get_param(&params, "token") else {
        return error(invalid_request("token"));
    };
    let (id, secret) = credentials(&headers, &params);
    let mut oauth = lock(&app.oauth);
    if let Some(id) = &id
        && let Err(e) = oauth.client(Some(id), secret.as_deref())
    {
        return error(e);
    }
    oauth.revoke(token);
    http::ok(json!({}))
}

/// `GET /oauth/token/info`: Doorkeeper's description of an OAuth token
/// sent as `Bearer` (docs:
/// https://docs.gitlab.com/api/oauth2/#retrieve-the-token-information):
/// `scope`, and its deprecated alias `scopes`. Any other token, a personal
/// one included, is Doorkeeper's 401 `invalid_token`.
async fn token_info(State(app): State<App>, headers: HeaderMap) -> Response {
    let info = crate::auth::token_info(&app, &headers)
        .filter(|info| info.kind == crate::auth::TokenKind::OAuth);
    let Some(info) = info else {
        let mut r = error(Error(
            401,
            "invalid_token",
            "The access token is invalid".into(),
        ));
        r.headers_mut().insert(
            header::WWW_AUTHENTICATE,
            "Bearer realm=\"Doorkeeper\", error=\"invalid_token\", error_description=\"The access token is invalid\""
                .parse()
                .unwrap(),
        );
        return r;
    };
    let expires_in = (info.created_at + 7200).saturating_sub(crate::oauth::unix_now());
    http::ok(json!({
        "resource_owner_id": info.user_id,
        "scope": info.scopes,
        "expires_in": expires_in,
        "application": {"uid": "fake-gitlab-application"},
        "created_at": info.created_at,
        "scopes": info.scopes,
        "expires_in_seconds": expires_in,
    }))
}

/// `/oauth/userinfo`: the OpenID claims of the token's user; the token
/// needs the `openid` scope.
async fn userinfo(State(app): State<App>, headers: HeaderMap) -> Response {
    let bearer = headers
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Bearer "));
    let invalid = |text: &str| {
        let mut r = error(Error(401, "invalid_token", text.into()));
        r.headers_mut().insert(
            header::WWW_AUTHENTICATE,
            format!(
                "Bearer realm=\"Doorkeeper\", error=\"invalid_token\", error_description=\"{text}\""
            )
            .parse()
            .unwrap(),
        );
        r
    };
    let token = {
        let oauth = lock(&app.oauth);
        bearer.and_then(|b| oauth.by_access(b)).cloned()
    };
    let Some(token) = token else {
        return invalid("The access token is invalid");
    };
    if token.revoked {
        return invalid("The access token was revoked");
    }
    if token.expired || crate::oauth::unix_now() > token.created_at + 7200 {
        return invalid("The access token expired");
    }
    if !token.scopes.iter().any(|s| s == "openid") {
        return error(Error(
            403,
            "insufficient_scope",
            "The request requires higher privileges than provided by the access token.".into(),
        ));
    }
    let db = lock(&app.db);
    let u = db.user(token.user_id).expect("token user");
    http::ok(json!({
        "sub": u.id.to_string(),
        "sub_legacy": crate::db::sha(u.id * 31).repeat(2)[..64].to_string(),
        "name": u.name,
        "nickname": u.username,
        "preferred_username": u.username,
        "email": format!("{}@example.com", u.username),
        "email_verified": true,
        "website": "",
        "profile": format!("{}/{}", db.host, u.username),
        "picture": format!("https://secure.gravatar.com/avatar/{}?s=80&d=identicon", crate::db::sha(u.id)),
        "groups": db.groups.iter().filter(|g| g.parent_id.is_none()).map(|g| g.full_path.clone()).collect::<Vec<_>>(),
    }))
}

/// Discovery metadata (OpenID Connect and RFC 8414), pointing at the
/// endpoints above.
async fn metadata(State(app): State<App>) -> Response {
    let host = lock(&app.db).host.clone();
    http::ok(json!({
        "issuer": host,
        "authorization_endpoint": format!("{host}/oauth/authorize"),
        "token_endpoint": format!("{host}/oauth/token"),
        "revocation_endpoint": format!("{host}/oauth/revoke"),
        "introspection_endpoint": format!("{host}/oauth/introspect"),
        "userinfo_endpoint": format!("{host}/oauth/userinfo"),
        "jwks_uri": format!("{host}/oauth/discovery/keys"),
        "scopes_supported": ["api", "read_api", "read_user", "create_runner", "k8s_proxy", "read_repository", "write_repository", "sudo", "admin_mode", "openid", "profile", "email"],
        "response_types_supported": ["code"],
        "response_modes_supported": ["query", "fragment", "form_post"],
        "grant_types_supported": ["authorization_code", "password", "client_credentials", "device_code", "refresh_token"],
        "token_endpoint_auth_methods_supported": ["client_secret_basic", "client_secret_post"],
        "subject_types_supported": ["public"],
        "id_token_signing_alg_values_supported": ["RS256"],
        "claim_types_supported": ["normal"],
        "claims_supported": ["iss", "sub", "aud", "exp", "iat", "sub_legacy", "name", "nickname", "preferred_username", "email", "email_verified", "website", "profile", "picture", "groups"],
        "code_challenge_methods_supported": ["plain", "S256"],
    }))
}

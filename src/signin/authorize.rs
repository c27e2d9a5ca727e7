//! The browser's path: `GET /authorize` checks the request and shows this
//! server's consent page; `POST /authorize` takes the person's answer and
//! sends the browser to GitLab with the operator's application and this
//! server's own PKCE pair; `GET /oauth/callback` takes GitLab's code and
//! sends the browser back to the client with a code of this server's.
//!
//! Every step is bound to the browser that began it by a nonce kept both
//! in the sealed ticket or state and in a `SameSite=Lax`, `HttpOnly`
//! cookie: a form posted from another site, or a callback replayed into
//! another browser, is refused. Errors the person must see are pages;
//! errors for the client go to its (checked) redirect URI.

use std::collections::HashMap;
use std::sync::Arc;

use axum::Form;
use axum::extract::{Query, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Redirect, Response};
use serde::Deserialize;

use super::clients::{ClientError, redirect_host, redirect_registered};
use super::pages::{self, Consent};
use super::payloads::{self, Code, Request, State as GitLabState, Ticket, now};
use super::seal::s256;
use super::{CODE_TTL, FLOW_TTL, Signin};
use crate::encoding::percent_encode_into;
use crate::http_url;
use crate::secret::constant_time_eq;

#[derive(Deserialize)]
pub struct AuthorizeParams {
    response_type: Option<String>,
    client_id: Option<String>,
    redirect_uri: Option<String>,
    code_challenge: Option<String>,
    code_challenge_method: Option<String>,
    state: Option<String>,
    scope: Option<String>,
    resource: Option<String>,
}

/// `uri` with these query parameters added.
pub fn with_query(uri: &str, pairs: &[(&str, &str)]) -> String {
    let mut out = uri.to_string();
    let mut sep = if uri.contains('?') { '&' } else { '?' };
    for (k, v) in pairs {
        out.push(sep);
        sep = '&';
        out.push_str(k);
        out.push('=');
        percent_encode_into(&mut out, v);
    }
    out
}

/// An OAuth error sent to the client's redirect URI.
fn to_client(
    redirect_uri: &str,
    state: Option<&str>,
    error: &str,
    description: &str,
    issuer: &str,
) -> Response {
    let mut pairs = vec![
        ("error", error),
        ("error_description", description),
        ("iss", issuer),
    ];
    if let Some(s) = state {
        pairs.push(("state", s));
    }
    Redirect::to(&with_query(redirect_uri, &pairs)).into_response()
}

fn cookie_name(nonce: &str) -> String {
    format!("gmcp_flow_{}", &nonce[..nonce.len().min(10)])
}

fn cookie(headers: &HeaderMap, name: &str) -> Option<String> {
    headers
        .get_all(header::COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(';'))
        .filter_map(|pair| pair.trim().split_once('='))
        .find(|(k, _)| *k == name)
        .map(|(_, v)| v.to_string())
}

impl Signin {
    fn set_cookie(&self, response: &mut Response, nonce: &str, max_age: u64) {
        let secure = if self.public_url.starts_with("https://") {
            "; Secure"
        } else {
            ""
        };
        let value = format!(
            "{}={nonce}; Path=/; HttpOnly; SameSite=Lax; Max-Age={max_age}{secure}",
            cookie_name(nonce)
        );
        if let Ok(v) = HeaderValue::from_str(&value) {
            response.headers_mut().append(header::SET_COOKIE, v);
        }
    }

    fn same_browser(&self, headers: &HeaderMap, nonce: &str) -> bool {
        cookie(headers, &cookie_name(nonce)).is_some_and(|c| constant_time_eq(&c, nonce))
    }
}

/// `GET /authorize`
pub async fn authorize(
    State(signin): State<Arc<Signin>>,
    Query(p): Query<AuthorizeParams>,
) -> Response {
    let Some(client_id) = p.client_id.as_deref() else {
        return pages::error(
            StatusCode::BAD_REQUEST,
            "The request names no client (client_id is missing).",
        );
    };
    let client = match signin.client(client_id).await {
        Ok(client) => client,
        Err(e @ (ClientError::Unknown | ClientError::Document(_) | ClientError::BadRedirect)) => {
            return pages::error(
                StatusCode::BAD_REQUEST,
                &format!("The client could not be verified: {e}."),
            );
        }
    };
    // Never redirect anywhere the client did not register.
    let redirect_uri = match (p.redirect_uri.as_deref(), client.redirect_uris.as_slice()) {
        (Some(r), registered) if redirect_registered(registered, r) => r.to_string(),
        (None, [only]) => only.clone(),
        (Some(_), _) => {
            return pages::error(
                StatusCode::BAD_REQUEST,
                "The redirect URI is not one the client registered.",
            );
        }
        (None, _) => {
            return pages::error(
                StatusCode::BAD_REQUEST,
                "The request names no redirect URI, and the client has several.",
            );
        }
    };
    // A client's only URI is taken without a `redirect_uri`: it must still
    // be one this server accepts today (registered before it refused
    // user names, it may not be). The consent page names its parsed host.
    let redirect_host = match redirect_host(&redirect_uri) {
        Ok(host) => host,
        Err(problem) => {
            return pages::error(
                StatusCode::BAD_REQUEST,
                &format!("The client's redirect URI is not accepted: it {problem}."),
            );
        }
    };
    let state = p.state.as_deref();
    let issuer = signin.public_url.as_str();
    if p.response_type.as_deref() != Some("code") {
        return to_client(
            &redirect_uri,
            state,
            "unsupported_response_type",
            "only the authorization code flow (response_type=code) is supported",
            issuer,
        );
    }
    let challenge = match (
        p.code_challenge.as_deref(),
        p.code_challenge_method.as_deref(),
    ) {
        (Some(c), Some("S256")) if (43..=128).contains(&c.len()) => c.to_string(),
        _ => {
            return to_client(
                &redirect_uri,
                state,
                "invalid_request",
                "PKCE is required, with code_challenge_method=S256",
                issuer,
            );
        }
    };
    if let Some(resource) = p.resource.as_deref()
        && resource.trim_end_matches('/') != signin.resource
    {
        return to_client(
            &redirect_uri,
            state,
            "invalid_target",
            "the resource is not this server's MCP endpoint",
            issuer,
        );
    }
    let request = Request {
        client_id: client.id.clone(),
        redirect_uri: redirect_uri.clone(),
        state: p.state.clone(),
        code_challenge: challenge,
        resource: signin.resource.clone(),
        scope: p.scope.clone(),
    };
    let nonce = signin.sealer.random_text(24);
    let ticket = signin.sealer.seal(
        payloads::TICKET,
        &Ticket {
            req: request,
            nonce: nonce.clone(),
            exp: now() + FLOW_TTL,
        },
    );
    let client_name = client
        .name
        .clone()
        .unwrap_or_else(|| "An unnamed MCP client".into());
    let form_targets: Vec<String> = [signin.app.base_url.as_str(), redirect_uri.as_str()]
        .into_iter()
        .filter_map(|url| http_url::parse(url).ok())
        .map(|url| url.origin().ascii_serialization())
        .collect();
    let mut response = pages::consent(&Consent {
        client_name: &client_name,
        client_id: if client.id.starts_with("https://") {
            &client.id
        } else {
            "registered with this server"
        },
        redirect_host: &redirect_host,
        gitlab_host: &signin.gitlab_host,
        scopes: &signin.app.scopes,
        ticket: &ticket,
        form_targets: &form_targets,
    });
    signin.set_cookie(&mut response, &nonce, FLOW_TTL);
    response
}

/// The consent page's form. A form without its ticket (the page's CSRF
/// token) is refused with the person's error page, as a forged one is.
#[derive(Deserialize)]
pub struct ConsentForm {
    ticket: Option<String>,
    decision: String,
}

/// `POST /authorize`: the person's answer on the consent page.
pub async fn consent(
    State(signin): State<Arc<Signin>>,
    headers: HeaderMap,
    Form(form): Form<ConsentForm>,
) -> Response {
    let Some(Ok(ticket)) = form
        .ticket
        .map(|ticket| signin.sealer.open::<Ticket>(payloads::TICKET, &ticket))
    else {
        return pages::error(
            StatusCode::BAD_REQUEST,
            "This consent form was not issued by this server.",
        );
    };
    if ticket.exp < now() {
        return pages::error(StatusCode::BAD_REQUEST, "This consent form has expired.");
    }
    if !signin.same_browser(&headers, &ticket.nonce) {
        return pages::error(
            StatusCode::FORBIDDEN,
            "This answer did not come from the browser the consent page was shown in.",
        );
    }
    let req = ticket.req;
    if form.decision != "approve" {
        return to_client(
            &req.redirect_uri,
            req.state.as_deref(),
            "access_denied",
            "the user denied access",
            &signin.public_url,
        );
    }
    let verifier = signin.sealer.random_text(32);
    let state = signin.sealer.seal(
        payloads::STATE,
        &GitLabState {
            req,
            gitlab_verifier: verifier.clone(),
            nonce: ticket.nonce,
            exp: now() + FLOW_TTL,
        },
    );
    Redirect::to(&signin.app.authorize_url(&state, &s256(&verifier))).into_response()
}

/// `GET /oauth/callback`: GitLab sends the browser back here.
pub async fn callback(
    State(signin): State<Arc<Signin>>,
    headers: HeaderMap,
    Query(q): Query<HashMap<String, String>>,
) -> Response {
    let Some(Ok(state)) = q
        .get("state")
        .map(|s| signin.sealer.open::<GitLabState>(payloads::STATE, s))
    else {
        return pages::error(
            StatusCode::BAD_REQUEST,
            "GitLab sent the browser back without a state this server issued.",
        );
    };
    if state.exp < now() {
        return pages::error(
            StatusCode::BAD_REQUEST,
            "The sign-in took too long and has expired.",
        );
    }
    if !signin.same_browser(&headers, &state.nonce) {
        return pages::error(
            StatusCode::FORBIDDEN,
            "This sign-in was started in another browser.",
        );
    }
    let req = state.req;
    let issuer = signin.public_url.clone();
    let mut response = match q.get("code") {
        None => {
            let error = q
                .get("error")
                .map(String::as_str)
                .unwrap_or("access_denied");
            let error = if error == "access_denied" {
                "access_denied"
            } else {
                "server_error"
            };
            to_client(
                &req.redirect_uri,
                req.state.as_deref(),
                error,
                "GitLab did not grant access",
                &issuer,
            )
        }
        Some(gitlab_code) => {
            let code = signin.sealer.seal(
                payloads::CODE,
                &Code {
                    req: req.clone(),
                    gitlab_code: gitlab_code.clone(),
                    gitlab_verifier: state.gitlab_verifier,
                    exp: now() + CODE_TTL,
                },
            );
            let mut pairs = vec![("code", code.as_str()), ("iss", issuer.as_str())];
            if let Some(s) = req.state.as_deref() {
                pairs.push(("state", s));
            }
            Redirect::to(&with_query(&req.redirect_uri, &pairs)).into_response()
        }
    };
    // The flow is over: forget its cookie.
    signin.set_cookie(&mut response, &state.nonce, 0);
    response
}

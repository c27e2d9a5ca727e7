//! What each sealed value carries. Short field names keep the values short
//! (some travel in URLs); each type is sealed under its own purpose.

use std::time::{SystemTime, UNIX_EPOCH};

use serde::{Deserialize, Serialize};

/// Seconds since the Unix epoch.
pub fn now() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0)
}

/// Purposes: a value sealed for one never opens as another.
pub const CLIENT: &str = "client";
pub const CLIENT_SECRET: &str = "client-secret";
pub const TICKET: &str = "consent-ticket";
pub const STATE: &str = "gitlab-state";
pub const CODE: &str = "code";
pub const ACCESS: &str = "access";
pub const REFRESH: &str = "refresh";

/// A client registered by dynamic client registration: the client id is
/// this, sealed.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct RegisteredClient {
    /// Redirect URIs.
    pub r: Vec<String>,
    /// Client name.
    pub n: Option<String>,
    /// Confidential: it authenticates at the token endpoint.
    pub conf: bool,
    pub iat: u64,
}

/// What an authorization request asked, checked, carried through consent
/// and GitLab to the code.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
pub struct Request {
    /// Client id.
    pub c: String,
    /// Redirect URI, exactly as registered.
    pub r: String,
    /// The client's state, returned to it unchanged.
    pub s: Option<String>,
    /// The client's PKCE challenge (S256).
    pub ch: String,
    /// The resource the token is for (this server's MCP endpoint).
    pub res: String,
    pub sc: Option<String>,
}

/// The consent form's ticket: the request, bound to the browser that
/// loaded the form by a nonce also set as a cookie.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Ticket {
    pub req: Request,
    pub nonce: String,
    pub exp: u64,
}

/// The `state` sent through GitLab: the request, this server's own PKCE
/// verifier for GitLab, and the browser's nonce.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct State {
    pub req: Request,
    pub v: String,
    pub nonce: String,
    pub exp: u64,
}

/// This server's authorization code: GitLab's code, not yet exchanged.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Code {
    pub req: Request,
    /// GitLab's code.
    pub g: String,
    /// The verifier of this server's challenge to GitLab.
    pub v: String,
    pub exp: u64,
}

/// An access token of this server, around GitLab's.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Access {
    /// Audience: the resource it is for.
    pub aud: String,
    pub c: String,
    /// GitLab's access token.
    pub t: String,
    pub exp: u64,
}

/// A refresh token of this server, around GitLab's (which GitLab rotates).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Refresh {
    pub aud: String,
    pub c: String,
    pub t: String,
    pub exp: u64,
}

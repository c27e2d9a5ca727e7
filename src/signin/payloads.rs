//! What each sealed value carries. Short names on the wire keep the values
//! short (some travel in URLs), readable names in Rust; each type is sealed
//! under its own purpose.

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
    #[serde(rename = "r")]
    pub redirect_uris: Vec<String>,
    #[serde(rename = "n")]
    pub name: Option<String>,
    /// It authenticates at the token endpoint.
    #[serde(rename = "conf")]
    pub confidential: bool,
    pub iat: u64,
}

/// What an authorization request asked, checked, carried through consent
/// and GitLab to the code.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
pub struct Request {
    #[serde(rename = "c")]
    pub client_id: String,
    /// Exactly as registered.
    #[serde(rename = "r")]
    pub redirect_uri: String,
    /// The client's state, returned to it unchanged.
    #[serde(rename = "s")]
    pub state: Option<String>,
    /// The client's PKCE challenge (S256).
    #[serde(rename = "ch")]
    pub code_challenge: String,
    /// The resource the token is for (this server's MCP endpoint).
    #[serde(rename = "res")]
    pub resource: String,
    #[serde(rename = "sc")]
    pub scope: Option<String>,
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
    #[serde(rename = "v")]
    pub gitlab_verifier: String,
    pub nonce: String,
    pub exp: u64,
}

/// This server's authorization code: GitLab's code, not yet exchanged.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Code {
    pub req: Request,
    #[serde(rename = "g")]
    pub gitlab_code: String,
    /// The verifier of this server's challenge to GitLab.
    #[serde(rename = "v")]
    pub gitlab_verifier: String,
    pub exp: u64,
}

/// An access token of this server, around GitLab's.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Access {
    /// Audience: the resource it is for.
    pub aud: String,
    #[serde(rename = "c")]
    pub client_id: String,
    #[serde(rename = "t")]
    pub gitlab_token: String,
    pub exp: u64,
}

/// A refresh token of this server, around GitLab's (which GitLab rotates).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Refresh {
    pub aud: String,
    #[serde(rename = "c")]
    pub client_id: String,
    #[serde(rename = "t")]
    pub gitlab_refresh_token: String,
    pub exp: u64,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::signin::Sealer;

    /// A code sealed with this key before the fields had readable names.
    const KEY: &str = "payload-fixture-key-0123456789abcdef0123";
    const SEALED_CODE: &str = "gmcp1.zIDSGtPWNVEQhXSl5WUjlA2tPyfWewahFIukSKFkR1tSaWu8z7ywDuGypANTiyCXzknxXJyQvr6aeMGdRl4XaoHlXj0Y4WQYZ7ouy3B_55Kd4lByR7e4Bmi1r8K8-GV-4lsCSEM27N1ejn_o0_8-zidugCcxQ4Q4_tYGv4-K89IrsNfS8PXMoYKsL9t3J0mDZxFms6E7jZxo04TVrkzxOtRUA7tKlEGzCbgwpGVZTR10usXX08EgtVK5QbKLhUg1P4nvkH2vvg87i0kTcbWQ7SMR8kCHhWcijam4TBik5Wwv91bvSzRWfl_rqo0LpSfHkGAq8N7cznhWWVCt4QbEIFzGGgweCFtMQ8GZlGN4_d4";
    const SEALED_ACCESS: &str = "gmcp1.zIDSGjc4J7lpkLrMVHdhqx5Rm-V1oNvnpglkH-YrifDSlbEV87eN-81XVN8hGOT6VQyVQxkVxNCu5J9jFAvm109DeImyqhHnu2VffnQYJtPapfvE_csS8YCkS52_0B0ljCLVtTgVWaWIxFqNxnLO73DPVFX73bljBAEix3yj26Z66aI";

    fn request() -> Request {
        Request {
            client_id: "gmcp1.client".into(),
            redirect_uri: "http://127.0.0.1:33418/callback".into(),
            state: Some("client-state".into()),
            code_challenge: "hdubCUsji5dHBrjt5s8Fy0gQNKj0kzCWb3SL9sBI-FI".into(),
            resource: "https://mcp.example.com/mcp".into(),
            scope: Some("api".into()),
        }
    }

    #[test]
    fn values_sealed_before_the_readable_names_still_open() {
        let sealer = Sealer::new(KEY).unwrap();
        let code: Code = sealer.open(CODE, SEALED_CODE).unwrap();
        assert_eq!(code.req, request());
        assert_eq!(code.gitlab_code, "gitlab-code");
        assert_eq!(code.gitlab_verifier, "gitlab-verifier");
        assert_eq!(code.exp, 1_900_000_000);
        let access: Access = sealer.open(ACCESS, SEALED_ACCESS).unwrap();
        assert_eq!(access.aud, "https://mcp.example.com/mcp");
        assert_eq!(access.client_id, "gmcp1.client");
        assert_eq!(access.gitlab_token, "gitlab-access-token");
        assert_eq!(access.exp, 1_900_000_000);
    }

    /// The wire form keeps its short names: what is sealed now is what
    /// was sealed before, field for field.
    #[test]
    fn the_wire_form_keeps_the_short_names() {
        let code = Code {
            req: request(),
            gitlab_code: "gitlab-code".into(),
            gitlab_verifier: "gitlab-verifier".into(),
            exp: 1_900_000_000,
        };
        assert_eq!(
            serde_json::to_string(&code).unwrap(),
            r#"{"req":{"c":"gmcp1.client","r":"http://127.0.0.1:33418/callback","s":"client-state","ch":"hdubCUsji5dHBrjt5s8Fy0gQNKj0kzCWb3SL9sBI-FI","res":"https://mcp.example.com/mcp","sc":"api"},"g":"gitlab-code","v":"gitlab-verifier","exp":1900000000}"#
        );
        let wire = |value: serde_json::Value| serde_json::to_string(&value).unwrap();
        let client = RegisteredClient {
            redirect_uris: vec!["https://app.example/cb".into()],
            name: Some("App".into()),
            confidential: true,
            iat: 7,
        };
        assert_eq!(
            serde_json::to_string(&client).unwrap(),
            wire(
                serde_json::json!({"r": ["https://app.example/cb"], "n": "App", "conf": true, "iat": 7})
            )
        );
        let state = State {
            req: request(),
            gitlab_verifier: "v".into(),
            nonce: "n".into(),
            exp: 1,
        };
        let json = serde_json::to_value(&state).unwrap();
        assert_eq!(json["v"], "v");
        assert_eq!(json["req"]["c"], "gmcp1.client");
        let refresh = Refresh {
            aud: "a".into(),
            client_id: "c".into(),
            gitlab_refresh_token: "t".into(),
            exp: 2,
        };
        assert_eq!(
            serde_json::to_string(&refresh).unwrap(),
            wire(serde_json::json!({"aud": "a", "c": "c", "t": "t", "exp": 2}))
        );
    }
}

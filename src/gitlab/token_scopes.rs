//! What GitLab says a token may do: its scopes, asked of the token itself.
//!
//! - A personal, project or group access token: `GET
//!   /personal_access_tokens/self` (GitLab 16.0 and later;
//!   docs.gitlab.com/api/personal_access_tokens/#get-single-personal-access-token),
//!   whose `scopes` is an array.
//! - An OAuth token: that endpoint answers 400 ("requires token type to be
//!   a personal access token"; a 404 on older GitLabs), so a token sent as
//!   `Bearer` is then asked of Doorkeeper's `GET /oauth/token/info`, outside
//!   the API (docs.gitlab.com/api/oauth2/#retrieve-the-token-information),
//!   whose `scope` is an array (`scopes`, deprecated, says the same).

use serde_json::Value;

use super::client::Client;
use super::error::GitLabError;
use super::request::HttpRequest;
use super::target::{AuthScheme, Target};

/// Why the scopes are not known.
#[derive(Debug, thiserror::Error)]
pub enum ScopesUnknown {
    #[error("there is no token")]
    NoToken,
    #[error("GitLab did not say: {0}")]
    NotAnswered(GitLabError),
    #[error("GitLab's answer names no scopes")]
    Unreadable,
}

/// What GitLab says of a token.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TokenFacts {
    /// The scopes, as GitLab names them.
    pub scopes: Vec<String>,
    /// When it expires, in words (`2026-12-31`, `in 7200 s`); `None`: never.
    pub expires: Option<String>,
}

/// The token's scopes and expiry, as GitLab names them.
pub async fn token_scopes(client: &Client, target: &Target) -> Result<TokenFacts, ScopesUnknown> {
    let Some(credentials) = &target.credentials else {
        return Err(ScopesUnknown::NoToken);
    };
    let personal = client
        .send(target, &HttpRequest::get("/personal_access_tokens/self"))
        .await;
    match personal {
        Ok(response) => return facts(&response.body, &["scopes"], "expires_at"),
        Err(failed) if credentials.scheme == AuthScheme::Bearer && not_personal(&failed.error) => {}
        Err(failed) => return Err(ScopesUnknown::NotAnswered(failed.error)),
    }
    // Doorkeeper's endpoint is under GitLab's web root, not the API's.
    let web = Target {
        api_root: target.web_root().to_string(),
        credentials: target.credentials.clone(),
    };
    match client
        .send(&web, &HttpRequest::get("/oauth/token/info"))
        .await
    {
        Ok(response) => facts(&response.body, &["scope", "scopes"], "expires_in"),
        Err(failed) => Err(ScopesUnknown::NotAnswered(failed.error)),
    }
}

/// The answer of the personal token endpoint to a token of another type.
fn not_personal(error: &GitLabError) -> bool {
    matches!(error, GitLabError::Status(s) if matches!(s.status, 400 | 401 | 403 | 404))
}

/// The scopes under the first of `keys` that holds them (an array of
/// names, or OAuth's space-separated text), and the expiry under
/// `expiry`: a date, or seconds from now.
fn facts(body: &[u8], keys: &[&str], expiry: &str) -> Result<TokenFacts, ScopesUnknown> {
    let value: Value = serde_json::from_slice(body).map_err(|_| ScopesUnknown::Unreadable)?;
    let expires = match &value[expiry] {
        Value::String(date) => Some(date.clone()),
        Value::Number(seconds) => Some(format!("in {seconds} s")),
        _ => None,
    };
    let found = keys.iter().find_map(|key| match &value[*key] {
        Value::Array(items) => Some(
            items
                .iter()
                .filter_map(Value::as_str)
                .map(str::to_string)
                .collect::<Vec<_>>(),
        ),
        Value::String(text) => Some(text.split_whitespace().map(str::to_string).collect()),
        _ => None,
    });
    let scopes = found
        .filter(|names| !names.is_empty())
        .ok_or(ScopesUnknown::Unreadable)?;
    Ok(TokenFacts { scopes, expires })
}

#[cfg(test)]
mod tests {
    use super::{TokenFacts, facts};

    fn read(body: &[u8], keys: &[&str], expiry: &str) -> TokenFacts {
        facts(body, keys, expiry).unwrap()
    }

    #[test]
    fn scopes_and_expiry_are_read_from_either_endpoint_s_answer() {
        let personal = br#"{"id": 4, "scopes": ["api", "read_user"], "expires_at": "2026-12-31"}"#;
        let got = read(personal, &["scopes"], "expires_at");
        assert_eq!(got.scopes, ["api", "read_user"]);
        assert_eq!(got.expires.as_deref(), Some("2026-12-31"));
        let oauth = br#"{"resource_owner_id": 1, "scope": ["read_api"], "expires_in": 7200}"#;
        let got = read(oauth, &["scope", "scopes"], "expires_in");
        assert_eq!(got.scopes, ["read_api"]);
        assert_eq!(got.expires.as_deref(), Some("in 7200 s"));
        let spaced = br#"{"scope": "read_api read_user", "expires_in": null}"#;
        let got = read(spaced, &["scope"], "expires_in");
        assert_eq!(got.scopes, ["read_api", "read_user"]);
        assert_eq!(got.expires, None);
        assert!(facts(br#"{"scopes": []}"#, &["scopes"], "expires_at").is_err());
        assert!(facts(b"<html>", &["scopes"], "expires_at").is_err());
    }
}

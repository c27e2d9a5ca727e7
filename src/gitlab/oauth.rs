//! GitLab as an OAuth provider (https://docs.gitlab.com/api/oauth2/): the
//! code exchange, refresh and revocation this server makes with the
//! operator's GitLab application, behind its own sign-in.

use serde::Deserialize;

use super::client::Client;
use super::error::GitLabError;
use crate::secret::Secret;

/// The operator's GitLab application.
#[derive(Debug, Clone)]
pub struct OAuthApp {
    /// GitLab's base URL (without `/api/v4`).
    pub base_url: String,
    pub client_id: String,
    pub client_secret: Secret,
    /// This server's callback, as registered in the application.
    pub redirect_uri: String,
    /// Space-separated scopes, such as `api`.
    pub scopes: String,
}

/// What GitLab's token endpoint answered.
#[derive(Debug, Clone)]
pub struct Tokens {
    pub access_token: Secret,
    pub refresh_token: Option<Secret>,
    /// Seconds; GitLab's tokens expire in 7200.
    pub expires_in: Option<u64>,
    pub scope: Option<String>,
}

#[derive(Debug, thiserror::Error)]
pub enum OAuthError {
    /// GitLab answered with an OAuth error (`invalid_grant`...).
    #[error("GitLab refused: {error}")]
    Rejected {
        status: u16,
        error: String,
        description: Option<String>,
    },
    #[error("GitLab could not be reached: {0}")]
    Unreachable(GitLabError),
}

#[derive(Deserialize)]
struct TokenAnswer {
    access_token: String,
    refresh_token: Option<String>,
    expires_in: Option<u64>,
    scope: Option<String>,
}

#[derive(Deserialize)]
struct ErrorAnswer {
    error: Option<String>,
    error_description: Option<String>,
}

impl OAuthApp {
    /// Where the user's browser goes to consent at GitLab.
    pub fn authorize_url(&self, state: &str, challenge: &str) -> String {
        let mut url = format!("{}/oauth/authorize?", self.base_url);
        let pairs = [
            ("client_id", self.client_id.as_str()),
            ("redirect_uri", self.redirect_uri.as_str()),
            ("response_type", "code"),
            ("scope", self.scopes.as_str()),
            ("state", state),
            ("code_challenge", challenge),
            ("code_challenge_method", "S256"),
        ];
        for (i, (k, v)) in pairs.iter().enumerate() {
            if i > 0 {
                url.push('&');
            }
            url.push_str(k);
            url.push('=');
            crate::encoding::percent_encode_into(&mut url, v);
        }
        url
    }

    /// Exchange GitLab's code (single-use at GitLab) with this server's
    /// PKCE verifier.
    pub async fn exchange_code(
        &self,
        client: &Client,
        code: &str,
        verifier: &str,
    ) -> Result<Tokens, OAuthError> {
        self.token_request(
            client,
            &[
                ("grant_type", "authorization_code"),
                ("code", code),
                ("redirect_uri", &self.redirect_uri),
                ("code_verifier", verifier),
            ],
        )
        .await
    }

    /// A new access token (and, GitLab rotating them, a new refresh token).
    pub async fn refresh(
        &self,
        client: &Client,
        refresh_token: &str,
    ) -> Result<Tokens, OAuthError> {
        self.token_request(
            client,
            &[
                ("grant_type", "refresh_token"),
                ("refresh_token", refresh_token),
                ("redirect_uri", &self.redirect_uri),
            ],
        )
        .await
    }

    /// Revoke a token at GitLab (RFC 7009: unknown tokens are no error).
    pub async fn revoke(&self, client: &Client, token: &str) -> Result<(), OAuthError> {
        let url = format!("{}/oauth/revoke", self.base_url);
        let form = [
            ("client_id", self.client_id.as_str()),
            ("client_secret", self.client_secret.expose()),
            ("token", token),
        ];
        let (status, body) = client
            .post_form(&url, &form)
            .await
            .map_err(OAuthError::Unreachable)?;
        if (200..300).contains(&status) {
            Ok(())
        } else {
            Err(rejected(status, &body))
        }
    }

    async fn token_request(
        &self,
        client: &Client,
        grant: &[(&str, &str)],
    ) -> Result<Tokens, OAuthError> {
        let url = format!("{}/oauth/token", self.base_url);
        let mut form: Vec<(&str, &str)> = vec![
            ("client_id", self.client_id.as_str()),
            ("client_secret", self.client_secret.expose()),
        ];
        form.extend_from_slice(grant);
        let (status, body) = client
            .post_form(&url, &form)
            .await
            .map_err(OAuthError::Unreachable)?;
        if !(200..300).contains(&status) {
            return Err(rejected(status, &body));
        }
        let answer: TokenAnswer =
            serde_json::from_slice(&body).map_err(|_| OAuthError::Rejected {
                status,
                error: "invalid_response".into(),
                description: Some("GitLab's token answer is not the documented JSON".into()),
            })?;
        Ok(Tokens {
            access_token: Secret::new(answer.access_token),
            refresh_token: answer.refresh_token.map(Secret::new),
            expires_in: answer.expires_in,
            scope: answer.scope,
        })
    }
}

fn rejected(status: u16, body: &[u8]) -> OAuthError {
    let answer: Option<ErrorAnswer> = serde_json::from_slice(body).ok();
    OAuthError::Rejected {
        status,
        error: answer
            .as_ref()
            .and_then(|a| a.error.clone())
            .unwrap_or_else(|| format!("http_{status}")),
        description: answer.and_then(|a| a.error_description),
    }
}

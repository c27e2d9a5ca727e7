//! GitLab as an OAuth 2 provider (docs: https://docs.gitlab.com/api/oauth2/;
//! GitLab uses the Doorkeeper gem, whose error bodies follow RFC 6749
//! section 5.2): registered applications, single-use authorization codes
//! bound to a client, a redirect URI and a PKCE challenge, access tokens
//! valid 2 hours, refresh tokens that rotate, revocation.
//!
//! The fake consents at once: `/oauth/authorize` signs in the consenting
//! user (alice unless `FakeGitLab::set_oauth_user` changed it, or the
//! request's `fake_user=<username>`, a parameter only the fake knows, so
//! that two users can sign in at once) and redirects with the code.

use sha2::{Digest, Sha256};

/// An application registered with the provider.
#[derive(Clone, Debug)]
pub struct OAuthApp {
    pub client_id: String,
    /// `None` for a public (non-confidential) application, which
    /// authenticates with PKCE alone.
    pub client_secret: Option<String>,
    pub redirect_uris: Vec<String>,
    /// The scopes it may ask for (space-separated in requests).
    pub scopes: Vec<String>,
}

#[derive(Clone)]
struct Grant {
    code: String,
    client_id: String,
    redirect_uri: String,
    user_id: u64,
    scopes: Vec<String>,
    challenge: Option<(String, String)>,
    used: bool,
}

#[derive(Clone)]
pub(crate) struct Token {
    pub access: String,
    pub refresh: String,
    pub client_id: String,
    pub user_id: u64,
    pub scopes: Vec<String>,
    pub created_at: u64,
    pub revoked: bool,
    pub expired: bool,
}

pub(crate) struct OAuth {
    pub apps: Vec<OAuthApp>,
    grants: Vec<Grant>,
    pub tokens: Vec<Token>,
    /// Who consents when the request does not say.
    pub user: String,
    counter: u64,
}

impl Default for OAuth {
    fn default() -> Self {
        OAuth {
            apps: Vec::new(),
            grants: Vec::new(),
            tokens: Vec::new(),
            user: "alice".into(),
            counter: 0,
        }
    }
}

/// An OAuth error: status, `error`, `error_description` (Doorkeeper's texts).
#[derive(Debug, PartialEq)]
pub(crate) struct Error(pub u16, pub &'static str, pub String);

pub(crate) fn invalid_request(param: &str) -> Error {
    Error(
        400,
        "invalid_request",
        format!("Missing required parameter: {param}."),
    )
}

pub(crate) fn invalid_client() -> Error {
    Error(
        401,
        "invalid_client",
        "Client authentication failed due to unknown client, no client authentication included, or unsupported authentication method.".into(),
    )
}

pub(crate) fn invalid_grant() -> Error {
    Error(
        400,
        "invalid_grant",
        "The provided authorization grant is invalid, expired, revoked, does not match the redirection URI used in the authorization request, or was issued to another client.".into(),
    )
}

pub(crate) fn invalid_scope() -> Error {
    Error(
        400,
        "invalid_scope",
        "The requested scope is invalid, unknown, or malformed.".into(),
    )
}

/// RFC 7636's S256: BASE64URL(SHA256(verifier)) without padding.
pub fn s256(verifier: &str) -> String {
    base64url(&Sha256::digest(verifier.as_bytes()))
}

fn base64url(bytes: &[u8]) -> String {
    crate::objects::base64(bytes)
        .trim_end_matches('=')
        .replace('+', "-")
        .replace('/', "_")
}

pub(crate) fn unix_now() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0)
}

impl OAuth {
    fn secret(&mut self, kind: &str) -> String {
        self.counter += 1;
        // 64 hex digits like GitLab's tokens; unique, not meant to be secret.
        let seed = self.counter * 7919 + unix_now() % 1_000_003;
        let hex = format!("{}{}", crate::db::sha(seed), crate::db::sha(seed + 1));
        format!("{kind}{}", &hex[..64])
    }

    pub fn app(&self, client_id: &str) -> Option<&OAuthApp> {
        self.apps.iter().find(|a| a.client_id == client_id)
    }

    /// The client, authenticated: a confidential one needs its secret.
    pub fn client(
        &self,
        client_id: Option<&str>,
        secret: Option<&str>,
    ) -> Result<&OAuthApp, Error> {
        let app = client_id
            .and_then(|id| self.app(id))
            .ok_or_else(invalid_client)?;
        match (&app.client_secret, secret) {
            (None, _) => Ok(app),
            (Some(s), Some(given)) if s == given => Ok(app),
            _ => Err(invalid_client()),
        }
    }

    /// A new authorization code for `user_id`.
    pub fn grant(
        &mut self,
        client_id: &str,
        redirect_uri: &str,
        user_id: u64,
        scopes: Vec<String>,
        challenge: Option<(String, String)>,
    ) -> String {
        let code = self.secret("");
        self.grants.push(Grant {
            code: code.clone(),
            client_id: client_id.into(),
            redirect_uri: redirect_uri.into(),
            user_id,
            scopes,
            challenge,
            used: false,
        });
        code
    }

    /// Exchange a code: once, by its client, with its redirect URI and the
    /// verifier of its challenge.
    pub fn redeem(
        &mut self,
        client_id: &str,
        code: &str,
        redirect_uri: Option<&str>,
        verifier: Option<&str>,
    ) -> Result<Token, Error> {
        let grant = self
            .grants
            .iter_mut()
            .find(|g| g.code == code)
            .ok_or_else(invalid_grant)?;
        if grant.used
            || grant.client_id != client_id
            || redirect_uri != Some(grant.redirect_uri.as_str())
        {
            return Err(invalid_grant());
        }
        if let Some((challenge, method)) = &grant.challenge {
            let verifier = verifier.ok_or_else(|| invalid_request("code_verifier"))?;
            let computed = if method == "plain" {
                verifier.to_string()
            } else {
                s256(verifier)
            };
            if &computed != challenge {
                return Err(invalid_grant());
            }
        }
        grant.used = true;
        let (user_id, scopes) = (grant.user_id, grant.scopes.clone());
        Ok(self.issue(client_id, user_id, scopes))
    }

    fn issue(&mut self, client_id: &str, user_id: u64, scopes: Vec<String>) -> Token {
        let token = Token {
            access: self.secret("gloas-"),
            refresh: self.secret(""),
            client_id: client_id.into(),
            user_id,
            scopes,
            created_at: unix_now(),
            revoked: false,
            expired: false,
        };
        self.tokens.push(token.clone());
        token
    }

    /// A refresh: the old access and refresh tokens die, new ones are born.
    pub fn refresh(
        &mut self,
        client_id: &str,
        refresh: &str,
        scope: Option<&str>,
    ) -> Result<Token, Error> {
        let old = self
            .tokens
            .iter_mut()
            .find(|t| t.refresh == refresh)
            .filter(|t| !t.revoked && t.client_id == client_id)
            .ok_or_else(invalid_grant)?;
        let scopes = match scope {
            Some(s) => {
                let wanted: Vec<String> = s.split_whitespace().map(str::to_string).collect();
                if !wanted.iter().all(|w| old.scopes.contains(w)) {
                    return Err(invalid_scope());
                }
                wanted
            }
            None => old.scopes.clone(),
        };
        old.revoked = true;
        let user_id = old.user_id;
        Ok(self.issue(client_id, user_id, scopes))
    }

    /// Revoke the token whose access or refresh token this is.
    pub fn revoke(&mut self, token: &str) {
        for t in self
            .tokens
            .iter_mut()
            .filter(|t| t.access == token || t.refresh == token)
        {
            t.revoked = true;
        }
    }

    pub fn by_access(&self, access: &str) -> Option<&Token> {
        self.tokens.iter().find(|t| t.access == access)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn s256_matches_gitlabs_documented_example() {
        // docs: https://docs.gitlab.com/api/oauth2/ (PKCE section).
        assert_eq!(
            s256("ks02i3jdikdo2k0dkfodf3m39rjfjsdk0wk349rj3jrhf"),
            "2i0WFA-0AerkjQm4X4oDEhqA17QIAKNjXpagHBXmO_U"
        );
    }
}

//! Who a request acts as, and against which GitLab: its `Target`, resolved
//! from its own headers for that request only. Nothing here is stored; a
//! token lives as long as the request that brought it.
//!
//! - `Authorization: Bearer <token>` or `Private-Token: <token>`: the
//!   caller's GitLab token, sent on to GitLab the same way.
//! - With an endpoint secret, `Authorization: Bearer <secret>` admits the
//!   caller, and its GitLab token (if any) comes in `Private-Token`.
//! - `X-GitLab-URL: <url>`: another GitLab, only when the operator listed
//!   it; the server's own token is never sent there.
//! - No token: the server's token, unless the operator requires tokens.

use std::hash::{BuildHasher, Hash, Hasher};

use axum::http::HeaderMap;

use std::sync::Arc;

use super::settings::CallerAuth;
use crate::gitlab::{self, AuthScheme, Credentials, Target};
use crate::secret::{Secret, constant_time_eq};
use crate::signin::{Signin, TokenProblem, seal};

/// The header naming another GitLab, and the name @zereight/mcp-gitlab's
/// clients send.
pub const GITLAB_URL_HEADERS: [&str; 2] = ["x-gitlab-url", "x-gitlab-api-url"];

pub struct Resolver {
    server: Target,
    /// API roots (`…/api/v4`) a request may name.
    allowed_gitlab: Vec<String>,
    auth: CallerAuth,
    /// Opens the access tokens sign-in issued.
    signin: Option<Arc<Signin>>,
    /// Keys the per-credential hash, so the limiter holds no token.
    hasher: std::collections::hash_map::RandomState,
}

/// Why the caller's headers are not accepted; answered as a
/// `Denied::Denied` (`refusal.rs`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Denied {
    /// 401: credentials are missing or not accepted.
    Unauthenticated(&'static str),
    /// 401: a sign-in token that does not open, expired or is for another
    /// server; nothing reaches GitLab.
    InvalidToken(TokenProblem),
    /// 403: `X-GitLab-URL` names a GitLab this server may not reach.
    GitLabUrl(String),
}

/// A request's target and a key for its per-credential limit.
pub struct Resolved {
    pub target: Target,
    pub credential_key: u64,
}

impl Resolver {
    pub fn new(
        server: Target,
        allowed_gitlab_urls: &[String],
        auth: CallerAuth,
        signin: Option<Arc<Signin>>,
    ) -> Self {
        Resolver {
            signin,
            server,
            allowed_gitlab: allowed_gitlab_urls
                .iter()
                .filter_map(|u| gitlab::api_root(u).ok())
                .collect(),
            auth,
            hasher: Default::default(),
        }
    }

    pub fn resolve(&self, headers: &HeaderMap) -> Result<Resolved, Denied> {
        let header = |name: &str| {
            headers
                .get(name)
                .and_then(|v| v.to_str().ok())
                .map(str::trim)
        };
        let api_root = match GITLAB_URL_HEADERS.iter().find_map(|h| header(h)) {
            None => self.server.api_root.clone(),
            Some(url) => {
                let root = gitlab::api_root(url).map_err(|_| Denied::GitLabUrl(url.to_string()))?;
                if root != self.server.api_root && !self.allowed_gitlab.contains(&root) {
                    return Err(Denied::GitLabUrl(url.to_string()));
                }
                root
            }
        };
        let bearer = header("authorization").and_then(bearer_token);
        let private = header("private-token").filter(|t| !t.is_empty());
        let mut given = match (&self.auth.endpoint_secret, bearer) {
            (Some(secret), Some(b)) if constant_time_eq(b, secret.expose()) => None,
            (Some(_), _) => {
                return Err(Denied::Unauthenticated(
                    "this server requires its endpoint secret as `Authorization: Bearer`",
                ));
            }
            (None, Some(b)) => Some((b, AuthScheme::Bearer)),
            (None, None) => None,
        };
        if let Some(token) = private {
            given = Some((token, AuthScheme::PrivateToken));
        }
        let credentials = match given {
            // An access token of this server's sign-in: GitLab's is inside,
            // for the server's GitLab only.
            Some((token, AuthScheme::Bearer)) if token.starts_with(seal::PREFIX) => {
                let Some(signin) = &self.signin else {
                    return Err(Denied::Unauthenticated(
                        "sign-in is not enabled on this server",
                    ));
                };
                if api_root != self.server.api_root {
                    return Err(Denied::GitLabUrl(api_root));
                }
                Some(signin.credentials_of(token).map_err(Denied::InvalidToken)?)
            }
            Some((token, scheme)) => {
                if !token.bytes().all(|b| (0x21..0x7f).contains(&b)) {
                    return Err(Denied::Unauthenticated(
                        "the token has characters a token cannot have",
                    ));
                }
                Some(Credentials {
                    token: Secret::new(token),
                    scheme,
                })
            }
            None if self.auth.require_client_token => {
                return Err(Denied::Unauthenticated(
                    "this server requires your own GitLab token: send `Authorization: Bearer <token>` or `Private-Token: <token>`",
                ));
            }
            // The server's token belongs to the server's GitLab only.
            None if api_root == self.server.api_root => self.server.credentials.clone(),
            None => None,
        };
        let credential_key = {
            let mut h = self.hasher.build_hasher();
            credentials.as_ref().map(|c| c.token.expose()).hash(&mut h);
            api_root.hash(&mut h);
            h.finish()
        };
        Ok(Resolved {
            target: Target {
                api_root,
                credentials,
            },
            credential_key,
        })
    }
}

/// The token of `Bearer <token>` (the scheme is case-insensitive).
fn bearer_token(value: &str) -> Option<&str> {
    let (scheme, token) = value.split_once(' ')?;
    (scheme.eq_ignore_ascii_case("bearer") && !token.trim().is_empty()).then(|| token.trim())
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::http::HeaderValue;

    fn server() -> Target {
        Target {
            api_root: "https://gitlab.example.com/api/v4".into(),
            credentials: Some(Credentials {
                token: Secret::new("glpat-server"),
                scheme: AuthScheme::PrivateToken,
            }),
        }
    }

    fn headers(pairs: &[(&'static str, &str)]) -> HeaderMap {
        let mut h = HeaderMap::new();
        for (k, v) in pairs {
            h.insert(*k, HeaderValue::from_str(v).unwrap());
        }
        h
    }

    fn token(r: &Resolved) -> Option<(&str, AuthScheme)> {
        r.target
            .credentials
            .as_ref()
            .map(|c| (c.token.expose(), c.scheme))
    }

    #[test]
    fn a_caller_token_is_used_as_it_came() {
        let r = Resolver::new(server(), &[], CallerAuth::default(), None);
        let got = r
            .resolve(&headers(&[("authorization", "Bearer glpat-alice")]))
            .unwrap();
        assert_eq!(token(&got), Some(("glpat-alice", AuthScheme::Bearer)));
        let got = r
            .resolve(&headers(&[("private-token", "glpat-bob")]))
            .unwrap();
        assert_eq!(token(&got), Some(("glpat-bob", AuthScheme::PrivateToken)));
        let got = r.resolve(&headers(&[])).unwrap();
        assert_eq!(
            token(&got),
            Some(("glpat-server", AuthScheme::PrivateToken))
        );
    }

    #[test]
    fn required_tokens_and_endpoint_secrets_are_enforced() {
        let auth = CallerAuth {
            require_client_token: true,
            endpoint_secret: None,
        };
        let r = Resolver::new(server(), &[], auth, None);
        assert!(matches!(
            r.resolve(&headers(&[])),
            Err(Denied::Unauthenticated(_))
        ));
        let auth = CallerAuth {
            require_client_token: false,
            endpoint_secret: Some(Secret::new("s3cret")),
        };
        let r = Resolver::new(server(), &[], auth, None);
        assert!(
            r.resolve(&headers(&[("authorization", "Bearer wrong")]))
                .is_err()
        );
        let got = r
            .resolve(&headers(&[
                ("authorization", "Bearer s3cret"),
                ("private-token", "glpat-carol"),
            ]))
            .unwrap();
        assert_eq!(token(&got), Some(("glpat-carol", AuthScheme::PrivateToken)));
    }

    #[test]
    fn another_gitlab_only_when_listed_and_never_with_the_server_token() {
        let r = Resolver::new(
            server(),
            &["https://other.example.com".into()],
            CallerAuth::default(),
            None,
        );
        assert!(matches!(
            r.resolve(&headers(&[("x-gitlab-url", "https://evil.example")])),
            Err(Denied::GitLabUrl(_))
        ));
        let got = r
            .resolve(&headers(&[(
                "x-gitlab-url",
                "https://other.example.com/api/v4",
            )]))
            .unwrap();
        assert_eq!(got.target.api_root, "https://other.example.com/api/v4");
        assert_eq!(token(&got), None);
    }

    #[test]
    fn credential_keys_differ_by_token() {
        let r = Resolver::new(server(), &[], CallerAuth::default(), None);
        let a = r
            .resolve(&headers(&[("private-token", "a")]))
            .unwrap()
            .credential_key;
        let b = r
            .resolve(&headers(&[("private-token", "b")]))
            .unwrap()
            .credential_key;
        let a2 = r
            .resolve(&headers(&[("private-token", "a")]))
            .unwrap()
            .credential_key;
        assert_ne!(a, b);
        assert_eq!(a, a2);
    }
}

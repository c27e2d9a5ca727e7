//! Where a request goes and as whom: the API root and the credentials of
//! one call. The client holds neither, so every request carries its own
//! and no request can ever be sent with another's token.

use crate::http_url::{self, HttpUrlError};
use crate::secret::Secret;

/// How a token is sent.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum AuthScheme {
    /// `PRIVATE-TOKEN: <token>`: personal, project and group access tokens.
    #[default]
    PrivateToken,
    /// `Authorization: Bearer <token>`: OAuth tokens (personal tokens work too).
    Bearer,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Credentials {
    pub token: Secret,
    pub scheme: AuthScheme,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Target {
    /// The API root, ending in `/api/v4` and never in `/`.
    pub api_root: String,
    /// `None`: anonymous requests.
    pub credentials: Option<Credentials>,
}

impl Target {
    /// The host (and port, when not the scheme's default) of the API root,
    /// for messages.
    pub fn host(&self) -> String {
        http_url::parse(&self.api_root)
            .map(|url| http_url::authority(&url))
            .unwrap_or_default()
    }

    /// GitLab's web address: the API root without `/api/v4`
    /// (`https://host/gitlab`), which web URLs and OAuth live under.
    pub fn web_root(&self) -> &str {
        self.api_root
            .strip_suffix("/api/v4")
            .unwrap_or(&self.api_root)
    }

    pub fn has_token(&self) -> bool {
        self.credentials.is_some()
    }

    /// A SHA-256 of the token and the API root: the key of what belongs to
    /// one caller (its scopes, its tasks) without holding the token.
    /// `None` without a token.
    pub fn fingerprint(&self) -> Option<[u8; 32]> {
        let credentials = self.credentials.as_ref()?;
        let mut material = credentials.token.expose().as_bytes().to_vec();
        material.push(b'\n');
        material.extend_from_slice(self.api_root.as_bytes());
        let digest = ring::digest::digest(&ring::digest::SHA256, &material);
        Some(digest.as_ref().try_into().expect("SHA-256 is 32 bytes"))
    }
}

/// Why a GitLab address is not usable.
pub type UrlError = HttpUrlError;

/// `https://gitlab.example.com`, `.../` and `.../api/v4` all name the same
/// API root; a GitLab under a sub-path (`https://host/gitlab`) keeps it.
/// The root is written as the parser reads it (lowercase host, no default
/// port), so two spellings of one GitLab compare equal. Refused: another
/// scheme, no host, a user name or password (the token has its own
/// setting), a query or fragment, an ambiguous spelling.
pub fn api_root(url: &str) -> Result<String, UrlError> {
    let parsed = http_url::parse_address(url.trim())?;
    let path = parsed.path().trim_end_matches('/');
    let base = path.strip_suffix("/api/v4").unwrap_or(path);
    Ok(format!(
        "{}://{}{base}/api/v4",
        parsed.scheme(),
        http_url::authority(&parsed)
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn api_root_accepts_every_spelling() {
        for url in [
            "https://gitlab.com",
            "https://gitlab.com/",
            "https://gitlab.com/api/v4",
            "https://gitlab.com/api/v4/",
            " HTTPS://GitLab.com:443/ ",
        ] {
            assert_eq!(api_root(url).unwrap(), "https://gitlab.com/api/v4");
        }
        assert_eq!(
            api_root("http://h:8080/gitlab").unwrap(),
            "http://h:8080/gitlab/api/v4"
        );
        assert_eq!(
            api_root("http://[::1]:80/gitlab/").unwrap(),
            "http://[::1]/gitlab/api/v4"
        );
        assert!(api_root("gitlab.com").is_err());
    }

    #[test]
    fn api_root_refuses_credentials_other_schemes_and_empty_hosts() {
        for url in [
            "https://user:glpat-secret@gitlab.com/",
            "https://gitlab.example.com@evil.example/",
            "https://gitlab.example.com\\@evil.example/",
            "https:///gitlab.com",
            "https://",
            "ftp://gitlab.com/",
            "javascript:alert(1)",
            "https://gitlab.com/?private_token=x",
        ] {
            let refused = api_root(url).unwrap_err();
            assert!(!refused.to_string().contains("glpat"), "{refused}");
        }
    }

    #[test]
    fn the_host_names_the_server() {
        let target = Target {
            api_root: "https://h.example:8443/gitlab/api/v4".into(),
            credentials: None,
        };
        assert_eq!(target.host(), "h.example:8443");
        assert_eq!(target.web_root(), "https://h.example:8443/gitlab");
    }
}

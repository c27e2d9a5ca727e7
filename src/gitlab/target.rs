//! Where a request goes and as whom: the API root and the credentials of
//! one call. The client holds neither, so every request carries its own
//! and no request can ever be sent with another's token.

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
    /// The host (and port) of the API root, for messages.
    pub fn host(&self) -> &str {
        self.api_root
            .split("://")
            .nth(1)
            .and_then(|rest| rest.split('/').next())
            .unwrap_or_default()
    }

    pub fn has_token(&self) -> bool {
        self.credentials.is_some()
    }
}

/// Why a GitLab address is not usable.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum UrlError {
    #[error("must start with http:// or https://, got `{0}`")]
    Scheme(String),
    #[error("has no host: `{0}`")]
    Host(String),
}

/// `https://gitlab.example.com`, `.../` and `.../api/v4` all name the same
/// API root; a GitLab under a sub-path (`https://host/gitlab`) keeps it.
pub fn api_root(url: &str) -> Result<String, UrlError> {
    let trimmed = url.trim().trim_end_matches('/');
    let rest = trimmed
        .strip_prefix("https://")
        .or_else(|| trimmed.strip_prefix("http://"))
        .ok_or_else(|| UrlError::Scheme(trimmed.to_string()))?;
    if rest.is_empty() || rest.starts_with('/') {
        return Err(UrlError::Host(trimmed.to_string()));
    }
    let base = trimmed.strip_suffix("/api/v4").unwrap_or(trimmed);
    Ok(format!("{base}/api/v4"))
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
        ] {
            assert_eq!(api_root(url).unwrap(), "https://gitlab.com/api/v4");
        }
        assert_eq!(
            api_root("http://h:8080/gitlab").unwrap(),
            "http://h:8080/gitlab/api/v4"
        );
        assert!(api_root("gitlab.com").is_err());
    }

    #[test]
    fn the_host_names_the_server() {
        let target = Target {
            api_root: "https://h.example:8443/gitlab/api/v4".into(),
            credentials: None,
        };
        assert_eq!(target.host(), "h.example:8443");
    }
}

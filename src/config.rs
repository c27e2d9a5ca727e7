//! One `Config`, built from flags and environment variables by `cli.rs`.
//! The token is a `Secret`: its `Debug` and `Display` never show it.

use std::fmt;
use std::time::Duration;

/// How the token is sent.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum AuthScheme {
    /// `PRIVATE-TOKEN: <token>`: personal, project and group access tokens.
    PrivateToken,
    /// `Authorization: Bearer <token>`: OAuth tokens (personal tokens work too).
    Bearer,
}

#[derive(Clone)]
pub struct Secret(String);

impl Secret {
    pub fn new(value: String) -> Self {
        Secret(value)
    }

    /// The only way to read the value; used once, to build the auth header.
    pub fn expose(&self) -> &str {
        &self.0
    }
}

impl fmt::Debug for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Secret(***)")
    }
}

#[derive(Debug, Clone)]
pub struct Config {
    /// The API root, always ending in `/api/v4` and never in `/`.
    pub api_root: String,
    pub token: Option<Secret>,
    pub auth: AuthScheme,
    pub connect_timeout: Duration,
    pub request_timeout: Duration,
    /// Size cap and structured content of answers.
    pub render: crate::render::Options,
    /// What the server may do.
    pub policy: crate::policy::Policy,
    /// Retries of requests that are safe to repeat.
    pub retry: Retry,
    /// At most this many GitLab requests at once.
    pub max_concurrent: usize,
}

/// When and how long to retry.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Retry {
    /// Retries after the first attempt; 0 turns retries off.
    pub max_retries: u32,
    /// The most time spent waiting between attempts, over all retries.
    pub max_wait: Duration,
    /// The first back-off; each retry doubles it (with jitter).
    pub base_delay: Duration,
}

impl Default for Retry {
    fn default() -> Self {
        Retry {
            max_retries: 3,
            max_wait: Duration::from_secs(30),
            base_delay: Duration::from_millis(500),
        }
    }
}

#[derive(Debug, thiserror::Error, PartialEq)]
pub enum ConfigError {
    #[error("GITLAB_URL must start with http:// or https://, got `{0}`")]
    UrlScheme(String),
    #[error("GITLAB_URL has no host: `{0}`")]
    UrlHost(String),
    #[error("the token contains characters that cannot be sent in an HTTP header")]
    TokenCharacters,
}

/// `https://gitlab.example.com`, `.../` and `.../api/v4` all name the same
/// API root; a GitLab under a sub-path (`https://host/gitlab`) keeps it.
pub fn api_root(url: &str) -> Result<String, ConfigError> {
    let trimmed = url.trim().trim_end_matches('/');
    let rest = trimmed
        .strip_prefix("https://")
        .or_else(|| trimmed.strip_prefix("http://"))
        .ok_or_else(|| ConfigError::UrlScheme(trimmed.to_string()))?;
    if rest.is_empty() || rest.starts_with('/') {
        return Err(ConfigError::UrlHost(trimmed.to_string()));
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
    fn secret_is_never_printed() {
        let s = Secret::new("glpat-abc".into());
        assert!(!format!("{s:?}").contains("glpat"));
    }
}

//! One `Config`, built from flags and environment variables by `cli.rs`:
//! what each layer needs, as that layer's own small type.

use crate::gitlab::{ClientSettings, Target, UrlError};
use crate::policy::Policy;
use crate::render;

#[derive(Debug, Clone)]
pub struct Config {
    /// The GitLab and credentials of calls that bring none of their own.
    pub target: Target,
    pub client: ClientSettings,
    /// Size cap and structured content of answers.
    pub render: render::Options,
    /// What the server may do.
    pub policy: Policy,
    /// The GitLab is the embedded sandbox (the server says so to models).
    pub sandbox: bool,
}

#[derive(Debug, thiserror::Error, PartialEq)]
pub enum ConfigError {
    #[error("GITLAB_URL {0}")]
    Url(#[from] UrlError),
    #[error("the token contains characters that cannot be sent in an HTTP header")]
    TokenCharacters,
    #[error("GITLAB_CA_CERT: cannot read `{0}`: {1}")]
    CaCert(String, String),
}

/// A token must be sendable as an HTTP header value: visible ASCII.
pub fn check_token(token: &str) -> Result<(), ConfigError> {
    if token.bytes().all(|b| (0x21..0x7f).contains(&b)) {
        Ok(())
    } else {
        Err(ConfigError::TokenCharacters)
    }
}

//! What can be wrong in the configuration, found by `cli.rs` before
//! anything starts: the GitLab address, the token, the CA file.

use crate::gitlab::UrlError;

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

//! What the HTTP server is told by its operator, and the checks made before
//! it binds: a server reachable from other machines must authenticate its
//! callers, and must know the names it is reached by.

use std::net::SocketAddr;
use std::time::Duration;

use crate::http_url::{self, HttpUrlError};
use crate::secret::Secret;
use crate::signin::SigninSettings;

#[derive(Debug, Clone)]
pub struct HttpSettings {
    pub addr: SocketAddr,
    /// The MCP endpoint's path, `/mcp` by default.
    pub path: String,
    /// The server's external base URL as clients reach it (behind a proxy),
    /// without a trailing `/`.
    pub public_url: Option<String>,
    /// `Host` values accepted besides the loopback names: `name` (any port)
    /// or `name:port`.
    pub allowed_hosts: Vec<String>,
    /// `Origin` values accepted besides those whose host is allowed.
    pub allowed_origins: Vec<String>,
    pub auth: CallerAuth,
    /// Serve on a non-loopback address without authenticating callers.
    pub insecure: bool,
    /// GitLab API roots a request may name in `X-GitLab-URL`.
    pub allowed_gitlab_urls: Vec<String>,
    pub max_body_bytes: usize,
    /// Connections open at once; more wait in the listen backlog.
    pub max_connections: usize,
    /// How long a request's header may take, and an idle connection may
    /// stay open.
    pub header_timeout: Duration,
    /// How long an admitted request's body may take to arrive.
    pub body_timeout: Duration,
    /// MCP requests served at once by this process, and per credential.
    pub max_requests: usize,
    pub max_requests_per_token: usize,
    pub call_timeout: Duration,
    pub stateful: bool,
    /// Every MCP request through rmcp's service, even the plain tool calls
    /// a stateless server answers itself (to compare the two).
    pub rmcp_only: bool,
    /// Legacy sessions held at once, with `stateful`.
    pub max_sessions: usize,
    /// How long calls in flight may finish after SIGTERM.
    pub shutdown_grace: Duration,
    /// Sign in with GitLab (OAuth), when the operator configured it.
    pub signin: Option<SigninSettings>,
}

/// How callers prove who they are.
#[derive(Debug, Clone, Default)]
pub struct CallerAuth {
    /// Every request must bring its own GitLab token; the server's token
    /// (if any) is never used for HTTP requests.
    pub require_client_token: bool,
    /// A secret every request must send as `Authorization: Bearer`; the
    /// GitLab token then comes in `Private-Token`, or is the server's.
    pub endpoint_secret: Option<Secret>,
}

impl CallerAuth {
    /// Whether every caller must authenticate somehow.
    pub fn authenticates(&self) -> bool {
        self.require_client_token || self.endpoint_secret.is_some()
    }
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SettingsError {
    #[error(
        "refusing to serve on {0} without authenticating callers: anyone who reaches it could act with this server's GitLab token. Require per-request GitLab tokens (--require-client-token), set an endpoint secret (--http-auth-token), or, on a network you trust, pass --insecure-http"
    )]
    Unauthenticated(SocketAddr),
    #[error(
        "serving on {0}, the server must know the names clients reach it by: set --allowed-hosts (such as mcp.example.com) or --public-url; requests with another Host are refused (DNS-rebinding protection)"
    )]
    NoHosts(SocketAddr),
    #[error("--http-path must start with `/`, got `{0}`")]
    Path(String),
    #[error("--public-url {0}")]
    PublicUrl(HttpUrlError),
    #[error(
        "sign-in (GITLAB_OAUTH_CLIENT_ID) needs --public-url (GITLAB_MCP_PUBLIC_URL): the URL clients and GitLab send browsers to"
    )]
    SigninWithoutPublicUrl,
}

/// The `Host` entry `--public-url` adds: its host, with its port when not
/// the scheme's default (`https://mcp.example.com:443/base` →
/// `mcp.example.com`, which takes any port, as a `Host` header for the
/// default port names none). Refused: what `http_url::parse_address`
/// refuses (above all a user name before the host, where a person reads
/// `mcp.example.com@evil.example` as the server).
pub fn public_url_host(url: &str) -> Result<String, SettingsError> {
    http_url::parse_address(url.trim())
        .map(|parsed| http_url::authority(&parsed))
        .map_err(SettingsError::PublicUrl)
}

impl HttpSettings {
    /// The checks made before binding.
    pub fn check(&self) -> Result<(), SettingsError> {
        if !self.path.starts_with('/') {
            return Err(SettingsError::Path(self.path.clone()));
        }
        if let Some(url) = &self.public_url {
            public_url_host(url)?;
        }
        if self.signin.is_some() && self.public_url.is_none() {
            return Err(SettingsError::SigninWithoutPublicUrl);
        }
        if !self.addr.ip().is_loopback() {
            if !self.auth.authenticates() && self.signin.is_none() && !self.insecure {
                return Err(SettingsError::Unauthenticated(self.addr));
            }
            if self.allowed_hosts.is_empty() && self.public_url.is_none() {
                return Err(SettingsError::NoHosts(self.addr));
            }
        }
        Ok(())
    }

    /// Every accepted `Host` entry: loopback names, the configured ones and
    /// the public URL's host.
    pub fn host_entries(&self) -> Vec<String> {
        let mut hosts: Vec<String> = ["localhost", "127.0.0.1", "[::1]"]
            .iter()
            .map(|h| h.to_string())
            .collect();
        hosts.extend(
            self.allowed_hosts
                .iter()
                .map(|h| h.trim().to_ascii_lowercase()),
        );
        if let Some(Ok(host)) = self.public_url.as_deref().map(public_url_host) {
            hosts.push(host);
        }
        hosts.retain(|h| !h.is_empty());
        hosts.dedup();
        hosts
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn settings(addr: &str) -> HttpSettings {
        HttpSettings {
            addr: addr.parse().unwrap(),
            path: "/mcp".into(),
            public_url: None,
            allowed_hosts: Vec::new(),
            allowed_origins: Vec::new(),
            auth: CallerAuth::default(),
            insecure: false,
            allowed_gitlab_urls: Vec::new(),
            max_body_bytes: 1 << 20,
            max_connections: 1024,
            header_timeout: Duration::from_secs(10),
            body_timeout: Duration::from_secs(30),
            max_requests: 64,
            max_requests_per_token: 8,
            call_timeout: Duration::from_secs(60),
            stateful: false,
            rmcp_only: false,
            max_sessions: 1000,
            shutdown_grace: Duration::from_secs(5),
            signin: None,
        }
    }

    #[test]
    fn loopback_needs_nothing_else() {
        assert_eq!(settings("127.0.0.1:8080").check(), Ok(()));
    }

    #[test]
    fn other_addresses_need_authentication_and_host_names() {
        let mut s = settings("0.0.0.0:8080");
        assert!(matches!(s.check(), Err(SettingsError::Unauthenticated(_))));
        s.auth.require_client_token = true;
        assert!(matches!(s.check(), Err(SettingsError::NoHosts(_))));
        s.public_url = Some("https://mcp.example.com".into());
        assert_eq!(s.check(), Ok(()));
        assert!(s.host_entries().contains(&"mcp.example.com".to_string()));
    }

    #[test]
    fn the_public_url_adds_its_parsed_host_or_is_refused() {
        let mut s = settings("127.0.0.1:8080");
        s.public_url = Some("HTTPS://MCP.example.com:443/base".into());
        assert_eq!(s.check(), Ok(()));
        assert!(s.host_entries().contains(&"mcp.example.com".to_string()));
        for bad in [
            "https://mcp.example.com@evil.example/",
            "https://mcp.example.com\\@evil.example/",
            "mcp.example.com",
            "https://mcp.example.com/?x=1",
        ] {
            s.public_url = Some(bad.into());
            assert!(
                matches!(s.check(), Err(SettingsError::PublicUrl(_))),
                "{bad}"
            );
            assert!(
                !s.host_entries().iter().any(|h| h.contains("evil")),
                "{bad}"
            );
        }
    }
}

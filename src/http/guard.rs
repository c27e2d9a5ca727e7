//! DNS-rebinding protection, as the MCP specification requires of HTTP
//! servers: a request whose `Host` is not a name this server is reached by,
//! or whose `Origin` (sent by browsers) is not an allowed one, is refused
//! with 403 before anything else looks at it.

use axum::extract::{Request, State};
use axum::http::{HeaderMap, header};
use axum::middleware::Next;
use axum::response::Response;
use std::sync::Arc;

use super::refusal::Refusal;
use crate::http_url::{self, Url};

/// The accepted `Host` entries and extra origins.
#[derive(Debug, Clone)]
pub struct Guard {
    /// `name` (any port) or `name:port`, lowercase.
    hosts: Vec<String>,
    /// Listed origins, as `origin_key` writes them.
    origins: Vec<String>,
}

impl Guard {
    pub fn new(hosts: Vec<String>, origins: Vec<String>) -> Self {
        Guard {
            hosts,
            origins: origins.iter().map(|o| origin_key(o)).collect(),
        }
    }

    /// Why the request is refused, if it is.
    pub fn check(&self, headers: &HeaderMap) -> Result<(), String> {
        let host = headers
            .get(header::HOST)
            .and_then(|h| h.to_str().ok())
            .map(|h| h.trim().to_ascii_lowercase())
            .ok_or("the request has no Host header")?;
        if !self.host_allowed(&host) {
            return Err(format!(
                "Host `{host}` is not a name this server is reached by (see --allowed-hosts)"
            ));
        }
        if let Some(origin) = headers.get(header::ORIGIN) {
            let origin = origin.to_str().unwrap_or_default();
            if self.allowed_origin(origin).is_none() {
                return Err(format!(
                    "Origin `{origin}` is not allowed (see --allowed-origins)"
                ));
            }
        }
        Ok(())
    }

    fn host_allowed(&self, host: &str) -> bool {
        let (name, port) = split_host(host);
        self.hosts.iter().any(|entry| {
            let (entry_name, entry_port) = split_host(entry);
            entry_name == name && (entry_port.is_none() || entry_port == port)
        })
    }

    /// The origin an `Origin` header names, as compared, when it is
    /// allowed: listed, or an http(s) origin on an allowed host. Origins
    /// are WHATWG's (scheme, host, port): `HTTP://LocalHost:80` is
    /// `http://localhost`; a trailing dot names another origin, as it does
    /// for browsers.
    pub fn allowed_origin(&self, header: &str) -> Option<String> {
        let key = origin_key(header);
        if self.origins.contains(&key) {
            return Some(key);
        }
        // `null` and other schemes only when listed.
        let url = web_origin(header)?;
        let port = url.port_or_known_default()?;
        let host = url.host_str()?;
        self.host_allowed(&format!("{host}:{port}")).then_some(key)
    }
}

/// An http(s) origin as a browser sends it: scheme, host and port, nothing
/// after (`http_url::parse` refuses a user name and ambiguous spellings).
fn web_origin(text: &str) -> Option<Url> {
    let url = http_url::parse(text.trim()).ok()?;
    (url.path() == "/" && url.query().is_none() && url.fragment().is_none()).then_some(url)
}

/// An origin as compared: an http(s) origin as WHATWG serializes it
/// (lowercase, punycode, no default port); any other text (`null`) as
/// written, lowercase, which matches only itself.
fn origin_key(text: &str) -> String {
    match web_origin(text) {
        Some(url) => url.origin().ascii_serialization(),
        None => text.trim().trim_end_matches('/').to_ascii_lowercase(),
    }
}

/// `name:port` → (`name`, `Some(port)`); `[::1]:80` keeps the brackets.
fn split_host(host: &str) -> (&str, Option<&str>) {
    let split_at = if host.starts_with('[') {
        host.find("]:").map(|i| i + 1)
    } else {
        host.rfind(':')
    };
    match split_at {
        Some(i) if host[i + 1..].chars().all(|c| c.is_ascii_digit()) && i + 1 < host.len() => {
            (&host[..i], Some(&host[i + 1..]))
        }
        _ => (host, None),
    }
}

pub async fn middleware(
    State(guard): State<Arc<Guard>>,
    request: Request,
    next: Next,
) -> Result<Response, Refusal> {
    guard.check(request.headers()).map_err(|reason| {
        tracing::info!(%reason, "request refused");
        // Nothing of a foreign site's request is read, its body neither.
        Refusal::HostOrOrigin(reason)
    })?;
    Ok(next.run(request).await)
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::http::HeaderValue;

    fn headers(host: &str, origin: Option<&str>) -> HeaderMap {
        let mut h = HeaderMap::new();
        h.insert(header::HOST, HeaderValue::from_str(host).unwrap());
        if let Some(o) = origin {
            h.insert(header::ORIGIN, HeaderValue::from_str(o).unwrap());
        }
        h
    }

    #[test]
    fn hosts_match_by_name_and_optionally_port() {
        let g = Guard::new(
            vec![
                "localhost".into(),
                "mcp.example.com:443".into(),
                "[::1]".into(),
            ],
            vec!["https://app.example.org".into()],
        );
        assert!(g.check(&headers("localhost:8080", None)).is_ok());
        assert!(g.check(&headers("LOCALHOST", None)).is_ok());
        assert!(g.check(&headers("[::1]:9000", None)).is_ok());
        assert!(g.check(&headers("mcp.example.com:443", None)).is_ok());
        assert!(g.check(&headers("mcp.example.com:8443", None)).is_err());
        assert!(g.check(&headers("evil.example", None)).is_err());
        assert!(g.check(&headers("localhost.evil.example", None)).is_err());
    }

    #[test]
    fn origins_must_be_listed_or_on_an_allowed_host() {
        let g = Guard::new(
            vec!["localhost".into()],
            vec!["https://app.example.org".into()],
        );
        assert!(
            g.check(&headers("localhost", Some("http://localhost:3000")))
                .is_ok()
        );
        assert!(
            g.check(&headers("localhost", Some("https://app.example.org/")))
                .is_ok()
        );
        assert!(
            g.check(&headers("localhost", Some("https://evil.example")))
                .is_err()
        );
        assert!(g.check(&headers("localhost", Some("null"))).is_err());
    }

    #[test]
    fn origins_are_compared_as_scheme_host_and_port() {
        let g = Guard::new(
            vec!["localhost".into(), "mcp.example.com:443".into()],
            vec!["HTTPS://App.Example.org:443/".into(), "null".into()],
        );
        for (origin, key) in [
            ("https://app.example.org", "https://app.example.org"),
            ("https://APP.example.org:443", "https://app.example.org"),
            ("HTTP://LocalHost:80", "http://localhost"),
            ("http://localhost:3000", "http://localhost:3000"),
            ("https://mcp.example.com", "https://mcp.example.com"),
            ("null", "null"),
        ] {
            assert_eq!(g.allowed_origin(origin).as_deref(), Some(key), "{origin}");
        }
        for origin in [
            "https://app.example.org.",
            "https://app.example.org:8443",
            "http://app.example.org",
            "http://localhost:1@evil.example",
            "http://localhost\\@evil.example",
            "http://localhost/path",
            "http://localhost.evil.example",
            "http://mcp.example.com:8443",
            "javascript:alert(1)",
            "data:text/html,x",
        ] {
            assert_eq!(g.allowed_origin(origin), None, "{origin}");
        }
    }
}

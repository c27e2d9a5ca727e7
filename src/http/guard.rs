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

/// The accepted `Host` entries and extra origins.
#[derive(Debug, Clone)]
pub struct Guard {
    /// `name` (any port) or `name:port`, lowercase.
    hosts: Vec<String>,
    origins: Vec<String>,
}

impl Guard {
    pub fn new(hosts: Vec<String>, origins: Vec<String>) -> Self {
        Guard {
            hosts,
            origins: origins
                .into_iter()
                .map(|o| o.trim().trim_end_matches('/').to_ascii_lowercase())
                .collect(),
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
            let origin = origin
                .to_str()
                .map(|o| o.trim().trim_end_matches('/').to_ascii_lowercase())
                .unwrap_or_default();
            if !self.origin_allowed(&origin) {
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

    fn origin_allowed(&self, origin: &str) -> bool {
        if self.origins.iter().any(|o| o == origin) {
            return true;
        }
        let Some(authority) = origin
            .strip_prefix("https://")
            .or_else(|| origin.strip_prefix("http://"))
        else {
            // `null` and other schemes only when listed.
            return false;
        };
        self.host_allowed(authority)
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
}

//! Client ID metadata documents: a client whose id is an HTTPS URL
//! describes itself in the JSON document at that URL (MCP authorization,
//! 2025-11-25 and later). Fetching a URL a stranger chose is a way into the
//! server's network, so: HTTPS only, the host resolved once and checked to
//! be public (no loopback, private, link-local or unique-local address, so
//! neither the URL nor a DNS answer can point inside), the connection
//! pinned to that address, no redirect followed, a short timeout and a
//! size bound.

use std::net::{IpAddr, SocketAddr};
use std::time::Duration;

use serde::Deserialize;

const TIMEOUT: Duration = Duration::from_secs(5);
const MAX_BYTES: usize = 64 * 1024;

#[derive(Debug, Clone, Deserialize)]
pub struct Document {
    pub client_id: String,
    pub client_name: Option<String>,
    #[serde(default)]
    pub redirect_uris: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum FetchError {
    #[error("the client id must be an https:// URL with a path, and no user name or password")]
    NotHttps,
    #[error("the client's host does not resolve")]
    Unresolved,
    #[error("the client's host resolves to a private address, which this server does not fetch")]
    Private,
    #[error("the client's metadata document could not be fetched ({0})")]
    Failed(String),
    #[error("the client's metadata document is not a JSON object naming this client id")]
    Invalid,
}

/// Loopback, private, link-local, unique-local, unspecified, multicast,
/// documentation or shared (CGNAT) addresses: not on the public internet.
pub fn is_private(ip: IpAddr) -> bool {
    match ip {
        IpAddr::V4(v4) => {
            let o = v4.octets();
            v4.is_loopback()
                || v4.is_private()
                || v4.is_link_local()
                || v4.is_unspecified()
                || v4.is_broadcast()
                || v4.is_multicast()
                || v4.is_documentation()
                || (o[0] == 100 && (o[1] & 0xC0) == 64)
                || o[0] == 0
        }
        IpAddr::V6(v6) => {
            if let Some(v4) = v6.to_ipv4_mapped() {
                return is_private(IpAddr::V4(v4));
            }
            let first = v6.segments()[0];
            v6.is_loopback()
                || v6.is_unspecified()
                || v6.is_multicast()
                || (first & 0xfe00) == 0xfc00
                || (first & 0xffc0) == 0xfe80
        }
    }
}

/// What the operator allows the fetch.
#[derive(Debug, Clone, Default)]
pub struct FetchPolicy {
    /// Reach clients on private addresses (an operator's own network, tests).
    pub allow_private: bool,
    /// Certificates (PEM) trusted besides the system's.
    pub extra_ca_pem: Option<Vec<u8>>,
}

/// Fetch and check the document at `url`.
pub async fn document(url: &str, policy: &FetchPolicy) -> Result<Document, FetchError> {
    let allow_private = policy.allow_private;
    // A user name before the host would show on the consent page as the
    // client's own (`https://app.example@evil.example/c.json`).
    let parsed = crate::http_url::parse(url).map_err(|_| FetchError::NotHttps)?;
    if parsed.scheme() != "https" || parsed.path() == "/" || parsed.path().is_empty() {
        return Err(FetchError::NotHttps);
    }
    let host = parsed.host_str().ok_or(FetchError::NotHttps)?.to_string();
    let port = parsed.port_or_known_default().unwrap_or(443);
    let lookup = format!(
        "{}:{port}",
        host.trim_start_matches('[').trim_end_matches(']')
    );
    let addrs: Vec<SocketAddr> = tokio::time::timeout(TIMEOUT, tokio::net::lookup_host(lookup))
        .await
        .map_err(|_| FetchError::Unresolved)?
        .map_err(|_| FetchError::Unresolved)?
        .collect();
    let addr = *addrs.first().ok_or(FetchError::Unresolved)?;
    if !allow_private && addrs.iter().any(|a| is_private(a.ip())) {
        return Err(FetchError::Private);
    }
    let _ = rustls::crypto::ring::default_provider().install_default();
    let mut builder = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .timeout(TIMEOUT)
        .user_agent(concat!("gitlab-mcp/", env!("CARGO_PKG_VERSION")))
        .resolve(&host, addr);
    if let Some(pem) = &policy.extra_ca_pem {
        for cert in reqwest::Certificate::from_pem_bundle(pem)
            .map_err(|e| FetchError::Failed(format!("the extra CA bundle: {e}")))?
        {
            builder = builder.add_root_certificate(cert);
        }
    }
    let http = builder
        .build()
        .map_err(|e| FetchError::Failed(e.to_string()))?;
    let mut answer = http
        .get(parsed)
        .header(reqwest::header::ACCEPT, "application/json")
        .send()
        .await
        .map_err(|_| FetchError::Failed("no answer".into()))?;
    if answer.status().as_u16() != 200 {
        return Err(FetchError::Failed(format!(
            "HTTP {}",
            answer.status().as_u16()
        )));
    }
    let mut body = Vec::new();
    while let Some(chunk) = answer
        .chunk()
        .await
        .map_err(|_| FetchError::Failed("the answer broke off".into()))?
    {
        if body.len() + chunk.len() > MAX_BYTES {
            return Err(FetchError::Failed(format!("over {MAX_BYTES} bytes")));
        }
        body.extend_from_slice(&chunk);
    }
    let doc: Document = serde_json::from_slice(&body).map_err(|_| FetchError::Invalid)?;
    if doc.client_id != url {
        return Err(FetchError::Invalid);
    }
    Ok(doc)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn private_addresses_are_recognised() {
        for ip in [
            "127.0.0.1",
            "10.1.2.3",
            "172.16.0.1",
            "192.168.1.1",
            "169.254.169.254",
            "0.0.0.0",
            "100.64.0.1",
            "::1",
            "fd00::1",
            "fe80::1",
            "::ffff:127.0.0.1",
        ] {
            assert!(is_private(ip.parse().unwrap()), "{ip}");
        }
        for ip in ["93.184.216.34", "2606:4700::1111", "8.8.8.8"] {
            assert!(!is_private(ip.parse().unwrap()), "{ip}");
        }
    }
}

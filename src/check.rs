//! `gitlab-mcp check`: reach the configured GitLab and say, in plain words,
//! what works and what does not: the address, the connection (TLS, proxy),
//! GitLab's version and edition, the token's user, scopes and expiry, and
//! which tools and actions those scopes open under this server's policy
//! (the surface the server offers that token).
//! Everything needed must work for the check to pass.

use std::fmt::Write as _;

use serde_json::Value;

use crate::catalog;
use crate::engine::Settings;
use crate::gitlab::{self, Client, GitLabError, HttpRequest, NetworkKind, Target};
use crate::policy::Scopes;

/// One finding.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Mark {
    Ok,
    /// Works, but the operator should know.
    Warn,
    /// Something needed does not work.
    Fail,
}

#[derive(Debug, Default)]
pub struct Report {
    pub lines: Vec<(Mark, String)>,
}

impl Report {
    fn push(&mut self, mark: Mark, text: impl Into<String>) {
        self.lines.push((mark, text.into()));
    }

    /// Whether everything needed works.
    pub fn passed(&self) -> bool {
        !self.lines.iter().any(|(m, _)| *m == Mark::Fail)
    }

    pub fn text(&self) -> String {
        let mut out = String::new();
        for (mark, line) in &self.lines {
            let sign = match mark {
                Mark::Ok => "ok  ",
                Mark::Warn => "warn",
                Mark::Fail => "FAIL",
            };
            let _ = writeln!(out, "[{sign}] {line}");
        }
        let _ = write!(
            out,
            "{}",
            if self.passed() {
                "Everything this server needs works."
            } else {
                "Not ready: fix what FAIL says, then run `gitlab-mcp check` again."
            }
        );
        out
    }
}

/// What the address itself says, before any request.
fn check_address(url: &str, report: &mut Report) {
    let lower = url.to_ascii_lowercase();
    if lower.matches("/api/v4").count() > 1 {
        report.push(
            Mark::Fail,
            format!("GITLAB_URL `{url}` has /api/v4 twice: give GitLab's address (https://gitlab.example.com), with /api/v4 once or not at all"),
        );
    }
    let local = ["://localhost", "://127.", "://[::1]"]
        .iter()
        .any(|l| lower.contains(l));
    if lower.starts_with("http://") && !local {
        report.push(
            Mark::Warn,
            format!("GITLAB_URL `{url}` is http://: the token crosses the network unencrypted; use https:// unless GitLab really serves plain HTTP"),
        );
    }
}

/// A network failure in plain words, with what to do.
fn explain_network(kind: NetworkKind, host: &str, proxy: Option<&str>) -> String {
    let proxy_note = proxy
        .map(|p| format!(" Requests go through the proxy {p} (HTTPS_PROXY/HTTP_PROXY): check it reaches GitLab, or list GitLab's host in NO_PROXY."))
        .unwrap_or_default();
    match kind {
        NetworkKind::Dns => {
            format!("the host name {host} does not resolve: check GITLAB_URL.{proxy_note}")
        }
        NetworkKind::Refused => format!(
            "{host} refused the connection: nothing listens there, check GITLAB_URL and the port.{proxy_note}"
        ),
        NetworkKind::Tls => format!(
            "the TLS handshake with {host} failed: if GitLab uses a self-signed certificate or a company CA, give that CA as a PEM file in GITLAB_CA_CERT (GITLAB_MCP_TLS_INSECURE=true skips the check, at your own risk).{proxy_note}"
        ),
        NetworkKind::Timeout | NetworkKind::ConnectTimeout => format!(
            "{host} did not answer in time: check the address, a firewall, or a proxy in the way.{proxy_note}"
        ),
        NetworkKind::Connection | NetworkKind::Other => {
            format!("the connection to {host} failed.{proxy_note}")
        }
    }
}

/// The proxy requests to `api_root` would use, as reqwest reads the
/// environment (the variable names are the convention reqwest follows).
fn proxy_for(api_root: &str) -> Option<String> {
    let https = api_root.starts_with("https://");
    let names: &[&str] = if https {
        &["HTTPS_PROXY", "https_proxy", "ALL_PROXY", "all_proxy"]
    } else {
        &["HTTP_PROXY", "http_proxy", "ALL_PROXY", "all_proxy"]
    };
    names
        .iter()
        .find_map(|n| std::env::var(n).ok().filter(|v| !v.trim().is_empty()))
}

/// Run every check against the configured GitLab.
pub async fn run(config: &Settings, given_url: &str) -> Report {
    let mut report = Report::default();
    check_address(given_url, &mut report);
    let target = &config.target;
    let client = match Client::new(config.client.clone()) {
        Ok(client) => client,
        Err(e) => {
            report.push(Mark::Fail, e);
            return report;
        }
    };
    if config.client.tls.skip_verify {
        report.push(
            Mark::Warn,
            "TLS verification is OFF (GITLAB_MCP_TLS_INSECURE): prefer GITLAB_CA_CERT",
        );
    }
    if !version(&client, target, &mut report).await {
        return report;
    }
    let accepted = user(&client, target, &mut report).await;
    if accepted && target.credentials.is_some() {
        token(&client, target, config, &mut report).await;
    }
    report
}

/// `GET /version`: reachable, and which GitLab. False when GitLab cannot
/// be reached at all.
async fn version(client: &Client, target: &Target, report: &mut Report) -> bool {
    match client.send(target, &HttpRequest::get("/version")).await {
        Ok(response) => {
            let v: Value = serde_json::from_slice(&response.body).unwrap_or(Value::Null);
            let version = v["version"].as_str().unwrap_or("unknown");
            let edition = match v["enterprise"].as_bool() {
                Some(true) => "Enterprise Edition",
                Some(false) => "Community Edition",
                None if version.ends_with("-ee") => "Enterprise Edition",
                None => "edition unknown",
            };
            report.push(
                Mark::Ok,
                format!(
                    "GitLab {version} ({edition}) answers at {}",
                    target.api_root
                ),
            );
            true
        }
        // GitLab answers /version only to a signed-in user: it is up.
        Err(failed) if matches!(&failed.error, GitLabError::Status(s) if matches!(s.status, 401 | 403)) =>
        {
            report.push(Mark::Ok, format!("GitLab answers at {}", target.api_root));
            true
        }
        Err(failed) if matches!(&failed.error, GitLabError::Status(s) if s.status == 404) => {
            report.push(
                Mark::Fail,
                format!("no GitLab REST API at {} (it answers 404): check GITLAB_URL, which is GitLab's address such as https://gitlab.example.com", target.api_root),
            );
            false
        }
        Err(failed) => {
            let text = match &failed.error {
                GitLabError::Network { kind, host } => {
                    explain_network(*kind, host, proxy_for(&target.api_root).as_deref())
                }
                other => other.to_string(),
            };
            report.push(Mark::Fail, format!("GitLab cannot be reached: {text}"));
            false
        }
    }
}

/// `GET /user`: whose token it is. False when GitLab does not accept the
/// token; a token that may not read its user (a 403) is accepted, and its
/// scopes say what it may do.
async fn user(client: &Client, target: &Target, report: &mut Report) -> bool {
    if target.credentials.is_none() {
        report.push(Mark::Warn, "no token (GITLAB_TOKEN): only public projects are readable, and nothing can be changed");
        return false;
    }
    match client.send(target, &HttpRequest::get("/user")).await {
        Ok(response) => {
            let u: Value = serde_json::from_slice(&response.body).unwrap_or(Value::Null);
            let admin = if u["is_admin"].as_bool() == Some(true) {
                ", an administrator"
            } else {
                ""
            };
            report.push(
                Mark::Ok,
                format!(
                    "the token is {} ({}){admin}",
                    u["username"].as_str().unwrap_or("?"),
                    u["name"].as_str().unwrap_or("")
                ),
            );
            true
        }
        Err(failed) => {
            let text = match &failed.error {
                GitLabError::Status(s) if s.status == 401 && s.error_code.as_deref() == Some("invalid_token") => {
                    "the token is expired or revoked: create a new one (User settings → Access tokens)".to_string()
                }
                GitLabError::Status(s) if s.status == 401 => {
                    "GitLab does not accept the token: check it (personal, project and group tokens go as PRIVATE-TOKEN, the default; OAuth tokens need GITLAB_AUTH=bearer)".to_string()
                }
                GitLabError::Status(s) if s.status == 403 => {
                    "the token may not read its own user: it lacks read_user, read_api or api".to_string()
                }
                other => other.to_string(),
            };
            report.push(Mark::Fail, text);
            matches!(&failed.error, GitLabError::Status(s) if s.status == 403)
        }
    }
}

/// The token's scopes and expiry, asked as the server asks them
/// (`gitlab::token_scopes`: personal, project and group tokens describe
/// themselves, OAuth tokens through Doorkeeper), the actions they open
/// under this server's policy, and whether that is enough.
async fn token(client: &Client, target: &Target, config: &Settings, report: &mut Report) {
    let facts = match gitlab::token_scopes(client, target).await {
        Ok(facts) => facts,
        Err(why) => {
            report.push(Mark::Warn, format!("the token's scopes are unknown ({why}): every action is offered, and GitLab refuses what the token may not do (personal, project and group tokens describe themselves from GitLab 16.0)"));
            return;
        }
    };
    let expiry = facts
        .expires
        .map(|e| format!(", expires {e}"))
        .unwrap_or_else(|| ", never expires".into());
    let Some(scopes) = Scopes::new(facts.scopes) else {
        return;
    };
    report.push(Mark::Ok, format!("scopes: {}{expiry}", scopes.list()));
    let surface = scopes.surface();
    let offered = config.policy.prune_for(catalog::tools(), surface);
    let (reads, writes) = count(offered);
    let (_, all_writes) = count(config.policy.prune(catalog::tools()));
    report.push(
        Mark::Ok,
        format!(
            "the tools follow the token's scopes: it is offered {} ({} tools, {} actions)",
            surface.describe(),
            offered.len(),
            reads + writes
        ),
    );
    if scopes.has("api") {
        report.push(
            Mark::Ok,
            format!("`api` allows all {} tools' {} actions this server offers ({reads} reads, {writes} writes)", offered.len(), reads + writes),
        );
    } else if scopes.has("read_api") {
        if all_writes == 0 {
            report.push(
                Mark::Ok,
                format!("`read_api` allows the {reads} reads this read-only server offers"),
            );
        } else if writes > 0 {
            // Another scope whose reach is not known keeps the writes offered.
            report.push(
                Mark::Warn,
                format!("`read_api` allows the {reads} reads; the {writes} writes stay offered because of a scope whose reach is not known, and GitLab refuses those `api` needs"),
            );
        } else {
            report.push(
                Mark::Warn,
                format!("`read_api` allows the {reads} reads; the {all_writes} writes this server offers are not offered to this token, and refused naming the scope they need: to write, use a token with `api`"),
            );
        }
    } else {
        report.push(
            Mark::Fail,
            "the token has neither `api` nor `read_api`: it cannot call the project, issue or merge request endpoints; create one with `api` (or `read_api` for reads only)",
        );
    }
}

/// The REST reads and writes of a catalog.
fn count(tools: &[catalog::ToolSpec]) -> (usize, usize) {
    tools
        .iter()
        .flat_map(|t| t.actions.iter())
        // GitLab's actions, REST or GraphQL (`help` is the server's).
        .filter(|a| !matches!(a.route, catalog::Route::Local(_)))
        .fold(
            (0, 0),
            |(r, w), a| if a.read_only { (r + 1, w) } else { (r, w + 1) },
        )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_address_with_api_v4_twice_fails() {
        let mut r = Report::default();
        check_address("https://gitlab.example.com/api/v4/api/v4", &mut r);
        assert!(!r.passed());
        let mut r = Report::default();
        check_address("http://gitlab.example.com", &mut r);
        assert!(r.passed() && r.lines[0].0 == Mark::Warn);
        let mut r = Report::default();
        check_address("http://127.0.0.1:8080", &mut r);
        assert!(r.lines.is_empty());
    }
}

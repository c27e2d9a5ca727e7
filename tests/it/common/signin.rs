//! A sign-in server (Sign in with GitLab) against the fake GitLab: the
//! operator's GitLab application registered with the fake, the server
//! started with its settings and no GitLab token of its own.

use fake_gitlab::FakeGitLab;
use fake_gitlab::oauth::OAuthApp;

use super::http::{HttpServer, command};

/// The sealing key (GITLAB_MCP_TOKEN_KEY).
pub const KEY: &str = "test-sealing-key-0123456789abcdef0123456789";
/// The operator's GitLab application.
pub const APP_ID: &str = "gitlab-application-id";
pub const APP_SECRET: &str = "gitlab-application-secret";

/// A port nothing listens on now, for a public URL known before start.
pub fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// A sign-in server on `port`, its public URL `http://127.0.0.1:<public>`.
pub async fn server(
    fake: &FakeGitLab,
    port: u16,
    public: u16,
    key: &str,
    extra_env: &[(&str, &str)],
) -> HttpServer {
    let public_url = format!("http://127.0.0.1:{public}");
    let addr = format!("127.0.0.1:{port}");
    let mut env = vec![
        ("GITLAB_OAUTH_CLIENT_ID", APP_ID),
        ("GITLAB_OAUTH_CLIENT_SECRET", APP_SECRET),
        ("GITLAB_MCP_TOKEN_KEY", key),
        ("GITLAB_MCP_PUBLIC_URL", public_url.as_str()),
    ];
    env.extend_from_slice(extra_env);
    // Ready when /healthz answers: at quiet log levels the address is not logged.
    HttpServer::spawn_on(command(fake, &env, &["--http", &addr]), &addr).await
}

/// The operator's application at the fake GitLab, its callback this
/// server's (public port `public`).
pub fn register_app(fake: &FakeGitLab, public: u16) {
    fake.register_oauth_app(OAuthApp {
        client_id: APP_ID.into(),
        client_secret: Some(APP_SECRET.into()),
        redirect_uris: vec![format!("http://127.0.0.1:{public}/oauth/callback")],
        scopes: vec!["api".into(), "read_api".into()],
    });
}

/// The secrets a sign-in handled: GitLab's codes, tokens and refresh
/// tokens as the fake saw them, in headers and in `/oauth/token` bodies.
pub fn gitlab_secrets(fake: &FakeGitLab) -> Vec<String> {
    let mut out = Vec::new();
    for r in fake.requests() {
        if let Some(token) = r
            .authorization
            .as_deref()
            .and_then(|a| a.strip_prefix("Bearer "))
        {
            out.push(token.to_string());
        }
        if r.raw_path.starts_with("/oauth/") {
            for pair in r.body.split('&') {
                if let Some((k, v)) = pair.split_once('=')
                    && [
                        "code",
                        "refresh_token",
                        "client_secret",
                        "code_verifier",
                        "token",
                    ]
                    .contains(&k)
                {
                    out.push(gitlab_mcp::encoding::percent_decode(v));
                }
            }
        }
    }
    out.sort();
    out.dedup();
    out
}

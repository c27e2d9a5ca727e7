//! Sign in with GitLab from a real third-party client: the official Python
//! MCP SDK's OAuth client (`mcp.client.auth.OAuthClientProvider`, pinned in
//! tests/python/requirements.txt), run by scripts/python-sdk.sh --oauth
//! (tests/python/sdk_oauth.py), against a sign-in server that holds no
//! GitLab token of its own.
//!
//! The SDK discovers everything from the server's 401 (protected-resource
//! metadata, authorization-server metadata), registers dynamically as a
//! public client and as both kinds of confidential client, and once more
//! identifies itself by a client ID metadata document instead; the script
//! plays the browser through this server's consent page, the fake GitLab's
//! consent and the callback; the SDK exchanges the code with PKCE, lists
//! the tools, calls `gitlab_user current` as alice, then refreshes. Every
//! request GitLab got carries alice's OAuth token, and none of the
//! sign-in's secrets reaches the server's log.

use crate::common;

use std::process::Output;
use std::time::Duration;

use common::signin::{APP_SECRET, KEY, free_port, gitlab_secrets, register_app, server};
use fake_gitlab::FakeGitLab;
use serde_json::json;

fn tool_count() -> usize {
    gitlab_mcp::catalog::tools().len()
}

async fn sdk_oauth(args: &[&str]) -> Output {
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/scripts/python-sdk.sh");
    let output = tokio::process::Command::new("bash")
        .arg(script)
        .arg("--oauth")
        .args(args)
        // The SDK has no token but the one it signs in for.
        .env_remove("GITLAB_TOKEN")
        .env("EXPECTED_TOOLS", tool_count().to_string())
        .kill_on_drop(true)
        .output();
    tokio::time::timeout(Duration::from_secs(600), output)
        .await
        .expect("the SDK client (and its first install) ends within 10 minutes")
        .expect("bash runs scripts/python-sdk.sh")
}

/// The steps of one sign-in, in the order the script prints them.
fn steps(label: &str, redirect_host: &str) -> Vec<String> {
    [
        format!("consent page names the client and {redirect_host}"),
        "approved, sent to GitLab".into(),
        "GitLab sent the browser back".into(),
        "redirected to the client with code, state and iss".into(),
        "signed in, protocol 2026-07-28".into(),
        format!("tools/list {} gitlab_* tools", tool_count()),
        "gitlab_user current is alice".into(),
        "refreshed, gitlab_user current is still alice".into(),
    ]
    .into_iter()
    .map(|step| format!("ok {label} {step}"))
    .collect()
}

#[tokio::test]
async fn the_python_sdk_signs_in_with_gitlab_calls_as_alice_and_refreshes() {
    let fake = FakeGitLab::start().await;
    // The client ID metadata document, on HTTPS (a private address: the
    // operator allows it here, as in e2e_signin.rs).
    let (host, ca_pem) = FakeGitLab::start_tls().await;
    let ca = std::env::temp_dir().join(format!(
        "gitlab-mcp-python-oauth-ca-{}.pem",
        std::process::id()
    ));
    std::fs::write(&ca, &ca_pem).unwrap();
    let redirect_port = free_port();
    let redirect_uri = format!("http://127.0.0.1:{redirect_port}/callback");
    let document_url = format!("{}/documents/python-sdk.json", host.url());
    host.serve_document(
        "python-sdk.json",
        &json!({
            "client_id": document_url,
            "client_name": "Python SDK sign-in test",
            "redirect_uris": [redirect_uri],
            "grant_types": ["authorization_code", "refresh_token"],
            "token_endpoint_auth_method": "none",
        })
        .to_string(),
    );

    let port = free_port();
    register_app(&fake, port);
    let ca_path = ca.display().to_string();
    // No GITLAB_TOKEN: the only GitLab token is the one signed in for.
    let server = server(
        &fake,
        port,
        port,
        KEY,
        &[
            ("RUST_LOG", "trace"),
            ("GITLAB_CA_CERT", &ca_path),
            ("GITLAB_MCP_OAUTH_ALLOW_PRIVATE_CLIENTS", "true"),
        ],
    )
    .await;

    let output = sdk_oauth(&[
        &server.mcp_url(),
        "--user",
        "alice",
        "--redirect-uri",
        &redirect_uri,
        "--client-metadata-url",
        &document_url,
    ])
    .await;
    let _ = std::fs::remove_file(&ca);
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    let server_log = server.stderr_text();
    let all = format!(
        "{stdout}\n--- stderr:\n{stderr}\n--- server (last lines):\n{}",
        {
            let lines: Vec<&str> = server_log.lines().collect();
            lines[lines.len().saturating_sub(60)..].join("\n")
        }
    );
    assert!(output.status.success(), "{all}");

    // Every step, in order, for each way the SDK identifies itself.
    let labels = [
        "none",
        "client_secret_basic",
        "client_secret_post",
        "metadata-document",
    ];
    let redirect_host = format!("127.0.0.1:{redirect_port}");
    let expected: Vec<String> = labels
        .iter()
        .flat_map(|label| steps(label, &redirect_host))
        .collect();
    let got: Vec<&str> = stdout.lines().filter(|l| l.starts_with("ok ")).collect();
    assert_eq!(got, expected, "{all}");
    assert_eq!(stdout.lines().last(), Some("4 passed, 0 failed"), "{all}");

    // GitLab saw alice's OAuth tokens only: per sign-in, one code
    // exchange, one refresh, and `GET /user` once with each token.
    // Besides, each token's scopes were asked (tests/it/scopes.rs).
    let requests = fake.requests();
    let api: Vec<_> = requests
        .iter()
        .filter(|r| r.raw_path.starts_with("/api/v4") && !common::is_scope_lookup(r))
        .collect();
    assert_eq!(api.len(), 2 * labels.len(), "{requests:#?}");
    let mut tokens = Vec::new();
    for r in &api {
        assert_eq!(r.line(), "GET /api/v4/user", "{r:#?}");
        assert_eq!(r.private_token, None, "{r:#?}");
        let token = r
            .authorization
            .as_deref()
            .and_then(|a| a.strip_prefix("Bearer "))
            .expect("a bearer token")
            .to_string();
        assert!(!token.starts_with("glpat-") && !token.starts_with("gmcp1."));
        assert_eq!(
            fake.oauth_token_user(&token).as_deref(),
            Some("alice"),
            "an OAuth token GitLab issued to alice"
        );
        tokens.push(token);
    }
    tokens.sort();
    tokens.dedup();
    assert_eq!(
        tokens.len(),
        api.len(),
        "each call after a refresh has a new token"
    );
    let grants: Vec<_> = requests
        .iter()
        .filter(|r| r.line() == "POST /oauth/token")
        .map(|r| {
            r.body
                .split('&')
                .find_map(|p| p.strip_prefix("grant_type="))
                .unwrap_or("")
                .to_string()
        })
        .collect();
    assert_eq!(
        grants,
        ["authorization_code", "refresh_token"].repeat(labels.len()),
        "{requests:#?}"
    );

    // No secret in the server's log at trace level: the sealing key, the
    // application's secret, anything this server sealed (tokens, codes,
    // client ids and secrets), GitLab's codes and tokens. The SDK's output
    // holds none of this server's tokens either.
    let mut secrets = gitlab_secrets(&fake);
    assert!(secrets.len() >= 4 * labels.len(), "{secrets:?}");
    secrets.extend([KEY, APP_SECRET, "gmcp1."].map(str::to_string));
    for (what, text) in [("server stderr", &server_log), ("SDK output", &all)] {
        for secret in &secrets {
            assert!(
                !text.contains(secret.as_str()),
                "{what} holds a secret ({} characters)",
                secret.len()
            );
        }
    }
    server.terminate().await;
}

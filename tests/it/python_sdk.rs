//! The official Python MCP SDK (`mcp` from PyPI, pinned in
//! tests/python/requirements.txt) against `serve --http`, through
//! scripts/python-sdk.sh, which installs it into .tools/python/ the first
//! time (about 10 s). tests/python/sdk_client.py connects in the SDK's three
//! modes (`auto`: a `server/discover` probe that must settle on 2026-07-28;
//! `2026-07-28` adopted without a probe; `legacy`: the initialize
//! handshake), lists the tools, gets an issue and makes a mistake, sending
//! its GitLab token as a Private-Token header.

use crate::common;

use std::process::Output;
use std::time::Duration;

use common::http::HttpServer;
use fake_gitlab::FakeGitLab;

const MODES: [&str; 3] = ["auto", "2026-07-28", "legacy"];

async fn sdk_client(url: &str) -> Output {
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/scripts/python-sdk.sh");
    let output = tokio::process::Command::new("bash")
        .arg(script)
        .arg(url)
        .env("GITLAB_TOKEN", common::TOKEN)
        .env(
            "EXPECTED_TOOLS",
            gitlab_mcp::catalog::tools().len().to_string(),
        )
        .kill_on_drop(true)
        .output();
    tokio::time::timeout(Duration::from_secs(600), output)
        .await
        .expect("the SDK client (and its first install) ends within 10 minutes")
        .expect("bash runs scripts/python-sdk.sh")
}

/// The server holds no token and requires one from each request: every
/// request GitLab got carries the one the SDK sent.
async fn check(server_args: &[&str]) {
    let fake = FakeGitLab::start().await;
    let mut args = vec!["--require-client-token"];
    args.extend_from_slice(server_args);
    let server = HttpServer::start(&fake, &[], &args).await;

    let output = sdk_client(&server.mcp_url()).await;
    let stdout = String::from_utf8_lossy(&output.stdout);
    let all = format!(
        "{stdout}\n--- stderr:\n{}\n--- server:\n{}",
        String::from_utf8_lossy(&output.stderr),
        server.stderr_text()
    );
    assert!(output.status.success(), "{all}");
    assert_eq!(stdout.lines().last(), Some("3 passed, 0 failed"), "{all}");
    for mode in MODES {
        let protocol = if mode == "legacy" {
            "2025-11-25"
        } else {
            "2026-07-28"
        };
        for step in [
            format!("ok {mode} protocol {protocol}"),
            format!(
                "ok {mode} tools/list {} gitlab_* tools",
                gitlab_mcp::catalog::tools().len()
            ),
            format!("ok {mode} gitlab_issue get iid 3"),
            format!("ok {mode} wrong parameter refused, names issue_iid"),
        ] {
            assert!(stdout.lines().any(|l| l == step), "no `{step}` in:\n{all}");
        }
    }

    // One GET per mode; the wrong call never reached GitLab. Besides, the
    // token's scopes were asked once (tests/it/scopes.rs).
    let (lookups, requests): (Vec<_>, Vec<_>) = fake
        .requests()
        .into_iter()
        .partition(common::is_scope_lookup);
    assert_eq!(lookups.len(), 1, "{lookups:#?}");
    assert_eq!(requests.len(), MODES.len(), "{requests:#?}");
    for r in &requests {
        assert_eq!(r.line(), "GET /api/v4/projects/1/issues/3");
        assert_eq!(r.private_token.as_deref(), Some(common::TOKEN), "{r:#?}");
        assert_eq!(r.authorization, None, "{r:#?}");
    }
}

#[tokio::test]
async fn the_python_sdk_works_in_both_generations_stateless() {
    check(&[]).await;
}

#[tokio::test]
async fn the_python_sdk_works_in_both_generations_stateful() {
    check(&["--stateful"]).await;
}

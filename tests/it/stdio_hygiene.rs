//! Stdout carries JSON-RPC only, at every log level; the token appears in no
//! output, log or error.

use crate::common;

use std::process::Stdio;
use std::time::Duration;

use fake_gitlab::{FakeGitLab, Fault};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

/// Drive the server with raw JSON-RPC lines; return its stdout and stderr.
async fn run_raw(fake: &FakeGitLab, env: &[(&str, &str)], lines: &[&str]) -> (String, String) {
    let mut cmd = common::command(fake, env);
    cmd.env("RUST_LOG", "trace")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = cmd.spawn().expect("spawn server");
    // Drain both pipes while writing: at trace level the logs alone fill a
    // pipe buffer, and a blocked writer would never exit.
    let mut out_pipe = child.stdout.take().unwrap();
    let mut err_pipe = child.stderr.take().unwrap();
    let out_task = tokio::spawn(async move {
        let mut text = String::new();
        out_pipe.read_to_string(&mut text).await.unwrap();
        text
    });
    let err_task = tokio::spawn(async move {
        let mut text = String::new();
        err_pipe.read_to_string(&mut text).await.unwrap();
        text
    });
    let mut stdin = child.stdin.take().unwrap();
    for line in lines {
        stdin.write_all(line.as_bytes()).await.unwrap();
        stdin.write_all(b"\n").await.unwrap();
        // Let each answer leave before the next request, as a client would.
        tokio::time::sleep(Duration::from_millis(150)).await;
    }
    drop(stdin);
    tokio::time::timeout(Duration::from_secs(10), child.wait())
        .await
        .expect("server exits when stdin closes")
        .unwrap();
    let stdout = out_task.await.unwrap();
    let stderr = err_task.await.unwrap();
    (stdout, stderr)
}

const SESSION: &[&str] = &[
    r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"test","version":"1"}}}"#,
    r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
    r#"{"jsonrpc":"2.0","id":2,"method":"tools/list"}"#,
    r#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"gitlab_issue","arguments":{"action":"get","params":{"project_id":1,"issue_iid":1}}}}"#,
    r#"{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"gitlab_issue","arguments":{"action":"get","params":{"iid":1}}}}"#,
    r#"{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"gitlab_issue","arguments":{"action":"create","params":{"project_id":1,"title":"x"}}}}"#,
    r#"{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"gitlab_nope","arguments":{}}}"#,
    r#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"gitlab_issue","arguments":{"action":"get","params":{"project_id":"acme/secret","issue_iid":1}}}}"#,
];

#[tokio::test]
async fn stdout_carries_only_json_rpc_even_with_trace_logging() {
    let fake = FakeGitLab::start().await;
    fake.inject(
        Fault::status(500)
            .on("POST", "/api/v4/projects/1/issues")
            .times(1),
    );
    let (stdout, stderr) = run_raw(&fake, &[], SESSION).await;
    let lines: Vec<&str> = stdout.lines().collect();
    assert!(lines.len() >= 7, "one answer per request, got:\n{stdout}");
    for line in &lines {
        let message: serde_json::Value =
            serde_json::from_str(line).unwrap_or_else(|e| panic!("not JSON ({e}): {line}"));
        assert_eq!(message["jsonrpc"], "2.0", "{line}");
    }
    assert!(!stderr.is_empty(), "trace logs went to stderr");
}

#[tokio::test]
async fn the_token_appears_in_no_output_or_log() {
    let secret = "glpat-alice";
    let fake = FakeGitLab::start().await;
    fake.inject(
        Fault::status(500)
            .on("POST", "/api/v4/projects/1/issues")
            .times(1),
    );
    let (stdout, stderr) = run_raw(&fake, &[("GITLAB_TOKEN", secret)], SESSION).await;
    assert!(
        fake.requests()
            .iter()
            .any(|r| r.private_token.as_deref() == Some(secret)),
        "the token was used"
    );
    assert!(!stdout.contains(secret), "token on stdout");
    assert!(!stderr.contains(secret), "token in the logs");

    // A rejected token, and the one-shot command, at trace level too.
    let wrong = "glpat-wrong-0123456789";
    let (stdout, stderr) = run_raw(&fake, &[("GITLAB_TOKEN", wrong)], SESSION).await;
    assert!(!stdout.contains(wrong) && !stderr.contains(wrong));
    let output = tokio::process::Command::new(common::BIN)
        .args([
            "call",
            "gitlab_issue",
            r#"{"action":"list","params":{"project_id":1}}"#,
        ])
        .env("GITLAB_URL", fake.url())
        .env("GITLAB_TOKEN", wrong)
        .env("RUST_LOG", "trace")
        .output()
        .await
        .unwrap();
    assert_eq!(output.status.code(), Some(1));
    let all = format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(all.contains("the token was not accepted"), "{all}");
    assert!(!all.contains(wrong), "token leaked by `call`");
}

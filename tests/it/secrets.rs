//! Secrets never leave: with known tokens and secrets, every flow over
//! stdio and HTTP runs at every log level (text and JSON logs), and none of
//! them appears in stdout, stderr, an answer, an error or the metrics.
//! Sign-in's secrets are held to the same in `e2e_signin.rs`.

use crate::common;

use std::process::Stdio;
use std::time::Duration;

use common::Lifecycle;
use common::http::{HttpServer, command, raw};
use fake_gitlab::{FakeGitLab, Fault};
use rmcp::model::CallToolRequestParams;
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};

/// The server's own GitLab token (the fake knows it as alice's).
const SERVER_TOKEN: &str = common::TOKEN;
/// A user's token sent per request over HTTP (the fake's bob).
const USER_TOKEN: &str = "glpat-bob";
/// The HTTP endpoint's shared secret.
const ENDPOINT_SECRET: &str = "endpoint-secret-4f9c2a7e";
/// A token the fake refuses: it must not be echoed either.
const WRONG_TOKEN: &str = "glpat-wrong-8d1e6b";

const LEVELS: [&str; 5] = ["error", "warn", "info", "debug", "trace"];

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

fn assert_clean(what: &str, text: &str, secrets: &[&str]) {
    for secret in secrets {
        assert!(
            !text.contains(secret),
            "{what} contains the secret {secret:?}:\n{}",
            text.lines()
                .filter(|l| l.contains(secret))
                .take(5)
                .collect::<Vec<_>>()
                .join("\n")
        );
    }
}

/// GitLab faults the flows meet: a 401 naming nothing, a 503 then success
/// (a retry), and a redirect to another host.
fn inject_faults(fake: &FakeGitLab) {
    fake.inject(
        Fault::status(401)
            .on("GET", "/api/v4/projects/1/issues/2")
            .times(1),
    );
    fake.inject(
        Fault::status(503)
            .on("GET", "/api/v4/projects/1/issues/3")
            .times(1),
    );
    fake.inject(
        Fault::status(302)
            .header("location", "http://elsewhere.invalid/steal")
            .on("GET", "/api/v4/projects/1/issues/4")
            .times(1),
    );
}

/// The calls of every flow: answers, a GitLab error, a retry, a redirect,
/// an invalid call, a held destructive call.
fn calls() -> Vec<(&'static str, Value)> {
    let issue = |iid: u64| json!({"action": "get", "params": {"project_id": 1, "issue_iid": iid}});
    vec![
        ("gitlab_issue", issue(1)),
        ("gitlab_issue", issue(2)),
        ("gitlab_issue", issue(3)),
        ("gitlab_issue", issue(4)),
        ("gitlab_user", json!({"action": "token_self"})),
        (
            "gitlab_issue",
            json!({"action": "get", "params": {"project": 1, "iid": "x"}}),
        ),
        (
            "gitlab_issue",
            json!({"action": "delete", "params": {"project_id": 1, "issue_iid": 1}}),
        ),
        ("gitlab_nope", json!({"action": "get"})),
    ]
}

/// One stdio session written by hand, so that every byte of stdout and
/// stderr is seen: the handshake, every call, then end of input.
async fn stdio_session(fake: &FakeGitLab, level: &str, format: &str) -> (String, String) {
    let mut cmd = common::command(
        fake,
        &[("RUST_LOG", level), ("GITLAB_MCP_LOG_FORMAT", format)],
    );
    let mut child = cmd
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .expect("spawn gitlab-mcp serve");
    let mut stdin = child.stdin.take().unwrap();
    let mut stdout = BufReader::new(child.stdout.take().unwrap()).lines();
    let mut stderr = child.stderr.take().unwrap();
    let mut out = String::new();
    {
        let mut send = async |message: Value, answer: bool| {
            stdin
                .write_all(format!("{message}\n").as_bytes())
                .await
                .unwrap();
            if answer {
                let line = tokio::time::timeout(Duration::from_secs(30), stdout.next_line())
                    .await
                    .expect("an answer in time")
                    .unwrap()
                    .expect("a line");
                let parsed: Value = serde_json::from_str(&line).expect("stdout is JSON-RPC");
                assert_eq!(parsed["jsonrpc"], "2.0");
                out.push_str(&line);
                out.push('\n');
            }
        };
        send(
            json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "secrets", "version": "1"}}}),
            true,
        )
        .await;
        send(
            json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
            false,
        )
        .await;
        for (id, (tool, arguments)) in calls().into_iter().enumerate() {
            send(
                json!({"jsonrpc": "2.0", "id": id + 1, "method": "tools/call", "params": {"name": tool, "arguments": arguments}}),
                true,
            )
            .await;
        }
    }
    drop(stdin);
    let _ = tokio::time::timeout(Duration::from_secs(10), child.wait()).await;
    let mut err = String::new();
    stderr.read_to_string(&mut err).await.unwrap();
    (out, err)
}

#[tokio::test]
async fn no_token_reaches_stdout_or_stderr_over_stdio_at_any_log_level() {
    for level in LEVELS {
        for format in ["text", "json"] {
            let fake = FakeGitLab::start().await;
            inject_faults(&fake);
            let (out, err) = stdio_session(&fake, level, format).await;
            assert!(
                out.contains("GitLab answered 401")
                    && out.contains("Login page shows a blank screen"),
                "{level}/{format}: the flows ran: {out}"
            );
            assert_clean(
                &format!("stdout ({level}, {format})"),
                &out,
                &[SERVER_TOKEN],
            );
            assert_clean(
                &format!("stderr ({level}, {format})"),
                &err,
                &[SERVER_TOKEN],
            );
            if level == "trace" {
                assert!(err.lines().count() > 10, "trace logs something: {err}");
            }
            // The token did reach GitLab: the test would see a leak.
            assert!(
                fake.requests()
                    .iter()
                    .any(|r| r.private_token.as_deref() == Some(SERVER_TOKEN))
            );
        }
    }
}

#[tokio::test]
async fn no_token_or_secret_reaches_answers_logs_or_metrics_over_http_at_any_log_level() {
    let secrets = [SERVER_TOKEN, USER_TOKEN, ENDPOINT_SECRET, WRONG_TOKEN];
    for level in LEVELS {
        let fake = FakeGitLab::start().await;
        inject_faults(&fake);
        let addr = format!("127.0.0.1:{}", free_port());
        let server = HttpServer::spawn_on(
            command(
                &fake,
                &[
                    ("GITLAB_TOKEN", SERVER_TOKEN),
                    ("GITLAB_MCP_HTTP_AUTH_TOKEN", ENDPOINT_SECRET),
                    ("RUST_LOG", level),
                    (
                        "GITLAB_MCP_LOG_FORMAT",
                        if level == "trace" { "json" } else { "text" },
                    ),
                ],
                &["--http", &addr],
            ),
            &addr,
        )
        .await;
        let bearer = format!("Bearer {ENDPOINT_SECRET}");
        let client = server
            .client(
                (),
                Lifecycle::Discover,
                &[("authorization", &bearer), ("private-token", USER_TOKEN)],
            )
            .await;
        let mut answers = String::new();
        for (tool, arguments) in calls() {
            let Value::Object(arguments) = arguments else {
                unreachable!()
            };
            match client
                .call_tool(CallToolRequestParams::new(tool).with_arguments(arguments))
                .await
            {
                Ok(result) => answers.push_str(&serde_json::to_string(&result).unwrap()),
                Err(e) => answers.push_str(&e.to_string()),
            }
            answers.push('\n');
        }
        let _ = client.cancel().await;
        // Refused requests: a wrong endpoint secret, a wrong user token, a
        // GitLab URL the server does not allow.
        for headers in [
            vec![("authorization", format!("Bearer {WRONG_TOKEN}"))],
            vec![
                ("authorization", bearer.clone()),
                ("private-token", WRONG_TOKEN.to_string()),
            ],
            vec![
                ("authorization", bearer.clone()),
                ("private-token", USER_TOKEN.to_string()),
                ("x-gitlab-url", "https://evil.invalid".to_string()),
            ],
        ] {
            let mut request = raw()
                .post(server.mcp_url())
                .header("content-type", "application/json")
                .header("accept", "application/json, text/event-stream")
                .body(r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"gitlab_user","arguments":{"action":"current"}},"_meta":{}}"#);
            for (k, v) in headers {
                request = request.header(k, v);
            }
            let response = request.send().await.unwrap();
            answers.push_str(&format!("{:?}\n", response.headers()));
            answers.push_str(&response.text().await.unwrap());
        }
        let metrics = server.metrics().await;
        assert!(metrics.contains("gitlab_mcp_"), "{metrics}");
        assert!(
            answers.contains("GitLab answered 401"),
            "{level}: {answers}"
        );
        assert!(
            fake.requests()
                .iter()
                .any(|r| r.private_token.as_deref() == Some(USER_TOKEN)),
            "the user's token reached GitLab"
        );
        let stderr = server.stderr_text();
        server.terminate().await;
        assert_clean(&format!("answers ({level})"), &answers, &secrets);
        assert_clean(&format!("metrics ({level})"), &metrics, &secrets);
        assert_clean(&format!("stderr ({level})"), &stderr, &secrets);
    }
}

//! `serve --http`: both protocol generations through rmcp's HTTP client,
//! per-request credentials that never mix, the endpoint's protections, two
//! instances sharing nothing, and a graceful stop.

use crate::common;

use std::sync::atomic::Ordering;
use std::time::Duration;

use common::http::{HttpServer, command, raw};
use common::{Accepting, BOTH, Lifecycle, call};
use fake_gitlab::{FakeGitLab, Fault};
use serde_json::{Value, json};

fn deletes(fake: &FakeGitLab) -> usize {
    fake.requests()
        .iter()
        .filter(|r| r.method == "DELETE")
        .count()
}

const TOKEN: (&str, &str) = ("private-token", "glpat-alice");

#[tokio::test]
async fn both_generations_list_call_and_learn_from_errors() {
    let fake = FakeGitLab::start().await;
    let server = HttpServer::start(&fake, &[], &[]).await;
    for lifecycle in BOTH {
        let client = server.client((), lifecycle, &[TOKEN]).await;
        let tools = client.list_all_tools().await.unwrap();
        assert_eq!(
            tools.len(),
            gitlab_mcp::catalog::tools().len(),
            "{lifecycle:?}"
        );
        fake.clear_requests();
        let (text, is_error) = call(
            &client,
            "gitlab_issue",
            json!({"action": "get", "params": {"project_id": 1, "issue_iid": 3}}),
        )
        .await;
        assert!(
            !is_error && text.contains("\"iid\":3"),
            "{lifecycle:?}: {text}"
        );
        let request = fake.requests().pop().unwrap();
        assert_eq!(request.line(), "GET /api/v4/projects/1/issues/3");
        assert_eq!(request.private_token.as_deref(), Some("glpat-alice"));
        let (text, is_error) = call(
            &client,
            "gitlab_issue",
            json!({"action": "get", "params": {"project_id": 1, "iid": 3}}),
        )
        .await;
        assert!(
            is_error && text.contains("did you mean `issue_iid`?"),
            "{text}"
        );
        client.cancel().await.unwrap();
    }
}

/// A 2026-07-28 client is asked through an input-required result. A legacy
/// client on the stateless default has no session to remember its declared
/// capabilities (rmcp 3.11 serves each request with default ones), so it is
/// refused: never a silent run. With --stateful, it is asked by elicitation.
#[tokio::test]
async fn destructive_calls_are_confirmed_or_refused_never_run_silently() {
    let delete = || json!({"action": "delete", "params": {"project_id": 1, "issue_iid": 5}});
    let fake = FakeGitLab::start().await;
    let stateless = HttpServer::start(&fake, &[], &[]).await;

    let user = Accepting::default();
    let client = stateless
        .client(user.clone(), Lifecycle::Discover, &[TOKEN])
        .await;
    let (text, is_error) = call(&client, "gitlab_issue", delete()).await;
    assert!(!is_error, "{text}");
    assert_eq!(user.asked.load(Ordering::SeqCst), 1);
    assert_eq!(deletes(&fake), 1, "sent once, after the user agreed");
    client.cancel().await.unwrap();

    let user = Accepting::default();
    let client = stateless
        .client(user.clone(), Lifecycle::Initialize, &[TOKEN])
        .await;
    let (text, is_error) = call(
        &client,
        "gitlab_issue",
        json!({"action": "delete", "params": {"project_id": 1, "issue_iid": 6}}),
    )
    .await;
    assert!(
        is_error && text.contains("refused, nothing was sent"),
        "{text}"
    );
    assert_eq!(user.asked.load(Ordering::SeqCst), 0);
    assert_eq!(deletes(&fake), 1, "nothing more was deleted");
    client.cancel().await.unwrap();

    let stateful = HttpServer::start(&fake, &[], &["--stateful"]).await;
    let user = Accepting::default();
    let client = stateful
        .client(user.clone(), Lifecycle::Initialize, &[TOKEN])
        .await;
    let (text, is_error) = call(
        &client,
        "gitlab_issue",
        json!({"action": "delete", "params": {"project_id": 1, "issue_iid": 7}}),
    )
    .await;
    assert!(!is_error, "{text}");
    assert_eq!(user.asked.load(Ordering::SeqCst), 1, "asked by elicitation");
    assert_eq!(deletes(&fake), 2);
    client.cancel().await.unwrap();
}

/// Hundreds of interleaved calls from two users: every request GitLab got
/// carries the token of the client that caused it (alice asks for odd
/// issues, bob for even ones).
#[tokio::test]
async fn two_users_calling_at_once_never_mix_tokens() {
    let fake = FakeGitLab::start().await;
    let server = HttpServer::start(&fake, &[], &["--require-client-token"]).await;
    let alice = server
        .client((), Lifecycle::Discover, &[("private-token", "glpat-alice")])
        .await;
    let bob = server
        .client(
            (),
            Lifecycle::Initialize,
            &[("authorization", "Bearer glpat-bob")],
        )
        .await;
    let mut calls = Vec::new();
    for i in 0..150u64 {
        let (client, iid) = if i % 2 == 0 {
            (&alice, 1 + (i % 12) * 2)
        } else {
            (&bob, 2 + (i % 12) * 2)
        };
        calls.push(async move {
            call(
                client,
                "gitlab_issue",
                json!({"action": "get", "params": {"project_id": 1, "issue_iid": iid}}),
            )
            .await
        });
    }
    let results = futures_join_all(calls).await;
    assert!(results.iter().all(|(_, e)| !e), "every call succeeds");
    // Each token's scopes were asked once, with that token, however many
    // of its calls came at once.
    let (lookups, requests): (Vec<_>, Vec<_>) = fake
        .requests()
        .into_iter()
        .partition(common::is_scope_lookup);
    let mut asked: Vec<(Option<String>, Option<String>)> = lookups
        .into_iter()
        .map(|r| (r.private_token, r.authorization))
        .collect();
    asked.sort();
    assert_eq!(
        asked,
        [
            (None, Some("Bearer glpat-bob".to_string())),
            (Some("glpat-alice".to_string()), None)
        ]
    );
    assert_eq!(requests.len(), 150);
    for r in &requests {
        let iid: u64 = r.raw_path.rsplit('/').next().unwrap().parse().unwrap();
        if iid % 2 == 1 {
            assert_eq!(
                r.private_token.as_deref(),
                Some("glpat-alice"),
                "{}",
                r.line()
            );
            assert_eq!(r.authorization, None);
        } else {
            assert_eq!(
                r.authorization.as_deref(),
                Some("Bearer glpat-bob"),
                "{}",
                r.line()
            );
            assert_eq!(r.private_token, None);
        }
    }
    alice.cancel().await.unwrap();
    bob.cancel().await.unwrap();
}

async fn futures_join_all<F: std::future::Future>(futures: Vec<F>) -> Vec<F::Output> {
    let handles: Vec<_> = futures.into_iter().map(Box::pin).collect();
    let mut out = Vec::with_capacity(handles.len());
    // Polled together: all are in flight at once.
    let joined = async {
        let mut pending: Vec<_> = handles.into_iter().map(Some).collect();
        let mut results: Vec<Option<F::Output>> = (0..pending.len()).map(|_| None).collect();
        std::future::poll_fn(|cx| {
            let mut done = true;
            for (i, slot) in pending.iter_mut().enumerate() {
                if let Some(f) = slot {
                    match f.as_mut().poll(cx) {
                        std::task::Poll::Ready(v) => {
                            results[i] = Some(v);
                            *slot = None;
                        }
                        std::task::Poll::Pending => done = false,
                    }
                }
            }
            if done {
                std::task::Poll::Ready(())
            } else {
                std::task::Poll::Pending
            }
        })
        .await;
        results
    };
    for r in joined.await {
        out.push(r.unwrap());
    }
    out
}

fn initialize() -> Value {
    json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "raw", "version": "1"}}})
}

async fn post(url: &str, headers: &[(&str, &str)], body: String) -> reqwest::Response {
    let mut request = raw()
        .post(url)
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream");
    for (k, v) in headers {
        request = request.header(*k, *v);
    }
    request.body(body).send().await.unwrap()
}

#[tokio::test]
async fn the_endpoint_refuses_what_it_must_before_gitlab_sees_anything() {
    let fake = FakeGitLab::start().await;
    let server = HttpServer::start(
        &fake,
        &[("GITLAB_TOKEN", "glpat-alice")],
        &["--require-client-token", "--max-body-bytes", "4096"],
    )
    .await;
    let url = server.mcp_url();

    // No credentials: 401 pointing at the protected-resource metadata.
    let r = post(&url, &[], initialize().to_string()).await;
    assert_eq!(r.status(), 401);
    let challenge = r.headers()["www-authenticate"]
        .to_str()
        .unwrap()
        .to_string();
    let metadata_url = format!("{}/.well-known/oauth-protected-resource/mcp", server.url);
    assert_eq!(
        challenge,
        format!("Bearer resource_metadata=\"{metadata_url}\"")
    );
    let metadata: Value = raw()
        .get(&metadata_url)
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(metadata["resource"], url);
    assert_eq!(metadata["authorization_servers"][0], fake.url());
    let plain: Value = raw()
        .get(format!(
            "{}/.well-known/oauth-protected-resource",
            server.url
        ))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(plain, metadata);

    // DNS rebinding: a foreign Host or Origin gets a 4xx.
    let r = post(
        &url,
        &[TOKEN, ("host", "evil.example")],
        initialize().to_string(),
    )
    .await;
    assert_eq!(r.status(), 403);
    let r = post(
        &url,
        &[TOKEN, ("origin", "https://evil.example")],
        initialize().to_string(),
    )
    .await;
    assert_eq!(r.status(), 403);
    let r = post(
        &url,
        &[TOKEN, ("origin", "http://localhost:3000")],
        initialize().to_string(),
    )
    .await;
    assert_eq!(r.status(), 200, "a local origin is fine");

    // An oversized body, declared or not (chunked): 413 either way.
    let big = format!(
        "{{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\",\"pad\":\"{}\"}}",
        "x".repeat(8000)
    );
    let r = post(&url, &[TOKEN], big.clone()).await;
    assert_eq!(r.status(), 413);
    let mut chunked = String::new();
    for piece in big.as_bytes().chunks(1000) {
        chunked.push_str(&format!(
            "{:x}\r\n{}\r\n",
            piece.len(),
            String::from_utf8_lossy(piece)
        ));
    }
    chunked.push_str("0\r\n\r\n");
    let head = format!(
        "POST /mcp HTTP/1.1\r\nHost: {}\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nPrivate-Token: glpat-alice\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n",
        server.url.trim_start_matches("http://")
    );
    let answer =
        common::http::raw_exchange(&server.url, format!("{head}{chunked}").as_bytes()).await;
    assert!(answer.starts_with("HTTP/1.1 413"), "{answer}");

    // A GitLab the operator did not list: refused, nothing sent.
    fake.clear_requests();
    let r = post(
        &url,
        &[TOKEN, ("x-gitlab-url", "http://169.254.169.254")],
        initialize().to_string(),
    )
    .await;
    assert_eq!(r.status(), 403);
    assert!(fake.requests().is_empty());

    // The refusals are counted by reason, with no secret in any label.
    let metrics = server.metrics().await;
    for reason in [
        "unauthenticated",
        "host_or_origin",
        "body_too_large",
        "gitlab_url",
    ] {
        assert!(
            metrics.contains(&format!("gitlab_mcp_refusals_total{{reason=\"{reason}\"}}")),
            "{reason}: {metrics}"
        );
    }
    assert!(!metrics.contains("glpat"));
    assert!(
        !server.stderr_text().contains("glpat"),
        "no token in the logs"
    );
}

/// Headers now, the body `delay` later, then `next` on the same
/// connection: everything the server answered until it closed.
async fn body_after_headers(
    url: &str,
    head: &str,
    body: &str,
    delay: Duration,
    next: &str,
) -> String {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let mut stream = tokio::net::TcpStream::connect(url.trim_start_matches("http://"))
        .await
        .unwrap();
    stream.write_all(head.as_bytes()).await.unwrap();
    tokio::time::sleep(delay).await;
    // Errors are the answer here: a server that closed early fails these.
    let _ = stream.write_all(body.as_bytes()).await;
    tokio::time::sleep(Duration::from_millis(100)).await;
    let _ = stream.write_all(next.as_bytes()).await;
    let mut out = Vec::new();
    let _ = tokio::time::timeout(Duration::from_secs(10), stream.read_to_end(&mut out)).await;
    String::from_utf8_lossy(&out).into_owned()
}

/// A refusal answered before the request's body arrived (the Python SDK's
/// httpx writes the body after the headers; OAuth discovery then reuses the
/// connection of the 401): the server reads the body first, and the next
/// request on the connection is answered. hyper used to close such a
/// connection silently, and the SDK failed with "server disconnected".
#[tokio::test]
async fn a_refusal_before_the_body_arrived_leaves_the_connection_usable() {
    let fake = FakeGitLab::start().await;
    let server = HttpServer::start(
        &fake,
        &[],
        &["--require-client-token", "--max-body-bytes", "4096"],
    )
    .await;
    let host = server.url.trim_start_matches("http://").to_string();
    let body = initialize().to_string();
    let head = |length: usize, extra: &str| {
        format!(
            "POST /mcp HTTP/1.1\r\nHost: {host}\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\n{extra}Content-Length: {length}\r\n\r\n"
        )
    };
    let next = format!("GET /healthz HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n");
    for (what, extra) in [
        ("no token", ""),
        (
            "a GitLab not allowed",
            "Private-Token: glpat-alice\r\nX-GitLab-URL: http://169.254.169.254\r\n",
        ),
    ] {
        let answer = body_after_headers(
            &server.url,
            &head(body.len(), extra),
            &body,
            Duration::from_millis(300),
            &next,
        )
        .await;
        let (first, second) = answer
            .split_once("\r\n\r\n")
            .unwrap_or_else(|| panic!("{what}: {answer}"));
        assert!(first.starts_with("HTTP/1.1 40"), "{what}: {answer}");
        assert!(
            !first.to_lowercase().contains("connection: close"),
            "{what}: {first}"
        );
        assert!(
            second.contains("HTTP/1.1 200 OK"),
            "{what}: the next request on the connection was not answered:\n{answer}"
        );
    }

    // A body that does not come (here: 10 of 100 bytes): the refusal after
    // a short wait (`DRAIN_TIME`, well within the 10 s the answer is read
    // for), saying the connection closes: the server stopped waiting for
    // the body instead of reading it.
    let answer = body_after_headers(
        &server.url,
        &head(100, ""),
        "{\"jsonrpc\"",
        Duration::ZERO,
        "",
    )
    .await;
    assert!(answer.starts_with("HTTP/1.1 401"), "{answer}");
    assert!(
        answer.to_lowercase().contains("connection: close"),
        "{answer}"
    );
    // A body declared too large is never read: the 413 says it closes.
    let answer = body_after_headers(&server.url, &head(5000, ""), "", Duration::ZERO, "").await;
    assert!(answer.starts_with("HTTP/1.1 413"), "{answer}");
    assert!(
        answer.to_lowercase().contains("connection: close"),
        "{answer}"
    );
}

#[tokio::test]
async fn a_public_address_without_authentication_refuses_to_start() {
    let fake = FakeGitLab::start().await;
    let out = command(&fake, &[], &["--http", "0.0.0.0:0"])
        .output()
        .await
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("refusing to serve on 0.0.0.0:0 without authenticating callers"),
        "{stderr}"
    );
    let out = command(
        &fake,
        &[],
        &["--require-client-token", "--http", "0.0.0.0:0"],
    )
    .output()
    .await
    .unwrap();
    assert!(String::from_utf8_lossy(&out.stderr).contains("--allowed-hosts"));
}

/// One 2026-07-28 client whose calls go alternately to two processes that
/// share nothing: every call succeeds.
#[tokio::test]
async fn consecutive_calls_alternate_between_two_instances() {
    let fake = FakeGitLab::start().await;
    let one = HttpServer::start(&fake, &[], &[]).await;
    let two = HttpServer::start(&fake, &[], &[]).await;
    let clients = [
        one.client((), Lifecycle::Discover, &[TOKEN]).await,
        two.client((), Lifecycle::Discover, &[TOKEN]).await,
    ];
    // The same logical client: the 2026-07-28 protocol carries everything a
    // call needs in the call itself, so which process answers is irrelevant.
    for i in 0..10u64 {
        let (text, is_error) = call(
            &clients[(i % 2) as usize],
            "gitlab_issue",
            json!({"action": "get", "params": {"project_id": 1, "issue_iid": 1 + i}}),
        )
        .await;
        assert!(!is_error, "{text}");
    }
    // The same through the raw protocol: one request per process, no session.
    for server in [&one, &two] {
        let body = json!({"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": {
            "name": "gitlab_issue", "arguments": {"action": "get", "params": {"project_id": 1, "issue_iid": 2}},
            "_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {}}}});
        let headers = [
            TOKEN,
            ("mcp-protocol-version", "2026-07-28"),
            ("mcp-method", "tools/call"),
            ("mcp-name", "gitlab_issue"),
        ];
        let r = post(&server.mcp_url(), &headers, body.to_string()).await;
        assert_eq!(r.status(), 200);
        assert!(r.headers().get("mcp-session-id").is_none());
        let text = r.text().await.unwrap();
        assert!(text.contains("\\\"iid\\\":2"), "{text}");
    }
}

#[tokio::test]
async fn sigterm_lets_a_slow_call_finish_then_exits_0() {
    let fake = FakeGitLab::start().await;
    fake.inject(Fault::delay(Duration::from_millis(1500)));
    let server = HttpServer::start(&fake, &[], &[]).await;
    let client = server.client((), Lifecycle::Discover, &[TOKEN]).await;
    let slow = tokio::spawn(async move {
        let out = call(
            &client,
            "gitlab_issue",
            json!({"action": "get", "params": {"project_id": 1, "issue_iid": 1}}),
        )
        .await;
        (out, client)
    });
    // SIGTERM once GitLab holds the call's request, not after a guess.
    common::until_received(&fake, "/api/v4/projects/1/issues/1").await;
    let status = server.terminate();
    let ((text, is_error), _client) = slow.await.unwrap();
    assert!(!is_error && text.contains("\"iid\":1"), "{text}");
    assert_eq!(status.await.code(), Some(0));
}

#[tokio::test]
async fn health_and_readiness() {
    let fake = FakeGitLab::start().await;
    let server = HttpServer::start(&fake, &[], &[]).await;
    let r = raw()
        .get(format!("{}/healthz", server.url))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200);
    let r = raw()
        .get(format!("{}/readyz", server.url))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200);
    let unreachable = FakeGitLab::start().await;
    let mut cmd = command(&unreachable, &[], &[]);
    cmd.env("GITLAB_URL", "http://127.0.0.1:9");
    let down = HttpServer::spawn(cmd).await;
    let r = raw()
        .get(format!("{}/readyz", down.url))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 503);
}

/// `--stateful` keeps each session until it is deleted or idle for 5
/// minutes, so their number is bounded: past it a new `initialize` gets a
/// 503 with `Retry-After`, while sessions in use and 2026-07-28 requests
/// (which need none) go on, and a deleted session makes room.
#[tokio::test]
async fn stateful_sessions_are_bounded_and_a_full_server_says_when_to_retry() {
    let fake = FakeGitLab::start().await;
    let server = HttpServer::start(&fake, &[], &["--stateful", "--max-sessions", "2"]).await;
    let url = server.mcp_url();
    let mut ids = Vec::new();
    for _ in 0..2 {
        let r = post(&url, &[], initialize().to_string()).await;
        assert_eq!(r.status(), 200);
        ids.push(r.headers()["mcp-session-id"].to_str().unwrap().to_string());
    }
    let r = post(&url, &[], initialize().to_string()).await;
    assert_eq!(r.status(), 503);
    assert_eq!(r.headers()["retry-after"], "5");
    assert!(r.headers().get("mcp-session-id").is_none());
    assert_eq!(
        r.json::<Value>().await.unwrap()["error"],
        "too_many_sessions"
    );

    let stateless = server.client((), Lifecycle::Discover, &[TOKEN]).await;
    let (text, is_error) = call(
        &stateless,
        "gitlab_issue",
        json!({"action": "get", "params": {"project_id": 1, "issue_iid": 1}}),
    )
    .await;
    assert!(
        !is_error,
        "a request that needs no session is served: {text}"
    );
    stateless.cancel().await.unwrap();

    let r = raw()
        .delete(&url)
        .header("mcp-session-id", &ids[0])
        .send()
        .await
        .unwrap();
    assert!(r.status().is_success(), "{}", r.status());
    let r = post(&url, &[], initialize().to_string()).await;
    assert_eq!(r.status(), 200, "the deleted session made room");
}

/// Reads until the peer closes or `within` passes: what arrived, and
/// whether the connection was closed.
async fn read_until_closed(stream: &mut tokio::net::TcpStream, within: Duration) -> (String, bool) {
    use tokio::io::AsyncReadExt;
    let mut got = Vec::new();
    let mut buf = [0u8; 4096];
    let deadline = tokio::time::Instant::now() + within;
    loop {
        match tokio::time::timeout_at(deadline, stream.read(&mut buf)).await {
            Ok(Ok(0)) | Ok(Err(_)) => return (String::from_utf8_lossy(&got).into(), true),
            Ok(Ok(n)) => got.extend_from_slice(&buf[..n]),
            Err(_) => return (String::from_utf8_lossy(&got).into(), false),
        }
    }
}

fn host_port(url: &str) -> String {
    url.trim_start_matches("http://").to_string()
}

/// A slow-header client (slowloris) or an idle kept-alive connection holds
/// a connection only until the header deadline.
#[tokio::test]
async fn half_a_header_or_an_idle_connection_is_closed_after_the_header_deadline() {
    use tokio::io::AsyncWriteExt;
    let fake = FakeGitLab::start().await;
    let server = HttpServer::start(&fake, &[], &["--header-timeout", "1"]).await;
    let addr = host_port(&server.url);

    let mut slow = tokio::net::TcpStream::connect(&addr).await.unwrap();
    slow.write_all(b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\n")
        .await
        .unwrap();
    // Closed within 10 s: the 1 s deadline, not hyper's own 30 s one.
    let started = std::time::Instant::now();
    let (_, closed) = read_until_closed(&mut slow, Duration::from_secs(10)).await;
    assert!(closed, "half a header still held the connection after 10 s");
    let took = started.elapsed();
    assert!(
        took >= Duration::from_millis(900),
        "closed after {took:?}, before the 1 s deadline"
    );

    let mut idle = tokio::net::TcpStream::connect(&addr).await.unwrap();
    idle.write_all(b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        .await
        .unwrap();
    let (answer, closed) = read_until_closed(&mut idle, Duration::from_secs(10)).await;
    assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
    assert!(
        closed,
        "an idle kept-alive connection stayed open past 10 s"
    );
}

/// Past `--max-connections`, a new connection waits to be accepted until
/// one closes; then it is served.
#[tokio::test]
async fn connections_past_the_bound_wait_until_one_closes() {
    use tokio::io::AsyncWriteExt;
    let fake = FakeGitLab::start().await;
    let server = HttpServer::start(
        &fake,
        &[],
        &["--max-connections", "2", "--header-timeout", "30"],
    )
    .await;
    let addr = host_port(&server.url);
    let first = tokio::net::TcpStream::connect(&addr).await.unwrap();
    let _second = tokio::net::TcpStream::connect(&addr).await.unwrap();
    tokio::time::sleep(Duration::from_millis(300)).await;
    let mut third = tokio::net::TcpStream::connect(&addr).await.unwrap();
    third
        .write_all(b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
        .await
        .unwrap();
    let (answer, _) = read_until_closed(&mut third, Duration::from_secs(1)).await;
    assert_eq!(answer, "", "served past the bound");
    drop(first);
    let (answer, _) = read_until_closed(&mut third, Duration::from_secs(5)).await;
    assert!(answer.starts_with("HTTP/1.1 200"), "{answer:?}");
}

/// A credentialed request whose body trickles holds its place under the
/// concurrency bounds only until `--body-timeout`: then 408, and the
/// connection closes.
#[tokio::test]
async fn a_body_that_trickles_is_refused_at_the_body_deadline() {
    use tokio::io::AsyncWriteExt;
    let fake = FakeGitLab::start().await;
    let server = HttpServer::start(&fake, &[], &["--body-timeout", "1"]).await;
    let mut slow = tokio::net::TcpStream::connect(host_port(&server.url))
        .await
        .unwrap();
    slow.write_all(
        b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n\
          Accept: application/json, text/event-stream\r\nContent-Length: 400\r\n\r\n{\"jsonrpc\"",
    )
    .await
    .unwrap();
    let (answer, closed) = read_until_closed(&mut slow, Duration::from_secs(10)).await;
    assert!(answer.starts_with("HTTP/1.1 408"), "{answer}");
    assert!(
        answer.contains("request_timeout")
            && answer.contains("the request body took over 1 s to arrive"),
        "{answer}"
    );
    assert!(closed);
}

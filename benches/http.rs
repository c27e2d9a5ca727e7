//! HTTP benchmark: `gitlab-mcp serve --http` driven by rmcp's streamable
//! HTTP client (2026-07-28, stateless), against the in-process fake GitLab.
//!
//! For 1, 16 and 64 concurrent clients, each making calls back to back, it
//! measures the calls per second of the whole server and the latency of
//! each call (p50/p99). The call is `gitlab_issue get` (project 1, issue 3),
//! the same as the stdio benchmark's.
//!
//! Run: `cargo bench --bench http` (full), or `cargo test --bench http` (a
//! brief run that only checks it works). Results: BENCHMARKS.md.

use std::process::Stdio;
use std::time::{Duration, Instant};

use fake_gitlab::FakeGitLab;
use rmcp::model::{CallToolRequestParams, ProtocolVersion};
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use rmcp::{ClientLifecycleMode, ClientServiceExt};
use serde_json::{Map, Value, json};
use tokio::io::{AsyncBufReadExt, BufReader};
use tokio::process::Command;

const BIN: &str = env!("CARGO_BIN_EXE_gitlab-mcp");

fn main() {
    let full = std::env::args().any(|a| a == "--bench");
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(run(full));
}

async fn run(full: bool) {
    let _ = rustls::crypto::ring::default_provider().install_default();
    let fake = FakeGitLab::start_on("127.0.0.1:0", false).await;
    let (mut child, url) = start_server(&fake).await;
    let calls_per_client = |clients: usize| if full { (6_000 / clients).max(200) } else { 5 };
    println!(
        "HTTP ({}): `get issue` via tools/call, 2026-07-28 stateless, rmcp's HTTP client",
        if full { "full" } else { "brief check" }
    );
    println!("| concurrent clients | calls | calls/s | p50 (µs) | p99 (µs) |");
    println!("|---|---|---|---|---|");
    for clients in [1usize, 16, 64] {
        let per_client = calls_per_client(clients);
        let mut tasks = Vec::new();
        let started = Instant::now();
        for _ in 0..clients {
            let url = url.clone();
            tasks.push(tokio::spawn(
                async move { client_run(&url, per_client).await },
            ));
        }
        let mut latencies: Vec<Duration> = Vec::new();
        let mut measured_from = started;
        for task in tasks {
            let (lat, first_call) = task.await.unwrap();
            latencies.extend(lat);
            measured_from = measured_from.max(first_call);
        }
        let elapsed = started.elapsed();
        latencies.sort();
        let p =
            |q: f64| latencies[((latencies.len() as f64 * q) as usize).min(latencies.len() - 1)];
        println!(
            "| {clients} | {} | {:.0} | {:.0} | {:.0} |",
            latencies.len(),
            latencies.len() as f64 / elapsed.as_secs_f64(),
            p(0.5).as_secs_f64() * 1e6,
            p(0.99).as_secs_f64() * 1e6,
        );
    }
    let _ = child.kill().await;
}

/// One client: connect, warm up, then `calls` calls back to back; their
/// latencies and when the first timed call started.
async fn client_run(url: &str, calls: usize) -> (Vec<Duration>, Instant) {
    let config =
        StreamableHttpClientTransportConfig::with_uri(url.to_string()).auth_header("glpat-alice");
    let client = ()
        .serve_with_lifecycle(
            StreamableHttpClientTransport::from_config(config),
            ClientLifecycleMode::Discover {
                preferred_versions: vec![ProtocolVersion::V_2026_07_28],
            },
        )
        .await
        .expect("client connects");
    let Value::Object(args) = json!({"action": "get", "params": {"project_id": 1, "issue_iid": 3}})
    else {
        unreachable!()
    };
    let request = |args: &Map<String, Value>| {
        CallToolRequestParams::new("gitlab_issue").with_arguments(args.clone())
    };
    for _ in 0..3 {
        client.call_tool(request(&args)).await.unwrap();
    }
    let first = Instant::now();
    let mut latencies = Vec::with_capacity(calls);
    for _ in 0..calls {
        let t = Instant::now();
        let result = client.call_tool(request(&args)).await.unwrap();
        latencies.push(t.elapsed());
        assert_ne!(result.is_error, Some(true));
    }
    let _ = client.cancel().await;
    (latencies, first)
}

async fn start_server(fake: &FakeGitLab) -> (tokio::process::Child, String) {
    let mut child = Command::new(BIN)
        // Every client here uses one token; real ones would each have their own.
        .args([
            "serve",
            "--http",
            "127.0.0.1:0",
            "--max-requests-per-token",
            "1000",
        ])
        .env("GITLAB_URL", fake.url())
        .env("RUST_LOG", "warn")
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .expect("spawn gitlab-mcp");
    let mut lines = BufReader::new(child.stderr.take().unwrap()).lines();
    let addr = loop {
        let line = lines
            .next_line()
            .await
            .unwrap()
            .expect("the server logs its address");
        if let Some(rest) = line.split("addr=").nth(1) {
            break rest.split_whitespace().next().unwrap().to_string();
        }
    };
    // Keep draining stderr so the server never blocks on it.
    tokio::spawn(async move { while let Ok(Some(_)) = lines.next_line().await {} });
    (child, format!("http://{addr}/mcp"))
}

//! End-to-end benchmark: the real `gitlab-mcp serve` binary driven over
//! stdio by rmcp's client, against the in-process fake GitLab.
//!
//! Measures, in one run:
//! - start-up: process spawn to the first `tools/list` answer;
//! - latency of sequential `tools/call`s (p50/p90/p99);
//! - the floor: the same GitLab request made directly with reqwest on a
//!   kept-alive connection; the overhead is our latency minus the floor;
//! - throughput with 8 calls in flight;
//! - the server's peak RSS after 10,000 calls.
//!
//! Run: `cargo bench --bench e2e` (full), or `cargo test --bench e2e` (a
//! brief run that only checks it works). Results: BENCHMARKS.md.

use std::process::Stdio;
use std::sync::Arc;
use std::time::{Duration, Instant};

use fake_gitlab::FakeGitLab;
use rmcp::model::CallToolRequestParams;
use rmcp::service::RunningService;
use rmcp::transport::TokioChildProcess;
use rmcp::{ClientLifecycleMode, ClientServiceExt, RoleClient};
use serde_json::{Map, Value, json};
use tokio::process::Command;

const BIN: &str = env!("CARGO_BIN_EXE_gitlab-mcp");
const TOKEN: &str = "glpat-alice";
const ISSUE_PATH: &str = "/api/v4/projects/1/issues/3";

struct Sizes {
    startups: usize,
    sequential: usize,
    concurrent: usize,
    in_flight: usize,
    rss_calls: usize,
}

fn main() {
    // `cargo bench` passes `--bench`; `cargo test` runs a brief check.
    let full = std::env::args().any(|a| a == "--bench");
    let sizes = if full {
        Sizes {
            startups: 30,
            sequential: 3_000,
            concurrent: 8_000,
            in_flight: 8,
            rss_calls: 10_000,
        }
    } else {
        Sizes {
            startups: 2,
            sequential: 30,
            concurrent: 64,
            in_flight: 8,
            rss_calls: 100,
        }
    };
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(run(sizes, full));
}

fn arguments() -> Map<String, Value> {
    match json!({"action": "get", "params": {"project_id": 1, "issue_iid": 3}}) {
        Value::Object(map) => map,
        _ => unreachable!(),
    }
}

async fn start_server(fake: &FakeGitLab) -> (RunningService<RoleClient, ()>, u32) {
    // GITLAB_MCP_BIN runs another build (or a profiler wrapping it).
    let bin = std::env::var("GITLAB_MCP_BIN").unwrap_or_else(|_| BIN.to_string());
    let mut cmd = Command::new(bin);
    cmd.arg("serve")
        .env_clear()
        .env("GITLAB_URL", fake.url())
        .env("GITLAB_TOKEN", TOKEN);
    let (transport, _) = TokioChildProcess::builder(cmd)
        .stderr(Stdio::null())
        .spawn()
        .expect("spawn gitlab-mcp");
    let pid = transport.id().expect("child pid");
    let client =
        ().serve_with_lifecycle(transport, ClientLifecycleMode::Initialize)
            .await
            .expect("session");
    (client, pid)
}

async fn call(client: &RunningService<RoleClient, ()>) {
    let result = client
        .call_tool(CallToolRequestParams::new("gitlab_issue").with_arguments(arguments()))
        .await
        .expect("tools/call");
    assert_eq!(result.is_error, Some(false), "{result:?}");
}

/// Percentile of sorted durations, in microseconds.
fn percentile(sorted: &[Duration], p: f64) -> f64 {
    let index = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[index].as_secs_f64() * 1e6
}

fn summary(mut samples: Vec<Duration>) -> (f64, f64, f64) {
    samples.sort();
    (
        percentile(&samples, 0.5),
        percentile(&samples, 0.9),
        percentile(&samples, 0.99),
    )
}

/// The peak resident set of a process (VmHWM), in KiB.
fn peak_rss_kib(pid: u32) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

async fn run(sizes: Sizes, full: bool) {
    // The fake keeps no request log, so its memory stays flat.
    let fake = FakeGitLab::start_on("127.0.0.1:0", false).await;

    // Start-up: spawn to the first tools/list answer.
    let mut startups = Vec::new();
    for _ in 0..sizes.startups {
        let started = Instant::now();
        let (client, _) = start_server(&fake).await;
        let tools = client.list_all_tools().await.expect("tools/list");
        startups.push(started.elapsed());
        assert!(!tools.is_empty());
        client.cancel().await.ok();
    }
    let (startup_p50, _, startup_p99) = summary(startups);

    let (client, pid) = start_server(&fake).await;
    // Warm up connections and caches on both sides.
    for _ in 0..50.min(sizes.sequential) {
        call(&client).await;
    }

    // Sequential latency through the server, and the floor: the same
    // request straight to the fake on a kept-alive connection. The two
    // alternate, so that noise on the machine weighs on both alike.
    let _ = rustls::crypto::ring::default_provider().install_default();
    let http = reqwest::Client::new();
    let url = format!("{}{ISSUE_PATH}", fake.url());
    let direct = || async {
        let body = http
            .get(&url)
            .header("PRIVATE-TOKEN", TOKEN)
            .send()
            .await
            .unwrap()
            .bytes()
            .await
            .unwrap();
        assert!(!body.is_empty());
    };
    for _ in 0..50 {
        direct().await;
    }
    let mut ours = Vec::with_capacity(sizes.sequential);
    let mut floor = Vec::with_capacity(sizes.sequential);
    for _ in 0..sizes.sequential {
        let started = Instant::now();
        call(&client).await;
        ours.push(started.elapsed());
        let started = Instant::now();
        direct().await;
        floor.push(started.elapsed());
    }

    // Throughput with calls in flight.
    let client = Arc::new(client);
    let started = Instant::now();
    let per_task = sizes.concurrent / sizes.in_flight;
    let mut tasks = Vec::new();
    for _ in 0..sizes.in_flight {
        let client = client.clone();
        tasks.push(tokio::spawn(async move {
            for _ in 0..per_task {
                call(&client).await;
            }
        }));
    }
    for t in tasks {
        t.await.unwrap();
    }
    let elapsed = started.elapsed();
    let throughput = (per_task * sizes.in_flight) as f64 / elapsed.as_secs_f64();

    // Memory after `rss_calls` calls in all.
    let done = 50.min(sizes.sequential) + sizes.sequential + per_task * sizes.in_flight;
    for _ in done..sizes.rss_calls {
        call(&client).await;
    }
    let rss = peak_rss_kib(pid);

    let (p50, p90, p99) = summary(ours);
    let (f50, f90, f99) = summary(floor);
    println!(
        "gitlab-mcp end-to-end ({}), {} sequential calls of gitlab_issue get",
        if full { "full run" } else { "brief check" },
        sizes.sequential
    );
    println!("| measure | p50 | p90 | p99 |");
    println!("|---|---|---|---|");
    println!("| tools/call through gitlab-mcp (µs) | {p50:.0} | {p90:.0} | {p99:.0} |");
    println!("| same request direct with reqwest (µs) | {f50:.0} | {f90:.0} | {f99:.0} |");
    println!(
        "| overhead (µs) | {:.0} | {:.0} | {:.0} |",
        p50 - f50,
        p90 - f90,
        p99 - f99
    );
    println!(
        "| start-up to first tools/list (ms) | {:.1} | | {:.1} (p99) |",
        startup_p50 / 1000.0,
        startup_p99 / 1000.0
    );
    println!(
        "throughput, {} in flight: {throughput:.0} calls/s ({} calls in {:.2} s)",
        sizes.in_flight,
        per_task * sizes.in_flight,
        elapsed.as_secs_f64()
    );
    match rss {
        Some(kib) => println!(
            "server peak RSS after {} calls: {:.1} MiB",
            sizes.rss_calls.max(done),
            kib as f64 / 1024.0
        ),
        None => println!("server peak RSS: unavailable (no /proc)"),
    }
    if let Ok(client) = Arc::try_unwrap(client) {
        client.cancel().await.ok();
    }
}

//! End-to-end benchmark: a real MCP server binary driven over stdio by
//! rmcp's client, against the in-process fake GitLab.
//!
//! For each server it measures, in one run:
//! - start-up: process spawn to the first `tools/list` answer;
//! - latency of sequential `tools/call`s (p50/p90/p99);
//! - the floor: the same GitLab request made directly with reqwest on a
//!   kept-alive connection, alternating with the calls; the overhead is the
//!   call's latency minus the floor;
//! - throughput with 8 calls in flight;
//! - the server's peak RSS after 10,000 calls.
//!
//! The server is `gitlab-mcp serve`; with `GITLAB_MCP_PEER_CMD` set (see
//! `scripts/compare-peer.sh`) the same workload also runs through that
//! command, a peer MCP server, and both rows are printed in one table;
//! `GITLAB_MCP_BEFORE_BIN` adds a row for another build of ours.
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

/// A server under test: how to start it and which call reads issue 3.
#[derive(Clone)]
struct ServerSpec {
    name: String,
    program: String,
    args: Vec<String>,
    env: Vec<(String, String)>,
    tool: &'static str,
    arguments: Value,
}

struct Row {
    name: String,
    /// The `tools/list` answer's tools: bytes and cl100k tokens.
    tool_list: (usize, usize),
    startup_ms: (f64, f64),
    call: (f64, f64, f64),
    floor: (f64, f64, f64),
    throughput: f64,
    rss_mib: Option<f64>,
    calls: usize,
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

async fn run(sizes: Sizes, full: bool) {
    // The fake keeps no request log, so its memory stays flat.
    let fake = FakeGitLab::start_on("127.0.0.1:0", false).await;
    let mut specs = vec![ServerSpec {
        name: "gitlab-mcp".into(),
        // GITLAB_MCP_BIN runs another build (or a profiler wrapping it).
        program: std::env::var("GITLAB_MCP_BIN").unwrap_or_else(|_| BIN.to_string()),
        args: vec!["serve".into()],
        env: vec![
            ("GITLAB_URL".into(), fake.url()),
            ("GITLAB_TOKEN".into(), TOKEN.into()),
        ],
        tool: "gitlab_issue",
        arguments: json!({"action": "get", "params": {"project_id": 1, "issue_iid": 3}}),
    }];
    // GITLAB_MCP_BEFORE_BIN: another build of ours (the one before a
    // change) as a second row, so both are measured in one run.
    if let Ok(before) = std::env::var("GITLAB_MCP_BEFORE_BIN") {
        let mut spec = specs[0].clone();
        spec.name = "gitlab-mcp (before)".into();
        spec.program = before;
        specs.push(spec);
    }
    if let Ok(command) = std::env::var("GITLAB_MCP_PEER_CMD") {
        let mut words = command.split_whitespace().map(str::to_string);
        specs.push(ServerSpec {
            name: std::env::var("GITLAB_MCP_PEER_NAME").unwrap_or_else(|_| "peer".into()),
            program: words.next().expect("GITLAB_MCP_PEER_CMD names a program"),
            args: words.collect(),
            env: vec![
                ("GITLAB_API_URL".into(), format!("{}/api/v4", fake.url())),
                ("GITLAB_PERSONAL_ACCESS_TOKEN".into(), TOKEN.into()),
                ("GITLAB_DISABLE_VERSION_CHECK".into(), "true".into()),
            ],
            tool: "get_issue",
            arguments: json!({"project_id": "1", "issue_iid": "3"}),
        });
    }
    // The first server measured in a run came out about 20 µs slower per
    // call than the same binary measured second (BENCHMARKS.md, four runs
    // with the order swapped): the harness and its in-process GitLab warm
    // up on it. A full run first warms them on the first server, unmeasured.
    if full {
        let _ = measure(&specs[0], &fake, &sizes).await;
    }
    let mut rows = Vec::new();
    for spec in &specs {
        rows.push(measure(spec, &fake, &sizes).await);
    }
    println!(
        "end-to-end ({}): `get issue` via tools/call over stdio, {} sequential calls",
        if full { "full run" } else { "brief check" },
        sizes.sequential
    );
    println!(
        "| server | tool list (bytes / tokens) | start-up p50 / p99 (ms) | call p50 / p90 / p99 (µs) | direct request p50 (µs) | overhead p50 / p90 / p99 (µs) | throughput, {} in flight (calls/s) | peak RSS (MiB) |",
        sizes.in_flight
    );
    println!("|---|---|---|---|---|---|---|---|");
    for r in rows {
        println!(
            "| {} | {} / {} | {:.1} / {:.1} | {:.0} / {:.0} / {:.0} | {:.0} | {:.0} / {:.0} / {:.0} | {:.0} | {} |",
            r.name,
            r.tool_list.0,
            r.tool_list.1,
            r.startup_ms.0,
            r.startup_ms.1,
            r.call.0,
            r.call.1,
            r.call.2,
            r.floor.0,
            r.call.0 - r.floor.0,
            r.call.1 - r.floor.1,
            r.call.2 - r.floor.2,
            r.throughput,
            r.rss_mib
                .map_or("n/a".into(), |m| format!("{m:.1} after {} calls", r.calls)),
        );
    }
}

async fn start(spec: &ServerSpec) -> (RunningService<RoleClient, ()>, u32) {
    let mut cmd = Command::new(&spec.program);
    cmd.args(&spec.args)
        .env_clear()
        .env("PATH", std::env::var("PATH").unwrap_or_default());
    for (k, v) in &spec.env {
        cmd.env(k, v);
    }
    let (transport, _) = TokioChildProcess::builder(cmd)
        .stderr(Stdio::null())
        .spawn()
        .expect("spawn the server");
    let pid = transport.id().expect("child pid");
    let client =
        ().serve_with_lifecycle(transport, ClientLifecycleMode::Initialize)
            .await
            .expect("session");
    (client, pid)
}

fn arguments(spec: &ServerSpec) -> Map<String, Value> {
    match &spec.arguments {
        Value::Object(map) => map.clone(),
        _ => unreachable!(),
    }
}

async fn call(client: &RunningService<RoleClient, ()>, spec: &ServerSpec) {
    let result = client
        .call_tool(CallToolRequestParams::new(spec.tool).with_arguments(arguments(spec)))
        .await
        .expect("tools/call");
    assert_ne!(result.is_error, Some(true), "{}: {result:?}", spec.name);
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

async fn measure(spec: &ServerSpec, fake: &FakeGitLab, sizes: &Sizes) -> Row {
    // Start-up: spawn to the first tools/list answer.
    let mut startups = Vec::new();
    for _ in 0..sizes.startups {
        let started = Instant::now();
        let (client, _) = start(spec).await;
        let tools = client.list_all_tools().await.expect("tools/list");
        startups.push(started.elapsed());
        assert!(!tools.is_empty());
        client.cancel().await.ok();
    }
    let (startup_p50, _, startup_p99) = summary(startups);

    let (client, pid) = start(spec).await;
    let tools = client.list_all_tools().await.expect("tools/list");
    let list = serde_json::to_string(&json!({ "tools": tools })).unwrap();
    let tool_list = (
        list.len(),
        tiktoken_rs::cl100k_base()
            .unwrap()
            .encode_with_special_tokens(&list)
            .len(),
    );
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
    // Warm up connections and caches on both sides.
    let warm = 50.min(sizes.sequential);
    for _ in 0..warm {
        call(&client, spec).await;
        direct().await;
    }
    // Calls and direct requests alternate, so that noise on the machine
    // weighs on both alike.
    let mut ours = Vec::with_capacity(sizes.sequential);
    let mut floor = Vec::with_capacity(sizes.sequential);
    for _ in 0..sizes.sequential {
        let started = Instant::now();
        call(&client, spec).await;
        ours.push(started.elapsed());
        let started = Instant::now();
        direct().await;
        floor.push(started.elapsed());
    }

    // Throughput with calls in flight.
    let client = Arc::new(client);
    let per_task = sizes.concurrent / sizes.in_flight;
    let started = Instant::now();
    let mut tasks = Vec::new();
    for _ in 0..sizes.in_flight {
        let client = client.clone();
        let spec_tool = spec.tool;
        let args = arguments(spec);
        let name = spec.name.clone();
        tasks.push(tokio::spawn(async move {
            for _ in 0..per_task {
                let result = client
                    .call_tool(CallToolRequestParams::new(spec_tool).with_arguments(args.clone()))
                    .await
                    .expect("tools/call");
                assert_ne!(result.is_error, Some(true), "{name}");
            }
        }));
    }
    for t in tasks {
        t.await.unwrap();
    }
    let elapsed = started.elapsed();
    let throughput = (per_task * sizes.in_flight) as f64 / elapsed.as_secs_f64();

    // Memory after `rss_calls` calls in all.
    let done = warm + sizes.sequential + per_task * sizes.in_flight;
    for _ in done..sizes.rss_calls {
        call(&client, spec).await;
    }
    let rss = peak_rss_kib(pid).map(|kib| kib as f64 / 1024.0);
    if let Ok(client) = Arc::try_unwrap(client) {
        client.cancel().await.ok();
    }
    Row {
        name: spec.name.clone(),
        tool_list,
        startup_ms: (startup_p50 / 1000.0, startup_p99 / 1000.0),
        call: summary(ours),
        floor: summary(floor),
        throughput,
        rss_mib: rss,
        calls: done.max(sizes.rss_calls),
    }
}

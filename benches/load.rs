//! Load: the release binary under sustained concurrent use, against the
//! in-process fake GitLab (no request log, so its memory stays flat).
//!
//! 1. stdio: 100,000 `tools/call`s through rmcp's client, 32 in flight,
//!    then 100,000 more in the same session to compare memory.
//! 2. HTTP: 200 concurrent clients (rmcp's streamable HTTP client,
//!    2026-07-28 stateless), each calling back to back for 60 s.
//! 3. The same with the fake failing 5% of GitLab requests (503 with
//!    `Retry-After: 0`, 502 pages, 429, resets, bodies cut short), which the
//!    server retries (every call here is a GET).
//! 4. Phase 2 again, to compare the server's memory after the same load.
//!
//! Every call's answer is identifiable: most calls list page `N` of an
//! issue list, `N` unique to the call, and the answer must say `page N/`;
//! the others get issue `k` and must show `"iid":k`. A call counts as
//! failed wrongly when it errs without a fault that spent its retries (in
//! phase 3 a call may fail once all 4 attempts met a fault: about 0.05^4
//! of them, and its text must say the retries are spent), and as misdelivered
//! when its answer is another call's. The server's VmRSS is read from
//! /proc before, between and after the phases.
//!
//! Run: `cargo bench --bench load` (full, about 5 minutes), or
//! `cargo test --bench load` (a brief run that only checks it works).
//! Results: BENCHMARKS.md.

use std::process::Stdio;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use fake_gitlab::{FakeGitLab, Fault};
use rmcp::model::{CallToolRequestParams, CallToolResult, ProtocolVersion};
use rmcp::service::{Peer, ServiceError};
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use rmcp::transport::{StreamableHttpClientTransport, TokioChildProcess};
use rmcp::{ClientLifecycleMode, ClientServiceExt, RoleClient};
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, BufReader};
use tokio::process::Command;

const BIN: &str = env!("CARGO_BIN_EXE_gitlab-mcp");
const TOKEN: &str = "glpat-alice";

struct Sizes {
    stdio_calls: u64,
    stdio_in_flight: usize,
    http_clients: usize,
    http_duration: Duration,
}

fn main() {
    // `cargo bench` passes `--bench`; `cargo test` runs a brief check.
    let full = std::env::args().any(|a| a == "--bench");
    let sizes = if full {
        Sizes {
            stdio_calls: 100_000,
            stdio_in_flight: 32,
            http_clients: 200,
            http_duration: Duration::from_secs(60),
        }
    } else {
        Sizes {
            stdio_calls: 400,
            stdio_in_flight: 32,
            http_clients: 16,
            http_duration: Duration::from_secs(1),
        }
    };
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(run(sizes, full));
}

/// What one phase saw.
#[derive(Default)]
struct Tally {
    calls: AtomicU64,
    ok: AtomicU64,
    /// Errors after every attempt met a fault: expected under faults.
    spent: AtomicU64,
    /// Errors that should not have happened.
    wrong: AtomicU64,
    /// Answers that belonged to another call.
    misdelivered: AtomicU64,
    latency_us: std::sync::Mutex<Vec<u32>>,
    examples: std::sync::Mutex<Vec<String>>,
}

impl Tally {
    fn record(
        &self,
        n: u64,
        result: Result<CallToolResult, ServiceError>,
        took: Duration,
        faults: bool,
    ) {
        self.calls.fetch_add(1, Ordering::Relaxed);
        self.latency_us
            .lock()
            .unwrap()
            .push(took.as_micros().min(u32::MAX as u128) as u32);
        let example = |what: String| {
            let mut examples = self.examples.lock().unwrap();
            if examples.len() < 5 {
                examples.push(what);
            }
        };
        let result = match result {
            Ok(result) => result,
            Err(e) => {
                self.wrong.fetch_add(1, Ordering::Relaxed);
                example(format!("call {n}: protocol error {e}"));
                return;
            }
        };
        let text: String = result
            .content
            .iter()
            .filter_map(|c| c.as_text().map(|t| t.text.as_str()))
            .collect();
        if result.is_error == Some(true) {
            if faults && text.contains("the retries are spent") {
                self.spent.fetch_add(1, Ordering::Relaxed);
                example(format!("call {n} (retries spent): {text}"));
            } else {
                self.wrong.fetch_add(1, Ordering::Relaxed);
                example(format!("call {n}: {text}"));
            }
            return;
        }
        if text.contains(&expected(n)) {
            self.ok.fetch_add(1, Ordering::Relaxed);
        } else {
            self.misdelivered.fetch_add(1, Ordering::Relaxed);
            example(format!(
                "call {n} got: {}",
                text.chars().take(200).collect::<String>()
            ));
        }
    }

    fn report(&self, name: &str, elapsed: Duration, rss: (u64, u64)) -> bool {
        let mut latencies = self.latency_us.lock().unwrap().clone();
        latencies.sort_unstable();
        let p = |q: f64| {
            latencies
                .get(((latencies.len() as f64 - 1.0) * q).round() as usize)
                .map_or(0.0, |us| *us as f64 / 1000.0)
        };
        let calls = self.calls.load(Ordering::Relaxed);
        let wrong = self.wrong.load(Ordering::Relaxed);
        let misdelivered = self.misdelivered.load(Ordering::Relaxed);
        println!(
            "| {name} | {calls} | {:.1} | {:.0} | {:.2} / {:.2} / {:.1} | {} | {} | {wrong} | {misdelivered} | {:.1} → {:.1} |",
            elapsed.as_secs_f64(),
            calls as f64 / elapsed.as_secs_f64(),
            p(0.5),
            p(0.99),
            p(1.0),
            self.ok.load(Ordering::Relaxed),
            self.spent.load(Ordering::Relaxed),
            rss.0 as f64 / 1024.0,
            rss.1 as f64 / 1024.0,
        );
        for e in self.examples.lock().unwrap().iter() {
            eprintln!("  {name}: {e}");
        }
        calls > 0 && wrong == 0 && misdelivered == 0
    }
}

/// Call `n`'s arguments: 3 in 4 list page `n + 1000` (past the end, so the
/// page number comes back only from this call's request), 1 in 4 get issue
/// `n % 3 + 1`.
fn arguments(n: u64) -> serde_json::Map<String, Value> {
    let value = if n.is_multiple_of(4) {
        json!({"action": "get", "params": {"project_id": 1, "issue_iid": n % 3 + 1}})
    } else {
        json!({"action": "list", "params": {"project_id": 1, "per_page": 1, "page": n + 1000}})
    };
    let Value::Object(map) = value else {
        unreachable!()
    };
    map
}

/// What call `n`'s answer must contain.
fn expected(n: u64) -> String {
    if n.is_multiple_of(4) {
        format!("\"iid\":{}", n % 3 + 1)
    } else {
        format!("[page {}/", n + 1000)
    }
}

async fn call(peer: &Peer<RoleClient>, n: u64) -> (Result<CallToolResult, ServiceError>, Duration) {
    let started = Instant::now();
    let result = peer
        .call_tool(CallToolRequestParams::new("gitlab_issue").with_arguments(arguments(n)))
        .await;
    (result, started.elapsed())
}

fn rss_kib(pid: u32) -> u64 {
    std::fs::read_to_string(format!("/proc/{pid}/status"))
        .ok()
        .and_then(|s| {
            s.lines()
                .find_map(|l| l.strip_prefix("VmRSS:"))
                .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        })
        .unwrap_or(0)
}

const HEADER: &str = "| phase | calls | seconds | calls/s | latency p50 / p99 / max (ms) | right answers | failed after spent retries | failed wrongly | misdelivered | server VmRSS (MiB) |\n|---|---|---|---|---|---|---|---|---|---|";

async fn run(sizes: Sizes, full: bool) {
    let _ = rustls::crypto::ring::default_provider().install_default();
    let fake = FakeGitLab::start_on("127.0.0.1:0", false).await;
    println!(
        "load ({}): gitlab-mcp against the in-process fake GitLab",
        if full { "full run" } else { "brief check" }
    );
    println!("{HEADER}");
    let mut fine = stdio(&fake, &sizes).await;
    fine &= http(&fake, &sizes).await;
    assert!(fine, "a call failed wrongly or got another call's answer");
}

async fn stdio(fake: &FakeGitLab, sizes: &Sizes) -> bool {
    let mut cmd = Command::new(std::env::var("GITLAB_MCP_BIN").unwrap_or_else(|_| BIN.into()));
    cmd.arg("serve")
        .env_clear()
        .env("PATH", std::env::var("PATH").unwrap_or_default())
        .env("GITLAB_URL", fake.url())
        .env("GITLAB_TOKEN", TOKEN);
    let (transport, _) = TokioChildProcess::builder(cmd)
        .stderr(Stdio::null())
        .spawn()
        .expect("spawn gitlab-mcp serve");
    let pid = transport.id().expect("pid");
    let client =
        ().serve_with_lifecycle(transport, ClientLifecycleMode::Initialize)
            .await
            .expect("session");
    for n in 0..50 {
        let (result, _) = call(client.peer(), n).await;
        assert_ne!(result.unwrap().is_error, Some(true));
    }
    // The same load twice in one session: memory after the second run
    // against the first shows whether it is flat.
    let mut fine = true;
    for (phase, name) in ["", ", again"].into_iter().enumerate() {
        let first = phase as u64 * sizes.stdio_calls;
        let before = rss_kib(pid);
        let (tally, elapsed) = stdio_phase(
            client.peer(),
            first..first + sizes.stdio_calls,
            sizes.stdio_in_flight,
        )
        .await;
        fine &= tally.report(
            &format!("stdio, {} in flight{name}", sizes.stdio_in_flight),
            elapsed,
            (before, rss_kib(pid)),
        );
    }
    let _ = client.cancel().await;
    fine
}

/// Calls numbered `calls` over one session, `in_flight` at a time.
async fn stdio_phase(
    peer: &Peer<RoleClient>,
    calls: std::ops::Range<u64>,
    in_flight: usize,
) -> (Arc<Tally>, Duration) {
    let tally = Arc::new(Tally::default());
    let next = Arc::new(AtomicU64::new(calls.start));
    let started = Instant::now();
    let mut workers = Vec::new();
    for _ in 0..in_flight {
        let peer = peer.clone();
        let tally = tally.clone();
        let next = next.clone();
        let end = calls.end;
        workers.push(tokio::spawn(async move {
            loop {
                let n = next.fetch_add(1, Ordering::Relaxed);
                if n >= end {
                    break;
                }
                let (result, took) = call(&peer, n).await;
                tally.record(n, result, took, false);
            }
        }));
    }
    for w in workers {
        w.await.unwrap();
    }
    (tally, started.elapsed())
}

async fn http(fake: &FakeGitLab, sizes: &Sizes) -> bool {
    let (mut child, url, pid) = start_http(fake).await;
    // Warm up: every client connects once.
    let mut fine = true;
    let idle = rss_kib(pid);
    let counter = Arc::new(AtomicU64::new(1_000_000));
    // Clean, with faults, then clean again: memory after the third phase
    // against the first shows whether it is flat.
    for (phase, faults) in [false, true, false].into_iter().enumerate() {
        if faults {
            inject_faults(fake);
        }
        let before = rss_kib(pid);
        let tally = Arc::new(Tally::default());
        let started = Instant::now();
        let deadline = started + sizes.http_duration;
        let connected = Arc::new(AtomicUsize::new(0));
        let mut clients = Vec::new();
        for _ in 0..sizes.http_clients {
            let url = url.clone();
            let tally = tally.clone();
            let counter = counter.clone();
            let connected = connected.clone();
            clients.push(tokio::spawn(async move {
                let config = StreamableHttpClientTransportConfig::with_uri(url).auth_header(TOKEN);
                let client = ()
                    .serve_with_lifecycle(
                        StreamableHttpClientTransport::from_config(config),
                        ClientLifecycleMode::Discover {
                            preferred_versions: vec![ProtocolVersion::V_2026_07_28],
                        },
                    )
                    .await
                    .expect("client connects");
                connected.fetch_add(1, Ordering::Relaxed);
                // At least one call each, however long connecting took.
                loop {
                    let n = counter.fetch_add(1, Ordering::Relaxed);
                    let (result, took) = call(client.peer(), n).await;
                    tally.record(n, result, took, faults);
                    if Instant::now() >= deadline {
                        break;
                    }
                }
                let _ = client.cancel().await;
            }));
        }
        for c in clients {
            c.await.unwrap();
        }
        let elapsed = started.elapsed();
        fake.clear_faults();
        let after = rss_kib(pid);
        let name = format!(
            "HTTP, {} clients{}",
            connected.load(Ordering::Relaxed),
            match (faults, phase) {
                (true, _) => ", 5% faults",
                (false, 0) => "",
                (false, _) => ", again without faults",
            }
        );
        fine &= tally.report(&name, elapsed, (before, after));
    }
    // Memory once the load is gone and the server has had a moment.
    tokio::time::sleep(Duration::from_secs(2)).await;
    println!(
        "server VmRSS over HTTP: {:.1} MiB idle before the load, {:.1} MiB idle after it",
        idle as f64 / 1024.0,
        rss_kib(pid) as f64 / 1024.0
    );
    let _ = child.kill().await;
    fine
}

/// 5% of GitLab requests fail, in ways a GET is retried through.
fn inject_faults(fake: &FakeGitLab) {
    let each = 0.01;
    fake.inject(Fault::status(503).retry_after(0).chance(each));
    fake.inject(Fault::status(502).retry_after(0).chance(each));
    fake.inject(Fault::status(429).retry_after(0).chance(each));
    fake.inject(Fault::reset().chance(each));
    fake.inject(Fault::truncated(4096, "[{\"id\": 1, ").chance(each));
}

async fn start_http(fake: &FakeGitLab) -> (tokio::process::Child, String, u32) {
    let mut child = Command::new(std::env::var("GITLAB_MCP_BIN").unwrap_or_else(|_| BIN.into()))
        // One token for every client: real ones would each have their own.
        .args([
            "serve",
            "--http",
            "127.0.0.1:0",
            "--max-requests",
            "1024",
            "--max-requests-per-token",
            "1024",
        ])
        .env_clear()
        .env("PATH", std::env::var("PATH").unwrap_or_default())
        .env("GITLAB_URL", fake.url())
        .env("RUST_LOG", "warn")
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .expect("spawn gitlab-mcp serve --http");
    let pid = child.id().expect("pid");
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
    // Keep draining its log so it never blocks on a full pipe.
    tokio::spawn(async move { while let Ok(Some(_)) = lines.next_line().await {} });
    (child, format!("http://{addr}/mcp"), pid)
}

//! The HTTP server's memory against the number of sessions at once: 1,
//! 100 and 1,000 clients, each with its own connection, all calling
//! `gitlab_issue get` together (nginx answering as GitLab), stateless and
//! `--stateful` (where each client first opens a session and keeps it).
//! For each, a fresh `serve --http`: its RSS idle, its peak (`VmHWM`) and
//! its RSS after the calls (`VmRSS`), from `/proc/<pid>/status`.
//!
//! `cargo bench --bench session_memory` (the release binary;
//! `SESSION_MEMORY_BIN` for another build). `cargo test --bench
//! session_memory` runs 1 and 20 clients on the test build, as a check
//! that the harness works.

#[path = "common/nginx.rs"]
mod nginx;
#[path = "common/proc_status.rs"]
mod proc_status;

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};

use nginx::{Nginx, free_port, wait_for_port};
use serde_json::{Value, json};

const ROOT: &str = env!("CARGO_MANIFEST_DIR");
const MIB: f64 = 1024.0 * 1024.0;
const PROTOCOL: &str = "2025-11-25";

fn main() {
    let full = std::env::args().any(|a| a == "--bench");
    let counts: Vec<usize> = if full {
        vec![1, 100, 1000]
    } else {
        vec![1, 20]
    };
    let bin = std::env::var("SESSION_MEMORY_BIN")
        .map(PathBuf::from)
        .unwrap_or_else(|_| PathBuf::from(env!("CARGO_BIN_EXE_gitlab-mcp")));
    let status = Command::new(Path::new(ROOT).join("scripts/perf-tools.sh"))
        .status()
        .expect("run scripts/perf-tools.sh");
    assert!(status.success(), "nginx is needed");
    let scratch = std::env::temp_dir().join(format!("session-memory-{}", std::process::id()));
    std::fs::create_dir_all(&scratch).expect("scratch directory");
    let issue = Path::new(ROOT).join("benches/data/issue.json");
    let mut gitlab = Nginx::start(
        &scratch,
        &[("/api/v4/projects/1/issues/3", "application/json", &issue)],
    );
    // reqwest is built without a crypto provider (plain HTTP here).
    let _ = rustls::crypto::ring::default_provider().install_default();
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("a runtime");
    println!(
        "HTTP server memory with N clients at once ({})",
        bin.display()
    );
    println!("| mode | clients | idle RSS (MiB) | peak RSS (MiB) | RSS after (MiB) |");
    println!("|---|---:|---:|---:|---:|");
    for stateful in [false, true] {
        for &clients in &counts {
            let server = Server::start(&bin, &gitlab.url, stateful);
            let idle = server.status("VmRSS");
            runtime.block_on(run_clients(&server.url, clients, stateful));
            println!(
                "| {} | {clients} | {:.1} | {:.1} | {:.1} |",
                if stateful { "--stateful" } else { "stateless" },
                idle as f64 / MIB,
                server.status("VmHWM") as f64 / MIB,
                server.status("VmRSS") as f64 / MIB,
            );
        }
    }
    let stopped = gitlab.stop();
    assert_eq!(
        stopped.survivors,
        Vec::<u32>::new(),
        "nginx workers left running"
    );
    let _ = std::fs::remove_dir_all(&scratch);
}

/// `clients` clients at once, each on its own connection: with sessions,
/// `initialize` and `notifications/initialized` first, then one call.
async fn run_clients(url: &str, clients: usize, stateful: bool) {
    let barrier = std::sync::Arc::new(tokio::sync::Barrier::new(clients));
    let tasks: Vec<_> = (0..clients)
        .map(|_| {
            let (url, barrier) = (url.to_string(), barrier.clone());
            tokio::spawn(async move {
                let http = reqwest::Client::builder()
                    .pool_max_idle_per_host(1)
                    .build()
                    .expect("a client");
                let session = if stateful {
                    let (answer, session) = post(&http, &url, None, &initialize()).await;
                    assert!(answer.get("result").is_some(), "{answer}");
                    let session = session.expect("a session id");
                    let notification =
                        json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
                    post(&http, &url, Some(&session), &notification).await;
                    Some(session)
                } else {
                    None
                };
                barrier.wait().await;
                let call = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {
                    "name": "gitlab_issue",
                    "arguments": {"action": "get", "params": {"project_id": 1, "issue_iid": 3}}}});
                let (answer, _) = post(&http, &url, session.as_deref(), &call).await;
                assert_eq!(answer["result"]["isError"], false, "{answer}");
                // Hold the connection (and session) until every client is done.
                barrier.wait().await;
                drop(http);
            })
        })
        .collect();
    for task in tasks {
        task.await.expect("a client");
    }
}

fn initialize() -> Value {
    json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": PROTOCOL, "capabilities": {},
        "clientInfo": {"name": "session-memory", "version": "1"}}})
}

/// One JSON-RPC POST: the answer (JSON, or the data of an event stream)
/// and the session id the server gave.
async fn post(
    http: &reqwest::Client,
    url: &str,
    session: Option<&str>,
    body: &Value,
) -> (Value, Option<String>) {
    let mut request = http
        .post(url)
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .header("mcp-protocol-version", PROTOCOL)
        .header("private-token", "glpat-bench")
        .body(body.to_string());
    if let Some(session) = session {
        request = request.header("mcp-session-id", session);
    }
    let response = request.send().await.expect("the server answers");
    let session = response
        .headers()
        .get("mcp-session-id")
        .and_then(|v| v.to_str().ok())
        .map(str::to_string);
    let text = response.text().await.expect("a body");
    let json = text
        .lines()
        .filter_map(|l| l.strip_prefix("data:"))
        .map(str::trim)
        .find(|l| !l.is_empty())
        .unwrap_or(text.trim());
    (serde_json::from_str(json).unwrap_or(Value::Null), session)
}

/// `serve --http`, its address and bounds wide enough for 1,000 clients.
struct Server {
    child: Child,
    url: String,
}

impl Server {
    fn start(bin: &Path, gitlab: &str, stateful: bool) -> Server {
        let port = free_port();
        let mut command = Command::new(bin);
        command
            .args(["serve", "--http", &format!("127.0.0.1:{port}")])
            .args(["--max-requests", "2048", "--max-requests-per-token", "2048"])
            .env_clear()
            .env("PATH", std::env::var("PATH").unwrap_or_default())
            .env("GITLAB_URL", gitlab)
            .env("RUST_LOG", "error")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null());
        if stateful {
            command.args(["--stateful", "--max-sessions", "2048"]);
        }
        let mut child = command.spawn().expect("start the server");
        if let Err(problem) = wait_for_port(port, &mut child) {
            panic!("the HTTP server {problem}");
        }
        Server {
            child,
            url: format!("http://127.0.0.1:{port}/mcp"),
        }
    }

    /// A `/proc/<pid>/status` figure, in bytes.
    fn status(&self, key: &str) -> u64 {
        proc_status::proc_status(self.child.id(), key)
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

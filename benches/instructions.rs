//! Instructions per call, counted by callgrind: what the server itself
//! spends on one `gitlab_issue get`, over stdio and over streamable HTTP.
//!
//! Wall-clock figures on a shared 2-core machine move by a third from run
//! to run; instruction counts do not (the same binary, input and
//! environment give the same count, whatever else the machine does). So
//! this benchmark runs the server under `valgrind --tool=callgrind` twice
//! per transport, once with no call and once with N calls one after
//! another, against a fixed GitLab (nginx serving `benches/data/issue.json`
//! on loopback, so nothing but the server changes between builds), and
//! reports `(Ir(N) - Ir(0)) / N`: start-up and shutdown cancel out.
//!
//! - stdio: JSON-RPC lines written to the server's stdin (`initialize`,
//!   then N `tools/call`s, each after the previous answer).
//! - HTTP: `serve --http`, stateless, driven by the official Python MCP
//!   client (`scripts/python-sdk.sh --perf`) in its 2026-07-28 mode, the
//!   GitLab token in a `Private-Token` header on every request. Twice: as
//!   served (its plain tool calls answered without rmcp's per-request
//!   service, `src/mcp/direct_call.rs`) and with `--rmcp-only` (every
//!   request through rmcp's service), so one run shows the difference.
//!
//! Run: `cargo bench --bench instructions` (N = 500, both transports; the
//! release binary). `scripts/perf-tools.sh` installs valgrind and nginx
//! from Debian's packages when they are missing. `cargo test --bench
//! instructions` runs a brief check on the test build (N = 5) that only
//! shows the harness works; its counts are a debug build's.
//!
//! With `INSTRUCTIONS_MAX=N`, the run fails when stdio takes more than N
//! instructions per call: CI's smoke check (`.ci/run`, on the `ci-perf`
//! build; BENCHMARKS.md says how its bound was set).
//!
//! With `INSTRUCTIONS_OUT=DIR`, each run's callgrind file is kept there,
//! for `callgrind_annotate --inclusive=yes` (see BENCHMARKS.md for the
//! breakdown and the command; build with `--profile profiling` for
//! symbols and point `INSTRUCTIONS_BIN` at that binary).

#[path = "common/nginx.rs"]
mod nginx;

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use nginx::{Nginx, free_port, wait_for_port};
use std::time::{Duration, Instant};

const TOKEN: &str = "glpat-alice";
const ROOT: &str = env!("CARGO_MANIFEST_DIR");

fn main() {
    let full = std::env::args().any(|a| a == "--bench");
    let calls: u64 = std::env::var("INSTRUCTIONS_CALLS")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(if full { 500 } else { 5 });
    let bin = std::env::var("INSTRUCTIONS_BIN")
        .map(PathBuf::from)
        .unwrap_or_else(|_| PathBuf::from(env!("CARGO_BIN_EXE_gitlab-mcp")));
    let only = std::env::var("INSTRUCTIONS_ONLY").ok();
    // `INSTRUCTIONS_LIST=N`: each call lists N issues instead (stdio only).
    let list_size: Option<usize> = std::env::var("INSTRUCTIONS_LIST")
        .ok()
        .and_then(|n| n.parse().ok());

    let status = Command::new(Path::new(ROOT).join("scripts/perf-tools.sh"))
        .status()
        .expect("run scripts/perf-tools.sh");
    assert!(status.success(), "valgrind and nginx are needed");

    let scratch = tempdir();
    let issue = Path::new(ROOT).join("benches/data/issue.json");
    let list = scratch.join("issues.json");
    std::fs::write(&list, issue_list(&issue, list_size.unwrap_or(1))).expect("the list");
    let mut gitlab = Nginx::start(
        &scratch,
        &[
            ("/api/v4/projects/1/issues/3", "application/json", &issue),
            ("/api/v4/projects/1/issues", "application/json", &list),
        ],
    );
    let out_dir = std::env::var("INSTRUCTIONS_OUT").ok().map(PathBuf::from);

    let call = match list_size {
        Some(n) => format!(
            r#"{{"name":"gitlab_issue","arguments":{{"action":"list","params":{{"project_id":1,"per_page":{n}}}}}}}"#
        ),
        None => GET_ISSUE.to_string(),
    };
    println!(
        "instructions per `gitlab_issue {}` (callgrind, {} calls, {})",
        list_size.map_or("get".to_string(), |n| format!("list` of {n} issues")),
        calls,
        bin.display()
    );
    println!("| path | Ir with 0 calls | Ir with {calls} calls | per call |");
    println!("|---|---:|---:|---:|");
    let mut stdio_per_call = None;
    if only.as_deref() != Some("http") {
        let idle = stdio_run(&bin, &gitlab.url, &call, 0, &scratch, out_dir.as_deref());
        let busy = stdio_run(
            &bin,
            &gitlab.url,
            &call,
            calls,
            &scratch,
            out_dir.as_deref(),
        );
        let per_call = row("stdio", idle, busy, calls);
        stdio_per_call = Some(per_call);
    }
    if only.as_deref() != Some("stdio") && list_size.is_none() {
        for (label, rmcp_only) in [
            ("streamable HTTP, stateless, per-request token", false),
            ("the same, `--rmcp-only`", true),
        ] {
            let run = |calls| {
                let http = Http {
                    bin: &bin,
                    gitlab: &gitlab.url,
                    rmcp_only,
                };
                http.run(calls, &scratch, out_dir.as_deref())
            };
            row(label, run(0), run(calls), calls);
        }
    }
    let stopped = gitlab.stop();
    // One worker was running, and none is left: a worker orphaned by its
    // master would hold this process's output open.
    assert_eq!(stopped.workers.len(), 1, "nginx's workers: {stopped:?}");
    assert_eq!(
        stopped.survivors,
        Vec::<u32>::new(),
        "nginx workers left running"
    );
    let _ = std::fs::remove_dir_all(&scratch);
    // CI's smoke check (.ci/run): the stdio count against its bound.
    if let Some(max) = std::env::var("INSTRUCTIONS_MAX")
        .ok()
        .and_then(|n| n.parse::<u64>().ok())
    {
        let measured = stdio_per_call.expect("INSTRUCTIONS_MAX checks the stdio count");
        assert!(
            measured <= max,
            "stdio: {measured} instructions per call, over the bound of {max} (BENCHMARKS.md)"
        );
        println!("stdio: {measured} instructions per call, within the bound of {max}");
    }
}

/// Prints a row of the table; the instructions per call.
fn row(path: &str, idle: u64, busy: u64, calls: u64) -> u64 {
    let per_call = busy.saturating_sub(idle) / calls.max(1);
    println!("| {path} | {idle} | {busy} | {per_call} |");
    per_call
}

/// A scratch directory of this run.
fn tempdir() -> PathBuf {
    let dir = std::env::temp_dir().join(format!("gitlab-mcp-instructions-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("scratch directory");
    dir
}

/// Waits until `GET /healthz` answers 200.
fn wait_for_health(port: u16) {
    use std::io::Read;
    let deadline = Instant::now() + Duration::from_secs(120);
    loop {
        if let Ok(mut stream) = std::net::TcpStream::connect(("127.0.0.1", port)) {
            let _ = stream.set_read_timeout(Some(Duration::from_secs(30)));
            let request = format!(
                "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nConnection: close\r\n\r\n"
            );
            let mut answer = String::new();
            if stream.write_all(request.as_bytes()).is_ok()
                && stream.read_to_string(&mut answer).is_ok()
                && answer.starts_with("HTTP/1.1 200")
            {
                return;
            }
        }
        assert!(Instant::now() < deadline, "/healthz never answered 200");
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// The server under callgrind, its output file beside the scratch files.
fn callgrind(bin: &Path, out: &Path) -> Command {
    let mut cmd = Command::new("valgrind");
    cmd.arg("--tool=callgrind")
        .arg(format!("--callgrind-out-file={}", out.display()))
        .arg("--quiet")
        .arg(bin);
    cmd.env_clear()
        .env("PATH", std::env::var("PATH").unwrap_or_default())
        .env("GITLAB_TOKEN", TOKEN)
        .env("RUST_LOG", "warn");
    cmd
}

/// The total instruction count callgrind wrote (`summary:` or `totals:`).
fn total_ir(out: &Path) -> u64 {
    let text = std::fs::read_to_string(out).expect("read the callgrind file");
    text.lines()
        .find_map(|l| {
            l.strip_prefix("summary:")
                .or_else(|| l.strip_prefix("totals:"))
        })
        .and_then(|v| v.split_whitespace().next()?.parse().ok())
        .expect("a summary line in the callgrind file")
}

fn keep(out: &Path, dir: Option<&Path>, name: &str) {
    if let Some(dir) = dir {
        std::fs::create_dir_all(dir).expect("INSTRUCTIONS_OUT");
        std::fs::copy(out, dir.join(name)).expect("keep the callgrind file");
    }
}

const INITIALIZE: &str = r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"instructions","version":"1"}}}"#;
const INITIALIZED: &str = r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#;

const GET_ISSUE: &str = r#"{"name":"gitlab_issue","arguments":{"action":"get","params":{"project_id":1,"issue_iid":3}}}"#;

fn call_line(id: u64, call: &str) -> String {
    format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{call}}}"#)
}

/// A page of `n` issues: the benchmark's issue with iids 1..=n.
fn issue_list(issue: &Path, n: usize) -> String {
    let issue: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(issue).expect("the issue")).expect("JSON");
    let items: Vec<serde_json::Value> = (1..=n)
        .map(|iid| {
            let mut item = issue.clone();
            item["iid"] = iid.into();
            item["id"] = (100 + iid).into();
            item
        })
        .collect();
    serde_json::to_string(&items).expect("a list")
}

/// `serve` over stdio: the handshake, `calls` calls one after another, EOF.
fn stdio_run(
    bin: &Path,
    gitlab: &str,
    call: &str,
    calls: u64,
    scratch: &Path,
    keep_in: Option<&Path>,
) -> u64 {
    let out = scratch.join(format!("stdio-{calls}.callgrind"));
    let mut child = callgrind(bin, &out)
        .arg("serve")
        .env("GITLAB_URL", gitlab)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .expect("start valgrind");
    let mut stdin = child.stdin.take().expect("stdin");
    let mut stdout = BufReader::new(child.stdout.take().expect("stdout"));
    let mut line = String::new();
    let mut answer = |stdout: &mut BufReader<_>, id: u64| loop {
        line.clear();
        let n = stdout.read_line(&mut line).expect("read an answer");
        assert!(n > 0, "the server closed stdout before answering {id}");
        if line.contains(&format!("\"id\":{id}")) {
            assert!(
                !line.contains("\"isError\":true"),
                "call {id} failed: {line}"
            );
            return;
        }
    };
    writeln!(stdin, "{INITIALIZE}").unwrap();
    answer(&mut stdout, 0);
    writeln!(stdin, "{INITIALIZED}").unwrap();
    for id in 1..=calls {
        writeln!(stdin, "{}", call_line(id, call)).unwrap();
        answer(&mut stdout, id);
    }
    drop(stdin);
    let status = child.wait().expect("valgrind exits");
    assert!(status.success(), "the server under valgrind: {status}");
    keep(&out, keep_in, &format!("stdio-{calls}.callgrind"));
    total_ir(&out)
}

/// `serve --http` (stateless): `calls` calls of the official Python client.
/// The HTTP server to count.
struct Http<'a> {
    bin: &'a Path,
    gitlab: &'a str,
    rmcp_only: bool,
}

impl Http<'_> {
    fn run(&self, calls: u64, scratch: &Path, keep_in: Option<&Path>) -> u64 {
        let name = match self.rmcp_only {
            false => format!("http-{calls}.callgrind"),
            true => format!("http-rmcp-{calls}.callgrind"),
        };
        let out = scratch.join(&name);
        let port = free_port();
        let mut server = callgrind(self.bin, &out);
        server
            .arg("serve")
            .arg("--http")
            .arg(format!("127.0.0.1:{port}"))
            .env("GITLAB_URL", self.gitlab)
            // Each request brings its token: none is configured on the server.
            .env_remove("GITLAB_TOKEN")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::inherit());
        if self.rmcp_only {
            server.arg("--rmcp-only");
        }
        let mut server = server.spawn().expect("start valgrind");
        if let Err(problem) = wait_for_port(port, &mut server) {
            panic!("the HTTP server under valgrind {problem}");
        }
        // Once /healthz answers, the server is fully up (its SIGTERM handler
        // included); both runs make this one request, so it cancels out.
        wait_for_health(port);
        if calls > 0 {
            let status = Command::new(Path::new(ROOT).join("scripts/python-sdk.sh"))
                .arg("--perf")
                .arg(format!("http://127.0.0.1:{port}/mcp"))
                .arg(calls.to_string())
                .env("GITLAB_TOKEN", TOKEN)
                .status()
                .expect("run the Python client");
            assert!(status.success(), "the Python client's calls");
        }
        // SIGTERM: the server drains and exits, and callgrind writes its file.
        let _ = Command::new("kill")
            .arg("-TERM")
            .arg(server.id().to_string())
            .status();
        let status = server.wait().expect("valgrind exits");
        assert!(status.success(), "the HTTP server under valgrind: {status}");
        keep(&out, keep_in, &name);
        total_ir(&out)
    }
}

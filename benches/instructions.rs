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
//!   GitLab token in a `Private-Token` header on every request.
//!
//! Run: `cargo bench --bench instructions` (N = 500, both transports; the
//! release binary). `scripts/perf-tools.sh` installs valgrind and nginx
//! from Debian's packages when they are missing. `cargo test --bench
//! instructions` runs a brief check on the test build (N = 5) that only
//! shows the harness works; its counts are a debug build's.
//!
//! With `INSTRUCTIONS_OUT=DIR`, each run's callgrind file is kept there,
//! for `callgrind_annotate --inclusive=yes` (see BENCHMARKS.md for the
//! breakdown and the command; build with `--profile profiling` for
//! symbols and point `INSTRUCTIONS_BIN` at that binary).

use std::io::{BufRead, BufReader, Write};
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
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

    let status = Command::new(Path::new(ROOT).join("scripts/perf-tools.sh"))
        .status()
        .expect("run scripts/perf-tools.sh");
    assert!(status.success(), "valgrind and nginx are needed");

    let scratch = tempdir();
    let mut gitlab = Nginx::start(&scratch);
    let out_dir = std::env::var("INSTRUCTIONS_OUT").ok().map(PathBuf::from);

    println!(
        "instructions per `gitlab_issue get` (callgrind, {} calls, {})",
        calls,
        bin.display()
    );
    println!("| path | Ir with 0 calls | Ir with {calls} calls | per call |");
    println!("|---|---:|---:|---:|");
    if only.as_deref() != Some("http") {
        let idle = stdio_run(&bin, &gitlab.url, 0, &scratch, out_dir.as_deref());
        let busy = stdio_run(&bin, &gitlab.url, calls, &scratch, out_dir.as_deref());
        row("stdio", idle, busy, calls);
    }
    if only.as_deref() != Some("stdio") {
        let idle = http_run(&bin, &gitlab.url, 0, &scratch, out_dir.as_deref());
        let busy = http_run(&bin, &gitlab.url, calls, &scratch, out_dir.as_deref());
        row(
            "streamable HTTP, stateless, per-request token",
            idle,
            busy,
            calls,
        );
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
}

fn row(path: &str, idle: u64, busy: u64, calls: u64) {
    let per_call = busy.saturating_sub(idle) / calls.max(1);
    println!("| {path} | {idle} | {busy} | {per_call} |");
}

/// A scratch directory of this run.
fn tempdir() -> PathBuf {
    let dir = std::env::temp_dir().join(format!("gitlab-mcp-instructions-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("scratch directory");
    dir
}

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .expect("a free port")
}

/// nginx on loopback answering the issue with GitLab's headers, kept alive.
/// It runs in the foreground (`daemon off`) as a master and one worker;
/// `stop` (also on drop) shuts both down and waits, so no worker outlives
/// the benchmark holding its output open.
struct Nginx {
    child: Child,
    url: String,
    stopped: bool,
}

impl Nginx {
    fn start(scratch: &Path) -> Nginx {
        let port = free_port();
        let issue = Path::new(ROOT).join("benches/data/issue.json");
        let conf = scratch.join("nginx.conf");
        std::fs::write(
            &conf,
            format!(
                "daemon off;\nmaster_process on;\nworker_processes 1;\n\
                 error_log {errors} error;\npid {pid};\n\
                 events {{ worker_connections 256; }}\n\
                 http {{\n  access_log off;\n  keepalive_requests 100000;\n  \
                 client_body_temp_path {tmp}; proxy_temp_path {tmp}; fastcgi_temp_path {tmp}; \
                 uwsgi_temp_path {tmp}; scgi_temp_path {tmp};\n  \
                 server {{\n    listen 127.0.0.1:{port};\n    \
                 location = /api/v4/projects/1/issues/3 {{\n      \
                 default_type application/json;\n      \
                 add_header X-Request-Id 01BENCH0000000000000000001;\n      \
                 alias {issue};\n    }}\n  }}\n}}\n",
                errors = scratch.join("nginx-error.log").display(),
                pid = scratch.join("nginx.pid").display(),
                tmp = scratch.display(),
                issue = issue.display(),
            ),
        )
        .expect("write nginx.conf");
        let nginx = if Path::new("/usr/sbin/nginx").exists() {
            "/usr/sbin/nginx"
        } else {
            "nginx"
        };
        // None of the benchmark's own streams: a process that kept one
        // would keep a `cargo test | grep` waiting.
        let stderr =
            std::fs::File::create(scratch.join("nginx-stderr.log")).expect("nginx's stderr");
        let child = Command::new(nginx)
            .arg("-c")
            .arg(&conf)
            .arg("-p")
            .arg(scratch)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(stderr)
            .spawn()
            .expect("start nginx");
        let url = format!("http://127.0.0.1:{port}");
        let mut nginx = Nginx {
            child,
            url,
            stopped: false,
        };
        if let Err(problem) = wait_for_port(port, &mut nginx.child) {
            let said =
                std::fs::read_to_string(scratch.join("nginx-stderr.log")).unwrap_or_default();
            panic!("nginx: {problem}; it said: {said}");
        }
        nginx
    }

    /// Fast shutdown (SIGTERM): the master stops its workers, waits for
    /// them, then exits. Says which workers there were and which are still
    /// alive afterwards (none, unless this went wrong).
    fn stop(&mut self) -> Stopped {
        if self.stopped {
            return Stopped::default();
        }
        self.stopped = true;
        let master = self.child.id();
        let workers = children_of(master);
        let _ = Command::new("kill")
            .arg("-TERM")
            .arg(master.to_string())
            .status();
        let deadline = Instant::now() + Duration::from_secs(30);
        while self.child.try_wait().ok().flatten().is_none() {
            if Instant::now() > deadline {
                // Then the hard way: the workers first, then the master.
                for pid in workers.iter().chain([&master]) {
                    let _ = Command::new("kill")
                        .arg("-KILL")
                        .arg(pid.to_string())
                        .status();
                }
                let _ = self.child.wait();
                break;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        // A worker is reaped by its master before the master exits; give
        // the kernel a moment to drop one that was orphaned anyway.
        let settle = Instant::now() + Duration::from_secs(5);
        loop {
            let survivors: Vec<u32> = workers.iter().copied().filter(|&p| is_nginx(p)).collect();
            if survivors.is_empty() || Instant::now() > settle {
                return Stopped { workers, survivors };
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

impl Drop for Nginx {
    fn drop(&mut self) {
        let stopped = self.stop();
        if !stopped.survivors.is_empty() {
            eprintln!("nginx workers survived their master: {stopped:?}");
        }
    }
}

/// nginx's workers when it was stopped, and those still alive after.
#[derive(Debug, Default)]
struct Stopped {
    workers: Vec<u32>,
    survivors: Vec<u32>,
}

/// The processes whose parent is `parent` (from `/proc/<pid>/stat`).
fn children_of(parent: u32) -> Vec<u32> {
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    entries
        .filter_map(|e| e.ok()?.file_name().to_str()?.parse::<u32>().ok())
        .filter(|&pid| parent_of(pid) == Some(parent))
        .collect()
}

/// The parent of `pid`: the field after the state, after the `)` that
/// ends the command name.
fn parent_of(pid: u32) -> Option<u32> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let (_, rest) = stat.rsplit_once(')')?;
    rest.split_whitespace().nth(1)?.parse().ok()
}

/// Whether `pid` is a live (not zombie) nginx process.
fn is_nginx(pid: u32) -> bool {
    let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else {
        return false;
    };
    let state = stat
        .rsplit_once(')')
        .and_then(|(_, rest)| rest.split_whitespace().next());
    stat.contains("(nginx") && state != Some("Z")
}

/// Waits until something listens on `port`; `Err` when `child` exits
/// first or two minutes pass.
fn wait_for_port(port: u16, child: &mut Child) -> Result<(), String> {
    let deadline = Instant::now() + Duration::from_secs(120);
    while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
        if let Ok(Some(status)) = child.try_wait() {
            return Err(format!("exited before listening on {port}: {status}"));
        }
        if Instant::now() > deadline {
            return Err(format!("nothing listens on {port}"));
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    Ok(())
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

fn call_line(id: u64) -> String {
    format!(
        r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"gitlab_issue","arguments":{{"action":"get","params":{{"project_id":1,"issue_iid":3}}}}}}}}"#
    )
}

/// `serve` over stdio: the handshake, `calls` calls one after another, EOF.
fn stdio_run(bin: &Path, gitlab: &str, calls: u64, scratch: &Path, keep_in: Option<&Path>) -> u64 {
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
        writeln!(stdin, "{}", call_line(id)).unwrap();
        answer(&mut stdout, id);
    }
    drop(stdin);
    let status = child.wait().expect("valgrind exits");
    assert!(status.success(), "the server under valgrind: {status}");
    keep(&out, keep_in, &format!("stdio-{calls}.callgrind"));
    total_ir(&out)
}

/// `serve --http` (stateless): `calls` calls of the official Python client.
fn http_run(bin: &Path, gitlab: &str, calls: u64, scratch: &Path, keep_in: Option<&Path>) -> u64 {
    let out = scratch.join(format!("http-{calls}.callgrind"));
    let port = free_port();
    let mut server = callgrind(bin, &out)
        .arg("serve")
        .arg("--http")
        .arg(format!("127.0.0.1:{port}"))
        .env("GITLAB_URL", gitlab)
        // Each request brings its token: none is configured on the server.
        .env_remove("GITLAB_TOKEN")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::inherit())
        .spawn()
        .expect("start valgrind");
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
    keep(&out, keep_in, &format!("http-{calls}.callgrind"));
    total_ir(&out)
}

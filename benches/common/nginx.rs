//! nginx as a fixed GitLab for the benchmarks that count (instructions,
//! memory): nothing but the measured server changes between builds. Shared
//! by `benches/instructions.rs` and `benches/log_memory.rs` (`#[path]`).
//! `scripts/perf-tools.sh` installs it from Debian's packages.

#![allow(dead_code)]

use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// nginx on loopback serving files at GitLab's paths with GitLab's
/// headers, kept alive; each request's `$bytes_sent` in its access log.
/// It runs in the foreground (`daemon off`) as a master and one worker;
/// `stop` (also on drop) shuts both down and waits, so no worker outlives
/// the benchmark holding its output open.
pub struct Nginx {
    child: Child,
    pub url: String,
    access_log: PathBuf,
    stopped: bool,
}

impl Nginx {
    /// Serves each `(path, content type, file)`.
    pub fn start(scratch: &Path, files: &[(&str, &str, &Path)]) -> Nginx {
        let port = free_port();
        let conf = scratch.join("nginx.conf");
        let access_log = scratch.join("nginx-access.log");
        let locations: String = files
            .iter()
            .map(|(path, content_type, file)| {
                format!(
                    "    location = {path} {{\n      default_type {content_type};\n      \
                     add_header X-Request-Id 01BENCH0000000000000000001;\n      \
                     alias {};\n    }}\n",
                    file.display()
                )
            })
            .collect();
        std::fs::write(
            &conf,
            format!(
                "daemon off;\nmaster_process on;\nworker_processes 1;\n\
                 error_log {errors} error;\npid {pid};\n\
                 events {{ worker_connections 256; }}\n\
                 http {{\n  log_format sent '$request_uri $bytes_sent';\n  \
                 access_log {access} sent;\n  keepalive_requests 100000;\n  \
                 client_body_temp_path {tmp}; proxy_temp_path {tmp}; fastcgi_temp_path {tmp}; \
                 uwsgi_temp_path {tmp}; scgi_temp_path {tmp};\n  \
                 server {{\n    listen 127.0.0.1:{port};\n{locations}  }}\n}}\n",
                access = access_log.display(),
                errors = scratch.join("nginx-error.log").display(),
                pid = scratch.join("nginx.pid").display(),
                tmp = scratch.display(),
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
            access_log,
            stopped: false,
        };
        if let Err(problem) = wait_for_port(port, &mut nginx.child) {
            let said =
                std::fs::read_to_string(scratch.join("nginx-stderr.log")).unwrap_or_default();
            panic!("nginx: {problem}; it said: {said}");
        }
        nginx
    }

    /// The bytes sent for each request so far (URI, bytes), in order.
    pub fn bytes_sent(&self) -> Vec<(String, u64)> {
        std::fs::read_to_string(&self.access_log)
            .unwrap_or_default()
            .lines()
            .filter_map(|line| {
                let (uri, bytes) = line.rsplit_once(' ')?;
                Some((uri.to_string(), bytes.parse().ok()?))
            })
            .collect()
    }

    /// Fast shutdown (SIGTERM): the master stops its workers, waits for
    /// them, then exits. Says which workers there were and which are still
    /// alive afterwards (none, unless this went wrong).
    pub fn stop(&mut self) -> Stopped {
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
pub struct Stopped {
    pub workers: Vec<u32>,
    pub survivors: Vec<u32>,
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
pub fn wait_for_port(port: u16, child: &mut Child) -> Result<(), String> {
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

pub fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .expect("a free port")
}

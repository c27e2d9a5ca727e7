//! Memory that does not grow with the answer: a job log of tens or
//! hundreds of megabytes, served by nginx, answered through its window.
//!
//! For each log size, one `gitlab-mcp serve` over stdio (a fresh process,
//! so its peak is this call's): the handshake and one small call (the
//! connection pool warm), then its idle RSS (`VmRSS` in `/proc/<pid>/status`);
//! then `gitlab_pipeline job_log` with `lines: "-50"`, timed (wall and
//! the server's CPU time), and the
//! server's peak RSS (`VmHWM`); then `gitlab_repository file_raw` of the
//! same bytes with `lines: "1-40"`, and how many bytes nginx sent for it
//! (its access log's `$bytes_sent`): the reading stops after the range.
//!
//! `cargo bench --bench log_memory`: 50, 100 and 200 MB, the release
//! binary (`LOG_MEMORY_BIN` to measure another build, such as an older
//! one). `cargo test --bench log_memory` (CI): one 20 MB log on the test
//! build, with the same bounds asserted: peak within 30 MB of idle (the
//! whole-body reading peaked at about twice the log), and at most 8 MB
//! sent for 40 lines. The logs are generated into the target directory at
//! run time and removed afterwards.
//!
//! Then, each in a fresh server, `gitlab_repository compare` of a diff of
//! the same size (GitLab does not paginate `compare`) and
//! `gitlab_pipeline job_artifact_list` of an artifacts archive of the same
//! size: their CPU time and peak RSS above idle, with the same bound, since
//! only the files the answer shows are kept as a diff streams, and only
//! its end (where the file list is) as an archive streams. Under `cargo
//! test` the archive is 40 MB, past the bound, since its 8 MiB window is
//! most of a 20 MB archive.

#[path = "common/nginx.rs"]
mod nginx;
#[path = "common/proc_status.rs"]
mod proc_status;

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::time::Instant;

use nginx::Nginx;

const ROOT: &str = env!("CARGO_MANIFEST_DIR");
const MB: u64 = 1024 * 1024;
/// The most a log answer may add to the server's idle memory.
const PEAK_ABOVE_IDLE: u64 = 30 * MB;
/// The most nginx may send for the first 40 lines of a long file.
const RANGE_BYTES: u64 = 8 * MB;

fn main() {
    let full = std::env::args().any(|a| a == "--bench");
    let sizes: Vec<u64> = if full { vec![50, 100, 200] } else { vec![20] };
    let bin = std::env::var("LOG_MEMORY_BIN")
        .map(PathBuf::from)
        .unwrap_or_else(|_| PathBuf::from(env!("CARGO_BIN_EXE_gitlab-mcp")));
    let status = Command::new(Path::new(ROOT).join("scripts/perf-tools.sh"))
        .status()
        .expect("run scripts/perf-tools.sh");
    assert!(status.success(), "nginx is needed");

    let scratch = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("log-memory-{}", std::process::id()));
    std::fs::create_dir_all(&scratch).expect("scratch directory");
    let log = scratch.join("job.log");
    let compare = scratch.join("compare.json");
    let archive = scratch.join("artifacts.zip");
    let mut gitlab = Nginx::start(
        &scratch,
        &[
            ("/api/v4/projects/1/jobs/1/trace", "text/plain", &log),
            (
                "/api/v4/projects/1/repository/files/big.txt/raw",
                "text/plain",
                &log,
            ),
            (
                "/api/v4/projects/1/repository/compare",
                "application/json",
                &compare,
            ),
            (
                "/api/v4/projects/1/jobs/1/artifacts",
                "application/zip",
                &archive,
            ),
        ],
    );
    println!(
        "a job log's last 50 lines, and a raw file's first 40 ({})",
        bin.display()
    );
    println!(
        "| log | seconds | server CPU (s) | MB/s | idle RSS (MiB) | peak RSS (MiB) | peak − idle (MiB) | nginx sent for 40 lines (bytes) | compare of this size: CPU (s) | compare: peak − idle (MiB) | archive of this size (at least 40 MB): CPU (s) | archive: peak − idle (MiB) |"
    );
    println!("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
    let mut failures = Vec::new();
    for size in sizes {
        write_log(&log, size * MB);
        let mut server = Server::start(&bin, &gitlab.url);
        server.call(
            1,
            r#"{"name":"gitlab_pipeline","arguments":{"action":"job_log","params":{"project_id":1,"job_id":1},"lines":"-1"}}"#,
        );
        let idle = server.status("VmRSS");
        let cpu_before = server.cpu_seconds();
        let started = Instant::now();
        let tail = server.call(
            2,
            r#"{"name":"gitlab_pipeline","arguments":{"action":"job_log","params":{"project_id":1,"job_id":1},"lines":"-50"}}"#,
        );
        let seconds = started.elapsed().as_secs_f64();
        let cpu = server.cpu_seconds() - cpu_before;
        let peak = server.status("VmHWM");
        assert!(
            tail.contains("step 0") && tail.contains(" of ") && !tail.contains("more than"),
            "the log's last lines, of all: {tail}"
        );
        let before = gitlab.bytes_sent().len();
        let head = server.call(
            3,
            r#"{"name":"gitlab_repository","arguments":{"action":"file_raw","params":{"project_id":1,"file_path":"big.txt","ref":"main"},"lines":"1-40"}}"#,
        );
        assert!(
            head.contains("step 00000040") && !head.contains("step 00000041"),
            "the first 40 lines: {head}"
        );
        drop(server);
        let sent = wait_for_log_line(&gitlab, before);
        let diff = compare_cost(&bin, &gitlab.url, &compare, size * MB);
        // Under `cargo test`, an archive past the bound (see above).
        let zip = archive_cost(&bin, &gitlab.url, &archive, size.max(40) * MB);
        println!(
            "| {size} MB | {seconds:.2} | {cpu:.2} | {:.0} | {:.1} | {:.1} | {:.1} | {sent} | {:.2} | {:.1} | {:.2} | {:.1} |",
            size as f64 / seconds,
            idle as f64 / MB as f64,
            peak as f64 / MB as f64,
            peak.saturating_sub(idle) as f64 / MB as f64,
            diff.cpu,
            diff.above_idle as f64 / MB as f64,
            zip.cpu,
            zip.above_idle as f64 / MB as f64,
        );
        for (what, cost) in [("compare", diff), ("archive", zip)] {
            if cost.above_idle > PEAK_ABOVE_IDLE {
                failures.push(format!(
                    "{size} MB {what}: peak {} bytes above idle",
                    cost.above_idle
                ));
            }
        }
        if peak.saturating_sub(idle) > PEAK_ABOVE_IDLE {
            failures.push(format!("{size} MB: peak {peak} bytes, idle {idle}"));
        }
        if sent > RANGE_BYTES {
            failures.push(format!("{size} MB: {sent} bytes sent for 40 lines"));
        }
    }
    let stopped = gitlab.stop();
    assert_eq!(
        stopped.survivors,
        Vec::<u32>::new(),
        "nginx workers left running"
    );
    let _ = std::fs::remove_dir_all(&scratch);
    assert!(failures.is_empty(), "over the bounds: {failures:?}");
}

/// A CI-like log of `bytes` bytes: numbered steps, colours, a redrawn
/// progress line now and then.
fn write_log(path: &Path, bytes: u64) {
    let mut out = std::io::BufWriter::new(std::fs::File::create(path).expect("the log"));
    let mut written = 0;
    let mut i = 0u64;
    while written < bytes {
        i += 1;
        let line = if i.is_multiple_of(10) {
            format!("\x1b[32;1mstep {i:08}\x1b[0;m downloading 10%\r downloading 100% done\n")
        } else {
            format!(
                "step {i:08} $ cargo test --workspace --all-targets -- a line of the job's output\n"
            )
        };
        out.write_all(line.as_bytes()).expect("write the log");
        written += line.len() as u64;
    }
    out.flush().expect("write the log");
}

/// What one call cost a fresh server.
#[derive(Clone, Copy)]
struct Cost {
    above_idle: u64,
    cpu: f64,
}

/// One call (`params` of `tools/call`) in a fresh server, after a small
/// one: its answer, its peak RSS above the idle RSS and its CPU seconds.
fn one_call(bin: &Path, gitlab: &str, params: &str) -> (String, Cost) {
    let mut server = Server::start(bin, gitlab);
    server.call(
        1,
        r#"{"name":"gitlab_pipeline","arguments":{"action":"job_log","params":{"project_id":1,"job_id":1},"lines":"-1"}}"#,
    );
    let idle = server.status("VmRSS");
    let cpu_before = server.cpu_seconds();
    let answer = server.call(2, params);
    let cost = Cost {
        above_idle: server.status("VmHWM").saturating_sub(idle),
        cpu: server.cpu_seconds() - cpu_before,
    };
    (answer, cost)
}

/// A `compare` whose diffs take `bytes`: the answer shows the first files
/// and counts the rest.
fn compare_cost(bin: &Path, gitlab: &str, path: &Path, bytes: u64) -> Cost {
    let files = write_compare(path, bytes);
    let (answer, cost) = one_call(
        bin,
        gitlab,
        r#"{"name":"gitlab_repository","arguments":{"action":"compare","params":{"project_id":1,"from":"main","to":"topic"}}}"#,
    );
    let shown = answer.matches("=== src/file_").count() as u64;
    assert!(
        answer.contains("=== src/file_00000000.rs (modified, +40 -40)")
            && answer.contains(&format!("{} more files not shown", files - shown)),
        "the first files and a count of the rest ({files} files): {answer}"
    );
    std::fs::remove_file(path).expect("remove the compare");
    cost
}

/// An artifacts archive of `bytes`: the answer counts all its files.
fn archive_cost(bin: &Path, gitlab: &str, path: &Path, bytes: u64) -> Cost {
    let files = write_archive(path, bytes);
    let (answer, cost) = one_call(
        bin,
        gitlab,
        r#"{"name":"gitlab_pipeline","arguments":{"action":"job_artifact_list","params":{"project_id":1,"job_id":1}}}"#,
    );
    assert!(
        answer.contains(&format!("{files} files, "))
            && answer.contains("coverage/part-00000.bin ("),
        "every file counted ({files} files): {answer}"
    );
    std::fs::remove_file(path).expect("remove the archive");
    cost
}

/// A zip of stored entries of 256 KiB each until `bytes`, laid out as
/// GitLab's artifacts archives are (local headers and data, the central
/// directory, its end record; CRCs left zero, nothing here checks them);
/// the number of files.
fn write_archive(path: &Path, bytes: u64) -> u64 {
    const SIZE: u32 = 256 * 1024;
    let mut out = std::io::BufWriter::new(std::fs::File::create(path).expect("the archive"));
    let data = vec![b'x'; SIZE as usize];
    let mut central = Vec::new();
    let mut offset = 0u32;
    let mut files = 0u64;
    while u64::from(offset) < bytes {
        let name = format!("coverage/part-{files:05}.bin");
        let len = name.len() as u16;
        let mut local = vec![0x50, 0x4b, 0x03, 0x04];
        local.extend_from_slice(&[0; 14]);
        local.extend_from_slice(&SIZE.to_le_bytes());
        local.extend_from_slice(&SIZE.to_le_bytes());
        local.extend_from_slice(&len.to_le_bytes());
        local.extend_from_slice(&0u16.to_le_bytes());
        local.extend_from_slice(name.as_bytes());
        out.write_all(&local).expect("write the archive");
        out.write_all(&data).expect("write the archive");
        central.extend_from_slice(&[0x50, 0x4b, 0x01, 0x02]);
        central.extend_from_slice(&[0; 16]);
        central.extend_from_slice(&SIZE.to_le_bytes());
        central.extend_from_slice(&SIZE.to_le_bytes());
        central.extend_from_slice(&len.to_le_bytes());
        central.extend_from_slice(&[0; 12]);
        central.extend_from_slice(&offset.to_le_bytes());
        central.extend_from_slice(name.as_bytes());
        offset += local.len() as u32 + SIZE;
        files += 1;
    }
    out.write_all(&central).expect("write the archive");
    let mut end = vec![0x50, 0x4b, 0x05, 0x06, 0, 0, 0, 0];
    end.extend_from_slice(&(files as u16).to_le_bytes());
    end.extend_from_slice(&(files as u16).to_le_bytes());
    end.extend_from_slice(&(central.len() as u32).to_le_bytes());
    end.extend_from_slice(&offset.to_le_bytes());
    end.extend_from_slice(&0u16.to_le_bytes());
    out.write_all(&end).expect("write the archive");
    out.flush().expect("write the archive");
    files
}

/// GitLab's compare answer (`lib/api/entities/compare.rb`: commit,
/// commits, diffs, compare_timeout, compare_same_ref, web_url) with diffs
/// of 40 changed lines each until `bytes`; the number of files.
fn write_compare(path: &Path, bytes: u64) -> u64 {
    let mut out = std::io::BufWriter::new(std::fs::File::create(path).expect("the compare"));
    out.write_all(br#"{"commit":{"id":"2f9b","title":"topic"},"commits":[{"id":"2f9b","title":"topic"}],"diffs":["#)
        .expect("write the compare");
    let mut hunk = String::from(r"@@ -1,40 +1,40 @@\n");
    for l in 0..40 {
        hunk.push_str(&format!(r#"-let old_{l} = compute(\"{l}\");\n"#));
    }
    for l in 0..40 {
        hunk.push_str(&format!(r#"+let new_{l} = compute(\"{l}\", options);\n"#));
    }
    let mut written = 0;
    let mut files = 0u64;
    while written < bytes {
        let file = format!(
            r#"{}{{"old_path":"src/file_{files:08}.rs","new_path":"src/file_{files:08}.rs","a_mode":"100644","b_mode":"100644","new_file":false,"renamed_file":false,"deleted_file":false,"generated_file":false,"diff":"{hunk}"}}"#,
            if files == 0 { "" } else { "," }
        );
        out.write_all(file.as_bytes()).expect("write the compare");
        written += file.len() as u64;
        files += 1;
    }
    out.write_all(br#"],"compare_timeout":false,"compare_same_ref":false,"web_url":"http://gitlab.example/p/-/compare/main...topic"}"#)
        .expect("write the compare");
    out.flush().expect("write the compare");
    files
}

/// The bytes nginx sent for the request after the first `before`, once
/// its access log has the line (nginx writes it when the request ends).
fn wait_for_log_line(gitlab: &Nginx, before: usize) -> u64 {
    let deadline = Instant::now() + std::time::Duration::from_secs(30);
    loop {
        if let Some((_, sent)) = gitlab.bytes_sent().get(before) {
            return *sent;
        }
        assert!(Instant::now() < deadline, "nginx logged no request");
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
}

/// `gitlab-mcp serve` over stdio, initialized.
struct Server {
    child: Child,
    stdin: Option<ChildStdin>,
    stdout: BufReader<ChildStdout>,
}

impl Server {
    fn start(bin: &Path, gitlab: &str) -> Server {
        let mut child = Command::new(bin)
            .arg("serve")
            .env_clear()
            .env("PATH", std::env::var("PATH").unwrap_or_default())
            .env("GITLAB_URL", gitlab)
            .env("GITLAB_TOKEN", "glpat-bench")
            .env("RUST_LOG", "warn")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("start the server");
        let stdin = child.stdin.take();
        let stdout = BufReader::new(child.stdout.take().expect("stdout"));
        let mut server = Server {
            child,
            stdin,
            stdout,
        };
        server.send(r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"log-memory","version":"1"}}}"#);
        server.answer(0);
        server.send(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#);
        server
    }

    fn send(&mut self, line: &str) {
        let stdin = self.stdin.as_mut().expect("stdin open");
        writeln!(stdin, "{line}").expect("write to the server");
    }

    /// The answer line of request `id`.
    fn answer(&mut self, id: u64) -> String {
        let mut line = String::new();
        loop {
            line.clear();
            let n = self.stdout.read_line(&mut line).expect("read an answer");
            assert!(n > 0, "the server closed stdout before answering {id}");
            if line.contains(&format!("\"id\":{id}")) {
                assert!(
                    !line.contains("\"isError\":true"),
                    "call {id} failed: {line}"
                );
                return line;
            }
        }
    }

    fn call(&mut self, id: u64, params: &str) -> String {
        self.send(&format!(
            r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{params}}}"#
        ));
        self.answer(id)
    }

    /// The server's user and system CPU time so far (`/proc/<pid>/stat`,
    /// in clock ticks of 10 ms): steadier than wall time on a shared machine.
    fn cpu_seconds(&self) -> f64 {
        let stat = std::fs::read_to_string(format!("/proc/{}/stat", self.child.id()))
            .expect("the server's stat");
        let fields: Vec<&str> = stat
            .rsplit_once(')')
            .map(|(_, rest)| rest.split_whitespace().collect())
            .unwrap_or_default();
        // After the command: state is field 3, utime 14 and stime 15.
        let ticks: u64 = fields[11].parse::<u64>().unwrap() + fields[12].parse::<u64>().unwrap();
        ticks as f64 / 100.0
    }

    /// A `/proc/<pid>/status` figure, in bytes.
    fn status(&self, key: &str) -> u64 {
        proc_status::proc_status(self.child.id(), key)
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        drop(self.stdin.take());
        let _ = self.child.wait();
    }
}

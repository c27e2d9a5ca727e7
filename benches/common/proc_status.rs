//! A figure of a running process's `/proc/<pid>/status`, shared by the
//! memory benchmarks (included with `#[path]`).

/// The `key` line of process `pid`'s status (`VmRSS`, `VmHWM`), in bytes.
pub fn proc_status(pid: u32, key: &str) -> u64 {
    let status =
        std::fs::read_to_string(format!("/proc/{pid}/status")).expect("the server's status");
    status
        .lines()
        .find_map(|l| l.strip_prefix(key)?.strip_prefix(':'))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
        .map(|kb| kb * 1024)
        .unwrap_or_else(|| panic!("no {key} in the server's status"))
}

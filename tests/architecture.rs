//! The layer invariants of ARCHITECTURE.md, checked on the source: only
//! `mcp/` knows rmcp, only `gitlab/client.rs` knows reqwest, `dispatch/` does
//! no I/O, and nothing but the command line writes to stdout.

use std::fs;
use std::path::{Path, PathBuf};

fn sources(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            sources(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// Code lines (comments left out) of every file under `src/`, with the
/// file's path relative to `src/`.
fn code() -> Vec<(String, String)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    sources(&root, &mut files);
    let mut lines = Vec::new();
    for file in files {
        let rel = file
            .strip_prefix(&root)
            .unwrap()
            .to_string_lossy()
            .replace('\\', "/");
        for line in fs::read_to_string(&file).unwrap().lines() {
            let code = line.trim_start();
            if !code.starts_with("//") {
                lines.push((rel.clone(), code.to_string()));
            }
        }
    }
    lines
}

fn offenders(forbidden: &[&str], allowed: impl Fn(&str) -> bool) -> Vec<String> {
    code()
        .into_iter()
        .filter(|(file, line)| !allowed(file) && forbidden.iter().any(|f| line.contains(f)))
        .map(|(file, line)| format!("{file}: {line}"))
        .collect()
}

#[test]
fn only_mcp_knows_rmcp() {
    let found = offenders(&["rmcp::", "use rmcp"], |f| f.starts_with("mcp/"));
    assert!(found.is_empty(), "rmcp outside mcp/: {found:#?}");
}

#[test]
fn only_the_gitlab_client_knows_reqwest() {
    let found = offenders(&["reqwest::", "use reqwest", "rustls::"], |f| {
        f == "gitlab/client.rs"
    });
    assert!(
        found.is_empty(),
        "reqwest outside gitlab/client.rs: {found:#?}"
    );
}

#[test]
fn the_dispatcher_is_pure() {
    let found = offenders(
        &[
            "tokio",
            "std::fs",
            "std::net",
            "std::io",
            "SystemTime",
            "Instant",
            "reqwest",
            "tracing::",
        ],
        |f| !f.starts_with("dispatch/"),
    );
    assert!(found.is_empty(), "I/O in dispatch/: {found:#?}");
}

#[test]
fn nothing_but_the_command_line_writes_to_stdout() {
    let found = offenders(
        &["println!", "print!(", "std::io::stdout", "io::stdout()"],
        |f| f == "main.rs",
    );
    assert!(
        found.is_empty(),
        "stdout written outside main.rs: {found:#?}"
    );
}

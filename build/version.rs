//! What `gitlab-mcp --version` says besides the version: the commit the
//! binary was built from and the target it was built for, handed to the
//! crate as `GITLAB_MCP_GIT_COMMIT` and `GITLAB_MCP_TARGET`.
//!
//! The commit comes from `.cargo_vcs_info.json` in a packaged crate
//! (`cargo package` writes it; `cargo install gitlab-mcp` builds from one),
//! else from git in a checkout, else it is `unknown`. The packaged file
//! wins: an unpacked crate may sit inside some other git repository.

use std::path::{Path, PathBuf};
use std::process::Command;

pub fn emit() {
    let target = std::env::var("TARGET").unwrap_or_else(|_| "unknown".into());
    println!("cargo::rustc-env=GITLAB_MCP_TARGET={target}");
    let commit = packaged_commit()
        .or_else(git_commit)
        .unwrap_or_else(|| "unknown".into());
    println!("cargo::rustc-env=GITLAB_MCP_GIT_COMMIT={commit}");
}

/// The first 12 hex digits, as `git rev-parse --short=12` writes them.
fn short(sha: &str) -> Option<String> {
    let sha = sha.trim();
    (sha.len() >= 12 && sha.bytes().all(|b| b.is_ascii_hexdigit())).then(|| sha[..12].to_string())
}

/// `{"git": {"sha1": "…"}, "path_in_vcs": ""}`, beside Cargo.toml.
fn packaged_commit() -> Option<String> {
    let text = std::fs::read_to_string(".cargo_vcs_info.json").ok()?;
    println!("cargo::rerun-if-changed=.cargo_vcs_info.json");
    let info: serde_json::Value = serde_json::from_str(&text).ok()?;
    short(info["git"]["sha1"].as_str()?)
}

fn git(args: &[&str]) -> Option<String> {
    let out = Command::new("git").args(args).output().ok()?;
    out.status
        .success()
        .then(|| String::from_utf8_lossy(&out.stdout).trim().to_string())
}

/// HEAD's commit; the build runs again when HEAD moves (a commit, a
/// checkout), watching HEAD and the branch it names.
fn git_commit() -> Option<String> {
    let commit = short(&git(&["rev-parse", "HEAD"])?)?;
    let git_dir = PathBuf::from(git(&["rev-parse", "--absolute-git-dir"])?);
    let common = git(&["rev-parse", "--git-common-dir"])
        .map(|d| absolute(&d))
        .unwrap_or_else(|| git_dir.clone());
    let mut watched = vec![git_dir.join("HEAD"), common.join("packed-refs")];
    if let Some(branch) = git(&["symbolic-ref", "-q", "HEAD"]) {
        watched.push(common.join(branch));
    }
    // A path that does not exist would make cargo run the script every time.
    for path in watched.iter().filter(|p| p.exists()) {
        println!("cargo::rerun-if-changed={}", path.display());
    }
    Some(commit)
}

fn absolute(dir: &str) -> PathBuf {
    let path = Path::new(dir);
    if path.is_absolute() {
        path.to_path_buf()
    } else {
        std::env::current_dir()
            .map(|cwd| cwd.join(path))
            .unwrap_or_else(|_| path.to_path_buf())
    }
}

//! What `gitlab-mcp serve --help` offers: every flag and every environment
//! variable, for the tests that hold deployment files (the bundle, the
//! registry entry, the Kubernetes manifests) to names that exist.

use std::collections::BTreeSet;

pub struct ServeHelp {
    /// `--http`, `--public-url`... (global flags included).
    pub flags: BTreeSet<String>,
    /// `GITLAB_URL`, `GITLAB_MCP_TOKEN_KEY`...
    pub env: BTreeSet<String>,
    /// The variables whose values `--help` hides (`[env: NAME]`, no `=`):
    /// the secrets, which every deployment file must mark as such.
    pub secret_env: BTreeSet<String>,
}

pub fn serve_help() -> ServeHelp {
    let out = std::process::Command::new(super::BIN)
        .args(["serve", "--help"])
        .env_clear()
        .output()
        .expect("gitlab-mcp serve --help runs");
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    let name = |s: &str, allowed: fn(char) -> bool| -> String {
        s.chars().take_while(|&c| allowed(c)).collect()
    };
    let flags = text
        .lines()
        .filter_map(|line| {
            line.trim_start()
                .strip_prefix("--")
                .or_else(|| line.trim_start().split_once(", --").map(|(_, f)| f))
        })
        .map(|rest| {
            format!(
                "--{}",
                name(rest, |c| c.is_ascii_alphanumeric() || c == '-')
            )
        })
        .collect();
    let mut env = BTreeSet::new();
    let mut secret_env = BTreeSet::new();
    for rest in text.split("[env: ").skip(1) {
        let var = name(rest, |c| {
            c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_'
        });
        if rest[var.len()..].starts_with(']') {
            secret_env.insert(var.clone());
        }
        env.insert(var);
    }
    ServeHelp {
        flags,
        env,
        secret_env,
    }
}

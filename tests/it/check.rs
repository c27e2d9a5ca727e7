//! `gitlab-mcp check` against the fake: healthy, an expired token, a
//! missing scope, a read-only token and the tools it is offered, a wrong
//! URL, TLS with and without the custom CA, and a proxy in the way
//! (HTTPS_PROXY honoured, NO_PROXY too).

use crate::common;

use fake_gitlab::FakeGitLab;
use tokio::process::Command;

async fn check(url: &str, env: &[(&str, &str)]) -> (i32, String) {
    let mut cmd = Command::new(common::BIN);
    cmd.arg("check")
        .env_clear()
        .env("PATH", std::env::var("PATH").unwrap_or_default())
        .env("GITLAB_URL", url);
    for (k, v) in env {
        cmd.env(k, v);
    }
    let out = cmd.output().await.unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
    )
}

#[tokio::test]
async fn a_healthy_setup_passes_and_says_what_it_found() {
    let fake = FakeGitLab::start().await;
    let (code, out) = check(&fake.url(), &[("GITLAB_TOKEN", "glpat-alice")]).await;
    assert_eq!(code, 0, "{out}");
    let all = format!(
        "`api` allows all {} tools'",
        gitlab_mcp::catalog::tools().len()
    );
    for expected in [
        "GitLab 18.6.0 (Community Edition) answers",
        "the token is alice",
        "scopes: api, expires 2026-12-31",
        all.as_str(),
        "Everything this server needs works.",
    ] {
        assert!(out.contains(expected), "missing {expected:?} in:\n{out}");
    }
    assert!(!out.contains("glpat"), "the token is never shown");
}

#[tokio::test]
async fn an_expired_token_or_a_missing_scope_fails_and_says_why() {
    let fake = FakeGitLab::start().await;
    let (code, out) = check(&fake.url(), &[("GITLAB_TOKEN", "glpat-expired")]).await;
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("the token is expired or revoked"), "{out}");

    // Neither `api` nor `read_api`: only repository files are offered.
    let (code, out) = check(&fake.url(), &[("GITLAB_TOKEN", "glpat-alice-files")]).await;
    assert_eq!(code, 1, "{out}");
    for expected in [
        "the token may not read its own user",
        "scopes: read_repository, expires 2026-12-31",
        "it is offered repository files only (no `api` or `read_api` scope) (1 tools, 3 actions)",
        "the token has neither `api` nor `read_api`",
    ] {
        assert!(out.contains(expected), "missing {expected:?} in:\n{out}");
    }

    // `read_api` alone: the tools follow the token, so the server works
    // read-only; the check warns that the writes are not offered.
    let (code, out) = check(&fake.url(), &[("GITLAB_TOKEN", "glpat-alice-read")]).await;
    assert_eq!(code, 0, "{out}");
    assert!(
        out.contains("it is offered reads only (no `api` scope)")
            && out.contains("[warn] `read_api` allows the")
            && out.contains("writes this server offers are not offered to this token"),
        "{out}"
    );
    let (code, out) = check(
        &fake.url(),
        &[
            ("GITLAB_TOKEN", "glpat-alice-read"),
            ("GITLAB_READ_ONLY", "true"),
        ],
    )
    .await;
    assert_eq!(code, 0, "{out}");
}

#[tokio::test]
async fn a_url_with_api_v4_twice_fails() {
    let fake = FakeGitLab::start().await;
    let url = format!("{}/api/v4/api/v4", fake.url());
    let (code, out) = check(&url, &[("GITLAB_TOKEN", "glpat-alice")]).await;
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("has /api/v4 twice"), "{out}");
}

#[tokio::test]
async fn tls_with_the_custom_ca_passes_and_without_it_fails() {
    let (fake, ca_pem) = FakeGitLab::start_tls().await;
    let ca = std::env::temp_dir().join(format!("gitlab-mcp-check-ca-{}.pem", std::process::id()));
    std::fs::write(&ca, ca_pem).unwrap();
    let ca_path = ca.display().to_string();
    let (code, out) = check(
        &fake.url(),
        &[
            ("GITLAB_TOKEN", "glpat-alice"),
            ("GITLAB_CA_CERT", &ca_path),
        ],
    )
    .await;
    assert_eq!(code, 0, "{out}");
    let (code, out) = check(&fake.url(), &[("GITLAB_TOKEN", "glpat-alice")]).await;
    assert_eq!(code, 1, "{out}");
    assert!(
        out.contains("TLS handshake") && out.contains("GITLAB_CA_CERT"),
        "{out}"
    );

    // A proxy in the way is named; NO_PROXY bypasses it.
    let proxy = [
        ("GITLAB_TOKEN", "glpat-alice"),
        ("GITLAB_CA_CERT", ca_path.as_str()),
        ("HTTPS_PROXY", "http://127.0.0.1:9"),
    ];
    let (code, out) = check(&fake.url(), &proxy).await;
    assert_eq!(code, 1, "{out}");
    assert!(
        out.contains("through the proxy http://127.0.0.1:9"),
        "{out}"
    );
    let mut bypass = proxy.to_vec();
    bypass.push(("NO_PROXY", "127.0.0.1"));
    let (code, out) = check(&fake.url(), &bypass).await;
    assert_eq!(code, 0, "{out}");
    let _ = std::fs::remove_file(ca);
}

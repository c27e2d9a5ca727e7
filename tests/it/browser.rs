//! The MCP Apps views and the sign-in consent page in a real browser:
//! Debian's headless Chromium driven by Playwright for Python
//! (tests/browser/), through scripts/browser-tests.sh, which installs the
//! `chromium` package with apt-get and a pinned venv under .tools/browser/
//! the first time (about 10 s and 3 s on this project's machines). The
//! servers and the fake GitLab run here, and what GitLab received from the
//! views is checked here; what the browser showed, by the script's `ok`
//! lines. Screenshots are left in target/browser-artifacts/.

use crate::common;

use std::time::Duration;

use common::http::{HttpServer, raw};
use common::signin::{KEY, free_port, register_app, server};
use fake_gitlab::FakeGitLab;
use fake_gitlab::oauth::s256;
use serde_json::{Value, json};

const ARTIFACTS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/target/browser-artifacts");
/// The sandbox's merge request !3 and its project.
const MR: &str = "/api/v4/projects/7/merge_requests/3";

/// The script's stdout, and everything for a failure's message.
async fn browser_tests(args: &[&str]) -> (String, String) {
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/scripts/browser-tests.sh");
    let output = tokio::process::Command::new("bash")
        .arg(script)
        .args(args)
        .env("GITLAB_TOKEN", "sandbox")
        .kill_on_drop(true)
        .output();
    let output = tokio::time::timeout(Duration::from_secs(900), output)
        .await
        .expect("the browser tests (and their first install) end within 15 minutes")
        .expect("bash runs scripts/browser-tests.sh");
    let stdout = String::from_utf8_lossy(&output.stdout).to_string();
    let all = format!(
        "{stdout}\n--- stderr:\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(output.status.success(), "{all}");
    assert_eq!(stdout.lines().last(), Some("1 passed, 0 failed"), "{all}");
    (stdout, all)
}

fn has_step(stdout: &str, all: &str, start: &str) {
    assert!(
        stdout.lines().any(|l| l.starts_with(start)),
        "no line starting `{start}` in:\n{all}"
    );
}

/// The sandbox's GitLab, recording, and a server on it (stateless HTTP,
/// the token from each request).
async fn sandbox() -> (FakeGitLab, HttpServer) {
    let fake = FakeGitLab::start_sandbox_on("127.0.0.1:0", true).await;
    let server = HttpServer::start(&fake, &[], &["--require-client-token"]).await;
    (fake, server)
}

async fn gitlab_get(fake: &FakeGitLab, path: &str) -> reqwest::Response {
    raw()
        .get(format!("{}{path}", fake.url()))
        .header("private-token", "sandbox")
        .send()
        .await
        .unwrap()
}

#[tokio::test]
async fn the_merge_request_view_draws_the_diff_and_its_comment_lands_at_its_line() {
    let (fake, server) = sandbox().await;
    let (stdout, all) =
        browser_tests(&["views", "merge-request", &server.mcp_url(), ARTIFACTS]).await;
    for step in [
        "ok gitlab_merge_request links ui://gitlab-mcp/merge-request: listed,",
        "ok merge request view draws !3's 6 files, 7 hunk headers and ",
        "ok the seeded unresolved thread is drawn right after its line of src/checkout.ts",
        "ok a comment on line ",
        "ok a range, lines ",
        "ok Approve shows and sends the head ",
        "ok 1 requests, all to 127.0.0.1, no console error",
        "ok dark theme drawn; 1 requests, all to 127.0.0.1, no console error",
    ] {
        has_step(&stdout, &all, step);
    }

    // The line the view was asked to comment on, as the branch has it.
    let file = gitlab_get(
        &fake,
        "/api/v4/projects/7/repository/files/src%2Fcheckout.ts/raw?ref=feature%2Fdiscount-codes",
    )
    .await
    .text()
    .await
    .unwrap();
    let line = 1 + file
        .lines()
        .position(|l| l.contains("const off = discount ? discountCents"))
        .unwrap();
    let mr: Value = gitlab_get(&fake, MR).await.json().await.unwrap();
    let refs = &mr["diff_refs"];

    // What the views sent GitLab: one thread, one approval, nothing else.
    let writes: Vec<_> = fake
        .requests()
        .into_iter()
        .filter(|r| r.method != "GET")
        .collect();
    assert_eq!(
        writes.iter().map(|r| r.line()).collect::<Vec<_>>(),
        [
            format!("POST {MR}/discussions"),
            format!("POST {MR}/discussions"),
            format!("POST {MR}/approve")
        ],
        "{all}"
    );
    let thread = writes[0].json();
    assert!(
        thread["body"]
            .as_str()
            .unwrap()
            .starts_with("Shipping should use the discounted subtotal here"),
        "{thread}"
    );
    assert_eq!(
        thread["position"],
        json!({
            "position_type": "text",
            "base_sha": refs["base_sha"],
            "start_sha": refs["start_sha"],
            "head_sha": refs["head_sha"],
            "old_path": "src/checkout.ts",
            "new_path": "src/checkout.ts",
            "new_line": line,
        })
    );
    assert!(
        stdout.contains(&format!("ok a comment on line {line} of src/checkout.ts")),
        "{all}"
    );
    // The range: four lines of the added file, both ends on the new side.
    let range = &writes[1].json()["position"];
    let ends = [&range["line_range"]["start"], &range["line_range"]["end"]];
    let start = range["new_line"].as_u64().unwrap() - 3;
    assert_eq!(
        ends.map(|e| (e["type"].clone(), e["new_line"].clone())),
        [
            (json!("new"), json!(start)),
            (json!("new"), json!(start + 3))
        ],
        "{range}"
    );
    assert_eq!(range["new_path"], "src/discounts.ts");
    assert_eq!(writes[2].json(), json!({"sha": mr["sha"]}));
}

#[tokio::test]
async fn the_pipeline_view_draws_every_job_and_opens_the_failed_ones_triage() {
    let (fake, server) = sandbox().await;
    let (stdout, all) = browser_tests(&["views", "pipeline", &server.mcp_url(), ARTIFACTS]).await;
    for step in [
        "ok gitlab_pipeline links ui://gitlab-mcp/pipeline: listed,",
        "ok pipeline view draws all 3 jobs of 4102 in stages build → test, each with its status in words",
        "ok failed job 8806 `test`, opened with the keyboard, shows its triage excerpt",
        "ok a call naming no single pipeline (list) gets one line and no call from the view",
        "ok 1 requests, all to 127.0.0.1, no console error",
        "ok dark theme drawn; 1 requests, all to 127.0.0.1, no console error",
    ] {
        has_step(&stdout, &all, step);
    }
    // The view only read.
    let writes: Vec<_> = fake
        .requests()
        .into_iter()
        .filter(|r| r.method != "GET")
        .map(|r| r.line())
        .collect();
    assert_eq!(writes, Vec::<String>::new());
}

#[tokio::test]
async fn the_consent_page_names_client_and_scopes_and_takes_only_its_own_form() {
    let fake = FakeGitLab::start().await;
    let port = free_port();
    register_app(&fake, port);
    let signin = server(&fake, port, port, KEY, &[]).await;
    let base = format!("http://127.0.0.1:{port}");
    // The redirect URI of a client nobody runs: the browser's arrival
    // there is caught by the test.
    let redirect = format!("http://127.0.0.1:{}/callback", free_port());
    let registered: Value = raw()
        .post(format!("{base}/register"))
        .json(&json!({"redirect_uris": [redirect], "client_name": "Browser test client", "token_endpoint_auth_method": "none"}))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let client_id = registered["client_id"].as_str().unwrap();
    let verifier = "a-verifier-of-the-browser-test-0123456789-abcdefgh";
    let mut authorize = format!(
        "{base}/authorize?response_type=code&code_challenge_method=S256&state=browser-state"
    );
    for (k, v) in [
        ("client_id", client_id),
        ("redirect_uri", redirect.as_str()),
        ("code_challenge", &s256(verifier)),
        ("resource", &format!("{base}/mcp")),
    ] {
        authorize.push_str(&format!("&{k}="));
        gitlab_mcp::encoding::percent_encode_into(&mut authorize, v);
    }

    let (stdout, all) = browser_tests(&[
        "consent",
        &authorize,
        "Browser test client",
        "api",
        &redirect,
        ARTIFACTS,
    ])
    .await;
    for step in [
        "ok the consent page names the client `Browser test client`, the scopes ['api']",
        "ok its form posted without the ticket is refused (400, the error page)",
        "ok its form with the ticket, posted from another browser (no flow cookie), is refused (403)",
        "ok approved, the browser goes through GitLab and lands on ",
    ] {
        has_step(&stdout, &all, step);
    }
    // Only the approved answer reached GitLab.
    let authorizations = fake
        .requests()
        .into_iter()
        .filter(|r| r.raw_path == "/oauth/authorize")
        .count();
    assert_eq!(authorizations, 1, "{all}");
    // The code the browser brought back is this server's, for this client.
    let code = stdout
        .lines()
        .find_map(|l| l.strip_prefix("code "))
        .expect("the code line");
    let answer = raw()
        .post(format!("{base}/token"))
        .form(&[
            ("grant_type", "authorization_code"),
            ("code", code),
            ("redirect_uri", redirect.as_str()),
            ("client_id", client_id),
            ("code_verifier", verifier),
            ("resource", &format!("{base}/mcp")),
        ])
        .send()
        .await
        .unwrap();
    assert_eq!(answer.status(), 200, "{}", signin.stderr_text());
    let tokens: Value = answer.json().await.unwrap();
    assert_eq!(tokens["token_type"], "Bearer");
}

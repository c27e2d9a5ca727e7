//! The sandbox and the demo: a real MCP session against the embedded
//! stand-in GitLab over stdio (tool list, reads, a write a later read
//! sees), and `demo` with no environment and no network.

use crate::common;

use std::process::Stdio;
use std::time::Duration;

use common::{BIN, Lifecycle, mode};
use rmcp::ClientServiceExt;
use rmcp::model::CallToolRequestParams;
use rmcp::transport::TokioChildProcess;
use serde_json::{Value, json};
use tokio::process::Command;

/// The binary with nothing but PATH, and a GitLab address no request can
/// reach: anything that left the sandbox would hang or fail.
fn bare(args: &[&str]) -> Command {
    let mut cmd = Command::new(BIN);
    cmd.args(args)
        .env_clear()
        .env("PATH", std::env::var("PATH").unwrap_or_default())
        .env("GITLAB_URL", "http://192.0.2.1:81");
    cmd
}

#[tokio::test]
async fn demo_runs_with_no_network_and_no_environment() {
    // A request that left the sandbox would go to the unroutable address
    // and fail: the text below would be missing.
    let out = tokio::time::timeout(Duration::from_secs(60), bare(&["demo"]).output())
        .await
        .expect("the demo finishes")
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout).unwrap();
    let tools = format!("{} tools", gitlab_mcp::catalog::tools().len());
    for expected in [
        tools.as_str(),
        "Checkout button does nothing on Safari 17",
        "=== src/checkout.ts (modified",
        // The third step triages release/1.3's pipeline: the Jest failure
        // in the middle of job 8812's log, and the failed test case.
        "gitlab_pipeline {\"action\":\"triage\"",
        "Job 8812 `test` · stage test · script_failure",
        "  1631|   ● refunds › case group 3 › refunds the shipping when the whole order is returned",
        "  1635|     Expected: 495",
        "Failed tests: 1 of 2379\n   │ - refunds case group 3 refunds the shipping when the whole order is returned (suite refunds): Error: expect(received).toBe(expected)",
        "did you mean `issue_iid`?",
        "\"title\":\"Support discount codes at checkout\"",
    ] {
        assert!(text.contains(expected), "missing {expected:?} in:\n{text}");
    }
    assert!(
        !text.contains('\x1b') && !text.contains("section_"),
        "terminal escapes and section markers of the log are gone"
    );
}

#[tokio::test]
async fn an_mcp_session_against_the_sandbox_reads_and_writes() {
    for lifecycle in [Lifecycle::Initialize, Lifecycle::Discover] {
        let mut cmd = bare(&["serve", "--sandbox"]);
        cmd.env("GITLAB_MCP_AUTO_CONFIRM", "true");
        let (transport, _) = TokioChildProcess::builder(cmd)
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let client = ().serve_with_lifecycle(transport, mode(lifecycle)).await.unwrap();
        let info = client.peer_info().expect("server info").clone();
        assert_eq!(
            info.server_info.clone().unwrap().title.as_deref(),
            Some("GitLab MCP (sandbox)")
        );
        assert!(
            info.instructions
                .clone()
                .unwrap_or_default()
                .contains("SANDBOX")
        );
        // The sandbox's note, on its own line before the usual instructions.
        let instructions = info.instructions.clone().unwrap_or_default();
        assert!(
            instructions.starts_with(&format!(
                "{}\nGitLab through a few tools",
                gitlab_mcp::sandbox::NOTE
            )),
            "{instructions}"
        );
        assert_eq!(
            client.list_all_tools().await.unwrap().len(),
            gitlab_mcp::catalog::tools().len()
        );

        let call = |tool: &str, args: Value| {
            let Value::Object(map) = args else {
                unreachable!()
            };
            CallToolRequestParams::new(tool.to_string()).with_arguments(map)
        };
        let text = |r: rmcp::model::CallToolResult| {
            assert_ne!(r.is_error, Some(true), "{:?}", r.content);
            r.content
                .iter()
                .filter_map(|c| c.as_text().map(|t| t.text.clone()))
                .collect::<String>()
        };
        let list = text(
            client
                .call_tool(call(
                    "gitlab_issue",
                    json!({"action": "list", "params": {"project_id": "demo/webshop"}}),
                ))
                .await
                .unwrap(),
        );
        assert!(
            list.contains("Checkout button does nothing on Safari 17"),
            "{list}"
        );
        let created = text(client.call_tool(call("gitlab_issue", json!({"action": "create", "params": {"project_id": "demo/webshop", "title": "Practice issue", "labels": "demo"}}))).await.unwrap());
        let iid = created
            .split("\"iid\":")
            .nth(1)
            .unwrap()
            .split(',')
            .next()
            .unwrap()
            .to_string();
        let read = text(client.call_tool(call("gitlab_issue", json!({"action": "get", "params": {"project_id": "demo/webshop", "issue_iid": iid}}))).await.unwrap());
        assert!(read.contains("\"title\":\"Practice issue\""), "{read}");
        text(client.call_tool(call("gitlab_issue", json!({"action": "delete", "params": {"project_id": "demo/webshop", "issue_iid": iid}}))).await.unwrap());
        let gone = client.call_tool(call("gitlab_issue", json!({"action": "get", "params": {"project_id": "demo/webshop", "issue_iid": iid}}))).await.unwrap();
        assert_eq!(gone.is_error, Some(true), "deleted for good");
        client.cancel().await.unwrap();
    }
}

#[tokio::test]
async fn call_works_against_the_sandbox() {
    let out = bare(&[
        "--sandbox",
        "call",
        "gitlab_merge_request",
        r#"{"action": "get", "params": {"project_id": "demo/webshop", "merge_request_iid": 3}}"#,
    ])
    .output()
    .await
    .unwrap();
    assert_eq!(out.status.code(), Some(0));
    assert!(String::from_utf8_lossy(&out.stdout).contains("Add discount codes at checkout"));
}

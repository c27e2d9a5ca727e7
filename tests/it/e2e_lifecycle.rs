//! The MCP surface in both lifecycles: server identity, capabilities, the
//! tool list's shape and annotations, and unroutable calls.

use crate::common;

use common::{BOTH, Harness, Lifecycle};
use rmcp::model::CallToolRequestParams;
use serde_json::{Value, json};

#[tokio::test]
async fn server_identity_and_tools_capability_in_both_lifecycles() {
    for lifecycle in BOTH {
        let h = Harness::start(lifecycle).await;
        let info = h.client.peer_info().expect("server info after startup");
        let server = info.server_info.as_ref().expect("serverInfo is sent");
        assert_eq!(server.name, "gitlab-mcp", "{lifecycle:?}");
        assert_eq!(server.version, env!("CARGO_PKG_VERSION"));
        // No note before the instructions: this is no sandbox.
        assert_eq!(server.title.as_deref(), Some("GitLab MCP"));
        let instructions = info.instructions.as_deref().unwrap_or_default();
        assert!(
            instructions.starts_with("GitLab through a few tools"),
            "{instructions}"
        );
        assert!(
            info.capabilities.tools.is_some(),
            "{lifecycle:?}: tools capability on"
        );
        let tools = h.client.list_all_tools().await.expect("tools/list");
        let names: Vec<&str> = tools.iter().map(|t| t.name.as_ref()).collect();
        for expected in [
            "gitlab_project",
            "gitlab_issue",
            "gitlab_merge_request",
            "gitlab_pipeline",
            "gitlab_repository",
        ] {
            assert!(
                names.contains(&expected),
                "{lifecycle:?}: {expected} missing from {names:?}"
            );
        }
        h.stop().await;
    }
}

#[tokio::test]
async fn every_tool_schema_is_flat_strict_and_self_contained() {
    let h = Harness::start(Lifecycle::Initialize).await;
    for tool in h.client.list_all_tools().await.unwrap() {
        let schema = Value::Object(tool.input_schema.as_ref().clone());
        let text = schema.to_string();
        assert!(
            !text.contains("$ref") && !text.contains("$schema"),
            "{}: {text}",
            tool.name
        );
        assert_eq!(schema["type"], "object");
        assert_eq!(schema["additionalProperties"], false, "{}", tool.name);
        assert_eq!(schema["required"], json!(["action"]));
        assert_eq!(schema["properties"]["params"]["type"], "object");
        let actions = schema["properties"]["action"]["enum"]
            .as_array()
            .expect("action enum");
        assert!(actions.contains(&json!("help")), "{}", tool.name);

        let description = tool.description.as_deref().unwrap();
        let mut lines = description.lines();
        let first = lines.next().unwrap();
        let second = lines.next().unwrap();
        assert!(!first.is_empty(), "{}", tool.name);
        // The second line is a minimal valid envelope.
        let example: Value =
            serde_json::from_str(second).unwrap_or_else(|e| panic!("{}: {second}: {e}", tool.name));
        assert!(
            actions.contains(&example["action"]),
            "{}: {second}",
            tool.name
        );
        assert!(example["params"].is_object());
    }
    h.stop().await;
}

#[tokio::test]
async fn annotations_are_honest_for_every_tool() {
    let h = Harness::start(Lifecycle::Discover).await;
    let tools = h.client.list_all_tools().await.unwrap();
    let get = |name: &str| {
        tools
            .iter()
            .find(|t| t.name == name)
            .unwrap()
            .annotations
            .clone()
            .unwrap()
    };
    // Reads only: read-only, not destructive.
    let search = get("gitlab_search");
    assert_eq!(search.read_only_hint, Some(true));
    assert_eq!(search.destructive_hint, Some(false));
    // Issues can be deleted: writes, destructive.
    let issue = get("gitlab_issue");
    assert_eq!(issue.read_only_hint, Some(false));
    assert_eq!(issue.destructive_hint, Some(true));
    assert_eq!(
        issue.idempotent_hint,
        Some(false),
        "creating an issue twice makes two"
    );
    for tool in &tools {
        let a = tool
            .annotations
            .as_ref()
            .expect("annotations on every tool");
        // The title is the tool's own, not repeated in the annotations.
        assert!(
            tool.title.as_deref().is_some_and(|t| !t.is_empty()) && a.title.is_none(),
            "{}",
            tool.name
        );
        assert!(
            a.read_only_hint.is_some() && a.destructive_hint.is_some(),
            "{}",
            tool.name
        );
        assert!(a.idempotent_hint.is_some(), "{}", tool.name);
        assert_eq!(a.open_world_hint, Some(true), "{}", tool.name);
    }
    h.stop().await;
}

#[tokio::test]
async fn tools_list_is_exactly_what_the_tools_command_prints() {
    let h = Harness::start(Lifecycle::Initialize).await;
    let served = serde_json::to_value(h.client.list_all_tools().await.unwrap()).unwrap();
    let output = std::process::Command::new(common::BIN)
        .args(["tools", "--json"])
        .output()
        .unwrap();
    let printed: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(printed["tools"], served);
    h.stop().await;
}

#[tokio::test]
async fn an_unknown_tool_is_a_protocol_error_naming_the_closest_tool() {
    let h = Harness::start(Lifecycle::Initialize).await;
    let error = h
        .client
        .call_tool(
            CallToolRequestParams::new("gitlab_issues").with_arguments(serde_json::Map::new()),
        )
        .await
        .expect_err("unknown tool cannot be routed");
    let message = error.to_string();
    assert!(message.contains("did you mean `gitlab_issue`"), "{message}");
    assert!(h.requests().is_empty());
    h.stop().await;
}

#[tokio::test]
async fn every_envelope_key_the_server_reads_is_in_the_schema() {
    // Clients that validate arguments against the schema must not block
    // the keys the server's own messages ask for.
    let h = Harness::start(Lifecycle::Initialize).await;
    let tools = h.client.list_all_tools().await.unwrap();
    let props = |name: &str| {
        let tool = tools.iter().find(|t| t.name == name).unwrap();
        tool.input_schema["properties"]
            .as_object()
            .unwrap()
            .keys()
            .cloned()
            .collect::<Vec<_>>()
    };
    let issue = props("gitlab_issue");
    for key in [
        "action",
        "params",
        "fields",
        "raw",
        "confirm",
        "quick_actions",
    ] {
        assert!(
            issue.contains(&key.to_string()),
            "gitlab_issue lacks {key}: {issue:?}"
        );
    }
    assert!(props("gitlab_pipeline").contains(&"lines".to_string()));
    assert!(props("gitlab_merge_request").contains(&"file".to_string()));
    assert!(
        !props("gitlab_search").contains(&"confirm".to_string()),
        "nothing to confirm there"
    );
    h.stop().await;
}

//! The context budget, every tool enabled, exactly as `gitlab-mcp tools
//! --json` prints the list: the model's view of it (each tool's name,
//! description and input schema) stays within 8,000 cl100k tokens and
//! under 32 KB, however many actions the catalog has; the whole list,
//! icons and the clients' other fields included, within 10,500 tokens.

use gitlab_mcp::catalog;
use serde_json::{Value, json};

const MODEL_MAX_TOKENS: usize = 8_000;
const MODEL_MAX_BYTES: usize = 32 * 1024;
/// 10,000 until each tool's description named its main actions with their
/// required parameters (issue 34: agents asked `help` before nearly every
/// call), which cost the model's view 650 tokens; icons, which no model
/// reads, are about 3,000 of the rest.
const WHOLE_MAX_TOKENS: usize = 10_500;

fn tokens(text: &str) -> usize {
    tiktoken_rs::cl100k_base()
        .unwrap()
        .encode_with_special_tokens(text)
        .len()
}

/// `gitlab-mcp tools --json`, as printed.
fn listed() -> String {
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_gitlab-mcp"))
        .args(["tools", "--json"])
        .output()
        .expect("run gitlab-mcp tools --json");
    String::from_utf8(output.stdout)
        .unwrap()
        .trim_end()
        .to_string()
}

/// What a client passes its model of a listed tool.
fn model_view(list: &str) -> String {
    let list: Value = serde_json::from_str(list).unwrap();
    let tools: Vec<Value> = list["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| json!({"name": t["name"], "description": t["description"], "inputSchema": t["inputSchema"]}))
        .collect();
    serde_json::to_string(&json!({ "tools": tools })).unwrap()
}

#[test]
fn the_model_s_view_of_the_tool_list_fits_the_budget() {
    let view = model_view(&listed());
    let tokens = tokens(&view);
    println!(
        "{} tools, {} actions: the model's view is {tokens} tokens, {} bytes",
        catalog::tools().len(),
        catalog::action_count(),
        view.len()
    );
    assert!(
        tokens <= MODEL_MAX_TOKENS,
        "the model's view is {tokens} tokens, over {MODEL_MAX_TOKENS}"
    );
    assert!(
        view.len() < MODEL_MAX_BYTES,
        "the model's view is {} bytes, over {MODEL_MAX_BYTES}",
        view.len()
    );
}

#[test]
fn the_whole_tool_list_icons_included_fits_the_budget() {
    let list = listed();
    let tokens = tokens(&list);
    println!(
        "the whole tool list is {tokens} tokens, {} bytes",
        list.len()
    );
    assert!(
        tokens <= WHOLE_MAX_TOKENS,
        "the whole tool list is {tokens} tokens, over {WHOLE_MAX_TOKENS}"
    );
}

#[test]
fn the_tools_command_prints_the_token_counts() {
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_gitlab-mcp"))
        .arg("tools")
        .output()
        .unwrap();
    let first = String::from_utf8(output.stdout)
        .unwrap()
        .lines()
        .next()
        .unwrap()
        .to_string();
    let list = listed();
    let (whole, model) = (tokens(&list), tokens(&model_view(&list)));
    assert!(
        first.contains(&format!(
            "{whole} tokens (cl100k), {model} in the model's view"
        )),
        "{first}"
    );
}

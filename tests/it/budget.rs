//! The context budget: the whole tool list, every tool enabled, exactly as
//! `gitlab-mcp tools --json` prints it, stays within 8,000 cl100k tokens
//! and under 32 KB, however many actions the catalog has.

use gitlab_mcp::catalog;

const MAX_TOKENS: usize = 8_000;
const MAX_BYTES: usize = 32 * 1024;

#[test]
fn the_tool_list_fits_the_budget() {
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_gitlab-mcp"))
        .args(["tools", "--json"])
        .output()
        .expect("run gitlab-mcp tools --json");
    let list = String::from_utf8(output.stdout).unwrap();
    let list = list.trim_end();
    let tokens = tiktoken_rs::cl100k_base()
        .unwrap()
        .encode_with_special_tokens(list)
        .len();
    println!(
        "{} tools, {} actions: {tokens} tokens, {} bytes",
        catalog::tools().len(),
        catalog::action_count(),
        list.len()
    );
    assert!(
        tokens <= MAX_TOKENS,
        "tool list is {tokens} tokens, over {MAX_TOKENS}"
    );
    assert!(
        list.len() < MAX_BYTES,
        "tool list is {} bytes, over {MAX_BYTES}",
        list.len()
    );
}

#[test]
fn the_tools_command_prints_the_token_count() {
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
    let list = std::process::Command::new(env!("CARGO_BIN_EXE_gitlab-mcp"))
        .args(["tools", "--json"])
        .output()
        .unwrap();
    let list = String::from_utf8(list.stdout).unwrap();
    let tokens = tiktoken_rs::cl100k_base()
        .unwrap()
        .encode_with_special_tokens(list.trim_end())
        .len();
    assert!(
        first.contains(&format!("{tokens} tokens (cl100k)")),
        "{first}"
    );
}

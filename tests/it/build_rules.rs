//! The build script's refusals, run on small catalogs: the build's own code
//! (`build/*.rs`, included here by path) must refuse a mistyped kind, an
//! unknown toolset, handler or check, naming the file and the action; and
//! the JSON it embeds must be JSON, whatever characters a value holds.

#![allow(dead_code)]

#[path = "../../build/defs.rs"]
mod defs;
#[path = "../../build/emit.rs"]
mod emit;
#[path = "../../build/expand.rs"]
mod expand;
#[path = "../../build/json.rs"]
mod json;

use std::collections::BTreeSet;
use std::panic;

const SHARED: &str = r#"
[params.project_id]
type = "string"
in = "path"
required = true
doc = "Project."

[toolsets]
core = "The everyday work."
"#;

const KINDS: &str = r#"
[defaults]
long_text = ["description"]

[kinds.issue]
summary = ["iid", "title"]
"#;

fn tool_file(toolsets: &str, action_extra: &str) -> String {
    format!(
        r#"
name = "gitlab_issue"
title = "Issues"
toolsets = {toolsets}
summary = "Issues."
example = '{{"action": "list", "params": {{"project_id": "g/p"}}}}'

[[actions]]
name = "list"
summary = "List issues."
http = "GET /projects/{{project_id}}/issues"
read_only = true
destructive = false
idempotent = true
use = ["project_id"]
{action_extra}
"#
    )
}

/// The panic message of expanding (and emitting) the tool file, if any.
fn refusal(toolsets: &str, action_extra: &str) -> Option<String> {
    let shared: defs::SharedFile = toml::from_str(SHARED).unwrap();
    let kinds: defs::KindsFile = toml::from_str(KINDS).unwrap();
    let tool: defs::ToolFile = toml::from_str(&tool_file(toolsets, action_extra)).unwrap();
    let known = expand::Known {
        shared: &shared,
        kinds: &kinds,
        handlers: BTreeSet::from(["upload".to_string()]),
        checks: BTreeSet::from(["commit_actions".to_string()]),
    };
    panic::set_hook(Box::new(|_| {}));
    let result = panic::catch_unwind(panic::AssertUnwindSafe(|| {
        let here = "catalog/gitlab_issue.toml";
        expand::check_toolsets(&tool, &shared, here);
        let actions: Vec<expand::Action> = tool
            .actions
            .iter()
            .map(|a| expand::action(a, &known, here))
            .collect();
        let mut out = String::new();
        emit::tool(&mut out, &tool, &actions);
    }));
    let _ = panic::take_hook();
    result.err().map(|e| {
        e.downcast_ref::<String>()
            .cloned()
            .or_else(|| e.downcast_ref::<&str>().map(|s| s.to_string()))
            .unwrap_or_default()
    })
}

#[test]
fn a_well_formed_entry_builds() {
    assert_eq!(refusal(r#"["core"]"#, r#"returns = "issue[]""#), None);
    assert_eq!(
        refusal(
            r#"["core"]"#,
            "returns = \"nothing\"\nhandler = \"upload\"\ncheck = \"commit_actions\""
        ),
        None
    );
}

#[test]
fn a_mistyped_kind_fails_naming_file_and_action() {
    let message = refusal(r#"["core"]"#, r#"returns = "isue[]""#).expect("refused");
    assert!(
        message.contains("catalog/gitlab_issue.toml action `list`")
            && message.contains("`isue[]`")
            && message.contains("kinds.toml"),
        "{message}"
    );
}

#[test]
fn an_unknown_toolset_fails_naming_the_file() {
    let message = refusal(r#"["cor"]"#, r#"returns = "issue[]""#).expect("refused");
    assert!(
        message.contains("catalog/gitlab_issue.toml") && message.contains("toolset `cor`"),
        "{message}"
    );
}

#[test]
fn an_unknown_handler_or_check_fails_naming_file_and_action() {
    let message =
        refusal(r#"["core"]"#, "returns = \"issue[]\"\nhandler = \"uplaod\"").expect("refused");
    assert!(
        message.contains("catalog/gitlab_issue.toml action `list`")
            && message.contains("handler `uplaod`")
            && message.contains("src/handlers/uplaod.rs"),
        "{message}"
    );
    let message =
        refusal(r#"["core"]"#, "returns = \"issue[]\"\ncheck = \"commit\"").expect("refused");
    assert!(
        message.contains("action `list`") && message.contains("check `commit`"),
        "{message}"
    );
}

#[test]
fn embedded_values_are_json_even_with_control_characters() {
    let value = toml::Value::String("a\u{1b}b\"c\\d\u{7f}é\n".into());
    let text = json::toml_to_json(&value).unwrap();
    let back: serde_json::Value = serde_json::from_str(&text).expect("JSON text");
    assert_eq!(back, serde_json::json!("a\u{1b}b\"c\\d\u{7f}é\n"));
    // Rust's Debug form, which the build once wrote, is not JSON.
    assert!(serde_json::from_str::<serde_json::Value>(&format!("{:?}", "a\u{1b}b")).is_err());
    let array = toml::Value::Array(vec![toml::Value::Integer(1), toml::Value::Boolean(true)]);
    assert_eq!(json::toml_to_json(&array).unwrap(), "[1,true]");
    assert!(json::toml_to_json(&toml::Value::Table(Default::default())).is_err());
}

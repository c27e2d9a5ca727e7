//! The catalog's rules, checked on every entry of the compiled catalog (the
//! same statics the server uses). `build.rs` already refuses malformed
//! entries, unknown keys, missing annotations and undeclared placeholders.

use std::collections::HashSet;

use gitlab_mcp::catalog::{self, Location, Method, ParamType, PathPart, Returns, Route};
use gitlab_mcp::dispatch;
use serde_json::Value;

/// Names GitLab's docs use that this project spells differently in paths.
const NOT_PATH_NAMES: &[&str] = &[
    "id",
    "iid",
    "project",
    "mr_iid",
    "merge_request_id",
    "issue_id",
    "ref",
    "path",
    "tag",
    "branch_name",
    "commit",
    "commit_sha",
    "pipeline",
    "job",
    "note",
    "discussion",
    "user",
];

fn each_action() -> impl Iterator<Item = (&'static catalog::ToolSpec, &'static catalog::ActionSpec)>
{
    catalog::tools()
        .iter()
        .flat_map(|t| t.actions.iter().map(move |a| (t, a)))
}

#[test]
fn names_are_unique_and_well_formed() {
    let mut tools = HashSet::new();
    for tool in catalog::tools() {
        assert!(tools.insert(tool.name), "duplicate tool {}", tool.name);
        assert!(tool.name.starts_with("gitlab_"), "{}", tool.name);
        let mut actions = HashSet::new();
        for action in tool.actions {
            assert!(
                actions.insert(action.name),
                "duplicate action {}.{}",
                tool.name,
                action.name
            );
            assert!(
                action
                    .name
                    .chars()
                    .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_'),
                "{}.{} is not snake_case",
                tool.name,
                action.name
            );
            let mut params = HashSet::new();
            for p in action.params {
                assert!(
                    params.insert(p.name),
                    "duplicate param {}.{}.{}",
                    tool.name,
                    action.name,
                    p.name
                );
            }
        }
        assert!(tool.action("help").is_some(), "{} has no help", tool.name);
    }
}

#[test]
fn every_action_has_a_summary_and_every_param_a_doc() {
    for (tool, action) in each_action() {
        assert!(
            !action.summary.trim().is_empty(),
            "{}.{}",
            tool.name,
            action.name
        );
        assert!(
            action.summary.len() <= 120,
            "{}.{}: keep summaries to one short line",
            tool.name,
            action.name
        );
        for p in action.params {
            assert!(
                !p.doc.trim().is_empty(),
                "{}.{}.{}",
                tool.name,
                action.name,
                p.name
            );
        }
    }
}

#[test]
fn every_placeholder_is_a_declared_required_path_parameter_and_back() {
    for (tool, action) in each_action() {
        let here = format!("{}.{}", tool.name, action.name);
        let path_params: Vec<&str> = action
            .params
            .iter()
            .filter(|p| p.location == Location::Path)
            .map(|p| p.name)
            .collect();
        match action.route {
            Route::Rest {
                template, parts, ..
            } => {
                assert!(template.starts_with('/'), "{here}: {template}");
                let mut placeholders = Vec::new();
                for part in parts {
                    match part {
                        PathPart::Param(i) => {
                            let p = &action.params[*i];
                            assert_eq!(
                                p.location,
                                Location::Path,
                                "{here}: {{{}}} is not `in = path`",
                                p.name
                            );
                            assert!(
                                p.required,
                                "{here}: path parameter {} must be required",
                                p.name
                            );
                            assert!(
                                !NOT_PATH_NAMES.contains(&p.name),
                                "{here}: use the project's name for {{{}}}",
                                p.name
                            );
                            placeholders.push(p.name);
                        }
                        PathPart::Literal(text) => {
                            assert!(
                                !text.contains('{') && !text.contains('}'),
                                "{here}: stray brace in {template}"
                            );
                        }
                    }
                }
                for name in &path_params {
                    assert!(
                        placeholders.contains(name),
                        "{here}: path parameter {name} is not in {template}"
                    );
                }
                // The template as written round-trips through its parts.
                let rebuilt: String = parts
                    .iter()
                    .map(|p| match p {
                        PathPart::Literal(t) => t.to_string(),
                        PathPart::Param(i) => format!("{{{}}}", action.params[*i].name),
                    })
                    .collect();
                assert_eq!(rebuilt, template, "{here}");
            }
            Route::Local(_) => {
                assert!(path_params.is_empty(), "{here}: a local action has no path")
            }
        }
    }
}

#[test]
fn only_standard_json_schema_types() {
    for (tool, action) in each_action() {
        for p in action.params {
            let here = format!("{}.{}.{}", tool.name, action.name, p.name);
            assert_eq!(
                p.items.is_some(),
                p.ty == ParamType::Array,
                "{here}: `items` goes with arrays only"
            );
            assert!(
                p.items != Some(ParamType::Array),
                "{here}: no nested arrays"
            );
            if let Some(format) = p.format {
                assert_eq!(p.ty, ParamType::String, "{here}: formats are for strings");
                assert!(
                    ["date", "date-time", "uri", "email"].contains(&format),
                    "{here}: format {format}"
                );
            }
            for value in p.allowed {
                assert!(!value.is_empty(), "{here}: empty enum value");
            }
            if let Some(default) = p.default {
                let v: Value = serde_json::from_str(default)
                    .unwrap_or_else(|e| panic!("{here}: default {default}: {e}"));
                let fits = match p.ty {
                    ParamType::String => v.is_string(),
                    ParamType::Integer => v.is_i64() || v.is_u64(),
                    ParamType::Number => v.is_number(),
                    ParamType::Boolean => v.is_boolean(),
                    ParamType::Array => v.is_array(),
                    ParamType::Object => v.is_object(),
                };
                assert!(fits, "{here}: default {default} is not a {}", p.ty.as_str());
            }
        }
    }
}

#[test]
fn annotations_are_consistent_per_action_and_per_tool() {
    for (tool, action) in each_action() {
        let here = format!("{}.{}", tool.name, action.name);
        if action.read_only {
            assert!(!action.destructive, "{here}: read-only and destructive");
            assert!(action.idempotent, "{here}: a read is idempotent");
            if let Some(method) = action.method() {
                assert_eq!(
                    method,
                    Method::Get,
                    "{here}: a read-only action must be a GET"
                );
            }
        }
        if action.method() == Some(Method::Delete) {
            assert!(action.destructive, "{here}: a DELETE is destructive");
        }
        if action.method() == Some(Method::Get) {
            assert!(action.read_only, "{here}: a GET is read-only");
        }
    }
    for tool in catalog::tools() {
        let any_write = tool.actions.iter().any(|a| !a.read_only);
        let any_destructive = tool.actions.iter().any(|a| a.destructive);
        assert_eq!(tool.read_only(), !any_write, "{}", tool.name);
        assert_eq!(tool.destructive(), any_destructive, "{}", tool.name);
    }
}

#[test]
fn a_get_says_where_to_find_valid_ids() {
    for (tool, action) in each_action() {
        let is_get =
            action.method() == Some(Method::Get) && matches!(action.returns, Returns::One(_));
        let takes_ids = action.params.iter().any(|p| p.location == Location::Path);
        if is_get && takes_ids {
            let hint = action
                .hint(404)
                .unwrap_or_else(|| panic!("{}.{} needs a 404 hint", tool.name, action.name));
            assert!(
                hint.contains('`'),
                "{}.{}: the hint names an action: {hint}",
                tool.name,
                action.name
            );
        }
        for (status, _) in action.hints {
            assert!(
                (400..600).contains(status),
                "{}.{}: hint for {status}",
                tool.name,
                action.name
            );
        }
    }
}

#[test]
fn every_tool_example_is_a_valid_call() {
    for tool in catalog::tools() {
        let Value::Object(map) =
            serde_json::from_str(tool.example).unwrap_or_else(|e| panic!("{}: {e}", tool.name))
        else {
            panic!("{}: example is not an object", tool.name)
        };
        if let Err(e) = dispatch::decode(tool, catalog::tools(), map) {
            panic!("{}: example does not decode:\n{e}", tool.name);
        }
    }
}

#[test]
fn every_action_help_example_is_a_valid_call() {
    for (tool, action) in each_action() {
        let example = dispatch::help::example(action);
        let Value::Object(map) = serde_json::from_str(&example).unwrap() else {
            unreachable!()
        };
        if let Err(e) = dispatch::decode(tool, catalog::tools(), map) {
            panic!(
                "{}.{}: help example {example} does not decode:\n{e}",
                tool.name, action.name
            );
        }
    }
}

#[test]
fn the_catalog_exports_the_documented_shape() {
    let json = catalog::catalog_json();
    let tools = json["tools"].as_array().unwrap();
    assert_eq!(tools.len(), catalog::tools().len());
    for tool in tools {
        for key in ["name", "title", "description", "actions"] {
            assert!(tool.get(key).is_some(), "tool lacks {key}");
        }
        for action in tool["actions"].as_array().unwrap() {
            for key in [
                "name",
                "summary",
                "method",
                "path",
                "read_only",
                "destructive",
                "idempotent",
                "params",
            ] {
                assert!(action.get(key).is_some(), "action lacks {key}: {action}");
            }
            for p in action["params"].as_array().unwrap() {
                for key in ["name", "type", "required", "in", "enum", "description"] {
                    assert!(p.get(key).is_some(), "param lacks {key}: {p}");
                }
            }
        }
    }
    let help = tools[0]["actions"]
        .as_array()
        .unwrap()
        .iter()
        .find(|a| a["name"] == "help")
        .unwrap();
    assert!(
        help["method"].is_null() && help["path"].is_null(),
        "help is not a REST call"
    );
}

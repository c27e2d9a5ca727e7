//! The catalog's rules, checked on every entry of the compiled catalog (the
//! same statics the server uses). The catalog compiler already refuses
//! malformed entries, unknown keys, missing annotations and undeclared
//! placeholders (`build_rules.rs`).

use std::collections::HashSet;

use gitlab_mcp::catalog::{
    self, Diffs, Location, Method, ParamType, PathPart, RestRoute, Returns, Route,
};
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
            Route::Rest(RestRoute {
                template, parts, ..
            }) => {
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
            Route::Graphql(_) | Route::Local(_) => {
                assert!(
                    path_params.is_empty(),
                    "{here}: only a REST action has a path"
                )
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
            assert_ne!(p.items, Some(ParamType::Array), "{here}: no nested arrays");
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
        // A GraphQL query of one object in a namespace is a get too: GitLab
        // answers null where REST answers 404, and the hint is shown then.
        let graphql_get = action.graphql().is_some_and(|g| {
            g.operation == catalog::Operation::Query
                && action
                    .params
                    .iter()
                    .any(|p| p.role == Some(catalog::Role::Project))
        });
        let is_get = (action.method() == Some(Method::Get) || graphql_get)
            && matches!(action.returns, Returns::One(_));
        let takes_ids = graphql_get || action.params.iter().any(|p| p.location == Location::Path);
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
fn a_graphql_action_is_exported_with_its_operation_and_root_fields() {
    let json = catalog::catalog_json();
    let mut seen = 0;
    for (tool, out) in catalog::tools()
        .iter()
        .zip(json["tools"].as_array().unwrap())
    {
        for (action, a) in tool.actions.iter().zip(out["actions"].as_array().unwrap()) {
            let here = format!("{}.{}", tool.name, action.name);
            let Some(graphql) = action.graphql() else {
                assert_eq!(a.get("graphql"), None, "{here}");
                continue;
            };
            seen += 1;
            let g = &a["graphql"];
            assert_eq!(g["operation"], graphql.operation.as_str(), "{here}");
            // A read is a query, and the reverse.
            assert_eq!(
                action.read_only,
                graphql.operation == catalog::Operation::Query,
                "{here}"
            );
            match graphql.document {
                Some(document) => {
                    assert_eq!(g["document"], document.name, "{here}");
                    assert_eq!(
                        g["root_fields"],
                        serde_json::json!(document.root_fields),
                        "{here}"
                    );
                    assert!(!document.root_fields.is_empty(), "{here}");
                    assert_eq!(document.operation, graphql.operation, "{here}");
                }
                None => assert!(g["document"].is_null(), "{here}: the caller's"),
            }
            assert_eq!(
                a["method"],
                Value::Null,
                "{here}: GraphQL has no REST method"
            );
        }
    }
    assert!(seen >= 13, "{seen} GraphQL actions");
}

#[test]
fn every_tool_example_is_a_valid_call() {
    for tool in catalog::tools() {
        let Value::Object(map) =
            serde_json::from_str(tool.example).unwrap_or_else(|e| panic!("{}: {e}", tool.name))
        else {
            panic!("{}: example is not an object", tool.name)
        };
        if let Err(e) = dispatch::decode(tool, catalog::tools(), map, None) {
            panic!("{}: example does not decode:\n{e}", tool.name);
        }
    }
}

#[test]
fn every_action_help_example_is_a_valid_call() {
    for (tool, action) in each_action() {
        let example = catalog::example_envelope(action);
        let Value::Object(map) = serde_json::from_str(&example).unwrap() else {
            unreachable!()
        };
        if let Err(e) = dispatch::decode(tool, catalog::tools(), map, None) {
            panic!(
                "{}.{}: help example {example} does not decode:\n{e}",
                tool.name, action.name
            );
        }
    }
}

#[test]
fn the_export_says_everything_an_action_sends() {
    let json = catalog::catalog_json();
    let exported = json["tools"].as_array().unwrap();
    assert_eq!(exported.len(), catalog::tools().len());
    for (tool, out) in catalog::tools().iter().zip(exported) {
        assert_eq!(out["name"], tool.name);
        assert_eq!(out["title"], tool.title);
        assert_eq!(out["description"], tool.summary);
        assert_eq!(out["toolsets"], serde_json::json!(tool.toolsets));
        let actions = out["actions"].as_array().unwrap();
        assert_eq!(actions.len(), tool.actions.len(), "{}", tool.name);
        for (action, a) in tool.actions.iter().zip(actions) {
            let here = format!("{}.{}", tool.name, action.name);
            assert_eq!(a["name"], action.name, "{here}");
            assert_eq!(a["summary"], action.summary, "{here}");
            assert_eq!(
                a["method"].as_str(),
                action.method().map(|m| m.as_str()),
                "{here}"
            );
            assert_eq!(a["path"].as_str(), action.template(), "{here}");
            assert_eq!(a["read_only"], action.read_only, "{here}");
            assert_eq!(a["destructive"], action.destructive, "{here}");
            assert_eq!(a["idempotent"], action.idempotent, "{here}");
            let fixed = a["fixed"].as_object().unwrap();
            assert_eq!(fixed.len(), action.fixed.len(), "{here}");
            for f in action.fixed {
                let value: Value = serde_json::from_str(f.json).unwrap();
                assert_eq!(fixed[f.name], value, "{here}: fixed {}", f.name);
            }
            let params = a["params"].as_array().unwrap();
            assert_eq!(params.len(), action.params.len(), "{here}");
            for (p, e) in action.params.iter().zip(params) {
                assert_eq!(e["name"], p.name, "{here}");
                assert_eq!(e["type"], p.ty.as_str(), "{here}.{}", p.name);
                assert_eq!(e["required"], p.required, "{here}.{}", p.name);
                assert_eq!(e["in"], p.location.as_str(), "{here}.{}", p.name);
                assert_eq!(e["description"], p.doc, "{here}.{}", p.name);
                let allowed: Vec<&str> = e["enum"]
                    .as_array()
                    .map(|v| v.iter().map(|x| x.as_str().unwrap()).collect())
                    .unwrap_or_default();
                assert_eq!(allowed, p.allowed, "{here}.{}", p.name);
            }
        }
    }
    // The close action's constant is what it sends.
    let issue = &exported[catalog::tools()
        .iter()
        .position(|t| t.name == "gitlab_issue")
        .unwrap()];
    let close = issue["actions"]
        .as_array()
        .unwrap()
        .iter()
        .find(|a| a["name"] == "close")
        .unwrap();
    assert_eq!(close["fixed"], serde_json::json!({"state_event": "close"}));
    let help = issue["actions"]
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

#[test]
fn every_kind_is_used_and_its_fields_are_sane() {
    let used: HashSet<&str> = each_action()
        .filter_map(|(_, a)| a.kind())
        .map(|k| k.name)
        .collect();
    for kind in catalog::kinds() {
        assert!(
            used.contains(kind.name),
            "kind `{}` is declared in catalog/kinds.toml but no action returns it",
            kind.name
        );
        let mut seen = HashSet::new();
        for f in kind.summary {
            assert!(
                seen.insert(*f),
                "kind `{}`: summary repeats `{f}`",
                kind.name
            );
        }
        assert!(!kind.long_text.is_empty(), "kind `{}`", kind.name);
    }
    // Diffs are shown only where the answer has them: the diff list
    // itself, and the `diffs` field of compare and of one diff version.
    let with_diffs: Vec<&str> = catalog::kinds()
        .iter()
        .filter(|k| k.diffs != Diffs::None)
        .map(|k| k.name)
        .collect();
    assert_eq!(with_diffs, ["compare", "diff", "version"]);
}

#[test]
fn every_toolset_has_tools_and_every_tool_a_toolset() {
    for set in catalog::toolsets() {
        assert!(
            catalog::tools()
                .iter()
                .any(|t| t.toolsets.contains(&set.name)),
            "toolset `{}` has no tool",
            set.name
        );
        assert!(!set.doc.is_empty());
    }
    for tool in catalog::tools() {
        assert!(!tool.toolsets.is_empty(), "{} is in no toolset", tool.name);
    }
}

/// Every name the vocabulary maps to exists: a synonym names a parameter
/// some action has, an action word a word of some action's name, and every
/// example value is one its parameters accept.
#[test]
fn the_vocabulary_names_only_what_the_catalog_has() {
    let v = catalog::vocabulary();
    let params: HashSet<&str> = each_action()
        .flat_map(|(_, a)| a.params.iter().map(|p| p.name))
        .collect();
    for (word, candidates) in v.param_synonyms {
        assert!(!candidates.is_empty(), "synonym `{word}` maps to nothing");
        for c in *candidates {
            assert!(
                params.contains(c),
                "synonym `{word}` -> `{c}`: no action has `{c}`"
            );
        }
    }
    let words: HashSet<&str> = each_action()
        .flat_map(|(t, a)| {
            a.name
                .split('_')
                .chain(t.name.trim_start_matches("gitlab_").split('_'))
        })
        .collect();
    for (word, meaning) in v.action_words {
        for part in meaning.split('_') {
            assert!(
                words.contains(part),
                "action word `{word}` -> `{meaning}`: `{part}` is in no action or tool name"
            );
        }
    }
    let actions: HashSet<&str> = each_action().map(|(_, a)| a.name).collect();
    for (guess, meanings) in v.action_synonyms {
        assert!(
            !meanings.is_empty(),
            "action synonym `{guess}` maps to nothing"
        );
        for m in *meanings {
            assert!(
                actions.contains(m),
                "action synonym `{guess}` -> `{m}`: no tool has action `{m}`"
            );
        }
    }
    for (name, json) in v.examples_by_name {
        let value: Value = serde_json::from_str(json).unwrap();
        let specs: Vec<_> = each_action()
            .flat_map(|(_, a)| a.params.iter())
            .filter(|p| p.name == *name)
            .collect();
        assert!(!specs.is_empty(), "example for `{name}`: no such parameter");
        assert!(
            specs.iter().any(|p| p.allowed.is_empty()
                && match p.ty {
                    ParamType::String => value.is_string(),
                    ParamType::Integer => value.is_i64(),
                    _ => true,
                }),
            "example for `{name}` fits none of its parameters"
        );
    }
    for format in ["date", "date-time"] {
        assert!(
            v.examples_by_format.iter().any(|(f, _)| *f == format),
            "no example for format {format}"
        );
    }
}

/// A string parameter named like a date says which form it takes, so the
/// help shows it and the example uses it.
#[test]
fn date_parameters_declare_their_format() {
    for (tool, action) in each_action() {
        for p in action.params {
            if p.ty == ParamType::String
                && (p.name.ends_with("_date") || p.name.ends_with("_at"))
                && p.allowed.is_empty()
            {
                assert!(
                    p.format.is_some(),
                    "{}.{}.{}: give format = \"date\" or \"date-time\"",
                    tool.name,
                    action.name,
                    p.name
                );
            }
        }
    }
}

/// Every peer name maps to a tool and action this catalog has.
#[test]
fn peer_names_map_to_real_tools_and_actions() {
    let v = catalog::vocabulary();
    for (peer, tool, action) in v.peer_tools {
        let t = catalog::tool(tool)
            .unwrap_or_else(|| panic!("peer tool `{peer}` -> unknown tool `{tool}`"));
        assert!(
            t.action(action).is_some(),
            "peer tool `{peer}` -> unknown action `{tool}.{action}`"
        );
    }
    for (set, tools) in v.peer_toolsets {
        for tool in *tools {
            assert!(
                catalog::tool(tool).is_some(),
                "peer toolset `{set}` -> unknown tool `{tool}`"
            );
        }
    }
}

/// Every prompt is built only from this catalog's tools and actions, and
/// renders with its required arguments alone.
#[test]
fn prompts_name_real_actions_and_render() {
    assert!(catalog::prompts().len() >= 4);
    for prompt in catalog::prompts() {
        let refs = catalog::tool_references(prompt.text);
        assert!(refs.len() >= 2, "{}: names too few actions", prompt.name);
        for (tool, action) in refs {
            let t = catalog::tool(&tool)
                .unwrap_or_else(|| panic!("{}: unknown tool {tool}", prompt.name));
            assert!(
                t.action(&action).is_some(),
                "{}: {tool} has no action `{action}`",
                prompt.name
            );
        }
        let required: std::collections::BTreeMap<String, String> = prompt
            .arguments
            .iter()
            .filter(|a| a.required)
            .map(|a| (a.name.to_string(), "X".to_string()))
            .collect();
        let text = catalog::render_prompt(prompt, &required).unwrap();
        assert!(
            !text.contains('{') && !text.contains("[/"),
            "{}: {text}",
            prompt.name
        );
    }
}

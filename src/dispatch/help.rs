//! Help text generated from the catalog: a tool's actions, one action's
//! parameters, and a minimal valid example. Served by the `help` action and
//! appended to every validation error.

use std::fmt::Write as _;

use serde_json::{Map, Value};

use crate::catalog::{ActionSpec, ParamSpec, ParamType, Route, ToolSpec};

/// Every action of a tool with its required parameters and summary.
pub fn tool_help(tool: &ToolSpec) -> String {
    let mut out = format!("{}: {}\n", tool.name, tool.summary);
    let _ = writeln!(
        out,
        "Call with {{\"action\": \"<action>\", \"params\": {{...}}}}; {{\"action\": \"help\", \"params\": {{\"action\": \"<action>\"}}}} lists one action's parameters."
    );
    out.push_str("Actions (required parameters in brackets):\n");
    for action in tool.actions {
        let required: Vec<&str> = action
            .params
            .iter()
            .filter(|p| p.required)
            .map(|p| p.name)
            .collect();
        let _ = writeln!(
            out,
            "  {}({}) {}",
            action.name,
            required.join(", "),
            action.summary
        );
    }
    out
}

/// One action in full: what it does, its request, every parameter, and an
/// example that would pass validation.
pub fn action_help(tool: &ToolSpec, action: &ActionSpec) -> String {
    let mut out = format!("{} {}: {}\n", tool.name, action.name, action.summary);
    let effect = if action.read_only {
        "read-only"
    } else if action.destructive {
        "destructive"
    } else {
        "writes"
    };
    match action.route {
        Route::Rest {
            method, template, ..
        } => {
            let _ = writeln!(out, "Request: {} {template} ({effect})", method.as_str());
        }
        Route::Local(_) => {
            let _ = writeln!(out, "Handled by the server ({effect})");
        }
    }
    if action.params.is_empty() {
        out.push_str("This action takes no parameters.\n");
    } else {
        out.push_str("Accepted parameters (* = required):\n");
        for p in action.params {
            let _ = writeln!(
                out,
                "  {}{} ({}): {}",
                if p.required { "* " } else { "" },
                p.name,
                param_shape(p),
                p.doc
            );
        }
    }
    let _ = writeln!(out, "Example: {}", example(action));
    out
}

/// `string`, `integer`, `string: opened|closed; default "all"`, `list of integer`.
fn param_shape(p: &ParamSpec) -> String {
    let mut shape = match (p.ty, p.items) {
        (ParamType::Array, Some(ParamType::Object)) => {
            let fields: Vec<String> = p
                .fields
                .iter()
                .map(|f| {
                    let mut field = format!("{}{}", f.name, if f.required { "*" } else { "" });
                    if !f.allowed.is_empty() {
                        let _ = write!(field, ": {}", f.allowed.join("|"));
                    }
                    field
                })
                .collect();
            if fields.is_empty() {
                "list of objects".to_string()
            } else {
                format!("list of objects {{{}}}", fields.join(", "))
            }
        }
        (ParamType::Array, Some(items)) => format!("list of {} or comma-separated", items.as_str()),
        (ty, _) => ty.as_str().to_string(),
    };
    if let Some(format) = p.format {
        let _ = write!(shape, ", {format}");
    }
    if !p.allowed.is_empty() {
        let _ = write!(shape, ": {}", p.allowed.join("|"));
    }
    if let Some(default) = p.default {
        let _ = write!(shape, "; default {default}");
    }
    shape
}

/// A minimal valid call: the action with its required parameters filled with
/// plausible values.
pub fn example(action: &ActionSpec) -> String {
    let mut params = Map::new();
    for p in action.params.iter().filter(|p| p.required) {
        params.insert(p.name.to_string(), example_value(p));
    }
    let mut envelope = Map::new();
    envelope.insert("action".into(), Value::String(action.name.into()));
    envelope.insert("params".into(), Value::Object(params));
    Value::Object(envelope).to_string()
}

fn example_value(p: &ParamSpec) -> Value {
    if let Some(first) = p.allowed.first() {
        return match p.ty {
            ParamType::Array => Value::Array(vec![Value::String((*first).into())]),
            _ => Value::String((*first).into()),
        };
    }
    let text = |s: &str| Value::String(s.into());
    match (p.ty, p.name) {
        (ParamType::String, "project_id") => text("group/project"),
        (ParamType::String, "group_id") => text("group"),
        (ParamType::String, "branch" | "ref" | "ref_name" | "source_branch" | "start_branch") => {
            text("main")
        }
        (ParamType::String, "target_branch") => text("main"),
        (ParamType::String, "sha" | "from" | "to") => text("main"),
        (ParamType::String, "file_path") => text("README.md"),
        (ParamType::String, "tag_name") => text("v1.0.0"),
        (ParamType::String, "title") => text("Title"),
        (ParamType::String, "search") => text("keyword"),
        (ParamType::String, "commit_message") => text("Update README.md"),
        (ParamType::String, name) if p.format == Some("date") || name.ends_with("_date") => {
            text("2026-01-31")
        }
        (ParamType::String, _) if p.format == Some("date-time") => text("2026-01-31T12:00:00Z"),
        (ParamType::String, _) => text("text"),
        (ParamType::Integer, name) if name.ends_with("iid") => Value::from(42),
        (ParamType::Integer, _) => Value::from(1),
        (ParamType::Number, _) => Value::from(1),
        (ParamType::Boolean, _) => Value::Bool(true),
        (ParamType::Array, _) => match p.items {
            Some(ParamType::Integer) => Value::Array(vec![Value::from(1)]),
            Some(ParamType::Object) => {
                let mut item = Map::new();
                for f in p.fields.iter().filter(|f| f.required) {
                    let value = match (f.allowed.first(), f.ty) {
                        (Some(first), _) => text(first),
                        (None, ParamType::Integer) => Value::from(1),
                        (None, ParamType::Boolean) => Value::Bool(true),
                        (None, _) if f.name == "file_path" => text("README.md"),
                        (None, _) => text("text"),
                    };
                    item.insert(f.name.to_string(), value);
                }
                // A create needs content (see dispatch/checks.rs).
                if item.get("action").and_then(Value::as_str) == Some("create") {
                    item.insert("content".into(), text("text"));
                }
                Value::Array(vec![Value::Object(item)])
            }
            _ => Value::Array(vec![text("value")]),
        },
        (ParamType::Object, _) => Value::Object(Map::new()),
    }
}

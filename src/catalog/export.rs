//! The catalog as machine-readable JSON, for `gitlab-mcp catalog --json`.

use serde_json::{Value, json};

use super::{ToolSpec, tools};

pub fn catalog_json() -> Value {
    json!({ "tools": tools().iter().map(tool_json).collect::<Vec<_>>() })
}

fn tool_json(tool: &ToolSpec) -> Value {
    let actions: Vec<Value> = tool
        .actions
        .iter()
        .map(|a| {
            let params: Vec<Value> = a
                .params
                .iter()
                .map(|p| {
                    let mut param = json!({
                        "name": p.name,
                        "type": p.ty.as_str(),
                        "required": p.required,
                        "in": p.location.as_str(),
                        "enum": if p.allowed.is_empty() { Value::Null } else { json!(p.allowed) },
                        "description": p.doc,
                    });
                    if let Some(items) = p.items {
                        param["items"] = json!(items.as_str());
                    }
                    if let Some(format) = p.format {
                        param["format"] = json!(format);
                    }
                    if let Some(default) = p.default {
                        param["default"] = serde_json::from_str(default).unwrap_or(Value::Null);
                    }
                    param
                })
                .collect();
            json!({
                "name": a.name,
                "summary": a.summary,
                "method": a.method().map(|m| m.as_str()),
                "path": a.template(),
                "read_only": a.read_only,
                "destructive": a.destructive,
                "idempotent": a.idempotent,
                "params": params,
            })
        })
        .collect();
    json!({
        "name": tool.name,
        "title": tool.title,
        "description": tool.summary,
        "actions": actions,
    })
}

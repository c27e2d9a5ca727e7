//! The catalog as machine-readable JSON, for `gitlab-mcp catalog --json`.

use serde_json::{Value, json};

use super::{ActionSpec, Feed, GraphqlRoute, Returns, TextStart, ToolSpec, tools};

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
            let mut action = json!({
                "name": a.name,
                "summary": a.summary,
                "method": a.method().map(|m| m.as_str()),
                "path": a.template(),
                "read_only": a.read_only,
                "destructive": a.destructive,
                "idempotent": a.idempotent,
                "returns": returns(a),
                "params": params,
                "fixed": fixed(a),
            });
            if let Some(graphql) = a.graphql() {
                action["graphql"] = graphql_json(a, graphql);
            }
            action
        })
        .collect();
    json!({
        "name": tool.name,
        "title": tool.title,
        "toolsets": tool.toolsets,
        "description": tool.summary,
        "actions": actions,
    })
}

/// A GraphQL action: its operation type and root fields, its document,
/// and where each variable's value comes from, as the catalog says it.
fn graphql_json(a: &ActionSpec, route: &GraphqlRoute) -> Value {
    let variables: serde_json::Map<String, Value> = route
        .variables
        .iter()
        .map(|v| {
            let mut source = serde_json::Map::new();
            if let Some(i) = v.param {
                source.insert("param".into(), json!(a.params[i].name));
            }
            match v.feed {
                Feed::Value => {}
                Feed::Text => {
                    source.insert("text".into(), json!(true));
                }
                Feed::Values(pairs) => {
                    let pairs: serde_json::Map<String, Value> = pairs
                        .iter()
                        .map(|(k, v)| (k.to_string(), json!(v)))
                        .collect();
                    source.insert("values".into(), Value::Object(pairs));
                }
                Feed::GlobalId(model) => {
                    source.insert("gid".into(), json!(model));
                }
                Feed::Resolve(resolver) => {
                    source.insert("resolve".into(), json!(resolver.as_str()));
                }
            }
            (v.path.join("."), Value::Object(source))
        })
        .collect();
    json!({
        "operation": route.operation.as_str(),
        "document": route.document.map(|d| d.name),
        "root_fields": route.document.map(|d| d.root_fields),
        "answer": route.answer.iter().map(|p| p.join(".")).collect::<Vec<_>>(),
        "variables": variables,
    })
}

/// What the action answers, as the catalog writes it (`issue[]`, `log`).
fn returns(a: &ActionSpec) -> String {
    match a.returns {
        Returns::One(kind) => kind.name.to_string(),
        Returns::List(kind) => format!("{}[]", kind.name),
        Returns::Text(TextStart::Head) => "text".into(),
        Returns::Text(TextStart::Tail) => "log".into(),
        Returns::Nothing => "nothing".into(),
    }
}

/// The constants the action always sends, such as `{"state_event": "close"}`.
fn fixed(a: &ActionSpec) -> Value {
    let map: serde_json::Map<String, Value> = a
        .fixed
        .iter()
        .map(|f| {
            let value = serde_json::from_str(f.json).expect("build.rs writes fixed values as JSON");
            (f.name.to_string(), value)
        })
        .collect();
    Value::Object(map)
}

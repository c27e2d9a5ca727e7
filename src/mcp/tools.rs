//! The MCP tool list, generated from the catalog.
//!
//! Each tool is small on purpose: a two-line description (what it does, then
//! a minimal valid envelope), a flat input schema whose `action` enum names
//! every action, and honest annotations. Per-action parameters live in the
//! `help` action and in validation errors, not here: the list is paid for on
//! every turn of every conversation.

use std::sync::Arc;

use rmcp::model::{Tool, ToolAnnotations};
use serde_json::{Value, json};

use crate::catalog::ToolSpec;

pub fn tool(spec: &ToolSpec) -> Tool {
    let description = format!(
        "{}\n{}\nParameters of an action: {{\"action\": \"help\", \"params\": {{\"action\": \"<action>\"}}}}. Invalid calls are refused with the fix; nothing is sent to GitLab.",
        spec.summary, spec.example
    );
    let actions: Vec<&str> = spec.actions.iter().map(|a| a.name).collect();
    let schema = json!({
        "type": "object",
        "properties": {
            "action": {"type": "string", "enum": actions},
            "params": {"type": "object", "description": "The action's parameters."},
        },
        "required": ["action"],
        "additionalProperties": false,
    });
    let Value::Object(schema) = schema else {
        unreachable!("json! of an object literal is an object")
    };
    let annotations = ToolAnnotations::with_title(spec.title)
        .read_only(spec.read_only())
        .destructive(spec.destructive())
        .idempotent(spec.idempotent())
        .open_world(true);
    Tool::new(spec.name, description, Arc::new(schema))
        .with_title(spec.title)
        .with_annotations(annotations)
}

pub fn tool_list(specs: &[ToolSpec]) -> Vec<Tool> {
    specs.iter().map(tool).collect()
}

/// The tool list as JSON, `{"tools": [...]}`, exactly as `tools/list`
/// carries it (the protocol adds only its own result fields).
pub fn tool_list_json(specs: &[ToolSpec]) -> String {
    let tools = tool_list(specs);
    serde_json::to_string(&json!({ "tools": tools })).expect("tool list serializes")
}

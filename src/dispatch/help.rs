//! Help text generated from the catalog: a tool's actions, one action's
//! parameters, and a minimal valid example. Served by the `help` action and
//! appended to every validation error.

use std::fmt::Write as _;

use crate::catalog::{self, ActionSpec, ParamSpec, ParamType, Route, ToolSpec};

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
        Route::Rest(rest) => {
            let _ = writeln!(
                out,
                "Request: {} {} ({effect})",
                rest.method.as_str(),
                rest.template
            );
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
        if action.param("project_id").is_some() && action.param("url").is_none() {
            out.push_str("  url (string): a GitLab web URL, or a reference such as group/project#42, in place of the parameters it holds.\n");
        }
    }
    let _ = writeln!(out, "Example: {}", catalog::example_envelope(action));
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

/// The parameters by name only, required ones starred:
/// `Parameters (* required): project_id*, issue_iid*, fields`.
pub fn param_index(action: &ActionSpec) -> String {
    if action.params.is_empty() {
        return "This action takes no parameters.".into();
    }
    let names: Vec<String> = action
        .params
        .iter()
        .map(|p| format!("{}{}", p.name, if p.required { "*" } else { "" }))
        .collect();
    let url = if action.param("project_id").is_some() && action.param("url").is_none() {
        "; or `url`, a GitLab web URL (or group/project#42) for the parameters it holds"
    } else {
        ""
    };
    format!("Parameters (* required): {}{url}.", names.join(", "))
}

/// `{"action": "help", "params": {"action": "get"}}`: where the full help is.
pub fn help_pointer(action: &ActionSpec) -> String {
    format!(
        "Every parameter explained: {{\"action\": \"help\", \"params\": {{\"action\": \"{}\"}}}}.",
        action.name
    )
}

/// The tool's action names, in catalog order.
pub fn action_index(tool: &ToolSpec) -> String {
    let names: Vec<&str> = tool.actions.iter().map(|a| a.name).collect();
    format!("Actions of {}: {}.", tool.name, names.join(", "))
}

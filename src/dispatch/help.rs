//! Help text generated from the catalog: a tool's actions, one action's
//! parameters, and a minimal valid example. Served by the `help` action and
//! appended to every validation error.

use std::fmt::Write as _;

use crate::catalog::{self, ActionSpec, ParamSpec, ParamType, Returns, Role, Route, ToolSpec};

/// Every action of a tool with its required parameters and summary; with
/// `search`, only the actions whose name or summary holds the word.
pub fn tool_help(tool: &ToolSpec, search: Option<&str>) -> String {
    let word = search.map(str::to_lowercase);
    let matches = |a: &&ActionSpec| {
        word.as_ref().is_none_or(|w| {
            a.name.contains(w.as_str()) || a.summary.to_lowercase().contains(w.as_str())
        })
    };
    let mut out = format!("{}: {}\n", tool.name, tool.summary);
    let _ = writeln!(
        out,
        "Call with {{\"action\": \"<action>\", \"params\": {{...}}}}; {{\"action\": \"help\", \"params\": {{\"action\": \"<action>\"}}}} lists one action's parameters."
    );
    out.push_str("Actions (required parameters in brackets):\n");
    for action in tool.actions.iter().filter(matches) {
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
    out.push_str(&view_keys(tool.actions.iter()));
    out
}

/// What the keys beside `action` do, for the answers these actions give.
fn view_keys<'a>(actions: impl Iterator<Item = &'a ActionSpec> + Clone) -> String {
    // `help` itself answers text, but nobody windows it.
    let any = |f: fn(&ActionSpec) -> bool| {
        actions
            .clone()
            .filter(|a| !matches!(a.route, Route::Local(_)))
            .any(f)
    };
    let mut out = String::from("Beside action and params, a call may add:\n");
    if any(|a| matches!(a.returns, Returns::One(_) | Returns::List(_))) {
        out.push_str("  \"fields\": [\"iid\",\"title\"]: only these fields of each object\n");
        out.push_str("  \"raw\": true: every field GitLab sent, not the summary\n");
    }
    if any(|a| matches!(a.returns, Returns::List(_))) {
        out.push_str("  \"max_items\": 300: follow a list's pages up to this many items\n");
    }
    if any(|a| matches!(a.returns, Returns::Text(_))) {
        out.push_str(
            "  \"lines\": \"1-200\" or \"-100\": a window of a text answer (a log, a file)\n",
        );
    }
    if any(ActionSpec::shows_diffs) {
        out.push_str("  \"file\": \"<path>\": one file of a diff\n");
    }
    if any(|a| a.destructive) {
        out.push_str("  \"confirm\": true: the user agreed to a destructive action (when the server lets the model confirm)\n");
    }
    out
}

/// How many parameters the help of one action describes before it asks for
/// a `search`: a settings action has hundreds.
const HELP_PARAMS: usize = 40;

/// One action in full: what it does, its request, its parameters (up to
/// `HELP_PARAMS`, or those matching `search`), and an example that would
/// pass validation.
pub fn action_help(tool: &ToolSpec, action: &ActionSpec, search: Option<&str>) -> String {
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
        Route::Graphql(graphql) => {
            let _ = writeln!(out, "Request: {} ({effect})", graphql.describe());
        }
        Route::Local(_) => {
            let _ = writeln!(out, "Handled by the server ({effect})");
        }
    }
    if action.params.is_empty() {
        out.push_str("This action takes no parameters.\n");
    } else {
        out.push_str("Accepted parameters (* = required):\n");
        let current: Vec<&ParamSpec> = action.params.iter().filter(|p| !p.deprecated).collect();
        let shown = shown_params(&current, search);
        for p in &shown {
            let _ = writeln!(
                out,
                "  {}{} ({}): {}",
                if p.required { "* " } else { "" },
                p.name,
                param_shape(p),
                p.doc
            );
        }
        let left = current.len() - shown.len();
        match search {
            Some(word) if shown.is_empty() => {
                let _ = writeln!(out, "  (no parameter holds `{word}`)");
            }
            _ if left > 0 => {
                let _ = writeln!(
                    out,
                    "  ... and {left} more{}: find them with {{\"action\": \"help\", \"params\": {{\"action\": \"{}\", \"search\": \"<word>\"}}}}",
                    if search.is_some() {
                        " not matching"
                    } else {
                        ""
                    },
                    action.name
                );
            }
            _ => {}
        }
        if let Some(url) = takes_web_url(action) {
            let _ = writeln!(out, "  {} ({}): {}", url.name, param_shape(url), url.doc);
        }
        let deprecated: Vec<String> = action
            .params
            .iter()
            .filter(|p| p.deprecated)
            .map(|p| match p.replaced_by {
                Some(current) => format!("{} (use {current})", p.name),
                None => p.name.to_string(),
            })
            .collect();
        if !deprecated.is_empty() {
            let _ = writeln!(
                out,
                "Deprecated, still accepted: {}.",
                deprecated.join(", ")
            );
        }
    }
    let _ = writeln!(out, "Example: {}", catalog::example_envelope(action));
    if !matches!(action.returns, Returns::Nothing) || action.destructive {
        out.push_str(&view_keys(std::iter::once(action)));
    }
    out
}

/// The parameters help describes: those matching `search` (in name or
/// description, ignoring case), else every required one and the first
/// optional ones up to `HELP_PARAMS`.
fn shown_params<'a>(params: &[&'a ParamSpec], search: Option<&str>) -> Vec<&'a ParamSpec> {
    if let Some(word) = search {
        let word = word.to_lowercase();
        return params
            .iter()
            .filter(|p| p.name.contains(&word) || p.doc.to_lowercase().contains(&word))
            .copied()
            .collect();
    }
    let required = params.iter().filter(|p| p.required).count();
    let mut room = HELP_PARAMS.saturating_sub(required);
    params
        .iter()
        .filter(|p| {
            p.required || {
                let fits = room > 0;
                room = room.saturating_sub(1);
                fits
            }
        })
        .copied()
        .collect()
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

/// How many parameter or action names an error's index shows before "and
/// N more".
const INDEX_NAMES: usize = 24;

/// What an index says of a parameter's value beside its name: nothing for
/// a plain string, else its type or its allowed values (`: integer`,
/// `: opened|closed|all`, `: list`), so that a call built from an error
/// alone has the right shapes.
fn short_shape(p: &ParamSpec) -> String {
    if !p.allowed.is_empty() {
        return format!(": {}", p.allowed.join("|"));
    }
    match (p.ty, p.format) {
        (ParamType::String, Some(format)) => format!(": {format}"),
        (ParamType::String, None) => String::new(),
        (ParamType::Array, _) => ": list".into(),
        (ty, _) => format!(": {}", ty.as_str()),
    }
}

/// The parameters by name, required ones starred, each with its shape when
/// it is not plain text:
/// `Parameters (* required): project_id*, issue_iid*: integer, state: opened|closed`.
pub fn param_index(action: &ActionSpec) -> String {
    if action.params.is_empty() {
        return "This action takes no parameters.".into();
    }
    // Every required parameter, and optional ones in catalog order up to
    // the cap: a settings action would otherwise fill the reply with names.
    let current: Vec<&ParamSpec> = action.params.iter().filter(|p| !p.deprecated).collect();
    let required = current.iter().filter(|p| p.required).count();
    let mut room = INDEX_NAMES.saturating_sub(required);
    let mut names = Vec::new();
    let mut left_out = 0;
    for p in current {
        if p.required {
            names.push(format!("{}*{}", p.name, short_shape(p)));
        } else if room > 0 {
            names.push(format!("{}{}", p.name, short_shape(p)));
            room -= 1;
        } else {
            left_out += 1;
        }
    }
    if left_out > 0 {
        names.push(format!("and {left_out} more"));
    }
    let url = match takes_web_url(action) {
        Some(url) => format!(
            "; or `{}`, a GitLab web URL (or group/project#42) for the parameters it holds",
            url.name
        ),
        None => String::new(),
    };
    format!("Parameters (* required): {}{url}.", names.join(", "))
}

/// The web URL parameter, when the action takes it: it has a project
/// parameter and no parameter of that name of its own (a webhook's `url`).
fn takes_web_url(action: &ActionSpec) -> Option<&'static ParamSpec> {
    let url = catalog::web_url()?;
    (action.param_with(Role::Project).is_some() && action.param(url.name).is_none()).then_some(url)
}

/// `{"action": "help", "params": {"action": "get"}}`: where the full help is.
pub fn help_pointer(action: &ActionSpec) -> String {
    format!(
        "Every parameter explained: {{\"action\": \"help\", \"params\": {{\"action\": \"{}\"}}}}.",
        action.name
    )
}

/// The tool's action names, in catalog order (the main ones come first),
/// up to the cap: the tool's `action` enum already lists them all.
pub fn action_index(tool: &ToolSpec) -> String {
    let names: Vec<&str> = tool.actions.iter().map(|a| a.name).collect();
    if names.len() <= INDEX_NAMES {
        return format!("Actions of {}: {}.", tool.name, names.join(", "));
    }
    format!(
        "Actions of {}: {}, and {} more ({{\"action\": \"help\"}} lists every one).",
        tool.name,
        names[..INDEX_NAMES].join(", "),
        names.len() - INDEX_NAMES
    )
}

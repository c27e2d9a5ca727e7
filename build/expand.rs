//! One action entry, expanded and checked: shared parameters resolved,
//! default locations filled in, every reference (kind, handler, check,
//! placeholder) resolved or refused with the file and action named.

use std::collections::BTreeSet;

use super::defs::{ActionDef, KindsFile, NamedParamDef, ParamDef, SharedFile, ToolFile};
use super::json::toml_to_json;

/// Names that are shapes of an answer, not resource kinds.
pub const SHAPES: &[&str] = &["text", "log", "nothing"];

/// What an entry may refer to.
pub struct Known<'a> {
    pub shared: &'a SharedFile,
    pub kinds: &'a KindsFile,
    pub handlers: BTreeSet<String>,
    pub checks: BTreeSet<String>,
}

/// An action after shared parameters are expanded and defaults applied.
pub struct Action {
    pub name: String,
    pub summary: String,
    /// `None` for the generated `help`, the only local action.
    pub rest: Option<(String, String)>,
    pub handler: Option<String>,
    pub read_only: bool,
    pub destructive: bool,
    pub idempotent: bool,
    pub returns: String,
    pub params: Vec<NamedParamDef>,
    pub hints: Vec<(u16, String)>,
    /// Name, JSON text, location.
    pub fixed: Vec<(String, String, &'static str)>,
    pub check: Option<String>,
    pub one_of: Vec<Vec<String>>,
    /// Where it came from, for messages.
    pub here: String,
}

pub fn action(a: &ActionDef, known: &Known, file: &str) -> Action {
    let here = format!("{file} action `{}`", a.name);
    let (method, template) = a
        .http
        .split_once(' ')
        .unwrap_or_else(|| panic!("{here}: `http` must be \"METHOD /path\""));
    if !matches!(method, "GET" | "POST" | "PUT" | "PATCH" | "DELETE") {
        panic!("{here}: unsupported HTTP method {method}");
    }

    let mut params: Vec<NamedParamDef> = Vec::new();
    for name in &a.uses {
        let names = known
            .shared
            .bundles
            .get(name)
            .cloned()
            .unwrap_or_else(|| vec![name.clone()]);
        for n in names {
            let def =
                known.shared.params.get(&n).unwrap_or_else(|| {
                    panic!("{here}: `use` names unknown shared parameter `{n}`")
                });
            params.push(NamedParamDef {
                name: n,
                def: def.clone(),
            });
        }
    }
    params.extend(a.params.iter().cloned());

    // Where a parameter goes when the entry does not say: GitLab reads the
    // query string of GET and DELETE requests and the body of the others.
    let default_location = match method {
        "POST" | "PUT" | "PATCH" => "body",
        _ => "query",
    };
    for p in &mut params {
        if p.def.location.is_none() {
            p.def.location = Some(default_location.to_string());
        }
    }

    let hints = a
        .hints
        .iter()
        .map(|(k, v)| {
            let status = k
                .parse()
                .unwrap_or_else(|_| panic!("{here}: hint key `{k}` is not an HTTP status"));
            (status, v.clone())
        })
        .collect();

    let fixed = a
        .fixed
        .iter()
        .map(|(k, v)| {
            let json = toml_to_json(v).unwrap_or_else(|e| panic!("{here}: fixed `{k}`: {e}"));
            let location = if default_location == "body" {
                "Body"
            } else {
                "Query"
            };
            (k.clone(), json, location)
        })
        .collect();

    check_returns(&a.returns, known.kinds, &here);
    if let Some(handler) = &a.handler
        && !known.handlers.contains(handler)
    {
        panic!(
            "{here}: handler `{handler}` has no file src/handlers/{handler}.rs (handlers: {})",
            list(&known.handlers)
        );
    }
    if let Some(check) = &a.check
        && !known.checks.contains(check)
    {
        panic!(
            "{here}: check `{check}` has no file src/dispatch/checks/{check}.rs (checks: {})",
            list(&known.checks)
        );
    }

    for p in &params {
        check_deprecation(p, &params, &here);
    }
    for group in &a.one_of {
        for name in group {
            if !params.iter().any(|p| p.name == *name) {
                panic!("{here}: one_of names `{name}`, which is not a parameter of the action");
            }
        }
    }

    Action {
        name: a.name.clone(),
        summary: a.summary.clone(),
        one_of: a.one_of.clone(),
        rest: Some((method.to_string(), template.to_string())),
        handler: a.handler.clone(),
        // Every annotation must be written out: an entry cannot silently
        // inherit a default.
        read_only: annotation(a.read_only, "read_only", &here),
        destructive: annotation(a.destructive, "destructive", &here),
        idempotent: annotation(a.idempotent, "idempotent", &here),
        returns: a.returns.clone(),
        params,
        hints,
        fixed,
        check: a.check.clone(),
        here,
    }
}

/// Every toolset a tool file names is declared in `_shared.toml`.
pub fn check_toolsets(tool: &ToolFile, shared: &SharedFile, file: &str) {
    for set in &tool.toolsets {
        if !shared.toolsets.contains_key(set) {
            panic!(
                "{file}: toolset `{set}` is not declared in catalog/_shared.toml [toolsets] (declared: {})",
                shared
                    .toolsets
                    .keys()
                    .cloned()
                    .collect::<Vec<_>>()
                    .join(", ")
            );
        }
    }
}

fn check_returns(returns: &str, kinds: &KindsFile, here: &str) {
    let kind = returns.strip_suffix("[]").unwrap_or(returns);
    if SHAPES.contains(&returns) {
        return;
    }
    if SHAPES.contains(&kind) || !kinds.kinds.contains_key(kind) {
        panic!(
            "{here}: returns `{returns}` names no kind of catalog/kinds.toml (declare it there, or use \"text\", \"log\" or \"nothing\")"
        );
    }
}

fn list(names: &BTreeSet<String>) -> String {
    if names.is_empty() {
        "none".into()
    } else {
        names.iter().cloned().collect::<Vec<_>>().join(", ")
    }
}

fn annotation(value: Option<bool>, key: &str, here: &str) -> bool {
    value.unwrap_or_else(|| panic!("{here}: `{key}` must be given (true or false)"))
}

/// Every tool answers `help`, generated here so it always lists the tool's
/// real actions.
pub fn help_action(tool: &ToolFile) -> Action {
    Action {
        name: "help".into(),
        summary: "Describe this tool's actions, or one action's parameters in full.".into(),
        rest: None,
        handler: None,
        read_only: true,
        destructive: false,
        idempotent: true,
        returns: "text".into(),
        params: vec![
            help_param(
                "action",
                tool.actions.iter().map(|a| a.name.clone()).collect(),
                "The action to describe; omit to list every action.",
            ),
            help_param(
                "search",
                Vec::new(),
                "Only the parameters whose name or description holds this word.",
            ),
        ],
        hints: Vec::new(),
        fixed: Vec::new(),
        check: None,
        one_of: Vec::new(),
        here: format!("{} action `help`", tool.name),
    }
}

fn help_param(name: &str, allowed: Vec<String>, doc: &str) -> NamedParamDef {
    NamedParamDef {
        name: name.into(),
        def: ParamDef {
            ty: "string".into(),
            location: Some("query".into()),
            required: false,
            allowed,
            default: None,
            format: None,
            minimum: None,
            maximum: None,
            items: None,
            style: None,
            fields: Vec::new(),
            quick_actions: false,
            deprecated: false,
            replaced_by: None,
            doc: doc.into(),
        },
    }
}

/// A deprecated parameter names its replacement, if any, among the current
/// parameters of the same action.
fn check_deprecation(p: &NamedParamDef, params: &[NamedParamDef], here: &str) {
    let Some(current) = &p.def.replaced_by else {
        return;
    };
    if !p.def.deprecated {
        panic!("{here}: `{}` has replaced_by but is not deprecated", p.name);
    }
    match params.iter().find(|q| q.name == *current) {
        None => panic!(
            "{here}: `{}` is replaced_by `{current}`, which is not a parameter of the action",
            p.name
        ),
        Some(q) if q.def.deprecated => panic!(
            "{here}: `{}` is replaced_by `{current}`, which is deprecated too",
            p.name
        ),
        Some(_) => {}
    }
}

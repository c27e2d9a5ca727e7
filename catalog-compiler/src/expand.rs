//! One tool file, expanded and checked: its toolsets and its own
//! `[params]`, then each action: the `http` taken apart, the parameters
//! resolved and placed (`params`), every reference (kind, handler, check,
//! placeholder) resolved, the annotations written out; `help` added. A
//! problem is reported with its file, action and key, and the checking
//! goes on.

use std::collections::BTreeSet;

use crate::defs::{ActionDef, KindsFile, Location, ParamDef, ParamType, SharedFile, ToolFile};
use crate::graphql::{self, Graphql};
use crate::json::toml_to_json;
use crate::params::{self, Declared, Param, declaration};
use crate::problem::{Place, Report};
use crate::template::{self, Http, Method, Piece};

/// Names that are shapes of an answer, not resource kinds.
const SHAPES: &[&str] = &["text", "log", "nothing"];

/// What an entry may refer to, and how problems name where it lives.
pub struct Known<'a> {
    pub shared: &'a SharedFile,
    /// `catalog/_shared.toml`
    pub shared_file: &'a str,
    pub kinds: &'a KindsFile,
    pub handlers: CodeFiles<'a>,
    /// The handlers of GraphQL actions (`src/handlers/graphql/actions`).
    pub graphql_handlers: CodeFiles<'a>,
    pub checks: CodeFiles<'a>,
    /// The stems of `catalog/icons/*.svg`, and that folder as problems name it.
    pub icons: &'a BTreeSet<String>,
    pub icons_dir: &'a str,
    pub graphql: graphql::Known<'a>,
}

/// The `.rs` files of a folder of handlers or checks.
pub struct CodeFiles<'a> {
    pub names: &'a BTreeSet<String>,
    /// `src/handlers`
    pub dir: String,
}

/// An action after shared parameters are expanded and defaults applied.
pub struct Action {
    pub name: String,
    pub summary: String,
    pub route: Route,
    /// A handler or check the catalog names, only when its file exists
    /// (a GraphQL action's handler is in `src/handlers/graphql/actions`).
    pub handler: Option<String>,
    pub check: Option<String>,
    pub read_only: bool,
    pub destructive: bool,
    pub idempotent: bool,
    pub returns: String,
    pub params: Vec<Param>,
    pub hints: Vec<(u16, String)>,
    pub fixed: Vec<Fixed>,
    pub one_of: Vec<Vec<String>>,
    pub long_running: bool,
}

/// How an action is carried out.
pub enum Route {
    Rest(Rest),
    Graphql(Graphql),
    /// The generated `help`, the only local action.
    Help,
}

/// A REST endpoint: the method and the template split at its placeholders.
pub struct Rest {
    pub method: Method,
    pub template: String,
    pub parts: Vec<Part>,
}

pub enum Part {
    Literal(String),
    /// A placeholder: the index of its parameter.
    Param(usize),
}

/// A constant always sent.
pub struct Fixed {
    pub name: String,
    /// The value as JSON text.
    pub json: String,
    pub location: Location,
}

/// Every action of a tool file, `help` last; the file's own checks too.
pub fn tool(tool: &ToolFile, known: &Known, file: &Place, report: &mut Report) -> Vec<Action> {
    if !known.icons.contains(&tool.icon) {
        report.field(
            file,
            "icon",
            format!(
                "`{}` has no file {}/{}.svg (icons: {})",
                tool.icon,
                known.icons_dir,
                tool.icon,
                list(known.icons.iter())
            ),
        );
    }
    for set in &tool.toolsets {
        if !known.shared.toolsets.contains_key(set) {
            report.field(
                file,
                "toolsets",
                format!(
                    "toolset `{set}` is not declared in {} [toolsets] (declared: {})",
                    known.shared_file,
                    list(known.shared.toolsets.keys())
                ),
            );
        }
    }
    for (i, name) in tool.featured.iter().enumerate() {
        if !tool.actions.iter().any(|a| &a.name == name) {
            report.field(
                file,
                "featured",
                format!("`{name}` is not an action of this file"),
            );
        } else if tool.featured[..i].contains(name) {
            report.field(file, "featured", format!("`{name}` is named twice"));
        }
    }
    for (name, def) in &tool.params {
        let at = file.then(format_args!("param `{name}`"));
        declaration(def, Declared::InToolFile, &at, report);
        if !tool.actions.iter().any(|a| a.uses.contains(name)) {
            report.push(
                &at,
                None,
                "is declared in this file's [params] but no action `use`s it",
            );
        }
    }
    tool.actions
        .iter()
        .filter_map(|a| {
            action(
                a,
                tool,
                known,
                &file.then(format_args!("action `{}`", a.name)),
                report,
            )
        })
        .chain(std::iter::once(help_action(tool)))
        .collect()
}

/// One action expanded and checked; `None` when its `http` or its
/// document cannot be read.
fn action(
    a: &ActionDef,
    tool: &ToolFile,
    known: &Known,
    at: &Place,
    report: &mut Report,
) -> Option<Action> {
    // An `http` that cannot be read is reported, and the rest of the entry
    // is still checked, against a template without placeholders. A GraphQL
    // action's parameters are sent in the body, as variables.
    let (http, readable) = match (&a.http, &a.graphql) {
        (Some(http), None) => match template::parse(http) {
            Ok(http) => (http, true),
            Err(problem) => {
                report.field(at, "http", problem);
                (Http::unreadable(), false)
            }
        },
        (None, Some(_)) => (Http::graphql(), true),
        (Some(_), Some(_)) => {
            report.field(at, "graphql", "an action has `http` or `graphql`, not both");
            (Http::unreadable(), false)
        }
        (None, None) => {
            report.field(
                at,
                "http",
                "an action has `http` (a REST endpoint) or `graphql` (a GraphQL document)",
            );
            (Http::unreadable(), false)
        }
    };
    let params = params::of(a, tool, known, &http, at, report);
    let parts = parts(&http, &params, at, report);

    let hints = a
        .hints
        .iter()
        .filter_map(|(k, v)| match k.parse() {
            Ok(status) => Some((status, v.clone())),
            Err(_) => {
                report.field(at, "hints", format!("hint key `{k}` is not an HTTP status"));
                None
            }
        })
        .collect();
    let fixed = a
        .fixed
        .iter()
        .filter_map(|(k, v)| match toml_to_json(v) {
            Ok(json) => Some(Fixed {
                name: k.clone(),
                json,
                location: params::sent_in(http.method),
            }),
            Err(e) => {
                report.field(at, "fixed", format!("`{k}`: {e}"));
                None
            }
        })
        .collect();

    check_returns(&a.returns, known.kinds, at, report);
    if a.long_running && a.destructive == Some(true) {
        // A task runs detached from its request: no one is there to confirm.
        report.field(
            at,
            "long_running",
            "a destructive action cannot be long-running: a task has no one to confirm it",
        );
    }
    // A GraphQL action's handler is one of `src/handlers/graphql/actions`.
    let graphql = a.graphql.as_deref().filter(|_| a.http.is_none());
    let handlers = match graphql {
        Some(_) => &known.graphql_handlers,
        None => &known.handlers,
    };
    let handler = code_file(a.handler.as_deref(), "handler", handlers, at, report);
    let check = code_file(a.check.as_deref(), "check", &known.checks, at, report);
    let route = match graphql {
        Some(document) => {
            graphql::route(a, document, &params, &known.graphql, at, report).map(Route::Graphql)
        }
        None => {
            if !a.variables.is_empty() || !a.answer.is_empty() {
                report.field(
                    at,
                    "variables",
                    "`variables` and `answer` belong to a GraphQL action",
                );
            }
            readable.then(|| {
                Route::Rest(Rest {
                    method: http.method,
                    template: http.template.to_string(),
                    parts,
                })
            })
        }
    };
    let route = route.filter(|_| readable)?;
    Some(Action {
        name: a.name.clone(),
        summary: a.summary.clone(),
        route,
        handler,
        check,
        // Every annotation must be written out: an entry cannot silently
        // inherit a default.
        read_only: annotation(a.read_only, "read_only", at, report),
        destructive: annotation(a.destructive, "destructive", at, report),
        idempotent: annotation(a.idempotent, "idempotent", at, report),
        returns: a.returns.clone(),
        params,
        hints,
        fixed,
        one_of: a.one_of.clone(),
        long_running: a.long_running,
    })
}

/// The template's pieces, each placeholder as the index of its parameter.
fn parts(http: &Http, params: &[Param], at: &Place, report: &mut Report) -> Vec<Part> {
    http.pieces
        .iter()
        .filter_map(|piece| match piece {
            Piece::Literal(text) => Some(Part::Literal(text.to_string())),
            Piece::Placeholder(name) => match params.iter().position(|p| p.name == *name) {
                Some(index) => Some(Part::Param(index)),
                None => {
                    report.field(
                        at,
                        "http",
                        format!(
                            "placeholder {{{name}}} has no parameter (declare it, or `use` it)"
                        ),
                    );
                    None
                }
            },
        })
        .collect()
}

fn check_returns(returns: &str, kinds: &KindsFile, at: &Place, report: &mut Report) {
    let kind = returns.strip_suffix("[]").unwrap_or(returns);
    if SHAPES.contains(&returns) {
        return;
    }
    if SHAPES.contains(&kind) || !kinds.kinds.contains_key(kind) {
        report.field(
            at,
            "returns",
            format!(
                "`{returns}` names no kind of catalog/kinds.toml (declare it there, or use \"text\", \"log\" or \"nothing\")"
            ),
        );
    }
}

/// A `handler` or `check` name: a snake_case word with a file of that name
/// in its folder. The name only when both hold.
fn code_file(
    name: Option<&str>,
    key: &'static str,
    files: &CodeFiles,
    at: &Place,
    report: &mut Report,
) -> Option<String> {
    let name = name?;
    if !is_snake_case(name) {
        report.field(
            at,
            key,
            format!(
                "`{name}` is not a snake_case name (it becomes a file name and an enum variant)"
            ),
        );
        return None;
    }
    if !files.names.contains(name) {
        report.field(
            at,
            key,
            format!(
                "{key} `{name}` has no file {}/{name}.rs ({key}s: {})",
                files.dir,
                list(files.names.iter())
            ),
        );
        return None;
    }
    Some(name.to_string())
}

/// `line_comment`: lowercase words of letters and digits, one `_` apart.
fn is_snake_case(name: &str) -> bool {
    name.starts_with(|c: char| c.is_ascii_lowercase())
        && name.split('_').all(|word| {
            !word.is_empty()
                && word
                    .bytes()
                    .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit())
        })
}

fn list<'a>(names: impl Iterator<Item = &'a String>) -> String {
    let names: Vec<&str> = names.map(String::as_str).collect();
    if names.is_empty() {
        "none".into()
    } else {
        names.join(", ")
    }
}

fn annotation(value: Option<bool>, key: &'static str, at: &Place, report: &mut Report) -> bool {
    value.unwrap_or_else(|| {
        report.field(at, key, format!("`{key}` must be given (true or false)"));
        false
    })
}

/// Every tool answers `help`, generated here so it always lists the tool's
/// real actions.
fn help_action(tool: &ToolFile) -> Action {
    Action {
        name: "help".into(),
        summary: "Describe this tool's actions, or one action's parameters in full.".into(),
        route: Route::Help,
        handler: None,
        check: None,
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
        one_of: Vec::new(),
        long_running: false,
    }
}

fn help_param(name: &str, allowed: Vec<String>, doc: &str) -> Param {
    Param {
        name: name.into(),
        def: ParamDef {
            ty: ParamType::String,
            location: None,
            required: None,
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
            role: None,
            doc: doc.into(),
        },
        location: Location::Query,
        required: false,
        default: None,
    }
}

//! One tool file, expanded and checked: `use` resolved (the file's own
//! `[params]` first, then `_shared.toml`'s bundles and parameters), path
//! parameters inferred from the template's placeholders, default
//! locations filled in, every reference (kind, toolset, handler, check,
//! placeholder) resolved. A problem is reported with its file, action and
//! field, and the checking goes on.

use std::collections::BTreeSet;

use crate::defs::{ActionDef, KindsFile, Location, ParamDef, ParamType, SharedFile, ToolFile};
use crate::json::toml_to_json;
use crate::problem::{Place, Report};
use crate::template::{self, Http, Method, Piece};

/// Names that are shapes of an answer, not resource kinds.
pub const SHAPES: &[&str] = &["text", "log", "nothing"];

/// What an entry may refer to, and how problems name where it lives.
pub struct Known<'a> {
    pub shared: &'a SharedFile,
    /// `catalog/_shared.toml`
    pub shared_file: &'a str,
    pub kinds: &'a KindsFile,
    /// The `.rs` files of the handlers' and the checks' folders.
    pub handler_files: &'a BTreeSet<String>,
    pub check_files: &'a BTreeSet<String>,
    /// `src/handlers`, `src/dispatch/checks`
    pub handlers_dir: &'a str,
    pub checks_dir: &'a str,
}

/// An action after shared parameters are expanded and defaults applied.
pub struct Action {
    pub name: String,
    pub summary: String,
    /// `None` for the generated `help`, the only local action.
    pub rest: Option<Rest>,
    /// A handler or check the catalog names, only when its file exists.
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

/// A parameter of one action, placed.
pub struct Param {
    pub name: String,
    pub def: ParamDef,
    pub location: Location,
    pub required: bool,
    /// `default` as JSON text.
    pub default: Option<String>,
}

/// A constant always sent.
pub struct Fixed {
    pub name: String,
    /// The value as JSON text.
    pub json: String,
    pub location: Location,
}

/// Where a parameter of an action was declared: a mistake in a shared
/// declaration is reported there, once, not in every action that uses it.
#[derive(Clone, Copy)]
enum Origin<'a> {
    Action,
    ToolFile,
    Shared(&'a str),
}

impl Origin<'_> {
    fn place(self, action: &Place, name: &str) -> Place {
        let param = format_args!("param `{name}`");
        match self {
            Origin::Action => action.then(param),
            Origin::ToolFile => action.file_only().then(param),
            Origin::Shared(file) => Place::file(file).then(param),
        }
    }
}

/// Every action of a tool file, `help` last; the file's own checks too.
pub fn tool(tool: &ToolFile, known: &Known, file: &Place, report: &mut Report) -> Vec<Action> {
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
    for (name, def) in &tool.params {
        let at = file.then(format_args!("param `{name}`"));
        declaration(def, &at, report);
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

/// The checks a parameter's declaration needs wherever it is used.
pub fn declaration(def: &ParamDef, at: &Place, report: &mut Report) {
    if def.location == Some(Location::Path) {
        report.field(
            at,
            "in",
            "`in = \"path\"` is never written: a parameter is in the path exactly when the action's `http` names it as a {placeholder}",
        );
    }
    if (def.minimum.is_some() || def.maximum.is_some()) && def.ty != ParamType::Integer {
        report.field(at, "minimum", "`minimum` and `maximum` bound integers");
    }
    if !def.fields.is_empty() && def.items != Some(ParamType::Object) {
        report.field(
            at,
            "fields",
            "`fields` describe the objects of an array with items = \"object\"",
        );
    }
    if let Some(value) = &def.default
        && let Err(e) = toml_to_json(value)
    {
        report.field(at, "default", e);
    }
    if def.replaced_by.is_some() && !def.deprecated {
        report.field(at, "replaced_by", "has replaced_by but is not deprecated");
    }
}

/// One action expanded; `None` when its `http` cannot be read.
fn action(
    a: &ActionDef,
    tool: &ToolFile,
    known: &Known,
    at: &Place,
    report: &mut Report,
) -> Option<Action> {
    let http = match template::parse(&a.http) {
        Ok(http) => http,
        Err(problem) => {
            report.field(at, "http", problem);
            return None;
        }
    };
    // Where a parameter goes when it is not a placeholder and the entry
    // does not say: GitLab reads the query string of GET and DELETE
    // requests and the body of the others.
    let default_location = match http.method {
        Method::Post | Method::Put | Method::Patch => Location::Body,
        Method::Get | Method::Delete => Location::Query,
    };

    let params: Vec<Param> = declared(a, tool, known, at, report)
        .into_iter()
        .map(|(name, def, origin)| place(name, def, origin, &http, default_location, at, report))
        .collect();
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
                location: default_location,
            }),
            Err(e) => {
                report.field(at, "fixed", format!("`{k}`: {e}"));
                None
            }
        })
        .collect();

    check_returns(&a.returns, known.kinds, at, report);
    let handler = code_file(
        a.handler.as_deref(),
        "handler",
        known.handler_files,
        known.handlers_dir,
        at,
        report,
    );
    let check = code_file(
        a.check.as_deref(),
        "check",
        known.check_files,
        known.checks_dir,
        at,
        report,
    );
    for p in &params {
        check_replacement(p, &params, at, report);
    }
    for group in &a.one_of {
        for name in group {
            if !params.iter().any(|p| p.name == *name) {
                report.field(
                    at,
                    "one_of",
                    format!("`{name}` is not a parameter of the action"),
                );
            }
        }
    }

    Some(Action {
        name: a.name.clone(),
        summary: a.summary.clone(),
        rest: Some(Rest {
            method: http.method,
            template: http.template.to_string(),
            parts,
        }),
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
    })
}

/// The action's parameters in order: what `use` names, then its own.
fn declared<'a>(
    a: &'a ActionDef,
    tool: &'a ToolFile,
    known: &Known<'a>,
    at: &Place,
    report: &mut Report,
) -> Vec<(&'a str, &'a ParamDef, Origin<'a>)> {
    let shared = known.shared;
    let mut params = Vec::new();
    for name in &a.uses {
        if let Some(def) = tool.params.get(name) {
            params.push((name.as_str(), def, Origin::ToolFile));
            continue;
        }
        let names = match shared.bundles.get(name) {
            Some(bundle) => bundle.as_slice(),
            None => std::slice::from_ref(name),
        };
        for n in names {
            match shared.params.get_key_value(n) {
                Some((n, def)) => params.push((n.as_str(), def, Origin::Shared(known.shared_file))),
                None => report.field(
                    at,
                    "use",
                    format!(
                        "`{n}` is a parameter of neither this file's [params] nor {}",
                        known.shared_file
                    ),
                ),
            }
        }
    }
    for p in &a.params {
        declaration(&p.def, &at.then(format_args!("param `{}`", p.name)), report);
        params.push((p.name.as_str(), &p.def, Origin::Action));
    }
    params
}

/// Where a parameter goes and whether it is required: a placeholder of
/// the template is a required path parameter, and says neither.
fn place(
    name: &str,
    def: &ParamDef,
    origin: Origin,
    http: &Http,
    default_location: Location,
    at: &Place,
    report: &mut Report,
) -> Param {
    let (location, required) = if http.has_placeholder(name) {
        let declared = origin.place(at, name);
        if let Some(given @ (Location::Query | Location::Body)) = def.location {
            report.field(
                &declared,
                "in",
                format!(
                    "is a placeholder of the path ({{{name}}}), so it goes in the path, not the {}",
                    if given == Location::Query {
                        "query"
                    } else {
                        "body"
                    },
                ),
            );
        }
        if def.required.is_some() {
            report.field(
                &declared,
                "required",
                format!(
                    "is a placeholder of the path ({{{name}}}), always required: remove `required`"
                ),
            );
        }
        (Location::Path, true)
    } else {
        let location = match def.location {
            Some(Location::Path) | None => default_location,
            Some(given) => given,
        };
        (location, def.required.unwrap_or(false))
    };
    Param {
        name: name.to_string(),
        def: def.clone(),
        location,
        required,
        default: def.default.as_ref().and_then(|v| toml_to_json(v).ok()),
    }
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
    files: &BTreeSet<String>,
    dir: &str,
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
    if !files.contains(name) {
        report.field(
            at,
            key,
            format!(
                "{key} `{name}` has no file {dir}/{name}.rs ({key}s: {})",
                list(files.iter())
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

/// A deprecated parameter's replacement is a current parameter of the
/// same action.
fn check_replacement(p: &Param, params: &[Param], at: &Place, report: &mut Report) {
    let Some(current) = &p.def.replaced_by else {
        return;
    };
    let at = at.then(format_args!("param `{}`", p.name));
    match params.iter().find(|q| q.name == *current) {
        None => report.field(
            &at,
            "replaced_by",
            format!("`{current}` is not a parameter of the action"),
        ),
        Some(q) if q.def.deprecated => {
            report.field(&at, "replaced_by", format!("`{current}` is deprecated too"))
        }
        Some(_) => {}
    }
}

/// Every tool answers `help`, generated here so it always lists the tool's
/// real actions.
fn help_action(tool: &ToolFile) -> Action {
    Action {
        name: "help".into(),
        summary: "Describe this tool's actions, or one action's parameters in full.".into(),
        rest: None,
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
            doc: doc.into(),
        },
        location: Location::Query,
        required: false,
        default: None,
    }
}

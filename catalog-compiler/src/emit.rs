//! Writing the catalog as Rust statics of `src/catalog/model.rs`'s types,
//! and the `Handler` and `Check` enums of the names it uses. Strings are
//! written with `{:?}`, which is valid Rust literal syntax; JSON values are
//! first made JSON text by `json::toml_to_json`. Tool files come checked
//! (`expand`); the few checks of the other files are made here, where
//! each value is written, and reported without stopping. (Writing to a
//! `String` cannot fail: hence the `unwrap`s of `write!`.)

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;

use crate::defs::{
    KindsFile, Location, ParamType, PromptsFile, SharedFile, ToolFile, UrlsFile, VocabularyFile,
};
use crate::expand::{Action, Part, Route};
use crate::graphql::{Document, Feed, Graphql};
use crate::json::toml_to_json;
use crate::params::Param;
use crate::problem::{Place, Report};

fn kind_static(name: &str) -> String {
    format!("KIND_{}", name.to_ascii_uppercase())
}

pub fn kinds(out: &mut String, kinds: &KindsFile, file: &Place, report: &mut Report) {
    for (name, def) in &kinds.kinds {
        let long_text = def.long_text.as_ref().unwrap_or(&kinds.defaults.long_text);
        let diffs = match def.diffs.as_deref() {
            None => "Diffs::None".to_string(),
            Some("self") => "Diffs::Itself".to_string(),
            Some(field) if !field.is_empty() => format!("Diffs::InField({field:?})"),
            Some(_) => {
                report.field(
                    &file.then(format_args!("kind `{name}`")),
                    "diffs",
                    "`diffs` is \"self\" or a field name",
                );
                "Diffs::None".to_string()
            }
        };
        writeln!(
            out,
            "pub static {}: KindSpec = KindSpec {{ name: {name:?}, summary: &{:?}, long_text: &{:?}, diffs: {diffs}, fields: &{:?} }};",
            kind_static(name),
            def.summary,
            long_text,
            def.fields
        )
        .unwrap();
    }
    out.push_str("pub static KINDS: &[&KindSpec] = &[");
    for name in kinds.kinds.keys() {
        write!(out, "&{},", kind_static(name)).unwrap();
    }
    out.push_str("];\n");
}

/// The server's own icon, `catalog/icons/server.svg`; its absence is a
/// problem.
pub fn server_icon(out: &mut String, svg: Option<&String>, icons_dir: &str, report: &mut Report) {
    if svg.is_none() {
        report.push(
            &Place::file(format!("{icons_dir}/server.svg")),
            None,
            "missing: the server's own icon",
        );
    }
    writeln!(
        out,
        "pub static SERVER_ICON: &str = {:?};",
        svg.map_or("", String::as_str)
    )
    .unwrap();
}

pub fn toolsets(out: &mut String, shared: &SharedFile) {
    out.push_str("pub static TOOLSETS: &[ToolsetSpec] = &[");
    for (name, doc) in &shared.toolsets {
        write!(out, "ToolsetSpec {{ name: {name:?}, doc: {doc:?} }},").unwrap();
    }
    out.push_str("];\n");
}

/// A value as JSON text, or `null` with the problem reported.
fn json(value: &toml::Value, at: &Place, field: &'static str, report: &mut Report) -> String {
    toml_to_json(value).unwrap_or_else(|e| {
        report.field(at, field, e);
        "null".into()
    })
}

pub fn vocabulary(out: &mut String, v: &VocabularyFile, file: &Place, report: &mut Report) {
    let mut json_pairs = |table: &BTreeMap<String, toml::Value>, what: &'static str| {
        table
            .iter()
            .map(|(k, value)| {
                let json = json(value, &file.then(format_args!("`{k}`")), what, report);
                format!("({k:?}, {json:?}),")
            })
            .collect::<String>()
    };
    let by_name = json_pairs(&v.examples.by_name, "examples.by_name");
    let by_format = json_pairs(&v.examples.by_format, "examples.by_format");
    let synonyms: String = v
        .param_synonyms
        .iter()
        .map(|(k, names)| format!("({k:?}, &{names:?}),"))
        .collect();
    let words: String = v
        .action_words
        .iter()
        .map(|(k, w)| format!("({k:?}, {w:?}),"))
        .collect();
    let action_synonyms: String = v
        .action_synonyms
        .iter()
        .map(|(k, names)| format!("({k:?}, &{names:?}),"))
        .collect();
    // In the order of the names, as the catalog sorts them.
    let mut by_type: Vec<_> = v.examples.by_type.iter().collect();
    by_type.sort_by_key(|(ty, _)| ty_name(**ty));
    let by_type: String = by_type
        .into_iter()
        .map(|(ty, value)| {
            let json = json(
                value,
                &file.then(format_args!("`{}`", ty_name(*ty))),
                "examples.by_type",
                report,
            );
            format!("(ParamType::{ty:?}, {json:?}),")
        })
        .collect();
    let peer_toolsets: String = v
        .peer_toolsets
        .iter()
        .map(|(k, tools)| format!("({k:?}, &{tools:?}),"))
        .collect();
    let peer_tools: String = v
        .peer_tools
        .iter()
        .map(|(k, target)| {
            let (tool, action) = tool_action(
                target,
                &file.then(format_args!("`{k}`")),
                "peer_tools",
                report,
            );
            format!("({k:?}, {tool:?}, {action:?}),")
        })
        .collect();
    writeln!(
        out,
        "pub static VOCABULARY: Vocabulary = Vocabulary {{ param_synonyms: &[{synonyms}], action_words: &[{words}], action_synonyms: &[{action_synonyms}], params_aliases: &{:?}, action_aliases: &{:?}, examples_by_name: &[{by_name}], examples_by_format: &[{by_format}], examples_by_type: &[{by_type}], peer_toolsets: &[{peer_toolsets}], peer_tools: &[{peer_tools}] }};",
        v.envelope_aliases.params,
        v.envelope_aliases.action,
    )
    .unwrap();
}

/// `"gitlab_issue.get"` as the tool and the action.
fn tool_action<'a>(
    target: &'a str,
    at: &Place,
    field: &'static str,
    report: &mut Report,
) -> (&'a str, &'a str) {
    target.split_once('.').unwrap_or_else(|| {
        report.field(at, field, "write it as \"gitlab_tool.action\"");
        (target, "")
    })
}

/// How the catalog writes a type (`string`), for messages.
fn ty_name(ty: ParamType) -> String {
    format!("{ty:?}").to_ascii_lowercase()
}

/// A tool, with its icon's SVG text.
pub fn tool(out: &mut String, tool: &ToolFile, icon: &str, actions: &[Action]) {
    writeln!(
        out,
        "ToolSpec {{ name: {:?}, title: {:?}, toolsets: &{:?}, summary: {:?}, example: {:?}, featured: &{:?}, icon: {icon:?}, actions: &[",
        tool.name, tool.title, tool.toolsets, tool.summary, tool.example, tool.featured
    )
    .unwrap();
    for a in actions {
        action(out, a);
    }
    out.push_str("] },\n");
}

fn action(out: &mut String, a: &Action) {
    let (route, handler) = match &a.route {
        Route::Rest(rest) => {
            let parts: String = rest
                .parts
                .iter()
                .map(|part| match part {
                    Part::Literal(text) => format!("PathPart::Literal({text:?}),"),
                    Part::Param(index) => format!("PathPart::Param({index}),"),
                })
                .collect();
            let route = format!(
                "Route::Rest(RestRoute {{ method: Method::{:?}, template: {:?}, parts: &[{parts}] }})",
                rest.method, rest.template
            );
            (route, variant_of("Handler", a.handler.as_deref()))
        }
        Route::Graphql(graphql) => (
            graphql_route(graphql, a.handler.as_deref()),
            "None".to_string(),
        ),
        Route::Help => ("Route::Local(Local::Help)".to_string(), "None".to_string()),
    };
    let returns = match a.returns.as_str() {
        "text" => "Returns::Text(TextStart::Head)".to_string(),
        "log" => "Returns::Text(TextStart::Tail)".to_string(),
        "nothing" => "Returns::Nothing".to_string(),
        r => match r.strip_suffix("[]") {
            Some(kind) => format!("Returns::List(&{})", kind_static(kind)),
            None => format!("Returns::One(&{})", kind_static(r)),
        },
    };
    let hints: String = a
        .hints
        .iter()
        .map(|(s, h)| format!("({s}, {h:?}),"))
        .collect();
    let fixed: String = a
        .fixed
        .iter()
        .map(|f| {
            format!(
                "FixedParam {{ name: {:?}, json: {:?}, location: Location::{:?} }},",
                f.name, f.json, f.location
            )
        })
        .collect();
    write!(
        out,
        "ActionSpec {{ name: {:?}, summary: {:?}, route: {route}, read_only: {}, destructive: {}, idempotent: {}, long_running: {}, returns: {returns}, hints: &[{hints}], fixed: &[{fixed}], check: {}, handler: {}, one_of: &[{}], params: &[",
        a.name,
        a.summary,
        a.read_only,
        a.destructive,
        a.idempotent,
        a.long_running,
        variant_of("Check", a.check.as_deref()),
        handler,
        a.one_of.iter().map(|g| format!("&{g:?},")).collect::<String>()
    )
    .unwrap();
    for p in &a.params {
        param(out, p);
    }
    out.push_str("] },\n");
}

/// The web URL parameter (`role = "web_url"` in `_shared.toml`), which
/// every action with a project parameter takes without naming it.
pub fn web_url(out: &mut String, web_url: Option<Param>) {
    out.push_str("pub static WEB_URL: Option<&ParamSpec> = ");
    match web_url {
        Some(p) => {
            out.push_str("Some(&");
            param(out, &p);
            // `param` writes a list item: drop its `,\n`.
            out.truncate(out.trim_end().trim_end_matches(',').len());
            out.push_str(");\n");
        }
        None => out.push_str("None;\n"),
    }
}

/// `Route::Graphql(GraphqlRoute { ... })`.
fn graphql_route(g: &Graphql, handler: Option<&str>) -> String {
    let document = match &g.document {
        Some(name) => format!("Some(&documents::{})", document_static(name)),
        None => "None".into(),
    };
    let variables: String = g
        .variables
        .iter()
        .map(|v| {
            let feed = match &v.feed {
                Feed::Value => "Feed::Value".to_string(),
                Feed::Text => "Feed::Text".to_string(),
                Feed::Values(pairs) => {
                    let pairs: String = pairs
                        .iter()
                        .map(|(k, v)| format!("({k:?}, {v:?}),"))
                        .collect();
                    format!("Feed::Values(&[{pairs}])")
                }
                Feed::GlobalId(model) => format!("Feed::GlobalId({model:?})"),
                Feed::Resolve(resolver) => format!("Feed::Resolve(Resolver::{resolver:?})"),
            };
            format!(
                "VariableSpec {{ path: &{:?}, param: {:?}, feed: {feed} }},",
                v.path, v.param
            )
        })
        .collect();
    let answer: String = g.answer.iter().map(|path| format!("&{path:?},")).collect();
    format!(
        "Route::Graphql(GraphqlRoute {{ operation: Operation::{:?}, document: {document}, handler: {}, variables: &[{variables}], answer: &[{answer}] }})",
        g.operation,
        variant_of("GraphqlHandler", handler)
    )
}

fn document_static(name: &str) -> String {
    name.to_ascii_uppercase()
}

/// Every GraphQL document that reads, as `documents::<NAME>`: the actions
/// name theirs, the resolvers send the others.
pub fn documents(out: &mut String, documents: &BTreeMap<String, Document>) {
    out.push_str("pub mod documents {\nuse super::*;\n");
    for (name, d) in documents {
        writeln!(
            out,
            "pub static {}: StoredDocument = StoredDocument {{ name: {name:?}, operation: Operation::{:?}, operation_name: {:?}, root_fields: &{:?}, text: {:?} }};",
            document_static(name),
            d.operation,
            d.operation_name,
            d.root_fields,
            d.text
        )
        .unwrap();
    }
    out.push_str("}\n");
}

fn param(out: &mut String, p: &Param) {
    let d = &p.def;
    let items = match d.items {
        Some(t) => format!("Some(ParamType::{t:?})"),
        None => "None".into(),
    };
    // An id or iid in a path is at least 1, whatever the entry says.
    let minimum = d
        .minimum
        .or((p.location == Location::Path && d.ty == ParamType::Integer).then_some(1));
    let role = match d.role {
        Some(role) => format!("Some(Role::{role:?})"),
        None => "None".into(),
    };
    let fields: String = d
        .fields
        .iter()
        .map(|f| {
            format!(
                "FieldSpec {{ name: {:?}, ty: ParamType::{:?}, required: {}, allowed: &{:?}, quick_actions: {}, doc: {:?} }},",
                f.name, f.ty, f.required, f.allowed, f.quick_actions, f.doc
            )
        })
        .collect();
    writeln!(
        out,
        "ParamSpec {{ name: {:?}, ty: ParamType::{:?}, location: Location::{:?}, required: {}, allowed: &{:?}, default: {:?}, format: {:?}, minimum: {:?}, maximum: {:?}, items: {items}, style: ArrayStyle::{:?}, fields: &[{fields}], quick_actions: {}, deprecated: {}, replaced_by: {:?}, role: {role}, doc: {:?} }},",
        p.name,
        d.ty,
        p.location,
        p.required,
        d.allowed,
        p.default,
        d.format,
        minimum,
        d.maximum,
        d.style.unwrap_or_default(),
        d.quick_actions,
        d.deprecated,
        d.replaced_by,
        d.doc
    )
    .unwrap();
}

/// `pub enum Handler { ArtifactList, ... }`: one variant for each name the
/// catalog uses, so code that matches on it exhaustively fails to compile
/// when the catalog names one it has no arm for.
pub fn closed_set(out: &mut String, name: &str, doc: &str, names: &BTreeSet<String>) {
    let variants: String = names.iter().map(|n| format!("{},", variant(n))).collect();
    writeln!(
        out,
        "/// {doc}\n#[derive(Debug, Clone, Copy, PartialEq, Eq)]\npub enum {name} {{ {variants} }}"
    )
    .unwrap();
}

/// `Some(Handler::LineComment)` for `Some("line_comment")`.
fn variant_of(set: &str, name: Option<&str>) -> String {
    match name {
        Some(name) => format!("Some({set}::{})", variant(name)),
        None => "None".into(),
    }
}

/// `LineComment` for `line_comment`.
fn variant(name: &str) -> String {
    name.split('_')
        .map(|word| {
            let mut chars = word.chars();
            chars
                .next()
                .map(|first| first.to_ascii_uppercase().to_string() + chars.as_str())
                .unwrap_or_default()
        })
        .collect()
}

/// The prompts; every `{name}` and `[name]` of a text is a declared argument.
pub fn prompts(out: &mut String, prompts: &PromptsFile, file: &Place, report: &mut Report) {
    out.push_str("pub static PROMPTS: &[PromptSpec] = &[");
    for p in &prompts.prompts {
        let at = file.then(format_args!("prompt `{}`", p.name));
        let declared: Vec<&str> = p.arguments.iter().map(|a| a.name.as_str()).collect();
        for (open, close) in [('{', '}'), ('[', ']')] {
            let mut rest = p.text.as_str();
            while let Some(i) = rest.find(open) {
                let Some(end) = rest[i..].find(close).map(|e| e + i) else {
                    report.field(&at, "text", format!("unclosed `{open}`"));
                    break;
                };
                let name = rest[i + 1..end].trim_start_matches('/');
                if !declared.contains(&name) {
                    report.field(
                        &at,
                        "text",
                        format!(
                            "`{open}{name}{close}` names no argument (arguments: {})",
                            declared.join(", ")
                        ),
                    );
                }
                rest = &rest[end + 1..];
            }
        }
        let args: String = p
            .arguments
            .iter()
            .map(|a| {
                format!(
                    "PromptArg {{ name: {:?}, description: {:?}, required: {} }},",
                    a.name, a.description, a.required
                )
            })
            .collect();
        write!(
            out,
            "PromptSpec {{ name: {:?}, title: {:?}, description: {:?}, arguments: &[{args}], text: {:?} }},",
            p.name, p.title, p.description, p.text
        )
        .unwrap();
    }
    out.push_str("];\n");
}

/// The web URL shapes and reference prefixes.
pub fn urls(out: &mut String, urls: &UrlsFile, file: &Place, report: &mut Report) {
    out.push_str("pub static URL_SHAPES: &[UrlShape] = &[");
    for shape in &urls.shapes {
        let at = file.then(format_args!("shape `{}`", shape.path));
        let (tool, action) = tool_action(&shape.served_by, &at, "served_by", report);
        write!(
            out,
            "UrlShape {{ path: {:?}, what: {:?}, tool: {tool:?}, action: {action:?} }},",
            shape.path, shape.what
        )
        .unwrap();
    }
    out.push_str("];\npub static REFERENCES: &[(char, &[&str])] = &[");
    for (prefix, params) in &urls.references {
        let mut chars = prefix.chars();
        let (Some(c), None) = (chars.next(), chars.next()) else {
            report.field(
                &file.then(format_args!("`{prefix}`")),
                "references",
                "a reference prefix is one character",
            );
            continue;
        };
        write!(out, "({c:?}, &{params:?}),").unwrap();
    }
    out.push_str("];\n");
}

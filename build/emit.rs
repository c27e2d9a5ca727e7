//! Writing the catalog as Rust statics of `src/catalog/model.rs`'s types.
//! Strings are written with `{:?}`, which is valid Rust literal syntax;
//! JSON values are first made JSON text by `json::toml_to_json`.

use std::fmt::Write as _;

use super::defs::{
    KindsFile, NamedParamDef, PromptsFile, SharedFile, ToolFile, UrlsFile, VocabularyFile,
};
use super::expand::Action;
use super::json::toml_to_json;

fn kind_static(name: &str) -> String {
    format!("KIND_{}", name.to_ascii_uppercase())
}

pub fn kinds(out: &mut String, kinds: &KindsFile) {
    for (name, def) in &kinds.kinds {
        let here = format!("catalog/kinds.toml kind `{name}`");
        let long_text = def.long_text.as_ref().unwrap_or(&kinds.defaults.long_text);
        let diffs = match def.diffs.as_deref() {
            None => "Diffs::None".to_string(),
            Some("self") => "Diffs::Itself".to_string(),
            Some(field) if !field.is_empty() => format!("Diffs::InField({field:?})"),
            Some(_) => panic!("{here}: `diffs` is \"self\" or a field name"),
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

pub fn toolsets(out: &mut String, shared: &SharedFile) {
    out.push_str("pub static TOOLSETS: &[ToolsetSpec] = &[");
    for (name, doc) in &shared.toolsets {
        write!(out, "ToolsetSpec {{ name: {name:?}, doc: {doc:?} }},").unwrap();
    }
    out.push_str("];\n");
}

pub fn vocabulary(out: &mut String, v: &VocabularyFile) {
    let here = "catalog/vocabulary.toml";
    let json_pairs = |table: &std::collections::BTreeMap<String, toml::Value>, what: &str| {
        table
            .iter()
            .map(|(k, v)| {
                let json = toml_to_json(v).unwrap_or_else(|e| panic!("{here} {what} `{k}`: {e}"));
                format!("({k:?}, {json:?}),")
            })
            .collect::<String>()
    };
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
    let by_type: String = v
        .examples
        .by_type
        .iter()
        .map(|(ty, value)| {
            let ty = param_type(ty, &format!("{here} examples.by_type"));
            let json = toml_to_json(value).unwrap_or_else(|e| panic!("{here} by_type: {e}"));
            format!("(ParamType::{ty}, {json:?}),")
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
            let (tool, action) = target.split_once('.').unwrap_or_else(|| {
                panic!("{here} peer_tools `{k}`: write the target as \"gitlab_tool.action\"")
            });
            format!("({k:?}, {tool:?}, {action:?}),")
        })
        .collect();
    writeln!(
        out,
        "pub static VOCABULARY: Vocabulary = Vocabulary {{ param_synonyms: &[{synonyms}], action_words: &[{words}], params_aliases: &{:?}, action_aliases: &{:?}, examples_by_name: &[{}], examples_by_format: &[{}], examples_by_type: &[{by_type}], peer_toolsets: &[{peer_toolsets}], peer_tools: &[{peer_tools}] }};",
        v.envelope_aliases.params,
        v.envelope_aliases.action,
        json_pairs(&v.examples.by_name, "examples.by_name"),
        json_pairs(&v.examples.by_format, "examples.by_format"),
    )
    .unwrap();
}

pub fn tool(out: &mut String, tool: &ToolFile, actions: &[Action]) {
    writeln!(
        out,
        "ToolSpec {{ name: {:?}, title: {:?}, toolsets: &{:?}, summary: {:?}, example: {:?}, actions: &[",
        tool.name, tool.title, tool.toolsets, tool.summary, tool.example
    )
    .unwrap();
    for a in actions {
        action(out, a);
    }
    out.push_str("] },\n");
}

fn action(out: &mut String, a: &Action) {
    let here = &a.here;
    let route = match &a.rest {
        Some((method, template)) => {
            let method = match method.as_str() {
                "GET" => "Get",
                "POST" => "Post",
                "PUT" => "Put",
                "PATCH" => "Patch",
                "DELETE" => "Delete",
                other => panic!("{here}: unsupported HTTP method {other}"),
            };
            let parts = split_template(template, &a.params, here);
            format!(
                "Route::Rest(RestRoute {{ method: Method::{method}, template: {template:?}, parts: &[{parts}] }})"
            )
        }
        None => "Route::Local(Local::Help)".to_string(),
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
        .map(|(k, v, loc)| {
            format!("FixedParam {{ name: {k:?}, json: {v:?}, location: Location::{loc} }},")
        })
        .collect();
    write!(
        out,
        "ActionSpec {{ name: {:?}, summary: {:?}, route: {route}, read_only: {}, destructive: {}, idempotent: {}, returns: {returns}, hints: &[{hints}], fixed: &[{fixed}], check: {:?}, handler: {:?}, one_of: &[{}], params: &[",
        a.name, a.summary, a.read_only, a.destructive, a.idempotent, a.check, a.handler,
        a.one_of.iter().map(|g| format!("&{g:?},")).collect::<String>()
    )
    .unwrap();
    for p in &a.params {
        param(out, p, here);
    }
    out.push_str("] },\n");
}

fn param(out: &mut String, p: &NamedParamDef, here: &str) {
    let d = &p.def;
    let here = format!("{here} param `{}`", p.name);
    let ty = param_type(&d.ty, &here);
    let items = match &d.items {
        Some(t) => format!("Some(ParamType::{})", param_type(t, &here)),
        None => "None".into(),
    };
    let location = match d.location.as_deref() {
        Some("path") => "Path",
        Some("query") => "Query",
        Some("body") => "Body",
        other => panic!("{here}: `in` must be path, query or body, not {other:?}"),
    };
    let style = match d.style.as_deref() {
        None | Some("brackets") => "Brackets",
        Some("csv") => "Csv",
        Some("segments") => "Segments",
        Some(other) => panic!("{here}: unknown style {other}"),
    };
    let default = match &d.default {
        Some(v) => {
            let json = toml_to_json(v).unwrap_or_else(|e| panic!("{here}: default: {e}"));
            format!("Some({json:?})")
        }
        None => "None".into(),
    };
    if (d.minimum.is_some() || d.maximum.is_some()) && d.ty != "integer" {
        panic!("{here}: `minimum` and `maximum` bound integers");
    }
    // An id or iid in a path is at least 1, whatever the entry says.
    let minimum = d
        .minimum
        .or((d.location.as_deref() == Some("path") && d.ty == "integer").then_some(1));
    if !d.fields.is_empty() && d.items.as_deref() != Some("object") {
        panic!("{here}: `fields` describe the objects of an array with items = \"object\"");
    }
    let fields: String = d
        .fields
        .iter()
        .map(|f| {
            let ty = param_type(&f.ty, &format!("{here} field `{}`", f.name));
            format!(
                "FieldSpec {{ name: {:?}, ty: ParamType::{ty}, required: {}, allowed: &{:?}, doc: {:?} }},",
                f.name, f.required, f.allowed, f.doc
            )
        })
        .collect();
    writeln!(
        out,
        "ParamSpec {{ name: {:?}, ty: ParamType::{ty}, location: Location::{location}, required: {}, allowed: &{:?}, default: {default}, format: {:?}, minimum: {:?}, maximum: {:?}, items: {items}, style: ArrayStyle::{style}, fields: &[{fields}], quick_actions: {}, deprecated: {}, replaced_by: {:?}, doc: {:?} }},",
        p.name,
        d.required,
        d.allowed,
        d.format,
        minimum,
        d.maximum,
        d.quick_actions,
        d.deprecated,
        d.replaced_by,
        d.doc
    )
    .unwrap();
}

/// JSON Schema's types only: there is no `date`, `datetime` or `int`.
fn param_type(t: &str, here: &str) -> &'static str {
    match t {
        "string" => "String",
        "integer" => "Integer",
        "number" => "Number",
        "boolean" => "Boolean",
        "array" => "Array",
        "object" => "Object",
        other => panic!(
            "{here}: type `{other}` is not a JSON Schema type (use string with a format for dates)"
        ),
    }
}

fn split_template(template: &str, params: &[NamedParamDef], here: &str) -> String {
    let mut parts = String::new();
    let mut rest = template;
    while let Some(open) = rest.find('{') {
        let close = rest[open..]
            .find('}')
            .unwrap_or_else(|| panic!("{here}: unclosed placeholder in {template}"))
            + open;
        if open > 0 {
            write!(parts, "PathPart::Literal({:?}),", &rest[..open]).unwrap();
        }
        let name = &rest[open + 1..close];
        let index = params
            .iter()
            .position(|p| p.name == name)
            .unwrap_or_else(|| panic!("{here}: placeholder {{{name}}} has no parameter"));
        write!(parts, "PathPart::Param({index}),").unwrap();
        rest = &rest[close + 1..];
    }
    if !rest.is_empty() {
        write!(parts, "PathPart::Literal({rest:?}),").unwrap();
    }
    parts
}

/// The prompts; every `{name}` and `[name]` of a text is a declared argument.
pub fn prompts(out: &mut String, file: &PromptsFile) {
    out.push_str("pub static PROMPTS: &[PromptSpec] = &[");
    for p in &file.prompts {
        let here = format!("catalog/prompts.toml prompt `{}`", p.name);
        let declared: Vec<&str> = p.arguments.iter().map(|a| a.name.as_str()).collect();
        for (open, close) in [('{', '}'), ('[', ']')] {
            let mut rest = p.text.as_str();
            while let Some(i) = rest.find(open) {
                let end = rest[i..]
                    .find(close)
                    .unwrap_or_else(|| panic!("{here}: unclosed `{open}`"))
                    + i;
                let name = rest[i + 1..end].trim_start_matches('/');
                if !declared.contains(&name) {
                    panic!(
                        "{here}: `{open}{name}{close}` names no argument (arguments: {})",
                        declared.join(", ")
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
pub fn urls(out: &mut String, file: &UrlsFile) {
    out.push_str("pub static URL_SHAPES: &[UrlShape] = &[");
    for shape in &file.shapes {
        let (tool, action) = shape.served_by.split_once('.').unwrap_or_else(|| {
            panic!(
                "catalog/urls.toml shape `{}`: served_by is \"gitlab_tool.action\"",
                shape.path
            )
        });
        write!(
            out,
            "UrlShape {{ path: {:?}, what: {:?}, tool: {tool:?}, action: {action:?} }},",
            shape.path, shape.what
        )
        .unwrap();
    }
    out.push_str("];\npub static REFERENCES: &[(char, &[&str])] = &[");
    for (prefix, params) in &file.references {
        let mut chars = prefix.chars();
        let (Some(c), None) = (chars.next(), chars.next()) else {
            panic!("catalog/urls.toml references: `{prefix}` must be one character");
        };
        write!(out, "({c:?}, &{params:?}),").unwrap();
    }
    out.push_str("];\n");
}

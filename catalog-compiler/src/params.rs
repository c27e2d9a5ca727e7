//! An action's parameters: what `use` names (the tool file's own
//! `[params]` first, then `_shared.toml`'s bundles and parameters), then
//! its own, each placed: a placeholder of the template is a required path
//! parameter and says neither `in` nor `required`; any other goes where
//! it says, or where the method sends parameters. A mistake in a shared
//! declaration is reported where it is declared.

use crate::defs::{ActionDef, Location, ParamDef, ParamType, Role, SharedFile, ToolFile};
use crate::expand::Known;
use crate::json::toml_to_json;
use crate::problem::{Place, Report};
use crate::template::{Http, Method};

/// A parameter of one action, placed.
pub struct Param {
    pub name: String,
    pub def: ParamDef,
    pub location: Location,
    pub required: bool,
    /// `default` as JSON text.
    pub default: Option<String>,
}

/// The action's parameters in order, placed, and the rules between them.
pub fn of(
    a: &ActionDef,
    tool: &ToolFile,
    known: &Known,
    http: &Http,
    at: &Place,
    report: &mut Report,
) -> Vec<Param> {
    let params: Vec<Param> = declared(a, tool, known, at, report)
        .into_iter()
        .map(|(name, def, origin)| place(name, def, origin, http, at, report))
        .collect();
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
    params
}

/// Where a parameter goes when it is not a placeholder and the entry does
/// not say: GitLab reads the query string of GET and DELETE requests and
/// the body of the others.
pub fn sent_in(method: Method) -> Location {
    match method {
        Method::Post | Method::Put | Method::Patch => Location::Body,
        Method::Get | Method::Delete => Location::Query,
    }
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

/// Where a parameter is declared: the web URL parameter lives only in
/// `_shared.toml`.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Declared {
    Shared,
    InToolFile,
}

/// The checks a parameter's declaration needs wherever it is used.
pub fn declaration(def: &ParamDef, declared: Declared, at: &Place, report: &mut Report) {
    if def.role == Some(Role::WebUrl) {
        if declared != Declared::Shared {
            report.field(
                at,
                "role",
                "the web URL parameter is declared once, in _shared.toml",
            );
        }
        if def.ty != ParamType::String {
            report.field(at, "type", "the web URL parameter is a string");
        }
    }
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
                Some((n, def)) if def.role == Some(Role::WebUrl) => report.field(
                    at,
                    "use",
                    format!(
                        "`{n}` is the web URL parameter, which every action with a project parameter takes without naming it"
                    ),
                ),
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
        declaration(
            &p.def,
            Declared::InToolFile,
            &at.then(format_args!("param `{}`", p.name)),
            report,
        );
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
                    format!("{given:?}").to_lowercase()
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
            Some(Location::Path) | None => sent_in(http.method),
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

/// The one parameter of `_shared.toml` with `role = "web_url"`, if any.
pub fn web_url(shared: &SharedFile, file: &Place, report: &mut Report) -> Option<Param> {
    let mut found = shared
        .params
        .iter()
        .filter(|(_, def)| def.role == Some(Role::WebUrl));
    let (name, def) = found.next()?;
    for (other, _) in found {
        report.field(
            &file.then(format_args!("param `{other}`")),
            "role",
            format!("`{name}` is already the web URL parameter"),
        );
    }
    Some(Param {
        name: name.clone(),
        def: def.clone(),
        location: Location::Query,
        required: false,
        default: None,
    })
}

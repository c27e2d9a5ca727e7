//! A GraphQL action's `variables` table checked against its document and
//! GitLab's schema: each key is a declared variable, or a path into one
//! (`input.labelsWidget.labelIds`); each value names a parameter of the
//! action and how it becomes the value (as it is, as text, an enum value
//! mapped, a global ID, or a resolver's answer), and the types agree.
//! Every required variable is fed, and every parameter feeds one (but the
//! project and group, which the resolvers read).

use std::collections::{BTreeMap, BTreeSet};

use async_graphql_parser::types::{BaseType, Type};

use super::document::Document;
use super::schema::{Named, Schema};
use crate::defs::{FedDef, ParamType, Resolver, Role, VariableDef};
use crate::params::Param;
use crate::problem::{Place, Report};

/// One variable (or a field of one) and where its value comes from.
pub struct Variable {
    /// `["input", "title"]`
    pub path: Vec<String>,
    /// The parameter's index in the action's parameters.
    pub param: Option<usize>,
    pub feed: Feed,
}

/// How the value is made (the runtime's `Feed` variants).
pub enum Feed {
    /// The parameter's value as given.
    Value,
    /// An integer parameter sent as a string (`iid: String!`).
    Text,
    /// The parameter's value mapped to GraphQL's enum value.
    Values(Vec<(String, String)>),
    /// `gid://gitlab/<model>/<value>`.
    GlobalId(String),
    Resolve(Resolver),
}

/// The variables of one action, checked.
pub fn check(
    table: &BTreeMap<String, VariableDef>,
    params: &[Param],
    document: &Document,
    schema: Option<&Schema>,
    at: &Place,
    report: &mut Report,
) -> Vec<Variable> {
    let declared = document.variables();
    let mut fed_roots = BTreeSet::new();
    let mut feeding = BTreeSet::new();
    let mut out = Vec::new();
    for (key, def) in table {
        let here = at.then(format_args!("variable `{key}`"));
        let fed = match def {
            VariableDef::Param(name) => FedDef {
                param: Some(name.clone()),
                resolve: None,
                values: BTreeMap::new(),
                gid: None,
            },
            VariableDef::Fed(fed) => fed.clone(),
        };
        let path: Vec<&str> = key.split('.').collect();
        let Some((_, var_type, _)) = declared.iter().find(|(name, _, _)| name == path[0]) else {
            let names: Vec<String> = declared.iter().map(|(n, _, _)| format!("${n}")).collect();
            report.field(
                &here,
                "variables",
                format!(
                    "`${}` is not a variable of the document (it declares {})",
                    path[0],
                    if names.is_empty() {
                        "none".into()
                    } else {
                        names.join(", ")
                    }
                ),
            );
            continue;
        };
        fed_roots.insert(path[0].to_string());
        let leaf = match schema {
            Some(schema) => match schema.walk(var_type, &path[1..]) {
                Ok(ty) => Some(ty),
                Err(problem) => {
                    report.field(&here, "variables", problem);
                    continue;
                }
            },
            None if path.len() == 1 => Some(var_type.clone()),
            None => None,
        };
        let param = match &fed.param {
            Some(name) => match params.iter().position(|p| p.name == *name) {
                Some(index) => {
                    feeding.insert(name.clone());
                    Some(index)
                }
                None => {
                    report.field(
                        &here,
                        "variables",
                        format!("`{name}` is not a parameter of the action"),
                    );
                    continue;
                }
            },
            None => None,
        };
        match feed(&fed, param.map(|i| &params[i]), leaf.as_ref(), schema) {
            Ok(feed) => out.push(Variable {
                path: path.iter().map(|s| s.to_string()).collect(),
                param,
                feed,
            }),
            Err(problem) => report.field(&here, "variables", problem),
        }
    }
    for (name, _, required) in &declared {
        if *required && !fed_roots.contains(name) {
            report.field(
                at,
                "variables",
                format!("the document requires `${name}` and no parameter feeds it"),
            );
        }
    }
    for p in params {
        let namespace = matches!(p.def.role, Some(Role::Project | Role::Group));
        if !namespace && !feeding.contains(&p.name) {
            report.field(
                at,
                "variables",
                format!("parameter `{}` feeds no variable of the document", p.name),
            );
        }
    }
    let resolves = out.iter().any(|v| matches!(v.feed, Feed::Resolve(_)));
    let has_namespace = params
        .iter()
        .any(|p| matches!(p.def.role, Some(Role::Project | Role::Group)));
    if resolves && !has_namespace {
        report.field(
            at,
            "variables",
            "a resolver reads the namespace: the action needs a project or group parameter",
        );
    }
    out
}

/// How a parameter (or the namespace) becomes the value of type `leaf`
/// (`None`: not known, without a schema).
fn feed(
    fed: &FedDef,
    param: Option<&Param>,
    leaf: Option<&Type>,
    schema: Option<&Schema>,
) -> Result<Feed, String> {
    let ways = [
        fed.resolve.is_some(),
        !fed.values.is_empty(),
        fed.gid.is_some(),
    ];
    if ways.iter().filter(|w| **w).count() > 1 {
        return Err("say one of `resolve`, `values` and `gid`".into());
    }
    if let Some(resolver) = fed.resolve {
        return resolved(resolver, param, leaf);
    }
    let Some(param) = param else {
        return Err(
            "name the `param` it comes from (only `resolve = \"namespace\"` needs none)".into(),
        );
    };
    if let Some(model) = &fed.gid {
        let scalar = format!("{model}ID");
        if !matches!(param.def.ty, ParamType::Integer | ParamType::String) {
            return Err("a global ID is made of an integer or a string".into());
        }
        return match leaf {
            Some(ty) if named(ty) != Some(scalar.as_str()) => Err(format!(
                "`gid = \"{model}\"` makes a {scalar}, but the document wants `{ty}`"
            )),
            _ => Ok(Feed::GlobalId(model.clone())),
        };
    }
    if !fed.values.is_empty() {
        let given: BTreeSet<&str> = fed.values.keys().map(String::as_str).collect();
        let allowed: BTreeSet<&str> = param.def.allowed.iter().map(String::as_str).collect();
        if given != allowed {
            return Err(format!(
                "`values` maps {}; the parameter allows {}",
                join(&given),
                join(&allowed)
            ));
        }
        if let (Some(ty), Some(schema)) = (leaf, schema) {
            let target = named(ty)
                .or_else(|| item(ty).and_then(named))
                .unwrap_or_default();
            let Some(Named::Enum(values)) = schema.named(target) else {
                return Err(format!(
                    "`values` map to an enum, but the document wants `{ty}`"
                ));
            };
            if let Some(bad) = fed.values.values().find(|v| !values.contains(v)) {
                return Err(format!(
                    "`{bad}` is not a value of {target} ({})",
                    values.join(", ")
                ));
            }
        }
        let pairs = fed
            .values
            .iter()
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect();
        return Ok(Feed::Values(pairs));
    }
    match (leaf, schema) {
        (Some(ty), Some(schema)) => as_given(param, ty, schema),
        // Without a schema only a variable's own type is known.
        (Some(ty), None) if param.def.ty == ParamType::Integer && text(named(ty)) => Ok(Feed::Text),
        _ => Ok(Feed::Value),
    }
}

/// What each resolver makes, and of which parameter.
fn resolved(
    resolver: Resolver,
    param: Option<&Param>,
    leaf: Option<&Type>,
) -> Result<Feed, String> {
    let (list, scalars, wants): (bool, &[&str], Option<ParamType>) = match resolver {
        Resolver::Namespace => (false, &["ID", "String"], None),
        Resolver::WorkItemType => (false, &["WorkItemsTypeID"], Some(ParamType::String)),
        Resolver::LabelIds => (true, &["LabelID"], Some(ParamType::Array)),
        Resolver::UserIds => (true, &["UserID"], Some(ParamType::Array)),
        // A work item's global ID is also what a note is on.
        Resolver::WorkItemId => (
            false,
            &["WorkItemID", "NoteableID"],
            Some(ParamType::Integer),
        ),
        Resolver::WorkItemIds => (true, &["WorkItemID"], Some(ParamType::Array)),
    };
    let name = format!("{resolver:?}");
    match (wants, param) {
        (None, Some(p)) => {
            return Err(format!(
                "`resolve = \"namespace\"` reads the project or group parameter, not `{}`",
                p.name
            ));
        }
        (Some(_), None) => return Err(format!("resolver {name} needs a `param`")),
        (Some(ty), Some(p)) if p.def.ty != ty => {
            return Err(format!(
                "resolver {name} takes a parameter of type {}, and `{}` is {}",
                format!("{ty:?}").to_lowercase(),
                p.name,
                format!("{:?}", p.def.ty).to_lowercase()
            ));
        }
        _ => {}
    }
    if let Some(ty) = leaf {
        let got = if list {
            item(ty).and_then(named)
        } else {
            named(ty)
        };
        if !got.is_some_and(|n| scalars.contains(&n)) {
            return Err(format!(
                "resolver {name} makes {}{}{}, but the document wants `{ty}`",
                if list { "[" } else { "" },
                scalars.join(" or "),
                if list { "!]" } else { "" }
            ));
        }
    }
    Ok(Feed::Resolve(resolver))
}

/// A parameter sent as it is (an integer as text where a string is
/// wanted), if its type fits.
fn as_given(param: &Param, ty: &Type, schema: &Schema) -> Result<Feed, String> {
    let fits = |name: &str, given: ParamType| -> Option<Feed> {
        match (name, given) {
            ("String" | "ID", ParamType::String) | ("Int", ParamType::Integer) => Some(Feed::Value),
            ("String" | "ID", ParamType::Integer) => Some(Feed::Text),
            ("Float", ParamType::Number | ParamType::Integer) => Some(Feed::Value),
            ("Boolean", ParamType::Boolean) => Some(Feed::Value),
            ("Date" | "Time", ParamType::String) => Some(Feed::Value),
            (name, ParamType::String) => match schema.named(name) {
                // An enum whose values are the parameter's own.
                Some(Named::Enum(values))
                    if !param.def.allowed.is_empty()
                        && param.def.allowed.iter().all(|a| values.contains(a)) =>
                {
                    Some(Feed::Value)
                }
                _ => None,
            },
            _ => None,
        }
    };
    let feed = match (&ty.base, param.def.ty) {
        (BaseType::List(inner), ParamType::Array) => named(inner)
            .and_then(|n| fits(n, param.def.items.unwrap_or(ParamType::String)))
            .filter(|f| matches!(f, Feed::Value)),
        (BaseType::Named(name), given) => fits(name, given),
        _ => None,
    };
    feed.ok_or_else(|| {
        format!(
            "parameter `{}` ({}) cannot be sent as `{ty}`{}",
            param.name,
            format!("{:?}", param.def.ty).to_lowercase(),
            if param.def.allowed.is_empty() {
                ""
            } else {
                " (map its values with `values`)"
            }
        )
    })
}

fn named(ty: &Type) -> Option<&str> {
    match &ty.base {
        BaseType::Named(name) => Some(name.as_str()),
        BaseType::List(_) => None,
    }
}

fn item(ty: &Type) -> Option<&Type> {
    match &ty.base {
        BaseType::List(inner) => Some(inner),
        BaseType::Named(_) => None,
    }
}

fn text(name: Option<&str>) -> bool {
    matches!(name, Some("String" | "ID"))
}

fn join(values: &BTreeSet<&str>) -> String {
    if values.is_empty() {
        "nothing".into()
    } else {
        values.iter().copied().collect::<Vec<_>>().join(", ")
    }
}

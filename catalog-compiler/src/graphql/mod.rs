//! GraphQL actions: an `[[actions]]` entry with `graphql = "<document>"`
//! instead of `http`. The document (`catalog/graphql/<name>.graphql`) is
//! read with the server's parser (`document`): one operation, a query for
//! a read-only action and a mutation for one that writes. Its `variables`
//! table is checked against the document and GitLab's schema
//! (`variables`, `schema`), its `answer` paths against the fields the
//! document selects. `graphql = "$query"` is the one document a caller
//! gives: the `query` parameter, with `variables` and `operation_name`,
//! read-only (the server refuses anything but a query in it).

mod document;
mod schema;
mod variables;

use std::collections::BTreeMap;

pub use document::{Document, Operation};
pub use schema::Schema;
pub use variables::{Feed, Variable};

use crate::defs::{ActionDef, ParamType};
use crate::params::Param;
use crate::problem::{Place, Report};

/// `graphql = "$query"`: the caller's document.
pub const GIVEN: &str = "$query";
/// The parameters of a given document, by the names the runtime reads.
pub const GIVEN_PARAMS: [(&str, ParamType); 3] = [
    ("query", ParamType::String),
    ("variables", ParamType::Object),
    ("operation_name", ParamType::String),
];

/// What GraphQL actions may refer to.
pub struct Known<'a> {
    /// Every document that reads, by name (its stem).
    pub documents: &'a BTreeMap<String, Document>,
    /// Every document's name, read or not.
    pub names: Vec<&'a str>,
    pub schema: Option<&'a Schema>,
}

/// A GraphQL action's route, checked.
pub struct Graphql {
    /// The stored document's name; `None` for the caller's.
    pub document: Option<String>,
    pub operation: Operation,
    pub variables: Vec<Variable>,
    /// Paths in `data`, each split at its dots.
    pub answer: Vec<Vec<String>>,
}

/// The route of `a`, whose `graphql` names `name`; `None` when the
/// document cannot be used (the problem is reported).
pub fn route(
    a: &ActionDef,
    name: &str,
    params: &[Param],
    known: &Known,
    at: &Place,
    report: &mut Report,
) -> Option<Graphql> {
    for p in params.iter().filter(|p| p.def.location.is_some()) {
        report.field(
            &at.then(format_args!("param `{}`", p.name)),
            "in",
            "a GraphQL action's parameters become variables: no `in`",
        );
    }
    if !a.fixed.is_empty() {
        report.field(
            at,
            "fixed",
            "a GraphQL action's constants are written in its document",
        );
    }
    if name == GIVEN {
        return Some(given(a, params, at, report));
    }
    let Some(document) = known.documents.get(name) else {
        // A document that does not read is reported once, on its file.
        if !known.names.contains(&name) {
            report.field(
                at,
                "graphql",
                format!(
                    "`{name}` names no document of catalog/graphql/ (documents: {})",
                    known.names.join(", ")
                ),
            );
        }
        return None;
    };
    let read_only = a.read_only.unwrap_or(false);
    match (document.operation, read_only) {
        (Operation::Query, true) | (Operation::Mutation, false) => {}
        (Operation::Query, false) => report.field(
            at,
            "read_only",
            format!("`{name}` is a query: the action is read-only"),
        ),
        (Operation::Mutation, true) => report.field(
            at,
            "read_only",
            format!("`{name}` is a mutation: the action is not read-only"),
        ),
    }
    let variables = variables::check(&a.variables, params, document, known.schema, at, report);
    if a.answer.is_empty() {
        report.field(
            at,
            "answer",
            "say where the asked object is in `data` (`answer = [\"namespace.workItem\"]`)",
        );
    }
    let answer = a
        .answer
        .iter()
        .map(|path| {
            let steps: Vec<&str> = path.split('.').collect();
            if !document.selects(&steps) {
                report.field(
                    at,
                    "answer",
                    format!("`{path}` is not a path of fields `{name}` selects"),
                );
            }
            steps.iter().map(|s| s.to_string()).collect()
        })
        .collect();
    Some(Graphql {
        document: Some(name.to_string()),
        operation: document.operation,
        variables,
        answer,
    })
}

/// The caller's document: the `query` parameter (required), `variables`
/// and `operation_name`, and nothing else; read-only.
fn given(a: &ActionDef, params: &[Param], at: &Place, report: &mut Report) -> Graphql {
    if a.read_only != Some(true) {
        report.field(
            at,
            "read_only",
            "a caller's document is read-only: the server refuses anything but a query in it",
        );
    }
    if !a.variables.is_empty() || !a.answer.is_empty() {
        report.field(
            at,
            "graphql",
            "a caller's document has no `variables` table or `answer`: both are the caller's",
        );
    }
    for p in params {
        match GIVEN_PARAMS.iter().find(|(name, _)| *name == p.name) {
            Some((_, ty)) if p.def.ty == *ty => {}
            Some((_, ty)) => report.field(
                &at.then(format_args!("param `{}`", p.name)),
                "type",
                format!("is a {}", format!("{ty:?}").to_lowercase()),
            ),
            None => report.field(
                &at.then(format_args!("param `{}`", p.name)),
                "graphql",
                "a caller's document takes only `query`, `variables` and `operation_name`",
            ),
        }
    }
    if !params
        .iter()
        .any(|p| p.name == GIVEN_PARAMS[0].0 && p.required)
    {
        report.field(
            at,
            "graphql",
            "a caller's document is its required `query` parameter",
        );
    }
    Graphql {
        document: None,
        operation: Operation::Query,
        variables: Vec::new(),
        answer: Vec::new(),
    }
}

//! An agent's own GraphQL document (`gitlab_graphql query`), judged before
//! anything is sent. It is parsed with a real GraphQL parser
//! (async-graphql's, the one the catalog compiler and the fake use), never
//! matched by words, and refused when it:
//! - is not an executable document (a schema, a syntax error);
//! - holds a mutation or a subscription anywhere, whatever
//!   `operation_name` says: the tool reads, and a second operation in the
//!   same document is no way around that;
//! - is over GitLab's limits (app/controllers/graphql_controller.rb,
//!   app/graphql/gitlab_schema.rb): 10,000 characters, a depth of 20
//!   (graphql-ruby's: a field counts one plus its deepest child, fragments
//!   expanded), `first` or `last` over 100 (`max_page_size`), as a
//!   literal, a variable's value or its default;
//! - spreads a fragment into itself, or names an operation it lacks.

use std::collections::HashMap;
use std::fmt;

use async_graphql_parser::types::{
    DocumentOperations, ExecutableDocument, OperationType, Selection, SelectionSet,
};
use async_graphql_parser::{Positioned, parse_query, parse_schema};
use serde_json::{Map, Value};

use super::Arg;
use super::error::ParamProblem;
use crate::catalog::GraphqlRoute;

/// GitLab's `MAX_QUERY_SIZE`, in characters.
pub const MAX_CHARS: usize = 10_000;
/// GitLab's maximum depth for a signed-in caller (15 without a token).
pub const MAX_DEPTH: usize = 20;
/// GitLab's `max_page_size`: the most nodes a connection gives at once.
pub const MAX_PAGE: i64 = 100;

/// Why a document is refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum GraphqlProblem {
    /// Not a GraphQL document: the parser's words.
    Syntax(String),
    /// Type definitions, not operations.
    NotExecutable,
    /// A mutation or subscription, by its name if it has one.
    Writes {
        kind: &'static str,
        name: Option<String>,
        /// The catalog's actions that send the same mutation
        /// (`gitlab_work_item note_create` for `createNote`).
        instead: Vec<String>,
    },
    TooLong {
        chars: usize,
    },
    TooDeep {
        depth: usize,
    },
    FragmentCycle {
        fragment: String,
    },
    PageTooLarge {
        field: String,
        argument: String,
        value: i64,
    },
    UnknownOperation {
        name: String,
        known: Vec<String>,
    },
    OperationNeeded {
        known: Vec<String>,
    },
}

impl fmt::Display for GraphqlProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            GraphqlProblem::Syntax(message) => {
                write!(f, "`query` is not a GraphQL document: {message}")
            }
            GraphqlProblem::NotExecutable => write!(
                f,
                "`query` holds type definitions, not a query: write `query {{ ... }}` (action `schema` describes a type)"
            ),
            GraphqlProblem::Writes {
                kind,
                name,
                instead,
            } => {
                write!(
                    f,
                    "`query` holds a {kind}{}: this tool only reads, whatever `operation_name` says; ",
                    name.as_ref()
                        .map(|n| format!(" (`{n}`)"))
                        .unwrap_or_default()
                )?;
                if instead.is_empty() {
                    write!(
                        f,
                        "change GitLab with the typed tools (gitlab_work_item, gitlab_issue...)"
                    )
                } else {
                    write!(f, "the same change is {}", instead.join(" or "))
                }
            }
            GraphqlProblem::TooLong { chars } => write!(
                f,
                "`query` is {chars} characters, over GitLab's limit of {MAX_CHARS}"
            ),
            GraphqlProblem::TooDeep { depth } => write!(
                f,
                "`query` has depth {depth}, over GitLab's limit of {MAX_DEPTH}: ask for fewer nested fields"
            ),
            GraphqlProblem::FragmentCycle { fragment } => write!(
                f,
                "`query`: fragment `{fragment}` spreads itself (directly or through others)"
            ),
            GraphqlProblem::PageTooLarge {
                field,
                argument,
                value,
            } => write!(
                f,
                "`query`: `{argument}: {value}` on `{field}` is over GitLab's limit of {MAX_PAGE} nodes a page; page with `after` and `pageInfo {{ endCursor }}`"
            ),
            GraphqlProblem::UnknownOperation { name, known } => write!(
                f,
                "`operation_name` `{name}` names no operation of the document (it has {})",
                known.join(", ")
            ),
            GraphqlProblem::OperationNeeded { known } => write!(
                f,
                "the document has several operations ({}): name the one to run with `operation_name`",
                known.join(", ")
            ),
        }
    }
}

/// Every reason to refuse the call's document.
pub fn problems(args: &[Arg]) -> Vec<ParamProblem> {
    let text = |name: &str| {
        args.iter()
            .find(|a| a.spec.name == name)
            .and_then(|a| a.value.as_str())
    };
    let Some(query) = text(GraphqlRoute::QUERY) else {
        return Vec::new();
    };
    let variables = args
        .iter()
        .find(|a| a.spec.name == GraphqlRoute::VARIABLES)
        .and_then(|a| a.value.as_object());
    check(query, variables, text(GraphqlRoute::OPERATION_NAME))
        .into_iter()
        .map(ParamProblem::Graphql)
        .collect()
}

/// The catalog's mutation actions whose stored document has a root field
/// of `selection` (`createNote` is `gitlab_work_item note_create`), as
/// `tool action`, in catalog order.
fn actions_sending(selection: &SelectionSet) -> Vec<String> {
    let fields: Vec<&str> = selection
        .items
        .iter()
        .filter_map(|item| match &item.node {
            Selection::Field(f) => Some(f.node.name.node.as_str()),
            _ => None,
        })
        .collect();
    let mut out = Vec::new();
    for tool in crate::catalog::tools() {
        for action in tool.actions {
            let crate::catalog::Route::Graphql(route) = &action.route else {
                continue;
            };
            if route.operation == crate::catalog::Operation::Mutation
                && route
                    .document
                    .is_some_and(|d| d.root_fields.iter().any(|r| fields.contains(r)))
            {
                out.push(format!("{} {}", tool.name, action.name));
            }
        }
    }
    out
}

/// The document's problems, the most basic first.
pub fn check(
    query: &str,
    variables: Option<&Map<String, Value>>,
    operation_name: Option<&str>,
) -> Vec<GraphqlProblem> {
    let chars = query.chars().count();
    if chars > MAX_CHARS {
        // Not parsed: the limit is there so that nobody parses it.
        return vec![GraphqlProblem::TooLong { chars }];
    }
    let doc = match parse_query(query) {
        Ok(doc) => doc,
        Err(_) if parse_schema(query).is_ok() => return vec![GraphqlProblem::NotExecutable],
        Err(e) => return vec![GraphqlProblem::Syntax(one_line(&e.to_string()))],
    };
    let mut problems: Vec<GraphqlProblem> = doc
        .operations
        .iter()
        .filter(|(_, op)| op.node.ty != OperationType::Query)
        .map(|(name, op)| GraphqlProblem::Writes {
            kind: match op.node.ty {
                OperationType::Subscription => "subscription",
                _ => "mutation",
            },
            name: name.map(|n| n.to_string()),
            instead: actions_sending(&op.node.selection_set.node),
        })
        .collect();
    let names: Vec<String> = {
        let mut names: Vec<String> = doc
            .operations
            .iter()
            .filter_map(|(name, _)| name.map(|n| n.to_string()))
            .collect();
        names.sort();
        names
    };
    match (&doc.operations, operation_name) {
        (DocumentOperations::Multiple(ops), Some(name)) if !ops.contains_key(name) => {
            problems.push(GraphqlProblem::UnknownOperation {
                name: name.to_string(),
                known: names.clone(),
            });
        }
        (DocumentOperations::Multiple(ops), None) if ops.len() > 1 => {
            problems.push(GraphqlProblem::OperationNeeded {
                known: names.clone(),
            });
        }
        _ => {}
    }
    if let Some(fragment) = cycle(&doc) {
        problems.push(GraphqlProblem::FragmentCycle { fragment });
        return problems;
    }
    let depth = doc
        .operations
        .iter()
        .map(|(_, op)| depth(&doc, &op.node.selection_set.node))
        .max()
        .unwrap_or(0);
    if depth > MAX_DEPTH {
        problems.push(GraphqlProblem::TooDeep { depth });
    }
    let mut values: HashMap<String, Value> = HashMap::new();
    for (_, op) in doc.operations.iter() {
        for v in &op.node.variable_definitions {
            let name = v.node.name.node.to_string();
            let given = variables.and_then(|vars| vars.get(&name)).cloned();
            let default = v
                .node
                .default_value
                .as_ref()
                .and_then(|d| d.node.clone().into_json().ok());
            if let Some(value) = given.or(default) {
                values.insert(name, value);
            }
        }
    }
    for (_, op) in doc.operations.iter() {
        pages(&op.node.selection_set, &values, &mut problems);
    }
    for fragment in doc.fragments.values() {
        pages(&fragment.node.selection_set, &values, &mut problems);
    }
    problems
}

/// A fragment that reaches itself through its spreads, if any.
fn cycle(doc: &ExecutableDocument) -> Option<String> {
    fn spreads(set: &SelectionSet, out: &mut Vec<String>) {
        for item in &set.items {
            match &item.node {
                Selection::Field(f) => spreads(&f.node.selection_set.node, out),
                Selection::InlineFragment(i) => spreads(&i.node.selection_set.node, out),
                Selection::FragmentSpread(s) => out.push(s.node.fragment_name.node.to_string()),
            }
        }
    }
    fn reaches(doc: &ExecutableDocument, from: &str, target: &str, seen: &mut Vec<String>) -> bool {
        let Some(fragment) = doc.fragments.get(from) else {
            return false;
        };
        let mut next = Vec::new();
        spreads(&fragment.node.selection_set.node, &mut next);
        next.into_iter().any(|name| {
            if name == target {
                return true;
            }
            if seen.contains(&name) {
                return false;
            }
            seen.push(name.clone());
            reaches(doc, &name, target, seen)
        })
    }
    let mut names: Vec<&str> = doc.fragments.keys().map(|n| n.as_str()).collect();
    names.sort_unstable();
    names
        .into_iter()
        .find(|name| reaches(doc, name, name, &mut Vec::new()))
        .map(str::to_string)
}

/// graphql-ruby's depth: a field counts one plus its deepest child;
/// inline fragments and spreads add nothing of their own (no cycles: they
/// were refused before).
fn depth(doc: &ExecutableDocument, set: &SelectionSet) -> usize {
    set.items
        .iter()
        .map(|item| match &item.node {
            Selection::Field(f) => 1 + depth(doc, &f.node.selection_set.node),
            Selection::InlineFragment(i) => depth(doc, &i.node.selection_set.node),
            Selection::FragmentSpread(s) => doc
                .fragments
                .get(&s.node.fragment_name.node)
                .map_or(0, |f| depth(doc, &f.node.selection_set.node)),
        })
        .max()
        .unwrap_or(0)
}

/// Every `first` or `last` over the page limit, given literally or by a
/// variable.
fn pages(
    set: &Positioned<SelectionSet>,
    values: &HashMap<String, Value>,
    problems: &mut Vec<GraphqlProblem>,
) {
    for item in &set.node.items {
        match &item.node {
            Selection::Field(f) => {
                for (name, value) in &f.node.arguments {
                    if !matches!(name.node.as_str(), "first" | "last") {
                        continue;
                    }
                    let number = match &value.node {
                        async_graphql_value::Value::Variable(v) => {
                            values.get(v.as_str()).and_then(Value::as_i64)
                        }
                        other => other.clone().into_json().ok().and_then(|v| v.as_i64()),
                    };
                    if let Some(n) = number.filter(|n| *n > MAX_PAGE) {
                        problems.push(GraphqlProblem::PageTooLarge {
                            field: f.node.name.node.to_string(),
                            argument: name.node.to_string(),
                            value: n,
                        });
                    }
                }
                pages(&f.node.selection_set, values, problems);
            }
            Selection::InlineFragment(i) => pages(&i.node.selection_set, values, problems),
            // A fragment's own arguments are checked once, with the fragments.
            Selection::FragmentSpread(_) => {}
        }
    }
}

/// The parser's message on one line.
fn one_line(message: &str) -> String {
    message.split_whitespace().collect::<Vec<_>>().join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `{ a { a { ... { id } } } }`: `levels` fields deep.
    fn nested(levels: usize) -> String {
        let mut q = "id".to_string();
        for _ in 1..levels {
            q = format!("a {{ {q} }}");
        }
        format!("query {{ {q} }}")
    }

    fn refused(query: &str) -> Vec<GraphqlProblem> {
        check(query, None, None)
    }

    #[test]
    fn a_plain_query_passes() {
        assert_eq!(refused("{ currentUser { username } }"), []);
        assert_eq!(refused(&nested(20)), []);
        assert_eq!(check("query A { a } query B { b }", None, Some("B")), []);
    }

    #[test]
    fn a_mutation_or_subscription_anywhere_is_refused() {
        assert_eq!(
            refused("mutation { workItemDelete(input: {id: \"x\"}) { errors } }"),
            [GraphqlProblem::Writes {
                kind: "mutation",
                name: None,
                instead: vec!["gitlab_work_item delete".into()],
            }]
        );
        assert_eq!(
            refused(
                "mutation N { createNote(input: {noteableId: \"x\", body: \"b\"}) { errors } }"
            ),
            [GraphqlProblem::Writes {
                kind: "mutation",
                name: Some("N".into()),
                instead: vec!["gitlab_work_item note_create".into()],
            }]
        );
        assert_eq!(
            check("query A { a } mutation B { b }", None, Some("A")),
            [GraphqlProblem::Writes {
                kind: "mutation",
                name: Some("B".into()),
                instead: vec![],
            }]
        );
        assert_eq!(
            refused("subscription S { issuableUpdated { id } }"),
            [GraphqlProblem::Writes {
                kind: "subscription",
                name: Some("S".into()),
                instead: vec![],
            }]
        );
        // Words are not operations: a query that mentions one is a query.
        assert_eq!(
            refused("query { mutation: project(fullPath: \"mutation\") { id } }"),
            []
        );
    }

    #[test]
    fn what_is_not_an_executable_document_is_refused() {
        assert_eq!(
            refused("type Query { a: Int }"),
            [GraphqlProblem::NotExecutable]
        );
        assert!(matches!(
            refused("query {")[..],
            [GraphqlProblem::Syntax(_)]
        ));
    }

    #[test]
    fn gitlabs_limits_are_named() {
        assert_eq!(
            refused(&nested(21)),
            [GraphqlProblem::TooDeep { depth: 21 }]
        );
        let padded = format!("{{ a }}{}", " ".repeat(MAX_CHARS - 4));
        assert_eq!(padded.chars().count(), MAX_CHARS + 1);
        assert_eq!(
            refused(&padded),
            [GraphqlProblem::TooLong {
                chars: MAX_CHARS + 1
            }]
        );
        assert_eq!(
            refused("{ projects(first: 101) { nodes { id } } }"),
            [GraphqlProblem::PageTooLarge {
                field: "projects".into(),
                argument: "first".into(),
                value: 101
            }]
        );
        let vars: Map<String, Value> = serde_json::from_str(r#"{"n": 500}"#).unwrap();
        assert_eq!(
            check(
                "query($n: Int) { projects(last: $n) { nodes { id } } }",
                Some(&vars),
                None
            ),
            [GraphqlProblem::PageTooLarge {
                field: "projects".into(),
                argument: "last".into(),
                value: 500
            }]
        );
        assert_eq!(
            refused("query($n: Int = 200) { projects(first: $n) { nodes { id } } }").len(),
            1
        );
        assert_eq!(refused("{ projects(first: 100) { nodes { id } } }"), []);
    }

    #[test]
    fn depth_counts_through_fragments_and_a_cycle_is_refused() {
        // Three fields deep: a, b, c (fragments add nothing).
        let q = "query { a { ...F } } fragment F on A { b { ... on B { c } } }";
        let doc = parse_query(q).unwrap();
        let (_, op) = doc.operations.iter().next().unwrap();
        assert_eq!(depth(&doc, &op.node.selection_set.node), 3);
        assert_eq!(
            refused(
                "query { a { ...F } } fragment F on A { b { ...G } } fragment G on B { c { ...F } }"
            ),
            [GraphqlProblem::FragmentCycle {
                fragment: "F".into()
            }]
        );
    }

    #[test]
    fn the_operation_to_run_must_exist() {
        assert_eq!(
            check("query A { a } query B { b }", None, Some("C")),
            [GraphqlProblem::UnknownOperation {
                name: "C".into(),
                known: vec!["A".into(), "B".into()]
            }]
        );
        assert_eq!(
            check("query A { a } query B { b }", None, None),
            [GraphqlProblem::OperationNeeded {
                known: vec!["A".into(), "B".into()]
            }]
        );
    }
}

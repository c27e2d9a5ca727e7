//! GitLab's limits on a query, checked before it runs, with GitLab's
//! answers: at most 10,000 characters (all of a multiplex's queries
//! together: app/controllers/graphql_controller.rb `MAX_QUERY_SIZE`, "Query
//! too large"), and a depth of at most 20 for a signed-in caller, 15 for
//! an anonymous one (app/graphql/gitlab_schema.rb), refused in
//! graphql-ruby's words: "Query has depth of 21, which exceeds max depth
//! of 20".

use std::collections::HashSet;

use async_graphql::parser::parse_query;
use async_graphql::parser::types::{
    DocumentOperations, ExecutableDocument, OperationType, Selection, SelectionSet,
};

pub const MAX_QUERY_SIZE: usize = 10_000;
const MAX_DEPTH: usize = 20;
const ANONYMOUS_MAX_DEPTH: usize = 15;

/// The depth refusal for this query, if it is too deep; a query that does
/// not parse is left to the engine, which says why.
pub fn depth_refusal(query: &str, operation: Option<&str>, signed_in: bool) -> Option<String> {
    let max = if signed_in {
        MAX_DEPTH
    } else {
        ANONYMOUS_MAX_DEPTH
    };
    let doc = parse_query(query).ok()?;
    let depth = selected(&doc, operation)
        .map(|set| depth_of(&doc, set, &mut HashSet::new()))
        .max()?;
    (depth > max).then(|| format!("Query has depth of {depth}, which exceeds max depth of {max}"))
}

/// Whether the operation that runs is a mutation (GET may not run one:
/// "Mutations are forbidden in GET requests").
pub fn is_mutation(query: &str, operation: Option<&str>) -> bool {
    let Ok(doc) = parse_query(query) else {
        return false;
    };
    doc.operations
        .iter()
        .filter(|(name, _)| operation.is_none() || name.map(|n| n.as_str()) == operation)
        .any(|(_, op)| op.node.ty == OperationType::Mutation)
}

/// The selection sets of the operation that runs (all of them when the
/// document has several and none is named: the engine then refuses it).
fn selected<'a>(
    doc: &'a ExecutableDocument,
    operation: Option<&str>,
) -> impl Iterator<Item = &'a SelectionSet> {
    let named = operation.map(str::to_string);
    doc.operations
        .iter()
        .filter(move |(name, _)| match (&named, &doc.operations) {
            (Some(wanted), DocumentOperations::Multiple(_)) => {
                name.map(|n| n.as_str()) == Some(wanted.as_str())
            }
            _ => true,
        })
        .map(|(_, op)| &op.node.selection_set.node)
}

/// graphql-ruby's depth: a field counts one, plus its deepest child;
/// fragments add nothing of their own.
fn depth_of(doc: &ExecutableDocument, set: &SelectionSet, seen: &mut HashSet<String>) -> usize {
    set.items
        .iter()
        .map(|item| match &item.node {
            Selection::Field(field) => 1 + depth_of(doc, &field.node.selection_set.node, seen),
            Selection::InlineFragment(inline) => {
                depth_of(doc, &inline.node.selection_set.node, seen)
            }
            Selection::FragmentSpread(spread) => {
                let name = spread.node.fragment_name.node.to_string();
                match doc.fragments.get(spread.node.fragment_name.node.as_str()) {
                    Some(fragment) if seen.insert(name.clone()) => {
                        let depth = depth_of(doc, &fragment.node.selection_set.node, seen);
                        seen.remove(&name);
                        depth
                    }
                    _ => 0,
                }
            }
        })
        .max()
        .unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `{ a { a { ... { id } } } }` with `levels` fields in all.
    fn nested(levels: usize) -> String {
        let mut q = "id".to_string();
        for _ in 1..levels {
            q = format!("a {{ {q} }}");
        }
        format!("{{ {q} }}")
    }

    #[test]
    fn depth_counts_fields_through_fragments_as_graphql_ruby_does() {
        assert_eq!(depth_refusal(&nested(20), None, true), None);
        assert_eq!(
            depth_refusal(&nested(21), None, true).as_deref(),
            Some("Query has depth of 21, which exceeds max depth of 20")
        );
        assert_eq!(
            depth_refusal(&nested(16), None, false).as_deref(),
            Some("Query has depth of 16, which exceeds max depth of 15")
        );
        let with_fragment = "query { a { ...F } } fragment F on A { b { ... on B { c } } }";
        assert_eq!(depth_refusal(with_fragment, None, false), None);
        let doc = parse_query(with_fragment).unwrap();
        let set = selected(&doc, None).next().unwrap();
        assert_eq!(depth_of(&doc, set, &mut HashSet::new()), 3);
    }

    #[test]
    fn only_the_named_operation_is_a_mutation() {
        let doc = "query Q { a } mutation M { b }";
        assert!(is_mutation(doc, Some("M")));
        assert!(!is_mutation(doc, Some("Q")));
        assert!(!is_mutation("{ a }", None));
    }
}

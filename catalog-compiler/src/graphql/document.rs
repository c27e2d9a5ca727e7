//! A stored GraphQL document read with the parser the server uses: its
//! one operation (type, name, declared variables, root fields), and
//! whether a path of field names (`namespace.workItem`) is selected in it.

use async_graphql_parser::parse_query;
use async_graphql_parser::types::{
    ExecutableDocument, OperationDefinition, OperationType, Selection, SelectionSet, Type,
};

/// What a stored document does (the runtime's `Operation` variants).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Operation {
    Query,
    Mutation,
}

/// What the compiler keeps of a document.
pub struct Document {
    pub doc: ExecutableDocument,
    pub operation: Operation,
    pub operation_name: Option<String>,
    /// The operation's top-level fields, in document order.
    pub root_fields: Vec<String>,
    /// The text sent: the file without its leading `#` comment lines.
    pub text: String,
}

impl Document {
    /// Read a document, or say why it cannot be one the server sends.
    pub fn read(text: &str) -> Result<Document, String> {
        let doc = parse_query(text).map_err(|e| format!("does not parse: {e}"))?;
        let mut operations = doc.operations.iter();
        let (Some((name, op)), None) = (operations.next(), operations.next()) else {
            return Err("holds several operations; a stored document holds one".into());
        };
        let operation = match op.node.ty {
            OperationType::Query => Operation::Query,
            OperationType::Mutation => Operation::Mutation,
            OperationType::Subscription => {
                return Err(
                    "is a subscription, which GitLab's HTTP endpoint does not serve".into(),
                );
            }
        };
        let root_fields = fields(&op.node.selection_set.node, &doc, &mut Vec::new())
            .into_iter()
            .map(|(name, _)| name)
            .collect();
        Ok(Document {
            operation,
            operation_name: name.map(|n| n.to_string()),
            root_fields,
            text: strip_header(text),
            doc: doc.clone(),
        })
    }

    fn operation(&self) -> &OperationDefinition {
        let (_, op) = self
            .doc
            .operations
            .iter()
            .next()
            .expect("read keeps a document of one operation");
        &op.node
    }

    /// The declared variables: name, type, whether a value must be given
    /// (non-null without a default).
    pub fn variables(&self) -> Vec<(String, Type, bool)> {
        self.operation()
            .variable_definitions
            .iter()
            .map(|v| {
                let v = &v.node;
                let required = !v.var_type.node.nullable && v.default_value.is_none();
                (v.name.node.to_string(), v.var_type.node.clone(), required)
            })
            .collect()
    }

    /// Whether `path` names selected fields, each inside the last.
    pub fn selects(&self, path: &[&str]) -> bool {
        let mut set = &self.operation().selection_set.node;
        for name in path {
            match fields(set, &self.doc, &mut Vec::new())
                .into_iter()
                .find(|(n, _)| n == name)
            {
                Some((_, inner)) => set = inner,
                None => return false,
            }
        }
        true
    }
}

/// The fields a selection set selects (by their names in the answer,
/// aliases first), through inline fragments and fragment spreads (each
/// fragment once on a path: a fragment that spreads itself ends there).
fn fields<'a>(
    set: &'a SelectionSet,
    doc: &'a ExecutableDocument,
    spread: &mut Vec<&'a str>,
) -> Vec<(String, &'a SelectionSet)> {
    let mut out = Vec::new();
    for item in &set.items {
        match &item.node {
            Selection::Field(field) => {
                let f = &field.node;
                let name = f.alias.as_ref().unwrap_or(&f.name).node.to_string();
                out.push((name, &f.selection_set.node));
            }
            Selection::InlineFragment(inline) => {
                out.extend(fields(&inline.node.selection_set.node, doc, spread));
            }
            Selection::FragmentSpread(by_name) => {
                let name = by_name.node.fragment_name.node.as_str();
                if let Some((name, fragment)) = doc.fragments.get_key_value(name)
                    && !spread.contains(&name.as_str())
                {
                    spread.push(name.as_str());
                    out.extend(fields(&fragment.node.selection_set.node, doc, spread));
                    spread.pop();
                }
            }
        }
    }
    out
}

/// The document without the `#` comment lines that open it: they say what
/// the file is for, and would count against GitLab's size limit.
fn strip_header(text: &str) -> String {
    let body: Vec<&str> = text
        .lines()
        .skip_while(|line| line.trim_start().starts_with('#') || line.trim().is_empty())
        .collect();
    let mut out = body.join("\n");
    out.push('\n');
    out
}

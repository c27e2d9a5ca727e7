//! GitLab's schema (`catalog/graphql/gitlab_schema.graphql`, the part the
//! documents use) as far as the variables need it: the input objects a
//! path like `input.labelsWidget.labelIds` walks through, and the enums.

use std::collections::BTreeMap;

use async_graphql_parser::parse_schema;
use async_graphql_parser::types::{BaseType, Type, TypeKind, TypeSystemDefinition};

/// A named type of the schema, as the variables see it.
pub enum Named {
    Scalar,
    /// Its values.
    Enum(Vec<String>),
    /// Its fields and their types.
    Input(BTreeMap<String, Type>),
    /// An object, interface or union: not a variable's type.
    Output,
}

pub struct Schema {
    types: BTreeMap<String, Named>,
}

impl Schema {
    pub fn read(text: &str) -> Result<Schema, String> {
        let doc = parse_schema(text).map_err(|e| format!("does not parse: {e}"))?;
        let mut types = BTreeMap::new();
        for definition in doc.definitions {
            let TypeSystemDefinition::Type(ty) = definition else {
                continue;
            };
            let ty = ty.node;
            let named = match ty.kind {
                TypeKind::Scalar => Named::Scalar,
                TypeKind::Enum(e) => Named::Enum(
                    e.values
                        .iter()
                        .map(|v| v.node.value.node.to_string())
                        .collect(),
                ),
                TypeKind::InputObject(input) => Named::Input(
                    input
                        .fields
                        .iter()
                        .map(|f| (f.node.name.node.to_string(), f.node.ty.node.clone()))
                        .collect(),
                ),
                TypeKind::Object(_) | TypeKind::Interface(_) | TypeKind::Union(_) => Named::Output,
            };
            types.insert(ty.name.node.to_string(), named);
        }
        // GraphQL's own scalars are in every schema without a definition.
        for builtin in ["String", "Int", "Float", "Boolean", "ID"] {
            types.entry(builtin.to_string()).or_insert(Named::Scalar);
        }
        Ok(Schema { types })
    }

    pub fn named(&self, name: &str) -> Option<&Named> {
        self.types.get(name)
    }

    /// The type at `path` below a variable of type `ty`: each step is a
    /// field of an input object.
    pub fn walk(&self, ty: &Type, path: &[&str]) -> Result<Type, String> {
        let mut ty = ty.clone();
        for step in path {
            let BaseType::Named(name) = &ty.base else {
                return Err(format!("`{ty}` is a list, it has no field `{step}`"));
            };
            match self.types.get(name.as_str()) {
                Some(Named::Input(fields)) => match fields.get(*step) {
                    Some(field) => ty = field.clone(),
                    None => {
                        return Err(format!(
                            "input `{name}` has no field `{step}` (fields: {})",
                            fields.keys().cloned().collect::<Vec<_>>().join(", ")
                        ));
                    }
                },
                Some(_) => return Err(format!("`{name}` is not an input object")),
                None => return Err(format!("type `{name}` is not in the schema")),
            }
        }
        Ok(ty)
    }
}

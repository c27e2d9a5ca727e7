//! `gitlab_graphql schema`: one type of GitLab's schema from its own
//! introspection (`__type(name:)`), compactly: each field as
//! `name(argument: Type): Type`, input fields as `name: Type`, enum
//! values, so an agent can write a query without guessing. A name that is
//! no type is answered with the closest names (from `__schema`, cached per
//! GitLab).

use serde_json::{Map, Value, json};

use super::super::{Cache, rendered, send};
use crate::catalog::{GraphqlRoute, Operation, documents};
use crate::dispatch::{ValidatedCall, suggest};
use crate::gitlab::graphql::GraphqlOperation;
use crate::gitlab::{Failed, Pagination, graphql};
use crate::handlers::Gitlab;
use crate::render::Output;

pub async fn run(
    call: &ValidatedCall,
    route: &GraphqlRoute,
    gitlab: &Gitlab<'_>,
    cache: &Cache,
) -> Output {
    let Some(document) = route.document else {
        return Output::error(format!(
            "{} {}: no document",
            call.tool.name, call.action.name
        ));
    };
    let variables = super::super::variables::build(call, route, &Default::default());
    let name = variables
        .get("name")
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_string();
    let operation = GraphqlOperation {
        document: document.text,
        variables,
        operation_name: document.operation_name,
    };
    let (mut data, request_id) = match send(call, gitlab, &[operation], Operation::Query).await {
        Ok(answer) => answer,
        Err(output) => return output,
    };
    match graphql::answer(&data.remove(0), route.answer, request_id.as_deref()) {
        Ok(ty) => rendered(
            call,
            describe(&ty),
            Pagination::default(),
            request_id,
            gitlab,
        ),
        Err(error) if is_null(&error) => unknown(call, gitlab, cache, &name).await,
        Err(error) => gitlab.failure(call, &Failed { error, attempts: 1 }),
    }
}

fn is_null(error: &crate::gitlab::GitLabError) -> bool {
    matches!(
        error,
        crate::gitlab::GitLabError::Graphql(e)
            if matches!(e.failure, crate::gitlab::GraphqlFailure::Null { .. })
    )
}

/// A name that is no type: the closest type names.
async fn unknown(call: &ValidatedCall, gitlab: &Gitlab<'_>, cache: &Cache, name: &str) -> Output {
    let root = gitlab.target.web_root();
    let names = match cache.type_names(root) {
        Some(names) => names,
        None => {
            let document = &documents::GRAPHQL_TYPE_NAMES;
            let operation = GraphqlOperation {
                document: document.text,
                variables: Map::new(),
                operation_name: document.operation_name,
            };
            let (data, _) = match send(call, gitlab, &[operation], Operation::Query).await {
                Ok(answer) => answer,
                Err(output) => return output,
            };
            let names: Vec<String> = data[0]
                .pointer("/__schema/types")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .filter_map(|t| t.get("name").and_then(Value::as_str))
                // Introspection's own types are not what a query names.
                .filter(|n| !n.starts_with("__"))
                .map(str::to_string)
                .collect();
            cache.keep_type_names(root, names.clone());
            names
        }
    };
    let lower = name.to_lowercase();
    let meant = names
        .iter()
        .find(|n| n.to_lowercase() == lower)
        .map(String::as_str)
        .or_else(|| suggest::closest(name, names.iter().map(String::as_str)));
    let mut out = format!(
        "{} {}: GitLab's schema has no type `{name}`",
        call.tool.name, call.action.name
    );
    match meant {
        Some(meant) => out.push_str(&format!("; did you mean `{meant}`?")),
        None => out.push_str(". Start from `Query` (reads) to find the types."),
    }
    Output::error(out)
}

/// The type as a compact object: its fields as signatures.
fn describe(ty: &Value) -> Value {
    let mut out = Map::new();
    for key in ["name", "kind", "description"] {
        if let Some(value) = ty.get(key).filter(|v| !v.is_null()) {
            out.insert(key.into(), value.clone());
        }
    }
    let list = |key: &str| {
        ty.get(key)
            .and_then(Value::as_array)
            .cloned()
            .unwrap_or_default()
    };
    let fields: Vec<Value> = list("fields")
        .iter()
        .map(|f| {
            let args: Vec<String> = f
                .get("args")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .map(|a| format!("{}: {}", text(a, "name"), type_ref(a.get("type"))))
                .collect();
            let args = if args.is_empty() {
                String::new()
            } else {
                format!("({})", args.join(", "))
            };
            json!(format!(
                "{}{args}: {}",
                text(f, "name"),
                type_ref(f.get("type"))
            ))
        })
        .collect();
    let inputs: Vec<Value> = list("inputFields")
        .iter()
        .map(|f| json!(format!("{}: {}", text(f, "name"), type_ref(f.get("type")))))
        .collect();
    let values: Vec<Value> = list("enumValues")
        .iter()
        .map(|v| json!(text(v, "name")))
        .collect();
    for (key, items) in [
        ("fields", fields),
        ("input_fields", inputs),
        ("enum_values", values),
    ] {
        if !items.is_empty() {
            out.insert(key.into(), Value::Array(items));
        }
    }
    Value::Object(out)
}

fn text(value: &Value, key: &str) -> String {
    value
        .get(key)
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_string()
}

/// Introspection's type reference as GraphQL writes it: `[String!]!`.
fn type_ref(ty: Option<&Value>) -> String {
    let Some(ty) = ty else {
        return "?".into();
    };
    let inner = || type_ref(ty.get("ofType"));
    match ty.get("kind").and_then(Value::as_str) {
        Some("NON_NULL") => format!("{}!", inner()),
        Some("LIST") => format!("[{}]", inner()),
        _ => text(ty, "name"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_type_reads_as_signatures() {
        let ty = json!({
            "name": "Project", "kind": "OBJECT", "description": null,
            "fields": [
                {"name": "workItems", "description": "x", "args": [
                    {"name": "iids", "type": {"kind": "LIST", "name": null, "ofType": {"kind": "NON_NULL", "name": null, "ofType": {"kind": "SCALAR", "name": "String", "ofType": null}}}},
                    {"name": "first", "type": {"kind": "SCALAR", "name": "Int", "ofType": null}}
                ], "type": {"kind": "OBJECT", "name": "WorkItemConnection", "ofType": null}},
                {"name": "id", "args": [], "type": {"kind": "NON_NULL", "name": null, "ofType": {"kind": "SCALAR", "name": "ID", "ofType": null}}}
            ],
            "inputFields": null, "enumValues": null
        });
        assert_eq!(
            describe(&ty),
            json!({
                "name": "Project", "kind": "OBJECT",
                "fields": [
                    "workItems(iids: [String!], first: Int): WorkItemConnection",
                    "id: ID!"
                ]
            })
        );
    }
}

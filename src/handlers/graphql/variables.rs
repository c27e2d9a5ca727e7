//! A stored document's variables, built from the call as the catalog says
//! (`VariableSpec`): each given parameter as it is, as text, as GraphQL's
//! enum value or as a global ID, and each resolved one as GitLab's IDs,
//! set at its path (`input.labelsWidget.labelIds`). A parameter not given
//! sets nothing, so GitLab applies its own default or leaves the field.

use serde_json::{Map, Value};

use super::resolve::Resolved;
use crate::catalog::{Feed, GraphqlRoute, Resolver};
use crate::dispatch::ValidatedCall;
use crate::encoding::scalar_text;

/// What a global ID starts with.
pub const GID: &str = "gid://gitlab/";

pub fn build(
    call: &ValidatedCall,
    route: &GraphqlRoute,
    resolved: &Resolved,
) -> Map<String, Value> {
    let mut variables = Map::new();
    for spec in route.variables {
        let given = spec
            .param
            .and_then(|i| call.arg(call.action.params[i].name));
        let value = match (spec.feed, spec.param) {
            (Feed::Resolve(Resolver::Namespace), _) => {
                resolved.namespace.clone().map(Value::String)
            }
            (Feed::Resolve(_), Some(i)) => resolved.get(i).cloned(),
            (feed, _) => given.map(|value| convert(feed, value)),
        };
        if let Some(value) = value {
            set(&mut variables, spec.path, value);
        }
    }
    variables
}

/// A given value as the variable takes it.
fn convert(feed: Feed, value: &Value) -> Value {
    match feed {
        Feed::Value | Feed::Resolve(_) => value.clone(),
        Feed::Text => Value::String(scalar_text(value).into_owned()),
        Feed::Values(pairs) => {
            let map = |v: &Value| {
                let given = scalar_text(v);
                let sent = pairs
                    .iter()
                    .find(|(from, _)| *from == given)
                    .map_or(given.as_ref(), |(_, to)| to);
                Value::String(sent.to_string())
            };
            match value {
                Value::Array(items) => Value::Array(items.iter().map(map).collect()),
                one => map(one),
            }
        }
        Feed::GlobalId(model) => Value::String(global_id(model, &scalar_text(value))),
    }
}

/// `gid://gitlab/<model>/<id>`; an id of that model already written so is
/// kept.
pub fn global_id(model: &str, id: &str) -> String {
    if id.starts_with(&format!("{GID}{model}/")) {
        id.to_string()
    } else {
        format!("{GID}{model}/{id}")
    }
}

/// `value` at `path`, making the objects on the way.
fn set(variables: &mut Map<String, Value>, path: &[&str], value: Value) {
    let Some((last, parents)) = path.split_last() else {
        return;
    };
    let mut at = variables;
    for step in parents {
        let next = at
            .entry(step.to_string())
            .or_insert_with(|| Value::Object(Map::new()));
        if !next.is_object() {
            *next = Value::Object(Map::new());
        }
        at = next.as_object_mut().expect("made an object above");
    }
    at.insert(last.to_string(), value);
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn values_are_converted_and_set_at_their_paths() {
        let mut vars = Map::new();
        set(&mut vars, &["input", "title"], json!("t"));
        set(
            &mut vars,
            &["input", "labelsWidget", "labelIds"],
            json!(["gid://gitlab/ProjectLabel/1"]),
        );
        set(&mut vars, &["iid"], convert(Feed::Text, &json!(42)));
        assert_eq!(
            Value::Object(vars),
            json!({"input": {"title": "t", "labelsWidget": {"labelIds": ["gid://gitlab/ProjectLabel/1"]}}, "iid": "42"})
        );
        let pairs: &[(&str, &str)] = &[("close", "CLOSE"), ("key_result", "KEY_RESULT")];
        assert_eq!(
            convert(Feed::Values(pairs), &json!("close")),
            json!("CLOSE")
        );
        assert_eq!(
            convert(Feed::Values(pairs), &json!(["key_result"])),
            json!(["KEY_RESULT"])
        );
        assert_eq!(
            convert(Feed::GlobalId("Milestone"), &json!(7)),
            json!("gid://gitlab/Milestone/7")
        );
        assert_eq!(
            convert(
                Feed::GlobalId("Discussion"),
                &json!("gid://gitlab/Discussion/ab")
            ),
            json!("gid://gitlab/Discussion/ab")
        );
    }
}

//! A minimal valid call of an action, for its help and the tool list: the
//! required parameters filled with plausible values from
//! `catalog/vocabulary.toml` (by name, then string format, then type).

use serde_json::{Map, Value};

use super::{ActionSpec, FieldSpec, ParamSpec, ParamType, vocabulary};

/// `{"action":"get","params":{"project_id":"group/project","issue_iid":42}}`
pub fn example_envelope(action: &ActionSpec) -> String {
    let mut params = Map::new();
    for p in action.params.iter().filter(|p| p.required) {
        params.insert(p.name.to_string(), example_value(p));
    }
    // One of each group of alternatives: the first.
    for group in action.one_of {
        if let Some(p) = group.first().and_then(|name| action.param(name)) {
            params.insert(p.name.to_string(), example_value(p));
        }
    }
    let mut envelope = Map::new();
    envelope.insert("action".into(), Value::String(action.name.into()));
    envelope.insert("params".into(), Value::Object(params));
    Value::Object(envelope).to_string()
}

/// A value `p` accepts.
fn example_value(p: &ParamSpec) -> Value {
    if let Some(first) = p.allowed.first() {
        return match p.ty {
            ParamType::Array => Value::Array(vec![Value::String((*first).into())]),
            _ => Value::String((*first).into()),
        };
    }
    if let Some(value) = by_name(p.name).filter(|v| fits(v, p.ty)) {
        return value;
    }
    match (p.ty, p.items) {
        (ParamType::Array, Some(ParamType::Object)) => Value::Array(vec![object_example(p.fields)]),
        (ParamType::Array, items) => {
            Value::Array(vec![by_type(items.unwrap_or(ParamType::String))])
        }
        (ParamType::Object, _) => Value::Object(Map::new()),
        (ParamType::String, _) => p
            .format
            .and_then(by_format)
            .unwrap_or_else(|| by_type(p.ty)),
        (ty, _) => by_type(ty),
    }
}

/// One object of an array of objects, with its required fields.
fn object_example(fields: &[FieldSpec]) -> Value {
    let mut item = Map::new();
    for f in fields.iter().filter(|f| f.required) {
        let value = match f.allowed.first() {
            Some(first) => Value::String((*first).into()),
            None => by_name(f.name)
                .filter(|v| fits(v, f.ty))
                .unwrap_or_else(|| by_type(f.ty)),
        };
        item.insert(f.name.to_string(), value);
    }
    // A multi-file commit's `create` needs content (dispatch/checks/commit_actions.rs).
    if item.get("action").and_then(Value::as_str) == Some("create") {
        item.insert("content".into(), by_type(ParamType::String));
    }
    Value::Object(item)
}

fn parse(json: &str) -> Value {
    serde_json::from_str(json).expect("build.rs writes example values as JSON")
}

fn by_name(name: &str) -> Option<Value> {
    let v = vocabulary();
    v.examples_by_name
        .iter()
        .find(|(n, _)| *n == name)
        .map(|(_, json)| parse(json))
}

fn by_format(format: &str) -> Option<Value> {
    let v = vocabulary();
    v.examples_by_format
        .iter()
        .find(|(f, _)| *f == format)
        .map(|(_, json)| parse(json))
}

fn by_type(ty: ParamType) -> Value {
    vocabulary()
        .examples_by_type
        .iter()
        .find(|(t, _)| *t == ty)
        .map_or(Value::Null, |(_, json)| parse(json))
}

/// Whether an example value has the parameter's type.
fn fits(value: &Value, ty: ParamType) -> bool {
    match ty {
        ParamType::String => value.is_string(),
        ParamType::Integer => value.is_i64() || value.is_u64(),
        ParamType::Number => value.is_number(),
        ParamType::Boolean => value.is_boolean(),
        ParamType::Array => value.is_array(),
        ParamType::Object => value.is_object(),
    }
}

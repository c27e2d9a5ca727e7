//! The first stage: the envelope `{"action": ..., "params": {...}}`.
//!
//! Decoded as a `deny_unknown_fields` struct through `serde_path_to_error`,
//! so a wrong type is named with its path. Before that, every top-level key
//! is looked at, so all misplaced keys are reported together: a parameter
//! put beside `action` instead of inside `params`, a misspelled `params`.

use serde::Deserialize;
use serde_json::{Map, Value};

use super::error::{DecodeError, EnvelopeProblem};
use super::suggest;
use crate::catalog::{self, ToolSpec};

/// The keys an envelope may have: the call, then how to show its answer.
pub const ENVELOPE_KEYS: &[&str] = &[
    "action",
    "params",
    "fields",
    "raw",
    "lines",
    "file",
    "max_items",
    "confirm",
    "quick_actions",
];

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Envelope {
    pub action: String,
    #[serde(default, deserialize_with = "object_or_json_text")]
    pub params: Map<String, Value>,
    /// Keep only these fields of each object: a list, or comma-separated.
    #[serde(default, deserialize_with = "list_or_csv")]
    pub fields: Option<Vec<String>>,
    /// GitLab's JSON as it came.
    #[serde(default)]
    pub raw: bool,
    /// A window over a text answer: "100-200", "100-" or "-50".
    #[serde(default)]
    pub lines: Option<String>,
    /// One file's diff out of a diff answer.
    #[serde(default)]
    pub file: Option<String>,
    /// Follow a list's pages until this many items.
    #[serde(default)]
    pub max_items: Option<i64>,
    /// The model confirms a destructive action (when the operator allows it).
    #[serde(default)]
    pub confirm: bool,
    /// The call means the `/command` lines of its text as quick actions.
    #[serde(default)]
    pub quick_actions: bool,
}

pub fn decode(
    tool: &'static ToolSpec,
    arguments: Map<String, Value>,
) -> Result<Envelope, DecodeError> {
    let problems = misplaced_keys(tool, &arguments);
    if !problems.is_empty() {
        let action = arguments
            .get("action")
            .and_then(Value::as_str)
            .and_then(|a| tool.action(a));
        return Err(DecodeError::Envelope {
            tool,
            action,
            problems,
        });
    }
    let fail = |problem| DecodeError::Envelope {
        tool,
        action: None,
        problems: vec![problem],
    };
    let arguments = match plain(arguments) {
        Ok(envelope) => return Ok(envelope),
        Err(arguments) => arguments,
    };
    if arguments.get("action").is_none_or(Value::is_null) {
        return Err(fail(EnvelopeProblem::MissingAction));
    }
    serde_path_to_error::deserialize(Value::Object(arguments)).map_err(|e| {
        let path = e.path().to_string();
        fail(EnvelopeProblem::Malformed {
            path,
            message: e.into_inner().to_string(),
        })
    })
}

/// The envelope most calls send, `action` as text and `params` as an
/// object (or null, or absent), taken as it is: what serde would decode
/// from it, without rebuilding `params` key by key. Anything else is given
/// back for serde, its errors included.
fn plain(arguments: Map<String, Value>) -> Result<Envelope, Map<String, Value>> {
    // Looked at in order, not by key: each lookup would hash the key.
    let mut has_action = false;
    let simple = arguments.iter().all(|(key, value)| match key.as_str() {
        "action" => {
            has_action = true;
            value.is_string()
        }
        "params" => value.is_object() || value.is_null(),
        _ => false,
    });
    if !(simple && has_action) {
        return Err(arguments);
    }
    let (mut action, mut params) = (String::new(), Map::new());
    for (key, value) in arguments {
        match (key.as_str(), value) {
            ("action", Value::String(text)) => action = text,
            ("params", Value::Object(map)) => params = map,
            _ => {}
        }
    }
    Ok(Envelope {
        action,
        params,
        fields: None,
        raw: false,
        lines: None,
        file: None,
        max_items: None,
        confirm: false,
        quick_actions: false,
    })
}

/// Every top-level key that is not an envelope key, with what it probably is.
fn misplaced_keys(tool: &'static ToolSpec, arguments: &Map<String, Value>) -> Vec<EnvelopeProblem> {
    let mut problems = Vec::new();
    let mut keys = arguments
        .keys()
        .filter(|key| !ENVELOPE_KEYS.contains(&key.as_str()))
        .peekable();
    if keys.peek().is_none() {
        return problems;
    }
    let action = arguments
        .get("action")
        .and_then(Value::as_str)
        .and_then(|a| tool.action(a));
    for key in keys {
        let snake = suggest::snake_case(key);
        let words = catalog::vocabulary();
        let problem = if is_like(&snake, "params", words.params_aliases) {
            EnvelopeProblem::MisspelledParams { key: key.clone() }
        } else if !arguments.contains_key("action")
            && is_like(&snake, "action", words.action_aliases)
        {
            EnvelopeProblem::MisspelledAction { key: key.clone() }
        } else {
            // A parameter beside `action`: name it with the parameter it
            // matches in the action given, or in any action of the tool.
            let matched = match action {
                Some(a) => suggest::suggest_param(key, a, &[]),
                None => tool
                    .actions
                    .iter()
                    .find_map(|a| suggest::suggest_param(key, a, &[])),
            };
            match matched {
                Some(param) => EnvelopeProblem::ParamOutsideParams {
                    key: key.clone(),
                    param,
                },
                None => EnvelopeProblem::UnknownKey { key: key.clone() },
            }
        };
        problems.push(problem);
    }
    problems
}

fn is_like(snake: &str, target: &str, aliases: &[&str]) -> bool {
    aliases.contains(&snake) || (snake != target && strsim::damerau_levenshtein(snake, target) <= 2)
}

/// `["a", "b"]` or `"a,b"`.
fn list_or_csv<'de, D>(deserializer: D) -> Result<Option<Vec<String>>, D::Error>
where
    D: serde::Deserializer<'de>,
{
    use serde::de::Error;
    match Value::deserialize(deserializer)? {
        Value::Null => Ok(None),
        Value::String(text) => Ok(Some(
            text.split(',')
                .map(|f| f.trim().to_string())
                .filter(|f| !f.is_empty())
                .collect(),
        )),
        Value::Array(items) => items
            .into_iter()
            .map(|v| match v {
                Value::String(s) => Ok(s),
                other => Err(D::Error::custom(format!(
                    "expected field names, found {other}"
                ))),
            })
            .collect::<Result<Vec<_>, _>>()
            .map(Some),
        other => Err(D::Error::custom(format!(
            "expected a list of field names such as [\"iid\", \"title\"], found {}",
            super::params::json_kind(&other)
        ))),
    }
}

/// `params` as an object, or as JSON text holding an object: some clients
/// send nested objects as strings, and the meaning is unambiguous.
fn object_or_json_text<'de, D>(deserializer: D) -> Result<Map<String, Value>, D::Error>
where
    D: serde::Deserializer<'de>,
{
    use serde::de::Error;
    match Value::deserialize(deserializer)? {
        Value::Object(map) => Ok(map),
        Value::Null => Ok(Map::new()),
        Value::String(text) => match serde_json::from_str::<Value>(&text) {
            Ok(Value::Object(map)) => Ok(map),
            _ => Err(D::Error::custom(
                "expected an object such as {\"project_id\": \"group/project\"}, found a string",
            )),
        },
        other => Err(D::Error::custom(format!(
            "expected an object such as {{\"project_id\": \"group/project\"}}, found {}",
            super::params::json_kind(&other)
        ))),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::{Value, json};

    use super::{Envelope, plain};

    /// What serde decodes, as the shortcut's result is compared with it.
    fn by_serde(arguments: &Value) -> Option<String> {
        serde_json::from_value::<Envelope>(arguments.clone())
            .ok()
            .map(|e| format!("{e:?}"))
    }

    #[test]
    fn the_plain_envelope_is_what_serde_decodes_and_the_rest_goes_to_serde() {
        let taken = [
            json!({"action": "get", "params": {"project_id": 1, "issue_iid": 3}}),
            json!({"params": {"b": [1, {"c": null}], "a": "x"}, "action": "list"}),
            json!({"action": "list", "params": null}),
            json!({"action": "list"}),
            json!({"action": ""}),
        ];
        for arguments in taken {
            let Value::Object(map) = arguments.clone() else {
                unreachable!()
            };
            let envelope = plain(map).expect("taken as it is");
            assert_eq!(Some(format!("{envelope:?}")), by_serde(&arguments));
        }
        let left = [
            json!({"action": "get", "params": "{\"project_id\": 1}"}),
            json!({"action": "get", "params": [1]}),
            json!({"action": 7, "params": {}}),
            json!({"action": "list", "raw": true}),
            json!({"action": "list", "fields": "id,title", "params": {}}),
            json!({"action": "list", "params": {}, "max_items": 5}),
        ];
        for arguments in left {
            let Value::Object(map) = arguments.clone() else {
                unreachable!()
            };
            let given_back = plain(map).expect_err("left to serde");
            assert_eq!(Value::Object(given_back), arguments);
        }
    }
}

//! Tool input schemas every client accepts.
//!
//! 1. Valid JSON Schema 2020-12, checked strictly: against the 2020-12
//!    meta-schema (bundled by the `jsonschema` crate, so offline) with
//!    format assertions on, compiled with unknown formats refused, and,
//!    like Ajv's strict mode, no keyword outside the 2020-12 vocabularies.
//! 2. Within what the strictest clients take (OpenAI function calling,
//!    Gemini's function declarations, clients that validate arguments
//!    client-side): no `$ref`, `$schema`, `$defs`, no `anyOf`/`oneOf`/
//!    `allOf`/`not`/conditionals, no `nullable` or type arrays, only the
//!    six standard types and formats all of them know, every array with
//!    `items`, enums of unique strings, an object root with
//!    `additionalProperties`, tool names of `[A-Za-z0-9_-]{1,64}`.
//! 3. The calls the descriptions and the help show validate against them.

use gitlab_mcp::catalog;
use gitlab_mcp::mcp::tools::tool_list_json;
use serde_json::{Map, Value, json};

/// The tool lists a client can be served: the default, and read-only.
fn tool_lists() -> Vec<(&'static str, Vec<Value>)> {
    let mut lists = Vec::new();
    let default: Value = serde_json::from_str(&tool_list_json(catalog::tools())).unwrap();
    lists.push(("default", default["tools"].as_array().unwrap().clone()));
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_gitlab-mcp"))
        .args(["--read-only", "tools", "--json"])
        .env_clear()
        .output()
        .expect("gitlab-mcp tools runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let read_only: Value = serde_json::from_slice(&out.stdout).unwrap();
    lists.push(("read-only", read_only["tools"].as_array().unwrap().clone()));
    lists
}

fn each_schema(mut check: impl FnMut(&str, &str, &Value)) {
    for (list, tools) in tool_lists() {
        assert!(tools.len() >= 10, "{list}: {}", tools.len());
        for tool in &tools {
            let name = tool["name"].as_str().unwrap();
            check(list, name, &tool["inputSchema"]);
        }
    }
}

// ---------------------------------------------------------------------------
// JSON Schema 2020-12, strictly.

/// What the 2020-12 meta-schema, checked strictly, says of `schema`.
fn meta_problems(schema: &Value) -> Vec<String> {
    // The meta-schema itself, by its URI from the crate's bundled
    // registry, with format assertions on (`regex`, `uri-reference`...).
    let meta = jsonschema::draft202012::options()
        .should_validate_formats(true)
        .build(&json!({"$ref": "https://json-schema.org/draft/2020-12/schema"}))
        .expect("the 2020-12 meta-schema resolves offline");
    let mut problems: Vec<String> = meta
        .iter_errors(schema)
        .map(|e| format!("{} at {}", e, e.instance_path()))
        .collect();
    if !jsonschema::draft202012::meta::is_valid(schema) {
        problems.push("refused by draft202012::meta".into());
    }
    if let Err(e) = jsonschema::draft202012::options()
        .should_validate_formats(true)
        .should_ignore_unknown_formats(false)
        .build(schema)
    {
        problems.push(format!("does not compile strictly: {e}"));
    }
    problems
}

#[test]
fn every_input_schema_is_valid_json_schema_2020_12_against_the_meta_schema_with_formats_asserted() {
    each_schema(|list, name, schema| {
        let problems = meta_problems(schema);
        assert!(problems.is_empty(), "{list} {name}: {problems:#?}");
    });
}

/// Every keyword of the 2020-12 vocabularies (core, applicator,
/// unevaluated, validation, meta-data, format, content).
const KEYWORDS: &[&str] = &[
    "$schema",
    "$id",
    "$ref",
    "$anchor",
    "$dynamicRef",
    "$dynamicAnchor",
    "$vocabulary",
    "$comment",
    "$defs",
    "prefixItems",
    "items",
    "contains",
    "additionalProperties",
    "properties",
    "patternProperties",
    "dependentSchemas",
    "propertyNames",
    "if",
    "then",
    "else",
    "allOf",
    "anyOf",
    "oneOf",
    "not",
    "unevaluatedItems",
    "unevaluatedProperties",
    "type",
    "const",
    "enum",
    "multipleOf",
    "maximum",
    "exclusiveMaximum",
    "minimum",
    "exclusiveMinimum",
    "maxLength",
    "minLength",
    "pattern",
    "maxItems",
    "minItems",
    "uniqueItems",
    "maxContains",
    "minContains",
    "maxProperties",
    "minProperties",
    "required",
    "dependentRequired",
    "title",
    "description",
    "default",
    "deprecated",
    "readOnly",
    "writeOnly",
    "examples",
    "format",
    "contentEncoding",
    "contentMediaType",
    "contentSchema",
];

/// Keywords whose value is a map of names to schemas.
const SCHEMA_MAPS: &[&str] = &[
    "properties",
    "patternProperties",
    "$defs",
    "dependentSchemas",
];
/// Keywords whose value is a schema.
const SCHEMA_VALUES: &[&str] = &[
    "items",
    "contains",
    "additionalProperties",
    "propertyNames",
    "if",
    "then",
    "else",
    "not",
    "unevaluatedItems",
    "unevaluatedProperties",
    "contentSchema",
];
/// Keywords whose value is a list of schemas.
const SCHEMA_LISTS: &[&str] = &["prefixItems", "allOf", "anyOf", "oneOf"];

/// Call `visit` on every subschema of `schema`, with its JSON pointer.
fn walk(schema: &Value, at: &str, visit: &mut impl FnMut(&str, &Map<String, Value>)) {
    let Value::Object(map) = schema else { return };
    visit(at, map);
    for (key, value) in map {
        if SCHEMA_MAPS.contains(&key.as_str()) {
            for (name, sub) in value.as_object().into_iter().flatten() {
                walk(sub, &format!("{at}/{key}/{name}"), visit);
            }
        } else if SCHEMA_VALUES.contains(&key.as_str()) {
            walk(value, &format!("{at}/{key}"), visit);
        } else if SCHEMA_LISTS.contains(&key.as_str()) {
            for (i, sub) in value.as_array().into_iter().flatten().enumerate() {
                walk(sub, &format!("{at}/{key}/{i}"), visit);
            }
        }
    }
}

/// Keywords outside the 2020-12 vocabularies, as a strict validator
/// (Ajv's strict mode) refuses them.
fn unknown_keywords(schema: &Value) -> Vec<String> {
    let mut problems = Vec::new();
    walk(schema, "", &mut |at, map| {
        for key in map.keys() {
            if !KEYWORDS.contains(&key.as_str()) {
                problems.push(format!("unknown keyword `{key}` at `{at}`"));
            }
        }
    });
    problems
}

#[test]
fn every_input_schema_uses_only_2020_12_keywords_as_in_a_strict_validator() {
    each_schema(|list, name, schema| {
        let problems = unknown_keywords(schema);
        assert!(problems.is_empty(), "{list} {name}: {problems:#?}");
    });
}

// ---------------------------------------------------------------------------
// The strictest clients.

const STANDARD_TYPES: &[&str] = &["string", "integer", "number", "boolean", "array", "object"];

/// Formats that OpenAI's and Gemini's function calling both accept.
const UNIVERSAL_FORMATS: &[&str] = &["date-time"];

/// Keywords some client refuses or mishandles.
const REFUSED: &[&str] = &[
    "$ref",
    "$schema",
    "$defs",
    "definitions",
    "$id",
    "$anchor",
    "$dynamicRef",
    "$dynamicAnchor",
    "anyOf",
    "oneOf",
    "allOf",
    "not",
    "if",
    "then",
    "else",
    "nullable",
    "patternProperties",
    "dependentSchemas",
    "unevaluatedProperties",
    "unevaluatedItems",
    "prefixItems",
];

/// What the strictest clients would refuse in `schema`.
fn client_problems(schema: &Value) -> Vec<String> {
    let mut problems = Vec::new();
    let Some(root) = schema.as_object() else {
        return vec!["not an object".into()];
    };
    if root.get("type") != Some(&json!("object")) {
        problems.push("the root is not an object".into());
    }
    if !root.contains_key("additionalProperties") {
        problems.push("no additionalProperties at the root".into());
    }
    if root
        .get("properties")
        .and_then(Value::as_object)
        .is_none_or(Map::is_empty)
    {
        problems.push("the root names no properties".into());
    }
    for required in root
        .get("required")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        let key = required.as_str().unwrap_or_default();
        if root.get("properties").and_then(|p| p.get(key)).is_none() {
            problems.push(format!("required `{key}` is no property"));
        }
    }
    walk(schema, "", &mut |at, map| {
        for key in map.keys() {
            if REFUSED.contains(&key.as_str()) {
                problems.push(format!("`{key}` at `{at}`"));
            }
        }
        match map.get("type") {
            Some(Value::String(ty)) if STANDARD_TYPES.contains(&ty.as_str()) => {}
            Some(Value::String(ty)) => problems.push(format!("type `{ty}` at `{at}`")),
            Some(other) => problems.push(format!("type {other} at `{at}`: one type only")),
            None => problems.push(format!("no type at `{at}`")),
        }
        if let Some(format) = map.get("format")
            && !format
                .as_str()
                .is_some_and(|f| UNIVERSAL_FORMATS.contains(&f))
        {
            problems.push(format!("format {format} at `{at}`"));
        }
        if map.get("type") == Some(&json!("array")) && !map.contains_key("items") {
            problems.push(format!("an array without items at `{at}`"));
        }
        if let Some(values) = map.get("enum") {
            let texts: Vec<&str> = values
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(Value::as_str)
                .collect();
            let mut unique = texts.clone();
            unique.sort();
            unique.dedup();
            if texts.is_empty()
                || values.as_array().is_none_or(|v| v.len() != texts.len())
                || map.get("type") != Some(&json!("string"))
                || unique.len() != texts.len()
            {
                problems.push(format!("an enum that is not of unique strings at `{at}`"));
            }
        }
    });
    problems
}

#[test]
fn every_input_schema_is_within_what_the_strictest_clients_accept() {
    each_schema(|list, name, schema| {
        let problems = client_problems(schema);
        assert!(problems.is_empty(), "{list} {name}: {problems:#?}");
    });
}

/// The checks above catch what they are for.
#[test]
fn the_schema_checks_refuse_what_clients_refuse() {
    let bad = [
        json!({"type": "object", "properties": {"a": {"type": ["string", "null"]}}, "additionalProperties": false}),
        json!({"type": "object", "properties": {"a": {"type": "string", "nullable": true}}, "additionalProperties": false}),
        json!({"type": "object", "properties": {"a": {"anyOf": [{"type": "string"}, {"type": "null"}]}}, "additionalProperties": false}),
        json!({"$schema": "https://json-schema.org/draft/2020-12/schema", "type": "object", "properties": {"a": {"type": "string"}}, "additionalProperties": false}),
        json!({"type": "object", "properties": {"a": {"$ref": "#/$defs/a"}}, "$defs": {"a": {"type": "string"}}, "additionalProperties": false}),
        json!({"type": "object", "properties": {"a": {"type": "array"}}, "additionalProperties": false}),
        json!({"type": "object", "properties": {"a": {"type": "string", "format": "uri"}}, "additionalProperties": false}),
        json!({"type": "object", "properties": {"a": {"type": "string", "enum": ["x", "x"]}}, "additionalProperties": false}),
        json!({"type": "object", "properties": {"a": {"type": "string"}}}),
    ];
    for schema in bad {
        assert!(!client_problems(&schema).is_empty(), "{schema}");
    }
    let not_strict = json!({"type": "object", "properties": {"a": {"type": "string", "example": "x"}}, "additionalProperties": false});
    assert!(!unknown_keywords(&not_strict).is_empty());
    assert!(client_problems(&not_strict).is_empty());
    let invalid = json!({"type": "object", "properties": {"a": {"type": "text", "pattern": "("}}, "required": "a"});
    assert!(!meta_problems(&invalid).is_empty());
    let open = json!({"type": "object", "properties": {"a": {"type": "object"}}, "additionalProperties": false});
    assert_eq!(
        objects_without_properties(&open),
        ["`/properties/a` is an object with neither"]
    );
    let said = json!({"type": "object", "properties": {"a": {"type": "object", "additionalProperties": true}}, "additionalProperties": false});
    assert_eq!(objects_without_properties(&said), Vec::<String>::new());
}

#[test]
fn every_tool_name_is_within_every_clients_limits() {
    for (list, tools) in tool_lists() {
        for tool in &tools {
            let name = tool["name"].as_str().unwrap();
            assert!(
                !name.is_empty()
                    && name.len() <= 64
                    && name
                        .bytes()
                        .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-'),
                "{list}: `{name}`"
            );
        }
    }
}

/// Object schemas that name no property and do not say whether other keys
/// are allowed. Gemini's function declarations refuse an object without
/// properties ("properties: should be non-empty for OBJECT type"), and
/// some OpenAI-compatible servers say "object schema missing properties";
/// Gemini's JSON Schema form (what Gemini CLI sends an MCP tool's schema
/// as) reads `additionalProperties` as what keys the object takes.
fn objects_without_properties(schema: &Value) -> Vec<String> {
    let mut problems = Vec::new();
    walk(schema, "", &mut |at, map| {
        let named = map
            .get("properties")
            .and_then(Value::as_object)
            .is_some_and(|p| !p.is_empty());
        if map.get("type") == Some(&json!("object"))
            && !named
            && !map.contains_key("additionalProperties")
        {
            problems.push(format!("`{at}` is an object with neither"));
        }
    });
    problems
}

#[test]
fn every_object_schema_declares_its_properties_or_additional_properties() {
    each_schema(|list, name, schema| {
        let problems = objects_without_properties(schema);
        assert!(problems.is_empty(), "{list} {name}: {problems:#?}");
    });
}

// ---------------------------------------------------------------------------
// The calls the server teaches validate against its schemas.

#[test]
fn every_documented_call_validates_against_its_tool_schema() {
    let list: Value = serde_json::from_str(&tool_list_json(catalog::tools())).unwrap();
    let mut checked = 0;
    for tool in list["tools"].as_array().unwrap() {
        let name = tool["name"].as_str().unwrap();
        let validator = jsonschema::draft202012::new(&tool["inputSchema"]).unwrap();
        let spec = catalog::tool(name).unwrap();
        // The description's second line, the help call, and each action's
        // example (help and errors show them).
        let mut calls = vec![
            (
                "description".to_string(),
                tool["description"]
                    .as_str()
                    .unwrap()
                    .lines()
                    .nth(1)
                    .unwrap()
                    .to_string(),
            ),
            (
                "help".to_string(),
                r#"{"action": "help", "params": {"action": "list"}}"#.to_string(),
            ),
        ];
        for action in spec.actions {
            calls.push((action.name.to_string(), catalog::example_envelope(action)));
        }
        for (what, call) in calls {
            let instance: Value = serde_json::from_str(&call)
                .unwrap_or_else(|e| panic!("{name} {what}: not JSON ({e}): {call}"));
            let errors: Vec<String> = validator
                .iter_errors(&instance)
                .map(|e| e.to_string())
                .collect();
            assert!(errors.is_empty(), "{name} {what}: {call}: {errors:?}");
            checked += 1;
        }
    }
    assert!(checked > 300, "{checked}");
}

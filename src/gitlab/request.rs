//! A validated call as an HTTP request: method, encoded path, query, body.
//!
//! Pure (no reqwest here), so it is benchmarked with the dispatcher. The one
//! rule that matters most: a path parameter is always exactly one path
//! segment once encoded. Every byte but the unreserved ones (`A-Z a-z 0-9 -
//! . _ ~`) is percent-encoded, so `/`, `?`, `#`, `%` and non-ASCII text can
//! never change which endpoint is called; the dispatcher already refused
//! `.` and `..`, the only values an URL parser would treat as a segment move.

use serde_json::{Map, Value};

use crate::catalog::{ArrayStyle, Location, Method, PathPart, Route};
use crate::dispatch::ValidatedCall;

#[derive(Debug, Clone, PartialEq)]
pub struct HttpRequest {
    pub method: Method,
    /// The path below the API root (`/projects/group%2Fproject/issues`).
    pub path: String,
    /// Already encoded `key=value` pairs joined with `&`, or empty.
    pub query: String,
    pub body: Option<Value>,
}

impl HttpRequest {
    /// Path and query, as appended to the API root.
    pub fn path_and_query(&self) -> String {
        if self.query.is_empty() {
            self.path.clone()
        } else {
            format!("{}?{}", self.path, self.query)
        }
    }
}

/// The request for a call routed to one REST endpoint; `None` for actions
/// handled in Rust.
pub fn plan(call: &ValidatedCall) -> Option<HttpRequest> {
    let Route::Rest { method, parts, .. } = call.action.route else {
        return None;
    };
    let mut path = String::with_capacity(64);
    for part in parts {
        match part {
            PathPart::Literal(text) => path.push_str(text),
            PathPart::Param(index) => {
                let name = call.action.params[*index].name;
                // Validation guarantees required path parameters are present.
                let value = call.arg(name).expect("path parameter validated as present");
                encode_into(&mut path, &scalar(value));
            }
        }
    }

    let mut query = String::new();
    let mut body: Option<Map<String, Value>> = None;
    for arg in &call.args {
        match arg.spec.location {
            Location::Path => {}
            Location::Query => push_query(&mut query, arg.spec.name, &arg.value, arg.spec.style),
            Location::Body => {
                let value = match (&arg.value, arg.spec.style) {
                    (Value::Array(items), ArrayStyle::Csv) => Value::String(csv(items)),
                    (v, _) => v.clone(),
                };
                body.get_or_insert_with(Map::new)
                    .insert(arg.spec.name.into(), value);
            }
        }
    }
    for fixed in call.action.fixed {
        let value: Value = serde_json::from_str(fixed.json).expect("catalog fixed value is JSON");
        match fixed.location {
            Location::Body => {
                body.get_or_insert_with(Map::new)
                    .insert(fixed.name.into(), value);
            }
            _ => push_query(&mut query, fixed.name, &value, ArrayStyle::Brackets),
        }
    }

    Some(HttpRequest {
        method,
        path,
        query,
        body: body.map(Value::Object),
    })
}

fn push_query(query: &mut String, key: &str, value: &Value, style: ArrayStyle) {
    match value {
        Value::Array(items) if style == ArrayStyle::Csv => push_pair(query, key, &csv(items)),
        Value::Array(items) => {
            let key = format!("{key}[]");
            for item in items {
                push_pair(query, &key, &scalar(item));
            }
        }
        // GitLab's hash parameters (`not[labels]=bug`), one level deep.
        Value::Object(map) => {
            for (k, v) in map {
                push_query(query, &format!("{key}[{k}]"), v, ArrayStyle::Brackets);
            }
        }
        other => push_pair(query, key, &scalar(other)),
    }
}

fn push_pair(query: &mut String, key: &str, value: &str) {
    if !query.is_empty() {
        query.push('&');
    }
    // Brackets stay readable in keys (`iids[]`), as GitLab documents them;
    // everything else is encoded like a path segment.
    for c in key.chars() {
        if c == '[' || c == ']' {
            query.push(c);
        } else {
            encode_into(query, c.encode_utf8(&mut [0; 4]));
        }
    }
    query.push('=');
    encode_into(query, value);
}

fn csv(items: &[Value]) -> String {
    items.iter().map(scalar).collect::<Vec<_>>().join(",")
}

/// The text of a scalar as GitLab expects it: strings unquoted.
fn scalar(value: &Value) -> String {
    match value {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// Percent-encode every byte except RFC 3986's unreserved characters.
pub fn encode_into(out: &mut String, text: &str) {
    const HEX: &[u8; 16] = b"0123456789ABCDEF";
    for &byte in text.as_bytes() {
        if byte.is_ascii_alphanumeric() || matches!(byte, b'-' | b'.' | b'_' | b'~') {
            out.push(byte as char);
        } else {
            out.push('%');
            out.push(HEX[(byte >> 4) as usize] as char);
            out.push(HEX[(byte & 0xF) as usize] as char);
        }
    }
}

pub fn encode(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 8);
    encode_into(&mut out, text);
    out
}

#[cfg(test)]
mod tests {
    use super::encode;

    #[test]
    fn segments_cannot_escape() {
        assert_eq!(encode("group/sub/project"), "group%2Fsub%2Fproject");
        assert_eq!(encode("src/a b.md"), "src%2Fa%20b.md");
        assert_eq!(encode("../x?y#z%"), "..%2Fx%3Fy%23z%25");
        assert_eq!(encode("fé"), "f%C3%A9");
    }
}

//! A validated call as an HTTP request: method, encoded path, query, body.
//!
//! Pure (no reqwest here), so it is benchmarked with the dispatcher. The one
//! rule that matters most: a path parameter is always exactly one path
//! segment once encoded. Every byte but the unreserved ones (`A-Z a-z 0-9 -
//! . _ ~`) is percent-encoded, so `/`, `?`, `#`, `%` and non-ASCII text can
//! never change which endpoint is called; the dispatcher already refused
//! `.` and `..`, the only values an URL parser would treat as a segment move.

use serde_json::{Map, Value};

use crate::catalog::{ArrayStyle, Location, Method, PathPart, Route, Special};
use crate::dispatch::ValidatedCall;

#[derive(Debug, Clone, PartialEq)]
pub struct HttpRequest {
    pub method: Method,
    /// The path below the API root (`/projects/group%2Fproject/issues`).
    pub path: String,
    /// Already encoded `key=value` pairs joined with `&`, or empty.
    pub query: String,
    pub body: Option<Body>,
}

#[derive(Debug, Clone, PartialEq)]
pub enum Body {
    Json(Value),
    /// A `multipart/form-data` body with one file field.
    File {
        field: &'static str,
        file_name: String,
        bytes: Vec<u8>,
    },
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
/// the server answers itself. `Err` when a special body cannot be built
/// (bad base64): nothing is sent then.
pub fn plan(call: &ValidatedCall) -> Option<Result<HttpRequest, String>> {
    let Route::Rest { method, parts, .. } = call.action.route else {
        return None;
    };
    Some(plan_rest(call, method, parts))
}

fn plan_rest(
    call: &ValidatedCall,
    method: Method,
    parts: &[PathPart],
) -> Result<HttpRequest, String> {
    let mut path = String::with_capacity(64);
    for part in parts {
        match part {
            PathPart::Literal(text) => path.push_str(text),
            PathPart::Param(index) => {
                let spec = &call.action.params[*index];
                // Validation guarantees required path parameters are present.
                let value = call
                    .arg(spec.name)
                    .expect("path parameter validated as present");
                let text = scalar(value);
                if spec.style == ArrayStyle::Segments {
                    for (i, segment) in text.split('/').enumerate() {
                        if i > 0 {
                            path.push('/');
                        }
                        encode_into(&mut path, segment);
                    }
                } else {
                    encode_into(&mut path, &text);
                }
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

    let body = match call.action.special {
        Some(Special::Upload) => Some(upload_body(body.unwrap_or_default())?),
        _ => body.map(|b| Body::Json(Value::Object(b))),
    };
    Ok(HttpRequest {
        method,
        path,
        query,
        body,
    })
}

/// A Markdown upload (GitLab's project uploads API) sends the file as
/// `multipart/form-data`; its content comes as text or base64, and bad
/// base64 is refused before sending.
fn upload_body(mut fields: Map<String, Value>) -> Result<Body, String> {
    let mut take = |name: &str| match fields.remove(name) {
        Some(Value::String(s)) => s,
        _ => String::new(),
    };
    let file_name = take("file_name");
    let content = take("content");
    let bytes = match take("encoding").as_str() {
        "base64" => decode_base64(&content).ok_or_else(|| {
            "`content` is not valid base64 (with `encoding: base64`); send text with `encoding: text`".to_string()
        })?,
        _ => content.into_bytes(),
    };
    Ok(Body::File {
        field: "file",
        file_name,
        bytes,
    })
}

/// Standard base64, padding optional, whitespace ignored.
pub fn decode_base64(text: &str) -> Option<Vec<u8>> {
    let mut out = Vec::with_capacity(text.len() * 3 / 4);
    let mut buffer = 0u32;
    let mut bits = 0;
    for c in text.bytes().filter(|b| !b.is_ascii_whitespace()) {
        let value = match c {
            b'A'..=b'Z' => c - b'A',
            b'a'..=b'z' => c - b'a' + 26,
            b'0'..=b'9' => c - b'0' + 52,
            b'+' | b'-' => 62,
            b'/' | b'_' => 63,
            b'=' => break,
            _ => return None,
        };
        buffer = (buffer << 6) | u32::from(value);
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((buffer >> bits) as u8);
            buffer &= (1 << bits) - 1;
        }
    }
    Some(out)
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

#[cfg(test)]
mod tests {
    fn encode(text: &str) -> String {
        let mut out = String::new();
        super::encode_into(&mut out, text);
        out
    }

    #[test]
    fn base64_decodes_with_and_without_padding() {
        assert_eq!(super::decode_base64("aGVsbG8=").unwrap(), b"hello");
        assert_eq!(super::decode_base64("aGVsbG8").unwrap(), b"hello");
        assert!(super::decode_base64("not base64!").is_none());
    }

    #[test]
    fn segments_cannot_escape() {
        assert_eq!(encode("group/sub/project"), "group%2Fsub%2Fproject");
        assert_eq!(encode("src/a b.md"), "src%2Fa%20b.md");
        assert_eq!(encode("../x?y#z%"), "..%2Fx%3Fy%23z%25");
        assert_eq!(encode("fé"), "f%C3%A9");
    }
}

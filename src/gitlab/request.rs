//! A validated call as an HTTP request: method, encoded path, query, body.
//!
//! Pure (no reqwest here), so it is benchmarked with the dispatcher. The one
//! rule that matters most: a path parameter is always exactly one path
//! segment once encoded (`encoding::percent_encode_into` encodes everything
//! but RFC 3986's unreserved bytes), and the dispatcher already refused `.`
//! and `..`, the only values a URL parser would treat as a segment move.

use serde_json::{Map, Value};

use crate::catalog::{ArrayStyle, Location, Method, Operation, PathPart, RestRoute};
use crate::dispatch::ValidatedCall;
use crate::encoding::{percent_encode_into, scalar_text};

#[derive(Debug, Clone, PartialEq)]
pub struct HttpRequest {
    pub method: Method,
    /// The path below the API root (`/projects/group%2Fproject/issues`).
    pub path: String,
    /// Already encoded `key=value` pairs joined with `&`, or empty.
    pub query: String,
    pub body: Option<Body>,
    /// The catalog says repeating the request changes nothing more.
    pub idempotent: bool,
    /// Where it goes: GitLab's REST API, or its GraphQL endpoint.
    pub endpoint: Endpoint,
}

/// The API a request is for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Endpoint {
    /// `path` below the API root (`/api/v4`).
    Rest,
    /// `POST <web root>/api/graphql`, one operation or a multiplex of them.
    Graphql(Operation),
}

/// Where GitLab serves GraphQL, below its web root (not under `/api/v4`).
pub const GRAPHQL_PATH: &str = "/api/graphql";

#[derive(Debug, Clone, PartialEq)]
pub enum Body {
    Json(Value),
    /// A `multipart/form-data` body with one file field.
    File {
        field: &'static str,
        file_name: String,
        bytes: Vec<u8>,
    },
    /// The file itself as the whole body (`application/octet-stream`), as
    /// GitLab's generic packages read it.
    Raw(Vec<u8>),
}

impl HttpRequest {
    /// A plain GET of `path` (already encoded), for the reads a handler or
    /// a command makes beside the catalog's one request.
    pub fn get(path: impl Into<String>) -> Self {
        HttpRequest {
            method: Method::Get,
            path: path.into(),
            query: String::new(),
            body: None,
            idempotent: true,
            endpoint: Endpoint::Rest,
        }
    }

    /// A GraphQL request: `body` is one operation (`{"query", "variables",
    /// "operationName"}`) or an array of them. A query is a read and may be
    /// repeated; a mutation never is.
    pub fn graphql(body: Value, operation: Operation) -> Self {
        HttpRequest {
            method: Method::Post,
            path: GRAPHQL_PATH.into(),
            query: String::new(),
            body: Some(Body::Json(body)),
            idempotent: operation == Operation::Query,
            endpoint: Endpoint::Graphql(operation),
        }
    }

    /// The same request with `query` (already encoded `key=value` pairs).
    pub fn with_query(self, query: impl Into<String>) -> Self {
        HttpRequest {
            query: query.into(),
            ..self
        }
    }

    /// Path and query, as appended to the API root.
    pub fn path_and_query(&self) -> String {
        if self.query.is_empty() {
            self.path.clone()
        } else {
            format!("{}?{}", self.path, self.query)
        }
    }

    /// Whether sending it twice is safe: a GET, a PUT, PATCH or DELETE
    /// the catalog marks idempotent, or a GraphQL query. Any other POST
    /// (a REST create, a GraphQL mutation) never is.
    pub fn repeatable(&self) -> bool {
        match (self.method, self.endpoint) {
            (_, Endpoint::Graphql(operation)) => operation == Operation::Query,
            (Method::Get, Endpoint::Rest) => true,
            (Method::Put | Method::Patch | Method::Delete, Endpoint::Rest) => self.idempotent,
            (Method::Post, Endpoint::Rest) => false,
        }
    }
}

/// The request for a call to one REST endpoint, as the catalog describes it.
pub fn build(call: &ValidatedCall, route: &RestRoute) -> HttpRequest {
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
    HttpRequest {
        method: route.method,
        path: path(call, route.parts),
        query,
        body: body.map(|b| Body::Json(Value::Object(b))),
        idempotent: call.action.idempotent,
        endpoint: Endpoint::Rest,
    }
}

/// The template with each placeholder encoded as one segment (or, for a
/// `segments` parameter, one segment per `/`-separated part).
fn path(call: &ValidatedCall, parts: &[PathPart]) -> String {
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
                let text = scalar_text(value);
                if spec.style == ArrayStyle::Segments {
                    for (i, segment) in text.split('/').enumerate() {
                        if i > 0 {
                            path.push('/');
                        }
                        percent_encode_into(&mut path, segment);
                    }
                } else {
                    percent_encode_into(&mut path, &text);
                }
            }
        }
    }
    path
}

fn push_query(query: &mut String, key: &str, value: &Value, style: ArrayStyle) {
    match value {
        Value::Array(items) if style == ArrayStyle::Csv => push_pair(query, key, &csv(items)),
        Value::Array(items) => {
            let key = format!("{key}[]");
            for item in items {
                push_pair(query, &key, &scalar_text(item));
            }
        }
        // GitLab's hash parameters (`not[labels]=bug`), one level deep.
        Value::Object(map) => {
            for (k, v) in map {
                push_query(query, &format!("{key}[{k}]"), v, ArrayStyle::Brackets);
            }
        }
        other => push_pair(query, key, &scalar_text(other)),
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
            percent_encode_into(query, c.encode_utf8(&mut [0; 4]));
        }
    }
    query.push('=');
    percent_encode_into(query, value);
}

fn csv(items: &[Value]) -> String {
    items
        .iter()
        .map(|v| scalar_text(v))
        .collect::<Vec<_>>()
        .join(",")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_plain_get_is_repeatable_and_carries_its_query() {
        let request = HttpRequest::get("/projects/1/merge_requests/2/diffs");
        assert_eq!(request.method, Method::Get);
        assert_eq!(request.body, None);
        assert!(request.repeatable());
        assert_eq!(
            request.path_and_query(),
            "/projects/1/merge_requests/2/diffs"
        );
        let request = request.with_query("per_page=100");
        assert_eq!(
            request.path_and_query(),
            "/projects/1/merge_requests/2/diffs?per_page=100"
        );
    }

    #[test]
    fn a_graphql_query_is_repeatable_and_a_mutation_is_not() {
        let body = serde_json::json!({"query": "query { a }"});
        let query = HttpRequest::graphql(body.clone(), Operation::Query);
        assert_eq!(
            (query.method, query.path.as_str(), query.repeatable()),
            (Method::Post, GRAPHQL_PATH, true)
        );
        let mutation = HttpRequest::graphql(body, Operation::Mutation);
        assert!(!mutation.repeatable());
        // A REST POST stays unrepeatable whatever the catalog says.
        let post = HttpRequest {
            method: Method::Post,
            idempotent: true,
            ..HttpRequest::get("/projects/1/star")
        };
        assert!(!post.repeatable());
    }
}

//! GraphQL over the client: the body of one operation or of a multiplex
//! (a JSON array of operations, one request: GitLab runs them in order and
//! answers an array), and what its answer holds. A GraphQL failure often
//! comes with status 200: `errors` beside `data`, a mutation payload's
//! `errors`, or `null` where an object was asked for. Each is a
//! `GitLabError::Graphql`, never a success.

use serde_json::{Map, Value, json};

use super::error::{GitLabError, GraphqlError, GraphqlFailure, graphql_messages};
use super::request::HttpRequest;
use super::response::Response;
use crate::catalog::Operation;

/// One operation to send.
#[derive(Debug, Clone, PartialEq)]
pub struct GraphqlOperation<'a> {
    pub document: &'a str,
    pub variables: Map<String, Value>,
    pub operation_name: Option<&'a str>,
}

impl GraphqlOperation<'_> {
    fn body(&self) -> Value {
        let mut body = json!({ "query": self.document, "variables": self.variables });
        if let Some(name) = self.operation_name {
            body["operationName"] = json!(name);
        }
        body
    }
}

/// The request for `operations`: one as an object, several as a
/// multiplex. Repeatable only when every operation is a query.
pub fn request(operations: &[GraphqlOperation], operation: Operation) -> HttpRequest {
    let body = match operations {
        [one] => one.body(),
        many => Value::Array(many.iter().map(GraphqlOperation::body).collect()),
    };
    HttpRequest::graphql(body, operation)
}

/// Each operation's `data`, in order: `count` of them (1 for a single
/// operation), or the first failure.
pub fn data(response: &Response, count: usize) -> Result<Vec<Value>, GitLabError> {
    let fail = |failure| {
        GitLabError::Graphql(GraphqlError {
            failure,
            request_id: response.request_id.clone(),
        })
    };
    let body: Value =
        serde_json::from_slice(&response.body).map_err(|_| fail(GraphqlFailure::Malformed))?;
    let results = match body {
        Value::Array(results) if results.len() == count => results,
        single if count == 1 && single.is_object() => vec![single],
        _ => return Err(fail(GraphqlFailure::Malformed)),
    };
    results
        .into_iter()
        .map(|mut result| {
            if let Some(messages) = graphql_messages(&result) {
                return Err(fail(GraphqlFailure::Errors(messages)));
            }
            match result.get_mut("data").map(Value::take) {
                Some(data @ Value::Object(_)) => Ok(data),
                _ => Err(fail(GraphqlFailure::Malformed)),
            }
        })
        .collect()
}

/// The asked object in `data`: at the first of `paths` that is not null.
/// A step into a list (a work item's `widgets`) takes the element that has
/// that field. A mutation payload's `errors` on the way is a refusal.
pub fn answer(
    data: &Value,
    paths: &[&[&str]],
    request_id: Option<&str>,
) -> Result<Value, GitLabError> {
    let fail = |failure| {
        GitLabError::Graphql(GraphqlError {
            failure,
            request_id: request_id.map(str::to_string),
        })
    };
    for path in paths {
        let mut at = data;
        let mut found = true;
        for step in *path {
            if let Some(messages) = payload_errors(at) {
                return Err(fail(GraphqlFailure::Refused(messages)));
            }
            let next = match at {
                Value::Object(fields) => fields.get(*step),
                Value::Array(items) => items.iter().find_map(|item| item.get(*step)),
                _ => None,
            };
            match next {
                Some(value) if !value.is_null() => at = value,
                _ => {
                    found = false;
                    break;
                }
            }
        }
        if found {
            if let Some(messages) = payload_errors(at) {
                return Err(fail(GraphqlFailure::Refused(messages)));
            }
            return Ok(at.clone());
        }
    }
    let path = paths.first().map(|p| p.join(".")).unwrap_or_default();
    Err(fail(GraphqlFailure::Null { path }))
}

/// A mutation payload's non-empty `errors` (strings, as GitLab's payloads
/// carry them).
fn payload_errors(value: &Value) -> Option<Vec<String>> {
    let errors = value.get("errors")?.as_array()?;
    let messages: Vec<String> = errors
        .iter()
        .filter_map(Value::as_str)
        .map(super::error::cut)
        .collect();
    (!messages.is_empty()).then_some(messages)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gitlab::Pagination;

    fn response(body: &str) -> Response {
        Response {
            status: 200,
            body: body.as_bytes().to_vec().into(),
            is_json: true,
            pagination: Pagination::default(),
            request_id: Some("r1".into()),
        }
    }

    fn failure(result: Result<impl std::fmt::Debug, GitLabError>) -> GraphqlFailure {
        match result {
            Err(GitLabError::Graphql(e)) => {
                assert_eq!(e.request_id.as_deref(), Some("r1"));
                e.failure
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn one_operation_is_an_object_and_several_are_a_multiplex() {
        let op = |name| GraphqlOperation {
            document: "query q { a }",
            variables: Map::new(),
            operation_name: Some(name),
        };
        let single = request(&[op("q")], Operation::Query);
        assert_eq!(
            single.body,
            Some(crate::gitlab::Body::Json(
                json!({"query": "query q { a }", "variables": {}, "operationName": "q"})
            ))
        );
        let many = request(&[op("q"), op("q")], Operation::Query);
        assert!(
            matches!(many.body, Some(crate::gitlab::Body::Json(Value::Array(ref a))) if a.len() == 2)
        );
    }

    #[test]
    fn errors_in_a_200_are_a_failure_with_gitlabs_words() {
        let r = response(
            r#"{"errors":[{"message":"Field 'x' doesn't exist on type 'Query'"}],"data":null}"#,
        );
        assert_eq!(
            failure(data(&r, 1)),
            GraphqlFailure::Errors(vec!["Field 'x' doesn't exist on type 'Query'".into()])
        );
        let multiplex = response(r#"[{"data":{"a":1}},{"errors":[{"message":"no"}]}]"#);
        assert_eq!(
            failure(data(&multiplex, 2)),
            GraphqlFailure::Errors(vec!["no".into()])
        );
        assert_eq!(failure(data(&response("[]"), 1)), GraphqlFailure::Malformed);
    }

    #[test]
    fn the_asked_object_is_found_refused_or_null() {
        let d = json!({"project": null, "group": {"workItems": {"nodes": []}}});
        assert_eq!(
            answer(
                &d,
                &[&["project", "workItems"], &["group", "workItems"]],
                None
            )
            .unwrap(),
            json!({"nodes": []})
        );
        let d = json!({"namespace": {"workItem": {"widgets": [{}, {"children": {"nodes": [1]}}]}}});
        assert_eq!(
            answer(
                &d,
                &[&["namespace", "workItem", "widgets", "children"]],
                None
            )
            .unwrap(),
            json!({"nodes": [1]})
        );
        let d = json!({"workItemCreate": {"errors": ["Title can't be blank"], "workItem": null}});
        assert_eq!(
            failure(answer(&d, &[&["workItemCreate", "workItem"]], Some("r1"))),
            GraphqlFailure::Refused(vec!["Title can't be blank".into()])
        );
        let d = json!({"namespace": {"workItem": null}});
        assert_eq!(
            failure(answer(&d, &[&["namespace", "workItem"]], Some("r1"))),
            GraphqlFailure::Null {
                path: "namespace.workItem".into()
            }
        );
    }
}

//! How a GraphQL action is carried out, from the catalog alone: names
//! resolved to IDs (`resolve`), the document's variables built from the
//! call (`variables`), one request through the same client as REST (a
//! query retried like a GET, a mutation never), and the asked object read
//! from the answer and rendered as REST answers are
//! (`render::graphql`). An action whose answer needs more names a
//! handler in `actions/` (`handler = "<name>"`, the enum
//! `catalog::GraphqlHandler`, matched below with no wildcard).
//!
//! An agent's own document (`gitlab_graphql query`) was judged at dispatch
//! (`dispatch::graphql_read`): a read within GitLab's limits. Its `data` is
//! rendered by the generic compact rules, not reshaped.

mod actions;
mod cache;
mod resolve;
mod variables;

use serde_json::Value;

pub use cache::Cache;

use super::Gitlab;
use crate::catalog::{GraphqlHandler, GraphqlRoute, Operation, Returns, Role, StoredDocument};
use crate::dispatch::ValidatedCall;
use crate::dispatch::graphql_read::MAX_CHARS;
use crate::gitlab::graphql::{self, GraphqlOperation};
use crate::gitlab::{Failed, GitLabError, GraphqlError, GraphqlFailure, Pagination, Response};
use crate::render::{self, Output, untrusted};

/// The most items `max_items` gathers, as for REST lists.
use super::paging::MAX_FOLLOWED_ITEMS;

pub async fn run(
    call: &ValidatedCall,
    route: &GraphqlRoute,
    gitlab: &Gitlab<'_>,
    cache: &Cache,
) -> Output {
    match (route.handler, route.document) {
        (Some(GraphqlHandler::Schema), _) => actions::schema::run(call, route, gitlab, cache).await,
        (None, Some(document)) => stored(call, route, document, gitlab, cache).await,
        (None, None) => given(call, gitlab).await,
    }
}

/// A stored document: resolve, build, send, read.
async fn stored(
    call: &ValidatedCall,
    route: &GraphqlRoute,
    document: &'static StoredDocument,
    gitlab: &Gitlab<'_>,
    cache: &Cache,
) -> Output {
    let resolved = match resolve::resolve(call, route, gitlab, cache).await {
        Ok(resolved) => resolved,
        Err(output) => return output,
    };
    let mut variables = variables::build(call, route, &resolved);
    let wanted = match call.action.returns {
        Returns::List(_) => call.view.max_items.map(|n| n.min(MAX_FOLLOWED_ITEMS)),
        _ => None,
    };
    // The variable the cursor goes into, to follow pages for `max_items`.
    let cursor = route.variables.iter().find(|v| {
        v.param
            .is_some_and(|i| call.action.params[i].role == Some(Role::Cursor))
    });
    let mut items = Vec::new();
    loop {
        let operation = GraphqlOperation {
            document: document.text,
            variables: variables.clone(),
            operation_name: document.operation_name,
        };
        let (mut data, request_id) = match send(call, gitlab, &[operation], route.operation).await {
            Ok(answer) => answer,
            Err(output) if items.is_empty() => return output,
            Err(output) => {
                return output.with_note(&format!(
                    "stopped after {} items: the next page failed",
                    items.len()
                ));
            }
        };
        let object = match graphql::answer(&data.remove(0), route.answer, request_id.as_deref()) {
            Ok(object) => object,
            Err(error) => return gitlab.failure(call, &Failed { error, attempts: 1 }),
        };
        match call.action.returns {
            Returns::Nothing => return done(call, &object),
            Returns::List(_) => {
                let (page, pagination) = render::graphql::page(object);
                items.extend(page);
                let next = pagination.next_cursor.clone();
                match (wanted, next, cursor) {
                    (Some(wanted), Some(next), Some(cursor)) if items.len() < wanted => {
                        gitlab.progress(items.len() as f64, Some(wanted as f64), "reading pages");
                        set_cursor(&mut variables, cursor.path, next);
                    }
                    _ => {
                        items.truncate(wanted.unwrap_or(usize::MAX));
                        return rendered(call, Value::Array(items), pagination, request_id, gitlab);
                    }
                }
            }
            Returns::One(_) | Returns::Text(_) => {
                let object = render::graphql::flatten(object);
                return rendered(call, object, Pagination::default(), request_id, gitlab);
            }
        }
    }
}

fn set_cursor(variables: &mut serde_json::Map<String, Value>, path: &[&str], cursor: String) {
    // The cursor is a top-level variable (`$after`) in every list document.
    if let [name] = path {
        variables.insert(name.to_string(), Value::String(cursor));
    }
}

/// An agent's query: its `data`, compact. A document whose every root
/// field answered null found nothing the token can see.
async fn given(call: &ValidatedCall, gitlab: &Gitlab<'_>) -> Output {
    let text = |name: &str| call.arg(name).and_then(Value::as_str);
    let Some(query) = text(GraphqlRoute::QUERY) else {
        return Output::error(format!(
            "{} {}: `query` is missing",
            call.tool.name, call.action.name
        ));
    };
    let operation = GraphqlOperation {
        document: query,
        variables: call
            .arg(GraphqlRoute::VARIABLES)
            .and_then(Value::as_object)
            .cloned()
            .unwrap_or_default(),
        operation_name: text(GraphqlRoute::OPERATION_NAME),
    };
    let (mut data, request_id) = match send(call, gitlab, &[operation], Operation::Query).await {
        Ok(answer) => answer,
        Err(output) => return output,
    };
    let data = data.remove(0);
    let fields = data
        .as_object()
        .map(|d| d.iter().collect::<Vec<_>>())
        .unwrap_or_default();
    if !fields.is_empty() && fields.iter().all(|(_, v)| v.is_null()) {
        let error = GitLabError::Graphql(GraphqlError {
            failure: GraphqlFailure::Null {
                path: fields[0].0.clone(),
            },
            request_id,
        });
        return gitlab.failure(call, &Failed { error, attempts: 1 });
    }
    rendered(call, data, Pagination::default(), request_id, gitlab)
}

/// Send operations, as one request or as few as GitLab's size limit
/// allows (a multiplex counts all its documents): each one's `data`, in
/// order, and the last request id; or the failure, rendered.
pub(super) async fn send(
    call: &ValidatedCall,
    gitlab: &Gitlab<'_>,
    operations: &[GraphqlOperation<'_>],
    operation: Operation,
) -> Result<(Vec<Value>, Option<String>), Output> {
    let mut answers = Vec::with_capacity(operations.len());
    let mut request_id = None;
    for chunk in chunks(operations) {
        tracing::debug!(
            tool = call.tool.name,
            action = call.action.name,
            operations = chunk.len(),
            "GraphQL request"
        );
        let request = graphql::request(chunk, operation);
        let response = gitlab
            .send(&request)
            .await
            .map_err(|failed| gitlab.failure(call, &failed))?;
        request_id = response.request_id.clone();
        let data = graphql::data(&response, chunk.len())
            .map_err(|error| gitlab.failure(call, &Failed { error, attempts: 1 }))?;
        answers.extend(data);
    }
    Ok((answers, request_id))
}

/// Runs of operations whose documents together stay within GitLab's
/// 10,000 characters (one over it alone goes alone, and GitLab says so).
fn chunks<'a, 'b>(operations: &'a [GraphqlOperation<'b>]) -> Vec<&'a [GraphqlOperation<'b>]> {
    let mut out = Vec::new();
    let (mut start, mut size) = (0, 0);
    for (i, op) in operations.iter().enumerate() {
        let chars = op.document.chars().count();
        if i > start && size + chars > MAX_CHARS {
            out.push(&operations[start..i]);
            (start, size) = (i, 0);
        }
        size += chars;
    }
    if start < operations.len() {
        out.push(&operations[start..]);
    }
    out
}

/// The answer as a REST answer of the action's kind is rendered.
pub(super) fn rendered(
    call: &ValidatedCall,
    value: Value,
    pagination: Pagination,
    request_id: Option<String>,
    gitlab: &Gitlab<'_>,
) -> Output {
    let response = Response {
        status: 200,
        body: serde_json::to_vec(&value)
            .expect("a JSON value serializes")
            .into(),
        is_json: true,
        pagination,
        request_id,
    };
    render::success(call, &response, gitlab.render)
}

/// A mutation that answers nothing worth showing, with GitLab's message
/// when it has one (the links made).
fn done(call: &ValidatedCall, payload: &Value) -> Output {
    let mut text = format!("Done: {} {} succeeded.", call.tool.name, call.action.name);
    if let Some(message) = payload.get("message").and_then(Value::as_str) {
        text.push_str(&format!("\nGitLab says: {}", untrusted::escape(message)));
    }
    Output::ok(text)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn operations_are_chunked_within_gitlabs_size_limit() {
        let big = "x".repeat(4_000);
        let op = || GraphqlOperation {
            document: &big,
            variables: Default::default(),
            operation_name: None,
        };
        let ops = vec![op(), op(), op(), op(), op()];
        let sizes: Vec<usize> = chunks(&ops).iter().map(|c| c.len()).collect();
        assert_eq!(sizes, [2, 2, 1]);
        assert_eq!(chunks(&ops[..1]).len(), 1);
    }
}

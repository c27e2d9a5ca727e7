//! GitLab's GraphQL endpoint, `/api/graphql` (not under `/api/v4`), on a
//! real GraphQL engine (async-graphql), serving the part of GitLab's
//! schema that gitlab-mcp uses (catalog/graphql/gitlab_schema.graphql)
//! with GitLab's type, field and argument names, global IDs, cursor
//! pagination and errors. Introspection works, with GitLab's names.
//!
//! As app/controllers/graphql_controller.rb does it:
//! - `POST` with `{"query", "variables", "operationName"}`, or a JSON array
//!   of those (a multiplex: an array of results, run in order); `GET` with
//!   the same as query parameters, for queries only (a mutation is a 422
//!   "Mutations are forbidden in GET requests");
//! - `variables` may be an object or a JSON string of one;
//! - tokens as on REST (`PRIVATE-TOKEN`, `Authorization: Bearer`); a token
//!   that authenticates no one (unknown, expired, revoked) is a 401
//!   `{"errors":[{"message":"Invalid token"}]}`; no token reads public data;
//! - errors about the query itself come in a 200 (`{"errors": [...]}`),
//!   with `null` where an object was asked for;
//! - the size and depth limits of `limits.rs`.
//!
//! The request log and injected faults apply as on REST (`front` in lib.rs).

mod context;
mod cursor;
mod enums;
mod ids;
mod inputs;
mod limits;
mod mutation;
mod objects;
mod query;

use std::sync::LazyLock;

use async_graphql::{EmptySubscription, Request, Schema};
use axum::Router;
use axum::body::Bytes;
use axum::extract::{Extension, RawQuery, State};
use axum::http::StatusCode;
use axum::response::Response;
use axum::routing::get;
use serde_json::{Value, json};

use crate::auth::Auth;
use crate::{App, http};
use context::Caller;
pub use context::NOT_AVAILABLE;

/// Where GitLab serves GraphQL.
pub const PATH: &str = "/api/graphql";

type FakeSchema = Schema<query::Query, mutation::Mutation, EmptySubscription>;

static SCHEMA: LazyLock<FakeSchema> =
    LazyLock::new(|| Schema::build(query::Query, mutation::Mutation, EmptySubscription).finish());

/// The fake's schema as SDL, for the tests that hold it to GitLab's.
pub fn sdl() -> String {
    SCHEMA.sdl()
}

pub(crate) fn routes() -> Router<App> {
    Router::new().route(PATH, get(by_get).post(by_post))
}

/// GraphqlController's own errors: `{"errors":[{"message": ...}]}`.
fn error(status: u16, message: &str) -> Response {
    http::json_response(
        StatusCode::from_u16(status).expect("valid status"),
        json!({"errors": [{"message": message}]}),
    )
}

/// A token that authenticates no one (`authorize_access_api!`).
pub(crate) fn invalid_token() -> Response {
    error(401, "Invalid token")
}

async fn by_post(
    State(app): State<App>,
    Extension(auth): Extension<Option<Auth>>,
    body: Bytes,
) -> Response {
    // Rails refuses a body it cannot parse before GraphQL sees it.
    let Ok(body) = serde_json::from_slice::<Value>(&body) else {
        return error(400, "Invalid JSON");
    };
    match body {
        Value::Array(items) => run(&app, auth, items, true, false).await,
        single => run(&app, auth, vec![single], false, false).await,
    }
}

async fn by_get(
    State(app): State<App>,
    Extension(auth): Extension<Option<Auth>>,
    RawQuery(raw): RawQuery,
) -> Response {
    let mut single = serde_json::Map::new();
    for (key, value) in http::parse_query(raw.as_deref().unwrap_or_default()) {
        single.insert(key, Value::String(value));
    }
    run(&app, auth, vec![Value::Object(single)], false, true).await
}

/// Run one operation or a multiplex, in order, and answer as GitLab does.
async fn run(
    app: &App,
    auth: Option<Auth>,
    items: Vec<Value>,
    multiplex: bool,
    by_get: bool,
) -> Response {
    let mut requests = Vec::with_capacity(items.len());
    for item in items {
        match request(item) {
            Ok(r) => requests.push(r),
            Err(message) => return error(422, &message),
        }
    }
    let size: usize = requests.iter().map(|r| r.query.chars().count()).sum();
    if size > limits::MAX_QUERY_SIZE {
        return error(422, "Query too large");
    }
    let operation = |r: &Request| r.operation_name.clone();
    if by_get
        && requests
            .iter()
            .any(|r| limits::is_mutation(&r.query, operation(r).as_deref()))
    {
        return error(422, "Mutations are forbidden in GET requests");
    }
    let mut results = Vec::with_capacity(requests.len());
    for r in requests {
        results.push(execute(app, auth, r).await);
    }
    let body = if multiplex {
        Value::Array(results)
    } else {
        results.pop().unwrap_or(Value::Null)
    };
    http::ok(body)
}

/// One operation's result: refused before it runs, or run.
async fn execute(app: &App, auth: Option<Auth>, request: Request) -> Value {
    if request.query.trim().is_empty() {
        // graphql-ruby's answer to an empty query.
        return json!({"errors": [{"message": "No query string was present"}]});
    }
    let operation = request.operation_name.clone();
    if let Some(message) =
        limits::depth_refusal(&request.query, operation.as_deref(), auth.is_some())
    {
        return json!({"errors": [{"message": message}]});
    }
    let response = SCHEMA
        .execute(request.data(app.clone()).data(Caller(auth)))
        .await;
    serde_json::to_value(&response).unwrap_or(Value::Null)
}

/// One operation from the body: `query`, `operationName` and `variables`
/// (an object, or a string of one, as Gitlab::Graphql::Variables accepts).
fn request(item: Value) -> Result<Request, String> {
    let Value::Object(mut fields) = item else {
        return Err("Unexpected request format".into());
    };
    if let Some(Value::String(text)) = fields.get("variables") {
        let parsed = if text.trim().is_empty() {
            Value::Null
        } else {
            serde_json::from_str::<Value>(text).map_err(|e| e.to_string())?
        };
        fields.insert("variables".into(), parsed);
    }
    if fields.get("variables").is_some_and(Value::is_null) {
        fields.remove("variables");
    }
    if !fields.contains_key("query") {
        fields.insert("query".into(), Value::String(String::new()));
    }
    serde_json::from_value::<Request>(Value::Object(fields)).map_err(|e| e.to_string())
}

//! A plain 2026-07-28 `tools/call` over stateless HTTP, answered without
//! rmcp's per-request machinery.
//!
//! For every stateless request rmcp parses the body into its message enum,
//! serializes it again to check SEP-2243's headers against it, and builds a
//! service, a one-shot transport and a task to run one handler: 150,000 of
//! the 449,000 instructions a `gitlab_issue get` cost over HTTP
//! (BENCHMARKS.md). Most requests are the plainest case: a 2026-07-28
//! `tools/call` with its metadata and nothing else. This path answers those
//! with the same handler (`GitLabServer::answer_direct`) and the same bytes
//! rmcp would send, and gives every other request to rmcp untouched: it
//! takes a request only when rmcp would accept it and answer it by calling
//! the tool, so every refusal, every other method and every feature (tasks,
//! progress, answers to questions, sessions) stays rmcp's. Tests send the
//! same requests both ways (`--rmcp-only`) and compare the answers.

use std::borrow::Cow;
use std::sync::Arc;

use axum::body::Body;
use axum::extract::{Request, State};
use axum::response::{IntoResponse, Response};
use http::header::{ACCEPT, CONTENT_TYPE, HOST};
use http::{HeaderMap, Method, StatusCode};
use rmcp::ErrorData;
use rmcp::model::{
    CallToolResponse, ClientCapabilities, ErrorCode, JsonRpcVersion2_0, ProtocolVersion, RequestId,
    ServerJsonRpcMessage, ServerResult,
};
use rmcp::transport::streamable_http_server::StreamableHttpService;
use rmcp::transport::streamable_http_server::session::never::NeverSessionManager;
use serde::Deserialize;
use serde::de::IgnoredAny;
use serde_json::{Map, Value};
use tokio_util::sync::CancellationToken;

use super::server::GitLabServer;

/// The endpoint of a stateless server: plain tool calls here, the rest to
/// rmcp.
pub(super) struct Endpoint {
    pub server: GitLabServer,
    pub rmcp: StreamableHttpService<GitLabServer, NeverSessionManager>,
    /// rmcp's own bound on a body (the HTTP layer read it within the same).
    pub max_body_bytes: usize,
    /// Cancelled when the server stops for good: a call still running then
    /// is answered with a JSON-RPC error (rmcp's answer is a bare 500).
    pub shutdown: CancellationToken,
}

pub(super) async fn answer(State(endpoint): State<Arc<Endpoint>>, request: Request) -> Response {
    if request.method() != Method::POST || !headers_fit(request.headers()) {
        return endpoint.by_rmcp(request).await;
    }
    let (parts, body) = request.into_parts();
    // The HTTP layer read the whole body before this (`admit`), so this
    // takes bytes already held; the bound is checked below, as rmcp does.
    let Ok(bytes) = axum::body::to_bytes(body, usize::MAX).await else {
        return StatusCode::INTERNAL_SERVER_ERROR.into_response();
    };
    let call = (bytes.len() <= endpoint.max_body_bytes)
        .then(|| Call::read(&parts.headers, &bytes))
        .flatten();
    let Some(call) = call else {
        return endpoint
            .by_rmcp(Request::from_parts(parts, Body::from(bytes)))
            .await;
    };
    crate::metrics::global().direct_call();
    let answer = endpoint
        .server
        .answer_direct(
            &call.name,
            call.arguments,
            &parts,
            call.can_elicit,
            &endpoint.shutdown,
        )
        .await;
    respond(call.id, answer)
}

impl Endpoint {
    async fn by_rmcp(&self, request: Request) -> Response {
        self.rmcp.handle(request).await.map(Body::new)
    }
}

/// A call this path answers.
struct Call {
    id: RequestId,
    name: String,
    arguments: Map<String, Value>,
    /// The client declared elicitation: a call held for confirmation is
    /// answered with an input-required round, not refused.
    can_elicit: bool,
}

/// The whole request, as strict as it gets: any other member anywhere
/// sends the request to rmcp.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Message<'a> {
    #[allow(dead_code)] // read to check it is "2.0"
    jsonrpc: JsonRpcVersion2_0,
    id: RequestId,
    #[serde(borrow)]
    method: Cow<'a, str>,
    params: Params,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Params {
    name: String,
    #[serde(default)]
    arguments: Option<Map<String, Value>>,
    #[serde(rename = "_meta")]
    meta: Meta,
}

/// The request's metadata, as 2026-07-28 requires it; a progress token or
/// any other member sends the request to rmcp.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Meta {
    #[serde(rename = "io.modelcontextprotocol/protocolVersion")]
    protocol_version: String,
    #[serde(rename = "io.modelcontextprotocol/clientCapabilities")]
    client_capabilities: ClientCapabilities,
    // rmcp reads it leniently, and the handler never does.
    #[serde(rename = "io.modelcontextprotocol/clientInfo", default)]
    #[allow(dead_code)]
    client_info: Option<IgnoredAny>,
}

impl Call {
    /// The call, when the request is one rmcp would answer by calling the
    /// tool and this path answers the same: the version in the header and
    /// in `_meta` 2026-07-28, `Mcp-Name` the tool's name as it is, no task
    /// (the client did not declare them).
    fn read(headers: &HeaderMap, body: &[u8]) -> Option<Call> {
        let message: Message = serde_json::from_slice(body).ok()?;
        let Params {
            name,
            arguments,
            meta,
        } = message.params;
        let plain = message.method == "tools/call"
            && meta.protocol_version == ProtocolVersion::V_2026_07_28.as_str()
            && !meta.client_capabilities.supports_tasks()
            // A value in SEP-2243's Base64 form is decoded by rmcp first.
            && !name.starts_with("=?")
            && only(headers, "mcp-name") == Some(name.as_bytes());
        plain.then(|| Call {
            id: message.id,
            name,
            arguments: arguments.unwrap_or_default(),
            can_elicit: meta.client_capabilities.elicitation.is_some(),
        })
    }
}

/// The headers of a 2026-07-28 `tools/call` rmcp accepts: a Host it can
/// parse (the HTTP layer checked it is allowed), JSON and event streams
/// accepted, a JSON body, the protocol version and SEP-2243's method.
/// Anything unusual (parameters on a media type, a header twice) is left
/// to rmcp, which may refuse it.
fn headers_fit(headers: &HeaderMap) -> bool {
    let host = only(headers, HOST.as_str())
        .and_then(|host| std::str::from_utf8(host).ok())
        .is_some_and(|host| http::uri::Authority::try_from(host).is_ok());
    host && accepts_json_and_events(headers)
        && only(headers, CONTENT_TYPE.as_str())
            .is_some_and(|value| value.eq_ignore_ascii_case(b"application/json"))
        && only(headers, "mcp-protocol-version")
            == Some(ProtocolVersion::V_2026_07_28.as_str().as_bytes())
        && only(headers, "mcp-method") == Some(b"tools/call".as_slice())
}

/// Both media types named plainly (no parameters, no quality) in the
/// Accept headers.
fn accepts_json_and_events(headers: &HeaderMap) -> bool {
    let (mut json, mut events) = (false, false);
    for value in headers.get_all(ACCEPT) {
        let Ok(value) = value.to_str() else {
            return false;
        };
        for media in value.split(',') {
            let media = media.trim();
            if media.contains([';', '"']) {
                return false;
            }
            json |= media.eq_ignore_ascii_case("application/json");
            events |= media.eq_ignore_ascii_case("text/event-stream");
        }
    }
    json && events
}

/// The one value of a header, when it appears exactly once.
fn only<'h>(headers: &'h HeaderMap, name: &str) -> Option<&'h [u8]> {
    let mut values = headers.get_all(name).iter();
    let value = values.next()?;
    values.next().is_none().then(|| value.as_bytes())
}

/// The JSON-RPC answer, as rmcp's handler and its stateless path would
/// send it to a 2026-07-28 client.
fn respond(id: RequestId, answer: Result<CallToolResponse, ErrorData>) -> Response {
    let (status, message) = match answer {
        Ok(response) => {
            let mut result = ServerResult::from(response);
            result.fill_missing_cache_hints();
            (StatusCode::OK, ServerJsonRpcMessage::response(result, id))
        }
        Err(mut error) => {
            if error.code == ErrorCode::RESOURCE_NOT_FOUND {
                error.code = ErrorCode::INVALID_PARAMS;
            }
            (
                status_of(error.code),
                ServerJsonRpcMessage::error(error, Some(id)),
            )
        }
    };
    let body = super::answer_bytes::answer_bytes(message);
    (status, [(CONTENT_TYPE, "application/json")], body).into_response()
}

/// rmcp's HTTP status for a JSON-RPC error on a well-formed request.
fn status_of(code: ErrorCode) -> StatusCode {
    match code {
        ErrorCode::UNSUPPORTED_PROTOCOL_VERSION
        | ErrorCode::MISSING_REQUIRED_CLIENT_CAPABILITY
        | ErrorCode::HEADER_MISMATCH => StatusCode::BAD_REQUEST,
        ErrorCode::METHOD_NOT_FOUND => StatusCode::NOT_FOUND,
        _ => StatusCode::OK,
    }
}

//! A plain `tools/call` over stdio, answered without rmcp's serve loop.
//!
//! rmcp takes each request through its serve loop: a task per request
//! with its tracing span and task-locals, two cancellation tokens and a
//! hashed pool entry, a channel back to the loop, and a second task to
//! write the answer (BENCHMARKS.md measures what that costs a call). On a
//! session opened with `initialize` at a version before 2026-07-28, a
//! `tools/call` whose `_meta` holds at most a progress token is answered
//! here instead: the same handler (`ServerHandler::call_tool`) with the
//! same context rmcp would build, its answer shaped and refused as rmcp's
//! `handle_request` shapes and refuses it, written as the same line
//! (`answer_bytes`), under the same lock as rmcp's own writes. Everything else (other
//! methods, other metadata, sessions opened inline or at 2026-07-28, every
//! notification and response) reaches rmcp as it came, and rmcp's peer
//! still carries what a call sends the client (progress, elicitation).
//!
//! rmcp's rules kept here: `notifications/cancelled` cancels the call and
//! its answer is never written; at the end of input the calls in flight
//! get `DRAIN` to finish, then are cancelled. Tests run the same
//! conversations against a server with `--rmcp-only` and compare the bytes.

use std::sync::{Arc, Mutex, OnceLock};
use std::time::Duration;

use rmcp::model::{
    CallToolRequestParams, ClientJsonRpcMessage, ClientNotification, ErrorData, JsonObject,
    ProtocolVersion, RequestId, RequestMetaObject, ServerJsonRpcMessage, ServerResult,
};
use rmcp::service::RequestContext;
use rmcp::{Peer, RoleServer, ServerHandler as _};
use tokio::sync::Notify;
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;

use super::answer_bytes::answer_bytes;
use super::server::GitLabServer;
use super::stdio_lines::{Writer, write_line};

/// How long calls in flight at the end of input may take to be answered:
/// rmcp's drain after stdin closes.
const DRAIN: Duration = Duration::from_secs(5);

pub struct DirectCalls {
    /// Set once rmcp's handshake is over: the handler and rmcp's peer.
    ready: OnceLock<Ready>,
    writer: Writer,
    /// The calls running here, by request id, each with its token.
    in_flight: Mutex<Vec<(RequestId, CancellationToken)>>,
    /// A call left `in_flight`.
    finished: Notify,
    /// Cancelled when the drain is over.
    stopping: CancellationToken,
}

struct Ready {
    server: GitLabServer,
    peer: Peer<RoleServer>,
}

/// A `tools/call` as the line reader read it.
pub struct Call {
    pub id: RequestId,
    pub params: CallToolRequestParams,
    pub meta: Option<JsonObject>,
}

impl DirectCalls {
    pub fn new(writer: Writer) -> Arc<Self> {
        Arc::new(DirectCalls {
            ready: OnceLock::new(),
            writer,
            in_flight: Mutex::new(Vec::new()),
            finished: Notify::new(),
            stopping: CancellationToken::new(),
        })
    }

    /// From now on, calls may be answered here.
    pub fn start(&self, server: GitLabServer, peer: Peer<RoleServer>) {
        let _ = self.ready.set(Ready { server, peer });
    }

    /// Answers `call` in a task of its own, or gives it back for rmcp.
    pub fn take(self: &Arc<Self>, call: Call) -> Option<Call> {
        let Some(ready) = self.ready.get() else {
            return Some(call);
        };
        if !plain_meta(call.meta.as_ref()) || !legacy_session(&ready.peer) {
            return Some(call);
        }
        tracing::debug!(id = %call.id, "tools/call answered without rmcp's serve loop");
        let ct = self.stopping.child_token();
        lock(&self.in_flight).push((call.id.clone(), ct.clone()));
        let meta = call.meta.map(RequestMetaObject::from).unwrap_or_default();
        // What rmcp's serve loop builds (no extensions come from stdio).
        let mut context = RequestContext::new(call.id.clone(), ready.peer.clone());
        context.ct = ct;
        context.meta = meta;
        let (server, this) = (ready.server.clone(), self.clone());
        tokio::spawn(async move {
            let answer = answer(&server, call.params, context).await;
            if this.finish(&call.id) {
                let message = match answer {
                    Ok(result) => ServerJsonRpcMessage::response(result, call.id),
                    Err(error) => ServerJsonRpcMessage::error(error, Some(call.id)),
                };
                let mut line = answer_bytes(message);
                line.push(b'\n');
                if let Err(error) = write_line(&this.writer, &line).await {
                    tracing::error!(%error, "fail to response message");
                }
            }
            this.finished.notify_waiters();
        });
        None
    }

    /// Whether `id` was still waiting for its answer (not cancelled).
    fn finish(&self, id: &RequestId) -> bool {
        let mut in_flight = lock(&self.in_flight);
        let at = in_flight.iter().position(|(running, _)| running == id);
        at.map(|at| in_flight.swap_remove(at)).is_some()
    }

    /// A message on its way to rmcp: a cancellation of a call running here
    /// cancels it, and its answer is dropped, as rmcp does with its own.
    pub fn see(&self, message: &ClientJsonRpcMessage) {
        let ClientJsonRpcMessage::Notification(notification) = message else {
            return;
        };
        let ClientNotification::CancelledNotification(cancelled) = &notification.notification
        else {
            return;
        };
        let Some(id) = &cancelled.params.request_id else {
            return;
        };
        let mut in_flight = lock(&self.in_flight);
        if let Some(at) = in_flight.iter().position(|(running, _)| running == id) {
            tracing::info!(%id, reason = cancelled.params.reason, "cancelled");
            in_flight.swap_remove(at).1.cancel();
        }
    }

    /// Input ended at `eof`: the calls in flight get until `eof + DRAIN`
    /// to be answered, then are cancelled.
    pub async fn drain(&self, eof: Instant) {
        let deadline = eof + DRAIN;
        loop {
            let finished = self.finished.notified();
            if lock(&self.in_flight).is_empty() {
                break;
            }
            if tokio::time::timeout_at(deadline, finished).await.is_err() {
                tracing::warn!("timed out draining in-flight responses");
                break;
            }
        }
        self.stopping.cancel();
    }
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// Metadata that changes nothing rmcp checks: none, or a progress token.
fn plain_meta(meta: Option<&JsonObject>) -> bool {
    meta.is_none_or(|meta| meta.keys().all(|key| key == "progressToken"))
}

/// A session opened with `initialize` (rmcp keeps the client's info then,
/// and only then) at a version before 2026-07-28, whose rules
/// `answer` follows.
fn legacy_session(peer: &Peer<RoleServer>) -> bool {
    peer.peer_info()
        .is_some_and(|info| info.protocol_version < ProtocolVersion::V_2026_07_28)
}

/// The call as rmcp's `handle_request` answers a `tools/call` on a legacy
/// session: a task only for a client that declared tasks, no
/// input-required result, and the result in the legacy shape.
async fn answer(
    server: &GitLabServer,
    params: CallToolRequestParams,
    context: RequestContext<RoleServer>,
) -> Result<ServerResult, ErrorData> {
    let declared_tasks = context
        .client_capabilities()
        .is_some_and(|c| c.supports_tasks());
    let response = server.call_tool(params, context).await?;
    if matches!(response, rmcp::model::CallToolResponse::Task(_)) && !declared_tasks {
        return Err(ErrorData::missing_required_client_capability(
            rmcp::model::ClientCapabilities::builder()
                .enable_tasks()
                .build(),
        ));
    }
    let mut result = ServerResult::from(response);
    if matches!(result, ServerResult::InputRequiredResult(_)) {
        return Err(ErrorData::invalid_request(
            "InputRequiredResult requires negotiated protocol version 2026-07-28 or newer",
            None,
        ));
    }
    result.strip_result_type_for_legacy_peer();
    result.strip_non_object_output_for_legacy_peer();
    Ok(result)
}

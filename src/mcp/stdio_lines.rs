//! The stdio transport: one JSON-RPC message a line, as rmcp's
//! `AsyncRwTransport` reads and writes them, with a fast path for the
//! message that matters, `tools/call`.
//!
//! rmcp parses every line through its generic message types (a buffered
//! untagged enum of every request, trying variant after variant): 42,000
//! instructions a `tools/call`, an eighth of a whole call (BENCHMARKS.md).
//! A line that is exactly a `tools/call` request (`jsonrpc`, `id`,
//! `method`, and `params` of `name`, `arguments` and `_meta` only, no other
//! key, no duplicate) is read here into the same message rmcp builds, or
//! answered here when `stdio_direct` takes it; any other line goes through
//! rmcp's own decoder, its compatibility rules and errors included. Lines
//! are written as rmcp's codec writes them (the message's JSON and a line
//! break, flushed), one at a time under one lock.

use std::sync::Arc;

use bytes::BytesMut;
use rmcp::RoleServer;
use rmcp::model::{
    CallToolRequestMethod, CallToolRequestParams, ClientJsonRpcMessage, ClientRequest, ErrorData,
    Extensions, GetExtensions as _, JsonObject, JsonRpcRequest, JsonRpcVersion2_0, Request,
    RequestId, RequestMetaObject, ServerJsonRpcMessage,
};
use rmcp::service::{RxJsonRpcMessage, TxJsonRpcMessage};
use rmcp::transport::Transport;
use rmcp::transport::async_rw::{
    DEFAULT_MAX_LINE_LENGTH, JsonRpcMessageCodec, JsonRpcMessageCodecError,
};
use serde::Deserialize;
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncWrite, AsyncWriteExt as _, BufReader};
use tokio::time::Instant;
use tokio_util::codec::Decoder;

use super::stdio_direct::{Call, DirectCalls};

/// The write side, shared by rmcp's sends and the calls answered here;
/// `None` once closed.
pub type Writer = Arc<tokio::sync::Mutex<Option<Box<dyn AsyncWrite + Send + Unpin>>>>;

/// One message as one line, as rmcp's codec writes it.
pub async fn write(writer: &Writer, item: TxJsonRpcMessage<RoleServer>) -> std::io::Result<()> {
    let mut line = serde_json::to_vec(&item)?;
    line.push(b'\n');
    write_line(writer, &line).await
}

/// One whole line, then a flush (rmcp's transport flushes each message).
pub async fn write_line(writer: &Writer, line: &[u8]) -> std::io::Result<()> {
    match writer.lock().await.as_mut() {
        Some(write) => {
            write.write_all(line).await?;
            write.flush().await
        }
        None => Err(std::io::Error::new(
            std::io::ErrorKind::NotConnected,
            "Transport is closed",
        )),
    }
}

/// Lines read from `R` and written to the writer.
pub struct LineTransport<R> {
    read: BufReader<R>,
    line: Vec<u8>,
    /// Dropping the rest of a line over the length limit.
    discarding: bool,
    write: Writer,
    /// The calls answered without rmcp's serve loop; `None`: every message
    /// goes to rmcp (`--rmcp-only`).
    direct: Option<Arc<DirectCalls>>,
    /// When input ended.
    eof: Option<Instant>,
}

impl<R> LineTransport<R>
where
    R: AsyncRead + Send + Unpin,
{
    /// `direct`: answer plain calls here once `DirectCalls::start` is
    /// called on `LineTransport::direct_calls`.
    pub fn new(read: R, write: impl AsyncWrite + Send + Unpin + 'static, direct: bool) -> Self {
        let write: Writer = Arc::new(tokio::sync::Mutex::new(Some(Box::new(write))));
        LineTransport {
            read: BufReader::new(read),
            line: Vec::new(),
            discarding: false,
            direct: direct.then(|| DirectCalls::new(write.clone())),
            write,
            eof: None,
        }
    }

    pub fn direct_calls(&self) -> Option<Arc<DirectCalls>> {
        self.direct.clone()
    }

    /// The next whole line into `self.line`, bounded as rmcp bounds it;
    /// cancel-safe (a partial line stays for the next call).
    async fn read_line(&mut self) -> Read {
        loop {
            let (consumed, step) = {
                let available = match self.read.fill_buf().await {
                    Ok(available) => available,
                    Err(error) => {
                        tracing::error!("Error reading from stream: {error}");
                        return Read::Eof;
                    }
                };
                if available.is_empty() {
                    return Read::Eof;
                }
                let newline = memchr::memchr(b'\n', available);
                let take = newline.map_or(available.len(), |at| at + 1);
                if self.discarding {
                    if newline.is_some() {
                        self.discarding = false;
                    }
                    (take, Read::More)
                } else if self.line.len().saturating_add(take) > DEFAULT_MAX_LINE_LENGTH {
                    self.line.clear();
                    self.discarding = newline.is_none();
                    (take, Read::Oversized)
                } else {
                    self.line.extend_from_slice(&available[..take]);
                    (
                        take,
                        if newline.is_some() {
                            Read::Line
                        } else {
                            Read::More
                        },
                    )
                }
            };
            self.read.consume(consumed);
            match step {
                Read::More => {}
                done => return done,
            }
        }
    }
}

enum Read {
    Line,
    More,
    Oversized,
    Eof,
}

/// What one line says.
enum Parsed {
    /// A plain `tools/call` (the fast path).
    Call(FastCall),
    Message(Box<ClientJsonRpcMessage>),
    /// Nothing to act on (not JSON, or a notification rmcp ignores).
    Nothing,
    /// JSON that is no message: answered with an Invalid Request error.
    Invalid,
}

/// A line without its `\n` (and `\r`), through the fast path or rmcp's.
fn parse(line: &[u8]) -> Parsed {
    if let Some(call) = fast_call(line) {
        return Parsed::Call(call);
    }
    let mut framed = BytesMut::with_capacity(line.len() + 1);
    framed.extend_from_slice(line);
    framed.extend_from_slice(b"\n");
    match JsonRpcMessageCodec::<ClientJsonRpcMessage>::default().decode(&mut framed) {
        Ok(Some(message)) => Parsed::Message(Box::new(message)),
        Ok(None) => Parsed::Nothing,
        Err(JsonRpcMessageCodecError::Serde(error)) => match error.classify() {
            // Not JSON: no id to answer, and answering could start an error
            // storm with a peer that echoes (rmcp's rule).
            serde_json::error::Category::Syntax | serde_json::error::Category::Eof => {
                tracing::debug!("Ignoring unparsable incoming message: {error}");
                Parsed::Nothing
            }
            serde_json::error::Category::Data | serde_json::error::Category::Io => {
                tracing::debug!("Protocol error on incoming message: {error}");
                Parsed::Invalid
            }
        },
        Err(error) => {
            tracing::debug!("Ignoring incoming message: {error}");
            Parsed::Nothing
        }
    }
}

/// A `tools/call` request exactly: any other key, at the top or in
/// `params`, leaves it to rmcp's parser.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct FastCall {
    jsonrpc: JsonRpcVersion2_0,
    id: RequestId,
    method: CallToolRequestMethod,
    params: FastParams,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct FastParams {
    name: String,
    #[serde(default)]
    arguments: Option<JsonObject>,
    #[serde(default, rename = "_meta")]
    meta: Option<JsonObject>,
}

fn fast_call(line: &[u8]) -> Option<FastCall> {
    serde_json::from_slice(line).ok()
}

impl FastCall {
    /// The call as `stdio_direct` takes it.
    fn into_call(self) -> Call {
        let mut params = CallToolRequestParams::new(self.params.name);
        params.arguments = self.params.arguments;
        Call {
            id: self.id,
            params,
            meta: self.params.meta,
        }
    }

    /// The message rmcp's parser makes of a plain `tools/call` line: the
    /// `_meta` in the request's extensions, none in its params.
    #[cfg(test)]
    fn into_message(self) -> ClientJsonRpcMessage {
        let (jsonrpc, method) = (self.jsonrpc, self.method);
        from_call(jsonrpc, method, self.into_call())
    }
}

fn from_call(
    jsonrpc: JsonRpcVersion2_0,
    method: CallToolRequestMethod,
    call: Call,
) -> ClientJsonRpcMessage {
    let mut extensions = Extensions::new();
    if let Some(meta) = call.meta {
        extensions.insert(RequestMetaObject::from(meta));
    }
    let mut request = Request::<CallToolRequestMethod, _>::new(call.params);
    request.method = method;
    *request.extensions_mut() = extensions;
    ClientJsonRpcMessage::Request(JsonRpcRequest {
        jsonrpc,
        id: call.id,
        request: ClientRequest::CallToolRequest(request),
    })
}

impl<R> Transport<RoleServer> for LineTransport<R>
where
    R: AsyncRead + Send + Unpin,
{
    type Error = std::io::Error;

    fn send(
        &mut self,
        item: TxJsonRpcMessage<RoleServer>,
    ) -> impl Future<Output = Result<(), Self::Error>> + Send + 'static {
        let writer = self.write.clone();
        async move { write(&writer, item).await }
    }

    async fn receive(&mut self) -> Option<RxJsonRpcMessage<RoleServer>> {
        loop {
            match self.read_line().await {
                Read::Line => {}
                Read::Oversized => {
                    tracing::error!(
                        max_line_length = DEFAULT_MAX_LINE_LENGTH,
                        "Incoming message exceeded the maximum line length, discarding it"
                    );
                    continue;
                }
                Read::Eof | Read::More => {
                    self.eof.get_or_insert_with(Instant::now);
                    return None;
                }
            }
            let parsed = {
                let line = self.line.strip_suffix(b"\n").unwrap_or(&self.line);
                let line = line.strip_suffix(b"\r").unwrap_or(line);
                (!line.is_empty()).then(|| parse(line))
            };
            self.line.clear();
            match parsed {
                Some(Parsed::Call(call)) => {
                    let (jsonrpc, method) = (call.jsonrpc, call.method);
                    let call = call.into_call();
                    let left = match &self.direct {
                        Some(direct) => direct.take(call),
                        None => Some(call),
                    };
                    if let Some(call) = left {
                        return Some(from_call(jsonrpc, method, call));
                    }
                }
                Some(Parsed::Message(message)) => {
                    if let Some(direct) = &self.direct {
                        direct.see(&message);
                    }
                    return Some(*message);
                }
                None | Some(Parsed::Nothing) => {}
                Some(Parsed::Invalid) => {
                    let answer = ServerJsonRpcMessage::error(
                        ErrorData::invalid_request("Invalid request", None),
                        None,
                    );
                    if write(&self.write, answer).await.is_err() {
                        return None;
                    }
                }
            }
        }
    }

    async fn close(&mut self) -> Result<(), Self::Error> {
        // rmcp drained its own calls before closing; those answered here
        // get the same time from the end of input.
        if let Some(direct) = &self.direct {
            direct.drain(self.eof.unwrap_or_else(Instant::now)).await;
        }
        drop(self.write.lock().await.take());
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What rmcp's own parser makes of a line.
    fn rmcp_parse(line: &str) -> Option<ClientJsonRpcMessage> {
        let mut framed = BytesMut::from(format!("{line}\n").as_bytes());
        JsonRpcMessageCodec::<ClientJsonRpcMessage>::default()
            .decode(&mut framed)
            .ok()
            .flatten()
    }

    /// The message as it reads on the wire, `_meta` included, and the
    /// request's metadata as the handler sees it.
    fn seen(message: &ClientJsonRpcMessage) -> (serde_json::Value, Option<RequestMetaObject>) {
        let meta = match message {
            ClientJsonRpcMessage::Request(request) => request
                .request
                .extensions()
                .get::<RequestMetaObject>()
                .cloned(),
            _ => None,
        };
        (serde_json::to_value(message).unwrap(), meta)
    }

    #[test]
    fn a_plain_call_reads_as_rmcp_reads_it() {
        for line in [
            r#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"gitlab_issue","arguments":{"action":"get","params":{"project_id":1,"issue_iid":3}}}}"#,
            r#"{"jsonrpc":"2.0","id":"abc","method":"tools/call","params":{"name":"gitlab_issue","arguments":{"b":1,"a":[true,null,{"z":"\u00e9"}]},"_meta":{"progressToken":5}}}"#,
            r#"{"params":{"_meta":{"progressToken":"t","io.modelcontextprotocol/protocolVersion":"2026-07-28"},"name":"x"},"method":"tools/call","id":1e2,"jsonrpc":"2.0"}"#,
            r#"{"jsonrpc":"2.0","id":9223372036854775807,"method":"tools/call","params":{"name":"n","arguments":null}}"#,
        ] {
            let fast = fast_call(line.as_bytes())
                .expect("the fast path takes it")
                .into_message();
            let rmcp = rmcp_parse(line).expect("rmcp reads it");
            assert_eq!(seen(&fast), seen(&rmcp), "{line}");
            let ClientJsonRpcMessage::Request(request) = &fast else {
                panic!("a request");
            };
            let ClientRequest::CallToolRequest(call) = &request.request else {
                panic!("a tools/call");
            };
            assert_eq!(call.params.meta, None, "{line}");
        }
    }

    #[test]
    fn anything_else_is_left_to_rmcp() {
        for line in [
            // Another method, a notification, a response.
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#,
            r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
            r#"{"jsonrpc":"2.0","id":1,"result":{}}"#,
            // Keys the fast path does not know, at each level; a duplicate.
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x","requestState":"s"}}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x"},"result":{}}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x","name":"y"}}"#,
            // Not quite JSON-RPC 2.0, or an id rmcp refuses.
            r#"{"jsonrpc":"1.0","id":1,"method":"tools/call","params":{"name":"x"}}"#,
            r#"{"jsonrpc":"2.0","id":1.5,"method":"tools/call","params":{"name":"x"}}"#,
            "\u{feff}{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"x\"}}",
            "not json",
        ] {
            assert!(fast_call(line.as_bytes()).is_none(), "{line}");
        }
        // Left to rmcp, they read as rmcp reads them.
        assert!(matches!(
            parse(br#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#),
            Parsed::Message(_)
        ));
        assert!(matches!(parse(b"not json"), Parsed::Nothing));
        assert!(matches!(
            parse(br#"{"jsonrpc":"2.0","id":1}"#),
            Parsed::Invalid
        ));
    }
}

//! The stdio transport, made tolerant of what comes before the handshake.
//!
//! rmcp ends the session when its first message is a notification or a
//! response (`expect initialized request, but received: ...`). The MCP
//! lifecycle asks a server to ignore what it cannot use before
//! initialization, so until rmcp's handshake has taken its first request
//! (an `initialize`, or a request with complete 2026-07-28 metadata), this
//! wrapper drops notifications and responses, logging each at debug level.

use std::borrow::Cow;

use rmcp::RoleServer;
use rmcp::model::{ClientJsonRpcMessage, ClientRequest, GetMeta as _, ProtocolVersion};
use rmcp::service::{RxJsonRpcMessage, TxJsonRpcMessage};
use rmcp::transport::Transport;

pub struct BeforeHandshake<T> {
    inner: T,
    versions: Cow<'static, [ProtocolVersion]>,
    started: bool,
}

impl<T> BeforeHandshake<T> {
    pub fn new(inner: T, versions: Cow<'static, [ProtocolVersion]>) -> Self {
        Self {
            inner,
            versions,
            started: false,
        }
    }

    /// Whether rmcp's handshake leaves its first loop on this request, as
    /// `serve_server_with_ct_inner` decides: an `initialize`, or any request
    /// but `ping` and `server/discover` with complete inline metadata of a
    /// supported version.
    fn starts(&self, request: &ClientRequest) -> bool {
        match request {
            ClientRequest::InitializeRequest(_) => true,
            ClientRequest::PingRequest(_) | ClientRequest::DiscoverRequest(_) => false,
            other => {
                let meta = other.get_meta();
                meta.missing_required_keys(&ProtocolVersion::V_2026_07_28)
                    .is_empty()
                    && meta
                        .protocol_version()
                        .is_some_and(|v| self.versions.contains(&v))
            }
        }
    }
}

impl<T: Transport<RoleServer>> Transport<RoleServer> for BeforeHandshake<T> {
    type Error = T::Error;

    fn send(
        &mut self,
        item: TxJsonRpcMessage<RoleServer>,
    ) -> impl Future<Output = Result<(), Self::Error>> + Send + 'static {
        self.inner.send(item)
    }

    async fn receive(&mut self) -> Option<RxJsonRpcMessage<RoleServer>> {
        loop {
            let message = self.inner.receive().await?;
            if self.started {
                return Some(message);
            }
            match &message {
                ClientJsonRpcMessage::Request(request) => {
                    self.started = self.starts(&request.request);
                    return Some(message);
                }
                _ => tracing::debug!("a notification or response before the handshake, ignored"),
            }
        }
    }

    fn close(&mut self) -> impl Future<Output = Result<(), Self::Error>> + Send {
        self.inner.close()
    }
}

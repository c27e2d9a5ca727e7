//! Legacy sessions (`--stateful`), bounded in number. rmcp's in-memory
//! session manager keeps a session until the client deletes it or it has
//! been idle for its keep-alive (5 minutes), and sets no bound of its own:
//! `initialize` in a loop would fill memory. Past the bound a new session
//! is refused here (rmcp answers that with a 500); the HTTP layer asks
//! `full` first, so a client normally gets a 503 with `Retry-After`.

use futures::Stream;
use rmcp::model::{ClientJsonRpcMessage, ServerJsonRpcMessage};
use rmcp::transport::streamable_http_server::session::local::{
    LocalSessionManager, LocalSessionManagerError,
};
use rmcp::transport::streamable_http_server::session::{
    ServerSseMessage, SessionId, SessionManager,
};

pub struct BoundedSessions {
    inner: LocalSessionManager,
    max: usize,
}

#[derive(Debug, thiserror::Error)]
pub enum SessionsError {
    #[error("this server holds {0} sessions, its most; close one or retry later")]
    Full(usize),
    #[error(transparent)]
    Local(#[from] LocalSessionManagerError),
}

impl std::fmt::Debug for BoundedSessions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("BoundedSessions")
            .field("max", &self.max)
            .finish_non_exhaustive()
    }
}

impl BoundedSessions {
    pub fn new(max: usize) -> Self {
        BoundedSessions {
            inner: LocalSessionManager::default(),
            max: max.max(1),
        }
    }

    /// Whether a new session would be refused.
    pub async fn full(&self) -> bool {
        self.inner.sessions.read().await.len() >= self.max
    }
}

impl SessionManager for BoundedSessions {
    type Error = SessionsError;
    type Transport = <LocalSessionManager as SessionManager>::Transport;

    async fn create_session(&self) -> Result<(SessionId, Self::Transport), Self::Error> {
        if self.full().await {
            return Err(SessionsError::Full(self.max));
        }
        Ok(self.inner.create_session().await?)
    }

    async fn initialize_session(
        &self,
        id: &SessionId,
        message: ClientJsonRpcMessage,
    ) -> Result<ServerJsonRpcMessage, Self::Error> {
        Ok(self.inner.initialize_session(id, message).await?)
    }

    async fn has_session(&self, id: &SessionId) -> Result<bool, Self::Error> {
        Ok(self.inner.has_session(id).await?)
    }

    async fn close_session(&self, id: &SessionId) -> Result<(), Self::Error> {
        Ok(self.inner.close_session(id).await?)
    }

    async fn create_stream(
        &self,
        id: &SessionId,
        message: ClientJsonRpcMessage,
    ) -> Result<impl Stream<Item = ServerSseMessage> + Send + Sync + 'static, Self::Error> {
        Ok(self.inner.create_stream(id, message).await?)
    }

    async fn accept_message(
        &self,
        id: &SessionId,
        message: ClientJsonRpcMessage,
    ) -> Result<(), Self::Error> {
        Ok(self.inner.accept_message(id, message).await?)
    }

    async fn create_standalone_stream(
        &self,
        id: &SessionId,
    ) -> Result<impl Stream<Item = ServerSseMessage> + Send + Sync + 'static, Self::Error> {
        Ok(self.inner.create_standalone_stream(id).await?)
    }

    async fn resume(
        &self,
        id: &SessionId,
        last_event_id: String,
    ) -> Result<impl Stream<Item = ServerSseMessage> + Send + Sync + 'static, Self::Error> {
        Ok(self.inner.resume(id, last_event_id).await?)
    }
}

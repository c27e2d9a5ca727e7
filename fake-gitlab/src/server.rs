//! The accept loop: HTTP/1.1 with keep-alive on each connection, over
//! plain TCP or TLS, with a per-connection switch that faults use to reset
//! the connection (an RST, no answer).

use std::io;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::task::{Context, Poll};
use std::time::Duration;

use axum::Router;
use axum::body::Body;
use hyper::body::Incoming;
use hyper_util::rt::{TokioIo, TokioTimer};
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::{TcpListener, TcpStream};
use tower::ServiceExt;

/// Set by a fault to drop the connection it arrived on with a reset.
#[derive(Clone, Default)]
pub struct ResetSwitch(Arc<AtomicBool>);

impl ResetSwitch {
    pub fn reset(&self) {
        self.0.store(true, Ordering::SeqCst);
    }

    fn is_set(&self) -> bool {
        self.0.load(Ordering::SeqCst)
    }
}

/// A TCP stream that fails every read and write once its switch is set,
/// after arranging for the close to be a reset (`SO_LINGER` 0).
struct Conn {
    tcp: TcpStream,
    switch: ResetSwitch,
}

impl Conn {
    fn check(&self) -> io::Result<()> {
        if self.switch.is_set() {
            let _ = socket2::SockRef::from(&self.tcp).set_linger(Some(Duration::ZERO));
            return Err(io::Error::new(
                io::ErrorKind::ConnectionReset,
                "fault: reset",
            ));
        }
        Ok(())
    }
}

impl AsyncRead for Conn {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        this.check()?;
        Pin::new(&mut this.tcp).poll_read(cx, buf)
    }
}

impl AsyncWrite for Conn {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        let this = self.get_mut();
        this.check()?;
        Pin::new(&mut this.tcp).poll_write(cx, buf)
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        this.check()?;
        Pin::new(&mut this.tcp).poll_flush(cx)
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        this.check()?;
        Pin::new(&mut this.tcp).poll_shutdown(cx)
    }
}

#[cfg(feature = "tls")]
pub type Tls = crate::tls::Acceptor;
#[cfg(not(feature = "tls"))]
pub type Tls = std::convert::Infallible;

/// How long a client may take to finish the TLS handshake.
#[cfg(feature = "tls")]
const HANDSHAKE_TIMEOUT: Duration = Duration::from_secs(10);

/// Accept connections for ever (the task ends with its runtime).
pub async fn serve(listener: TcpListener, app: Router, tls: Option<Tls>) {
    loop {
        let Ok((tcp, _)) = listener.accept().await else {
            continue;
        };
        let _ = tcp.set_nodelay(true);
        let app = app.clone();
        let tls = tls.clone();
        tokio::spawn(async move {
            let switch = ResetSwitch::default();
            let conn = Conn {
                tcp,
                switch: switch.clone(),
            };
            let service =
                hyper::service::service_fn(move |mut request: hyper::Request<Incoming>| {
                    request.extensions_mut().insert(switch.clone());
                    app.clone().oneshot(request.map(Body::new))
                });
            let mut http = hyper::server::conn::http1::Builder::new();
            http.timer(TokioTimer::new()).keep_alive(true);
            match tls {
                None => {
                    let _ = http.serve_connection(TokioIo::new(conn), service).await;
                }
                #[cfg(feature = "tls")]
                Some(acceptor) => {
                    // A client that refuses the certificate just goes away.
                    let handshake = tokio::time::timeout(HANDSHAKE_TIMEOUT, acceptor.accept(conn));
                    if let Ok(Ok(stream)) = handshake.await {
                        let _ = http.serve_connection(TokioIo::new(stream), service).await;
                    }
                }
            }
        });
    }
}

//! Accepting connections. axum's `serve` gives hyper no timer, so a client
//! that sends half a request header keeps its connection, and a file
//! descriptor, for ever (`tests/it/e2e_http.rs`:
//! `half_a_header_or_an_idle_connection_is_closed_after_the_header_deadline`).
//! Here each HTTP/1 connection has a header deadline, which hyper also
//! applies while a kept-alive connection waits for its next request, and
//! the number of open connections is bounded: past it, connections wait in
//! the listen backlog.

use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use hyper::server::conn::http1;
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::server::graceful::GracefulShutdown;
use hyper_util::service::TowerToHyperService;
use tokio::net::TcpListener;
use tokio::sync::Semaphore;
use tokio_util::sync::CancellationToken;

/// Serve `app` until `stop`, then let the open connections finish their
/// requests (the caller bounds how long). `header_deadline`: how long a
/// request's header may take to arrive, and a kept-alive connection may
/// wait for its next request.
pub async fn serve(
    listener: TcpListener,
    app: Router,
    max_connections: usize,
    header_deadline: Duration,
    stop: CancellationToken,
) {
    let open = Arc::new(Semaphore::new(max_connections.max(1)));
    let graceful = GracefulShutdown::new();
    loop {
        let permit = tokio::select! {
            permit = open.clone().acquire_owned() => permit.expect("the semaphore is never closed"),
            () = stop.cancelled() => break,
        };
        let stream = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok((stream, _)) => stream,
                Err(e) => {
                    // Out of file descriptors, most likely: wait, do not spin.
                    tracing::warn!(error = %e, "accepting a connection failed");
                    tokio::time::sleep(Duration::from_millis(100)).await;
                    continue;
                }
            },
            () = stop.cancelled() => break,
        };
        // Answers are small and written whole: do not wait to coalesce.
        let _ = stream.set_nodelay(true);
        let connection = http1::Builder::new()
            .timer(TokioTimer::new())
            .header_read_timeout(header_deadline)
            .serve_connection(TokioIo::new(stream), TowerToHyperService::new(app.clone()));
        let connection = graceful.watch(connection);
        tokio::spawn(async move {
            if let Err(e) = connection.await {
                tracing::debug!(error = %e, "connection ended with an error");
            }
            drop(permit);
        });
    }
    graceful.shutdown().await;
}

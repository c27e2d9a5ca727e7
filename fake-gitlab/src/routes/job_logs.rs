//! A job's log (docs: https://docs.gitlab.com/api/jobs/#get-a-log-file):
//! plain text, possibly megabytes. GitLab sends the whole trace as the
//! body (`lib/api/ci/jobs.rb`: `body trace`, no `Range` handling), so a
//! client that wants less can only stop reading. A runner trace
//! (`JobLog::Runner`) is made and sent a chunk at a time, and every byte
//! handed to the connection is counted (`FakeGitLab::trace_bytes_sent`):
//! a test can tell a client that stopped early from one that read it all.

use std::pin::Pin;
use std::sync::atomic::Ordering;
use std::task::{Context, Poll};

use axum::Router;
use axum::body::{Body, Bytes};
use axum::extract::{Path, State};
use axum::http::{StatusCode, header};
use axum::response::IntoResponse;
use axum::routing::get;
use http_body::Frame;

use super::{Ctx, Reply, id, visible};
use crate::db::JobLog;
use crate::traces::Lines;
use crate::{App, http, lock, objects};

pub fn routes() -> Router<App> {
    Router::new().route("/api/v4/projects/{id}/jobs/{job_id}/trace", get(trace))
}

async fn trace(
    State(app): State<App>,
    Path((pid, jid)): Path<(String, String)>,
    ctx: Ctx,
) -> Reply {
    let db = lock(&app.db);
    let p = visible(&db, &pid, &ctx)?;
    let job_id = id(&jid)?;
    let job = db.projects[p]
        .jobs
        .iter()
        .find(|j| j.id == job_id)
        .ok_or_else(|| http::message(404, "404 Not found"))?;
    if let JobLog::Runner(trace) = &job.log {
        let body = TraceBody {
            lines: trace.lines(),
            app: app.clone(),
        };
        return Ok((
            StatusCode::OK,
            [(header::CONTENT_TYPE, "text/plain; charset=utf-8")],
            Body::new(body),
        )
            .into_response());
    }
    Ok(http::text(objects::job_log(job)))
}

/// Bytes per chunk of a streamed trace.
const CHUNK: usize = 16 * 1024;

/// A runner trace, made a chunk at a time as the connection takes it.
struct TraceBody {
    lines: Lines,
    app: App,
}

impl http_body::Body for TraceBody {
    type Data = Bytes;
    type Error = std::io::Error;

    fn poll_frame(
        self: Pin<&mut Self>,
        _cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Self::Error>>> {
        let this = self.get_mut();
        let mut chunk = String::with_capacity(CHUNK + 256);
        while chunk.len() < CHUNK {
            match this.lines.next() {
                Some(line) => chunk.push_str(&line),
                None => break,
            }
        }
        if chunk.is_empty() {
            return Poll::Ready(None);
        }
        this.app
            .trace_bytes
            .fetch_add(chunk.len() as u64, Ordering::SeqCst);
        Poll::Ready(Some(Ok(Frame::data(Bytes::from(chunk)))))
    }
}

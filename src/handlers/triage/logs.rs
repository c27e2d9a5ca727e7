//! A failed job's log, read as it streams through the scanner
//! (`render::log_scan`) and dropped once the scanner has its excerpt: the
//! connection closes and the rest of the log is never downloaded. GitLab
//! sends the whole trace as the body and does not honour `Range`
//! (`lib/api/ci/jobs.rb`: `body trace`), so stopping is the only way to
//! read less. Logs are text, which lockdown does not screen, so they are
//! read with the client directly rather than through `Gitlab::send`.

use std::sync::atomic::{AtomicUsize, Ordering};

use futures::future::join_all;

use super::super::Gitlab;
use super::jobs::FailedJob;
use crate::gitlab::{Failed, HttpRequest};
use crate::render::log_scan::{Excerpt, Limits, Scanner};

/// The excerpts of these jobs' logs, read at once (the client bounds the
/// requests in flight), in the same order; progress after each.
pub async fn excerpts(gitlab: &Gitlab<'_>, jobs: &[&FailedJob]) -> Vec<Result<Excerpt, Failed>> {
    let done = AtomicUsize::new(0);
    let total = jobs.len() as f64;
    join_all(jobs.iter().map(|job| async {
        let excerpt = excerpt(gitlab, job).await;
        let done = done.fetch_add(1, Ordering::SeqCst) + 1;
        gitlab.progress(
            done as f64,
            Some(total),
            &format!("{done} of {total} logs read"),
        );
        excerpt
    }))
    .await
}

/// One job's excerpt.
async fn excerpt(gitlab: &Gitlab<'_>, job: &FailedJob) -> Result<Excerpt, Failed> {
    let limits = Limits::default();
    let request = HttpRequest::get(format!("{}/jobs/{}/trace", job.project, job.id));
    let mut stream = gitlab
        .client
        .stream(gitlab.target, &request, limits.max_bytes)
        .await?;
    let mut scanner = Scanner::new(limits);
    while let Some(chunk) = stream
        .chunk()
        .await
        .map_err(|error| Failed { error, attempts: 1 })?
    {
        if !scanner.feed(&chunk) {
            break;
        }
    }
    Ok(scanner.finish())
}

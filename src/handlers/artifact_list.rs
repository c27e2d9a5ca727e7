//! `artifact_list`: a job's artifacts archive
//! (https://docs.gitlab.com/api/job_artifacts/#get-job-artifacts) is a zip;
//! it is listed from its central directory, never shown. The archive can
//! be hundreds of megabytes and the listing is at its end: it is read as
//! it streams keeping only its last `render::ARCHIVE_TAIL_WINDOW` bytes
//! (BENCHMARKS.md, "Memory"), unless lockdown screens the answer (its
//! screen reads whole bodies).

use super::Gitlab;
use super::streamed;
use crate::dispatch::ValidatedCall;
use crate::gitlab::{HttpRequest, Response};
use crate::render::{self, ArchiveTail, Output};

/// The archive's files, from its central directory: the archive read
/// whole (with lockdown on).
pub fn answer(call: &ValidatedCall, response: &Response, options: render::Options) -> Output {
    render::archive_listing(call, &response.body, 0, options)
}

/// The archive's files, keeping only its end as it streams.
pub async fn read(call: &ValidatedCall, request: &HttpRequest, gitlab: &Gitlab<'_>) -> Output {
    let mut tail = ArchiveTail::new(render::ARCHIVE_TAIL_WINDOW);
    let take = |chunk: &[u8]| {
        tail.feed(chunk);
        std::ops::ControlFlow::Continue(())
    };
    if let Err(failed) = streamed::read(call, request, gitlab, take).await {
        return failed;
    }
    let (end, base) = tail.finish();
    render::archive_listing(call, &end, base, gitlab.render)
}

//! A diff answer read through `render::DiffReader` as it streams: the
//! server keeps the files the answer can show and the names of a few
//! more, not GitLab's whole answer (a `compare` of hundreds of megabytes
//! costs about the size cap; BENCHMARKS.md, "Memory").

use super::Gitlab;
use super::streamed;
use crate::dispatch::ValidatedCall;
use crate::gitlab::HttpRequest;
use crate::render::{self, DiffPlace, DiffReader, Output};

/// The answer to `request`, whose diffs are at `place`.
pub async fn read(
    call: &ValidatedCall,
    request: &HttpRequest,
    gitlab: &Gitlab<'_>,
    place: DiffPlace,
) -> Output {
    let mut reader = DiffReader::new(place, call.view.file.as_deref(), gitlab.render.max_bytes);
    let take = |chunk: &[u8]| {
        reader.feed(chunk);
        std::ops::ControlFlow::Continue(())
    };
    let stream = match streamed::read(call, request, gitlab, take).await {
        Ok((stream, _)) => stream,
        Err(failed) => return failed,
    };
    let (body, beyond) = reader.finish();
    render::diff_success(call, &stream.response(body.into()), &beyond, gitlab.render)
}

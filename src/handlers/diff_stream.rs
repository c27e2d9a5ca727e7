//! A diff answer read through `render::DiffReader` as it streams: the
//! server keeps the files the answer can show and the names of a few
//! more, not GitLab's whole answer (a `compare` of hundreds of megabytes
//! costs about the size cap; BENCHMARKS.md, "Memory").

use super::Gitlab;
use crate::dispatch::ValidatedCall;
use crate::gitlab::{Failed, GitLabError, HttpRequest, MAX_BODY};
use crate::render::{self, DiffPlace, DiffReader, Output};

/// The answer to `request`, whose diffs are at `place`.
pub async fn read(
    call: &ValidatedCall,
    request: &HttpRequest,
    gitlab: &Gitlab<'_>,
    place: DiffPlace,
) -> Output {
    // One byte past the most the server reads: a longer body is refused
    // as when it was read whole.
    let mut stream = match gitlab
        .client
        .stream(gitlab.target, request, MAX_BODY + 1)
        .await
    {
        Ok(stream) => stream,
        Err(failed) => return gitlab.failure(call, &failed),
    };
    let mut reader = DiffReader::new(place, call.view.file.as_deref(), gitlab.render.max_bytes);
    loop {
        match stream.chunk().await {
            Ok(Some(chunk)) => reader.feed(&chunk),
            Ok(None) => break,
            Err(error) => return gitlab.failure(call, &Failed { error, attempts: 1 }),
        }
    }
    if stream.limited() {
        let error = GitLabError::TooLarge { limit: MAX_BODY };
        return gitlab.failure(call, &Failed { error, attempts: 1 });
    }
    let (body, beyond) = reader.finish();
    render::diff_success(call, &stream.response(body.into()), &beyond, gitlab.render)
}

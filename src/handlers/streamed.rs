//! A successful answer read as it streams, piece by piece, into a reader
//! that keeps only what the answer needs: a text's window
//! (`text_stream.rs`), a diff's shown files (`diff_stream.rs`), an
//! archive's end (`artifact_list.rs`). GitLab sends these whole, with no
//! `Range` support, so reading as they come is how their size stays out
//! of memory.

use std::ops::ControlFlow;

use super::Gitlab;
use crate::dispatch::ValidatedCall;
use crate::gitlab::{BodyStream, Failed, GitLabError, HttpRequest, MAX_BODY};
use crate::render::Output;

/// How the reading ended.
pub enum Ended {
    /// The body was read to its end.
    Whole,
    /// The reader had what it needed; the rest was not read (dropping the
    /// stream closes the connection).
    Stopped,
}

/// `request`'s answer, each piece handed to `take` until the body ends or
/// `take` breaks; the stream (for the answer's head) and how it ended, or
/// the answer a failure gets. A body over the most the server reads is
/// refused, as when it was read whole.
pub async fn read(
    call: &ValidatedCall,
    request: &HttpRequest,
    gitlab: &Gitlab<'_>,
    mut take: impl FnMut(&[u8]) -> ControlFlow<()>,
) -> Result<(BodyStream, Ended), Output> {
    // One byte past the most the server reads, to tell a longer body.
    let mut stream = gitlab
        .client
        .stream(gitlab.target, request, MAX_BODY + 1)
        .await
        .map_err(|failed| gitlab.failure(call, &failed))?;
    loop {
        match stream.chunk().await {
            Ok(Some(chunk)) => {
                if take(&chunk).is_break() {
                    return Ok((stream, Ended::Stopped));
                }
            }
            Ok(None) => break,
            Err(error) => return Err(gitlab.failure(call, &Failed { error, attempts: 1 })),
        }
    }
    if stream.limited() {
        let error = GitLabError::TooLarge { limit: MAX_BODY };
        return Err(gitlab.failure(call, &Failed { error, attempts: 1 }));
    }
    Ok((stream, Ended::Whole))
}

//! `line_comment`: a comment on a line (or a range of lines) of a merge
//! request's diff, as one new thread, without the agent assembling
//! GitLab's `position` (docs:
//! https://docs.gitlab.com/api/discussions/#create-a-new-thread-in-the-merge-request-diff).
//! Three requests: the newest diff version and its diffs
//! (`diff_reads.rs`), then `POST .../discussions` with `body` and the
//! `position` that `diff_position::place` built from them; a line it
//! cannot place is refused before this request, naming the lines that can
//! take a comment, and nothing is posted.

use serde_json::{Map, Value};

use super::Gitlab;
use super::diff_position::{LineAsk, place};
use super::diff_reads::{newest_diffs, refuse};
use crate::catalog::{Method, RestRoute};
use crate::diff::FileDiff;
use crate::dispatch::ValidatedCall;
use crate::gitlab::{Body, Endpoint, HttpRequest, request};
use crate::render::{self, Output};

/// What the call asks for: the lines, and the comment's body.
fn ask(call: &ValidatedCall) -> (LineAsk<'_>, &str) {
    let body = call.arg("body").and_then(Value::as_str).unwrap_or_default();
    (LineAsk::read(|name| call.arg(name)), body)
}

/// The comment posted on a checked line: the steps in the module doc.
pub async fn run(call: &ValidatedCall, route: &RestRoute, gitlab: &Gitlab<'_>) -> Output {
    let (ask, body) = ask(call);
    // The catalog's endpoint, `.../merge_requests/:iid/discussions`.
    let discussions = request::build(call, route).path;
    let base = discussions
        .strip_suffix("/discussions")
        .unwrap_or(&discussions);
    let (version, diffs) = match newest_diffs(call, gitlab, base, (0.0, 3.0)).await {
        Ok(read) => read,
        Err(refused) => return refused,
    };
    let files: Vec<FileDiff<'_>> = diffs.iter().map(FileDiff::from_json).collect();
    let placement = match place(&version, &files, &ask) {
        Ok(placement) => placement,
        Err(problem) => return refuse(call, problem),
    };
    let heading = format!(
        "Commented on {} {}, diff version {}; the thread:\n",
        ask.file,
        placement.lines_text(),
        version.id
    );

    let mut thread = Map::new();
    thread.insert("body".into(), body.into());
    thread.insert("position".into(), placement.position);
    let post = HttpRequest {
        method: Method::Post,
        path: discussions,
        query: String::new(),
        body: Some(Body::Json(Value::Object(thread))),
        idempotent: false,
        endpoint: Endpoint::Rest,
    };
    gitlab.progress(2.0, Some(3.0), "posting the thread");
    let output = match gitlab.send(&post).await {
        Ok(response) => {
            let options = render::Options {
                max_bytes: gitlab.render.max_bytes.saturating_sub(heading.len()),
                ..gitlab.render
            };
            let mut output = render::success(call, &response, options);
            output.text.insert_str(0, &heading);
            output
        }
        Err(failed) => gitlab.failure(call, &failed),
    };
    gitlab.progress(3.0, Some(3.0), "answered");
    output
}

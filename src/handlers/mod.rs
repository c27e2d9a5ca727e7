//! How a REST action is carried out: build the request, send it, read the
//! answer. Most actions need nothing but the catalog (`one_request`); an
//! action whose body or answer needs Rust, or that takes more than one
//! request, names a handler with `handler = "<name>"`. The build turns
//! those names into the enum `catalog::Handler`, and `request` and `run`
//! below match on it exhaustively, with no wildcard: a name without an arm
//! does not compile. Each handler's home is the file `<name>.rs` here (the
//! build also refuses a name without a file).

mod artifact_list;
mod diff_position;
mod diff_reads;
mod diff_stream;
mod download_link;
pub mod graphql;
mod line_comment;
pub mod lockdown;
mod paging;
pub mod poll;
mod raw_upload;
mod review;
mod review_context;
mod streamed;
mod text_stream;
mod triage;
mod upload;
mod wait;
mod wait_merge;

use crate::catalog::{Diffs, Handler, RestRoute, Returns, TextStart};
use crate::dispatch::ValidatedCall;
use crate::gitlab::{Client, Failed, HttpRequest, Response, Target, request};
use crate::render::{self, Output};

/// Where a long call reports how far it got (MCP progress notifications,
/// when the client asked for them).
pub trait Progress: Send + Sync {
    fn report(&self, done: f64, total: Option<f64>, message: &str);
}

/// What a handler may use to reach GitLab and to word its answer.
pub struct Gitlab<'a> {
    pub client: &'a Client,
    /// Where this call goes, and as whom.
    pub target: &'a Target,
    pub render: render::Options,
    pub progress: Option<&'a dyn Progress>,
    /// Lockdown's screen, when the operator turned it on.
    pub screen: Option<&'a lockdown::Screen>,
}

impl Gitlab<'_> {
    /// One request; with lockdown on, its answer comes back screened.
    pub async fn send(&self, request: &HttpRequest) -> Result<Response, Failed> {
        let response = self.client.send(self.target, request).await?;
        Ok(match self.screen {
            Some(screen) => {
                screen
                    .screen(self.client, self.target, request, response)
                    .await
            }
            None => response,
        })
    }

    pub fn progress(&self, done: f64, total: Option<f64>, message: &str) {
        if let Some(p) = self.progress {
            p.report(done, total, message);
        }
    }

    /// A failed request as the model reads it.
    pub fn failure(&self, call: &ValidatedCall, failed: &Failed) -> Output {
        tracing::info!(tool = call.tool.name, action = call.action.name, error = %failed.error, attempts = failed.attempts, "GitLab call failed");
        let settings = self.client.settings();
        let context = render::Context {
            has_token: self.target.has_token(),
            attempts: failed.attempts,
            connect_timeout_secs: settings.connect_timeout.as_secs(),
            request_timeout_secs: settings.request_timeout.as_secs(),
        };
        // GitLab's messages can quote what its users wrote.
        let text = render::failure(call, &failed.error, &context);
        Output::error(render::untrusted::escape(&text).into_owned())
    }
}

/// The request a REST action sends (the first, when it sends several):
/// the catalog's, unless its handler builds the body. `Err` is a problem
/// found before anything is sent (such as content that is not valid
/// base64), worded for the model.
pub fn request(call: &ValidatedCall, route: &RestRoute) -> Result<HttpRequest, String> {
    match call.action.handler {
        Some(Handler::Upload) => upload::request(call, route),
        Some(Handler::RawUpload) => raw_upload::request(call, route),
        None
        | Some(
            Handler::ArtifactList
            | Handler::DownloadLink
            | Handler::LineComment
            | Handler::Review
            | Handler::ReviewContext
            | Handler::Triage
            | Handler::Wait
            | Handler::WaitMerge,
        ) => Ok(request::build(call, route)),
    }
}

/// The whole action: one request and its answer, unless its handler
/// carries it out itself (several requests, or none).
///
/// The handlers of several requests are boxed: their futures are kilobytes,
/// and inline they would make every call's future as large, copied each
/// time it moves (BENCHMARKS.md: 38,000 instructions a call of `memcpy`).
pub async fn run(call: &ValidatedCall, route: &RestRoute, gitlab: &Gitlab<'_>) -> Output {
    match call.action.handler {
        Some(Handler::DownloadLink) => download_link::run(call, route, gitlab),
        Some(Handler::LineComment) => Box::pin(line_comment::run(call, route, gitlab)).await,
        Some(Handler::Review) => Box::pin(review::run(call, route, gitlab)).await,
        Some(Handler::ReviewContext) => Box::pin(review_context::run(call, route, gitlab)).await,
        Some(Handler::Triage) => Box::pin(triage::run(call, route, gitlab)).await,
        Some(Handler::Wait) => Box::pin(wait::run(call, route, gitlab)).await,
        Some(Handler::WaitMerge) => Box::pin(wait_merge::run(call, route, gitlab)).await,
        Some(Handler::ArtifactList) => {
            let reading = if gitlab.screen.is_none() && call.view.max_items.is_none() {
                Reading::Archive
            } else {
                Reading::Whole(artifact_list::answer)
            };
            one_request(call, route, gitlab, reading).await
        }
        None | Some(Handler::Upload | Handler::RawUpload) => {
            one_request(call, route, gitlab, reading(call, gitlab)).await
        }
    }
}

/// How a successful answer reads.
type Answer = fn(&ValidatedCall, &Response, render::Options) -> Output;

/// How an answer is read: whole, then rendered; a text through its
/// window as it streams; diffs keeping only what the answer shows; an
/// archive keeping only its end.
#[derive(Clone, Copy)]
enum Reading {
    Whole(Answer),
    Window(TextStart),
    Diffs(render::DiffPlace),
    Archive,
}

/// A text or a diff is streamed, unless lockdown screens the answer (it
/// reads whole bodies), the action has a handler of its own, or the call
/// follows pages. Diffs are read whole for `raw` and `fields`, which show
/// GitLab's JSON rather than the diffs.
fn reading(call: &ValidatedCall, gitlab: &Gitlab<'_>) -> Reading {
    let streams =
        call.action.handler.is_none() && gitlab.screen.is_none() && call.view.max_items.is_none();
    let shows_diffs = !call.view.raw && call.view.fields.is_none();
    match call.action.returns {
        Returns::Text(start) if streams => Reading::Window(start),
        Returns::List(kind) if streams && shows_diffs && kind.diffs == Diffs::Itself => {
            Reading::Diffs(render::DiffPlace::Body)
        }
        Returns::One(kind) if streams && shows_diffs => match kind.diffs {
            Diffs::InField(field) => Reading::Diffs(render::DiffPlace::Field(field)),
            _ => Reading::Whole(render::success),
        },
        _ => Reading::Whole(render::success),
    }
}

/// The catalog's way: one request (every page of it, for `max_items`),
/// its answer or its failure.
async fn one_request(
    call: &ValidatedCall,
    route: &RestRoute,
    gitlab: &Gitlab<'_>,
    reading: Reading,
) -> Output {
    let request = match request(call, route) {
        Ok(request) => request,
        Err(problem) => {
            return Output::error(format!(
                "{} {}: {problem}",
                call.tool.name, call.action.name
            ));
        }
    };
    tracing::debug!(tool = call.tool.name, action = call.action.name, method = request.method.as_str(), path = %request.path, "request");
    // Each future is built where it is awaited, and the one that reports
    // progress is boxed: an async fn keeps room for a future it moved
    // (rust-lang/rust#62958), and this one's size is every call's, copied
    // each time the call's future moves (BENCHMARKS.md: 28,000
    // instructions a call of memcpy).
    let answer = match reading {
        Reading::Window(start) if gitlab.progress.is_none() => {
            return text_stream::read(call, &request, gitlab, start).await;
        }
        Reading::Window(start) => {
            return Box::pin(reporting_if_slow(
                gitlab,
                text_stream::read(call, &request, gitlab, start),
            ))
            .await;
        }
        Reading::Diffs(place) => {
            return boxed_reading(gitlab, diff_stream::read(call, &request, gitlab, place)).await;
        }
        Reading::Archive => {
            return boxed_reading(gitlab, artifact_list::read(call, &request, gitlab)).await;
        }
        Reading::Whole(answer) => answer,
    };
    if let Some(max_items) = call.view.max_items {
        return Box::pin(paging::follow(call, request, max_items, gitlab, answer)).await;
    }
    let finish = |sent: Result<Response, Failed>| match sent {
        Ok(response) => answer(call, &response, gitlab.render),
        Err(failed) => gitlab.failure(call, &failed),
    };
    if gitlab.progress.is_none() {
        return finish(gitlab.send(&request).await);
    }
    Box::pin(reporting_if_slow(gitlab, async {
        finish(gitlab.send(&request).await)
    }))
    .await
}

/// A streamed reading, boxed (its future holds the stream and what it
/// keeps; inline it would make every call's future as large), reporting
/// progress once slow when the client asked for it.
fn boxed_reading<'a>(
    gitlab: &'a Gitlab<'_>,
    work: impl Future<Output = Output> + Send + 'a,
) -> std::pin::Pin<Box<dyn Future<Output = Output> + Send + 'a>> {
    match gitlab.progress {
        None => Box::pin(work),
        Some(_) => Box::pin(reporting_if_slow(gitlab, work)),
    }
}

/// `work`, reporting progress once it has taken `SLOW_REQUEST`. Progress
/// only once the request is slow: rmcp's client asks for progress on every
/// call, and two notifications per fast call cost a third of the
/// throughput (BENCHMARKS.md). Without a progress token no timer is armed
/// (the callers await the work itself): each new timer wakes tokio's
/// driver once more.
async fn reporting_if_slow(gitlab: &Gitlab<'_>, work: impl Future<Output = Output>) -> Output {
    tokio::pin!(work);
    tokio::select! {
        output = &mut work => output,
        () = tokio::time::sleep(SLOW_REQUEST) => {
            gitlab.progress(0.0, Some(1.0), "sent to GitLab, waiting for its answer");
            let output = work.await;
            gitlab.progress(1.0, Some(1.0), "answered");
            output
        }
    }
}

/// How long a single request runs before its call reports progress.
pub const SLOW_REQUEST: std::time::Duration = std::time::Duration::from_millis(300);

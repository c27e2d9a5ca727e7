//! How a REST action is carried out: build the request, send it, read the
//! answer. Most actions need nothing but the catalog (`Plain`); an action
//! whose body or answer needs Rust, or that takes more than one request,
//! names a handler with `handler = "<name>"`. Each handler's home is the
//! file `<name>.rs` here (build.rs refuses a name without a file),
//! registered below.

mod artifact_list;
mod diff_position;
mod download_link;
mod line_comment;
pub mod lockdown;
mod paging;
mod raw_upload;
mod review_context;
mod upload;

use std::future::Future;
use std::pin::Pin;

use crate::catalog::{ActionSpec, RestRoute};
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

pub type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// One way of carrying out a REST action. Each step has the catalog's
/// behaviour by default; a handler overrides the steps it changes.
pub trait Handler: Sync {
    /// The request; `Err` is a problem found before anything is sent (such
    /// as content that is not valid base64), worded for the model.
    fn request(&self, call: &ValidatedCall, route: &RestRoute) -> Result<HttpRequest, String> {
        Ok(request::build(call, route))
    }

    /// A successful answer as the model reads it.
    fn answer(
        &self,
        call: &ValidatedCall,
        response: &Response,
        options: render::Options,
    ) -> Output {
        render::success(call, response, options)
    }

    /// The whole action: by default one request and its answer. A handler
    /// that needs several requests overrides this.
    fn run<'a>(
        &'a self,
        call: &'a ValidatedCall,
        route: &'a RestRoute,
        gitlab: &'a Gitlab<'a>,
    ) -> BoxFuture<'a, Output> {
        Box::pin(async move {
            let request = match self.request(call, route) {
                Ok(request) => request,
                Err(problem) => {
                    return Output::error(format!(
                        "{} {}: {problem}",
                        call.tool.name, call.action.name
                    ));
                }
            };
            tracing::debug!(tool = call.tool.name, action = call.action.name, method = request.method.as_str(), path = %request.path, "request");
            if let Some(max_items) = call.view.max_items {
                return paging::follow(self, call, request, max_items, gitlab).await;
            }
            // Progress only once the request is slow: rmcp's client asks
            // for progress on every call, and two notifications per fast
            // call cost a third of the throughput (BENCHMARKS.md). Without
            // a progress token no timer is armed: each new timer wakes
            // tokio's driver once more.
            let send = gitlab.send(&request);
            tokio::pin!(send);
            let (sent, reported) = if gitlab.progress.is_none() {
                (send.await, false)
            } else {
                tokio::select! {
                    sent = &mut send => (sent, false),
                    () = tokio::time::sleep(SLOW_REQUEST) => {
                        gitlab.progress(0.0, Some(1.0), "sent to GitLab, waiting for its answer");
                        (send.await, true)
                    }
                }
            };
            let output = match sent {
                Ok(response) => self.answer(call, &response, gitlab.render),
                Err(failed) => gitlab.failure(call, &failed),
            };
            if reported {
                gitlab.progress(1.0, Some(1.0), "answered");
            }
            output
        })
    }
}

/// How long a single request runs before its call reports progress.
pub const SLOW_REQUEST: std::time::Duration = std::time::Duration::from_millis(300);

/// The catalog's behaviour, for every action without a handler.
pub struct Plain;

impl Handler for Plain {}

static REGISTRY: &[(&str, &dyn Handler)] = &[
    ("artifact_list", &artifact_list::ArtifactList),
    ("download_link", &download_link::DownloadLink),
    ("line_comment", &line_comment::LineComment),
    ("raw_upload", &raw_upload::RawUpload),
    ("review_context", &review_context::ReviewContext),
    ("upload", &upload::Upload),
];

/// The handler that carries out `action`.
pub fn for_action(action: &ActionSpec) -> &'static dyn Handler {
    let Some(name) = action.handler else {
        return &Plain;
    };
    REGISTRY
        .iter()
        .find(|(n, _)| *n == name)
        .map(|(_, handler)| *handler)
        .unwrap_or_else(|| panic!("handler `{name}` is not registered in handlers/mod.rs"))
}

#[cfg(test)]
mod tests {
    #[test]
    fn every_handler_the_catalog_names_is_registered() {
        for tool in crate::catalog::tools() {
            for action in tool.actions {
                if let Some(name) = action.handler {
                    assert!(
                        super::REGISTRY.iter().any(|(n, _)| *n == name),
                        "{}.{}: handler `{name}`",
                        tool.name,
                        action.name
                    );
                }
            }
        }
    }
}

//! Waiting for GitLab: read a state again and again until a closure says
//! it is final, for the actions that wait (`gitlab_merge_request
//! wait_merge`, `gitlab_pipeline wait`). Generic and self-contained: it
//! knows nothing of what is read, only the rules every wait follows.
//!
//! - **Backoff.** The second read comes `Schedule::first` after the first,
//!   then each wait doubles, up to `Schedule::max`, so a state that
//!   changes soon is seen soon and a long wait costs GitLab little.
//! - **`Retry-After`.** A read GitLab refused for now (429, 502, 503, 504,
//!   or a network failure, after the client's own retries) does not end
//!   the wait: the next read comes no sooner than GitLab's `Retry-After`
//!   (or `RateLimit-Reset`) says. Any other failure ends it.
//! - **Progress.** After each read, one progress report: the seconds
//!   waited of the timeout, and the closure's line (its status, how far it
//!   got). `Gitlab::progress` sends nothing when the client gave no token.
//! - **Timeout.** The last read is at the deadline; then the wait ends with
//!   the last line, and `timed_out` answers it as a result, not an error,
//!   with the same call to go on waiting.
//! - **Cancellation.** Nothing to do here: a client's
//!   `notifications/cancelled` drops the call's future (`mcp/`), and with
//!   it this loop, between two reads or during one.

use std::future::Future;
use std::time::Duration;

use serde_json::{Map, Value};
use tokio::time::Instant;

use crate::dispatch::ValidatedCall;
use crate::gitlab::{Failed, GitLabError};
use crate::render::{Output, untrusted};

/// What one read of the state says.
#[derive(Debug, Clone, PartialEq)]
pub enum Check<T> {
    /// The state is final: the wait is over.
    Done(T),
    /// Not yet: one line on where it stands (status, finished jobs...).
    Waiting(String),
}

/// How a wait ended.
#[derive(Debug)]
pub enum Waited<T> {
    Done(T),
    /// The time ran out; the last line a read gave.
    TimedOut {
        last: String,
    },
    /// A read failed in a way waiting does not cure.
    Failed(Failed),
}

/// When to read: `first` after the first read, doubling up to `max`, for
/// at most `timeout` in all.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Schedule {
    pub first: Duration,
    pub max: Duration,
    pub timeout: Duration,
}

impl Schedule {
    /// The waits' schedule: reads at 0, 1, 3, 7, 15 s, then every 15 s.
    pub fn new(timeout: Duration) -> Self {
        Schedule {
            first: Duration::from_secs(1),
            max: Duration::from_secs(15),
            timeout,
        }
    }

    /// From a call's `timeout_seconds` (the catalog bounds it), or `default`.
    pub fn for_call(call: &ValidatedCall, default: Duration) -> Self {
        let timeout = call
            .arg("timeout_seconds")
            .and_then(Value::as_u64)
            .map_or(default, Duration::from_secs);
        Schedule::new(timeout)
    }
}

/// Read with `read` until it says `Done`, the time runs out, or a read
/// fails for good. `report(done, total, line)` hears of each read: the
/// seconds waited of the timeout's.
pub async fn until<T, F, Fut>(
    schedule: Schedule,
    report: impl Fn(f64, Option<f64>, &str),
    mut read: F,
) -> Waited<T>
where
    F: FnMut() -> Fut,
    Fut: Future<Output = Result<Check<T>, Failed>>,
{
    let started = Instant::now();
    let deadline = started + schedule.timeout;
    let total = Some(schedule.timeout.as_secs_f64());
    let mut delay = schedule.first;
    let mut last = String::new();
    loop {
        let mut wait = delay;
        match read().await {
            Ok(Check::Done(state)) => return Waited::Done(state),
            Ok(Check::Waiting(line)) => {
                report(started.elapsed().as_secs_f64(), total, &line);
                last = line;
            }
            Err(failed) => {
                let Some(retry_after) = passing(&failed.error) else {
                    return Waited::Failed(failed);
                };
                wait = wait.max(retry_after.unwrap_or_default());
                let line = format!("{}; reading again", failed.error);
                report(started.elapsed().as_secs_f64(), total, &line);
                if last.is_empty() {
                    last = line;
                }
            }
        }
        let now = Instant::now();
        if now >= deadline {
            return Waited::TimedOut { last };
        }
        tokio::time::sleep(wait.min(deadline - now)).await;
        delay = delay.saturating_mul(2).min(schedule.max);
    }
}

/// Whether waiting may cure this failure (GitLab busy, or out of reach),
/// and how long GitLab asked to wait first.
fn passing(error: &GitLabError) -> Option<Option<Duration>> {
    match error {
        GitLabError::Status(status) if matches!(status.status, 429 | 502 | 503 | 504) => {
            Some(status.retry_after)
        }
        GitLabError::Network { .. } => Some(None),
        _ => None,
    }
}

/// The answer when the time ran out: a result, not an error (nothing
/// failed), with GitLab's last status framed and the very call that goes
/// on waiting.
pub fn timed_out(call: &ValidatedCall, schedule: Schedule, last: &str) -> Output {
    let params: Map<String, Value> = call
        .args
        .iter()
        .map(|a| (a.spec.name.to_string(), a.value.clone()))
        .collect();
    let again = serde_json::json!({"action": call.action.name, "params": params});
    Output::ok(format!(
        "Still waiting after {} s; the last status:\n{}\n[to go on waiting, call {} again with {again}]",
        schedule.timeout.as_secs(),
        untrusted::frame(last),
        call.tool.name,
    ))
}

#[cfg(test)]
mod tests;

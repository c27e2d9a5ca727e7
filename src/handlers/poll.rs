//! Waiting for something in GitLab to finish, by reading it again and
//! again: a generic loop for any action that waits (a pipeline, a merge).
//!
//! The caller gives a read (a closure: one look at the thing, saying
//! whether it is done, a line on how it stands, and what it read), a time
//! limit and a schedule. The loop reads at once, then after growing
//! intervals (2 s, ×1.5, at most 30 s by default), and reports each line
//! as progress (elapsed seconds of the limit, which only grows, as MCP
//! wants). A read GitLab throttles or cannot serve for now (429, 502,
//! 503, 504, after the client's own retries) is not the end: the next
//! read waits at least its `Retry-After`. Any other failure ends the wait.
//! At the limit, one last read, then the last thing read is the answer.
//!
//! Cancelling is dropping the future (rmcp does on `notifications/cancelled`):
//! the loop holds nothing that needs closing, and no read starts after.
//! The clock is tokio's, so tests run it paused.

use std::time::Duration;

use tokio::time::Instant;

use crate::gitlab::{Failed, GitLabError};

/// How long to wait between reads.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Schedule {
    pub first: Duration,
    pub factor: f64,
    pub most: Duration,
}

impl Default for Schedule {
    fn default() -> Self {
        Schedule {
            first: Duration::from_secs(2),
            factor: 1.5,
            most: Duration::from_secs(30),
        }
    }
}

/// One look at what is awaited.
#[derive(Debug)]
pub struct Reading<T> {
    pub done: bool,
    /// How it stands, in a few words (a progress notification's message).
    pub line: String,
    pub value: T,
}

/// How the wait ended.
#[derive(Debug)]
pub enum Waited<T> {
    Done {
        value: T,
        reads: u32,
        after: Duration,
    },
    /// The limit came first: the last thing read (none when every read
    /// was throttled).
    TimedOut {
        last: Option<T>,
        reads: u32,
        after: Duration,
    },
    Failed(Failed),
}

/// Read until done or `limit`; `progress(elapsed, limit, line)` after each
/// successful read.
pub async fn until_done<T, F, Fut>(
    limit: Duration,
    schedule: Schedule,
    progress: impl Fn(f64, f64, &str),
    mut read: F,
) -> Waited<T>
where
    F: FnMut() -> Fut,
    Fut: Future<Output = Result<Reading<T>, Failed>>,
{
    let start = Instant::now();
    let deadline = start + limit;
    let mut interval = schedule.first;
    let mut reads = 0;
    let mut last = None;
    loop {
        reads += 1;
        let wait = match read().await {
            Ok(reading) => {
                progress(
                    start.elapsed().as_secs_f64(),
                    limit.as_secs_f64(),
                    &reading.line,
                );
                if reading.done {
                    return Waited::Done {
                        value: reading.value,
                        reads,
                        after: start.elapsed(),
                    };
                }
                last = Some(reading.value);
                interval
            }
            Err(failed) => match throttled(&failed) {
                Some(retry_after) => interval.max(retry_after),
                None => return Waited::Failed(failed),
            },
        };
        let now = Instant::now();
        if now >= deadline {
            return Waited::TimedOut {
                last,
                reads,
                after: now - start,
            };
        }
        tokio::time::sleep_until((now + wait).min(deadline)).await;
        interval = interval.mul_f64(schedule.factor).min(schedule.most);
    }
}

/// A failure worth waiting out: GitLab throttling or briefly unable to
/// answer, with how long it asked to wait.
fn throttled(failed: &Failed) -> Option<Duration> {
    match &failed.error {
        GitLabError::Status(status) if matches!(status.status, 429 | 502 | 503 | 504) => {
            Some(status.retry_after.unwrap_or_default())
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use std::sync::{Arc, Mutex};

    use super::*;
    use crate::gitlab::StatusError;

    /// When each read happened (seconds after the start), and a read that
    /// answers `answers` in turn (`Err(status, retry_after)` for a failure),
    /// then done.
    /// One read's result, at once.
    type Read = std::future::Ready<Result<Reading<usize>, Failed>>;

    fn reader(
        answers: Vec<Result<bool, (u16, Option<u64>)>>,
    ) -> (Arc<Mutex<Vec<f64>>>, impl FnMut() -> Read) {
        let times = Arc::new(Mutex::new(Vec::new()));
        let start = Instant::now();
        let seen = times.clone();
        let read = move || {
            let mut seen = seen.lock().unwrap();
            seen.push((Instant::now() - start).as_secs_f64());
            let n = seen.len();
            let answer = answers.get(n - 1).cloned().unwrap_or(Ok(true));
            std::future::ready(match answer {
                Ok(done) => Ok(Reading {
                    done,
                    line: format!("read {n}"),
                    value: n,
                }),
                Err((status, retry_after)) => Err(Failed {
                    error: GitLabError::Status(StatusError::from_parts(
                        status,
                        b"Retry later",
                        None,
                        retry_after.map(Duration::from_secs),
                    )),
                    attempts: 1,
                }),
            })
        };
        (times, read)
    }

    fn no_progress(_: f64, _: f64, _: &str) {}

    #[tokio::test(start_paused = true)]
    async fn reads_back_off_until_done_and_report_each_read() {
        let (times, read) = reader(vec![Ok(false), Ok(false), Ok(false), Ok(true)]);
        let reports = Mutex::new(Vec::new());
        let waited = until_done(
            Duration::from_secs(300),
            Schedule::default(),
            |done, total, line| {
                reports
                    .lock()
                    .unwrap()
                    .push((done, total, line.to_string()))
            },
            read,
        )
        .await;
        assert!(
            matches!(
                waited,
                Waited::Done {
                    value: 4,
                    reads: 4,
                    ..
                }
            ),
            "{waited:?}"
        );
        assert_eq!(*times.lock().unwrap(), [0.0, 2.0, 5.0, 9.5]);
        let reports = reports.into_inner().unwrap();
        assert_eq!(
            reports,
            [
                (0.0, 300.0, "read 1".to_string()),
                (2.0, 300.0, "read 2".to_string()),
                (5.0, 300.0, "read 3".to_string()),
                (9.5, 300.0, "read 4".to_string()),
            ]
        );
    }

    #[tokio::test(start_paused = true)]
    async fn the_interval_stops_growing_at_its_most() {
        let (times, read) = reader(vec![Ok(false); 12]);
        until_done(
            Duration::from_secs(600),
            Schedule::default(),
            no_progress,
            read,
        )
        .await;
        let times = times.lock().unwrap();
        let gaps: Vec<f64> = times.windows(2).map(|w| w[1] - w[0]).collect();
        assert_eq!(gaps.iter().cloned().fold(0.0, f64::max), 30.0, "{gaps:?}");
    }

    #[tokio::test(start_paused = true)]
    async fn at_the_limit_the_last_reading_is_the_answer() {
        let (times, read) = reader(vec![Ok(false); 10]);
        let waited = until_done(
            Duration::from_secs(10),
            Schedule::default(),
            no_progress,
            read,
        )
        .await;
        // 0, 2, 5, 9.5, then one last read at the limit.
        assert_eq!(*times.lock().unwrap(), [0.0, 2.0, 5.0, 9.5, 10.0]);
        match waited {
            Waited::TimedOut { last, reads, after } => {
                assert_eq!((last, reads, after), (Some(5), 5, Duration::from_secs(10)));
            }
            other => panic!("{other:?}"),
        }
    }

    #[tokio::test(start_paused = true)]
    async fn a_throttled_read_waits_its_retry_after() {
        let (times, read) = reader(vec![
            Ok(false),
            Err((429, Some(45))),
            Err((503, None)),
            Ok(true),
        ]);
        let waited = until_done(
            Duration::from_secs(300),
            Schedule::default(),
            no_progress,
            read,
        )
        .await;
        assert!(
            matches!(waited, Waited::Done { reads: 4, .. }),
            "{waited:?}"
        );
        // 2 s, then Retry-After's 45 s rather than 3 s, then the schedule's 4.5 s.
        assert_eq!(*times.lock().unwrap(), [0.0, 2.0, 47.0, 51.5]);
    }

    #[tokio::test(start_paused = true)]
    async fn any_other_failure_ends_the_wait() {
        let (times, read) = reader(vec![Ok(false), Err((404, None))]);
        let waited = until_done(
            Duration::from_secs(300),
            Schedule::default(),
            no_progress,
            read,
        )
        .await;
        let Waited::Failed(failed) = waited else {
            panic!("{waited:?}")
        };
        assert!(matches!(failed.error, GitLabError::Status(ref s) if s.status == 404));
        assert_eq!(times.lock().unwrap().len(), 2);
    }

    #[tokio::test(start_paused = true)]
    async fn a_dropped_wait_reads_no_more() {
        let (times, read) = reader(vec![Ok(false); 100]);
        let wait = until_done(
            Duration::from_secs(600),
            Schedule::default(),
            no_progress,
            read,
        );
        assert!(
            tokio::time::timeout(Duration::from_secs(6), wait)
                .await
                .is_err()
        );
        tokio::time::sleep(Duration::from_secs(300)).await;
        assert_eq!(*times.lock().unwrap(), [0.0, 2.0, 5.0]);
    }
}

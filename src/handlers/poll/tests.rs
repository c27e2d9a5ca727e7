//! The waiting rules on a scripted state, at a millisecond scale: when
//! each read comes, what is reported, what ends the wait.

use std::cell::RefCell;
use std::time::Duration;

use tokio::time::Instant;

use super::{Check, Schedule, Waited, until};
use crate::gitlab::{Failed, GitLabError, NetworkKind, StatusError};

const MS: Duration = Duration::from_millis(1);

fn schedule(first_ms: u32, max_ms: u32, timeout_ms: u32) -> Schedule {
    Schedule {
        first: MS * first_ms,
        max: MS * max_ms,
        timeout: MS * timeout_ms,
    }
}

fn status(code: u16, retry_after: Option<Duration>) -> Failed {
    Failed {
        error: GitLabError::Status(StatusError::from_parts(code, b"{}", None, retry_after)),
        attempts: 1,
    }
}

/// Runs `until` over `script` (one answer per read, the last repeated),
/// and gives the outcome, each read's time since the start, and the
/// reported lines.
async fn run(
    schedule: Schedule,
    script: Vec<Result<Check<&'static str>, Failed>>,
) -> (Waited<&'static str>, Vec<Duration>, Vec<String>) {
    let started = Instant::now();
    let reads = RefCell::new(Vec::new());
    let reported = RefCell::new(Vec::new());
    let script = RefCell::new(
        script
            .into_iter()
            .collect::<std::collections::VecDeque<_>>(),
    );
    let waited = until(
        schedule,
        |_: f64, _: Option<f64>, line: &str| reported.borrow_mut().push(line.to_string()),
        || {
            reads.borrow_mut().push(started.elapsed());
            let mut script = script.borrow_mut();
            let next = if script.len() > 1 {
                script.pop_front().unwrap()
            } else {
                match script.front().unwrap() {
                    Ok(check) => Ok(check.clone()),
                    Err(failed) => Err(Failed {
                        error: failed.error.clone(),
                        attempts: 1,
                    }),
                }
            };
            async move { next }
        },
    )
    .await;
    (waited, reads.into_inner(), reported.into_inner())
}

/// Each read's delay after the previous one, in whole units of 30 ms (a
/// sleep may overrun by up to a unit on a busy machine).
fn gaps(reads: &[Duration]) -> Vec<u128> {
    reads
        .windows(2)
        .map(|w| (w[1] - w[0]).as_millis() / 30)
        .collect()
}

#[tokio::test]
async fn reads_back_off_doubling_up_to_the_max_until_done() {
    let script = vec![
        Ok(Check::Waiting("running, 0 of 3 jobs".into())),
        Ok(Check::Waiting("running, 1 of 3 jobs".into())),
        Ok(Check::Waiting("running, 2 of 3 jobs".into())),
        Ok(Check::Waiting("running, 2 of 3 jobs".into())),
        Ok(Check::Done("success")),
    ];
    let (waited, reads, reported) = run(schedule(30, 120, 5_000), script).await;
    assert!(matches!(waited, Waited::Done("success")), "{waited:?}");
    assert_eq!(gaps(&reads), [1, 2, 4, 4]);
    assert_eq!(
        reported,
        [
            "running, 0 of 3 jobs",
            "running, 1 of 3 jobs",
            "running, 2 of 3 jobs",
            "running, 2 of 3 jobs"
        ]
    );
}

#[tokio::test]
async fn the_time_running_out_ends_with_the_last_line_after_a_read_at_the_deadline() {
    let (waited, reads, _) = run(
        schedule(60, 60, 150),
        vec![Ok(Check::Waiting("pending".into()))],
    )
    .await;
    let Waited::TimedOut { last } = waited else {
        panic!("{waited:?}")
    };
    assert_eq!(last, "pending");
    // Reads at 0, 60, 120, and the last one at the deadline (150), not later.
    let last_read = *reads.last().unwrap();
    assert!(last_read >= MS * 150, "{reads:?}");
    assert!(reads[reads.len() - 2] < MS * 150, "{reads:?}");
}

#[tokio::test]
async fn a_busy_gitlab_is_waited_for_as_long_as_retry_after_says() {
    let script = vec![
        Ok(Check::Waiting("running".into())),
        Err(status(429, Some(MS * 240))),
        Ok(Check::Done("success")),
    ];
    let (waited, reads, reported) = run(schedule(30, 120, 5_000), script).await;
    assert!(matches!(waited, Waited::Done("success")), "{waited:?}");
    assert_eq!(gaps(&reads), [1, 8], "the second wait is Retry-After's");
    assert_eq!(reported, ["running", "GitLab answered 429; reading again"]);
}

#[tokio::test]
async fn a_network_failure_is_waited_through_and_a_404_ends_the_wait() {
    let network = Failed {
        error: GitLabError::Network {
            kind: NetworkKind::Refused,
            host: "gitlab.example.com".into(),
        },
        attempts: 3,
    };
    let script = vec![Err(network), Ok(Check::Done("merged"))];
    let (waited, _, _) = run(schedule(1, 1, 5_000), script).await;
    assert!(matches!(waited, Waited::Done("merged")), "{waited:?}");

    let (waited, reads, reported) = run(
        schedule(1, 1, 5_000),
        vec![Ok(Check::Waiting("open".into())), Err(status(404, None))],
    )
    .await;
    let Waited::Failed(failed) = waited else {
        panic!("{waited:?}")
    };
    assert!(matches!(failed.error, GitLabError::Status(ref s) if s.status == 404));
    assert_eq!((reads.len(), reported.len()), (2, 1));
}

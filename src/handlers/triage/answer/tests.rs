//! The budget's division, on made-up pipelines.

use super::*;
use crate::handlers::triage::jobs::Downstream;
use crate::handlers::triage::test_cases::FailedCase;
use crate::render::log_scan::scan;

fn pipeline(id: u64) -> Pipeline {
    Pipeline {
        id,
        project: "/projects/2".into(),
        status: "failed".into(),
        git_ref: "main".into(),
        sha: "5d3c1f2a9b8c7d6e5f4a3b2c1d0e9f8a7b6c5d4e".into(),
        web_url: format!("https://gitlab.example/acme/website/-/pipelines/{id}"),
    }
}

fn job(id: u64, allow_failure: bool) -> FailedJob {
    FailedJob {
        id,
        name: format!("job-{id}"),
        stage: "test".into(),
        failure_reason: Some("script_failure".into()),
        allow_failure,
        pipeline: 2001,
        project: "/projects/2".into(),
        depth: 0,
        trigger: false,
    }
}

fn jobs(n: u64) -> Jobs {
    Jobs {
        failed: (1..=n).map(|id| job(id, false)).collect(),
        manual: 1,
        skipped: 2,
        ..Jobs::default()
    }
}

/// A log with a compiler error after 500 lines, one per job.
fn excerpt(id: u64) -> Excerpt {
    let mut log: String = (0..500)
        .map(|i| format!("   Compiling crate_{i} v1.0.{i}\n"))
        .collect();
    log.push_str(&format!("error[E0432]: unresolved import `shop::job_{id}`\n --> src/job_{id}.rs:3:5\n  |\n3 | use shop::job_{id};\n  |     ^^^^^^^^^^ no `job_{id}` in `shop`\n"));
    log.push_str(&"   Finished nothing\n".repeat(20));
    scan(&log, Limits::default())
}

fn tests_failed(n: usize) -> Tests {
    Tests::Counted {
        total: 120,
        failed: n as u64,
        cases: (0..n)
            .map(|i| FailedCase {
                name: format!("orders::tests::case_{i}"),
                classname: "orders::tests".into(),
                suite: "unit".into(),
                output: "thread 'x' panicked at src/orders.rs:88:9:\nassertion `left == right` failed\n  left: 1\n right: 2".into(),
            })
            .collect(),
    }
}

/// The plan and the answer for `n` failed jobs within `cap`.
fn answer(jobs: &Jobs, tests: &Tests, cap: usize) -> (Plan, String) {
    let p = pipeline(2001);
    let triage = Triage {
        pipeline: &p,
        jobs,
        tests,
    };
    let plan = plan(&triage, cap);
    let logs: Vec<Result<Excerpt, String>> = plan
        .read
        .iter()
        .map(|&i| Ok(excerpt(jobs.failed[i].id)))
        .collect();
    let text = write(&triage, &plan, &logs, cap);
    (plan, text)
}

#[test]
fn two_failed_jobs_share_the_room_and_both_are_read() {
    let (plan, text) = answer(&jobs(2), &tests_failed(1), 4096);
    assert_eq!(plan.read, [0, 1]);
    assert!(plan.share > 1000, "{}", plan.share);
    assert!(text.len() <= 4096, "{}", text.len());
    for id in [1, 2] {
        assert!(
            text.contains(&format!(
                "| error[E0432]: unresolved import `shop::job_{id}`"
            )),
            "{text}"
        );
        assert!(
            text.contains(&format!("|  --> src/job_{id}.rs:3:5")),
            "{text}"
        );
    }
    assert!(text.contains("Failed tests: 1 of 120\n- orders::tests::case_0 (orders::tests, suite unit): thread 'x' panicked at src/orders.rs:88:9: · assertion `left == right` failed"), "{text}");
    assert!(text.starts_with("⟦\nPipeline 2001: failed · ref main · sha 5d3c1f2a · https://gitlab.example/acme/website/-/pipelines/2001\nFailed jobs: 2 · manual: 1 · skipped: 2\n"), "{text}");
    assert!(
        text.ends_with('⟧'),
        "no note when every log was read: {text}"
    );
}

#[test]
fn many_failed_jobs_get_equal_shares_and_the_others_a_call_each() {
    let jobs = jobs(12);
    let (plan, text) = answer(&jobs, &tests_failed(3), 4096);
    assert!(text.len() <= 4096, "{}", text.len());
    assert!(!plan.read.is_empty() && plan.read.len() <= MAX_LOGS);
    assert!(plan.share >= MIN_SHARE);
    assert_eq!(plan.read.len() + plan.unread.len(), plan.headed);
    // Every headed job is named; those not read get the call that reads them.
    for (i, job) in jobs.failed.iter().enumerate().take(plan.headed) {
        assert!(
            text.contains(&format!("Job {} `{}`", job.id, job.name)),
            "{text}"
        );
        let call = format!(
            "{{\"action\":\"job_log\",\"params\":{{\"project_id\":2,\"job_id\":{}}}}}",
            job.id
        );
        assert_eq!(
            text.contains(&call),
            plan.unread.contains(&i),
            "{call} in {text}"
        );
    }
    if plan.headed < jobs.failed.len() {
        assert!(
            text.contains(&format!(
                "… and {} more failed jobs",
                jobs.failed.len() - plan.headed
            )),
            "{text}"
        );
    }
    // The calls are the server's words, after the frame.
    let after_frame = &text[text.rfind('⟧').unwrap()..];
    assert_eq!(
        after_frame.matches("\"action\":\"job_log\"").count(),
        plan.unread.len()
    );
}

#[test]
fn a_smaller_budget_reads_fewer_logs_and_stays_within_it() {
    let jobs = jobs(5);
    let mut read = Vec::new();
    for cap in [1024, 2048, 4096, 16_384] {
        let (plan, text) = answer(&jobs, &tests_failed(2), cap);
        assert!(text.len() <= cap, "{cap}: {}", text.len());
        read.push(plan.read.len());
    }
    assert!(read.windows(2).all(|w| w[0] <= w[1]), "{read:?}");
    assert_eq!(read.last(), Some(&5));
    assert!(read[0] < 5, "{read:?}");
}

#[test]
fn jobs_allowed_to_fail_come_after_those_that_must_pass() {
    let mut jobs = jobs(0);
    jobs.failed = vec![job(1, false), job(2, true), job(3, false)];
    jobs.failed
        .sort_by_key(|j| (j.allow_failure, j.depth, j.pipeline, j.id));
    let (_, text) = answer(&jobs, &Tests::None, 4096);
    let at = |id| text.find(&format!("Job {id} ")).unwrap();
    assert!(at(1) < at(3) && at(3) < at(2), "{text}");
    assert!(
        text.contains("Failed jobs: 3 (1 allowed to fail)"),
        "{text}"
    );
    assert!(
        text.contains("Job 2 `job-2` · stage test · script_failure · allowed to fail\n"),
        "{text}"
    );
}

#[test]
fn downstream_pipelines_and_what_was_not_read_are_said() {
    let mut jobs = jobs(1);
    jobs.failed[0].depth = 1;
    jobs.failed[0].pipeline = 2002;
    jobs.downstream.push(Downstream {
        trigger: "integration".into(),
        pipeline: pipeline(2002),
    });
    jobs.unread
        .push("the jobs of pipeline 2009: 403 Forbidden".into());
    let (_, text) = answer(&jobs, &Tests::Unread("404 Not Found".into()), 4096);
    for line in [
        "Child pipeline 2002 from trigger job `integration`: failed\n",
        "Not read: the jobs of pipeline 2009: 403 Forbidden\n",
        "Job 1 `job-1` · stage test · script_failure · pipeline 2002\n",
        "Test report not read: 404 Not Found\n",
    ] {
        assert!(text.contains(line), "{line:?} in {text}");
    }
}

#[test]
fn the_tests_take_at_most_a_quarter() {
    let (plan, _) = answer(&jobs(1), &tests_failed(20), 4096);
    assert!(plan.tests.len() <= 1024, "{}", plan.tests.len());
    assert!(
        plan.tests.contains("more: action `test_report` has them."),
        "{}",
        plan.tests
    );
}

#[test]
fn hidden_characters_cannot_push_the_answer_past_its_budget() {
    let mut jobs = jobs(1);
    jobs.failed[0].name = "\u{200B}".repeat(200);
    let (_, text) = answer(&jobs, &Tests::None, 2048);
    assert!(text.len() <= 2048, "{}", text.len());
    assert!(text.contains("[U+200B]") && text.ends_with('⟧'), "{text}");
}

#[test]
fn the_notes_of_logs_not_read_never_crowd_the_headings_out() {
    for cap in [1024, 1536, 2048, 3072, 4096] {
        for n in 1..=40 {
            let jobs = jobs(n);
            let (plan, text) = answer(&jobs, &tests_failed(2), cap);
            assert!(text.len() <= cap, "{cap}, {n} jobs: {}", text.len());
            assert!(plan.headed > 0, "{cap}, {n} jobs: no job named");
            assert!(!plan.read.is_empty(), "{cap}, {n} jobs: no log read");
            // Each named job's heading is whole, and each unread one has
            // its call after the frame: nothing was cut to make room.
            for job in &jobs.failed[..plan.headed] {
                let heading = format!(
                    "Job {} `{}` · stage test · script_failure\n",
                    job.id, job.name
                );
                assert!(text.contains(&heading), "{cap}, {n} jobs: {text}");
            }
            let after_frame = &text[text.rfind('⟧').unwrap()..];
            assert_eq!(
                after_frame.matches("\"action\":\"job_log\"").count(),
                plan.unread.len(),
                "{cap}, {n} jobs: {text}"
            );
        }
    }
}

#[test]
fn a_header_larger_than_the_budget_is_cut_not_a_panic() {
    let mut jobs = jobs(3);
    for id in 0..9 {
        jobs.downstream.push(Downstream {
            trigger: format!("deploy-{id}-{}", "x".repeat(200)),
            pipeline: pipeline(3000 + id),
        });
    }
    let (plan, text) = answer(&jobs, &Tests::None, 1024);
    assert_eq!((plan.headed, plan.read.len()), (0, 0));
    assert!(text.len() <= 1024, "{}", text.len());
    assert!(text.starts_with("⟦\nPipeline 2001: failed"), "{text}");
    assert!(text.ends_with('⟧'), "{text}");
}

//! The test seed's pipelines in `acme/website` (project 2), for the CI
//! workflows (triage, waiting):
//!
//! - 2001 on `main`, failed, with a test report (suite `unit`: one failed
//!   case, `orders::tests::refund_rounds_half_even`). Jobs: 201 `build`
//!   (success); 202 `unit` (failed and retried: GitLab lists it only with
//!   `include_retried`); 203 `unit` (the retry, failed: a `cargo test` log
//!   with the panic in the middle); 204 `clippy` (failed: `error[E0432]`
//!   and its `--> src/checkout.rs:3:5` after 1,200 lines, then 4,000 lines
//!   of service logs); 205 `docs` (failed, allowed to fail); 207 `deploy`
//!   (manual); 208 `pages` (skipped); trigger job 206 `integration`
//!   (failed) started child pipeline 2002.
//! - 2002, the child (`parent_pipeline`), failed: 209 `integration-db`
//!   (a Python traceback mid-log), 210 `integration-api` (success).
//! - 2003 on `feature/cache`, running: 211 `build` (running), 212 `test`
//!   (pending); it finishes with `success` on its third read.

use crate::db::{Bridge, Finish, Job, JobLog, Pipeline, Project, TestCase, TestSuite, sha};
use crate::traces::{Story, Trace};

/// The seeded failed pipeline's clippy log: where its error is, for tests.
pub fn clippy_trace() -> Trace {
    Trace::new(Story::RustCompile, 1_200, 4_000)
}

pub fn seed(p: &mut Project) {
    let commit = p.commits[0].id.clone();
    for (id, iid, status, git_ref, source, at, finish) in [
        (
            2001u64,
            1u64,
            "failed",
            "main",
            "push",
            "2026-03-02T09:40:00.000Z",
            None,
        ),
        (
            2002,
            2,
            "failed",
            "main",
            "parent_pipeline",
            "2026-03-02T09:46:00.000Z",
            None,
        ),
        (
            2003,
            3,
            "running",
            "feature/cache",
            "push",
            "2026-03-02T10:10:00.000Z",
            Some(Finish {
                reads: 3,
                then: "success".into(),
            }),
        ),
    ] {
        p.pipelines.push(Pipeline {
            id,
            iid,
            status: status.into(),
            git_ref: git_ref.into(),
            sha: if id == 2003 { sha(203) } else { commit.clone() },
            source: source.into(),
            user_id: 1,
            created_at: at.into(),
            updated_at: at.into(),
            test_suites: if id == 2001 {
                test_suites()
            } else {
                Vec::new()
            },
            finish,
        });
    }
    let runner = |story, before, after| JobLog::Runner(Trace::new(story, before, after));
    let jobs = [
        (
            201u64,
            "build",
            "build",
            "success",
            2001u64,
            JobLog::Text("$ cargo build\nJob succeeded\n".into()),
        ),
        (
            202,
            "unit",
            "test",
            "failed",
            2001,
            runner(Story::RustTest, 2_400, 1_500),
        ),
        (
            203,
            "unit",
            "test",
            "failed",
            2001,
            runner(Story::RustTest, 2_400, 1_500),
        ),
        (
            204,
            "clippy",
            "test",
            "failed",
            2001,
            JobLog::Runner(clippy_trace()),
        ),
        (
            205,
            "docs",
            "test",
            "failed",
            2001,
            runner(Story::NodeError, 600, 300),
        ),
        (207, "deploy", "deploy", "manual", 2001, JobLog::default()),
        (208, "pages", "deploy", "skipped", 2001, JobLog::default()),
        (
            209,
            "integration-db",
            "test",
            "failed",
            2002,
            runner(Story::PythonTraceback, 800, 2_500),
        ),
        (
            210,
            "integration-api",
            "test",
            "success",
            2002,
            JobLog::Text("$ pytest tests/api\n12 passed\nJob succeeded\n".into()),
        ),
        (211, "build", "build", "running", 2003, JobLog::default()),
        (212, "test", "test", "pending", 2003, JobLog::default()),
    ];
    for (id, name, stage, status, pipeline_id, log) in jobs {
        let pipeline = p.pipelines.iter().find(|x| x.id == pipeline_id).unwrap();
        let job = Job {
            retried: id == 202,
            allow_failure: id == 205,
            ..Job::of(pipeline, id, name, stage, status, log)
        };
        p.jobs.push(job);
    }
    p.bridges.push(Bridge {
        id: 206,
        name: "integration".into(),
        stage: "test".into(),
        status: "failed".into(),
        pipeline_id: 2001,
        downstream: Some((p.id, 2002)),
        allow_failure: false,
        failure_reason: None,
    });
}

fn test_suites() -> Vec<TestSuite> {
    let case = |status: &str, name: &str, output: Option<&str>| TestCase {
        status: status.into(),
        name: name.into(),
        classname: "orders::tests".into(),
        file: Some("src/orders.rs".into()),
        execution_time: 0.002,
        system_output: output.map(str::to_string),
        stack_trace: None,
    };
    vec![
        TestSuite {
            name: "unit".into(),
            cases: vec![
                case("success", "orders::tests::refund_whole", None),
                case(
                    "failed",
                    "orders::tests::refund_rounds_half_even",
                    Some(
                        "thread 'orders::tests::refund_rounds_half_even' panicked at src/orders.rs:88:9:\nassertion `left == right` failed\n  left: 1049\n right: 1050\nnote: run with `RUST_BACKTRACE=1` environment variable to display a backtrace",
                    ),
                ),
                case("success", "orders::tests::refund_partial", None),
            ],
        },
        TestSuite {
            name: "doc-tests".into(),
            cases: vec![case("success", "src/lib.rs - Cart (line 12)", None)],
        },
    ]
}

//! The sandbox's failed release pipeline, 4104 on `release/1.3`: `build`
//! (job 8811) passed, `test` (job 8812) failed in the middle of a Jest run
//! of 19 suites. With at most 20 suites Jest prints no summary of the
//! failures at the end (its `summaryThreshold`), so the failing test's
//! details sit some 1,500 lines into a 2,800-line log whose tail only
//! counts one failure: what `triage` is for, and the demo's third step.
//! Its test report has the failed case, as jest-junit writes it.

use super::{CASES, SUITES, build_log, ending, preamble, suite_cases};
use crate::db::{Job, JobLog, Pipeline, Project, TestCase, TestSuite};

/// The suite that fails (`test/orders/refunds.test.ts`), its group, its case.
const FAILING_SUITE: usize = 10;
const FAILING_GROUP: usize = 2;
const FAILING_CASE: &str = "refunds the shipping when the whole order is returned";

pub(super) fn seed(p: &mut Project) {
    let sha = p
        .branches
        .iter()
        .find(|b| b.name == "release/1.3")
        .expect("the release branch")
        .commit_sha
        .clone();
    p.pipelines.push(Pipeline {
        id: 4104,
        iid: 44,
        status: "failed".into(),
        git_ref: "release/1.3".into(),
        sha: sha.clone(),
        source: "push".into(),
        user_id: 2,
        created_at: "2026-03-02T12:05:00.000Z".into(),
        updated_at: "2026-03-02T12:11:00.000Z".into(),
        test_suites: test_suites(),
        finish: None,
    });
    let pipeline = p.pipelines.last().expect("just pushed");
    let jobs = [
        Job::of(
            pipeline,
            8811,
            "build",
            "build",
            "success",
            JobLog::Text(build_log("release/1.3", &sha)),
        ),
        Job::of(
            pipeline,
            8812,
            "test",
            "test",
            "failed",
            JobLog::Text(test_log(&sha)),
        ),
    ];
    p.jobs.extend(jobs);
}

/// The Jest run: every suite passes but `refunds`, whose failure is told
/// as soon as the suite ends; the other suites follow.
fn test_log(sha: &str) -> String {
    let mut out = String::new();
    preamble(&mut out, "test", "release/1.3", sha);
    out.push_str("\u{1b}[32;1m$ npm test -- --ci --reporters=default --reporters=jest-junit\u{1b}[0;m\n\n> webshop@1.3.0 test\n> jest --ci --reporters=default --reporters=jest-junit\n\n");
    let mut total = 0u32;
    for (s, (file, name)) in SUITES.iter().enumerate() {
        let failing = s == FAILING_SUITE;
        let verdict = if failing {
            "\u{1b}[31m FAIL \u{1b}[39m"
        } else {
            "\u{1b}[32m PASS \u{1b}[39m"
        };
        out.push_str(&format!(
            "{verdict} {file} ({}.{:02} s)\n",
            1 + s % 3,
            (s * 37) % 100
        ));
        suite_cases(
            &mut out,
            name,
            &mut total,
            failing.then_some((FAILING_GROUP, FAILING_CASE)),
        );
        if failing {
            failure(&mut out, file, name);
        }
    }
    out.push_str(" \u{1b}[32m PASS \u{1b}[39m test/cart.test.ts\n  Cart\n    \u{1b}[32m✓\u{1b}[39m adds up the subtotal (2 ms)\n    \u{1b}[32m✓\u{1b}[39m merges lines of the same product (1 ms)\n\n");
    total += 2;
    out.push_str(&format!("\u{1b}[1mTest Suites: \u{1b}[22m\u{1b}[1m\u{1b}[31m1 failed\u{1b}[39m\u{1b}[22m, \u{1b}[1m\u{1b}[32m{} passed\u{1b}[39m\u{1b}[22m, {} total\n", SUITES.len(), SUITES.len() + 1));
    out.push_str(&format!("\u{1b}[1mTests:       \u{1b}[22m\u{1b}[1m\u{1b}[31m1 failed\u{1b}[39m\u{1b}[22m, \u{1b}[1m\u{1b}[32m{} passed\u{1b}[39m\u{1b}[22m, {total} total\n", total - 1));
    out.push_str("\u{1b}[1mSnapshots:   \u{1b}[22m0 total\n\u{1b}[1mTime:\u{1b}[22m        39.12 s\n\u{1b}[2mRan all test suites\u{1b}[22m\u{1b}[2m.\u{1b}[22m\n");
    ending(&mut out, Some(8812));
    out
}

/// Jest's report of the failed test, after its suite's list.
fn failure(out: &mut String, file: &str, name: &str) {
    out.push_str(&format!(
        "\n\u{1b}[1m\u{1b}[31m  ● {name} › case group {} › {FAILING_CASE}\u{1b}[39m\u{1b}[22m\n\n",
        FAILING_GROUP + 1
    ));
    out.push_str("    \u{1b}[2mexpect(\u{1b}[22m\u{1b}[31mreceived\u{1b}[39m\u{1b}[2m).\u{1b}[22mtoBe\u{1b}[2m(\u{1b}[22m\u{1b}[32mexpected\u{1b}[39m\u{1b}[2m) // Object.is equality\u{1b}[22m\n\n");
    out.push_str("    Expected: \u{1b}[32m495\u{1b}[39m\n    Received: \u{1b}[31m0\u{1b}[39m\n\n");
    out.push_str("    \u{1b}[0m \u{1b}[90m 41 |\u{1b}[39m     \u{1b}[36mconst\u{1b}[39m refund \u{1b}[33m=\u{1b}[39m refundFor(order\u{1b}[33m,\u{1b}[39m order\u{1b}[33m.\u{1b}[39mlines)\u{1b}[33m;\u{1b}[39m\n");
    out.push_str("     \u{1b}[90m 42 |\u{1b}[39m     expect(refund\u{1b}[33m.\u{1b}[39mitemsCents)\u{1b}[33m.\u{1b}[39mtoBe(\u{1b}[35m4800\u{1b}[39m)\u{1b}[33m;\u{1b}[39m\n");
    out.push_str("    \u{1b}[31m\u{1b}[1m>\u{1b}[22m\u{1b}[39m\u{1b}[90m 43 |\u{1b}[39m     expect(refund\u{1b}[33m.\u{1b}[39mshippingCents)\u{1b}[33m.\u{1b}[39mtoBe(\u{1b}[35m495\u{1b}[39m)\u{1b}[33m;\u{1b}[39m\n");
    out.push_str("     \u{1b}[90m    |\u{1b}[39m                                  \u{1b}[31m\u{1b}[1m^\u{1b}[22m\u{1b}[39m\n");
    out.push_str("     \u{1b}[90m 44 |\u{1b}[39m   })\u{1b}[33m;\u{1b}[39m\u{1b}[0m\n\n");
    out.push_str(&format!(
        "      \u{1b}[2mat Object.toBe (\u{1b}[22m{file}\u{1b}[2m:43:34)\u{1b}[22m\n\n"
    ));
}

/// The report GitLab parsed from jest-junit's XML: a suite per describe,
/// every case, the failed one with its message.
fn test_suites() -> Vec<TestSuite> {
    let mut suites: Vec<TestSuite> = SUITES
        .iter()
        .enumerate()
        .map(|(s, (_, name))| {
            let mut cases: Vec<TestCase> = (0..11)
                .flat_map(|group| {
                    CASES.iter().enumerate().map(move |(c, case)| TestCase {
                        status: "success".into(),
                        name: format!("{name} case group {} {case} #{}", group + 1, group * CASES.len() + c + 1),
                        classname: format!("{name} case group {} {case} #{}", group + 1, group * CASES.len() + c + 1),
                        execution_time: 0.003,
                        ..TestCase::default()
                    })
                })
                .collect();
            if s == FAILING_SUITE {
                let title = format!("{name} case group {} {FAILING_CASE}", FAILING_GROUP + 1);
                cases.push(TestCase {
                    status: "failed".into(),
                    name: title.clone(),
                    classname: title,
                    execution_time: 0.004,
                    system_output: Some("Error: expect(received).toBe(expected) // Object.is equality\n\nExpected: 495\nReceived: 0\n    at Object.toBe (test/orders/refunds.test.ts:43:34)".into()),
                    ..TestCase::default()
                });
            }
            TestSuite {
                name: name.to_string(),
                cases,
            }
        })
        .collect();
    suites.push(TestSuite {
        name: "Cart".into(),
        cases: ["adds up the subtotal", "merges lines of the same product"]
            .iter()
            .map(|case| TestCase {
                status: "success".into(),
                name: format!("Cart {case}"),
                classname: format!("Cart {case}"),
                execution_time: 0.002,
                ..TestCase::default()
            })
            .collect(),
    });
    suites
}

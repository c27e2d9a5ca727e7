//! `gitlab_pipeline triage` end to end, on the test seed's failed pipeline
//! 2001 of `acme/website` (`fake-gitlab/src/ci_seed.rs`): the error in the
//! middle of a long log found with its location line, the child
//! pipeline's failed job listed, the retried attempt left out, the failed
//! test named, no terminal escapes or section markers, 4,096 bytes at
//! most; what the fake received, and what the same work costs through the
//! single-purpose actions.

use crate::common;

use common::{Harness, Lifecycle};
use fake_gitlab::ci_seed::clippy_trace;
use fake_gitlab::db::JobLog;
use fake_gitlab::traces::{Story, Trace};
use serde_json::{Value, json};

fn triage(params: Value) -> Value {
    json!({"action": "triage", "params": params})
}

/// The requests the fake received, sorted (reads made at once arrive in
/// any order).
fn sorted_requests(h: &Harness) -> Vec<String> {
    let mut lines: Vec<String> = h.requests().iter().map(|r| r.line()).collect();
    lines.sort();
    lines
}

const P: &str = "/api/v4/projects/2";

#[tokio::test]
async fn a_failed_pipeline_is_triaged_in_one_answer() {
    let h = Harness::start(Lifecycle::Discover).await;
    let text = h
        .ok(
            "gitlab_pipeline",
            triage(json!({"project_id": "acme/website", "pipeline_id": 2001})),
        )
        .await;
    assert!(text.len() <= 4096, "{} bytes:\n{text}", text.len());
    // The compiler error in the middle of clippy's log, and its location.
    let error = clippy_trace().error_line();
    for line in [
        format!("{error:>6}| error[E0432]: unresolved import `crate::orders::Refund`\n"),
        format!("{:>6}|  --> src/checkout.rs:3:5\n", error + 1),
        format!("  compiler error at line {error}:\n"),
    ] {
        assert!(text.contains(&line), "{line:?} in:\n{text}");
    }
    // The child pipeline's failed job, the retried attempt left out.
    assert!(
        text.contains("Child pipeline 2002 from trigger job `integration`: failed\n"),
        "{text}"
    );
    assert!(
        text.contains("Job 209 `integration-db` · stage test · script_failure · pipeline 2002\n"),
        "{text}"
    );
    assert!(
        text.contains("Failed jobs: 4 (1 allowed to fail) · manual: 1 · skipped: 1\n"),
        "{text}"
    );
    assert!(text.contains("Job 203 `unit`"), "{text}");
    assert!(!text.contains("Job 202"), "the retried attempt: {text}");
    // The failed test case, and the panic in the unit job's log.
    assert!(
        text.contains("Failed tests: 1 of 4\n- orders::tests::refund_rounds_half_even (orders::tests, suite unit): thread 'orders::tests::refund_rounds_half_even' panicked at src/orders.rs:88:9:"),
        "{text}"
    );
    assert!(
        text.contains("| assertion `left == right` failed\n"),
        "{text}"
    );
    // A terminal's view: no escapes, no section markers.
    assert!(!text.contains('\x1b'), "{text}");
    assert!(
        !text.contains("section_start") && !text.contains("section_end"),
        "{text}"
    );
    assert!(
        text.starts_with("⟦\nPipeline 2001: failed · ref main · sha "),
        "{text}"
    );
    assert!(text.ends_with('⟧'), "every log had room: {text}");

    assert_eq!(
        sorted_requests(&h),
        [
            "GET /api/v4/projects/2/jobs/203/trace".to_string(),
            format!("GET {P}/jobs/204/trace"),
            format!("GET {P}/jobs/205/trace"),
            format!("GET {P}/jobs/209/trace"),
            format!("GET {P}/pipelines/2001/bridges?per_page=100"),
            format!(
                "GET {P}/pipelines/2001/jobs?scope[]=failed&scope[]=manual&scope[]=skipped&per_page=100"
            ),
            format!("GET {P}/pipelines/2001/test_report"),
            format!("GET {P}/pipelines/2001/test_report_summary"),
            format!("GET {P}/pipelines/2002/bridges?per_page=100"),
            format!(
                "GET {P}/pipelines/2002/jobs?scope[]=failed&scope[]=manual&scope[]=skipped&per_page=100"
            ),
            "GET /api/v4/projects/acme%2Fwebsite/pipelines/2001".to_string(),
        ]
    );
    h.stop().await;
}

#[tokio::test]
async fn a_long_log_is_not_downloaded_past_its_error() {
    let h = Harness::start(Lifecycle::Initialize).await;
    // Clippy's log grows to some 28 MB after its error.
    let long = Trace::new(Story::RustCompile, 1_200, 300_000);
    let long_bytes = long.text().len() as u64;
    {
        let mut db = h.fake.db();
        let job = db.projects[1]
            .jobs
            .iter_mut()
            .find(|j| j.id == 204)
            .unwrap();
        job.log = JobLog::Runner(long.clone());
    }
    let text = h
        .ok(
            "gitlab_pipeline",
            triage(json!({"project_id": 2, "pipeline_id": 2001})),
        )
        .await;
    assert!(
        text.contains(&format!("{:>6}| error[E0432]", long.error_line())),
        "{text}"
    );
    // What the four logs cost the fake: the other three are small, so most
    // of the long one was never sent.
    let sent = h.fake.trace_bytes_sent();
    assert!(
        sent < long_bytes / 2,
        "{sent} bytes sent of a {long_bytes}-byte log"
    );
    h.stop().await;
}

#[tokio::test]
async fn a_merge_request_or_a_ref_names_the_pipeline() {
    let h = Harness::start(Lifecycle::Initialize).await;
    h.fake.db().projects[0].merge_requests[0].head_pipeline_id = Some(1002);
    let text = h
        .ok(
            "gitlab_pipeline",
            triage(json!({"project_id": 1, "merge_request_iid": 1})),
        )
        .await;
    let requests: Vec<String> = h.requests().iter().map(|r| r.line()).collect();
    assert_eq!(requests[0], "GET /api/v4/projects/1/merge_requests/1");
    assert!(
        requests.contains(&"GET /api/v4/projects/1/jobs/102/trace".to_string()),
        "{requests:?}"
    );
    // Job 102's generated log has no error line but the runner's.
    assert!(text.contains("Pipeline 1002: failed"), "{text}");
    assert!(text.contains("Job 102 `test` · stage test · script_failure\n  no error line; the runner's failure line"), "{text}");
    assert!(
        text.contains("| ERROR: Job failed: exit code 101\n"),
        "{text}"
    );
    assert!(
        text.contains("| test result: FAILED. 1 failed; see orders::refund_partial\n"),
        "{text}"
    );

    h.fake.clear_requests();
    let text = h
        .ok(
            "gitlab_pipeline",
            triage(json!({"project_id": "acme/website", "ref": "main"})),
        )
        .await;
    assert_eq!(
        h.requests()[0].line(),
        "GET /api/v4/projects/acme%2Fwebsite/pipelines/latest?ref=main"
    );
    assert!(text.contains("Pipeline 2001: failed"), "{text}");

    h.fake.db().projects[0].merge_requests[0].head_pipeline_id = None;
    h.fake.clear_requests();
    let text = h
        .ok(
            "gitlab_pipeline",
            triage(json!({"project_id": 1, "merge_request_iid": 1})),
        )
        .await;
    assert_eq!(
        text,
        "Merge request !1 has no pipeline yet: nothing to triage."
    );
    assert_eq!(h.requests().len(), 1);
    h.stop().await;
}

#[tokio::test]
async fn exactly_one_way_of_naming_the_pipeline_is_taken() {
    let h = Harness::start(Lifecycle::Initialize).await;
    let both = h
        .err(
            "gitlab_pipeline",
            triage(json!({"project_id": 2, "pipeline_id": 2001, "ref": "main"})),
        )
        .await;
    assert!(
        both.contains("`pipeline_id` and `ref` are both given: give one of them"),
        "{both}"
    );
    let all = h
        .err(
            "gitlab_pipeline",
            triage(json!({"project_id": 2, "pipeline_id": 2001, "merge_request_iid": 1, "ref": "main"})),
        )
        .await;
    for pair in [
        "`pipeline_id` and `merge_request_iid`",
        "`pipeline_id` and `ref`",
    ] {
        assert!(
            all.contains(&format!("{pair} are both given: give one of them")),
            "{all}"
        );
    }
    let none = h
        .err("gitlab_pipeline", triage(json!({"project_id": 2})))
        .await;
    assert!(
        none.contains("give `pipeline_id` or `merge_request_iid` or `ref` (at least one)"),
        "{none}"
    );
    assert_eq!(h.requests().len(), 0, "nothing was sent");
    h.stop().await;
}

#[tokio::test]
async fn a_small_budget_gives_each_unread_log_its_call() {
    let h = Harness::start(Lifecycle::Initialize).await;
    let text = h
        .ok(
            "gitlab_pipeline",
            triage(json!({"project_id": 2, "pipeline_id": 2001, "max_bytes": 1536})),
        )
        .await;
    assert!(text.len() <= 1536, "{}: {text}", text.len());
    let (_, notes) = text.rsplit_once('⟧').unwrap();
    let unread: Vec<u64> = [203u64, 204, 205, 209]
        .into_iter()
        .filter(|id| {
            notes.contains(&format!(
                "[job {id}: {{\"action\":\"job_log\",\"params\":{{\"project_id\":2,\"job_id\":{id}}}}}]"
            ))
        })
        .collect();
    assert!(!unread.is_empty(), "{text}");
    // Every failed job is named; a log with a call was not downloaded.
    let traces: Vec<String> = h
        .requests()
        .iter()
        .map(|r| r.line())
        .filter(|l| l.ends_with("/trace"))
        .collect();
    for id in [203u64, 204, 205, 209] {
        assert!(text.contains(&format!("Job {id} `")), "{id}: {text}");
        assert_eq!(
            traces.contains(&format!("GET {P}/jobs/{id}/trace")),
            !unread.contains(&id),
            "{id}: {traces:?}"
        );
    }
    h.stop().await;
}

/// The figures for the notes: one triage against the single-purpose calls
/// an agent makes today for the same facts (the pipeline, its failed jobs,
/// its trigger jobs, the child's failed jobs, the test report, and the log
/// of each failed job, whose tail the answer shows).
#[tokio::test]
async fn triage_answers_in_fewer_bytes_than_the_calls_it_replaces() {
    let h = Harness::start(Lifecycle::Initialize).await;
    let triaged = h
        .ok(
            "gitlab_pipeline",
            triage(json!({"project_id": 2, "pipeline_id": 2001})),
        )
        .await;
    let triage_requests = h.requests().len();
    h.fake.clear_requests();

    let calls = [
        json!({"action": "get", "params": {"project_id": 2, "pipeline_id": 2001}}),
        json!({"action": "job_list", "params": {"project_id": 2, "pipeline_id": 2001, "scope": ["failed"]}}),
        json!({"action": "bridge_list", "params": {"project_id": 2, "pipeline_id": 2001}}),
        json!({"action": "job_list", "params": {"project_id": 2, "pipeline_id": 2002, "scope": ["failed"]}}),
        json!({"action": "test_report", "params": {"project_id": 2, "pipeline_id": 2001}}),
        json!({"action": "job_log", "params": {"project_id": 2, "job_id": 203}}),
        json!({"action": "job_log", "params": {"project_id": 2, "job_id": 204}}),
        json!({"action": "job_log", "params": {"project_id": 2, "job_id": 205}}),
        json!({"action": "job_log", "params": {"project_id": 2, "job_id": 209}}),
    ];
    let mut bytes = 0;
    let mut tails_with_the_error = 0;
    for call in &calls {
        let text = h.ok("gitlab_pipeline", call.clone()).await;
        bytes += text.len();
        if call["action"] == "job_log" && text.contains("error[E0432]") {
            tails_with_the_error += 1;
        }
    }
    let manual_requests = h.requests().len();
    println!(
        "triage: 1 call, {triage_requests} GitLab requests, {} bytes; the same through today's actions: {} calls, {manual_requests} requests, {bytes} bytes",
        triaged.len(),
        calls.len()
    );
    assert_eq!(manual_requests, calls.len());
    assert!(triaged.len() * 10 < bytes, "{} vs {bytes}", triaged.len());
    // The logs' tails (what job_log shows) miss clippy's error; triage has it.
    assert_eq!(tails_with_the_error, 0);
    assert!(triaged.contains("error[E0432]"));
    h.stop().await;
}

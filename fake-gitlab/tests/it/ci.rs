//! The CI endpoints a triage reads, on the test seed's `acme/website`
//! (`ci_seed.rs`): retried jobs left out unless asked for, trigger jobs
//! with their downstream pipeline, test reports, a pipeline that finishes
//! as it is read, runner traces streamed with their error in the middle.

use fake_gitlab::FakeGitLab;
use serde_json::Value;

const P: &str = "/api/v4/projects/2";

async fn get(fake: &FakeGitLab, path: &str) -> Value {
    let _ = rustls::crypto::ring::default_provider().install_default();
    let r = reqwest::Client::new()
        .get(format!("{}{P}{path}", fake.url()))
        .header("PRIVATE-TOKEN", "glpat-alice")
        .send()
        .await
        .unwrap();
    assert!(r.status().is_success(), "{path}: {}", r.status());
    r.json().await.unwrap()
}

fn ids(list: &Value) -> Vec<u64> {
    list.as_array()
        .unwrap()
        .iter()
        .map(|j| j["id"].as_u64().unwrap())
        .collect()
}

#[tokio::test]
async fn a_retried_attempt_is_listed_only_with_include_retried() {
    let fake = FakeGitLab::start().await;
    let failed = get(&fake, "/pipelines/2001/jobs?scope[]=failed").await;
    assert_eq!(ids(&failed), [203, 204, 205]);
    let all = get(
        &fake,
        "/pipelines/2001/jobs?scope[]=failed&include_retried=true",
    )
    .await;
    assert_eq!(ids(&all), [202, 203, 204, 205]);
    assert_eq!(failed[2]["allow_failure"], true);
    assert_eq!(failed[0]["failure_reason"], "script_failure");
    let counted = get(&fake, "/pipelines/2001/jobs?scope[]=manual&scope[]=skipped").await;
    assert_eq!(ids(&counted), [207, 208]);
}

#[tokio::test]
async fn a_trigger_job_names_its_child_pipeline() {
    let fake = FakeGitLab::start().await;
    let bridges = get(&fake, "/pipelines/2001/bridges").await;
    assert_eq!(ids(&bridges), [206]);
    let downstream = &bridges[0]["downstream_pipeline"];
    assert_eq!(
        (
            &downstream["id"],
            &downstream["project_id"],
            &downstream["status"]
        ),
        (&Value::from(2002), &Value::from(2), &Value::from("failed"))
    );
    assert_eq!(
        ids(&get(&fake, "/pipelines/2002/jobs?scope[]=failed").await),
        [209]
    );
    // A child pipeline is never a ref's latest.
    assert_eq!(get(&fake, "/pipelines/latest?ref=main").await["id"], 2001);
}

#[tokio::test]
async fn the_test_report_and_its_summary_count_the_failed_case() {
    let fake = FakeGitLab::start().await;
    let summary = get(&fake, "/pipelines/2001/test_report_summary").await;
    assert_eq!(summary["total"]["failed"], 1);
    assert_eq!(summary["total"]["count"], 4);
    assert_eq!(summary["test_suites"][0]["failed_count"], 1);
    assert!(summary["test_suites"][0].get("test_cases").is_none());
    let report = get(&fake, "/pipelines/2001/test_report").await;
    let failed: Vec<&Value> = report["test_suites"][0]["test_cases"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c["status"] == "failed")
        .collect();
    assert_eq!(failed.len(), 1);
    assert_eq!(failed[0]["name"], "orders::tests::refund_rounds_half_even");
    assert!(
        failed[0]["system_output"]
            .as_str()
            .unwrap()
            .contains("panicked at src/orders.rs:88:9")
    );
}

#[tokio::test]
async fn a_running_pipeline_finishes_on_its_third_read() {
    let fake = FakeGitLab::start().await;
    let mut seen = Vec::new();
    for _ in 0..4 {
        let pipeline = get(&fake, "/pipelines/2003").await;
        let jobs = get(&fake, "/pipelines/2003/jobs").await;
        let statuses: Vec<String> = jobs
            .as_array()
            .unwrap()
            .iter()
            .map(|j| j["status"].as_str().unwrap().to_string())
            .collect();
        seen.push((pipeline["status"].as_str().unwrap().to_string(), statuses));
    }
    let expected = [
        ("running", ["success", "pending"]),
        ("running", ["success", "running"]),
        ("success", ["success", "success"]),
        ("success", ["success", "success"]),
    ];
    let expected: Vec<(String, Vec<String>)> = expected
        .iter()
        .map(|(p, j)| (p.to_string(), j.iter().map(|s| s.to_string()).collect()))
        .collect();
    assert_eq!(seen, expected);
}

#[tokio::test]
async fn a_runner_trace_streams_whole_with_its_error_in_the_middle() {
    let fake = FakeGitLab::start().await;
    let _ = rustls::crypto::ring::default_provider().install_default();
    let text = reqwest::Client::new()
        .get(format!("{}{P}/jobs/204/trace", fake.url()))
        .header("PRIVATE-TOKEN", "glpat-alice")
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    let trace = fake_gitlab::ci_seed::clippy_trace();
    assert_eq!(text, trace.text());
    assert_eq!(fake.trace_bytes_sent(), text.len() as u64);
    let lines: Vec<&str> = text.lines().collect();
    assert!(lines[trace.error_line() - 1].contains("error[E0432]"));
    assert!(lines.len() - trace.error_line() > 4_000);
}

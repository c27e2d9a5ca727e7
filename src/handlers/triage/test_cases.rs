//! The failed cases of a pipeline's test report: its summary first
//! (https://docs.gitlab.com/api/pipelines/#get-a-test-report-summary-for-a-pipeline,
//! counts only, cheap), and the whole report
//! (https://docs.gitlab.com/api/pipelines/#get-a-pipelines-test-report)
//! only when the summary counts failures; of it, only the failed and
//! errored cases of the suites that have some are kept.

use serde_json::Value;

use super::super::Gitlab;
use super::pipeline::Pipeline;
use crate::gitlab::HttpRequest;

/// Cases kept of a report.
const MAX_CASES: usize = 20;

#[derive(Debug, Clone, PartialEq)]
pub struct FailedCase {
    pub name: String,
    pub classname: String,
    pub suite: String,
    /// Its output or stack trace, as GitLab parsed it from the JUnit XML.
    pub output: String,
}

#[derive(Debug, Clone, PartialEq)]
pub enum Tests {
    /// The summary counts no test: no report, nothing to say.
    None,
    Counted {
        total: u64,
        failed: u64,
        cases: Vec<FailedCase>,
    },
    /// A read failed, in these words.
    Unread(String),
}

pub async fn read(gitlab: &Gitlab<'_>, pipeline: &Pipeline) -> Tests {
    let path = pipeline.path();
    let summary = match gitlab
        .send(&HttpRequest::get(format!("{path}/test_report_summary")))
        .await
    {
        Ok(response) => serde_json::from_slice::<Value>(&response.body).unwrap_or(Value::Null),
        Err(failed) => return Tests::Unread(failed.error.to_string()),
    };
    let total = &summary["total"];
    let count = |key: &str| total.get(key).and_then(Value::as_u64).unwrap_or(0);
    let (all, failed) = (count("count"), count("failed") + count("error"));
    if all == 0 {
        return Tests::None;
    }
    if failed == 0 {
        return Tests::Counted {
            total: all,
            failed,
            cases: Vec::new(),
        };
    }
    let report = match gitlab
        .send(&HttpRequest::get(format!("{path}/test_report")))
        .await
    {
        Ok(response) => serde_json::from_slice::<Value>(&response.body).unwrap_or(Value::Null),
        Err(failed) => return Tests::Unread(failed.error.to_string()),
    };
    Tests::Counted {
        total: all,
        failed,
        cases: failed_cases(&report),
    }
}

fn failed_cases(report: &Value) -> Vec<FailedCase> {
    let text = |v: &Value, key: &str| v.get(key).and_then(Value::as_str).unwrap_or("").to_string();
    let suites = report.get("test_suites").and_then(Value::as_array);
    suites
        .into_iter()
        .flatten()
        .flat_map(|suite| {
            let cases = suite.get("test_cases").and_then(Value::as_array);
            cases.into_iter().flatten().filter_map(move |case| {
                let status = case.get("status").and_then(Value::as_str)?;
                matches!(status, "failed" | "error").then(|| FailedCase {
                    name: text(case, "name"),
                    classname: text(case, "classname"),
                    suite: text(suite, "name"),
                    output: [text(case, "system_output"), text(case, "stack_trace")]
                        .into_iter()
                        .find(|t| !t.trim().is_empty())
                        .unwrap_or_default(),
                })
            })
        })
        .take(MAX_CASES)
        .collect()
}

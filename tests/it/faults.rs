//! GitLab misbehaving, through the fake's injectable faults: rate limits
//! with and without `Retry-After`, server errors, HTML pages, bodies that
//! are not JSON or stop midway, resets, answers that never end or trickle,
//! huge answers, wrong content types and redirects. For each: the tool
//! result is an error that says what happened, nothing waits past its
//! timeout, and a request is repeated only when repeating it is safe. A
//! redirect to another host never carries a credential there.
//!
//! Timeouts and retry budgets are small (`GITLAB_TIMEOUT=1`,
//! `GITLAB_MCP_RETRY_MAX_WAIT=2`) so the whole file runs in seconds. No
//! test bounds how long a call took: what a bound stood for is asserted as
//! behaviour (the attempts the fake received, the timeout the error names,
//! an answer that came although the fault would have held it for an hour).
//! Every call has `CALL_LIMIT` to answer, so a server that waits a fault
//! out fails the test instead of hanging it.

use crate::common;

use std::time::{Duration, Instant};

use common::http::HttpServer;
use common::{Harness, Lifecycle, TOKEN};
use fake_gitlab::{FakeGitLab, Fault};
use serde_json::{Value, json};

/// One GitLab request takes at most 1 s, retries wait at most 2 s in all.
const FAST: &[(&str, &str)] = &[("GITLAB_TIMEOUT", "1"), ("GITLAB_MCP_RETRY_MAX_WAIT", "2")];

const ISSUE: &str = "/api/v4/projects/1/issues";

fn get() -> Value {
    json!({"action": "get", "params": {"project_id": 1, "issue_iid": 1}})
}

fn list() -> Value {
    json!({"action": "list", "params": {"project_id": 1, "per_page": 2}})
}

/// A POST: never repeated once it may have reached GitLab.
fn note() -> Value {
    json!({"action": "note_create", "params": {"project_id": 1, "issue_iid": 1, "body": "hello"}})
}

/// A PUT the catalog marks idempotent: repeated like a GET.
fn close() -> Value {
    json!({"action": "close", "params": {"project_id": 1, "issue_iid": 1}})
}

async fn start(env: &[(&str, &str)]) -> Harness {
    let mut all = FAST.to_vec();
    all.extend_from_slice(env);
    Harness::start_with(Lifecycle::Initialize, &all).await
}

fn sent(h: &Harness, method: &str) -> usize {
    h.requests()
        .iter()
        .filter(|r| r.method == method && r.raw_path.starts_with(ISSUE))
        .count()
}

/// How long a test lets a call take before it fails: far past every
/// timeout and retry budget here, far short of the faults that never end.
const CALL_LIMIT: Duration = Duration::from_secs(60);

/// The call's outcome, which must come within `CALL_LIMIT`.
async fn answer(h: &Harness, tool: &str, args: Value) -> common::Outcome {
    tokio::time::timeout(CALL_LIMIT, h.call(tool, args))
        .await
        .unwrap_or_else(|_| panic!("the call did not answer within {CALL_LIMIT:?}"))
}

/// The call's error text, which must come within `CALL_LIMIT`.
async fn err(h: &Harness, args: Value) -> String {
    let out = answer(h, "gitlab_issue", args).await;
    assert!(out.is_error, "expected an error, got: {}", out.text);
    out.text
}

/// The attempts an error says were made (`Tried N times`; 1 when it says
/// nothing).
fn attempts(text: &str) -> usize {
    text.split_once("Tried ")
        .and_then(|(_, rest)| rest.split_once(" times"))
        .map_or(1, |(n, _)| n.parse().expect("a number of attempts"))
}

#[tokio::test]
async fn a_429_without_retry_after_is_retried_with_backoff_and_then_succeeds() {
    // Twenty retries allowed: only the 2 s wait budget can stop them.
    let h = start(&[("GITLAB_MCP_MAX_RETRIES", "20")]).await;
    h.fake.inject(Fault::status(429).on("GET", ISSUE).times(2));
    let text = h.ok("gitlab_issue", get()).await;
    assert!(text.contains("\"iid\":1"), "{text}");
    assert_eq!(sent(&h, "GET"), 3, "two retries");
    // When the limit persists, the retries stop within the wait budget:
    // back-offs of 0.5 s, 1 s, 2 s (each ±50%) fit 2 s at most three times.
    h.fake.clear_requests();
    h.fake.inject(Fault::status(429).on("GET", ISSUE));
    let text = err(&h, get()).await;
    assert!(
        text.contains("GitLab answered 429, rate limited: wait before trying again")
            && text.contains("GitLab says: Retry later")
            && text.contains("the retries are spent"),
        "{text}"
    );
    assert_eq!(attempts(&text), sent(&h, "GET"), "{text}");
    assert!((2..=4).contains(&attempts(&text)), "{text}");
    h.stop().await;
}

#[tokio::test]
async fn a_429_with_retry_after_waits_as_told_unless_that_is_past_the_budget() {
    let h = start(&[]).await;
    h.fake
        .inject(Fault::status(429).retry_after(1).on("GET", ISSUE).times(1));
    let started = Instant::now();
    h.ok("gitlab_issue", get()).await;
    assert!(started.elapsed() >= Duration::from_millis(950));
    assert_eq!(sent(&h, "GET"), 2);
    // An hour is more than the 2 s budget: answered at once (within
    // `CALL_LIMIT`, not after the hour), not retried.
    h.fake.clear_requests();
    h.fake
        .inject(Fault::status(429).retry_after(3600).on("GET", ISSUE));
    let text = err(&h, get()).await;
    assert!(
        text.contains("GitLab answered 429, rate limited: try again in 3600 s"),
        "{text}"
    );
    assert_eq!(sent(&h, "GET"), 1);
    // The application limit's JSON body is read too.
    h.fake.clear_faults();
    h.fake
        .inject(Fault::rate_limited().on("POST", ISSUE).times(1));
    let text = err(&h, note()).await;
    assert!(
        text.contains("GitLab says: This endpoint has been requested too many times"),
        "{text}"
    );
    h.stop().await;
}

#[tokio::test]
async fn a_429_on_a_post_is_never_retried() {
    let h = start(&[]).await;
    h.fake
        .inject(Fault::status(429).retry_after(0).on("POST", ISSUE).times(1));
    let text = err(&h, note()).await;
    assert!(text.contains("GitLab answered 429, rate limited"), "{text}");
    assert!(!text.contains("Tried"), "{text}");
    assert_eq!(sent(&h, "POST"), 1);
    h.stop().await;
}

#[tokio::test]
async fn server_errors_are_named_and_only_gateway_errors_are_retried_where_safe() {
    // A 1 s budget: three back-offs (at least 0.25 + 0.5 + 1 s) would not
    // fit it, three waits of `Retry-After: 0` (0.1 s each) do. Four
    // attempts prove the server waited as GitLab told it.
    let h = start(&[("GITLAB_MCP_RETRY_MAX_WAIT", "1")]).await;
    // A 500 is GitLab's own error: repeating it would not help.
    h.fake.inject(Fault::status(500).on("GET", ISSUE));
    let text = err(&h, get()).await;
    assert!(
        text.contains("GitLab answered 500, GitLab had an internal error")
            && text.contains("GitLab says: 500 Internal Server Error"),
        "{text}"
    );
    assert_eq!(sent(&h, "GET"), 1);
    for (status, words) in [
        (502, "bad gateway: GitLab is unreachable behind its proxy"),
        (503, "GitLab is unavailable (maintenance or overload)"),
        (504, "gateway timeout: GitLab took too long"),
    ] {
        h.fake.clear_faults();
        h.fake.clear_requests();
        h.fake
            .inject(Fault::status(status).retry_after(0).on("GET", ISSUE));
        let text = err(&h, get()).await;
        assert!(
            text.contains(&format!("GitLab answered {status}, {words}"))
                && text.contains("GitLab sent an HTML error page instead of JSON.")
                && text.contains("Tried 4 times; the retries are spent."),
            "{text}"
        );
        assert_eq!(sent(&h, "GET"), 4, "{status}");
        // An idempotent PUT is retried the same way; a POST is not.
        h.fake.clear_requests();
        h.fake.inject(
            Fault::status(status)
                .retry_after(0)
                .on("PUT", ISSUE)
                .times(1),
        );
        h.ok("gitlab_issue", close()).await;
        assert_eq!(sent(&h, "PUT"), 2, "{status}");
        h.fake.inject(
            Fault::status(status)
                .retry_after(0)
                .on("POST", ISSUE)
                .times(1),
        );
        let text = err(&h, note()).await;
        assert!(
            text.contains(&format!("GitLab answered {status}")),
            "{text}"
        );
        assert_eq!(sent(&h, "POST"), 1, "{status}");
    }
    h.stop().await;
}

#[tokio::test]
async fn an_html_page_instead_of_the_api_is_named_as_such() {
    let h = start(&[]).await;
    for status in [401, 403, 404, 500] {
        h.fake.clear_faults();
        h.fake.inject(Fault::html(status).on("GET", ISSUE));
        let text = err(&h, list()).await;
        assert!(
            text.contains(&format!("GitLab answered {status}"))
                && text.contains("GitLab sent an HTML error page instead of JSON."),
            "{text}"
        );
        assert!(!text.contains("<html"), "no markup for the model: {text}");
    }
    // A sign-in page answered with 200 where JSON was expected.
    h.fake.clear_faults();
    h.fake.inject(Fault::html(200).on("GET", ISSUE));
    let text = err(&h, list()).await;
    assert!(text.contains("not JSON"), "{text}");
    h.stop().await;
}

#[tokio::test]
async fn a_200_whose_body_is_not_json_is_an_error_not_a_success() {
    let h = start(&[]).await;
    for fault in [Fault::invalid_json(), Fault::malformed()] {
        h.fake.clear_faults();
        h.fake.inject(fault.on("GET", ISSUE));
        for args in [get(), list()] {
            let text = err(&h, args).await;
            assert!(
                text.contains("GitLab answered 200, but its answer is not JSON"),
                "{text}"
            );
        }
    }
    // Not repeated: the same body would come back.
    assert_eq!(sent(&h, "GET"), 4);
    h.fake.clear_faults();
    h.ok("gitlab_issue", get()).await;
    h.stop().await;
}

#[tokio::test]
async fn a_body_that_stops_midway_is_a_broken_connection_retried_only_where_safe() {
    let h = start(&[]).await;
    h.fake.inject(
        Fault::truncated(4096, r#"[{"id": 1, "iid": 1, "title": "cut"#)
            .on("GET", ISSUE)
            .times(1),
    );
    let text = h.ok("gitlab_issue", list()).await;
    assert!(
        text.contains("\"iid\""),
        "the retry got the whole list: {text}"
    );
    assert_eq!(sent(&h, "GET"), 2);
    h.fake
        .inject(Fault::truncated(4096, r#"{"id": 7"#).on("POST", ISSUE));
    let text = err(&h, note()).await;
    assert!(
        text.contains("network error, the connection to 127.0.0.1")
            && text.contains("GitLab may have applied the change: check before repeating it."),
        "{text}"
    );
    assert_eq!(sent(&h, "POST"), 1);
    h.stop().await;
}

#[tokio::test]
async fn a_reset_connection_is_a_broken_connection_retried_only_where_safe() {
    let h = start(&[]).await;
    h.fake.inject(Fault::reset().on("GET", ISSUE).times(2));
    h.ok("gitlab_issue", get()).await;
    assert_eq!(sent(&h, "GET"), 3);
    // A reset that persists: retried until the retries are spent, then
    // the error says how often it was tried.
    h.fake.clear_requests();
    h.fake.inject(Fault::reset().on("GET", ISSUE));
    let text = err(&h, get()).await;
    assert!(
        text.contains("network error, the connection to 127.0.0.1")
            && text.contains("the retries are spent"),
        "{text}"
    );
    assert_eq!(attempts(&text), sent(&h, "GET"), "{text}");
    assert!((2..=4).contains(&attempts(&text)), "{text}");
    h.fake.clear_faults();
    h.fake.clear_requests();
    h.fake.inject(Fault::reset().on("POST", ISSUE));
    let text = err(&h, note()).await;
    assert!(
        text.contains("GitLab may have applied the change"),
        "{text}"
    );
    assert_eq!(sent(&h, "POST"), 1);
    h.stop().await;
}

#[tokio::test]
async fn an_answer_that_never_ends_or_trickles_stops_at_the_timeout() {
    let h = start(&[("GITLAB_MCP_MAX_RETRIES", "0")]).await;
    // The trickle sends a byte every 50 ms: a timeout between bytes would
    // never fire, and the call would not answer within `CALL_LIMIT`.
    for fault in [Fault::endless(), Fault::trickle(Duration::from_millis(50))] {
        h.fake.clear_faults();
        h.fake.clear_requests();
        h.fake.inject(fault.on("GET", ISSUE));
        let started = Instant::now();
        let text = err(&h, get()).await;
        assert!(
            text.contains(
                "did not answer in time: the request timeout (1 s, GITLAB_TIMEOUT) passed"
            ),
            "{text}"
        );
        assert!(
            started.elapsed() >= Duration::from_millis(900),
            "{:?}",
            started.elapsed()
        );
        assert_eq!(sent(&h, "GET"), 1);
    }
    h.stop().await;
    // With retries, a GET is repeated within the budget, and still ends.
    let h = start(&[("GITLAB_MCP_MAX_RETRIES", "2")]).await;
    h.fake.inject(Fault::endless().on("GET", ISSUE));
    let text = err(&h, get()).await;
    assert!(text.contains("Tried 3 times"), "{text}");
    assert_eq!(sent(&h, "GET"), 3);
    // A POST that timed out may have been applied: once only.
    h.fake.clear_faults();
    h.fake.clear_requests();
    h.fake.inject(Fault::endless().on("POST", ISSUE));
    let text = err(&h, note()).await;
    assert!(
        text.contains("did not answer in time") && text.contains("may have applied the change"),
        "{text}"
    );
    assert_eq!(sent(&h, "POST"), 1);
    h.stop().await;
}

#[tokio::test]
async fn a_huge_answer_is_refused_unread_and_a_long_log_is_windowed() {
    // An hour per request: a server that read the body would not answer.
    let h = start(&[("GITLAB_TIMEOUT", "3600")]).await;
    // 300 MiB declared and no byte of it ever sent: the refusal can only
    // come from the declared length.
    h.fake.inject(
        Fault::endless()
            .header("content-length", &(300 * 1024 * 1024).to_string())
            .on("GET", ISSUE),
    );
    let text = err(&h, get()).await;
    assert!(
        text.contains("GitLab's answer is over 256 MiB, more than this server reads"),
        "{text}"
    );
    // A 4 MiB log: its end, within the 64 KB cap, and how to read more.
    h.fake
        .inject(Fault::huge(4 * 1024 * 1024).on("GET", "/api/v4/projects/1/jobs/101/trace"));
    let text = h
        .ok(
            "gitlab_pipeline",
            json!({"action": "job_log", "params": {"project_id": 1, "job_id": 101}}),
        )
        .await;
    assert!(text.len() <= 64 * 1024, "{}", text.len());
    assert!(
        text.contains("cut to the 64 KB response cap") && text.contains("earlier: \"lines\""),
        "{}",
        &text[text.len() - 300..]
    );
    h.stop().await;
}

#[tokio::test]
async fn a_wrong_content_type_does_not_change_what_is_read() {
    let h = start(&[]).await;
    for content_type in ["text/html", "text/plain", "application/octet-stream"] {
        h.fake.clear_faults();
        h.fake
            .inject(Fault::wrong_content_type(content_type).on("GET", ISSUE));
        let text = h.ok("gitlab_issue", get()).await;
        assert!(text.contains("\"iid\":1"), "{content_type}: {text}");
    }
    // A log labelled JSON is still a log.
    h.fake.clear_faults();
    h.fake
        .inject(Fault::wrong_content_type("application/json").on("GET", "/api/v4/projects/1/jobs"));
    let text = h
        .ok(
            "gitlab_pipeline",
            json!({"action": "job_log", "params": {"project_id": 1, "job_id": 101}}),
        )
        .await;
    assert!(!text.is_empty());
    h.stop().await;
}

/// Both ways of sending a credential, each in its own header.
const SCHEMES: [(&str, &str); 2] = [("private-token", TOKEN), ("bearer", "oauth-alice")];

#[tokio::test]
async fn a_redirect_to_another_host_is_not_followed_and_carries_no_credential_there() {
    let other = FakeGitLab::start().await;
    for (scheme, token) in SCHEMES {
        let h = start(&[("GITLAB_AUTH", scheme), ("GITLAB_TOKEN", token)]).await;
        for status in [301, 302, 303, 307, 308] {
            h.fake.clear_faults();
            h.fake
                .inject(Fault::redirect(status, &other.url()).on("GET", ISSUE));
            let text = err(&h, get()).await;
            assert!(
                text.contains(&format!(
                    "GitLab answered {status}, a redirect, not followed"
                )) && text.contains("GITLAB_URL"),
                "{text}"
            );
            assert!(
                !text.contains(token) && !text.contains(&other.url()),
                "{text}"
            );
            h.fake.clear_faults();
            h.fake
                .inject(Fault::redirect(status, &other.url()).on("POST", ISSUE));
            err(&h, note()).await;
        }
        // The first host got the credential; the other host got nothing.
        let first = h.requests();
        assert!(
            first
                .iter()
                .all(|r| r.private_token.is_some() || r.authorization.is_some()),
            "{first:#?}"
        );
        assert_eq!(other.requests(), vec![], "{scheme}");
        h.stop().await;
    }
}

#[tokio::test]
async fn over_http_a_redirect_carries_no_credential_to_another_host_either() {
    let fake = FakeGitLab::start().await;
    let other = FakeGitLab::start().await;
    let server = HttpServer::start(&fake, FAST, &[]).await;
    let client = server
        .client((), Lifecycle::Initialize, &[("private-token", TOKEN)])
        .await;
    for status in [302, 307, 308] {
        fake.clear_faults();
        fake.inject(Fault::redirect(status, &other.url()).on("GET", ISSUE));
        let Value::Object(args) = get() else {
            unreachable!()
        };
        let result = client
            .call_tool(rmcp::model::CallToolRequestParams::new("gitlab_issue").with_arguments(args))
            .await
            .unwrap();
        assert_eq!(result.is_error, Some(true));
    }
    assert!(
        fake.requests()
            .iter()
            .all(|r| r.private_token.as_deref() == Some(TOKEN))
    );
    assert_eq!(other.requests(), vec![]);
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn after_every_fault_the_server_still_answers() {
    let h = start(&[("GITLAB_MCP_MAX_RETRIES", "0")]).await;
    let faults = [
        Fault::status(429),
        Fault::status(502),
        Fault::html(503),
        Fault::invalid_json(),
        Fault::malformed(),
        Fault::truncated(100, "{"),
        Fault::reset(),
        Fault::endless(),
        Fault::trickle(Duration::from_millis(100)),
        Fault::huge(512 * 1024 * 1024),
        Fault::redirect(302, "http://127.0.0.1:9"),
    ];
    for fault in faults {
        h.fake.clear_faults();
        h.fake.inject(fault.on("GET", ISSUE).times(1));
        let out = h.call("gitlab_issue", get()).await;
        assert!(out.is_error, "{}", out.text);
        assert!(!out.text.contains(TOKEN), "{}", out.text);
        h.ok("gitlab_issue", get()).await;
    }
    h.stop().await;
}

/// A `Retry-After` too large to add to the time already waited made the
/// retry loop's `Duration` addition overflow (a panic) once an earlier
/// retry had waited: the call never answered.
#[tokio::test]
async fn a_huge_retry_after_after_a_retry_does_not_panic() {
    let h = start(&[]).await;
    // One second waited, then a wait that cannot be added to it.
    h.fake
        .inject(Fault::status(503).retry_after(1).on("GET", ISSUE).times(1));
    h.fake.inject(
        Fault::status(429)
            .retry_after(u64::MAX)
            .on("GET", ISSUE)
            .times(1),
    );
    let text = err(&h, get()).await;
    assert!(text.contains("GitLab answered 429, rate limited"), "{text}");
    assert_eq!(
        sent(&h, "GET"),
        2,
        "the 503 retried once, the 429 not: {text}"
    );
    h.ok("gitlab_issue", get()).await;
    h.stop().await;
}

/// A GitLab (or a proxy) that names a next page on every page, each page
/// empty, kept `max_items` requesting pages for ever.
#[tokio::test]
async fn a_list_whose_pages_never_end_stops_following() {
    let h = start(&[]).await;
    h.fake.inject(
        Fault::status(200)
            .body("application/json", "[]")
            .header("x-next-page", "2")
            .header("x-page", "1")
            .on("GET", ISSUE),
    );
    let out = answer(
        &h,
        "gitlab_issue",
        json!({"action": "list", "params": {"project_id": 1}, "max_items": 50}),
    )
    .await;
    assert!(!out.is_error, "{}", out.text);
    assert!(sent(&h, "GET") <= 2, "{} pages requested", sent(&h, "GET"));
    h.stop().await;
}

//! Every injectable fault, seen from a plain HTTP client.

use std::time::Duration;

use fake_gitlab::{FakeGitLab, Fault};

async fn setup() -> (FakeGitLab, reqwest::Client, String) {
    let _ = rustls::crypto::ring::default_provider().install_default();
    let fake = FakeGitLab::start().await;
    let url = format!("{}/api/v4/projects/1/issues", fake.url());
    (fake, reqwest::Client::new(), url)
}

fn get(http: &reqwest::Client, url: &str) -> reqwest::RequestBuilder {
    http.get(url).header("PRIVATE-TOKEN", "glpat-alice")
}

#[tokio::test]
async fn statuses_with_and_without_retry_after_and_html_pages() {
    let (fake, http, url) = setup().await;
    fake.inject(Fault::status(429).times(1));
    let r = get(&http, &url).send().await.unwrap();
    assert_eq!(r.status(), 429);
    assert!(r.headers().get("retry-after").is_none());
    assert_eq!(r.text().await.unwrap(), "Retry later\n");
    fake.inject(Fault::status(429).retry_after(7).times(1));
    let r = get(&http, &url).send().await.unwrap();
    assert_eq!(r.headers()["retry-after"], "7");
    assert_eq!(r.headers()["ratelimit-remaining"], "0");
    fake.inject(Fault::rate_limited().times(1));
    let r = get(&http, &url).send().await.unwrap();
    assert_eq!(r.status(), 429);
    assert!(r.text().await.unwrap().contains("requested too many times"));
    for status in [500u16, 502, 503, 504] {
        fake.inject(Fault::status(status).times(1));
        let r = get(&http, &url).send().await.unwrap();
        assert_eq!(r.status().as_u16(), status);
        let html = r.headers()["content-type"]
            .to_str()
            .unwrap()
            .starts_with("text/html");
        assert_eq!(html, status != 500, "{status}");
    }
    fake.inject(Fault::html(401).times(1));
    let r = get(&http, &url).send().await.unwrap();
    assert_eq!(r.status(), 401);
    assert!(r.text().await.unwrap().starts_with("<!DOCTYPE html>"));
    fake.inject(Fault::invalid_json().times(1));
    let r = get(&http, &url).send().await.unwrap();
    assert_eq!(r.status(), 200);
    assert!(r.json::<serde_json::Value>().await.is_err());
    // The fault is spent: the real answer again.
    assert_eq!(get(&http, &url).send().await.unwrap().status(), 200);
}

#[tokio::test]
async fn a_body_cut_short_and_a_reset_connection() {
    let (fake, http, url) = setup().await;
    fake.inject(Fault::truncated(10_000, r#"[{"id":1,"title":"#).times(1));
    let r = get(&http, &url).send().await.unwrap();
    assert_eq!(r.status(), 200);
    assert_eq!(r.headers()["content-length"], "10000");
    assert!(r.bytes().await.is_err(), "the body ends before its length");

    fake.inject(Fault::reset().times(1));
    let err = get(&http, &url).send().await.unwrap_err();
    assert!(!err.is_status() && !err.is_timeout(), "{err:?}");
    // The request did arrive: it is in the log.
    assert_eq!(fake.requests().len(), 2);
    assert_eq!(get(&http, &url).send().await.unwrap().status(), 200);
}

#[tokio::test]
async fn answers_that_never_end() {
    let (fake, http, url) = setup().await;
    fake.inject(Fault::endless().times(1));
    let mut r = get(&http, &url).send().await.unwrap();
    assert_eq!(r.status(), 200);
    assert!(
        tokio::time::timeout(Duration::from_millis(300), r.chunk())
            .await
            .is_err()
    );

    fake.inject(Fault::trickle(Duration::from_millis(20)).times(1));
    let mut r = get(&http, &url).send().await.unwrap();
    for _ in 0..3 {
        let chunk = tokio::time::timeout(Duration::from_secs(2), r.chunk())
            .await
            .unwrap()
            .unwrap();
        assert_eq!(chunk.as_deref(), Some(&b"."[..]));
    }
}

#[tokio::test]
async fn a_huge_body_is_streamed() {
    let (fake, http, url) = setup().await;
    let size = 40 * 1024 * 1024 + 17;
    fake.inject(
        Fault::huge(size)
            .on("GET", "/api/v4/projects/1/jobs")
            .times(1),
    );
    let mut r = get(
        &http,
        &format!("{}/api/v4/projects/1/jobs/102/trace", fake.url()),
    )
    .send()
    .await
    .unwrap();
    assert_eq!(r.headers()["content-length"], size.to_string().as_str());
    let mut total = 0u64;
    let mut first = None;
    while let Some(chunk) = r.chunk().await.unwrap() {
        first.get_or_insert_with(|| String::from_utf8_lossy(&chunk[..30]).into_owned());
        total += chunk.len() as u64;
    }
    assert_eq!(total, size);
    assert!(first.unwrap().starts_with("[000000001] generated log line"));
    let _ = url;
}

#[tokio::test]
async fn a_wrong_content_type_on_the_real_answer() {
    let (fake, http, url) = setup().await;
    fake.inject(Fault::wrong_content_type("text/html").times(1));
    let r = get(&http, &url).send().await.unwrap();
    assert_eq!(r.headers()["content-type"], "text/html");
    let issues: serde_json::Value = r.json().await.unwrap();
    assert_eq!(issues.as_array().unwrap().len(), 20);
}

#[tokio::test]
async fn a_redirect_to_another_host_shows_which_credentials_followed() {
    let (fake, _, url) = setup().await;
    let other = FakeGitLab::start().await;
    for status in [301u16, 302, 307] {
        fake.clear_faults();
        other.clear_requests();
        fake.inject(Fault::redirect(status, &other.url()).times(1));
        let none = reqwest::Client::builder()
            .redirect(reqwest::redirect::Policy::none())
            .build()
            .unwrap();
        let r = get(&none, &format!("{url}?state=opened"))
            .send()
            .await
            .unwrap();
        assert_eq!(r.status().as_u16(), status);
        assert_eq!(
            r.headers()["location"],
            format!("{}/api/v4/projects/1/issues?state=opened", other.url()).as_str()
        );
        assert!(other.requests().is_empty());
    }
    // A client that follows: the other host records what arrived.
    fake.inject(Fault::redirect(302, &other.url()).times(1));
    let follows = reqwest::Client::new();
    follows
        .get(&url)
        .header("PRIVATE-TOKEN", "glpat-alice")
        .bearer_auth("oauth-alice")
        .send()
        .await
        .unwrap();
    let arrived = other.requests();
    assert_eq!(arrived.len(), 1);
    assert_eq!(arrived[0].raw_path, "/api/v4/projects/1/issues");
    // reqwest drops Authorization on a cross-host redirect but keeps a
    // custom header such as PRIVATE-TOKEN: the fake shows both facts.
    assert_eq!(arrived[0].authorization, None);
    assert_eq!(arrived[0].private_token.as_deref(), Some("glpat-alice"));
}

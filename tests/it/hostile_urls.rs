//! URL confusion: every decision that trusts a URL, fed the spellings that
//! make readers disagree on the host. One row per spelling, one column per
//! decision, each cell what the decision does with it: refuses it, or
//! maps it to the host (origin, API root, project) every WHATWG reader,
//! browsers included, sees. Then the reported bug end to end: a redirect
//! URI with a user name before its host (`https://app.example@evil.example/cb`,
//! which a person reads as app.example) is refused at registration, and no
//! consent page ever names one.

use crate::common;

use common::http::raw;
use common::signin::{KEY, free_port, register_app, server};
use fake_gitlab::FakeGitLab;
use fake_gitlab::oauth::s256;
use gitlab_mcp::dispatch::web_url;
use gitlab_mcp::gitlab::api_root;
use gitlab_mcp::http::{Guard, public_url_host};
use gitlab_mcp::signin::{Sealer, redirect_host, redirect_registered};
use serde_json::{Value, json};

/// What a decision does with a spelling.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Cell {
    Refused,
    /// The host, origin, API root or project it is taken for.
    To(String),
}
use Cell::Refused;

fn to(text: &str) -> Cell {
    Cell::To(text.to_string())
}

fn cell<T, E>(outcome: Result<T, E>, shown: impl FnOnce(T) -> String) -> Cell {
    outcome.map_or(Refused, |v| Cell::To(shown(v)))
}

/// The decisions, in the table's column order.
const COLUMNS: [&str; 6] = [
    "public_url",
    "api_root",
    "origin",
    "register",
    "authorize",
    "web_url",
];

/// The `Host` names the server is reached by (the guard's), the redirect
/// URIs a client registered, and the GitLab this server works with.
const HOSTS: [&str; 4] = ["localhost", "127.0.0.1", "[::1]", "app.example"];
const REGISTERED: [&str; 4] = [
    "https://app.example/cb",
    "http://localhost/cb",
    "http://127.0.0.1/cb",
    "http://[::1]/cb",
];
const GITLAB: &str = "https://app.example";

/// What each decision does with `spelling`, a scheme and authority: as it
/// is where the decision takes an origin or an address, followed by a
/// path where it takes a redirect URI or a web URL.
fn decide(spelling: &str) -> [Cell; 6] {
    let guard = Guard::new(HOSTS.map(String::from).to_vec(), Vec::new());
    let registered = REGISTERED.map(String::from);
    let redirect = format!("{spelling}/cb");
    [
        // `--public-url`: the Host entry it adds (src/http/settings.rs).
        cell(public_url_host(spelling), |host| host),
        // GITLAB_URL or X-GitLab-URL: the API root (src/gitlab/target.rs).
        cell(api_root(spelling), |root| root),
        // A browser's Origin header (src/http/guard.rs).
        guard.allowed_origin(spelling).map_or(Refused, Cell::To),
        // Dynamic registration, and the host the consent page names
        // (src/signin/clients.rs).
        cell(redirect_host(&redirect), |host| host),
        // The redirect URI of an authorization request, against those
        // registered, and the host its consent page names
        // (src/signin/authorize.rs).
        if redirect_registered(&registered, &redirect) {
            cell(redirect_host(&redirect), |host| host)
        } else {
            Refused
        },
        // A pasted web URL: the project it is read as, on the GitLab at
        // GITLAB (src/dispatch/web_url.rs).
        cell(
            web_url::parse(&format!("{spelling}/acme/api/-/issues/1"), GITLAB),
            |parsed| parsed.namespace.path().to_string(),
        ),
    ]
}

#[test]
fn every_decision_that_trusts_a_url_refuses_or_maps_each_hostile_spelling_to_the_right_host() {
    let refused = || [Refused, Refused, Refused, Refused, Refused, Refused];
    #[rustfmt::skip]
    let table: Vec<(&str, [Cell; 6])> = vec![
        // The plain spelling, for reference.
        ("https://app.example",
            [to("app.example"), to("https://app.example/api/v4"), to("https://app.example"), to("app.example"), to("app.example"), to("acme/api")]),
        // User names and passwords before the host.
        ("https://a@b", refused()),
        ("https://app.example@evil.example", refused()),
        ("http://localhost:1@evil.example", refused()),
        ("https://user:pass@app.example", refused()),
        ("https://@evil.example", refused()),
        // A backslash: WHATWG reads it as `/`, other readers as part of the user name.
        ("https://app.example\\@evil.example", refused()),
        // Missing or extra slashes, which WHATWG repairs.
        ("https:///app.example", refused()),
        ("https:app.example", refused()),
        // A tab inside the host, which WHATWG drops.
        ("https://app.exa\tmple", refused()),
        // Percent-encoded hosts: decoded, as browsers do; an `@` cannot hide in one.
        ("https://app%2Eexample",
            [to("app.example"), to("https://app.example/api/v4"), to("https://app.example"), to("app.example"), Refused, to("acme/api")]),
        ("https://app.example%40evil.example", refused()),
        // An international name that looks like app.example (Cyrillic а): shown in punycode.
        ("https://\u{430}pp.example",
            [to("xn--pp-6kc.example"), to("https://xn--pp-6kc.example/api/v4"), Refused, to("xn--pp-6kc.example"), Refused, Refused]),
        // A name that only begins like app.example.
        ("https://app.example.evil.example",
            [to("app.example.evil.example"), to("https://app.example.evil.example/api/v4"), Refused, to("app.example.evil.example"), Refused, Refused]),
        // Upper case: the same host; a redirect URI must still match as registered.
        ("HTTPS://APP.EXAMPLE",
            [to("app.example"), to("https://app.example/api/v4"), to("https://app.example"), to("app.example"), Refused, to("acme/api")]),
        // A trailing dot: another origin to a browser, the same GitLab for a pasted URL.
        ("https://app.example.",
            [to("app.example."), to("https://app.example./api/v4"), Refused, to("app.example."), Refused, to("acme/api")]),
        // Ports: the default one is no port; another is another server.
        ("https://app.example:443",
            [to("app.example"), to("https://app.example/api/v4"), to("https://app.example"), to("app.example"), Refused, to("acme/api")]),
        ("https://app.example:8443",
            [to("app.example:8443"), to("https://app.example:8443/api/v4"), to("https://app.example:8443"), to("app.example:8443"), Refused, Refused]),
        ("http://app.example",
            [to("app.example"), to("http://app.example/api/v4"), to("http://app.example"), Refused, Refused, Refused]),
        // Loopback: an IPv6 literal with its default port, a name in upper case, 127.0.0.1 as one number.
        ("http://[::1]:80",
            [to("[::1]"), to("http://[::1]/api/v4"), to("http://[::1]"), to("[::1]"), to("[::1]"), Refused]),
        ("http://LOCALHOST:3000",
            [to("localhost:3000"), to("http://localhost:3000/api/v4"), to("http://localhost:3000"), to("localhost:3000"), to("localhost:3000"), Refused]),
        ("http://2130706433",
            [to("127.0.0.1"), to("http://127.0.0.1/api/v4"), to("http://127.0.0.1"), to("127.0.0.1"), to("127.0.0.1"), Refused]),
        ("http://localhost.",
            [to("localhost."), to("http://localhost./api/v4"), Refused, Refused, Refused, Refused]),
        // Empty hosts and other schemes.
        ("https://", refused()),
        ("javascript:alert(1)", refused()),
        ("data:text/html,<script>alert(1)</script>", refused()),
    ];
    // Every cell that differs, named by row and column.
    let mut wrong = Vec::new();
    for (spelling, expected) in &table {
        for ((column, got), want) in COLUMNS.iter().zip(decide(spelling)).zip(expected) {
            if &got != want {
                wrong.push(format!(
                    "{spelling:?} {column}: expected {want:?}, got {got:?}"
                ));
            }
        }
    }
    assert_eq!(wrong, Vec::<String>::new());
}

/// `GET /authorize` for `client_id`, with this redirect URI if any.
fn authorize_url(base: &str, client_id: &str, redirect: Option<&str>) -> reqwest::Url {
    let resource = format!("{base}/mcp");
    let challenge = s256("a-verifier-of-the-client-0123456789-abcdefghijklmn");
    let mut params = vec![
        ("response_type", "code"),
        ("client_id", client_id),
        ("code_challenge", challenge.as_str()),
        ("code_challenge_method", "S256"),
        ("state", "client-state"),
        ("resource", resource.as_str()),
    ];
    params.extend(redirect.map(|r| ("redirect_uri", r)));
    reqwest::Url::parse_with_params(&format!("{base}/authorize"), &params).unwrap()
}

async fn register(base: &str, redirect: &str) -> (u16, Value) {
    let r = raw()
        .post(format!("{base}/register"))
        .json(&json!({"redirect_uris": [redirect], "client_name": "Scripted client", "token_endpoint_auth_method": "none"}))
        .send()
        .await
        .unwrap();
    (r.status().as_u16(), r.json().await.unwrap())
}

#[tokio::test]
async fn a_redirect_uri_with_a_user_name_is_refused_at_registration_and_never_named_by_a_consent_page()
 {
    let fake = FakeGitLab::start().await;
    let port = free_port();
    register_app(&fake, port);
    let server = server(&fake, port, port, KEY, &[]).await;
    let base = server.url.clone();

    for hostile in [
        "https://app.example@evil.example/cb",
        "https://app.example\\@evil.example/cb",
        "http://localhost:1@evil.example/cb",
    ] {
        let (status, answer) = register(&base, hostile).await;
        assert_eq!(status, 400, "{hostile}: {answer}");
        assert_eq!(answer["error"], "invalid_redirect_uri", "{hostile}");
        assert_eq!(answer.get("client_id"), None, "{hostile}");
    }

    // A client registered with one before this server refused them: its id
    // sealed with the operator's key, as the server sealed it then.
    let iat = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs();
    let old = Sealer::new(KEY).unwrap().seal(
        "client",
        &json!({"r": ["https://app.example@evil.example/cb"], "n": "Old client", "conf": false, "iat": iat}),
    );
    for redirect in [Some("https://app.example@evil.example/cb"), None] {
        let page = raw()
            .get(authorize_url(&base, &old, redirect))
            .send()
            .await
            .unwrap();
        assert_eq!(page.status(), 400, "{redirect:?}");
        assert_eq!(page.headers().get("location"), None, "{redirect:?}");
        let html = page.text().await.unwrap();
        assert!(
            !html.contains("evil.example") && !html.contains("app.example@"),
            "{redirect:?}: {html}"
        );
    }

    // An accepted redirect URI: the consent page names the host as parsed.
    let spelled = "https://App.Example:443/cb";
    let (status, answer) = register(&base, spelled).await;
    assert_eq!(status, 201, "{answer}");
    let client_id = answer["client_id"].as_str().unwrap();
    let page = raw()
        .get(authorize_url(&base, client_id, Some(spelled)))
        .send()
        .await
        .unwrap();
    assert_eq!(page.status(), 200);
    let html = page.text().await.unwrap();
    assert!(
        html.contains("sent back to <code>app.example</code>"),
        "{html}"
    );
    assert!(!html.contains("App.Example"), "{html}");
    assert!(
        fake.requests()
            .iter()
            .all(|r| !r.raw_path.starts_with("/api/v4")),
        "nothing reached GitLab's API"
    );
}

//! The fake's OAuth provider: authorization code with PKCE, refresh with
//! rotation, revocation, userinfo, and its tokens on the REST API.

use fake_gitlab::FakeGitLab;
use fake_gitlab::oauth::{OAuthApp, s256};
use serde_json::{Value, json};

const REDIRECT: &str = "http://127.0.0.1:9/callback";
const VERIFIER: &str = "ks02i3jdikdo2k0dkfodf3m39rjfjsdk0wk349rj3jrhf";

async fn setup() -> (FakeGitLab, reqwest::Client) {
    let _ = rustls::crypto::ring::default_provider().install_default();
    let fake = FakeGitLab::start().await;
    fake.register_oauth_app(OAuthApp {
        client_id: "app-1".into(),
        client_secret: Some("secret-1".into()),
        redirect_uris: vec![REDIRECT.into()],
        scopes: vec!["api".into(), "read_api".into(), "openid".into()],
    });
    let http = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .unwrap();
    (fake, http)
}

/// The query pairs of a redirect's `Location`.
fn location(r: &reqwest::Response) -> Vec<(String, String)> {
    let to = r.headers()["location"].to_str().unwrap();
    assert!(to.starts_with(REDIRECT), "{to}");
    to.split_once('?')
        .map(|(_, q)| {
            q.split('&')
                .map(|p| {
                    let (k, v) = p.split_once('=').unwrap();
                    (k.to_string(), v.replace("%20", " "))
                })
                .collect()
        })
        .unwrap_or_default()
}

async fn authorize(fake: &FakeGitLab, http: &reqwest::Client, extra: &str) -> reqwest::Response {
    http.get(format!(
        "{}/oauth/authorize?client_id=app-1&redirect_uri={}&response_type=code&state=xyz&scope=api%20openid&code_challenge={}&code_challenge_method=S256{extra}",
        fake.url(),
        "http%3A%2F%2F127.0.0.1%3A9%2Fcallback",
        s256(VERIFIER)
    ))
    .send()
    .await
    .unwrap()
}

/// An `application/x-www-form-urlencoded` body, as OAuth clients send.
fn form(pairs: &[(&str, &str)]) -> String {
    let enc = |s: &str| {
        s.bytes()
            .map(|b| match b {
                b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' => {
                    (b as char).to_string()
                }
                _ => format!("%{b:02X}"),
            })
            .collect::<String>()
    };
    pairs
        .iter()
        .map(|(k, v)| format!("{}={}", enc(k), enc(v)))
        .collect::<Vec<_>>()
        .join("&")
}

async fn token(fake: &FakeGitLab, http: &reqwest::Client, pairs: &[(&str, &str)]) -> (u16, Value) {
    let r = http
        .post(format!("{}/oauth/token", fake.url()))
        .header("content-type", "application/x-www-form-urlencoded")
        .body(form(pairs))
        .send()
        .await
        .unwrap();
    (r.status().as_u16(), r.json().await.unwrap())
}

async fn user_of(fake: &FakeGitLab, http: &reqwest::Client, access: &str) -> (u16, Value) {
    let r = http
        .get(format!("{}/api/v4/user", fake.url()))
        .bearer_auth(access)
        .send()
        .await
        .unwrap();
    (r.status().as_u16(), r.json().await.unwrap())
}

async fn sign_in(fake: &FakeGitLab, http: &reqwest::Client, extra: &str) -> Value {
    let r = authorize(fake, http, extra).await;
    assert_eq!(r.status(), 302);
    let q = location(&r);
    let code = q.iter().find(|(k, _)| k == "code").unwrap().1.clone();
    let (status, t) = token(
        fake,
        http,
        &[
            ("grant_type", "authorization_code"),
            ("client_id", "app-1"),
            ("client_secret", "secret-1"),
            ("code", &code),
            ("redirect_uri", REDIRECT),
            ("code_verifier", VERIFIER),
        ],
    )
    .await;
    assert_eq!(status, 200, "{t}");
    t
}

#[tokio::test]
async fn code_with_pkce_then_refresh_and_revoke() {
    let (fake, http) = setup().await;
    let r = authorize(&fake, &http, "&fake_user=bob").await;
    assert_eq!(r.status(), 302);
    let q = location(&r);
    assert_eq!(q.iter().find(|(k, _)| k == "state").unwrap().1, "xyz");
    let code = q.iter().find(|(k, _)| k == "code").unwrap().1.clone();
    let exchange = |verifier: &'static str, code: String| {
        let (fake, http) = (fake.clone(), http.clone());
        async move {
            token(
                &fake,
                &http,
                &[
                    ("grant_type", "authorization_code"),
                    ("client_id", "app-1"),
                    ("client_secret", "secret-1"),
                    ("code", &code),
                    ("redirect_uri", REDIRECT),
                    ("code_verifier", verifier),
                ],
            )
            .await
        }
    };
    let (status, bad) = exchange(
        "not-the-verifier-at-all-not-the-verifier-at-all",
        code.clone(),
    )
    .await;
    assert_eq!(
        (status, bad["error"].as_str()),
        (400, Some("invalid_grant"))
    );
    let (status, t) = exchange(VERIFIER, code.clone()).await;
    assert_eq!(status, 200, "{t}");
    assert_eq!(t["token_type"], "Bearer");
    assert_eq!(t["expires_in"], 7200);
    assert_eq!(t["scope"], "api openid");
    assert!(t["created_at"].as_u64().unwrap() > 1_700_000_000);
    // Codes are single-use.
    assert_eq!(exchange(VERIFIER, code).await.1["error"], "invalid_grant");

    let access = t["access_token"].as_str().unwrap().to_string();
    let refresh = t["refresh_token"].as_str().unwrap().to_string();
    assert_eq!(user_of(&fake, &http, &access).await.1["username"], "bob");
    assert_eq!(fake.oauth_token_user(&access).as_deref(), Some("bob"));

    // Refresh: both old tokens die.
    let (status, t2) = token(
        &fake,
        &http,
        &[
            ("grant_type", "refresh_token"),
            ("client_id", "app-1"),
            ("client_secret", "secret-1"),
            ("refresh_token", &refresh),
        ],
    )
    .await;
    assert_eq!(status, 200, "{t2}");
    let access2 = t2["access_token"].as_str().unwrap().to_string();
    assert_ne!(access2, access);
    assert_eq!(
        user_of(&fake, &http, &access).await,
        (
            401,
            json!({"error": "invalid_token", "error_description": "Token was revoked. You have to re-authorize from the user."})
        )
    );
    let (status, again) = token(
        &fake,
        &http,
        &[
            ("grant_type", "refresh_token"),
            ("client_id", "app-1"),
            ("client_secret", "secret-1"),
            ("refresh_token", &refresh),
        ],
    )
    .await;
    assert_eq!(
        (status, again["error"].as_str()),
        (400, Some("invalid_grant"))
    );
    assert_eq!(user_of(&fake, &http, &access2).await.0, 200);

    // Userinfo with the openid scope.
    let info: Value = http
        .get(format!("{}/oauth/userinfo", fake.url()))
        .bearer_auth(&access2)
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(info["preferred_username"], "bob");
    assert_eq!(info["sub"], "2");

    // Revoke: 200 {}; the token is refused after.
    let r = http
        .post(format!("{}/oauth/revoke", fake.url()))
        .header("content-type", "application/x-www-form-urlencoded")
        .body(form(&[
            ("client_id", "app-1"),
            ("client_secret", "secret-1"),
            ("token", &access2),
        ]))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200);
    assert_eq!(r.json::<Value>().await.unwrap(), json!({}));
    assert_eq!(user_of(&fake, &http, &access2).await.0, 401);
}

#[tokio::test]
async fn two_users_at_once_and_an_expired_token() {
    let (fake, http) = setup().await;
    let bob = sign_in(&fake, &http, "&fake_user=bob").await;
    let alice = sign_in(&fake, &http, "").await;
    fake.set_oauth_user("carol");
    let carol = sign_in(&fake, &http, "").await;
    for (t, name) in [(&alice, "alice"), (&bob, "bob"), (&carol, "carol")] {
        let access = t["access_token"].as_str().unwrap();
        assert_eq!(user_of(&fake, &http, access).await.1["username"], name);
    }
    let access = alice["access_token"].as_str().unwrap();
    fake.expire_oauth_token(access);
    let (status, body) = user_of(&fake, &http, access).await;
    assert_eq!(status, 401);
    assert_eq!(
        body["error_description"],
        "Token is expired. You can either do re-authorization or token refresh."
    );
    // A request's Authorization header shows whose token reached the fake.
    let last = fake.requests().into_iter().last().unwrap();
    assert_eq!(last.authorization, Some(format!("Bearer {access}")));
}

#[tokio::test]
async fn wrong_client_redirect_scope_grant_type_and_secret() {
    let (fake, http) = setup().await;
    let page = http
        .get(format!(
            "{}/oauth/authorize?client_id=nope&redirect_uri=x&response_type=code",
            fake.url()
        ))
        .send()
        .await
        .unwrap();
    assert_eq!(page.status(), 401);
    assert!(
        page.text()
            .await
            .unwrap()
            .contains("Client authentication failed")
    );
    let page = http
        .get(format!(
            "{}/oauth/authorize?client_id=app-1&redirect_uri=http%3A%2F%2Fevil.example%2Fcb&response_type=code",
            fake.url()
        ))
        .send()
        .await
        .unwrap();
    assert_eq!(page.status(), 400);
    assert!(page.headers().get("location").is_none());
    let r = http
        .get(format!(
            "{}/oauth/authorize?client_id=app-1&redirect_uri=http%3A%2F%2F127.0.0.1%3A9%2Fcallback&response_type=code&scope=sudo&state=s1",
            fake.url()
        ))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 302);
    let q = location(&r);
    assert!(
        q.contains(&("error".into(), "invalid_scope".into())),
        "{q:?}"
    );
    assert!(q.contains(&("state".into(), "s1".into())));

    let (status, e) = token(
        &fake,
        &http,
        &[("grant_type", "password"), ("client_id", "app-1")],
    )
    .await;
    assert_eq!(
        (status, e["error"].as_str()),
        (400, Some("unsupported_grant_type"))
    );
    let (status, e) = token(
        &fake,
        &http,
        &[
            ("grant_type", "authorization_code"),
            ("client_id", "app-1"),
            ("client_secret", "wrong"),
            ("code", "x"),
        ],
    )
    .await;
    assert_eq!((status, e["error"].as_str()), (401, Some("invalid_client")));
    let (status, e) = token(&fake, &http, &[("client_id", "app-1")]).await;
    assert_eq!(
        (status, e),
        (
            400,
            json!({"error": "invalid_request", "error_description": "Missing required parameter: grant_type."})
        )
    );
}

/// What each kind of token says of itself: a personal token its scopes at
/// `/personal_access_tokens/self`, an OAuth token at Doorkeeper's
/// `/oauth/token/info` (each refusing the other kind), and a
/// `read_repository` token reaches the files API only.
#[tokio::test]
async fn each_token_describes_itself_where_gitlab_answers_for_its_kind() {
    let (fake, http) = setup().await;
    let get = |path: &str, header: (&'static str, &str)| {
        http.get(format!("{}{path}", fake.url()))
            .header(header.0, header.1)
            .send()
    };
    let personal = get(
        "/api/v4/personal_access_tokens/self",
        ("private-token", "glpat-alice-files"),
    )
    .await
    .unwrap();
    assert_eq!(personal.status(), 200);
    let body: Value = personal.json().await.unwrap();
    assert_eq!(body["scopes"], json!(["read_repository"]));

    let oauth = get(
        "/api/v4/personal_access_tokens/self",
        ("authorization", "Bearer oauth-alice-read"),
    )
    .await
    .unwrap();
    assert_eq!(oauth.status(), 400);
    let info = get(
        "/oauth/token/info",
        ("authorization", "Bearer oauth-alice-read"),
    )
    .await
    .unwrap();
    assert_eq!(info.status(), 200);
    let body: Value = info.json().await.unwrap();
    assert_eq!(
        (body["scope"].clone(), body["resource_owner_id"].clone()),
        (json!(["read_api"]), json!(1))
    );
    assert_eq!(body["scopes"], body["scope"], "the deprecated alias");
    let not_oauth = get("/oauth/token/info", ("authorization", "Bearer glpat-alice"))
        .await
        .unwrap();
    assert_eq!(not_oauth.status(), 401);

    let issues = get(
        "/api/v4/projects/1/issues",
        ("private-token", "glpat-alice-files"),
    )
    .await
    .unwrap();
    assert_eq!(issues.status(), 403);
    let file = get(
        "/api/v4/projects/1/repository/files/README.md/raw?ref=main",
        ("private-token", "glpat-alice-files"),
    )
    .await
    .unwrap();
    assert_eq!(file.status(), 200);
}

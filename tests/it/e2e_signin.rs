//! Sign in with GitLab, end to end with a scripted browser-less client:
//! discovery, registration (both kinds), this server's consent page,
//! GitLab's consent (the fake's), the callback, the token, calls that reach
//! GitLab with the signed-in user's token, refresh, revocation; and every
//! replay or forgery refused before anything reaches GitLab.

use crate::common;

use std::time::Duration;

use common::Lifecycle;
use common::http::{HttpServer, command, raw};
use common::signin::{APP_ID, APP_SECRET, KEY, free_port, gitlab_secrets, register_app, server};
use fake_gitlab::FakeGitLab;
use fake_gitlab::oauth::s256;
use gitlab_mcp::signin::Sealer;
use rmcp::model::CallToolRequestParams;
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use rmcp::{ClientServiceExt, RoleClient};
use serde_json::{Value, json};

const REDIRECT: &str = "http://127.0.0.1:9/callback";

fn location(r: &reqwest::Response) -> String {
    r.headers()["location"].to_str().unwrap().to_string()
}

fn query_param(url: &str, name: &str) -> Option<String> {
    let query = url.split_once('?')?.1;
    query.split('&').find_map(|pair| {
        let (k, v) = pair.split_once('=')?;
        (k == name).then(|| gitlab_mcp::encoding::percent_decode(v))
    })
}

/// What a client ends up with.
struct Tokens {
    access: String,
    refresh: Option<String>,
}

/// The browser's and the client's steps, through the redirects.
struct Flow<'a> {
    base: String,
    fake: &'a FakeGitLab,
    client_id: String,
    redirect_uri: String,
    verifier: String,
    /// The name the consent page must show.
    client_name: &'static str,
}

impl<'a> Flow<'a> {
    /// Discover the authorization server from a 401, as a client does, and
    /// register dynamically.
    async fn discover_and_register(server: &HttpServer, fake: &'a FakeGitLab) -> Flow<'a> {
        let r = raw()
            .post(server.mcp_url())
            .header("content-type", "application/json")
            .header("accept", "application/json, text/event-stream")
            .body(r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#)
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), 401);
        let challenge = r.headers()["www-authenticate"]
            .to_str()
            .unwrap()
            .to_string();
        let metadata_url = challenge.split('"').nth(1).unwrap().to_string();
        let prm: Value = raw()
            .get(&metadata_url)
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        let issuer = prm["authorization_servers"][0]
            .as_str()
            .unwrap()
            .to_string();
        let asm: Value = raw()
            .get(format!("{issuer}/.well-known/oauth-authorization-server"))
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        assert_eq!(asm["issuer"], issuer);
        assert_eq!(asm["code_challenge_methods_supported"], json!(["S256"]));
        assert_eq!(asm["client_id_metadata_document_supported"], true);
        let registered: Value = raw()
            .post(asm["registration_endpoint"].as_str().unwrap())
            .json(&json!({"redirect_uris": [REDIRECT], "client_name": "Scripted client", "token_endpoint_auth_method": "none"}))
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        Flow {
            base: issuer,
            fake,
            client_id: registered["client_id"].as_str().unwrap().to_string(),
            redirect_uri: REDIRECT.into(),
            verifier: "a-verifier-of-the-client-0123456789-abcdefghijklmn".into(),
            client_name: "Scripted client",
        }
    }

    fn authorize_url(&self) -> String {
        common_authorize_url(
            &self.base,
            &self.client_id,
            &self.redirect_uri,
            &s256(&self.verifier),
        )
    }

    /// Consent page → approve → GitLab (as `user`) → callback → the
    /// client's redirect: this server's code.
    async fn code_for(&self, user: &str) -> String {
        let page = raw().get(self.authorize_url()).send().await.unwrap();
        assert_eq!(page.status(), 200);
        let cookie = page.headers()["set-cookie"]
            .to_str()
            .unwrap()
            .split(';')
            .next()
            .unwrap()
            .to_string();
        let html = page.text().await.unwrap();
        let redirect_host = self.redirect_uri["http://".len()..]
            .split('/')
            .next()
            .unwrap();
        assert!(
            html.contains(self.client_name) && html.contains(redirect_host),
            "{html}"
        );
        let ticket = html
            .split("name=\"ticket\" value=\"")
            .nth(1)
            .unwrap()
            .split('"')
            .next()
            .unwrap()
            .to_string();
        let approved = raw()
            .post(format!("{}/authorize", self.base))
            .header("cookie", &cookie)
            .header("content-type", "application/x-www-form-urlencoded")
            .body(form(&[
                ("ticket", ticket.as_str()),
                ("decision", "approve"),
            ]))
            .send()
            .await
            .unwrap();
        assert_eq!(approved.status(), 303);
        let to_gitlab = location(&approved);
        assert!(
            to_gitlab.starts_with(&format!("{}/oauth/authorize?", self.fake.url())),
            "{to_gitlab}"
        );
        assert_eq!(
            query_param(&to_gitlab, "client_id").as_deref(),
            Some(APP_ID)
        );
        let at_gitlab = raw()
            .get(format!("{to_gitlab}&fake_user={user}"))
            .send()
            .await
            .unwrap();
        let back = location(&at_gitlab);
        assert!(
            back.starts_with(&format!("{}/oauth/callback?", self.base)),
            "{back}"
        );
        let callback = raw()
            .get(&back)
            .header("cookie", &cookie)
            .send()
            .await
            .unwrap();
        assert_eq!(callback.status(), 303);
        let to_client = location(&callback);
        assert!(
            to_client.starts_with(&format!("{}?", self.redirect_uri)),
            "{to_client}"
        );
        assert_eq!(
            query_param(&to_client, "state").as_deref(),
            Some("client-state")
        );
        assert_eq!(
            query_param(&to_client, "iss").as_deref(),
            Some(self.base.as_str())
        );
        query_param(&to_client, "code").unwrap()
    }

    async fn exchange(&self, code: &str, verifier: &str) -> reqwest::Response {
        raw()
            .post(format!("{}/token", self.base))
            .header("content-type", "application/x-www-form-urlencoded")
            .body(form(&[
                ("grant_type", "authorization_code"),
                ("code", code),
                ("redirect_uri", self.redirect_uri.as_str()),
                ("client_id", self.client_id.as_str()),
                ("code_verifier", verifier),
                ("resource", &format!("{}/mcp", self.base)),
            ]))
            .send()
            .await
            .unwrap()
    }

    async fn sign_in(&self, user: &str) -> Tokens {
        let code = self.code_for(user).await;
        let answer = self.exchange(&code, &self.verifier).await;
        assert_eq!(answer.status(), 200);
        let tokens: Value = answer.json().await.unwrap();
        assert_eq!(tokens["token_type"], "Bearer");
        Tokens {
            access: tokens["access_token"].as_str().unwrap().to_string(),
            refresh: tokens["refresh_token"].as_str().map(str::to_string),
        }
    }

    async fn refresh(&self, refresh: &str) -> reqwest::Response {
        raw()
            .post(format!("{}/token", self.base))
            .header("content-type", "application/x-www-form-urlencoded")
            .body(form(&[
                ("grant_type", "refresh_token"),
                ("refresh_token", refresh),
                ("client_id", self.client_id.as_str()),
            ]))
            .send()
            .await
            .unwrap()
    }
}

fn common_authorize_url(base: &str, client_id: &str, redirect: &str, challenge: &str) -> String {
    let mut url = format!(
        "{base}/authorize?response_type=code&code_challenge_method=S256&state=client-state"
    );
    for (k, v) in [
        ("client_id", client_id),
        ("redirect_uri", redirect),
        ("code_challenge", challenge),
        ("resource", &format!("{base}/mcp")),
    ] {
        url.push('&');
        url.push_str(k);
        url.push('=');
        gitlab_mcp::encoding::percent_encode_into(&mut url, v);
    }
    url
}

/// `gitlab_user current` with a bearer token: its text and error flag.
async fn whoami(mcp_url: &str, token: &str) -> (String, bool) {
    let client = mcp_client(mcp_url, token).await;
    let Value::Object(args) = json!({"action": "current"}) else {
        unreachable!()
    };
    let result = client
        .call_tool(CallToolRequestParams::new("gitlab_user").with_arguments(args))
        .await
        .unwrap();
    let text = result
        .content
        .iter()
        .filter_map(|c| c.as_text().map(|t| t.text.clone()))
        .collect::<String>();
    let _ = client.cancel().await;
    (text, result.is_error.unwrap_or(false))
}

async fn mcp_client(mcp_url: &str, token: &str) -> rmcp::service::RunningService<RoleClient, ()> {
    let config =
        StreamableHttpClientTransportConfig::with_uri(mcp_url.to_string()).auth_header(token);
    ().serve_with_lifecycle(
        StreamableHttpClientTransport::from_config(config),
        common::mode(Lifecycle::Discover),
    )
    .await
    .expect("an MCP session with the token")
}

/// The status of an MCP request with this bearer token, and its challenge.
async fn mcp_status(mcp_url: &str, token: &str) -> (u16, String) {
    let r = raw()
        .post(mcp_url)
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .header("authorization", format!("Bearer {token}"))
        .body(r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"x","version":"1"}}}"#)
        .send()
        .await
        .unwrap();
    let challenge = r
        .headers()
        .get("www-authenticate")
        .map(|v| v.to_str().unwrap().to_string())
        .unwrap_or_default();
    (r.status().as_u16(), challenge)
}

/// The GitLab token the fake received last, and whose it is.
fn last_gitlab_user(fake: &FakeGitLab) -> Option<String> {
    let request = fake
        .requests()
        .into_iter()
        .rev()
        .find(|r| r.raw_path.starts_with("/api/v4"))?;
    let token = request.authorization?.strip_prefix("Bearer ")?.to_string();
    fake.oauth_token_user(&token)
}

#[tokio::test]
async fn sign_in_call_refresh_and_revoke() {
    let fake = FakeGitLab::start().await;
    let port = free_port();
    register_app(&fake, port);
    let server = server(&fake, port, port, KEY, &[]).await;
    let flow = Flow::discover_and_register(&server, &fake).await;
    let tokens = flow.sign_in("alice").await;
    assert!(tokens.access.starts_with("gmcp1.") && !tokens.access.contains("alice"));

    fake.clear_requests();
    let (text, is_error) = whoami(&server.mcp_url(), &tokens.access).await;
    assert!(
        !is_error && text.contains("\"username\":\"alice\""),
        "{text}"
    );
    assert_eq!(
        last_gitlab_user(&fake).as_deref(),
        Some("alice"),
        "the fake got alice's GitLab token"
    );

    // Refresh: a new access token that works; GitLab rotated the inner one.
    let refreshed: Value = flow
        .refresh(tokens.refresh.as_deref().unwrap())
        .await
        .json()
        .await
        .unwrap();
    let access = refreshed["access_token"].as_str().unwrap().to_string();
    let (text, _) = whoami(&server.mcp_url(), &access).await;
    assert!(text.contains("\"username\":\"alice\""), "{text}");
    // The old refresh token's GitLab token was rotated: it is refused.
    assert_eq!(
        flow.refresh(tokens.refresh.as_deref().unwrap())
            .await
            .status(),
        400
    );

    // Revoke: GitLab no longer accepts the token inside.
    let r = raw()
        .post(format!("{}/revoke", flow.base))
        .header("content-type", "application/x-www-form-urlencoded")
        .body(form(&[("token", access.as_str())]))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200);
    let (text, is_error) = whoami(&server.mcp_url(), &access).await;
    assert!(is_error && text.contains("401"), "{text}");
    assert!(
        !server.stderr_text().contains("gmcp1."),
        "no token in the logs"
    );
}

#[tokio::test]
async fn no_secret_of_the_sign_in_reaches_logs_metrics_or_answers_at_any_log_level() {
    for level in ["error", "warn", "info", "debug", "trace"] {
        let fake = FakeGitLab::start().await;
        let port = free_port();
        register_app(&fake, port);
        let server = server(
            &fake,
            port,
            port,
            KEY,
            &[("RUST_LOG", level), ("GITLAB_MCP_LOG_FORMAT", "json")],
        )
        .await;
        let flow = Flow::discover_and_register(&server, &fake).await;
        let code = flow.code_for("alice").await;
        let tokens: Value = flow
            .exchange(&code, &flow.verifier)
            .await
            .json()
            .await
            .unwrap();
        let access = tokens["access_token"].as_str().unwrap().to_string();
        let refresh = tokens["refresh_token"].as_str().unwrap().to_string();
        let mut answers = String::new();
        answers.push_str(&whoami(&server.mcp_url(), &access).await.0);
        // A replayed code, a refresh, a replayed refresh, a forged token.
        answers.push_str(
            &flow
                .exchange(&code, &flow.verifier)
                .await
                .text()
                .await
                .unwrap(),
        );
        let refreshed: Value = flow.refresh(&refresh).await.json().await.unwrap();
        let access2 = refreshed["access_token"].as_str().unwrap().to_string();
        answers.push_str(&flow.refresh(&refresh).await.text().await.unwrap());
        let forged = format!("{}x", &access2[..access2.len() - 1]);
        answers.push_str(&mcp_status(&server.mcp_url(), &forged).await.1);
        answers.push_str(&whoami(&server.mcp_url(), &access2).await.0);
        let revoked = raw()
            .post(format!("{}/revoke", flow.base))
            .header("content-type", "application/x-www-form-urlencoded")
            .body(form(&[("token", access2.as_str())]))
            .send()
            .await
            .unwrap();
        answers.push_str(&revoked.text().await.unwrap());
        answers.push_str(&whoami(&server.mcp_url(), &access2).await.0);
        let metrics = server.metrics().await;

        let mut secrets = gitlab_secrets(&fake);
        assert!(
            secrets.len() >= 4,
            "GitLab's code, tokens and refresh tokens: {secrets:?}"
        );
        secrets.extend(
            [
                KEY,
                APP_SECRET,
                &code,
                &flow.verifier,
                &access,
                &refresh,
                &access2,
                &forged,
            ]
            .map(str::to_string),
        );
        if let Some(r) = refreshed["refresh_token"].as_str() {
            secrets.push(r.to_string());
        }
        let stderr = server.stderr_text();
        server.terminate().await;
        for (what, text) in [
            ("stderr", &stderr),
            ("metrics", &metrics),
            ("answers", &answers),
        ] {
            for secret in &secrets {
                assert!(
                    !text.contains(secret.as_str()),
                    "{level}: {what} holds a secret ({} characters)",
                    secret.len()
                );
            }
        }
        assert!(
            answers.contains("\"username\":\"alice\""),
            "the flow ran: {answers}"
        );
    }
}

#[tokio::test]
async fn two_users_signed_in_at_once_never_see_each_others_token() {
    let fake = FakeGitLab::start().await;
    let port = free_port();
    register_app(&fake, port);
    let server = server(&fake, port, port, KEY, &[]).await;
    let flow = Flow::discover_and_register(&server, &fake).await;
    let alice = flow.sign_in("alice").await;
    let bob = flow.sign_in("bob").await;
    for _ in 0..3 {
        for (who, tokens) in [("alice", &alice), ("bob", &bob)] {
            let (text, _) = whoami(&server.mcp_url(), &tokens.access).await;
            assert!(
                text.contains(&format!("\"username\":\"{who}\"")),
                "{who}: {text}"
            );
            assert_eq!(last_gitlab_user(&fake).as_deref(), Some(who));
        }
    }
}

#[tokio::test]
async fn replays_and_forgeries_fail_before_gitlab() {
    let fake = FakeGitLab::start().await;
    let port = free_port();
    register_app(&fake, port);
    let server = server(&fake, port, port, KEY, &[]).await;
    let flow = Flow::discover_and_register(&server, &fake).await;
    let mcp = server.mcp_url();

    // A wrong verifier: refused by this server, GitLab's code untouched.
    let code = flow.code_for("alice").await;
    let r = flow
        .exchange(&code, "not-the-verifier-0123456789-0123456789-abcdef")
        .await;
    assert_eq!(r.status(), 400);
    assert_eq!(r.json::<Value>().await.unwrap()["error"], "invalid_grant");
    // The right verifier once; the same code again is refused (GitLab's
    // codes are single-use, and this code carries GitLab's).
    assert_eq!(flow.exchange(&code, &flow.verifier).await.status(), 200);
    let again = flow.exchange(&code, &flow.verifier).await;
    assert_eq!(again.status(), 400);
    assert_eq!(
        again.json::<Value>().await.unwrap()["error"],
        "invalid_grant"
    );

    // A redirect URI the client did not register: a page, no redirect.
    let url = common_authorize_url(
        &flow.base,
        &flow.client_id,
        "https://evil.example/steal",
        &s256(&flow.verifier),
    );
    let r = raw().get(url).send().await.unwrap();
    assert_eq!(r.status(), 400);
    assert!(r.headers().get("location").is_none());
    // A resource that is not this server: an error to the client.
    let url = common_authorize_url(&flow.base, &flow.client_id, REDIRECT, &s256(&flow.verifier))
        .replace("resource=", "resource=https%3A%2F%2Fother.example%2Fmcp&x=");
    let r = raw().get(url).send().await.unwrap();
    assert_eq!(
        query_param(&location(&r), "error").as_deref(),
        Some("invalid_target")
    );

    // Consent posted without the browser's cookie (cross-site): refused.
    let page = raw().get(flow.authorize_url()).send().await.unwrap();
    let html = page.text().await.unwrap();
    let ticket = html
        .split("name=\"ticket\" value=\"")
        .nth(1)
        .unwrap()
        .split('"')
        .next()
        .unwrap()
        .to_string();
    let r = raw()
        .post(format!("{}/authorize", flow.base))
        .header("content-type", "application/x-www-form-urlencoded")
        .body(form(&[
            ("ticket", ticket.as_str()),
            ("decision", "approve"),
        ]))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 403);

    fake.clear_requests();
    let signed_in = flow.sign_in("alice").await;
    let good = signed_in.access.clone();
    fake.clear_requests();
    // A refresh naming another resource (RFC 8707): refused here.
    let r = raw()
        .post(format!("{}/token", flow.base))
        .header("content-type", "application/x-www-form-urlencoded")
        .body(form(&[
            ("grant_type", "refresh_token"),
            ("refresh_token", signed_in.refresh.as_deref().unwrap()),
            ("client_id", flow.client_id.as_str()),
            ("resource", "https://other.example/mcp"),
        ]))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 400);
    assert_eq!(r.json::<Value>().await.unwrap()["error"], "invalid_target");
    // Tokens this server must refuse, with nothing sent to GitLab.
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs();
    let ours = Sealer::new(KEY).unwrap();
    let foreign = Sealer::new("another-servers-key-0123456789abcdef0123").unwrap();
    let payload = |aud: String, exp: u64| json!({"aud": aud, "c": flow.client_id, "t": "oauth-alice", "exp": exp});
    let mut tampered = good.clone().into_bytes();
    let i = tampered.len() - 8;
    tampered[i] = if tampered[i] == b'x' { b'y' } else { b'x' };
    let cases = [
        (
            "unknown key",
            foreign.seal("access", &payload(mcp.clone(), now + 3600)),
        ),
        (
            "expired",
            ours.seal("access", &payload(mcp.clone(), now - 1)),
        ),
        (
            "other audience",
            ours.seal(
                "access",
                &payload("https://other.example/mcp".into(), now + 3600),
            ),
        ),
        (
            "another purpose",
            ours.seal("refresh", &payload(mcp.clone(), now + 3600)),
        ),
        ("tampered", String::from_utf8(tampered).unwrap()),
    ];
    for (what, token) in cases {
        let (status, challenge) = mcp_status(&mcp, &token).await;
        assert_eq!(status, 401, "{what}");
        assert!(
            challenge.contains("error=\"invalid_token\"")
                && challenge.contains("resource_metadata="),
            "{what}: {challenge}"
        );
    }
    assert!(
        fake.requests().is_empty(),
        "nothing reached GitLab: {:?}",
        fake.requests()
    );
    // A personal access token sent directly keeps working beside sign-in.
    let client = mcp_client(&mcp, "glpat-bob").await;
    let Value::Object(args) = json!({"action": "current"}) else {
        unreachable!()
    };
    let result = client
        .call_tool(CallToolRequestParams::new("gitlab_user").with_arguments(args))
        .await
        .unwrap();
    assert!(format!("{:?}", result.content).contains("bob"));
    let _ = client.cancel().await;
}

/// Two processes holding the same key: sign in through one, call through
/// the other (both behind one public URL, as behind a load balancer).
#[tokio::test]
async fn a_native_app_may_redirect_to_any_loopback_port_but_nothing_else_may_vary() {
    let fake = FakeGitLab::start().await;
    let port = free_port();
    register_app(&fake, port);
    let server = server(&fake, port, port, KEY, &[]).await;
    let mut flow = Flow::discover_and_register(&server, &fake).await;
    // Registered as REDIRECT (port 9); the app listens on another port now
    // (OAuth 2.1 section 8.4.2, RFC 8252 section 7.3).
    flow.redirect_uri = "http://127.0.0.1:53121/callback".into();
    let tokens = flow.sign_in("alice").await;
    let (text, is_error) = whoami(&server.mcp_url(), &tokens.access).await;
    assert!(
        !is_error && text.contains("\"username\":\"alice\""),
        "{text}"
    );

    // The code is bound to the port it was sent to.
    let code = flow.code_for("alice").await;
    flow.redirect_uri = REDIRECT.into();
    let r = flow.exchange(&code, &flow.verifier).await;
    assert_eq!(r.status(), 400);
    assert_eq!(r.json::<Value>().await.unwrap()["error"], "invalid_grant");

    // Another path, another loopback address, or userinfo before the host:
    // a page, no redirect.
    for other in [
        "http://127.0.0.1:53121/elsewhere",
        "http://127.0.0.2:9/callback",
        "http://127.0.0.1:9@evil.example/callback",
    ] {
        let url = common_authorize_url(&flow.base, &flow.client_id, other, &s256(&flow.verifier));
        let r = raw().get(url).send().await.unwrap();
        assert_eq!(r.status(), 400, "{other}");
        assert!(r.headers().get("location").is_none(), "{other}");
    }
}

#[tokio::test]
async fn any_instance_with_the_key_serves_any_user() {
    let fake = FakeGitLab::start().await;
    let (one_port, two_port) = (free_port(), free_port());
    register_app(&fake, one_port);
    let one = server(&fake, one_port, one_port, KEY, &[]).await;
    let two = server(&fake, two_port, one_port, KEY, &[]).await;
    let flow = Flow::discover_and_register(&one, &fake).await;
    let tokens = flow.sign_in("alice").await;
    let (text, is_error) = whoami(&two.mcp_url(), &tokens.access).await;
    assert!(
        !is_error && text.contains("\"username\":\"alice\""),
        "{text}"
    );
    // The refresh goes to the second instance too.
    let r = raw()
        .post(format!("http://127.0.0.1:{two_port}/token"))
        .header("content-type", "application/x-www-form-urlencoded")
        .body(form(&[
            ("grant_type", "refresh_token"),
            ("refresh_token", tokens.refresh.as_deref().unwrap()),
            ("client_id", flow.client_id.as_str()),
        ]))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200);
}

/// A client id that is the URL of its metadata document (fetched over
/// HTTPS); private addresses only when the operator allows them.
#[tokio::test]
async fn client_id_metadata_documents() {
    let fake = FakeGitLab::start().await;
    let (host, ca_pem) = FakeGitLab::start_tls().await;
    let ca = std::env::temp_dir().join(format!("gitlab-mcp-test-ca-{}.pem", std::process::id()));
    std::fs::write(&ca, &ca_pem).unwrap();
    let client_id = format!("{}/documents/client.json", host.url());
    host.serve_document(
        "client.json",
        &json!({"client_id": client_id, "client_name": "Metadata client", "redirect_uris": [REDIRECT]}).to_string(),
    );
    let port = free_port();
    register_app(&fake, port);
    let ca_path = ca.display().to_string();
    let server_ok = server(
        &fake,
        port,
        port,
        KEY,
        &[
            ("GITLAB_CA_CERT", &ca_path),
            ("GITLAB_MCP_OAUTH_ALLOW_PRIVATE_CLIENTS", "true"),
        ],
    )
    .await;
    let flow = Flow {
        base: server_ok.url.clone(),
        fake: &fake,
        client_id: client_id.clone(),
        redirect_uri: REDIRECT.into(),
        verifier: "verifier-of-the-metadata-client-0123456789-abcdefgh".into(),
        client_name: "Metadata client",
    };
    let page = raw().get(flow.authorize_url()).send().await.unwrap();
    assert_eq!(page.status(), 200);
    assert!(page.text().await.unwrap().contains("Metadata client"));
    let tokens = flow.sign_in("carol").await;
    let (text, _) = whoami(&server_ok.mcp_url(), &tokens.access).await;
    assert!(text.contains("\"username\":\"carol\""), "{text}");

    // Without the operator's allowance, a client on a private address is
    // never fetched.
    let strict_port = free_port();
    let strict = server(
        &fake,
        strict_port,
        strict_port,
        KEY,
        &[("GITLAB_CA_CERT", &ca_path)],
    )
    .await;
    let url = common_authorize_url(&strict.url, &client_id, REDIRECT, &s256(&flow.verifier));
    let r = raw().get(url).send().await.unwrap();
    assert_eq!(r.status(), 400);
    assert!(r.text().await.unwrap().contains("private address"));
    let _ = std::fs::remove_file(ca);
    tokio::time::sleep(Duration::from_millis(10)).await;
}

#[tokio::test]
async fn sign_in_refuses_to_start_without_its_settings() {
    let fake = FakeGitLab::start().await;
    for (env, expected) in [
        (
            vec![("GITLAB_OAUTH_CLIENT_ID", "x")],
            "GITLAB_OAUTH_CLIENT_SECRET",
        ),
        (
            vec![
                ("GITLAB_OAUTH_CLIENT_ID", "x"),
                ("GITLAB_OAUTH_CLIENT_SECRET", "y"),
            ],
            "GITLAB_MCP_TOKEN_KEY",
        ),
        (
            vec![
                ("GITLAB_OAUTH_CLIENT_ID", "x"),
                ("GITLAB_OAUTH_CLIENT_SECRET", "y"),
                ("GITLAB_MCP_TOKEN_KEY", "short"),
            ],
            "at least 32 bytes",
        ),
        (
            vec![
                ("GITLAB_OAUTH_CLIENT_ID", "x"),
                ("GITLAB_OAUTH_CLIENT_SECRET", "y"),
                ("GITLAB_MCP_TOKEN_KEY", KEY),
            ],
            "GITLAB_MCP_PUBLIC_URL",
        ),
    ] {
        let out = command(&fake, &env, &[]).output().await.unwrap();
        assert_eq!(out.status.code(), Some(2));
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(stderr.contains(expected), "{expected}: {stderr}");
        assert!(!stderr.contains("glpat") && !stderr.contains(KEY));
    }
}

/// What the token or revocation endpoint answered to a mistake: status,
/// `Cache-Control`, `WWW-Authenticate` and the body.
struct Refused {
    status: u16,
    cache_control: Option<String>,
    challenge: Option<String>,
    body: Value,
}

async fn refused(request: reqwest::RequestBuilder) -> Refused {
    let r = request.send().await.unwrap();
    let header = |name: &str| {
        r.headers()
            .get(name)
            .map(|v| v.to_str().unwrap().to_string())
    };
    Refused {
        status: r.status().as_u16(),
        cache_control: header("cache-control"),
        challenge: header("www-authenticate"),
        body: r.json().await.unwrap(),
    }
}

/// Each mistake at the token and revocation endpoints gets its OAuth error
/// (RFC 6749 §5.2), never cached; a client that tried HTTP Basic is
/// challenged to try it again. The body is a form with each parameter at
/// most once (§3.2); parameters this server does not use are ignored.
#[tokio::test]
async fn the_token_endpoint_answers_each_mistake_with_its_oauth_error() {
    let fake = FakeGitLab::start().await;
    let port = free_port();
    register_app(&fake, port);
    let server = server(&fake, port, port, KEY, &[]).await;
    let flow = Flow::discover_and_register(&server, &fake).await;
    let confidential: Value = raw()
        .post(format!("{}/register", flow.base))
        .json(&json!({"redirect_uris": [REDIRECT], "token_endpoint_auth_method": "client_secret_basic"}))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let confidential_id = confidential["client_id"].as_str().unwrap();
    let token = || {
        raw()
            .post(format!("{}/token", flow.base))
            .header("content-type", "application/x-www-form-urlencoded")
    };
    let public = flow.client_id.as_str();
    let cases = [
        (
            "an unsupported grant",
            token().body(form(&[("grant_type", "password"), ("client_id", public)])),
            400,
            "unsupported_grant_type",
            "grant type `password` is not supported",
        ),
        (
            "no grant type",
            token().body(form(&[("client_id", public)])),
            400,
            "invalid_request",
            "grant_type is missing",
        ),
        (
            "no client",
            token().body(form(&[("grant_type", "refresh_token")])),
            401,
            "invalid_client",
            "client_id is missing",
        ),
        (
            "a confidential client without its secret",
            token().body(form(&[
                ("grant_type", "refresh_token"),
                ("client_id", confidential_id),
            ])),
            401,
            "invalid_client",
            "the client secret is wrong or missing",
        ),
        (
            "unknown parameters, ignored",
            token().body(form(&[
                ("grant_type", "refresh_token"),
                ("client_id", public),
                ("refresh_token", "gmcp1.forged"),
                ("scope", "api"),
                ("unknown", "x"),
            ])),
            400,
            "invalid_grant",
            "the refresh token is not one this server issued",
        ),
        (
            "not a form",
            raw()
                .post(format!("{}/token", flow.base))
                .json(&json!({"grant_type": "refresh_token", "client_id": public})),
            400,
            "invalid_request",
            "the body must be application/x-www-form-urlencoded",
        ),
        (
            "revocation without a token",
            raw()
                .post(format!("{}/revoke", flow.base))
                .header("content-type", "application/x-www-form-urlencoded")
                .body(form(&[("token_type_hint", "access_token")])),
            400,
            "invalid_request",
            "token is missing",
        ),
    ];
    for (what, request, status, error, description) in cases {
        let got = refused(request).await;
        assert_eq!(got.status, status, "{what}");
        assert_eq!(got.body["error"], error, "{what}");
        assert_eq!(got.body["error_description"], description, "{what}");
        assert_eq!(got.cache_control.as_deref(), Some("no-store"), "{what}");
        assert_eq!(got.challenge, None, "{what}");
    }

    // A parameter given twice: refused, whichever value would have won.
    let twice = refused(token().body(form(&[
        ("grant_type", "refresh_token"),
        ("client_id", public),
        ("grant_type", "authorization_code"),
    ])))
    .await;
    assert_eq!(twice.status, 400);
    assert_eq!(twice.body["error"], "invalid_request");
    let description = twice.body["error_description"].as_str().unwrap();
    assert!(description.contains("grant_type"), "{description}");

    // HTTP Basic with a wrong secret: challenged to authenticate again.
    let basic = refused(
        token()
            .basic_auth(confidential_id, Some("gmcp1.wrong-secret"))
            .body(form(&[("grant_type", "refresh_token")])),
    )
    .await;
    assert_eq!(basic.status, 401);
    assert_eq!(basic.body["error"], "invalid_client");
    assert_eq!(
        basic.body["error_description"],
        "the client secret is wrong or missing"
    );
    assert_eq!(basic.cache_control.as_deref(), Some("no-store"));
    assert_eq!(
        basic.challenge.as_deref(),
        Some("Basic realm=\"gitlab-mcp\"")
    );
    assert!(
        !fake
            .requests()
            .iter()
            .any(|r| r.raw_path.starts_with("/oauth/")),
        "nothing reached GitLab's OAuth endpoints: {:?}",
        fake.requests()
    );
}

/// `application/x-www-form-urlencoded` of these pairs.
fn form(pairs: &[(&str, &str)]) -> String {
    let mut out = String::new();
    for (k, v) in pairs {
        if !out.is_empty() {
            out.push('&');
        }
        gitlab_mcp::encoding::percent_encode_into(&mut out, k);
        out.push('=');
        gitlab_mcp::encoding::percent_encode_into(&mut out, v);
    }
    out
}

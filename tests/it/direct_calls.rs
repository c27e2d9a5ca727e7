//! The stateless endpoint answers plain 2026-07-28 tool calls itself
//! (src/mcp/direct_call.rs) and gives every other request to rmcp. Each
//! request here goes to two servers on one fake GitLab, the default and
//! `--rmcp-only`: the answers (status, headers, bytes) and what GitLab
//! received must be the same, and the default server's
//! `gitlab_mcp_http_direct_calls_total` says which path answered.

use crate::common;

use common::http::{HttpServer, raw};
use fake_gitlab::FakeGitLab;
use serde_json::{Value, json};

/// A request: its headers beyond Host and Content-Length, and its body.
struct Case {
    what: &'static str,
    headers: Vec<(&'static str, &'static str)>,
    body: String,
    /// Whether the default server answers it without rmcp.
    direct: bool,
}

const TOKEN: &str = "glpat-alice";

/// The headers the official SDKs send with a 2026-07-28 `tools/call`.
fn plain_headers() -> Vec<(&'static str, &'static str)> {
    vec![
        ("private-token", TOKEN),
        ("accept", "application/json, text/event-stream"),
        ("content-type", "application/json"),
        ("mcp-protocol-version", "2026-07-28"),
        ("mcp-method", "tools/call"),
        ("mcp-name", "gitlab_issue"),
    ]
}

fn with(header: &'static str, value: &'static str) -> Vec<(&'static str, &'static str)> {
    let mut headers: Vec<_> = plain_headers()
        .into_iter()
        .filter(|(name, _)| *name != header)
        .collect();
    headers.push((header, value));
    headers
}

fn without(header: &'static str) -> Vec<(&'static str, &'static str)> {
    plain_headers()
        .into_iter()
        .filter(|(name, _)| *name != header)
        .collect()
}

fn meta(capabilities: Value) -> Value {
    json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientInfo": {"name": "differential", "version": "1"},
        "io.modelcontextprotocol/clientCapabilities": capabilities,
    })
}

fn call(id: Value, name: &str, arguments: Value, meta: Value) -> String {
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
        "params": {"name": name, "arguments": arguments, "_meta": meta}})
    .to_string()
}

fn get_issue() -> Value {
    json!({"action": "get", "params": {"project_id": 1, "issue_iid": 3}})
}

fn cases() -> Vec<Case> {
    let plain = |what, body| Case {
        what,
        headers: plain_headers(),
        body,
        direct: true,
    };
    let to_rmcp = |what, headers, body| Case {
        what,
        headers,
        body,
        direct: false,
    };
    let mut with_progress = meta(json!({}));
    with_progress["progressToken"] = json!("p1");
    vec![
        plain(
            "an issue read",
            call(json!(7), "gitlab_issue", get_issue(), meta(json!({}))),
        ),
        plain(
            "a teaching error, string id",
            call(
                json!("a-1"),
                "gitlab_issue",
                json!({"action": "get", "params": {"project_id": 1, "iid": 3}}),
                meta(json!({})),
            ),
        ),
        plain(
            "no arguments",
            json!({"jsonrpc": "2.0", "id": 8, "method": "tools/call",
                "params": {"name": "gitlab_issue", "_meta": meta(json!({}))}})
            .to_string(),
        ),
        Case {
            what: "an unknown tool (a JSON-RPC error)",
            headers: with("mcp-name", "gitlab_issues"),
            body: call(json!(9), "gitlab_issues", get_issue(), meta(json!({}))),
            direct: true,
        },
        plain(
            "a delete from a client that cannot be asked (refused)",
            call(
                json!(10),
                "gitlab_issue",
                json!({"action": "delete", "params": {"project_id": 1, "issue_iid": 5}}),
                meta(json!({})),
            ),
        ),
        plain(
            "a delete from a client that can be asked (input required)",
            call(
                json!(11),
                "gitlab_issue",
                json!({"action": "delete", "params": {"project_id": 1, "issue_iid": 5}}),
                meta(json!({"elicitation": {}})),
            ),
        ),
        to_rmcp(
            "a progress token",
            plain_headers(),
            call(json!(12), "gitlab_issue", get_issue(), with_progress),
        ),
        to_rmcp(
            "Mcp-Name contradicting the body",
            with("mcp-name", "gitlab_project"),
            call(json!(13), "gitlab_issue", get_issue(), meta(json!({}))),
        ),
        to_rmcp(
            "Mcp-Name in SEP-2243's Base64 form",
            with("mcp-name", "=?base64?Z2l0bGFiX2lzc3Vl?="),
            call(json!(14), "gitlab_issue", get_issue(), meta(json!({}))),
        ),
        to_rmcp(
            "no Mcp-Method",
            without("mcp-method"),
            call(json!(15), "gitlab_issue", get_issue(), meta(json!({}))),
        ),
        to_rmcp(
            "event streams not accepted",
            with("accept", "application/json"),
            call(json!(16), "gitlab_issue", get_issue(), meta(json!({}))),
        ),
        to_rmcp(
            "media types with quality values",
            with("accept", "application/json;q=0.9, text/event-stream"),
            call(json!(17), "gitlab_issue", get_issue(), meta(json!({}))),
        ),
        to_rmcp(
            "a charset on the content type",
            with("content-type", "application/json; charset=utf-8"),
            call(json!(18), "gitlab_issue", get_issue(), meta(json!({}))),
        ),
        to_rmcp(
            "no _meta",
            plain_headers(),
            json!({"jsonrpc": "2.0", "id": 19, "method": "tools/call",
                "params": {"name": "gitlab_issue", "arguments": get_issue()}})
            .to_string(),
        ),
        to_rmcp(
            "a legacy request (no _meta, 2025-11-25)",
            with("mcp-protocol-version", "2025-11-25"),
            json!({"jsonrpc": "2.0", "id": 20, "method": "tools/call",
                "params": {"name": "gitlab_issue", "arguments": get_issue()}})
            .to_string(),
        ),
        to_rmcp(
            "_meta's version not the header's",
            plain_headers(),
            call(
                json!(21),
                "gitlab_issue",
                get_issue(),
                json!({
                    "io.modelcontextprotocol/protocolVersion": "2025-11-25",
                    "io.modelcontextprotocol/clientCapabilities": {},
                }),
            ),
        ),
        to_rmcp(
            "tools/list",
            with("mcp-method", "tools/list"),
            json!({"jsonrpc": "2.0", "id": 22, "method": "tools/list",
                "params": {"_meta": meta(json!({}))}})
            .to_string(),
        ),
        to_rmcp(
            "not JSON",
            plain_headers(),
            "{\"jsonrpc\": \"2.0\", \"id\": 23,".to_string(),
        ),
        to_rmcp(
            "a batch",
            plain_headers(),
            format!(
                "[{}]",
                call(json!(24), "gitlab_issue", get_issue(), meta(json!({})))
            ),
        ),
        to_rmcp(
            "a member JSON-RPC does not define",
            plain_headers(),
            json!({"jsonrpc": "2.0", "id": 25, "method": "tools/call", "extra": 1,
                "params": {"name": "gitlab_issue", "arguments": get_issue(), "_meta": meta(json!({}))}})
            .to_string(),
        ),
    ]
}

/// Status, headers but `date`, body.
async fn exchange(url: &str, case: &Case) -> (u16, Vec<(String, String)>, String) {
    let mut request = raw().post(url);
    for (name, value) in &case.headers {
        request = request.header(*name, *value);
    }
    let response = request.body(case.body.clone()).send().await.unwrap();
    let status = response.status().as_u16();
    let mut headers: Vec<(String, String)> = response
        .headers()
        .iter()
        .filter(|(name, _)| *name != "date")
        .map(|(name, value)| (name.to_string(), value.to_str().unwrap().to_string()))
        .collect();
    headers.sort();
    (status, headers, response.text().await.unwrap())
}

async fn direct_calls(server: &HttpServer) -> u64 {
    server
        .metrics()
        .await
        .lines()
        .find_map(|line| line.strip_prefix("gitlab_mcp_http_direct_calls_total "))
        .expect("the direct calls counter")
        .parse()
        .unwrap()
}

/// What GitLab received, but the token's scope lookups (each server makes
/// its own once).
fn received(fake: &FakeGitLab) -> Vec<String> {
    let lines = fake
        .requests()
        .iter()
        .filter(|r| !common::is_scope_lookup(r))
        .map(|r| format!("{} {:?}", r.line(), r.private_token))
        .collect();
    fake.clear_requests();
    lines
}

#[tokio::test]
async fn plain_calls_are_answered_as_rmcp_answers_them_and_the_rest_by_rmcp() {
    let fake = FakeGitLab::start().await;
    let args = ["--require-client-token"];
    let direct = HttpServer::start(&fake, &[], &args).await;
    let rmcp_only = HttpServer::start(&fake, &[], &["--require-client-token", "--rmcp-only"]).await;
    let mut taken = 0;
    for case in cases() {
        fake.clear_requests();
        let theirs = exchange(&rmcp_only.mcp_url(), &case).await;
        let gitlab_theirs = received(&fake);
        let ours = exchange(&direct.mcp_url(), &case).await;
        let gitlab_ours = received(&fake);
        assert_eq!(ours, theirs, "{}: the answers differ", case.what);
        assert_eq!(
            gitlab_ours, gitlab_theirs,
            "{}: GitLab received different requests",
            case.what
        );
        taken += u64::from(case.direct);
        assert_eq!(
            direct_calls(&direct).await,
            taken,
            "{}: expected direct = {}; answer {:?}",
            case.what,
            case.direct,
            ours
        );
    }
    assert_eq!(direct_calls(&rmcp_only).await, 0);

    // The cases say something: the read reached GitLab and answered.
    let read = &cases()[0];
    let (status, _, body) = exchange(&direct.mcp_url(), read).await;
    assert_eq!(status, 200);
    assert!(body.contains(r#"\"iid\":3"#), "{body}");
    assert_eq!(
        received(&fake),
        vec![format!("GET /api/v4/projects/1/issues/3 Some({TOKEN:?})")]
    );
}

//! The surface follows the token: a token that cannot write through the
//! API (`read_api`) is offered no write action, and a write call names the
//! scope it needs without sending anything; a `read_repository` token is
//! offered the repository files API only. Over stdio the server's token is
//! asked about once, as the server starts; over HTTP each caller's token,
//! once per token however many of its requests come at once. When GitLab
//! does not name the scopes, every action stays offered and the log says
//! so once.

use crate::common;

use std::process::Stdio;

use common::http::HttpServer;
use common::{BOTH, Harness, Lifecycle};
use fake_gitlab::{FakeGitLab, Fault, RecordedRequest};
use gitlab_mcp::catalog::{self, Operation, Route};
use rmcp::model::Tool;
use rmcp::service::RunningService;
use rmcp::transport::TokioChildProcess;
use rmcp::{ClientServiceExt, RoleClient};
use serde_json::json;
use tokio::io::AsyncReadExt;

const ISSUE_CREATE: &str = "`gitlab_issue.create` needs a token with the `api` scope";

/// Every action a tool list offers, as `tool.action`.
fn offered(tools: &[Tool]) -> Vec<String> {
    tools
        .iter()
        .flat_map(|tool| {
            let actions = tool.input_schema["properties"]["action"]["enum"]
                .as_array()
                .cloned()
                .unwrap_or_default();
            actions
                .into_iter()
                .map(move |a| format!("{}.{}", tool.name, a.as_str().unwrap_or("?")))
        })
        .collect()
}

/// Whether the catalog says `tool.action` only reads, as `read_api` sees
/// it: a GET, an action marked read-only, or a GraphQL query.
fn reads(name: &str) -> bool {
    let (tool, action) = name.split_once('.').unwrap();
    let action = catalog::tool(tool).unwrap().action(action).unwrap();
    match action.route {
        Route::Rest(route) => action.read_only || route.method.as_str() == "GET",
        Route::Graphql(route) => route.operation == Operation::Query,
        Route::Local(_) => true,
    }
}

fn lookups(requests: &[RecordedRequest]) -> Vec<String> {
    requests
        .iter()
        .filter(|r| common::is_scope_lookup(r))
        .map(RecordedRequest::line)
        .collect()
}

/// A stdio session whose stderr is kept, without the harness's clearing:
/// the lookup the server makes as it starts stays in the fake's log.
async fn stdio(
    fake: &FakeGitLab,
    env: &[(&str, &str)],
) -> (RunningService<RoleClient, ()>, tokio::process::ChildStderr) {
    let (transport, stderr) = TokioChildProcess::builder(common::command(fake, env))
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn gitlab-mcp");
    let client =
        ().serve_with_lifecycle(transport, common::mode(Lifecycle::Initialize))
            .await
            .expect("MCP session starts");
    (client, stderr.expect("stderr is piped"))
}

async fn stderr_text(
    client: RunningService<RoleClient, ()>,
    mut stderr: tokio::process::ChildStderr,
) -> String {
    client.cancel().await.expect("client stops");
    let mut text = String::new();
    stderr.read_to_string(&mut text).await.unwrap();
    text
}

#[tokio::test]
async fn a_read_api_token_is_offered_no_write_and_a_write_names_the_scope_with_nothing_sent() {
    for lifecycle in BOTH {
        let h = Harness::start_with(lifecycle, &[("GITLAB_TOKEN", "glpat-alice-read")]).await;
        let tools = h.client.list_all_tools().await.unwrap();
        let actions = offered(&tools);
        let writes: Vec<&String> = actions.iter().filter(|a| !reads(a)).collect();
        assert_eq!(writes, Vec::<&String>::new(), "{lifecycle:?}");
        assert!(actions.contains(&"gitlab_issue.get".to_string()));
        // GraphQL: queries are open to `read_api`, mutations are not.
        for query in ["gitlab_graphql.query", "gitlab_work_item.get"] {
            assert!(actions.contains(&query.to_string()), "{query}");
        }
        assert!(!actions.contains(&"gitlab_work_item.create".to_string()));
        assert_eq!(tools.len(), catalog::tools().len(), "every tool has reads");

        let text = h
            .err(
                "gitlab_issue",
                json!({"action": "create", "params": {"project_id": 1, "title": "x"}}),
            )
            .await;
        assert_eq!(
            text,
            format!(
                "gitlab_issue create: refused, {ISSUE_CREATE}, and this token has read_api. Nothing was sent to GitLab."
            )
        );
        assert_eq!(h.requests(), Vec::new(), "nothing reached GitLab");

        // Reads still go.
        h.ok(
            "gitlab_issue",
            json!({"action": "get", "params": {"project_id": 1, "issue_iid": 1}}),
        )
        .await;
        assert_eq!(h.only_request().line(), "GET /api/v4/projects/1/issues/1");
        h.stop().await;
    }
}

#[tokio::test]
async fn over_stdio_the_token_is_asked_once_as_the_server_starts_and_the_log_names_its_scopes() {
    let fake = FakeGitLab::start().await;
    let (client, stderr) = stdio(&fake, &[("GITLAB_TOKEN", "glpat-alice-read")]).await;
    client.list_all_tools().await.unwrap();
    client.list_all_tools().await.unwrap();
    let requests = fake.requests();
    assert_eq!(
        lookups(&requests),
        ["GET /api/v4/personal_access_tokens/self"]
    );
    assert_eq!(
        requests[0].private_token.as_deref(),
        Some("glpat-alice-read")
    );
    let log = stderr_text(client, stderr).await;
    assert_eq!(
        log.matches("the token's scopes decide the actions offered")
            .count(),
        1,
        "{log}"
    );
    assert!(
        log.contains("scopes=read_api") && log.contains("reads only (no `api` scope)"),
        "{log}"
    );
    assert!(
        !log.contains("glpat-alice-read"),
        "no token in the log: {log}"
    );
}

#[tokio::test]
async fn an_oauth_token_is_asked_of_doorkeeper_after_the_personal_token_endpoint_refuses_it() {
    let fake = FakeGitLab::start().await;
    let env = [
        ("GITLAB_TOKEN", "oauth-alice-read"),
        ("GITLAB_AUTH", "bearer"),
    ];
    let (client, stderr) = stdio(&fake, &env).await;
    let tools = client.list_all_tools().await.unwrap();
    assert!(offered(&tools).iter().all(|a| reads(a)));
    assert_eq!(
        lookups(&fake.requests()),
        [
            "GET /api/v4/personal_access_tokens/self",
            "GET /oauth/token/info"
        ]
    );
    for r in fake.requests() {
        assert_eq!(r.authorization.as_deref(), Some("Bearer oauth-alice-read"));
    }
    let log = stderr_text(client, stderr).await;
    assert!(log.contains("scopes=read_api"), "{log}");
}

#[tokio::test]
async fn a_read_repository_token_is_offered_the_repository_files_only() {
    let h = Harness::start_with(
        Lifecycle::Discover,
        &[("GITLAB_TOKEN", "glpat-alice-files")],
    )
    .await;
    let tools = h.client.list_all_tools().await.unwrap();
    assert_eq!(
        offered(&tools),
        [
            "gitlab_repository.file_get",
            "gitlab_repository.file_raw",
            "gitlab_repository.file_blame",
            "gitlab_repository.help"
        ]
    );
    let text = h
        .err(
            "gitlab_issue",
            json!({"action": "get", "params": {"project_id": 1, "issue_iid": 1}}),
        )
        .await;
    assert_eq!(
        text,
        "gitlab_issue get: refused, `gitlab_issue.get` needs a token with the `read_api` (or `api`) scope, and this token has read_repository. Nothing was sent to GitLab."
    );
    assert_eq!(h.requests(), Vec::new());
    let text = h
        .ok(
            "gitlab_repository",
            json!({"action": "file_raw", "params": {"project_id": 1, "file_path": "README.md", "ref": "main"}}),
        )
        .await;
    assert!(!text.is_empty());
    assert_eq!(
        h.only_request().line(),
        "GET /api/v4/projects/1/repository/files/README.md/raw?ref=main"
    );
    h.stop().await;
}

/// Two callers of one HTTP server, tokens of different scopes: each is
/// offered its own tools, and each token was asked about once.
#[tokio::test]
async fn over_http_each_token_gets_its_own_surface() {
    let fake = FakeGitLab::start().await;
    let server = HttpServer::start(&fake, &[], &["--require-client-token"]).await;
    let writer = server
        .client((), Lifecycle::Discover, &[("private-token", "glpat-alice")])
        .await;
    let reader = server
        .client(
            (),
            Lifecycle::Initialize,
            &[("authorization", "Bearer glpat-alice-read")],
        )
        .await;
    let (full, read) = tokio::join!(writer.list_all_tools(), reader.list_all_tools());
    let (full, read) = (offered(&full.unwrap()), offered(&read.unwrap()));
    assert!(full.contains(&"gitlab_issue.create".to_string()));
    assert!(!read.contains(&"gitlab_issue.create".to_string()));
    assert!(read.iter().all(|a| reads(a)));
    assert_eq!(
        read,
        full.iter()
            .filter(|a| reads(a))
            .cloned()
            .collect::<Vec<_>>(),
        "the read-only surface is the full one without its writes"
    );

    let create =
        json!({"action": "create", "params": {"project_id": 1, "title": "from the reader"}});
    let answer = reader
        .call_tool(
            rmcp::model::CallToolRequestParams::new("gitlab_issue")
                .with_arguments(create.as_object().unwrap().clone()),
        )
        .await
        .unwrap();
    assert_eq!(answer.is_error, Some(true));
    let text = answer.content[0].as_text().unwrap().text.clone();
    assert!(text.contains(ISSUE_CREATE), "{text}");
    let answer = writer
        .call_tool(
            rmcp::model::CallToolRequestParams::new("gitlab_issue")
                .with_arguments(create.as_object().unwrap().clone()),
        )
        .await
        .unwrap();
    assert_eq!(answer.is_error, Some(false), "{answer:?}");

    let requests = fake.requests();
    let mut asked: Vec<(Option<String>, Option<String>)> = requests
        .iter()
        .filter(|r| common::is_scope_lookup(r))
        .map(|r| (r.private_token.clone(), r.authorization.clone()))
        .collect();
    asked.sort();
    assert_eq!(
        asked,
        [
            (None, Some("Bearer glpat-alice-read".to_string())),
            (Some("glpat-alice".to_string()), None)
        ]
    );
    let sent: Vec<String> = requests
        .iter()
        .filter(|r| !common::is_scope_lookup(r))
        .map(|r| format!("{} {:?}", r.line(), r.private_token))
        .collect();
    assert_eq!(
        sent,
        ["POST /api/v4/projects/1/issues Some(\"glpat-alice\")"],
        "only the writer's create reached GitLab"
    );
    writer.cancel().await.unwrap();
    reader.cancel().await.unwrap();
    let log = server.stderr_text();
    assert_eq!(
        log.matches("the token's scopes decide the actions offered")
            .count(),
        2,
        "{log}"
    );
    assert!(!log.contains("glpat-alice"), "no token in the log");
}

/// GitLab does not say: the surface fails open to every action (GitLab
/// refuses what the token may not do), and the log says so once.
#[tokio::test]
async fn when_the_scopes_cannot_be_read_every_action_is_offered_and_the_log_says_so_once() {
    let fake = FakeGitLab::start().await;
    fake.inject(Fault::status(500).on("GET", "/api/v4/personal_access_tokens/self"));
    let server = HttpServer::start(&fake, &[], &[]).await;
    let client = server
        .client(
            (),
            Lifecycle::Discover,
            &[("private-token", "glpat-alice-read")],
        )
        .await;
    for _ in 0..3 {
        let tools = client.list_all_tools().await.unwrap();
        assert!(offered(&tools).contains(&"gitlab_issue.create".to_string()));
    }
    let answer = client
        .call_tool(
            rmcp::model::CallToolRequestParams::new("gitlab_issue").with_arguments(
                json!({"action": "create", "params": {"project_id": 1, "title": "x"}})
                    .as_object()
                    .unwrap()
                    .clone(),
            ),
        )
        .await
        .unwrap();
    let text = answer.content[0].as_text().unwrap().text.clone();
    assert!(
        text.contains("the token lacks the `api` scope"),
        "GitLab's refusal: {text}"
    );
    assert_eq!(
        lookups(&fake.requests()),
        ["GET /api/v4/personal_access_tokens/self"],
        "asked once, the failure kept with the token"
    );
    client.cancel().await.unwrap();
    let log = server.stderr_text();
    assert_eq!(
        log.matches("the token's scopes could not be read").count(),
        1,
        "{log}"
    );
}

/// Without a token there is nothing to ask: every action stays offered.
#[tokio::test]
async fn without_a_token_nothing_is_asked() {
    let h = Harness::start_with(Lifecycle::Initialize, &[("GITLAB_TOKEN", "")]).await;
    let tools = h.client.list_all_tools().await.unwrap();
    assert!(offered(&tools).contains(&"gitlab_issue.create".to_string()));
    assert_eq!(h.requests(), Vec::new());
    h.stop().await;
}

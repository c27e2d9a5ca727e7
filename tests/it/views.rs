//! MCP Apps views (SEP-1865) as the protocol carries them: a client that
//! declared `io.modelcontextprotocol/ui` with `text/html;profile=mcp-app`
//! finds `_meta.ui.resourceUri` on the two tools that show a view and the
//! two `ui://` resources in `resources/list`; every other client (none
//! declared, or the extension with another MIME type) gets the tool list
//! and resource list it got before, and the same answers. Reading a view
//! costs GitLab nothing. The views in a browser: tests/it/browser.rs.

use crate::common;

use common::{BOTH, Harness};
use gitlab_mcp::mcp::views::{EXTENSION, MAX_BYTES, MIME_TYPE};
use rmcp::model::{
    ClientCapabilities, ClientConfig, ExtensionCapabilities, Implementation,
    ReadResourceRequestParams, ResourceContents,
};
use rmcp::{ClientHandler, RoleClient};
use serde_json::{Value, json};

/// A host declaring MCP Apps with these view types.
#[derive(Clone)]
struct Host(&'static [&'static str]);

impl ClientHandler for Host {
    fn get_info(&self) -> ClientConfig {
        let mut extensions = ExtensionCapabilities::new();
        let Value::Object(settings) = json!({ "mimeTypes": self.0 }) else {
            unreachable!()
        };
        extensions.insert(EXTENSION.into(), settings);
        ClientConfig::new(
            ClientCapabilities::builder()
                .enable_extensions_with(extensions)
                .build(),
            Implementation::new("test-host", "1.0.0"),
        )
    }
}

const LINKS: [(&str, &str); 2] = [
    ("gitlab_merge_request", "ui://gitlab-mcp/merge-request"),
    ("gitlab_pipeline", "ui://gitlab-mcp/pipeline"),
];

fn ui_meta() -> Value {
    json!({"ui": {"csp": {"connectDomains": [], "resourceDomains": [], "frameDomains": [], "baseUriDomains": []}, "prefersBorder": true}})
}

/// The tools' `_meta` as the client got them, for those that have one.
async fn tool_metas<C: ClientHandler>(
    client: &rmcp::service::RunningService<RoleClient, C>,
) -> Vec<(String, Value)> {
    client
        .list_all_tools()
        .await
        .unwrap()
        .into_iter()
        .filter_map(|t| Some((t.name.to_string(), serde_json::to_value(t.meta?).unwrap())))
        .collect()
}

#[tokio::test]
async fn a_client_declaring_mcp_apps_finds_each_view_on_its_tool_and_in_the_resources() {
    for lifecycle in BOTH {
        let h = Harness::start_client(Host(&[MIME_TYPE]), lifecycle, &[]).await;
        let expected: Vec<(String, Value)> = LINKS
            .iter()
            .map(|(tool, uri)| (tool.to_string(), json!({"ui": {"resourceUri": uri}})))
            .collect();
        assert_eq!(tool_metas(&h.client).await, expected, "{lifecycle:?}");

        let listed = h.client.list_all_resources().await.unwrap();
        let listed: Vec<Value> = listed
            .iter()
            .map(|r| json!([r.uri, r.mime_type, r.meta]))
            .collect();
        let expected: Vec<Value> = LINKS
            .iter()
            .map(|(_, uri)| json!([uri, MIME_TYPE, ui_meta()]))
            .collect();
        assert_eq!(listed, expected, "{lifecycle:?}");

        for (_, uri) in LINKS {
            let read = h
                .client
                .read_resource(ReadResourceRequestParams::new(uri))
                .await
                .unwrap();
            let [
                ResourceContents::TextResourceContents {
                    uri: read_uri,
                    mime_type,
                    text,
                    meta,
                },
            ] = read.contents.as_slice()
            else {
                panic!("{uri}: one text content expected, got {:?}", read.contents);
            };
            assert_eq!(
                (read_uri.as_str(), mime_type.as_deref()),
                (uri, Some(MIME_TYPE))
            );
            assert_eq!(serde_json::to_value(meta).unwrap(), ui_meta());
            assert!(text.starts_with("<!doctype html>"), "{uri}");
            assert!(text.len() < MAX_BYTES, "{uri}: {} bytes", text.len());
        }
        // The views are the server's own pages: GitLab is not asked.
        assert_eq!(h.requests(), Vec::new(), "{lifecycle:?}");
    }
}

#[tokio::test]
async fn other_clients_get_the_lists_and_answers_they_got_before() {
    let call = json!({"action": "get", "params": {"project_id": 1, "merge_request_iid": 1}});
    for lifecycle in BOTH {
        let host = Harness::start_client(Host(&[MIME_TYPE]), lifecycle, &[]).await;
        let plain = Harness::start(lifecycle).await;
        let other_type = Harness::start_client(Host(&["text/uri-list"]), lifecycle, &[]).await;

        let expected = gitlab_mcp::mcp::tools::tool_list(gitlab_mcp::catalog::tools());
        for (who, client_tools, resources) in [
            (
                "no extension",
                plain.client.list_all_tools().await.unwrap(),
                plain.client.list_all_resources().await.unwrap(),
            ),
            (
                "another view type",
                other_type.client.list_all_tools().await.unwrap(),
                other_type.client.list_all_resources().await.unwrap(),
            ),
        ] {
            assert_eq!(client_tools, expected, "{who}, {lifecycle:?}");
            assert_eq!(resources, Vec::new(), "{who}, {lifecycle:?}");
        }
        // Each session has its own fake: its address aside, the same text.
        let answer =
            |text: String, fake: &fake_gitlab::FakeGitLab| text.replace(&fake.url(), "<gitlab>");
        let expected = answer(
            plain.ok("gitlab_merge_request", call.clone()).await,
            &plain.fake,
        );
        for (text, fake) in [
            (
                host.ok("gitlab_merge_request", call.clone()).await,
                &host.fake,
            ),
            (
                other_type.ok("gitlab_merge_request", call.clone()).await,
                &other_type.fake,
            ),
        ] {
            assert_eq!(answer(text, fake), expected, "{lifecycle:?}");
        }
    }
}

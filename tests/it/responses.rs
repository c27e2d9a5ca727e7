//! Responses that fit a tight context, measured against the fake's
//! realistic objects in cl100k tokens: compact lists and objects, field
//! selection, raw JSON, windows over long texts, diffs by file, the size
//! cap, and structured content on request.

use crate::common;

use common::{Harness, Lifecycle, TOKEN};
use serde_json::{Value, json};

fn tokens(text: &str) -> usize {
    tiktoken_rs::cl100k_base()
        .unwrap()
        .encode_with_special_tokens(text)
        .len()
}

/// GitLab's own answer for the same request, straight from the fake.
async fn raw_gitlab(h: &Harness, path: &str) -> String {
    let url = format!("{}/api/v4{path}", h.fake.url());
    // gitlab-mcp builds reqwest with ring as its TLS provider.
    let _ = rustls::crypto::ring::default_provider().install_default();
    reqwest::Client::new()
        .get(url)
        .header("PRIVATE-TOKEN", TOKEN)
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap()
}

#[tokio::test]
async fn a_page_of_20_issues_costs_at_most_15_percent_of_gitlabs_json() {
    let h = Harness::start(Lifecycle::Initialize).await;
    let text = h
        .ok(
            "gitlab_issue",
            json!({"action": "list", "params": {"project_id": "acme/platform/api"}}),
        )
        .await;
    let raw = raw_gitlab(&h, "/projects/acme%2Fplatform%2Fapi/issues").await;
    let raw_issues: Vec<Value> = serde_json::from_str(&raw).unwrap();
    assert_eq!(raw_issues.len(), 20);
    let (ours, theirs) = (tokens(&text), tokens(&raw));
    println!(
        "20 issues: {ours} tokens compact, {theirs} raw ({:.1}%)",
        100.0 * ours as f64 / theirs as f64
    );
    assert!(
        ours * 100 <= theirs * 15,
        "{ours} tokens is over 15% of {theirs}"
    );
    // Everything an agent acts on is still there, for every issue.
    for issue in &raw_issues {
        for key in ["iid", "title", "state", "updated_at", "web_url"] {
            let value = match &issue[key] {
                Value::String(s) => s.clone(),
                other => other.to_string(),
            };
            assert!(text.contains(&value), "{key} {value} missing");
        }
        for label in issue["labels"].as_array().unwrap() {
            assert!(text.contains(label.as_str().unwrap()));
        }
        assert!(text.contains(issue["author"]["username"].as_str().unwrap()));
        for assignee in issue["assignees"].as_array().unwrap() {
            assert!(text.contains(assignee["username"].as_str().unwrap()));
        }
    }
    assert!(
        !text.contains("avatar_url") && !text.contains("_links"),
        "noise dropped"
    );
    assert!(
        !text.contains("## Steps to reproduce"),
        "lists leave descriptions out"
    );
    h.stop().await;
}

#[tokio::test]
async fn a_single_issue_costs_at_most_40_percent_and_keeps_its_description() {
    let h = Harness::start(Lifecycle::Discover).await;
    let text = h
        .ok(
            "gitlab_issue",
            json!({"action": "get", "params": {"project_id": 1, "issue_iid": 3}}),
        )
        .await;
    let raw = raw_gitlab(&h, "/projects/1/issues/3").await;
    let issue: Value = serde_json::from_str(&raw).unwrap();
    let (ours, theirs) = (tokens(&text), tokens(&raw));
    println!(
        "one issue: {ours} tokens compact, {theirs} raw ({:.1}%)",
        100.0 * ours as f64 / theirs as f64
    );
    assert!(
        ours * 100 <= theirs * 40,
        "{ours} tokens is over 40% of {theirs}"
    );
    let shown: Value = serde_json::from_str(common::data(&text)).unwrap();
    assert_eq!(
        shown["description"], issue["description"],
        "the full description"
    );
    assert_eq!(shown["author"], "alice", "a nested user is its username");
    assert_eq!(shown["milestone"]["title"], "v1.2");
    h.stop().await;
}

#[tokio::test]
async fn a_5_mb_job_log_answers_its_tail_within_the_cap() {
    let h = Harness::start(Lifecycle::Initialize).await;
    let text = h
        .ok(
            "gitlab_pipeline",
            json!({"action": "job_log", "params": {"project_id": 1, "job_id": 102}}),
        )
        .await;
    println!("job log: {} bytes answered", text.len());
    assert!(text.len() <= 64 * 1024, "{} bytes", text.len());
    let mut lines = text.lines().rev();
    let footer = lines.next().unwrap();
    assert_eq!(
        lines.next().unwrap(),
        "⟧",
        "the frame closes before the footer"
    );
    assert_eq!(
        lines.next().unwrap(),
        "ERROR: Job failed: exit code 101",
        "ends with the log's last line"
    );
    assert!(
        footer.starts_with("[lines ")
            && footer.contains("response cap")
            && footer.contains("earlier: \"lines\": \""),
        "{footer}"
    );
    // The offset works: ask for the earlier window.
    let earlier = footer
        .split("earlier: \"lines\": \"")
        .nth(1)
        .unwrap()
        .split('"')
        .next()
        .unwrap()
        .to_string();
    let before = h
        .ok("gitlab_pipeline", json!({"action": "job_log", "params": {"project_id": 1, "job_id": 102}, "lines": earlier}))
        .await;
    let first_line = common::data(&before).lines().next().unwrap();
    let start: usize = earlier.split('-').next().unwrap().parse().unwrap();
    assert!(
        first_line.starts_with(&format!("[{start:07}]")),
        "{first_line} for {earlier}"
    );
    h.stop().await;
}

#[tokio::test]
async fn line_windows_over_raw_files() {
    let h = Harness::start(Lifecycle::Initialize).await;
    let text = h
        .ok("gitlab_repository", json!({"action": "file_raw", "params": {"project_id": 1, "file_path": "docs/getting started.md"}, "lines": "2-3"}))
        .await;
    assert!(
        text.starts_with("⟦\n\n1. Clone\n⟧\n[lines 2-3 of 5"),
        "{text}"
    );
    let out = h
        .call(
            "gitlab_issue",
            json!({"action": "get", "params": {"project_id": 1, "issue_iid": 1}, "lines": "1-5"}),
        )
        .await;
    assert!(
        out.is_error && out.text.contains("`lines` windows text answers"),
        "{}",
        out.text
    );
    h.stop().await;
}

#[tokio::test]
async fn fields_and_raw_choose_what_is_kept() {
    let h = Harness::start(Lifecycle::Discover).await;
    let text = h
        .ok("gitlab_issue", json!({"action": "list", "params": {"project_id": 1, "per_page": 2}, "fields": ["iid", "description", "author"]}))
        .await;
    let first: Value = serde_json::from_str(common::data(&text).lines().next().unwrap()).unwrap();
    assert_eq!(
        first.as_object().unwrap().keys().collect::<Vec<_>>(),
        ["iid", "description", "author"]
    );
    assert!(
        first["description"]
            .as_str()
            .unwrap()
            .contains("## Steps to reproduce"),
        "asked-for texts are whole"
    );
    let text = h.ok("gitlab_issue", json!({"action": "get", "params": {"project_id": 1, "issue_iid": 1}, "fields": "title,nope"})).await;
    assert!(text.contains("[no field nope; fields here:"), "{text}");
    let raw = h
        .ok(
            "gitlab_issue",
            json!({"action": "get", "params": {"project_id": 1, "issue_iid": 1}, "raw": true}),
        )
        .await;
    let raw: Value = serde_json::from_str(common::data(&raw)).unwrap();
    assert!(
        raw["_links"].is_object() && raw["author"]["avatar_url"].is_string(),
        "raw is GitLab's JSON"
    );
    h.stop().await;
}

#[tokio::test]
async fn diffs_are_shown_by_file_and_one_file_on_request() {
    let h = Harness::start(Lifecycle::Initialize).await;
    let text = h
        .ok(
            "gitlab_merge_request",
            json!({"action": "diffs", "params": {"project_id": 1, "merge_request_iid": 1}}),
        )
        .await;
    assert!(
        text.contains("=== README.md (modified, +2 -1)\n@@ -1,3 +1,4 @@")
            && text.contains("=== src/main.rs (modified, +2 -1)"),
        "{text}"
    );
    // A non-ASCII path keeps its header (commit 4 changes `src/ü.rs`).
    let commit = h
        .ok(
            "gitlab_repository",
            json!({"action": "commit_diff", "params": {"project_id": 1, "sha": fake_gitlab::db::sha(4)}}),
        )
        .await;
    assert!(
        common::data(&commit).starts_with("=== src/ü.rs (modified, +2 -1)\n"),
        "{commit}"
    );
    let one = h
        .ok("gitlab_merge_request", json!({"action": "diffs", "params": {"project_id": 1, "merge_request_iid": 1}, "file": "README.md"}))
        .await;
    assert!(
        common::data(&one).starts_with("=== README.md") && !one.contains("=== src/"),
        "{one}"
    );
    let missing = h
        .call("gitlab_merge_request", json!({"action": "diffs", "params": {"project_id": 1, "merge_request_iid": 1}, "file": "nope.rs"}))
        .await;
    assert!(
        missing.is_error && missing.text.contains("no diff for `nope.rs`"),
        "{}",
        missing.text
    );
    h.stop().await;
}

#[tokio::test]
async fn a_file_is_shown_as_text_not_base64() {
    let h = Harness::start(Lifecycle::Initialize).await;
    let text = h.ok("gitlab_repository", json!({"action": "file_get", "params": {"project_id": 1, "file_path": "src/main.rs", "ref": "main"}})).await;
    let file: Value = serde_json::from_str(common::data(&text)).unwrap();
    assert_eq!(
        file["content"],
        "fn main() {\n    println!(\"Acme API\");\n}\n"
    );
    assert_eq!(file["encoding"], "text");
    h.stop().await;
}

#[tokio::test]
async fn the_size_cap_cuts_lists_and_says_how_to_get_the_rest() {
    let h = Harness::start_with(
        Lifecycle::Initialize,
        &[("GITLAB_MCP_MAX_RESPONSE_BYTES", "2048")],
    )
    .await;
    let text = h
        .ok(
            "gitlab_issue",
            json!({"action": "list", "params": {"project_id": 1}}),
        )
        .await;
    let body: usize = text
        .lines()
        .filter(|l| l.starts_with('{'))
        .map(|l| l.len() + 1)
        .sum();
    assert!(body <= 2048, "{body}");
    assert!(
        text.contains("[cut at the 2 KB response cap:") && text.contains("of 20 items shown"),
        "{text}"
    );
    h.stop().await;
}

#[tokio::test]
async fn structured_content_is_off_by_default_and_wraps_lists_when_on() {
    let h = Harness::start(Lifecycle::Initialize).await;
    let result = h
        .call_result(
            "gitlab_issue",
            json!({"action": "list", "params": {"project_id": 1, "per_page": 2}}),
        )
        .await;
    assert!(result.structured_content.is_none());
    h.stop().await;
    let h = Harness::start_with(
        Lifecycle::Initialize,
        &[("GITLAB_MCP_STRUCTURED_CONTENT", "true")],
    )
    .await;
    let result = h
        .call_result(
            "gitlab_issue",
            json!({"action": "list", "params": {"project_id": 1, "per_page": 2}}),
        )
        .await;
    let structured = result.structured_content.expect("structured content on");
    assert_eq!(structured["items"].as_array().unwrap().len(), 2);
    assert_eq!(structured["pagination"]["per_page"], 2);
    h.stop().await;
}

/// Every resource kind the fake serves, in a list and alone: the compact
/// answer keeps what identifies each item, drops the noise, and costs less
/// than GitLab's JSON for the same request.
#[tokio::test]
async fn every_resource_kind_renders_compactly() {
    let cases: &[(&str, Value, &[&str])] = &[
        (
            "gitlab_merge_request",
            json!({"action": "list", "params": {"project_id": 1}}),
            &[
                "\"iid\":1",
                "\"source_branch\":\"feature/orders-v2\"",
                "\"author\":",
                "\"web_url\"",
            ],
        ),
        (
            "gitlab_merge_request",
            json!({"action": "get", "params": {"project_id": 1, "merge_request_iid": 1}}),
            &["\"description\":", "\"reviewers\":[\"bob\"]"],
        ),
        (
            "gitlab_issue",
            json!({"action": "note_list", "params": {"project_id": 1, "issue_iid": 2}}),
            &["\"body\":\"I can reproduce", "\"author\":"],
        ),
        (
            "gitlab_merge_request",
            json!({"action": "discussion_list", "params": {"project_id": 1, "merge_request_iid": 1}}),
            &["\"notes\":[{", "\"author\":\"bob\""],
        ),
        (
            "gitlab_pipeline",
            json!({"action": "list", "params": {"project_id": 1}}),
            &["\"id\":1003", "\"status\":\"running\""],
        ),
        (
            "gitlab_pipeline",
            json!({"action": "job_list", "params": {"project_id": 1, "pipeline_id": 1001}}),
            &["\"name\":\"build\"", "\"pipeline\":{\"id\":1001"],
        ),
        (
            "gitlab_project",
            json!({"action": "list", "params": {}}),
            &["\"path_with_namespace\":\"acme/platform/api\""],
        ),
        (
            "gitlab_project",
            json!({"action": "get", "params": {"project_id": 1}}),
            &["\"namespace\":", "\"default_branch\":\"main\""],
        ),
        (
            "gitlab_group",
            json!({"action": "list", "params": {}}),
            &["\"full_path\":\"acme/platform\""],
        ),
        (
            "gitlab_user",
            json!({"action": "get", "params": {"user_id": 2}}),
            &["\"username\":\"bob\""],
        ),
        (
            "gitlab_repository",
            json!({"action": "branch_list", "params": {"project_id": 1}}),
            &["\"name\":\"main\"", "\"commit\":{\"short_id\""],
        ),
        (
            "gitlab_repository",
            json!({"action": "tag_list", "params": {"project_id": 1}}),
            &["\"name\":\"v1.0.0\""],
        ),
        (
            "gitlab_repository",
            json!({"action": "commit_list", "params": {"project_id": 1}}),
            &["\"short_id\":", "\"title\":\"Change"],
        ),
        (
            "gitlab_release",
            json!({"action": "list", "params": {"project_id": 1}}),
            &["\"tag_name\":\"v1.0.0\"", "\"author\":\"alice\""],
        ),
        (
            "gitlab_milestone",
            json!({"action": "list", "params": {"project_id": 1}}),
            &["\"title\":\"v1.2\""],
        ),
        (
            "gitlab_label",
            json!({"action": "list", "params": {"project_id": 1}}),
            &["\"name\":\"bug\"", "\"color\":"],
        ),
        (
            "gitlab_wiki",
            json!({"action": "get", "params": {"project_id": 1, "slug": "home"}}),
            &["\"content\":\"# Acme API wiki"],
        ),
        (
            "gitlab_snippet",
            json!({"action": "project_list", "params": {"project_id": 1}}),
            &["\"title\":\"Refund script\""],
        ),
        (
            "gitlab_search",
            json!({"action": "project", "params": {"project_id": 1, "scope": "issues", "search": "dashboard"}}),
            &["\"title\":\"Dashboard crashes"],
        ),
        (
            "gitlab_environment",
            json!({"action": "list", "params": {"project_id": 1}}),
            &["\"name\":\"production\""],
        ),
        (
            "gitlab_package",
            json!({"action": "list", "params": {"project_id": 1}}),
            &["\"name\":\"acme-api-client\""],
        ),
    ];
    let h = Harness::start(Lifecycle::Initialize).await;
    for (tool, call, expected) in cases {
        let compact = h.ok(tool, call.clone()).await;
        let mut raw_call = call.clone();
        raw_call["raw"] = json!(true);
        let raw = h.ok(tool, raw_call).await;
        for e in *expected {
            assert!(
                compact.contains(e),
                "{tool} {call}: {e:?} missing in\n{compact}"
            );
        }
        for noise in ["avatar_url", "\"_links\"", "_html\"", ":null"] {
            assert!(
                !compact.contains(noise),
                "{tool} {call}: {noise} left in\n{compact}"
            );
        }
        let (ours, theirs) = (tokens(&compact), tokens(&raw));
        assert!(
            ours < theirs,
            "{tool} {call}: {ours} tokens, not below GitLab's {theirs}"
        );
    }
    h.stop().await;
}

/// A range stops the reading once it is passed: the first 40 lines of the
/// 5 MB log are answered without reading the rest, so the total is not
/// known and the footer says so; the last 50 lines need the whole log and
/// count it.
#[tokio::test]
async fn a_line_range_stops_reading_a_long_log_after_its_end() {
    let h = Harness::start(Lifecycle::Initialize).await;
    let head = h
        .ok("gitlab_pipeline", json!({"action": "job_log", "params": {"project_id": 1, "job_id": 102}, "lines": "1-40"}))
        .await;
    let footer = head.lines().last().unwrap();
    assert_eq!(
        footer,
        "[lines 1-40 of more than 40 (the rest not read) · later: \"lines\": \"41-80\"]"
    );
    assert_eq!(common::data(&head).lines().count(), 40, "{head}");
    let tail = h
        .ok("gitlab_pipeline", json!({"action": "job_log", "params": {"project_id": 1, "job_id": 102}, "lines": "-50"}))
        .await;
    let footer = tail.lines().last().unwrap();
    assert!(
        footer.starts_with("[lines ") && footer.contains(" of ") && !footer.contains("more than"),
        "{footer}"
    );
    assert_eq!(common::data(&tail).lines().count(), 50, "{tail}");
    h.stop().await;
}

/// One diff version (`version_get`) shows its object without the diffs,
/// then its files as diffs, and `file` picks one: GitLab's version answer
/// carries every file's diff
/// (https://docs.gitlab.com/api/merge_requests/#get-a-single-merge-request-diff-version).
#[tokio::test]
async fn a_diff_version_shows_its_files_as_diffs() {
    let h = Harness::start(Lifecycle::Initialize).await;
    let versions: Value =
        serde_json::from_str(&raw_gitlab(&h, "/projects/1/merge_requests/1/versions").await)
            .unwrap();
    let id = versions[0]["id"].as_u64().expect("a version id");
    let version: Value = serde_json::from_str(
        &raw_gitlab(&h, &format!("/projects/1/merge_requests/1/versions/{id}")).await,
    )
    .unwrap();
    let paths: Vec<&str> = version["diffs"]
        .as_array()
        .expect("the version's diffs")
        .iter()
        .map(|d| d["new_path"].as_str().unwrap())
        .collect();
    assert!(!paths.is_empty());
    let params = json!({"project_id": 1, "merge_request_iid": 1, "version_id": id});
    let text = h
        .ok(
            "gitlab_merge_request",
            json!({"action": "version_get", "params": params}),
        )
        .await;
    assert!(!text.contains("\"diffs\""), "{text}");
    assert!(
        text.contains(&format!(
            "\"head_commit_sha\":\"{}\"",
            version["head_commit_sha"].as_str().unwrap()
        )),
        "{text}"
    );
    for path in &paths {
        assert!(text.contains(&format!("=== {path} (")), "{path}: {text}");
    }
    let one = h
        .ok(
            "gitlab_merge_request",
            json!({"action": "version_get", "params": params, "file": paths[0]}),
        )
        .await;
    assert!(one.contains(&format!("=== {} (", paths[0])), "{one}");
    for path in &paths[1..] {
        assert!(!one.contains(&format!("=== {path} (")), "{path}: {one}");
    }
}

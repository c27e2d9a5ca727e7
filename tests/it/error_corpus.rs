//! A corpus of realistic mistakes, over every tool: each must be refused
//! before anything is sent, with the fix in the reply, and the replies
//! must be sized to the mistake (median under 600 characters, none over
//! 1,500). `cargo test --test it error_corpus:: -- --nocapture` prints the sizes.

use gitlab_mcp::catalog;
use gitlab_mcp::dispatch;
use serde_json::{Value, json};

/// (tool, arguments, text the reply must hold).
fn corpus() -> Vec<(&'static str, Value, &'static str)> {
    vec![
        // Parameter names.
        (
            "gitlab_issue",
            json!({"action": "get", "params": {"project_id": "g/p", "iid": 4}}),
            "did you mean `issue_iid`?",
        ),
        (
            "gitlab_issue",
            json!({"action": "get", "params": {"project": "g/p", "issue_iid": 4}}),
            "did you mean `project_id`?",
        ),
        (
            "gitlab_issue",
            json!({"action": "get", "params": {"projectId": "g/p", "issueIid": 4}}),
            "`issue_iid`",
        ),
        (
            "gitlab_issue",
            json!({"action": "create", "params": {"project_id": "g/p", "titel": "Crash"}}),
            "did you mean `title`?",
        ),
        (
            "gitlab_issue",
            json!({"action": "create", "params": {"project_id": "g/p", "title": "Crash", "label": "bug"}}),
            "did you mean `labels`?",
        ),
        (
            "gitlab_issue",
            json!({"action": "note_create", "params": {"project_id": "g/p", "issue_iid": 1, "comment": "LGTM"}}),
            "did you mean `body`?",
        ),
        (
            "gitlab_issue",
            json!({"action": "list", "params": {"project_id": "g/p", "query": "crash"}}),
            "did you mean `search`?",
        ),
        (
            "gitlab_issue",
            json!({"action": "list", "params": {"project_id": "g/p", "limit": 5}}),
            "did you mean `per_page`?",
        ),
        (
            "gitlab_merge_request",
            json!({"action": "get", "params": {"project_id": "g/p", "mr_iid": 3}}),
            "did you mean `merge_request_iid`?",
        ),
        (
            "gitlab_merge_request",
            json!({"action": "create", "params": {"project_id": "g/p", "source": "feat", "target_branch": "main", "title": "Feat"}}),
            "did you mean `source_branch`?",
        ),
        (
            "gitlab_merge_request",
            json!({"action": "list", "params": {"project_id": "g/p", "status": "opened"}}),
            "did you mean `state`?",
        ),
        (
            "gitlab_repository",
            json!({"action": "file_get", "params": {"project_id": "g/p", "path": "README.md", "ref": "main"}}),
            "did you mean `file_path`?",
        ),
        (
            "gitlab_repository",
            json!({"action": "file_get", "params": {"project_id": "g/p", "file_path": "README.md", "branch": "main"}}),
            "did you mean `ref`?",
        ),
        (
            "gitlab_repository",
            json!({"action": "branch_create", "params": {"project_id": "g/p", "branch_name": "feat", "ref": "main"}}),
            "did you mean `branch`?",
        ),
        (
            "gitlab_repository",
            json!({"action": "commit_list", "params": {"project_id": "g/p", "ref": "main"}}),
            "did you mean `ref_name`?",
        ),
        (
            "gitlab_repository",
            json!({"action": "file_get", "params": {"project_id": "g/p", "file_path": "a.md", "ref_name": "main"}}),
            "did you mean `ref`?",
        ),
        (
            "gitlab_pipeline",
            json!({"action": "get", "params": {"project_id": "g/p", "id": 9}}),
            "did you mean `pipeline_id`?",
        ),
        (
            "gitlab_pipeline",
            json!({"action": "job_log", "params": {"project_id": "g/p", "job": 9}}),
            "did you mean `job_id`?",
        ),
        (
            "gitlab_project",
            json!({"action": "get", "params": {"id": "g/p"}}),
            "did you mean `project_id`?",
        ),
        (
            "gitlab_group",
            json!({"action": "get", "params": {"group": "acme"}}),
            "did you mean `group_id`?",
        ),
        (
            "gitlab_user",
            json!({"action": "get", "params": {"id": 5}}),
            "did you mean `user_id`?",
        ),
        (
            "gitlab_instance",
            json!({"action": "topic_get", "params": {"id": 3}}),
            "did you mean `topic_id`?",
        ),
        (
            "gitlab_instance",
            json!({"action": "settings_update", "params": {"signup_enable": true}}),
            "did you mean `signup_enabled`?",
        ),
        (
            "gitlab_label",
            json!({"action": "create", "params": {"project_id": "g/p", "label": "bug", "color": "#ff0000"}}),
            "`name`",
        ),
        (
            "gitlab_milestone",
            json!({"action": "create", "params": {"project_id": "g/p", "name": "v1"}}),
            "did you mean `title`?",
        ),
        (
            "gitlab_release",
            json!({"action": "get", "params": {"project_id": "g/p", "tag": "v1.0.0"}}),
            "did you mean `tag_name`?",
        ),
        (
            "gitlab_variable",
            json!({"action": "create", "params": {"project_id": "g/p", "name": "TOKEN", "value": "x"}}),
            "did you mean `key`?",
        ),
        (
            "gitlab_wiki",
            json!({"action": "get", "params": {"project_id": "g/p", "title": "home"}}),
            "`slug`",
        ),
        (
            "gitlab_snippet",
            json!({"action": "get", "params": {"id": 3}}),
            "did you mean `snippet_id`?",
        ),
        (
            "gitlab_search",
            json!({"action": "project", "params": {"project_id": "g/p", "scope": "blobs", "query": "TODO"}}),
            "did you mean `search`?",
        ),
        (
            "gitlab_environment",
            json!({"action": "get", "params": {"project_id": "g/p", "id": 2}}),
            "did you mean `environment_id`?",
        ),
        (
            "gitlab_package",
            json!({"action": "get", "params": {"project_id": "g/p", "id": 2}}),
            "did you mean `package_id`?",
        ),
        // Missing parameters.
        (
            "gitlab_issue",
            json!({"action": "get", "params": {"project_id": "g/p"}}),
            "`issue_iid` is missing",
        ),
        (
            "gitlab_issue",
            json!({"action": "create", "params": {"project_id": "g/p"}}),
            "`title` is missing",
        ),
        (
            "gitlab_merge_request",
            json!({"action": "create", "params": {"project_id": "g/p", "title": "x"}}),
            "`source_branch` is missing",
        ),
        (
            "gitlab_repository",
            json!({"action": "file_get", "params": {"project_id": "g/p", "file_path": "a.md"}}),
            "`ref` is missing",
        ),
        (
            "gitlab_pipeline",
            json!({"action": "job_log", "params": {"job_id": 9}}),
            "`project_id` is missing",
        ),
        (
            "gitlab_project",
            json!({"action": "create", "params": {}}),
            "give `name` or `path`",
        ),
        // Values.
        (
            "gitlab_issue",
            json!({"action": "list", "params": {"project_id": "g/p", "state": "open"}}),
            "did you mean `opened`?",
        ),
        (
            "gitlab_issue",
            json!({"action": "list", "params": {"project_id": "g/p", "order_by": "updated"}}),
            "did you mean `updated_at`?",
        ),
        (
            "gitlab_pipeline",
            json!({"action": "list", "params": {"project_id": "g/p", "status": "failure"}}),
            "did you mean `failed`?",
        ),
        (
            "gitlab_search",
            json!({"action": "project", "params": {"project_id": "g/p", "scope": "issue", "search": "x"}}),
            "did you mean `issues`?",
        ),
        (
            "gitlab_merge_request",
            json!({"action": "list", "params": {"project_id": "g/p", "state": "open"}}),
            "did you mean `opened`?",
        ),
        (
            "gitlab_issue",
            json!({"action": "get", "params": {"project_id": "g/p", "issue_iid": "four"}}),
            "must be an integer",
        ),
        (
            "gitlab_issue",
            json!({"action": "update", "params": {"project_id": "g/p", "issue_iid": 1, "confidential": "maybe"}}),
            "must be a boolean",
        ),
        (
            "gitlab_issue",
            json!({"action": "create", "params": {"project_id": "g/p", "title": "x", "due_date": "next friday"}}),
            "YYYY-MM-DD",
        ),
        (
            "gitlab_issue",
            json!({"action": "list", "params": {"project_id": "g/p", "created_after": "yesterday"}}),
            "ISO 8601",
        ),
        (
            "gitlab_issue",
            json!({"action": "get", "params": {"project_id": "g/p", "issue_iid": 0}}),
            "at least 1",
        ),
        (
            "gitlab_issue",
            json!({"action": "list", "params": {"project_id": "g/p", "per_page": 500}}),
            "at most 100",
        ),
        // Actions.
        (
            "gitlab_issue",
            json!({"action": "gte", "params": {}}),
            "did you mean `get`?",
        ),
        (
            "gitlab_issue",
            json!({"action": "get_issue", "params": {}}),
            "did you mean `get`?",
        ),
        (
            "gitlab_issue",
            json!({"action": "add_comment", "params": {}}),
            "`note_create`",
        ),
        (
            "gitlab_issue",
            json!({"action": "create_note", "params": {}}),
            "`note_create`",
        ),
        // The vocabulary's action synonyms: names agents reached for.
        (
            "gitlab_issue",
            json!({"action": "comment", "params": {}}),
            "did you mean `note_create`?",
        ),
        (
            "gitlab_issue",
            json!({"action": "relate", "params": {}}),
            "did you mean `link_create`",
        ),
        (
            "gitlab_work_item",
            json!({"action": "relate", "params": {}}),
            "did you mean `link`?",
        ),
        (
            "gitlab_graphql",
            json!({"action": "execute", "params": {}}),
            "did you mean `query`?",
        ),
        (
            "gitlab_merge_request",
            json!({"action": "approve_review", "params": {}}),
            "did you mean `review`",
        ),
        (
            "gitlab_pipeline",
            json!({"action": "why_failed", "params": {}}),
            "did you mean `triage`?",
        ),
        (
            "gitlab_graphql",
            json!({"action": "query", "params": {"query": "mutation { createNote(input: {noteableId: \"gid://gitlab/WorkItem/1\", body: \"hi\"}) { errors } }"}}),
            "the same change is gitlab_work_item note_create",
        ),
        (
            "gitlab_merge_request",
            json!({"action": "get_diff", "params": {}}),
            "`diffs`",
        ),
        (
            "gitlab_merge_request",
            json!({"action": "accept", "params": {}}),
            "`merge`",
        ),
        (
            "gitlab_pipeline",
            json!({"action": "get_job_log", "params": {}}),
            "`job_log`",
        ),
        (
            "gitlab_pipeline",
            json!({"action": "rerun", "params": {}}),
            "`retry`",
        ),
        (
            "gitlab_repository",
            json!({"action": "get_file", "params": {}}),
            "`file_get`",
        ),
        (
            "gitlab_repository",
            json!({"action": "list_branches", "params": {}}),
            "`branch_list`",
        ),
        (
            "gitlab_project",
            json!({"action": "lst", "params": {}}),
            "did you mean `list`?",
        ),
        (
            "gitlab_issue",
            json!({"action": "pipeline_list", "params": {}}),
            "gitlab_pipeline",
        ),
        (
            "gitlab_user",
            json!({"action": "me", "params": {}}),
            "`current`",
        ),
        // The envelope.
        (
            "gitlab_issue",
            json!({"action": "get", "project_id": "g/p", "issue_iid": 1}),
            "inside `params`",
        ),
        (
            "gitlab_issue",
            json!({"action": "get", "parameters": {"project_id": "g/p", "issue_iid": 1}}),
            "did you mean `params`?",
        ),
        (
            "gitlab_issue",
            json!({"method": "get", "params": {"project_id": "g/p", "issue_iid": 1}}),
            "did you mean `action`?",
        ),
        (
            "gitlab_issue",
            json!({"params": {"project_id": "g/p", "issue_iid": 1}}),
            "`action` is missing",
        ),
        (
            "gitlab_issue",
            json!({"action": "get", "params": {"project_id": "g/p", "issue_iid": 1, "fields": ["title"]}}),
            "beside `action`",
        ),
        (
            "gitlab_issue",
            json!({"action": "delete", "params": {"project_id": "g/p", "issue_iid": 1, "confirm": true}}),
            "beside `action`",
        ),
        (
            "gitlab_issue",
            json!({"action": "get", "params": {"project_id": "g/p", "issue_iid": 1}, "fields": ["titel"]}),
            "did you mean `title`?",
        ),
        (
            "gitlab_pipeline",
            json!({"action": "job_log", "params": {"project_id": "g/p", "job_id": 1}, "lines": "last 50"}),
            "\"-50\"",
        ),
        (
            "gitlab_issue",
            json!({"action": "get", "params": {"project_id": "g/p", "issue_iid": 1}, "lines": "1-5"}),
            "`lines` windows text answers",
        ),
        // Work items and GraphQL.
        (
            "gitlab_work_item",
            json!({"action": "get", "params": {"project_id": "g/p", "issue_iid": 4}}),
            "did you mean `work_item_iid`?",
        ),
        (
            "gitlab_work_item",
            json!({"action": "create", "params": {"project_id": "g/p", "type": "story", "title": "x"}}),
            "must be one of issue, task",
        ),
        (
            "gitlab_work_item",
            json!({"action": "get", "params": {"project_id": "g/p", "group_id": "g", "work_item_iid": 4}}),
            "`project_id` and `group_id` are both given",
        ),
        (
            "gitlab_graphql",
            json!({"action": "query", "params": {"query": "mutation { workItemDelete(input: {id: \"x\"}) { errors } }"}}),
            "holds a mutation",
        ),
        (
            "gitlab_graphql",
            json!({"action": "query", "params": {"query": "{ projects(first: 500) { nodes { id } } }"}}),
            "over GitLab's limit of 100 nodes a page",
        ),
    ]
}

fn reply(tool: &str, args: &Value) -> Option<String> {
    let Value::Object(map) = args.clone() else {
        unreachable!()
    };
    dispatch::decode(catalog::tool(tool).unwrap(), catalog::tools(), map, None)
        .err()
        .map(|e| e.to_string())
}

#[test]
fn every_mistake_is_refused_with_its_fix_and_a_reply_sized_to_it() {
    let cases = corpus();
    assert!(cases.len() >= 60, "{} cases", cases.len());
    let tools: std::collections::BTreeSet<&str> = cases.iter().map(|(t, ..)| *t).collect();
    assert_eq!(tools.len(), catalog::tools().len(), "every tool has a case");
    let mut sizes = Vec::new();
    let mut missing = Vec::new();
    for (tool, args, fix) in &cases {
        let Some(text) = reply(tool, args) else {
            missing.push(format!("{tool} {args}: accepted"));
            continue;
        };
        if !text.contains(fix) {
            missing.push(format!("{tool} {args}: no {fix:?} in:\n{text}"));
        }
        sizes.push((text.chars().count(), format!("{tool} {args}")));
    }
    sizes.sort();
    let median = sizes[sizes.len() / 2].0;
    let longest = sizes.last().unwrap();
    println!(
        "{} cases; median {median} characters; longest {} ({})",
        sizes.len(),
        longest.0,
        longest.1
    );
    for (n, case) in sizes.iter().rev().take(5) {
        println!("  {n}: {case}");
    }
    assert!(
        missing.is_empty(),
        "{} replies lack their fix:\n{}",
        missing.len(),
        missing.join("\n\n")
    );
    assert!(median < 600, "median reply {median} characters");
    assert!(
        longest.0 <= 1500,
        "longest reply {} characters: {}",
        longest.0,
        longest.1
    );
}

//! Table-driven decoder tests: one helper, many cases. Each case is a tool,
//! the raw arguments, and the lines the error must contain (or `OK`).

use gitlab_mcp::catalog;
use gitlab_mcp::dispatch::{self, DecodeError};
use serde_json::{Value, json};

/// Decode `args` for `tool`; return the rendered error, or "OK".
fn check(tool: &str, args: Value) -> String {
    let spec = catalog::tool(tool).unwrap_or_else(|| panic!("no tool {tool}"));
    let Value::Object(map) = args else {
        panic!("arguments must be an object")
    };
    match dispatch::decode(spec, catalog::tools(), map, None) {
        Ok(_) => "OK".to_string(),
        Err(e) => e.to_string(),
    }
}

fn expect(tool: &str, args: Value, wanted: &[&str]) {
    let got = check(tool, args.clone());
    for w in wanted {
        assert!(got.contains(w), "{tool} {args}\nexpected: {w}\ngot:\n{got}");
    }
}

#[test]
fn parameter_synonyms_agents_use() {
    let cases: &[(&str, Value, &str)] = &[
        (
            "gitlab_issue",
            json!({"action": "get", "params": {"project_id": 1, "iid": 2}}),
            "`iid` is not a parameter of this action; did you mean `issue_iid`?",
        ),
        (
            "gitlab_merge_request",
            json!({"action": "get", "params": {"project_id": 1, "iid": 2}}),
            "did you mean `merge_request_iid`?",
        ),
        (
            "gitlab_merge_request",
            json!({"action": "get", "params": {"project_id": 1, "mr_iid": 2}}),
            "`mr_iid` is not a parameter of this action; did you mean `merge_request_iid`?",
        ),
        (
            "gitlab_merge_request",
            json!({"action": "get", "params": {"project_id": 1, "merge_request_id": 2}}),
            "did you mean `merge_request_iid`?",
        ),
        (
            "gitlab_issue",
            json!({"action": "get", "params": {"project": "a/b", "issue_iid": 2}}),
            "`project` is not a parameter of this action; did you mean `project_id`?",
        ),
        (
            "gitlab_repository",
            json!({"action": "file_get", "params": {"project_id": 1, "path": "a.md", "ref": "main"}}),
            "`path` is not a parameter of this action; did you mean `file_path`?",
        ),
        (
            "gitlab_repository",
            json!({"action": "branch_create", "params": {"project_id": 1, "branch_name": "x", "ref": "main"}}),
            "`branch_name` is not a parameter of this action; did you mean `branch`?",
        ),
        (
            "gitlab_project",
            json!({"action": "search", "params": {"query": "api"}}),
            "`query` is not a parameter of this action; did you mean `search`?",
        ),
        (
            "gitlab_issue",
            json!({"action": "note_create", "params": {"project_id": 1, "issue_iid": 1, "comment": "hi"}}),
            "`comment` is not a parameter of this action; did you mean `body`?",
        ),
        (
            "gitlab_issue",
            json!({"action": "list", "params": {"project_id": 1, "limit": 5}}),
            "did you mean `per_page`?",
        ),
        (
            "gitlab_pipeline",
            json!({"action": "list", "params": {"project_id": 1, "state": "failed"}}),
            "`state` is not a parameter of this action; did you mean `status`?",
        ),
        (
            "gitlab_merge_request",
            json!({"action": "create", "params": {"project_id": 1, "source": "a", "target_branch": "main", "title": "t"}}),
            "did you mean `source_branch`?",
        ),
        (
            "gitlab_repository",
            json!({"action": "commit_get", "params": {"project_id": 1, "commit_sha": "abc"}}),
            "did you mean `sha`?",
        ),
    ];
    for (tool, args, wanted) in cases {
        expect(tool, args.clone(), &[wanted]);
    }
}

#[test]
fn typos_camel_case_and_transpositions() {
    let cases: &[(&str, Value, &str)] = &[
        (
            "gitlab_issue",
            json!({"action": "get", "params": {"projectId": 1, "issue_iid": 2}}),
            "did you mean `project_id`?",
        ),
        (
            "gitlab_issue",
            json!({"action": "get", "params": {"project_id": 1, "issueIid": 2}}),
            "did you mean `issue_iid`?",
        ),
        (
            "gitlab_issue",
            json!({"action": "list", "params": {"project_id": 1, "lables": "bug"}}),
            "`lables` is not a parameter of this action; did you mean `labels`?",
        ),
        (
            "gitlab_issue",
            json!({"action": "list", "params": {"project_id": 1, "per-page": 5}}),
            "did you mean `per_page`?",
        ),
        (
            "gitlab_issue",
            json!({"action": "list", "params": {"project_id": 1, "sotr": "asc"}}),
            "did you mean `sort`?",
        ),
        (
            "gitlab_issue",
            json!({"action": "list", "params": {"project_id": 1, "iids[]": [1]}}),
            "did you mean `iids`?",
        ),
    ];
    for (tool, args, wanted) in cases {
        expect(tool, args.clone(), &[wanted]);
    }
}

#[test]
fn every_problem_in_one_answer_with_accepted_parameters_once() {
    let got = check(
        "gitlab_issue",
        json!({"action": "get", "params": {"iid": 1, "foo": 2, "bar": 3}}),
    );
    for w in [
        "- `iid` is not a parameter of this action; did you mean `issue_iid`?",
        "- `foo` is not a parameter of this action\n",
        "- `bar` is not a parameter of this action\n",
        "- `project_id` is missing (required)",
        "- `issue_iid` is missing (required)",
    ] {
        assert!(got.contains(w), "missing {w:?} in:\n{got}");
    }
    assert_eq!(got.matches("Accepted parameters").count(), 1, "{got}");
}

#[test]
fn an_action_without_parameters_says_so() {
    // `gitlab_user current` (GET /user) takes no parameters: a stray one is
    // refused, and the help says there are none.
    let tool = catalog::tool("gitlab_user").unwrap();
    assert!(tool.action("current").unwrap().params.is_empty());
    let got = check(
        "gitlab_user",
        json!({"action": "current", "params": {"x": 1}}),
    );
    assert!(
        got.contains("`x` is not a parameter of this action")
            && got.contains("This action takes no parameters."),
        "{got}"
    );
}

#[test]
fn types_enums_and_coercions() {
    // Coercions that cannot be misread are accepted.
    for args in [
        json!({"action": "get", "params": {"project_id": 42, "issue_iid": "7"}}),
        json!({"action": "get", "params": {"project_id": "g/p", "issue_iid": 7.0}}),
        json!({"action": "list", "params": {"project_id": 1, "labels": "a,b", "iids": "1, 2", "confidential": "false"}}),
        json!({"action": "list", "params": {"project_id": 1, "labels": ["a", "b"], "iids": 3}}),
        json!({"action": "list", "params": {"project_id": 1, "state": null}}),
        json!({"action": "get", "params": "{\"project_id\": 1, \"issue_iid\": 2}"}),
    ] {
        assert_eq!(check("gitlab_issue", args.clone()), "OK", "{args}");
    }
    // What is not a number, boolean or list is refused with the expected type.
    expect(
        "gitlab_issue",
        json!({"action": "get", "params": {"project_id": 1, "issue_iid": "seven"}}),
        &["`issue_iid` must be an integer; got string \"seven\""],
    );
    expect(
        "gitlab_issue",
        json!({"action": "get", "params": {"project_id": 1, "issue_iid": 7.5}}),
        &["`issue_iid` must be an integer; got number 7.5"],
    );
    expect(
        "gitlab_issue",
        json!({"action": "list", "params": {"project_id": 1, "confidential": "yes"}}),
        &["`confidential` must be a boolean; got string \"yes\""],
    );
    expect(
        "gitlab_issue",
        json!({"action": "list", "params": {"project_id": 1, "iids": "1,x"}}),
        &["`iids` must be a list of integers"],
    );
    expect(
        "gitlab_issue",
        json!({"action": "get", "params": {"project_id": true, "issue_iid": 1}}),
        &["`project_id` must be a string; got boolean true"],
    );
    // Enums: the allowed values and the closest, case differences included.
    expect(
        "gitlab_issue",
        json!({"action": "list", "params": {"project_id": 1, "state": "Opened"}}),
        &["must be one of opened, closed, all; got \"Opened\" (did you mean `opened`?)"],
    );
    expect(
        "gitlab_issue",
        json!({"action": "list", "params": {"project_id": 1, "order_by": "updated"}}),
        &["(did you mean `updated_at`?)"],
    );
}

#[test]
fn unknown_actions_suggest_here_and_elsewhere() {
    let cases: &[(&str, &str, &[&str])] = &[
        ("gitlab_issue", "get_issue", &["did you mean `get`?"]),
        ("gitlab_issue", "list_issues", &["did you mean `list`?"]),
        ("gitlab_issue", "comments", &["did you mean `note_list`?"]),
        (
            "gitlab_issue",
            "get_comments",
            &["did you mean `note_list`?"],
        ),
        ("gitlab_issue", "udpate", &["did you mean `update`"]),
        ("gitlab_merge_request", "accept", &["did you mean `merge`?"]),
        (
            "gitlab_project",
            "list_merge_requests",
            &["tool `gitlab_merge_request` has action `list`"],
        ),
        (
            "gitlab_issue",
            "branch_list",
            &["tool `gitlab_repository` has action `branch_list`"],
        ),
        (
            "gitlab_repository",
            "get_job_log",
            &["tool `gitlab_pipeline` has action `job_log`"],
        ),
    ];
    for (tool, action, wanted) in cases {
        expect(tool, json!({"action": action}), wanted);
        // Sized to the mistake: the fix with the meant action's parameters
        // and example, or where the full list is; never the whole list.
        let got = check(tool, json!({"action": action}));
        assert!(
            (got.contains("Parameters (* required)") && got.contains("Example: {\"action\""))
                || got.contains("{\"action\": \"help\"} lists every action"),
            "the fix: {got}"
        );
        assert!(
            !got.contains("Actions (required parameters in brackets):"),
            "a short reply: {got}"
        );
    }
}

#[test]
fn envelope_mistakes_are_named() {
    expect(
        "gitlab_issue",
        json!({"action": "get", "issue_iid": 1, "project_id": 2}),
        &[
            "`issue_iid` is a parameter: put it inside `params`",
            "`project_id` is a parameter: put it inside `params`",
        ],
    );
    expect(
        "gitlab_issue",
        json!({"action": "get", "parameters": {}}),
        &["`parameters` is not an envelope key; did you mean `params`?"],
    );
    expect(
        "gitlab_issue",
        json!({"action": "get", "args": {}}),
        &["did you mean `params`?"],
    );
    expect(
        "gitlab_issue",
        json!({"method": "get", "params": {}}),
        &["`method` is not an envelope key; did you mean `action`?"],
    );
    expect(
        "gitlab_issue",
        json!({"action": "get", "iid": 1}),
        &["`iid` is beside `action`: parameters go inside `params` (did you mean `issue_iid`?)"],
    );
    expect(
        "gitlab_issue",
        json!({"action": 3}),
        &["`action`: invalid type: integer `3`, expected a string"],
    );
    expect(
        "gitlab_issue",
        json!({"action": "get", "params": [1]}),
        &["`params`: expected an object"],
    );
}

#[test]
fn nothing_is_renamed_silently() {
    // A close name is suggested but the call still fails.
    assert_ne!(
        check(
            "gitlab_issue",
            json!({"action": "get", "params": {"project_id": 1, "issueIid": 1}})
        ),
        "OK"
    );
    assert_ne!(
        check(
            "gitlab_issue",
            json!({"action": "list", "params": {"project_id": 1, "state": "OPENED"}})
        ),
        "OK"
    );
}

#[test]
fn decode_error_values_carry_their_problems() {
    let spec = catalog::tool("gitlab_issue").unwrap();
    let Value::Object(map) = json!({"action": "get", "params": {"iid": 1}}) else {
        unreachable!()
    };
    match dispatch::decode(spec, catalog::tools(), map, None) {
        Err(DecodeError::Params { problems, .. }) => assert_eq!(problems.len(), 3, "{problems:?}"),
        other => panic!("expected params error, got {other:?}"),
    }
}

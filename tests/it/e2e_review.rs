//! Reviewing a merge request end to end: `line_comment` (one thread on a
//! diff line or range, its `position` built from the latest diff version)
//! and `review_context` (one compact answer from four reads), asserting on
//! exactly what the fake GitLab received.

use crate::common;

use common::{Harness, Lifecycle};
use fake_gitlab::db::{MrVersion, Note, sha};
use serde_json::{Value, json};

/// SHA-1 of "src/orders.rs", the start of its line codes.
const ORDERS_SHA1: &str = "a05e8ad50e25a7055ff9599d17629d8e2cc46a53";

/// The seed's merge request !1 of project 1: one version (id 100301) whose
/// README.md diff is
/// `@@ -1,3 +1,4 @@ / line one / -line two / +line two, changed in 6 / +line added in 6 / line three`.
const VERSIONS: &str = "GET /api/v4/projects/1/merge_requests/1/versions";
const VERSION: &str = "GET /api/v4/projects/1/merge_requests/1/versions/100301";
const POST: &str = "POST /api/v4/projects/1/merge_requests/1/discussions";

fn comment(params: Value) -> Value {
    let mut p = json!({"project_id": 1, "merge_request_iid": 1, "body": "Please look at this."});
    p.as_object_mut()
        .unwrap()
        .extend(params.as_object().unwrap().clone());
    json!({"action": "line_comment", "params": p})
}

/// The seed version's SHAs, as `position` must carry them.
fn readme_position(lines: Value) -> Value {
    let mut p = json!({
        "position_type": "text",
        "base_sha": sha(4),
        "start_sha": sha(4),
        "head_sha": sha(6),
        "old_path": "README.md",
        "new_path": "README.md",
    });
    p.as_object_mut()
        .unwrap()
        .extend(lines.as_object().unwrap().clone());
    p
}

/// Three requests, in order: the versions, the newest version, the thread.
fn posted(h: &Harness) -> Value {
    let requests = h.requests();
    let lines: Vec<String> = requests.iter().map(|r| r.line()).collect();
    assert_eq!(lines, [VERSIONS, VERSION, POST]);
    requests[2].json()
}

#[tokio::test]
async fn an_added_line_gets_only_new_line() {
    let h = Harness::start(Lifecycle::Discover).await;
    let text = h
        .ok(
            "gitlab_merge_request",
            comment(json!({"file": "README.md", "line": 3})),
        )
        .await;
    assert!(
        text.starts_with(
            "Commented on README.md line +3 (added), diff version 100301; the thread:\n"
        ),
        "{text}"
    );
    assert!(text.contains("\"type\":\"DiffNote\""), "{text}");
    let body = posted(&h);
    assert_eq!(body["body"], "Please look at this.");
    assert_eq!(body["position"], readme_position(json!({"new_line": 3})));
    h.stop().await;
}

#[tokio::test]
async fn a_removed_line_gets_only_old_line() {
    let h = Harness::start(Lifecycle::Initialize).await;
    let text = h
        .ok(
            "gitlab_merge_request",
            comment(json!({"file": "README.md", "old_line": 2})),
        )
        .await;
    assert!(
        text.starts_with("Commented on README.md line -2 (removed)"),
        "{text}"
    );
    assert_eq!(
        posted(&h)["position"],
        readme_position(json!({"old_line": 2}))
    );
    h.stop().await;
}

#[tokio::test]
async fn an_unchanged_line_gets_both_numbers_from_either_side() {
    let h = Harness::start(Lifecycle::Discover).await;
    // "line three" is line 3 of the old file and line 4 of the new one.
    h.ok(
        "gitlab_merge_request",
        comment(json!({"file": "README.md", "line": 4})),
    )
    .await;
    assert_eq!(
        posted(&h)["position"],
        readme_position(json!({"new_line": 4, "old_line": 3}))
    );
    h.fake.clear_requests();
    let text = h
        .ok(
            "gitlab_merge_request",
            comment(json!({"file": "README.md", "old_line": 3})),
        )
        .await;
    assert!(text.contains("line 4 (unchanged)"), "{text}");
    assert_eq!(
        posted(&h)["position"],
        readme_position(json!({"new_line": 4, "old_line": 3}))
    );
    h.stop().await;
}

/// A newer version of !1 with `src/orders.rs` changed in two hunks (new
/// lines 8-16 and 32-35, old lines 8-14 and 30-34) and `docs/old.md`
/// deleted.
fn add_version(h: &Harness) -> MrVersion {
    let orders = "@@ -8,7 +8,9 @@ fn refund() {\n a\n b\n c\n-old eleven\n+new eleven\n+new twelve\n+new thirteen\n d\n e\n f\n@@ -30,5 +32,4 @@\n g\n h\n-old thirty-two\n i\n j\n";
    let version = MrVersion {
        id: 555,
        head_commit_sha: sha(60),
        base_commit_sha: sha(40),
        start_commit_sha: sha(41),
        created_at: "2026-02-20T09:00:00.000Z".into(),
        commit_shas: vec![sha(6), sha(5)],
        diffs: vec![
            (
                "src/orders.rs".into(),
                "src/orders.rs".into(),
                orders.into(),
                false,
                false,
            ),
            (
                "docs/old.md".into(),
                "docs/old.md".into(),
                "@@ -1,2 +0,0 @@\n-first\n-second\n".into(),
                false,
                true,
            ),
        ],
    };
    let mut db = h.fake.db();
    let project = db.projects.iter_mut().find(|p| p.id == 1).unwrap();
    let mr = project
        .merge_requests
        .iter_mut()
        .find(|m| m.iid == 1)
        .unwrap();
    let first = project_first_version(mr.id);
    mr.versions = vec![first, version.clone()];
    version
}

/// The seed's one version, kept as the older one.
fn project_first_version(mr_id: u64) -> MrVersion {
    MrVersion {
        id: mr_id + 100_000,
        head_commit_sha: sha(6),
        base_commit_sha: sha(4),
        start_commit_sha: sha(4),
        created_at: "2026-02-11T08:00:00.000Z".into(),
        commit_shas: vec![sha(6), sha(5)],
        diffs: vec![],
    }
}

fn orders_position(lines: Value) -> Value {
    let mut p = json!({
        "position_type": "text",
        "base_sha": sha(40),
        "start_sha": sha(41),
        "head_sha": sha(60),
        "old_path": "src/orders.rs",
        "new_path": "src/orders.rs",
    });
    p.as_object_mut()
        .unwrap()
        .extend(lines.as_object().unwrap().clone());
    p
}

#[tokio::test]
async fn a_range_carries_line_range_with_gitlabs_line_codes() {
    let h = Harness::start(Lifecycle::Discover).await;
    add_version(&h);
    // New lines 10 (unchanged, old 10) to 13 (added): shown at line 13.
    let text = h
        .ok(
            "gitlab_merge_request",
            comment(json!({"file": "src/orders.rs", "line": 10, "end_line": 13})),
        )
        .await;
    assert!(
        text.starts_with(
            "Commented on src/orders.rs lines 10 (unchanged) to +13 (added), diff version 555"
        ),
        "{text}"
    );
    let lines: Vec<String> = h.requests().iter().map(|r| r.line()).collect();
    assert_eq!(
        lines,
        [
            VERSIONS,
            "GET /api/v4/projects/1/merge_requests/1/versions/555",
            POST
        ]
    );
    let body = h.requests()[2].json();
    assert_eq!(
        body["position"],
        orders_position(json!({
            "new_line": 13,
            "line_range": {
                "start": {"line_code": format!("{ORDERS_SHA1}_10_10"), "type": "old", "old_line": 10, "new_line": 10},
                // An added line's old counter is the old line it comes before (12).
                "end": {"line_code": format!("{ORDERS_SHA1}_12_13"), "type": "new", "new_line": 13},
            }
        }))
    );
    h.fake.clear_requests();
    // Old lines 11 (removed) to 13 (unchanged, new 15).
    h.ok(
        "gitlab_merge_request",
        comment(json!({"file": "src/orders.rs", "old_line": 11, "end_line": 13})),
    )
    .await;
    assert_eq!(
        h.requests()[2].json()["position"],
        orders_position(json!({
            "old_line": 13,
            "new_line": 15,
            "line_range": {
                "start": {"line_code": format!("{ORDERS_SHA1}_11_11"), "type": "old", "old_line": 11},
                "end": {"line_code": format!("{ORDERS_SHA1}_13_15"), "type": "old", "old_line": 13, "new_line": 15},
            }
        }))
    );
    h.stop().await;
}

#[tokio::test]
async fn a_line_of_a_deleted_file_is_named_by_its_old_path() {
    let h = Harness::start(Lifecycle::Initialize).await;
    add_version(&h);
    h.ok(
        "gitlab_merge_request",
        comment(json!({"file": "docs/old.md", "old_line": 2})),
    )
    .await;
    let position = &h.requests()[2].json()["position"];
    assert_eq!(position["old_path"], "docs/old.md");
    assert_eq!(position["new_path"], "docs/old.md");
    assert_eq!(position["old_line"], 2);
    assert!(position.get("new_line").is_none(), "{position}");
    h.stop().await;
}

#[tokio::test]
async fn a_line_outside_the_diff_is_refused_before_anything_is_posted() {
    let h = Harness::start(Lifecycle::Discover).await;
    add_version(&h);
    let reads = [
        VERSIONS.to_string(),
        "GET /api/v4/projects/1/merge_requests/1/versions/555".to_string(),
    ];
    for (params, expected) in [
        (
            json!({"file": "src/orders.rs", "line": 40}),
            "nothing was posted: line 40 is not in the diff of src/orders.rs; new-version lines that can take a comment: 8-16, 32-35 (a removed line takes `old_line`).",
        ),
        (
            json!({"file": "src/orders.rs", "old_line": 20}),
            "old_line 20 is not in the diff of src/orders.rs; old-version lines that can take a comment: 8-14, 30-34 (an added line takes `line`)",
        ),
        (
            json!({"file": "src/orders.rs", "line": 14, "end_line": 20}),
            "end_line 20 is not in the diff of src/orders.rs; new-version lines that can take a comment: 8-16, 32-35",
        ),
        (
            json!({"file": "src/orders.rs", "line": 14, "end_line": 33}),
            "line 14 to 33 crosses lines that are not in the diff of src/orders.rs; a range stays within one of: 8-16, 32-35",
        ),
        (
            json!({"file": "src/order.rs", "line": 10}),
            "src/order.rs is not a file of this merge request's diff (version 555); its files: src/orders.rs, docs/old.md",
        ),
    ] {
        h.fake.clear_requests();
        let text = h.err("gitlab_merge_request", comment(params.clone())).await;
        assert!(text.contains(expected), "{params}: {text}");
        let lines: Vec<String> = h.requests().iter().map(|r| r.line()).collect();
        assert_eq!(lines, reads, "{params}: only reads, no POST");
    }
    h.stop().await;
}

#[tokio::test]
async fn one_side_exactly_and_a_range_that_goes_forward() {
    let h = Harness::start(Lifecycle::Initialize).await;
    for (params, expected) in [
        (
            json!({"file": "README.md", "line": 3, "old_line": 2}),
            "- `line` and `old_line` are both given: give one of them",
        ),
        (
            json!({"file": "README.md"}),
            "- give `line` or `old_line` (at least one)",
        ),
        (
            json!({"file": "README.md", "line": 4, "end_line": 2}),
            "- `end_line` (2) is before `line` (4): a range ends at or after its start",
        ),
        (
            json!({"file": "README.md", "line": 0}),
            "- `line` must be at least 1; got 0",
        ),
    ] {
        let text = h.err("gitlab_merge_request", comment(params.clone())).await;
        assert!(
            text.starts_with("gitlab_merge_request line_comment: invalid params\n"),
            "{text}"
        );
        assert!(text.contains(expected), "{params}: {text}");
    }
    // `file` beside `action` is a misplaced parameter, not the diff view key.
    let text = h
        .err(
            "gitlab_merge_request",
            json!({"action": "line_comment", "file": "README.md", "params": {"project_id": 1, "merge_request_iid": 1, "line": 3, "body": "x"}}),
        )
        .await;
    assert!(
        text.contains("`file` is a parameter of this action: put it inside `params`"),
        "{text}"
    );
    assert!(h.requests().is_empty(), "{:#?}", h.requests());
    h.stop().await;
}

#[tokio::test]
async fn a_failed_read_is_rendered_and_nothing_is_posted() {
    let h = Harness::start(Lifecycle::Discover).await;
    let text = h
        .err(
            "gitlab_merge_request",
            json!({"action": "line_comment", "params": {"project_id": 1, "merge_request_iid": 99, "file": "README.md", "line": 3, "body": "x"}}),
        )
        .await;
    assert!(
        text.starts_with("Nothing was posted: reading the merge request's diff versions failed.\ngitlab_merge_request line_comment: GitLab answered 404"),
        "{text}"
    );
    assert!(text.contains("Use action `list`"), "{text}");
    assert_eq!(
        h.only_request().line(),
        "GET /api/v4/projects/1/merge_requests/99/versions"
    );
    h.stop().await;
}

/// !1 with a head pipeline, an approval by alice, one unresolved diff
/// thread, one resolved thread and the seed's plain comment.
async fn prepare_review(h: &Harness) {
    {
        let mut db = h.fake.db();
        let project = db.projects.iter_mut().find(|p| p.id == 1).unwrap();
        let mr = project
            .merge_requests
            .iter_mut()
            .find(|m| m.iid == 1)
            .unwrap();
        mr.head_pipeline_id = Some(1001);
    }
    h.ok(
        "gitlab_merge_request",
        json!({"action": "approve", "params": {"project_id": 1, "merge_request_iid": 1}}),
    )
    .await;
    h.ok(
        "gitlab_merge_request",
        comment(json!({"file": "README.md", "line": 3, "body": "Is this line\n  needed at all?"})),
    )
    .await;
    let resolved = h
        .ok(
            "gitlab_merge_request",
            json!({"action": "discussion_create", "params": {"project_id": 1, "merge_request_iid": 1, "body": "Naming nit."}}),
        )
        .await;
    let id = resolved
        .split("\"id\":\"")
        .nth(1)
        .and_then(|s| s.split('"').next())
        .unwrap()
        .to_string();
    h.ok(
        "gitlab_merge_request",
        json!({"action": "discussion_resolve", "params": {"project_id": 1, "merge_request_iid": 1, "discussion_id": id}}),
    )
    .await;
    h.fake.clear_requests();
}

#[tokio::test]
async fn review_context_answers_once_from_four_reads() {
    let h = Harness::start(Lifecycle::Discover).await;
    prepare_review(&h).await;
    let thread = {
        let db = h.fake.db();
        let mr = &db
            .projects
            .iter()
            .find(|p| p.id == 1)
            .unwrap()
            .merge_requests[0];
        mr.notes
            .iter()
            .find(|n| n.note_type == Some("DiffNote"))
            .unwrap()
            .discussion_id
            .clone()
    };
    let text = h
        .ok(
            "gitlab_merge_request",
            json!({"action": "review_context", "params": {"project_id": "acme/platform/api", "merge_request_iid": 1}}),
        )
        .await;
    let expected = format!(
        "!1 Rework the orders endpoint
state: opened; draft: no; merge status: mergeable; conflicts: no
author: @bob; branches: feature/orders-v2 → main
reviewers: @bob
labels: backend
pipeline: success (id 1001)
approvals: approved by @alice; approvals left: 0
url: {url}/acme/platform/api/-/merge_requests/1

description:
Rework the orders endpoint.

Closes #1.

changed files (2, +4 −2):
README.md  +2 −1
src/main.rs  +2 −1

unresolved threads (1 of 3 threads; first note, cut at 200 characters):
- {thread} README.md:3 @alice: Is this line needed at all?
",
        url = h.fake.url()
    );
    assert_eq!(common::data(&text), expected.trim_end());
    let mut lines: Vec<String> = h.requests().iter().map(|r| r.line()).collect();
    lines.sort();
    assert_eq!(
        lines,
        [
            "GET /api/v4/projects/acme%2Fplatform%2Fapi/merge_requests/1",
            "GET /api/v4/projects/acme%2Fplatform%2Fapi/merge_requests/1/approvals",
            "GET /api/v4/projects/acme%2Fplatform%2Fapi/merge_requests/1/diffs?per_page=100",
            "GET /api/v4/projects/acme%2Fplatform%2Fapi/merge_requests/1/discussions?per_page=100",
        ]
    );
    h.stop().await;
}

#[tokio::test]
async fn review_context_stays_under_the_cap_and_says_what_it_cut() {
    let cap = 2048;
    let h = Harness::start_with(
        Lifecycle::Initialize,
        &[("GITLAB_MCP_MAX_RESPONSE_BYTES", "2048")],
    )
    .await;
    {
        let mut db = h.fake.db();
        let project = db.projects.iter_mut().find(|p| p.id == 1).unwrap();
        let mr = project
            .merge_requests
            .iter_mut()
            .find(|m| m.iid == 1)
            .unwrap();
        mr.description = "A long description. ".repeat(200);
        for n in 0..40u64 {
            mr.notes.push(Note {
                id: 90_000 + n,
                body: format!("Unresolved question number {n}: {}", "why? ".repeat(60)),
                author_id: 2,
                created_at: "2026-02-16T09:00:00.000Z".into(),
                discussion_id: sha(90_000 + n),
                note_type: Some("DiscussionNote"),
                resolvable: true,
                ..Note::default()
            });
        }
    }
    let text = h
        .ok(
            "gitlab_merge_request",
            json!({"action": "review_context", "params": {"project_id": 1, "merge_request_iid": 1}}),
        )
        .await;
    assert!(text.len() <= cap, "{} bytes:\n{text}", text.len());
    for expected in [
        "[description cut at 512 of 3999 characters; action `get` has it whole]",
        "unresolved threads (40 of 41 threads; first note, cut at 200 characters):",
        "unresolved threads shown; action `discussion_list` has them all]",
        "README.md  +2 −1",
    ] {
        assert!(text.contains(expected), "{expected:?} not in:\n{text}");
    }
    // A cut excerpt ends with an ellipsis.
    assert!(
        text.lines()
            .any(|l| l.starts_with("- ") && l.ends_with('…')),
        "{text}"
    );
    h.stop().await;
}

#[tokio::test]
async fn review_context_of_an_unknown_merge_request_names_list() {
    let h = Harness::start(Lifecycle::Discover).await;
    let text = h
        .err(
            "gitlab_merge_request",
            json!({"action": "review_context", "params": {"project_id": 1, "merge_request_iid": 99}}),
        )
        .await;
    assert!(
        text.starts_with("Not found: gitlab_merge_request review_context with project_id \"1\", merge_request_iid 99."),
        "{text}"
    );
    assert!(text.contains("Next: Use action `list`"), "{text}");
    h.stop().await;
}

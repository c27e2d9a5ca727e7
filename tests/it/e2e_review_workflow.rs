//! A whole review in one call (`gitlab_merge_request review`) and waiting
//! for an auto-merge (`wait_merge`), end to end against the fake GitLab:
//! what it received, in which order, and what the client saw.
//!
//! The seed's merge request !1 of project 1 has one diff version (100301,
//! head `sha(6)`) whose README.md diff is `@@ -1,3 +1,4 @@ / line one /
//! -line two / +line two, changed in 6 / +line added in 6 / line three`:
//! new lines 1 to 4 can take a comment, old lines 1 to 3.

use crate::common;

use std::sync::{Arc, Mutex};
use std::time::Duration;

use common::{Harness, Lifecycle};
use fake_gitlab::Fault;
use fake_gitlab::db::{AutoMerge, AutoMergeEnd, MergeRequest, sha};
use rmcp::model::{
    CallToolRequestParams, NumberOrString, ProgressNotificationParam, ProgressToken,
    RequestMetaObject,
};
use rmcp::service::NotificationContext;
use rmcp::{ClientHandler, RoleClient};
use serde_json::{Value, json};

const MR: &str = "/api/v4/projects/1/merge_requests/1";

/// The reads every review makes first (they go out at once, in any order).
fn reads() -> Vec<String> {
    let mut reads = vec![
        format!("GET {MR}"),
        format!("GET {MR}/versions"),
        format!("GET {MR}/versions/100301"),
        format!("GET {MR}/draft_notes"),
        format!("GET {MR}/notes?sort=desc&order_by=created_at&per_page=100"),
        "GET /api/v4/user".to_string(),
    ];
    reads.sort();
    reads
}

fn review(params: Value) -> Value {
    let mut p = json!({"project_id": 1, "merge_request_iid": 1});
    p.as_object_mut()
        .unwrap()
        .extend(params.as_object().unwrap().clone());
    json!({"action": "review", "params": p})
}

/// Two comments, a summary and the approval at the head.
fn two_comments() -> Value {
    review(json!({
        "comments": [
            {"file": "README.md", "line": 2, "body": "Why change this line?"},
            {"file": "README.md", "old_line": 2, "body": "This was clearer."},
        ],
        "body": "Two questions, otherwise fine.",
        "approve": true,
        "sha": sha(6),
    }))
}

/// The requests after the first reads, as lines; the first reads sorted.
fn split(h: &Harness) -> (Vec<String>, Vec<String>) {
    let lines: Vec<String> = h.requests().iter().map(|r| r.line()).collect();
    let mut first: Vec<String> = lines.iter().take(6).cloned().collect();
    first.sort();
    (first, lines[6.min(lines.len())..].to_vec())
}

fn merge_request(h: &Harness, each: impl FnOnce(&mut MergeRequest)) {
    let mut db = h.fake.db();
    let project = db.projects.iter_mut().find(|p| p.id == 1).unwrap();
    each(
        project
            .merge_requests
            .iter_mut()
            .find(|m| m.iid == 1)
            .unwrap(),
    );
}

/// The bodies of the merge request's notes, oldest first.
fn note_bodies(h: &Harness) -> Vec<String> {
    let mut bodies = Vec::new();
    merge_request(h, |mr| {
        bodies = mr.notes.iter().map(|n| n.body.clone()).collect()
    });
    bodies
}

#[tokio::test]
async fn two_drafts_are_published_once_in_order_then_the_summary_and_the_approval() {
    let h = Harness::start(Lifecycle::Discover).await;
    let text = h.ok("gitlab_merge_request", two_comments()).await;
    let (first, then) = split(&h);
    assert_eq!(first, reads());
    assert_eq!(
        then,
        [
            format!("POST {MR}/draft_notes"),
            format!("POST {MR}/draft_notes"),
            format!("POST {MR}/draft_notes/bulk_publish"),
            format!("POST {MR}/notes"),
            format!("POST {MR}/approve"),
            format!("GET {MR}/notes?sort=desc&order_by=created_at&per_page=100"),
        ]
    );
    let requests = h.requests();
    let (one, two) = (requests[6].json(), requests[7].json());
    assert_eq!(one["note"], "Why change this line?");
    assert_eq!(one["position"]["new_line"], 2);
    assert_eq!(one["position"]["head_sha"], sha(6));
    assert_eq!(two["note"], "This was clearer.");
    assert_eq!(two["position"]["old_line"], 2);
    assert_eq!(
        requests[9].json(),
        json!({"body": "Two questions, otherwise fine."})
    );
    assert_eq!(requests[10].json(), json!({"sha": sha(6)}));
    // Published: two diff notes and the summary, no draft left, approved.
    let mut drafts_left = 1;
    merge_request(&h, |mr| {
        drafts_left = mr.draft_notes.len();
        assert_eq!(mr.approved_by, [1]);
        let types: Vec<_> = mr.notes.iter().skip(1).map(|n| n.note_type).collect();
        assert_eq!(types, [Some("DiffNote"), Some("DiffNote"), None]);
    });
    assert_eq!(drafts_left, 0);
    assert!(
        text.starts_with(&format!(
            "Review of !1 posted on diff version 100301: 2 comment(s) as one review, the summary, approved at {}.\n",
            sha(6)
        )),
        "{text}"
    );
    h.stop().await;
}

#[tokio::test]
async fn the_answer_links_each_posted_discussion() {
    let h = Harness::start(Lifecycle::Initialize).await;
    let text = h.ok("gitlab_merge_request", two_comments()).await;
    let mut ids = Vec::new();
    merge_request(&h, |mr| {
        ids = mr.notes.iter().skip(1).map(|n| n.id).collect()
    });
    let url = {
        let db = h.fake.db();
        let project = db.projects.iter().find(|p| p.id == 1).unwrap();
        format!(
            "{}/{}/-/merge_requests/1",
            db.host, project.path_with_namespace
        )
    };
    assert_eq!(
        common::data(&text),
        format!(
            "comments[0] README.md line +2 (added): {url}#note_{}\n\
             comments[1] README.md line -2 (removed): {url}#note_{}\n\
             summary: {url}#note_{}",
            ids[0], ids[1], ids[2]
        )
    );
    h.stop().await;
}

#[tokio::test]
async fn nothing_is_posted_when_one_comment_of_three_is_outside_the_diff() {
    let h = Harness::start(Lifecycle::Discover).await;
    let text = h
        .err(
            "gitlab_merge_request",
            review(json!({"comments": [
                {"file": "README.md", "line": 1, "body": "a"},
                {"file": "README.md", "line": 9, "body": "b"},
                {"file": "README.md", "line": 3, "body": "c"},
            ]})),
        )
        .await;
    assert_eq!(
        text,
        "gitlab_merge_request review: nothing was posted: 1 problem(s):\n\
         - `comments[1]`: line 9 is not in the diff of README.md; new-version lines that can take a comment: 1-4 (a removed line takes `old_line`)\n"
    );
    let (first, then) = split(&h);
    assert_eq!((first, then), (reads(), vec![]));
    assert_eq!(note_bodies(&h).len(), 1);
    h.stop().await;
}

#[tokio::test]
async fn nothing_is_posted_on_a_stale_sha_and_the_answer_names_the_head() {
    let h = Harness::start(Lifecycle::Initialize).await;
    let text = h
        .err(
            "gitlab_merge_request",
            review(json!({
                "comments": [{"file": "README.md", "line": 9, "body": "off"}],
                "approve": true,
                "sha": sha(5),
            })),
        )
        .await;
    assert_eq!(
        text,
        format!(
            "gitlab_merge_request review: nothing was posted: 2 problem(s):\n\
             - `sha` {} is not the head of the merge request any more: the head is now {}; review the new commits, then call again with that sha\n\
             - `comments[0]`: line 9 is not in the diff of README.md; new-version lines that can take a comment: 1-4 (a removed line takes `old_line`)\n",
            sha(5),
            sha(6)
        )
    );
    assert_eq!(split(&h).1, Vec::<String>::new());
    h.stop().await;
}

#[tokio::test]
async fn unknown_keys_of_each_comment_are_named_with_a_suggestion_before_anything_is_read() {
    let h = Harness::start(Lifecycle::Discover).await;
    let text = h
        .err(
            "gitlab_merge_request",
            review(json!({"comments": [
                {"file": "README.md", "line": 1, "body": "a"},
                {"file": "README.md", "lin": 2, "body": "b"},
                {"path": "README.md", "line": 3, "bdy": "c"},
            ]})),
        )
        .await;
    for expected in [
        "- `comments[1].lin` is not a field of `comments`; did you mean `line`?",
        "- `comments[2].path` is not a field of `comments`; did you mean `file`?",
        "- `comments[2].bdy` is not a field of `comments`; did you mean `body`?",
        "- `comments[2].file` is missing (required)",
        "- `comments[2].body` is missing (required)",
    ] {
        assert!(text.contains(expected), "{expected}\n{text}");
    }
    assert_eq!(h.requests(), []);
    h.stop().await;
}

#[tokio::test]
async fn an_approval_without_sha_and_a_comment_with_both_sides_are_refused_before_anything_is_read()
{
    let h = Harness::start(Lifecycle::Initialize).await;
    let text = h
        .err(
            "gitlab_merge_request",
            review(json!({
                "comments": [{"file": "README.md", "line": 1, "old_line": 1, "body": "a"}],
                "approve": true,
            })),
        )
        .await;
    assert!(
        text.starts_with(
            "gitlab_merge_request review: invalid params\n\
             - `comments[0]`: `line` and `old_line` are both given: give one of them\n\
             - `sha` is missing: `approve` needs the head commit you reviewed (`sha` of action `get`)\n"
        ),
        "{text}"
    );
    assert_eq!(h.requests(), []);
    h.stop().await;
}

#[tokio::test]
async fn a_quick_action_in_a_comment_is_refused_and_nothing_is_sent() {
    let h = Harness::start(Lifecycle::Discover).await;
    let text = h
        .err(
            "gitlab_merge_request",
            review(json!({"comments": [
                {"file": "README.md", "line": 1, "body": "fine"},
                {"file": "README.md", "line": 2, "body": "LGTM\n/merge"},
            ]})),
        )
        .await;
    assert!(text.contains("`comments[1].body` has /merge"), "{text}");
    assert_eq!(h.requests(), []);
    h.stop().await;
}

#[tokio::test]
async fn a_range_comment_carries_its_line_range() {
    let h = Harness::start(Lifecycle::Discover).await;
    let text = h
        .ok(
            "gitlab_merge_request",
            review(json!({"comments": [
                {"file": "README.md", "line": 1, "end_line": 3, "body": "These three."},
            ]})),
        )
        .await;
    assert!(
        text.contains("comments[0] README.md lines 1 (unchanged) to +3 (added): "),
        "{text}"
    );
    let draft = h.requests()[6].json();
    let readme = "8ec9a00bfd09b3190ac6b22251dbb1aa95a0579d";
    assert_eq!(
        draft["position"]["line_range"],
        json!({
            "start": {"line_code": format!("{readme}_1_1"), "type": "old", "old_line": 1, "new_line": 1},
            "end": {"line_code": format!("{readme}_3_3"), "type": "new", "new_line": 3},
        })
    );
    assert_eq!(draft["position"]["new_line"], 3);
    let mut range = Value::Null;
    merge_request(&h, |mr| {
        range = mr.notes.last().unwrap().position.as_ref().unwrap()["line_range"].clone();
    });
    assert_eq!(range, draft["position"]["line_range"]);
    h.stop().await;
}

#[tokio::test]
async fn a_retry_after_a_failed_publish_reuses_the_drafts() {
    let h = Harness::start(Lifecycle::Discover).await;
    h.fake.inject(
        Fault::status(500)
            .on("POST", &format!("{MR}/draft_notes/bulk_publish"))
            .times(1),
    );
    let text = h.err("gitlab_merge_request", two_comments()).await;
    assert!(
        text.starts_with(
            "Stopped partway: publishing the drafts as one review failed.\n\
             Posted: nothing visible yet.\n\
             Drafted, not published (only you see them): comments[0], comments[1].\n\
             Not posted: the summary, the approval.\n\
             [Calling review again with the same arguments finishes it: what is drafted or posted is found and not posted twice.]\n\
             gitlab_merge_request review: GitLab answered 500"
        ),
        "{text}"
    );
    h.fake.clear_requests();
    let text = h.ok("gitlab_merge_request", two_comments()).await;
    assert!(text.starts_with("Review of !1 posted"), "{text}");
    let (_, then) = split(&h);
    assert_eq!(
        then,
        [
            format!("POST {MR}/draft_notes/bulk_publish"),
            format!("POST {MR}/notes"),
            format!("POST {MR}/approve"),
            format!("GET {MR}/notes?sort=desc&order_by=created_at&per_page=100"),
        ],
        "no draft is created twice"
    );
    assert_eq!(
        note_bodies(&h)[1..],
        [
            "Why change this line?",
            "This was clearer.",
            "Two questions, otherwise fine."
        ]
    );
    h.stop().await;
}

#[tokio::test]
async fn a_failed_approval_is_accounted_for_and_a_retry_posts_nothing_twice() {
    let h = Harness::start(Lifecycle::Initialize).await;
    h.fake.inject(
        Fault::status(500)
            .on("POST", &format!("{MR}/approve"))
            .times(1),
    );
    let text = h.err("gitlab_merge_request", two_comments()).await;
    assert!(
        text.starts_with(
            "Stopped partway: approving failed.\n\
             Posted: comments[0], comments[1], the summary.\n\
             Not posted: the approval.\n⟦\ncomments[0] README.md line +2 (added): "
        ),
        "{text}"
    );
    assert!(
        text.contains("gitlab_merge_request review: GitLab answered 500"),
        "{text}"
    );
    h.fake.clear_requests();
    let text = h.ok("gitlab_merge_request", two_comments()).await;
    assert!(
        text.starts_with(&format!(
            "Review of !1 posted on diff version 100301: 2 comment(s) as one review, the summary, approved at {}.",
            sha(6)
        )),
        "{text}"
    );
    assert!(text.contains("(posted by an earlier call)"), "{text}");
    assert_eq!(split(&h).1, [format!("POST {MR}/approve")]);
    assert_eq!(
        note_bodies(&h).len(),
        4,
        "the seed's note and three, once each"
    );
    h.stop().await;
}

#[tokio::test]
async fn another_pending_draft_refuses_the_review() {
    let h = Harness::start(Lifecycle::Discover).await;
    h.ok(
        "gitlab_merge_request",
        json!({"action": "draft_note_create", "params": {"project_id": 1, "merge_request_iid": 1, "note": "Half a thought"}}),
    )
    .await;
    h.fake.clear_requests();
    let text = h.err("gitlab_merge_request", two_comments()).await;
    assert!(
        text.contains("you have 1 pending draft note(s) that are not this review's (id "),
        "{text}"
    );
    assert_eq!(split(&h).1, Vec::<String>::new());
    h.stop().await;
}

// --- wait_merge ---------------------------------------------------------

#[derive(Clone, Default)]
struct Watcher {
    seen: Arc<Mutex<Vec<ProgressNotificationParam>>>,
}

impl ClientHandler for Watcher {
    async fn on_progress(
        &self,
        params: ProgressNotificationParam,
        _context: NotificationContext<RoleClient>,
    ) {
        self.seen.lock().unwrap().push(params);
    }
}

fn wait_merge(timeout: Option<u64>) -> CallToolRequestParams {
    let mut params = json!({"project_id": 1, "merge_request_iid": 1});
    if let Some(t) = timeout {
        params["timeout_seconds"] = t.into();
    }
    let Value::Object(map) = json!({"action": "wait_merge", "params": params}) else {
        unreachable!()
    };
    let mut meta = RequestMetaObject::new();
    meta.set_progress_token(ProgressToken(NumberOrString::Number(9)));
    let mut call =
        CallToolRequestParams::new("gitlab_merge_request".to_string()).with_arguments(map);
    call.meta = Some(meta);
    call
}

fn text_of(result: &rmcp::model::CallToolResult) -> String {
    result
        .content
        .iter()
        .filter_map(|c| c.as_text().map(|t| t.text.clone()))
        .collect()
}

/// !1 set to auto-merge through the server, its head pipeline running;
/// the fake's pipeline then finishes after `reads` reads.
async fn auto_merging<C: ClientHandler>(h: &Harness<C>, reads: u32, then: AutoMergeEnd) {
    {
        let mut db = h.fake.db();
        let project = db.projects.iter_mut().find(|p| p.id == 1).unwrap();
        project.merge_requests[0].head_pipeline_id = Some(1003);
    }
    let Value::Object(map) = json!({"action": "merge", "params": {"project_id": 1, "merge_request_iid": 1, "auto_merge": true}})
    else {
        unreachable!()
    };
    let result = h
        .client
        .call_tool(
            CallToolRequestParams::new("gitlab_merge_request".to_string()).with_arguments(map),
        )
        .await
        .unwrap();
    assert!(
        text_of(&result).contains("\"merge_when_pipeline_succeeds\":true"),
        "{result:?}"
    );
    let mut db = h.fake.db();
    let project = db.projects.iter_mut().find(|p| p.id == 1).unwrap();
    let auto = project.merge_requests[0].auto_merge.as_mut().unwrap();
    *auto = AutoMerge {
        reads_left: reads,
        then,
        merge_user: auto.merge_user,
    };
    drop(db);
    h.fake.clear_requests();
}

#[tokio::test]
async fn wait_merge_reports_progress_until_the_merge() {
    let watcher = Watcher::default();
    let h = Harness::start_client(watcher.clone(), Lifecycle::Initialize, &[]).await;
    auto_merging(&h, 3, AutoMergeEnd::Merged).await;
    let result = h.client.call_tool(wait_merge(None)).await.unwrap();
    let text = text_of(&result);
    assert_eq!(result.is_error, Some(false));
    assert!(text.starts_with("Merged.\n⟦\n!1 merged at "), "{text}");
    assert!(
        text.contains(&format!("by alice, commit {}", sha(7001))),
        "{text}"
    );
    let reads: Vec<String> = h.requests().iter().map(|r| r.line()).collect();
    assert_eq!(
        reads,
        vec![format!("GET {MR}"); 3],
        "no timeout_seconds sent"
    );
    let seen = watcher.seen.lock().unwrap().clone();
    let lines: Vec<_> = seen
        .iter()
        .map(|p| p.message.clone().unwrap_or_default())
        .collect();
    assert_eq!(
        lines,
        vec![
            "!1 opened, detailed_merge_status ci_still_running, head pipeline running, auto-merge set";
            2
        ]
    );
    assert!(seen[0].progress < seen[1].progress, "{seen:?}");
    assert!(seen.iter().all(|p| p.total == Some(300.0)), "{seen:?}");
    h.stop().await;
}

#[tokio::test]
async fn wait_merge_answers_the_status_and_the_call_to_go_on_when_time_runs_out() {
    let h = Harness::start(Lifecycle::Discover).await;
    auto_merging(&h, 100, AutoMergeEnd::Merged).await;
    let result = h.client.call_tool(wait_merge(Some(1))).await.unwrap();
    assert_eq!(result.is_error, Some(false));
    assert_eq!(
        text_of(&result),
        "Still waiting after 1 s; the last status:\n⟦\n!1 opened, detailed_merge_status ci_still_running, head pipeline running, auto-merge set\n⟧\n\
         [to go on waiting, call gitlab_merge_request again with {\"action\":\"wait_merge\",\"params\":{\"project_id\":\"1\",\"merge_request_iid\":1,\"timeout_seconds\":1}}]"
    );
    assert_eq!(
        h.requests().len(),
        2,
        "a read at the start and one at the deadline"
    );
    h.stop().await;
}

#[tokio::test]
async fn wait_merge_ends_when_auto_merge_stops_or_fails() {
    let h = Harness::start(Lifecycle::Initialize).await;
    auto_merging(&h, 100, AutoMergeEnd::Merged).await;
    h.ok(
        "gitlab_merge_request",
        json!({"action": "cancel_auto_merge", "params": {"project_id": 1, "merge_request_iid": 1}}),
    )
    .await;
    let text = text_of(&h.client.call_tool(wait_merge(None)).await.unwrap());
    assert_eq!(
        text,
        "Not merging: auto-merge is not set (cancelled, or never set), so nothing will merge it.\n⟦\n!1 opened, detailed_merge_status mergeable, head pipeline running\n⟧\n[action `merge` with auto_merge sets it; then call wait_merge again]"
    );

    auto_merging(&h, 2, AutoMergeEnd::Fails("Merge failed: conflicts".into())).await;
    let text = text_of(&h.client.call_tool(wait_merge(None)).await.unwrap());
    assert!(
        text.starts_with(
            "Not merged: GitLab tried and failed (merge_error):\n⟦\n!1: Merge failed: conflicts\n⟧"
        ),
        "{text}"
    );
    assert_eq!(h.requests().len(), 2);
    h.stop().await;
}

#[tokio::test]
async fn a_cancelled_wait_stops_reading() {
    let h = Harness::start(Lifecycle::Initialize).await;
    auto_merging(&h, 100, AutoMergeEnd::Merged).await;
    let waiting = h.client.call_tool(wait_merge(None));
    assert!(
        tokio::time::timeout(Duration::from_millis(1500), waiting)
            .await
            .is_err()
    );
    let at_cancel = h.requests().len();
    assert_eq!(at_cancel, 2, "reads at 0 and 1 s");
    tokio::time::sleep(Duration::from_secs(4)).await;
    assert_eq!(h.requests().len(), at_cancel, "no read after the cancel");
    h.stop().await;
}

// --- what a review costs --------------------------------------------------

/// Five comments, a summary and an approval: one `review` call against
/// today's seven calls (5 × `line_comment`, `note_create`, `approve`).
/// The request counts are asserted; the answer bytes are printed
/// (`--nocapture`) for the record.
#[tokio::test]
async fn a_review_of_five_comments_against_todays_seven_calls() {
    let comments = json!([
        {"file": "README.md", "line": 1, "body": "Is this line still true?"},
        {"file": "README.md", "line": 2, "body": "Why change this line?"},
        {"file": "README.md", "line": 3, "body": "Please add a test for this."},
        {"file": "README.md", "line": 4, "body": "Typo in the last word."},
        {"file": "README.md", "old_line": 2, "body": "This was clearer."},
    ]);
    let summary = "Five small points, otherwise fine.";

    let h = Harness::start(Lifecycle::Initialize).await;
    let one = h
        .ok(
            "gitlab_merge_request",
            review(json!({"comments": comments, "body": summary, "approve": true, "sha": sha(6)})),
        )
        .await;
    let review_requests = h.requests().len();
    h.stop().await;

    let h = Harness::start(Lifecycle::Initialize).await;
    let mut bytes = 0;
    for comment in comments.as_array().unwrap() {
        let mut params = comment.clone();
        params["project_id"] = 1.into();
        params["merge_request_iid"] = 1.into();
        bytes += h
            .ok(
                "gitlab_merge_request",
                json!({"action": "line_comment", "params": params}),
            )
            .await
            .len();
    }
    let base = json!({"project_id": 1, "merge_request_iid": 1});
    let mut note = base.clone();
    note["body"] = summary.into();
    bytes += h
        .ok(
            "gitlab_merge_request",
            json!({"action": "note_create", "params": note}),
        )
        .await
        .len();
    let mut approve = base;
    approve["sha"] = sha(6).into();
    bytes += h
        .ok(
            "gitlab_merge_request",
            json!({"action": "approve", "params": approve}),
        )
        .await
        .len();
    let today_requests = h.requests().len();
    h.stop().await;

    println!(
        "review: 1 call, {review_requests} requests, {} answer bytes; today: 7 calls, {today_requests} requests, {bytes} answer bytes",
        one.len()
    );
    // 6 reads, 5 drafts, the publish, the summary, the approval, the links;
    // today: 3 per line_comment (versions, version, thread), a note, the approval.
    assert_eq!((review_requests, today_requests), (15, 17));
}

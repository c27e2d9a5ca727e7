//! Draft notes, approval with `sha`, and auto-merge, as GitLab does them
//! (lib/api/draft_notes.rb, lib/api/merge_request_approvals.rb,
//! lib/api/merge_requests.rb): on the test seed's merge request !1 of
//! project 1, whose one diff version changes README.md (new lines 1-4).

use fake_gitlab::FakeGitLab;
use fake_gitlab::db::sha;
use serde_json::{Value, json};

const MR: &str = "/api/v4/projects/1/merge_requests/1";

async fn setup() -> (FakeGitLab, reqwest::Client) {
    let _ = rustls::crypto::ring::default_provider().install_default();
    (
        FakeGitLab::start_on("127.0.0.1:0", true).await,
        reqwest::Client::new(),
    )
}

async fn send(
    fake: &FakeGitLab,
    http: &reqwest::Client,
    method: &str,
    path: &str,
    token: &str,
    body: Option<Value>,
) -> (u16, Value) {
    let mut request = http
        .request(method.parse().unwrap(), format!("{}{MR}{path}", fake.url()))
        .header("PRIVATE-TOKEN", token);
    if let Some(body) = body {
        request = request.json(&body);
    }
    let response = request.send().await.unwrap();
    let status = response.status().as_u16();
    (status, response.json().await.unwrap_or(Value::Null))
}

fn position(new_line: u32) -> Value {
    json!({
        "position_type": "text", "base_sha": sha(4), "start_sha": sha(4), "head_sha": sha(6),
        "old_path": "README.md", "new_path": "README.md", "new_line": new_line,
    })
}

#[tokio::test]
async fn a_draft_is_checked_as_grape_checks_it_and_seen_only_by_its_author() {
    let (fake, http) = setup().await;
    let alice = "glpat-alice";
    let (status, error) = send(
        &fake,
        &http,
        "POST",
        "/draft_notes",
        alice,
        Some(json!({"position": position(2)})),
    )
    .await;
    assert_eq!((status, error), (400, json!({"error": "note is missing"})));
    let no_sha = json!({"note": "x", "position": {"position_type": "text", "start_sha": "a", "head_sha": "b"}});
    let (status, error) = send(&fake, &http, "POST", "/draft_notes", alice, Some(no_sha)).await;
    assert_eq!(
        (status, error),
        (400, json!({"error": "position[base_sha] is missing"}))
    );
    // A line outside the diff is not checked until the draft is published.
    let (status, draft) = send(
        &fake,
        &http,
        "POST",
        "/draft_notes",
        alice,
        Some(json!({"note": "off", "position": position(40)})),
    )
    .await;
    assert_eq!(status, 201, "{draft}");
    assert_eq!(draft["note"], "off");
    assert_eq!(draft["author_id"], 1);
    assert_eq!(draft["position"]["new_line"], 40);
    assert_eq!(draft["position"]["old_line"], Value::Null);
    let (_, general) = send(
        &fake,
        &http,
        "POST",
        "/draft_notes",
        alice,
        Some(json!({"note": "general"})),
    )
    .await;
    assert_eq!(general["position"]["base_sha"], Value::Null);

    let (_, listed) = send(&fake, &http, "GET", "/draft_notes", alice, None).await;
    assert_eq!(listed.as_array().unwrap().len(), 2);
    let (_, bobs) = send(&fake, &http, "GET", "/draft_notes", "glpat-bob", None).await;
    assert_eq!(bobs, json!([]));
    let path = format!("/draft_notes/{}", draft["id"]);
    let (status, error) = send(&fake, &http, "GET", &path, "glpat-bob", None).await;
    assert_eq!(
        (status, error),
        (404, json!({"message": "404 Draft Note Not Found"}))
    );
    let (status, _) = send(&fake, &http, "DELETE", &path, alice, None).await;
    assert_eq!(status, 204);
}

#[tokio::test]
async fn bulk_publish_posts_the_drafts_in_order_and_loses_one_off_the_diff() {
    let (fake, http) = setup().await;
    let alice = "glpat-alice";
    for (note, line) in [("first", 2), ("off the diff", 40), ("second", 3)] {
        let body = json!({"note": note, "position": position(line)});
        send(&fake, &http, "POST", "/draft_notes", alice, Some(body)).await;
    }
    send(
        &fake,
        &http,
        "POST",
        "/draft_notes",
        "glpat-bob",
        Some(json!({"note": "bob's"})),
    )
    .await;
    let (status, _) = send(
        &fake,
        &http,
        "POST",
        "/draft_notes/bulk_publish",
        alice,
        Some(json!({"note": "Summary"})),
    )
    .await;
    assert_eq!(status, 204);
    let (_, notes) = send(&fake, &http, "GET", "/notes?sort=asc", alice, None).await;
    let seen: Vec<(Value, Value)> = notes
        .as_array()
        .unwrap()
        .iter()
        .map(|n| (n["body"].clone(), n["type"].clone()))
        .collect();
    assert_eq!(
        seen[1..],
        [
            (json!("first"), json!("DiffNote")),
            (json!("second"), json!("DiffNote")),
            (json!("Summary"), Value::Null),
        ]
    );
    let (_, left) = send(&fake, &http, "GET", "/draft_notes", alice, None).await;
    assert_eq!(left, json!([]));
    let (_, bobs) = send(&fake, &http, "GET", "/draft_notes", "glpat-bob", None).await;
    assert_eq!(
        bobs.as_array().unwrap().len(),
        1,
        "another author's draft stays"
    );
}

#[tokio::test]
async fn approving_or_merging_at_a_stale_sha_is_a_409_naming_the_head() {
    let (fake, http) = setup().await;
    let stale = json!({"sha": sha(5)});
    let expected =
        json!({"message": format!("SHA does not match HEAD of source branch: {}", sha(6))});
    for path in ["/approve", "/merge"] {
        let method = if path == "/merge" { "PUT" } else { "POST" };
        let (status, error) = send(
            &fake,
            &http,
            method,
            path,
            "glpat-alice",
            Some(stale.clone()),
        )
        .await;
        assert_eq!((status, error), (409, expected.clone()), "{path}");
    }
    let (status, approval) = send(
        &fake,
        &http,
        "POST",
        "/approve",
        "glpat-alice",
        Some(json!({"sha": sha(6)})),
    )
    .await;
    assert_eq!(
        (status, approval["user_has_approved"].clone()),
        (201, json!(true))
    );
}

#[tokio::test]
async fn auto_merge_waits_for_the_running_pipeline_and_can_be_cancelled() {
    let (fake, http) = setup().await;
    fake.db().projects[0].merge_requests[0].head_pipeline_id = Some(1003);
    let alice = "glpat-alice";
    let (status, error) = send(
        &fake,
        &http,
        "POST",
        "/cancel_merge_when_pipeline_succeeds",
        alice,
        None,
    )
    .await;
    assert_eq!(
        (status, error),
        (406, json!({"message": "Can't cancel the automatic merge"}))
    );
    let (status, mr) = send(
        &fake,
        &http,
        "PUT",
        "/merge",
        alice,
        Some(json!({"auto_merge": true})),
    )
    .await;
    assert_eq!(status, 200);
    assert_eq!(
        (
            mr["state"].clone(),
            mr["merge_when_pipeline_succeeds"].clone(),
            mr["detailed_merge_status"].clone()
        ),
        (json!("opened"), json!(true), json!("ci_still_running"))
    );
    // The pipeline finishes after two reads; then it is merged.
    let (_, first) = send(&fake, &http, "GET", "", alice, None).await;
    assert_eq!(first["state"], "opened");
    let (_, second) = send(&fake, &http, "GET", "", alice, None).await;
    assert_eq!(second["state"], "merged");
    assert_eq!(second["merged_by"]["username"], "alice");
    assert_eq!(second["head_pipeline"]["status"], "success");

    let (fake, http) = setup().await;
    fake.db().projects[0].merge_requests[0].head_pipeline_id = Some(1003);
    send(
        &fake,
        &http,
        "PUT",
        "/merge",
        alice,
        Some(json!({"auto_merge": true})),
    )
    .await;
    let (status, mr) = send(
        &fake,
        &http,
        "POST",
        "/cancel_merge_when_pipeline_succeeds",
        alice,
        None,
    )
    .await;
    assert_eq!(
        (status, mr["merge_when_pipeline_succeeds"].clone()),
        (201, json!(false))
    );
}

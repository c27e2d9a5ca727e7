//! Diff-line threads on a merge request: positions checked against the
//! diff versions as GitLab checks them.

use fake_gitlab::FakeGitLab;
use fake_gitlab::diff::line_code;
use serde_json::{Value, json};

const MR: &str = "/api/v4/projects/demo%2Fwebshop/merge_requests/3";

async fn setup() -> (FakeGitLab, reqwest::Client, Value) {
    let _ = rustls::crypto::ring::default_provider().install_default();
    let fake = FakeGitLab::start_sandbox_on("127.0.0.1:0", true).await;
    let http = reqwest::Client::new();
    let versions: Value = http
        .get(format!("{}{MR}/versions", fake.url()))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    (fake, http, versions[0].clone())
}

fn position(v: &Value, path: &str, old_line: Option<u32>, new_line: Option<u32>) -> Value {
    json!({
        "position_type": "text",
        "base_sha": v["base_commit_sha"],
        "start_sha": v["start_commit_sha"],
        "head_sha": v["head_commit_sha"],
        "old_path": path,
        "new_path": path,
        "old_line": old_line,
        "new_line": new_line,
    })
}

async fn post(fake: &FakeGitLab, http: &reqwest::Client, body: Value) -> (u16, Value) {
    let r = http
        .post(format!("{}{MR}/discussions", fake.url()))
        .json(&body)
        .send()
        .await
        .unwrap();
    (r.status().as_u16(), r.json().await.unwrap())
}

#[tokio::test]
async fn a_thread_on_an_added_line_is_a_diff_note() {
    let (fake, http, v) = setup().await;
    // src/discounts.ts is new: every line is added, only `new_line` counts.
    let body =
        json!({"body": "Nit: name", "position": position(&v, "src/discounts.ts", None, Some(2))});
    let (status, discussion) = post(&fake, &http, body.clone()).await;
    assert_eq!(status, 201, "{discussion}");
    let note = &discussion["notes"][0];
    assert_eq!(discussion["individual_note"], false);
    assert_eq!(note["type"], "DiffNote");
    assert_eq!(note["resolvable"], true);
    assert_eq!(note["resolved"], false);
    assert_eq!(note["position"]["new_line"], 2);
    assert_eq!(note["position"]["head_sha"], v["head_commit_sha"]);
    // The request log has the body as sent.
    let request = fake.requests().into_iter().last().unwrap();
    assert_eq!(request.json(), body);
    // And the thread is listed.
    let threads: Value = http
        .get(format!("{}{MR}/discussions", fake.url()))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(
        threads.as_array().unwrap().last().unwrap()["id"],
        discussion["id"]
    );
}

#[tokio::test]
async fn lines_outside_the_diff_or_with_the_wrong_numbers_are_refused() {
    let (fake, http, v) = setup().await;
    let refused = json!({"message": "400 Bad request - Note {:line_code=>[\"can't be blank\", \"must be a valid line code\"]}"});
    for (path, old, new) in [
        ("src/discounts.ts", None, Some(500)),  // past the end
        ("src/discounts.ts", Some(2), Some(2)), // an added line has no old line
        ("src/checkout.ts", None, Some(1)),     // unchanged: needs both numbers
        ("src/cart.ts", Some(1), Some(1)),      // not in the diff
        ("src/discounts.ts", None, None),       // no line at all
    ] {
        let (status, answer) = post(
            &fake,
            &http,
            json!({"body": "x", "position": position(&v, path, old, new)}),
        )
        .await;
        assert_eq!((status, &answer), (400, &refused), "{path} {old:?} {new:?}");
    }
    // Old SHAs of another version do not match this file's lines either.
    let mut stale = position(&v, "test/discounts.test.ts", None, Some(1));
    stale["head_sha"] = json!("0000000000000000000000000000000000000000");
    assert_eq!(
        post(&fake, &http, json!({"body": "x", "position": stale}))
            .await
            .0,
        400
    );
    // Grape's own checks come first.
    let mut missing = position(&v, "src/discounts.ts", None, Some(2));
    missing.as_object_mut().unwrap().remove("base_sha");
    assert_eq!(
        post(&fake, &http, json!({"body": "x", "position": missing})).await,
        (400, json!({"error": "position[base_sha] is missing"}))
    );
    let mut kind = position(&v, "src/discounts.ts", None, Some(2));
    kind["position_type"] = json!("line");
    assert_eq!(
        post(&fake, &http, json!({"body": "x", "position": kind})).await,
        (
            400,
            json!({"error": "position[position_type] does not have a valid value"})
        )
    );
}

#[tokio::test]
async fn an_unchanged_line_and_a_multi_line_range() {
    let (fake, http, v) = setup().await;
    // `const shippingCents = ...` is line 22 on main and 29 on the branch,
    // an unchanged line; the range starts at the added line 24.
    let mut pos = position(&v, "src/checkout.ts", Some(22), Some(29));
    let start = line_code("src/checkout.ts", 22, 24);
    let end = line_code("src/checkout.ts", 22, 29);
    pos["line_range"] = json!({
        "start": {"line_code": start, "type": "new", "old_line": null, "new_line": 24},
        "end": {"line_code": end, "type": null, "old_line": 22, "new_line": 29},
    });
    let (status, discussion) = post(
        &fake,
        &http,
        json!({"body": "From here to there", "position": pos}),
    )
    .await;
    assert_eq!(status, 201, "{discussion}");
    let range = &discussion["notes"][0]["position"]["line_range"];
    assert_eq!(range["start"]["line_code"], start);
    assert_eq!(range["end"]["line_code"], end);

    // Reply, then resolve the thread.
    let id = discussion["id"].as_str().unwrap();
    let reply = http
        .post(format!("{}{MR}/discussions/{id}/notes", fake.url()))
        .json(&json!({"body": "Agreed"}))
        .send()
        .await
        .unwrap();
    assert_eq!(reply.status().as_u16(), 201);
    let resolved: Value = http
        .put(format!("{}{MR}/discussions/{id}?resolved=true", fake.url()))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(resolved["notes"].as_array().unwrap().len(), 2);
    assert!(
        resolved["notes"]
            .as_array()
            .unwrap()
            .iter()
            .all(|n| n["resolved"] == true)
    );
}

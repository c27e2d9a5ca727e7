//! The sandbox seed over HTTP: what a demo reads, and writes seen by later reads.

use fake_gitlab::FakeGitLab;
use serde_json::{Value, json};

const P: &str = "demo%2Fwebshop";

struct Client {
    http: reqwest::Client,
    base: String,
}

impl Client {
    fn new(fake: &FakeGitLab) -> Client {
        let _ = rustls::crypto::ring::default_provider().install_default();
        Client {
            http: reqwest::Client::new(),
            base: format!("{}/api/v4", fake.url()),
        }
    }

    async fn get(&self, path: &str) -> (u16, Value) {
        let r = self
            .http
            .get(format!("{}{path}", self.base))
            .send()
            .await
            .unwrap();
        let status = r.status().as_u16();
        (status, r.json().await.unwrap_or(Value::Null))
    }

    async fn text(&self, path: &str) -> String {
        let r = self
            .http
            .get(format!("{}{path}", self.base))
            .send()
            .await
            .unwrap();
        assert!(r.status().is_success(), "{path}: {}", r.status());
        r.text().await.unwrap()
    }

    async fn send(&self, method: reqwest::Method, path: &str, body: Value) -> (u16, Value) {
        let r = self
            .http
            .request(method, format!("{}{path}", self.base))
            .header("PRIVATE-TOKEN", "anything-at-all")
            .json(&body)
            .send()
            .await
            .unwrap();
        let status = r.status().as_u16();
        (status, r.json().await.unwrap_or(Value::Null))
    }
}

#[tokio::test]
async fn any_token_or_none_is_the_demo_user() {
    let fake = FakeGitLab::start_sandbox().await;
    let c = Client::new(&fake);
    assert_eq!(c.get("/user").await.1["username"], "alice");
    let r = c
        .http
        .get(format!("{}/user", c.base))
        .header("PRIVATE-TOKEN", "glpat-made-up")
        .send()
        .await
        .unwrap();
    assert_eq!(r.json::<Value>().await.unwrap()["username"], "alice");
    let (status, project) = c.get(&format!("/projects/{P}")).await;
    assert_eq!(status, 200);
    assert_eq!(project["id"], 7);
}

#[tokio::test]
async fn the_open_merge_request_has_diffs_threads_an_approval_and_a_failed_pipeline() {
    let fake = FakeGitLab::start_sandbox().await;
    let c = Client::new(&fake);
    let (_, mr) = c.get(&format!("/projects/{P}/merge_requests/3")).await;
    assert_eq!(mr["state"], "opened");
    assert_eq!(mr["head_pipeline"]["status"], "failed");
    assert_eq!(mr["blocking_discussions_resolved"], false);
    let (_, diffs) = c
        .get(&format!("/projects/{P}/merge_requests/3/diffs"))
        .await;
    let paths: Vec<&str> = diffs
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["new_path"].as_str().unwrap())
        .collect();
    assert_eq!(
        paths,
        [
            "README.md",
            "src/checkout.ts",
            "src/discounts.ts",
            "src/server.ts",
            "test/checkout.test.ts",
            "test/discounts.test.ts"
        ]
    );
    assert!(diffs[2]["new_file"].as_bool().unwrap());
    assert!(
        diffs[1]["diff"]
            .as_str()
            .unwrap()
            .contains("+import { discountCents, findDiscount } from \"./discounts\";")
    );

    let (_, versions) = c
        .get(&format!("/projects/{P}/merge_requests/3/versions"))
        .await;
    assert_eq!(versions.as_array().unwrap().len(), 2);
    assert_eq!(versions[0]["head_commit_sha"], mr["sha"]);
    assert_eq!(versions[0]["base_commit_sha"], mr["diff_refs"]["base_sha"]);
    let (_, latest) = c
        .get(&format!(
            "/projects/{P}/merge_requests/3/versions/{}",
            versions[0]["id"]
        ))
        .await;
    assert_eq!(latest["diffs"], diffs);
    assert_eq!(latest["commits"].as_array().unwrap().len(), 2);
    let (_, changes) = c
        .get(&format!("/projects/{P}/merge_requests/3/changes"))
        .await;
    assert_eq!(changes["changes"], diffs);

    let (_, threads) = c
        .get(&format!("/projects/{P}/merge_requests/3/discussions"))
        .await;
    let unresolved: Vec<&Value> = threads
        .as_array()
        .unwrap()
        .iter()
        .filter(|d| d["notes"][0]["resolvable"] == true && d["notes"][0]["resolved"] == false)
        .collect();
    assert_eq!(unresolved.len(), 1);
    let position = &unresolved[0]["notes"][0]["position"];
    assert_eq!(position["new_path"], "src/checkout.ts");
    assert_eq!(position["head_sha"], mr["sha"]);
    assert_eq!(unresolved[0]["notes"].as_array().unwrap().len(), 2);

    let (_, approvals) = c
        .get(&format!("/projects/{P}/merge_requests/3/approvals"))
        .await;
    assert_eq!(approvals["approved_by"][0]["user"]["username"], "carol");

    let (_, job) = c.get(&format!("/projects/{P}/jobs/8806")).await;
    assert_eq!(job["status"], "failed");
    assert_eq!(job["pipeline"]["id"], 4102);
    let log = c.text(&format!("/projects/{P}/jobs/8806/trace")).await;
    assert!(log.lines().count() > 2000);
    assert!(log.contains("● checkout › applies free shipping after the discount"));
}

#[tokio::test]
async fn files_differ_by_branch_through_the_files_raw_and_tree_apis() {
    let fake = FakeGitLab::start_sandbox().await;
    let c = Client::new(&fake);
    let (status, _) = c
        .get(&format!(
            "/projects/{P}/repository/files/src%2Fdiscounts.ts?ref=main"
        ))
        .await;
    assert_eq!(status, 404);
    let (_, file) = c
        .get(&format!(
            "/projects/{P}/repository/files/src%2Fdiscounts.ts?ref=feature%2Fdiscount-codes"
        ))
        .await;
    assert_eq!(file["encoding"], "base64");
    let raw = c
        .text(&format!(
            "/projects/{P}/repository/files/src%2Fdiscounts.ts/raw?ref=feature%2Fdiscount-codes"
        ))
        .await;
    assert!(raw.contains("code.trim().toUpperCase()"));
    assert!(
        c.text(&format!(
            "/projects/{P}/repository/files/.gitlab-ci.yml/raw"
        ))
        .await
        .contains("stage: test")
    );
    let (_, tree) = c
        .get(&format!("/projects/{P}/repository/tree?path=src"))
        .await;
    let names: Vec<&str> = tree
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["cart.ts", "checkout.ts", "server.ts"]);
    let (_, release) = c.get(&format!("/projects/{P}/releases/v1.3.0")).await;
    assert_eq!(release["name"], "Webshop 1.3");
    let (_, page) = c.get(&format!("/projects/{P}/wikis/deployment")).await;
    assert!(
        page["content"]
            .as_str()
            .unwrap()
            .contains("manual `deploy` job")
    );
}

#[tokio::test]
async fn writes_are_seen_by_later_reads() {
    let fake = FakeGitLab::start_sandbox().await;
    let c = Client::new(&fake);
    let (status, issue) = c
        .send(
            reqwest::Method::POST,
            &format!("/projects/{P}/issues"),
            json!({"title": "Demo issue", "labels": "bug"}),
        )
        .await;
    assert_eq!(status, 201);
    assert_eq!(issue["iid"], 9);
    assert_eq!(issue["author"]["username"], "alice");
    let (status, _) = c
        .send(
            reqwest::Method::POST,
            &format!("/projects/{P}/issues/9/notes"),
            json!({"body": "A comment"}),
        )
        .await;
    assert_eq!(status, 201);
    let (_, notes) = c.get(&format!("/projects/{P}/issues/9/notes")).await;
    assert_eq!(notes[0]["body"], "A comment");
    let (status, _) = c
        .send(
            reqwest::Method::PUT,
            &format!("/projects/{P}/issues/9"),
            json!({"state_event": "close"}),
        )
        .await;
    assert_eq!(status, 200);
    assert_eq!(
        c.get(&format!("/projects/{P}/issues/9")).await.1["state"],
        "closed"
    );

    // A push to the merge request's branch is a new diff version.
    let (status, _) = c
        .send(
            reqwest::Method::PUT,
            &format!("/projects/{P}/repository/files/src%2Fcheckout.ts"),
            json!({
                "branch": "feature/discount-codes",
                "commit_message": "Free shipping after the discount",
                "content": "export const fixed = true;\n",
            }),
        )
        .await;
    assert_eq!(status, 200);
    let (_, versions) = c
        .get(&format!("/projects/{P}/merge_requests/3/versions"))
        .await;
    assert_eq!(versions.as_array().unwrap().len(), 3);
    let (_, mr) = c.get(&format!("/projects/{P}/merge_requests/3")).await;
    assert_eq!(mr["sha"], versions[0]["head_commit_sha"]);
    let (_, commits) = c
        .get(&format!(
            "/projects/{P}/repository/commits?ref_name=feature%2Fdiscount-codes"
        ))
        .await;
    assert_eq!(commits[0]["title"], "Free shipping after the discount");
    let (_, main_commits) = c.get(&format!("/projects/{P}/repository/commits")).await;
    assert_eq!(main_commits[0]["title"], "Lint in CI");

    // A new branch and merge request get their own diff.
    let (status, _) = c
        .send(
            reqwest::Method::POST,
            &format!("/projects/{P}/repository/branches"),
            json!({"branch": "docs/readme", "ref": "main"}),
        )
        .await;
    assert_eq!(status, 201);
    c.send(
        reqwest::Method::POST,
        &format!("/projects/{P}/repository/commits"),
        json!({
            "branch": "docs/readme",
            "commit_message": "Say hello",
            "actions": [{"action": "update", "file_path": "README.md", "content": "# Webshop\n\nHello.\n"}],
        }),
    )
    .await;
    let (status, created) = c
        .send(
            reqwest::Method::POST,
            &format!("/projects/{P}/merge_requests"),
            json!({"source_branch": "docs/readme", "target_branch": "main", "title": "Say hello"}),
        )
        .await;
    assert_eq!(status, 201);
    let (_, diffs) = c
        .get(&format!(
            "/projects/{P}/merge_requests/{}/diffs",
            created["iid"]
        ))
        .await;
    assert_eq!(diffs.as_array().unwrap().len(), 1);
    assert_eq!(diffs[0]["new_path"], "README.md");
    let (status, merged) = c
        .send(
            reqwest::Method::PUT,
            &format!("/projects/{P}/merge_requests/{}/merge", created["iid"]),
            json!({}),
        )
        .await;
    assert_eq!(status, 200, "{merged}");
    assert!(
        c.text(&format!("/projects/{P}/repository/files/README.md/raw"))
            .await
            .contains("Hello.")
    );
}

#[tokio::test]
async fn lists_across_projects_for_the_demo_user() {
    let fake = FakeGitLab::start_sandbox().await;
    let c = Client::new(&fake);
    let (_, assigned) = c.get("/issues?scope=assigned_to_me&state=opened").await;
    let iids: Vec<u64> = assigned
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["iid"].as_u64().unwrap())
        .collect();
    assert_eq!(iids, [8, 7, 2]);
    let (_, mine) = c.get("/merge_requests?state=opened").await;
    assert_eq!(mine.as_array().unwrap().len(), 1);
    assert_eq!(mine[0]["iid"], 3);
    let (_, to_review) = c
        .get("/merge_requests?reviewer_username=carol&state=opened")
        .await;
    assert_eq!(to_review[0]["iid"], 3);
    let (status, updated) = c
        .send(
            reqwest::Method::PUT,
            &format!("/projects/{P}/issues/4"),
            json!({"milestone_id": 32, "assignee_ids": [3]}),
        )
        .await;
    assert_eq!(status, 200);
    assert_eq!(updated["milestone"]["title"], "v1.4");
    assert_eq!(updated["assignees"][0]["username"], "carol");
}

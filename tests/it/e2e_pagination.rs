//! Lists carry their pagination facts: offset pages from GitLab's `x-*`
//! headers, keyset pages from its `Link` header.

use crate::common;

use common::{Harness, Lifecycle};
use serde_json::{Value, json};

/// A list answer is one JSON object per line, then the pagination line.
fn items(text: &str) -> Vec<Value> {
    text.lines()
        .filter(|l| l.starts_with('{'))
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .collect()
}

#[tokio::test]
async fn offset_pages_report_page_total_and_next() {
    let h = Harness::start(Lifecycle::Initialize).await;
    let first = h
        .ok(
            "gitlab_issue",
            json!({"action": "list", "params": {"project_id": 1}}),
        )
        .await;
    assert_eq!(items(&first).len(), 20);
    assert!(
        first.ends_with("[page 1/2 · per_page 20 · total 25 · next: {\"page\": 2}]"),
        "{first}"
    );
    let second = h
        .ok(
            "gitlab_issue",
            json!({"action": "list", "params": {"project_id": 1, "page": 2}}),
        )
        .await;
    assert_eq!(items(&second).len(), 5);
    assert!(
        second.ends_with("[page 2/2 · per_page 20 · total 25 · last page]"),
        "{second}"
    );
    let lines: Vec<String> = h.requests().iter().map(|r| r.line()).collect();
    assert_eq!(
        lines,
        [
            "GET /api/v4/projects/1/issues",
            "GET /api/v4/projects/1/issues?page=2"
        ]
    );
    h.stop().await;
}

#[tokio::test]
async fn keyset_pages_say_which_cursor_to_pass_next() {
    let h = Harness::start(Lifecycle::Discover).await;
    let params = json!({"pagination": "keyset", "order_by": "id", "sort": "asc", "per_page": 1});
    let first = h
        .ok(
            "gitlab_project",
            json!({"action": "list", "params": params}),
        )
        .await;
    assert_eq!(items(&first)[0]["id"], 1);
    assert!(
        first.contains("next: add {\"id_after\":\"1\"} to params"),
        "{first}"
    );
    let mut next = params.clone();
    next["id_after"] = json!("1");
    let second = h
        .ok("gitlab_project", json!({"action": "list", "params": next}))
        .await;
    assert_eq!(items(&second)[0]["id"], 2);
    // The last page has no next link.
    next["id_after"] = json!("2");
    let last = h
        .ok("gitlab_project", json!({"action": "list", "params": next}))
        .await;
    assert!(last.ends_with("last page]"), "{last}");
    h.stop().await;
}

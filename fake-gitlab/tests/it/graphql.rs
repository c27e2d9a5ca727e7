//! The fake's GraphQL endpoint, driven with the documents gitlab-mcp sends
//! (catalog/graphql/): writes change state as GitLab's do and are seen by
//! REST, pages follow cursors, the edition decides the types, and errors
//! look like GitLab's.

use fake_gitlab::FakeGitLab;
use fake_gitlab::db::Edition;
use serde_json::{Value, json};

const API: &str = "acme/platform/api";

/// A stored document, by name.
fn doc(name: &str) -> String {
    let path = format!(
        "{}/../catalog/graphql/{name}.graphql",
        env!("CARGO_MANIFEST_DIR")
    );
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

struct Client {
    http: reqwest::Client,
    url: String,
    token: Option<&'static str>,
}

impl Client {
    fn new(fake: &FakeGitLab) -> Client {
        Self::with_token(fake, Some("glpat-alice"))
    }

    fn with_token(fake: &FakeGitLab, token: Option<&'static str>) -> Client {
        Client {
            http: reqwest::Client::new(),
            url: fake.url(),
            token,
        }
    }

    async fn post(&self, body: Value) -> (u16, Value) {
        let mut request = self
            .http
            .post(format!("{}/api/graphql", self.url))
            .json(&body);
        if let Some(token) = self.token {
            request = request.header("PRIVATE-TOKEN", token);
        }
        let response = request.send().await.unwrap();
        let status = response.status().as_u16();
        (status, response.json().await.unwrap_or(Value::Null))
    }

    /// Run a stored document; the answer must be a 200.
    async fn run(&self, name: &str, variables: Value) -> Value {
        let (status, body) = self
            .post(json!({"query": doc(name), "variables": variables}))
            .await;
        assert_eq!(status, 200, "{name}: {body}");
        body
    }

    async fn rest(&self, path: &str) -> (u16, Value) {
        let mut request = self.http.get(format!("{}/api/v4{path}", self.url));
        if let Some(token) = self.token {
            request = request.header("PRIVATE-TOKEN", token);
        }
        let response = request.send().await.unwrap();
        let status = response.status().as_u16();
        (status, response.json().await.unwrap_or(Value::Null))
    }

    /// The namespace's work item types, by name → global ID.
    async fn type_id(&self, path: &str, name: &str) -> String {
        let body = self.run("work_item_types", json!({"fullPath": path})).await;
        body["data"]["namespace"]["workItemTypes"]["nodes"]
            .as_array()
            .unwrap()
            .iter()
            .find(|t| t["name"] == name)
            .unwrap_or_else(|| panic!("{path} has no {name}: {body}"))["id"]
            .as_str()
            .unwrap()
            .to_string()
    }

    /// A work item's global ID by iid.
    async fn gid(&self, path: &str, iid: u64) -> String {
        let body = self
            .run(
                "work_item_get",
                json!({"fullPath": path, "iid": iid.to_string()}),
            )
            .await;
        body["data"]["namespace"]["workItem"]["id"]
            .as_str()
            .unwrap_or_else(|| panic!("{path}#{iid}: {body}"))
            .to_string()
    }

    async fn get(&self, path: &str, iid: u64) -> Value {
        let body = self
            .run(
                "work_item_get",
                json!({"fullPath": path, "iid": iid.to_string()}),
            )
            .await;
        body["data"]["namespace"]["workItem"].clone()
    }

    async fn create(&self, input: Value) -> Value {
        self.run("work_item_create", json!({"input": input})).await
    }
}

fn rest_port() {
    let _ = rustls::crypto::ring::default_provider().install_default();
}

/// One widget of a work item, by the field it has.
fn widget<'a>(item: &'a Value, field: &str) -> &'a Value {
    item["widgets"]
        .as_array()
        .unwrap()
        .iter()
        .find(|w| w.get(field).is_some())
        .unwrap_or_else(|| panic!("no widget with {field}: {item}"))
}

fn names(list: &Value) -> Vec<String> {
    list.as_array()
        .unwrap()
        .iter()
        .map(|n| n["name"].as_str().unwrap().to_string())
        .collect()
}

#[tokio::test]
async fn the_types_differ_by_edition_and_their_ids_are_not_gitlab_coms() {
    rest_port();
    let fake = FakeGitLab::start().await;
    let c = Client::new(&fake);
    let types = |body: Value| names(&body["data"]["namespace"]["workItemTypes"]["nodes"]);
    let ce = c.run("work_item_types", json!({"fullPath": API})).await;
    assert_eq!(types(ce.clone()), ["Incident", "Issue", "Task", "Ticket"]);
    let issue = &ce["data"]["namespace"]["workItemTypes"]["nodes"][1]["id"];
    assert!(
        issue
            .as_str()
            .unwrap()
            .starts_with("gid://gitlab/WorkItems::Type/"),
        "{issue}"
    );
    assert_ne!(issue, "gid://gitlab/WorkItems::Type/1");
    assert_eq!(
        types(c.run("work_item_types", json!({"fullPath": "acme"})).await),
        ["Incident", "Issue", "Task", "Ticket"]
    );

    fake.set_edition(Edition::Ee);
    assert_eq!(
        types(c.run("work_item_types", json!({"fullPath": API})).await),
        [
            "Incident",
            "Issue",
            "Key Result",
            "Objective",
            "Requirement",
            "Task",
            "Test Case",
            "Ticket"
        ]
    );
    assert!(
        types(c.run("work_item_types", json!({"fullPath": "acme"})).await)
            .contains(&"Epic".to_string())
    );
}

#[tokio::test]
async fn a_rest_issue_is_a_work_item_and_a_created_task_is_a_rest_issue() {
    rest_port();
    let fake = FakeGitLab::start().await;
    let c = Client::new(&fake);
    // #12 has labels and a milestone (see Db::seed).
    let (_, rest) = c.rest("/projects/1/issues/12").await;
    let item = c.get(API, 12).await;
    assert_eq!(item["title"], rest["title"]);
    assert_eq!(item["workItemType"]["name"], "Issue");
    assert_eq!(item["state"], "OPEN");
    assert_eq!(item["author"]["username"], rest["author"]["username"]);
    assert_eq!(widget(&item, "milestone")["milestone"]["title"], "v1.2");
    assert_eq!(
        widget(&item, "labels")["labels"]["nodes"][0]["title"],
        "bug"
    );
    assert_eq!(item["webUrl"], rest["web_url"]);

    let task = c.type_id(API, "Task").await;
    let parent = c.gid(API, 3).await;
    let body = c
        .create(json!({
            "namespacePath": API, "workItemTypeId": task, "title": "Write the test",
            "descriptionWidget": {"description": "Cover the cold cache."},
            "hierarchyWidget": {"parentId": parent},
            "startAndDueDateWidget": {"startDate": "2026-04-01", "dueDate": "2026-04-03"},
        }))
        .await;
    let created = &body["data"]["workItemCreate"];
    assert_eq!(created["errors"], json!([]), "{body}");
    assert_eq!(created["workItem"]["iid"], "26");
    assert_eq!(created["workItem"]["workItemType"]["name"], "Task");
    assert!(
        created["workItem"]["webUrl"]
            .as_str()
            .unwrap()
            .ends_with("/acme/platform/api/-/work_items/26")
    );

    let (status, rest) = c.rest("/projects/1/issues/26").await;
    assert_eq!(status, 200);
    assert_eq!(
        (rest["title"].as_str(), rest["issue_type"].as_str()),
        (Some("Write the test"), Some("task"))
    );
    assert_eq!(rest["description"], "Cover the cold cache.");
    assert_eq!(rest["due_date"], "2026-04-03");

    let item = c.get(API, 26).await;
    assert_eq!(widget(&item, "parent")["parent"]["iid"], "3");
    assert_eq!(widget(&item, "startDate")["startDate"], "2026-04-01");
    let parent = c.get(API, 3).await;
    let hierarchy = widget(&parent, "children");
    assert_eq!(
        (
            hierarchy["hasChildren"].as_bool(),
            hierarchy["children"]["count"].as_i64()
        ),
        (Some(true), Some(1))
    );
    assert_eq!(hierarchy["children"]["nodes"][0]["title"], "Write the test");
}

#[tokio::test]
async fn a_parent_of_the_wrong_type_is_refused_in_the_payload_and_nothing_changes() {
    rest_port();
    let fake = FakeGitLab::start().await;
    let c = Client::new(&fake);
    let task = c.type_id(API, "Task").await;
    let issue = c.type_id(API, "Issue").await;
    let parent = c.gid(API, 1).await;
    c.create(json!({"namespacePath": API, "workItemTypeId": task, "title": "A task", "hierarchyWidget": {"parentId": parent}}))
        .await;
    let task_gid = c.gid(API, 26).await;
    let body = c
        .create(json!({"namespacePath": API, "workItemTypeId": issue, "title": "Under a task", "hierarchyWidget": {"parentId": task_gid}}))
        .await;
    assert_eq!(
        body["data"]["workItemCreate"],
        json!({"errors": ["#27 cannot be added: is not allowed to add this type of parent"], "workItem": null})
    );
    assert_eq!(c.rest("/projects/1/issues/27").await.0, 404);

    // A task cannot take a task as its child either; the update changes
    // nothing, not even its title.
    let other = c
        .create(json!({"namespacePath": API, "workItemTypeId": task, "title": "Other"}))
        .await;
    let other = other["data"]["workItemCreate"]["workItem"]["id"].clone();
    let body = c
        .run("work_item_update", json!({"input": {"id": other, "title": "Renamed", "hierarchyWidget": {"parentId": task_gid}}}))
        .await;
    assert_eq!(
        body["data"]["workItemUpdate"]["errors"],
        json!(["#27 cannot be added: is not allowed to add this type of parent"])
    );
    assert_eq!(c.get(API, 27).await["title"], "Other");
}

#[tokio::test]
async fn ce_refuses_ee_types_and_blocking_links_that_ee_accepts() {
    rest_port();
    let fake = FakeGitLab::start().await;
    let c = Client::new(&fake);
    fake.set_edition(Edition::Ee);
    let epic = c.type_id("acme", "Epic").await;
    let objective = c.type_id(API, "Objective").await;
    fake.set_edition(Edition::Ce);
    for (path, type_id) in [("acme", &epic), (API, &objective)] {
        let body = c
            .create(json!({"namespacePath": path, "workItemTypeId": type_id, "title": "Paid"}))
            .await;
        assert_eq!(body["data"]["workItemCreate"], Value::Null, "{body}");
        assert_eq!(
            body["errors"][0]["message"],
            fake_gitlab::graphql::NOT_AVAILABLE
        );
    }
    // #3 and #4 are not linked yet (#1 relates to #2 in the seed).
    let (one, two) = (c.gid(API, 3).await, c.gid(API, 4).await);
    let block = json!({"input": {"id": one, "workItemsIds": [two], "linkType": "BLOCKS"}});
    let body = c.run("work_item_link", block.clone()).await;
    assert_eq!(
        body["data"]["workItemAddLinkedItems"]["errors"],
        json!(["Blocked work items are not available for the current subscription tier"])
    );

    fake.set_edition(Edition::Ee);
    let body = c
        .create(
            json!({"namespacePath": "acme", "workItemTypeId": epic, "title": "Spring campaign"}),
        )
        .await;
    let created = &body["data"]["workItemCreate"]["workItem"];
    assert_eq!(created["iid"], "1", "{body}");
    assert!(
        created["webUrl"]
            .as_str()
            .unwrap()
            .ends_with("/groups/acme/-/epics/1")
    );
    let body = c.run("work_item_link", block).await;
    assert_eq!(
        body["data"]["workItemAddLinkedItems"]["errors"],
        json!([]),
        "{body}"
    );
    let blocked = c.get(API, 4).await;
    let linked = &widget(&blocked, "linkedItems")["linkedItems"]["nodes"];
    assert!(
        linked
            .as_array()
            .unwrap()
            .iter()
            .any(|l| l["linkType"] == "is_blocked_by" && l["workItem"]["iid"] == "3"),
        "{linked}"
    );
}

#[tokio::test]
async fn an_update_changes_every_widget_and_rest_sees_it() {
    rest_port();
    let fake = FakeGitLab::start().await;
    let c = Client::new(&fake);
    let id = c.gid(API, 2).await;
    let input = json!({
        "id": id, "title": "Renamed", "confidential": true, "stateEvent": "CLOSE",
        "descriptionWidget": {"description": "New text."},
        "labelsWidget": {"addLabelIds": ["gid://gitlab/ProjectLabel/502"], "removeLabelIds": ["gid://gitlab/ProjectLabel/501"]},
        "assigneesWidget": {"assigneeIds": ["gid://gitlab/User/2", "gid://gitlab/User/3"]},
        "milestoneWidget": {"milestoneId": "gid://gitlab/Milestone/40"},
        "startAndDueDateWidget": {"dueDate": "2026-05-01"},
    });
    let body = c.run("work_item_update", json!({"input": input})).await;
    let updated = &body["data"]["workItemUpdate"];
    assert_eq!(updated["errors"], json!([]), "{body}");
    assert_eq!(
        (
            updated["workItem"]["title"].as_str(),
            updated["workItem"]["state"].as_str()
        ),
        (Some("Renamed"), Some("CLOSED"))
    );

    let (_, rest) = c.rest("/projects/1/issues/2").await;
    assert_eq!(rest["state"], "closed");
    assert_eq!(rest["confidential"], true);
    assert_eq!(rest["description"], "New text.");
    assert_eq!(rest["labels"], json!(["feature"]));
    assert_eq!(rest["milestone"]["title"], "v1.2");
    assert_eq!(rest["due_date"], "2026-05-01");
    // CE keeps the first assignee only.
    let assignees: Vec<&str> = rest["assignees"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a["username"].as_str().unwrap())
        .collect();
    assert_eq!(assignees, ["bob"]);

    let reopen = json!({"input": {"id": id, "stateEvent": "REOPEN", "milestoneWidget": {"milestoneId": null}}});
    c.run("work_item_update", reopen).await;
    let (_, rest) = c.rest("/projects/1/issues/2").await;
    assert_eq!(
        (rest["state"].as_str(), rest["milestone"].is_null()),
        (Some("opened"), true)
    );

    let blank = c
        .run(
            "work_item_update",
            json!({"input": {"id": id, "title": "  "}}),
        )
        .await;
    assert_eq!(
        blank["data"]["workItemUpdate"],
        json!({"errors": ["Title can't be blank"], "workItem": null})
    );
}

#[tokio::test]
async fn children_are_added_and_read_in_pages_that_follow_their_cursor() {
    rest_port();
    let fake = FakeGitLab::start().await;
    let c = Client::new(&fake);
    let task = c.type_id(API, "Task").await;
    let mut tasks = Vec::new();
    for title in ["First", "Second", "Third"] {
        let body = c
            .create(json!({"namespacePath": API, "workItemTypeId": task, "title": title}))
            .await;
        tasks.push(body["data"]["workItemCreate"]["workItem"]["id"].clone());
    }
    let parent = c.gid(API, 4).await;
    let body = c
        .run(
            "work_item_add_children",
            json!({"input": {"id": parent, "hierarchyWidget": {"childrenIds": tasks}}}),
        )
        .await;
    let children = &widget(&body["data"]["workItemUpdate"]["workItem"], "children")["children"];
    assert_eq!(children["count"], 3, "{body}");

    let page = |after: Value| json!({"fullPath": API, "iid": "4", "first": 2, "after": after});
    let first = c.run("work_item_children", page(Value::Null)).await;
    let h = widget(&first["data"]["namespace"]["workItem"], "children");
    let titles = |h: &Value| -> Vec<String> {
        h["children"]["nodes"]
            .as_array()
            .unwrap()
            .iter()
            .map(|n| n["title"].as_str().unwrap().to_string())
            .collect()
    };
    assert_eq!(titles(h), ["First", "Second"]);
    assert_eq!(h["children"]["pageInfo"]["hasNextPage"], true);
    let cursor = h["children"]["pageInfo"]["endCursor"].clone();
    assert!(
        cursor.as_str().unwrap().len() > 10,
        "an opaque cursor: {cursor}"
    );
    let second = c.run("work_item_children", page(cursor)).await;
    let h = widget(&second["data"]["namespace"]["workItem"], "children");
    assert_eq!(
        (
            titles(h),
            h["children"]["pageInfo"]["hasNextPage"].as_bool()
        ),
        (vec!["Third".to_string()], Some(false))
    );

    let again = c
        .run(
            "work_item_add_children",
            json!({"input": {"id": parent, "hierarchyWidget": {"childrenIds": [tasks[0]]}}}),
        )
        .await;
    assert_eq!(
        again["data"]["workItemUpdate"]["errors"],
        json!(["Work item(s) already assigned"])
    );
    let bad = c
        .run("work_item_children", page(json!("not-a-cursor")))
        .await;
    assert_eq!(bad["errors"][0]["message"], "Please provide a valid cursor");
}

#[tokio::test]
async fn links_are_made_and_removed_and_seen_from_both_ends() {
    rest_port();
    let fake = FakeGitLab::start().await;
    let c = Client::new(&fake);
    let (five, six, seven) = (
        c.gid(API, 5).await,
        c.gid(API, 6).await,
        c.gid(API, 7).await,
    );
    let number = |gid: &str| gid.rsplit('/').next().unwrap().to_string();
    let body = c
        .run(
            "work_item_link",
            json!({"input": {"id": five, "workItemsIds": [six, seven]}}),
        )
        .await;
    let linked = &body["data"]["workItemAddLinkedItems"];
    assert_eq!(
        linked["message"],
        format!(
            "Successfully linked ID(s): {} and {}.",
            number(&six),
            number(&seven)
        ),
        "{body}"
    );
    let six_item = c.get(API, 6).await;
    let nodes = &widget(&six_item, "linkedItems")["linkedItems"]["nodes"];
    assert_eq!(nodes[0]["linkType"], "relates_to");
    assert_eq!(nodes[0]["workItem"]["iid"], "5");
    let (_, rest) = c.rest("/projects/1/issues/5/links").await;
    let iids: Vec<u64> = rest
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l["iid"].as_u64().unwrap())
        .collect();
    assert_eq!(iids, [6, 7]);

    let again = c
        .run(
            "work_item_link",
            json!({"input": {"id": five, "workItemsIds": [six]}}),
        )
        .await;
    assert_eq!(
        again["data"]["workItemAddLinkedItems"]["errors"],
        json!(["Work item(s) already assigned"])
    );

    let body = c
        .run(
            "work_item_unlink",
            json!({"input": {"id": six, "workItemsIds": [five, seven]}}),
        )
        .await;
    assert_eq!(
        body["data"]["workItemRemoveLinkedItems"]["message"],
        format!(
            "Successfully unlinked IDs: {}. IDs with errors: {} could not be removed due to not being linked.",
            number(&five),
            number(&seven)
        )
    );
    let six_item = c.get(API, 6).await;
    assert_eq!(
        widget(&six_item, "linkedItems")["linkedItems"]["nodes"],
        json!([])
    );

    let eleven: Vec<String> = (0..11).map(|_| six.clone()).collect();
    let body = c
        .run(
            "work_item_link",
            json!({"input": {"id": five, "workItemsIds": eleven}}),
        )
        .await;
    assert_eq!(
        body["errors"][0]["message"],
        "workItemsIds is too long (maximum is 10)"
    );
}

#[tokio::test]
async fn notes_and_replies_are_the_rest_discussions() {
    rest_port();
    let fake = FakeGitLab::start().await;
    let c = Client::new(&fake);
    let item = c.gid(API, 3).await;
    let body = c.run("note_create", json!({"input": {"noteableId": item, "body": "Seen on staging too.", "internal": true}})).await;
    let note = &body["data"]["createNote"]["note"];
    assert_eq!(
        (note["body"].as_str(), note["internal"].as_bool()),
        (Some("Seen on staging too."), Some(true)),
        "{body}"
    );
    let thread = note["discussion"]["id"].clone();
    assert!(
        thread
            .as_str()
            .unwrap()
            .starts_with("gid://gitlab/Discussion/")
    );
    let body = c
        .run(
            "note_create",
            json!({"input": {"noteableId": item, "body": "Fixed now.", "discussionId": thread}}),
        )
        .await;
    assert_eq!(
        body["data"]["createNote"]["note"]["discussion"]["id"],
        thread
    );

    let (_, discussions) = c.rest("/projects/1/issues/3/discussions").await;
    let last = discussions.as_array().unwrap().last().unwrap().clone();
    let bodies: Vec<&str> = last["notes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| n["body"].as_str().unwrap())
        .collect();
    assert_eq!(bodies, ["Seen on staging too.", "Fixed now."]);
    assert_eq!(
        format!("gid://gitlab/Discussion/{}", last["id"].as_str().unwrap()),
        thread.as_str().unwrap()
    );

    let body = c
        .run("work_item_notes", json!({"fullPath": API, "iid": "3"}))
        .await;
    let threads =
        &widget(&body["data"]["namespace"]["workItem"], "discussions")["discussions"]["nodes"];
    let last = threads.as_array().unwrap().last().unwrap();
    assert_eq!(last["id"], thread);
    assert_eq!(last["notes"]["nodes"][1]["author"]["username"], "alice");

    let blank = c
        .run(
            "note_create",
            json!({"input": {"noteableId": item, "body": ""}}),
        )
        .await;
    assert_eq!(
        blank["data"]["createNote"],
        json!({"errors": ["Note can't be blank"], "note": null})
    );
}

#[tokio::test]
async fn delete_removes_the_work_item_from_both_apis_and_from_its_parent() {
    rest_port();
    let fake = FakeGitLab::start().await;
    let c = Client::new(&fake);
    let task = c.type_id(API, "Task").await;
    let parent = c.gid(API, 8).await;
    let body = c.create(json!({"namespacePath": API, "workItemTypeId": task, "title": "Short-lived", "hierarchyWidget": {"parentId": parent}})).await;
    let id = body["data"]["workItemCreate"]["workItem"]["id"].clone();
    let bob = Client::with_token(&fake, Some("glpat-bob"));
    let refused = bob
        .run("work_item_delete", json!({"input": {"id": id}}))
        .await;
    assert_eq!(
        refused["errors"][0]["message"],
        fake_gitlab::graphql::NOT_AVAILABLE
    );
    let body = c
        .run("work_item_delete", json!({"input": {"id": id}}))
        .await;
    assert_eq!(body["data"]["workItemDelete"], json!({"errors": []}));
    assert_eq!(c.rest("/projects/1/issues/26").await.0, 404);
    assert_eq!(c.get(API, 26).await, Value::Null);
    let parent = c.get(API, 8).await;
    assert_eq!(widget(&parent, "children")["children"]["count"], 0);
}

#[tokio::test]
async fn lists_filter_and_page_like_gitlab() {
    rest_port();
    let fake = FakeGitLab::start().await;
    let c = Client::new(&fake);
    let list = |vars: Value| {
        let mut v = json!({"fullPath": API});
        v.as_object_mut()
            .unwrap()
            .extend(vars.as_object().unwrap().clone());
        v
    };
    let body = c
        .run(
            "work_items_list",
            list(json!({"state": "opened", "labelName": ["bug"], "first": 3})),
        )
        .await;
    assert_eq!(
        body["data"]["group"],
        Value::Null,
        "a project path is no group"
    );
    let page = &body["data"]["project"]["workItems"];
    let (_, rest) = c
        .rest("/projects/1/issues?state=opened&labels=bug&per_page=100")
        .await;
    assert_eq!(page["count"], rest.as_array().unwrap().len());
    let iids: Vec<&str> = page["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| n["iid"].as_str().unwrap())
        .collect();
    let rest_iids: Vec<String> = rest
        .as_array()
        .unwrap()
        .iter()
        .take(3)
        .map(|i| i["iid"].to_string())
        .collect();
    assert_eq!(iids, rest_iids, "newest first, as REST");
    let after = page["pageInfo"]["endCursor"].clone();
    let next = c
        .run(
            "work_items_list",
            list(json!({"state": "opened", "labelName": ["bug"], "first": 3, "after": after})),
        )
        .await;
    let first_of_next = &next["data"]["project"]["workItems"]["nodes"][0]["iid"];
    assert_eq!(
        first_of_next.as_str().unwrap(),
        rest.as_array().unwrap()[3]["iid"].to_string()
    );

    let mine = c
        .run(
            "work_items_list",
            list(json!({"authorUsername": "carol", "types": ["ISSUE"], "search": "csv"})),
        )
        .await;
    for node in mine["data"]["project"]["workItems"]["nodes"]
        .as_array()
        .unwrap()
    {
        assert_eq!(node["author"]["username"], "carol");
        assert!(node["title"].as_str().unwrap().contains("CSV"));
    }
    let all = c.run("work_items_list", list(json!({"first": 500}))).await;
    assert_eq!(
        all["data"]["project"]["workItems"]["nodes"]
            .as_array()
            .unwrap()
            .len(),
        25
    );

    let ids = c
        .run(
            "work_item_ids",
            json!({"fullPath": API, "iids": ["1", "2"]}),
        )
        .await;
    assert_eq!(
        ids["data"]["project"]["workItems"]["nodes"]
            .as_array()
            .unwrap()
            .len(),
        2
    );
    let users = c
        .run(
            "work_item_user_ids",
            json!({"usernames": ["bob", "nobody"]}),
        )
        .await;
    assert_eq!(
        users["data"]["users"]["nodes"],
        json!([{"id": "gid://gitlab/User/2", "username": "bob"}])
    );
    let labels = c
        .run(
            "work_item_label_ids",
            json!({"fullPath": API, "title": "bug"}),
        )
        .await;
    assert_eq!(
        labels["data"]["project"]["labels"]["nodes"],
        json!([{"id": "gid://gitlab/ProjectLabel/501", "title": "bug"}])
    );
}

#[tokio::test]
async fn errors_come_as_gitlab_gives_them() {
    rest_port();
    let fake = FakeGitLab::start().await;
    let c = Client::new(&fake);
    let query = doc("work_item_get");

    let stranger = Client::with_token(&fake, Some("glpat-nobody"));
    assert_eq!(
        stranger.post(json!({"query": query})).await,
        (401, json!({"errors": [{"message": "Invalid token"}]}))
    );
    let expired = Client::with_token(&fake, Some("glpat-expired"));
    assert_eq!(expired.post(json!({"query": query})).await.0, 401);

    // A missing work item, a private project to an anonymous caller: null.
    assert_eq!(c.get(API, 999).await, Value::Null);
    let anonymous = Client::with_token(&fake, None);
    let body = anonymous
        .run("work_item_get", json!({"fullPath": API, "iid": "1"}))
        .await;
    assert_eq!(body["data"]["namespace"], Value::Null);
    let public = anonymous.get("acme/website", 1).await;
    assert_eq!(public["iid"], "1");

    let (status, body) = c
        .post(json!({"query": "{ namespace(fullPath: \"acme\") { weight } }"}))
        .await;
    assert_eq!(status, 200);
    assert!(
        body["errors"][0]["message"]
            .as_str()
            .unwrap()
            .contains("weight"),
        "{body}"
    );

    let mut deep = "id".to_string();
    for _ in 0..20 {
        deep = format!("namespace(fullPath: \"acme\") {{ {deep} }}");
    }
    let (status, body) = c.post(json!({"query": format!("{{ {deep} }}")})).await;
    assert_eq!(
        (status, body),
        (
            200,
            json!({"errors": [{"message": "Query has depth of 21, which exceeds max depth of 20"}]})
        )
    );
    let big = format!("{{ {} }}", "__typename ".repeat(1000));
    assert_eq!(
        c.post(json!({"query": big})).await,
        (422, json!({"errors": [{"message": "Query too large"}]}))
    );

    let reader = Client::with_token(&fake, Some("glpat-alice-read"));
    let id = c.gid(API, 1).await;
    let body = reader
        .run(
            "work_item_update",
            json!({"input": {"id": id, "title": "No"}}),
        )
        .await;
    assert_eq!(body["data"]["workItemUpdate"], Value::Null);
    assert_eq!(
        body["errors"][0]["message"],
        fake_gitlab::graphql::NOT_AVAILABLE
    );

    let mutation =
        "mutation { workItemDelete(input: {id: \"gid://gitlab/WorkItem/101\"}) { errors } }";
    let get = reqwest::Client::new()
        .get(format!(
            "{}/api/graphql?query={}",
            fake.url(),
            fake_gitlab::http::encode(mutation)
        ))
        .header("PRIVATE-TOKEN", "glpat-alice")
        .send()
        .await
        .unwrap();
    assert_eq!(get.status(), 422);
    assert_eq!(
        get.json::<Value>().await.unwrap(),
        json!({"errors": [{"message": "Mutations are forbidden in GET requests"}]})
    );
    assert_eq!(c.rest("/projects/1/issues/1").await.0, 200);
}

#[tokio::test]
async fn a_multiplex_answers_an_array_in_order_and_the_log_keeps_the_raw_body() {
    rest_port();
    let fake = FakeGitLab::start().await;
    let c = Client::new(&fake);
    let body = json!([
        {"query": doc("work_item_types"), "variables": {"fullPath": API}},
        {"query": doc("work_item_user_ids"), "variables": "{\"usernames\": [\"carol\"]}", "operationName": "workItemUserIds"},
    ]);
    let (status, answer) = c.post(body.clone()).await;
    assert_eq!(status, 200);
    let answers = answer.as_array().unwrap();
    assert_eq!(answers.len(), 2);
    assert_eq!(
        answers[0]["data"]["namespace"]["workItemTypes"]["nodes"]
            .as_array()
            .unwrap()
            .len(),
        4
    );
    assert_eq!(answers[1]["data"]["users"]["nodes"][0]["username"], "carol");
    let logged = fake.requests().pop().unwrap();
    assert_eq!(logged.line(), "POST /api/graphql");
    assert_eq!(logged.json(), body);
    assert_eq!(logged.private_token.as_deref(), Some("glpat-alice"));

    fake.inject(
        fake_gitlab::Fault::status(502)
            .on("POST", "/api/graphql")
            .times(1),
    );
    assert_eq!(c.post(json!({"query": "{ __typename }"})).await.0, 502);
    assert_eq!(
        c.post(json!({"query": "{ __typename }"})).await,
        (200, json!({"data": {"__typename": "Query"}}))
    );
}

#[tokio::test]
async fn introspection_reports_gitlabs_names() {
    rest_port();
    let fake = FakeGitLab::start().await;
    let c = Client::new(&fake);
    let body = c.run("graphql_type", json!({"name": "WorkItem"})).await;
    let ty = &body["data"]["__type"];
    assert_eq!(ty["kind"], "OBJECT");
    let field = ty["fields"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["name"] == "workItemType")
        .unwrap();
    assert_eq!(
        field["type"],
        json!({"kind": "NON_NULL", "name": null, "ofType": {"kind": "OBJECT", "name": "WorkItemType", "ofType": null}})
    );
    let id = ty["fields"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["name"] == "id")
        .unwrap();
    assert_eq!(id["type"]["ofType"]["name"], "WorkItemID");
    let (_, roots) = c
        .post(json!({"query": "{ __schema { queryType { name } mutationType { name } } }"}))
        .await;
    assert_eq!(
        roots["data"]["__schema"],
        json!({"queryType": {"name": "Query"}, "mutationType": {"name": "Mutation"}})
    );
    let input = c
        .run("graphql_type", json!({"name": "WorkItemUpdateInput"}))
        .await;
    let fields = names(&input["data"]["__type"]["inputFields"]);
    assert!(
        fields.contains(&"stateEvent".to_string())
            && fields.contains(&"hierarchyWidget".to_string()),
        "{fields:?}"
    );
}

#[tokio::test]
async fn the_sandbox_shows_a_hierarchy_and_a_link() {
    rest_port();
    let fake = FakeGitLab::start_sandbox().await;
    let c = Client::with_token(&fake, None);
    let item = c.get("demo/infra", 1).await;
    let hierarchy = widget(&item, "children");
    let tasks: Vec<&str> = hierarchy["children"]["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| n["workItemType"]["name"].as_str().unwrap())
        .collect();
    assert_eq!(tasks, ["Task", "Task"]);
    let linked = &widget(&item, "linkedItems")["linkedItems"]["nodes"][0];
    assert!(
        linked["workItem"]["webUrl"]
            .as_str()
            .unwrap()
            .ends_with("/demo/webshop/-/issues/8"),
        "{linked}"
    );
    let task = c.get("demo/infra", 2).await;
    assert_eq!(widget(&task, "parent")["parent"]["iid"], "1");
}

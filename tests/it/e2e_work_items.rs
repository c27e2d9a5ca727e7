//! Work items and the GraphQL tool end to end, against the fake's GraphQL
//! endpoint: every action of `gitlab_work_item` over stdio and over HTTP,
//! asserting both the GraphQL requests the fake received (operation,
//! variables: label titles became the fake's label IDs, usernames user
//! IDs, a type name the namespace's type ID) and what the agent saw;
//! cursor paging; an epic on CE refused with the types it has and no
//! mutation sent; `gitlab_graphql query` refusing every way of writing or
//! of going over GitLab's limits with nothing sent; `--read-only`;
//! GraphQL errors in a 200 and null objects as error results.

use crate::common;

use common::http::HttpServer;
use common::{Accepting, Harness, Lifecycle};
use fake_gitlab::FakeGitLab;
use fake_gitlab::db::Edition;
use rmcp::service::RunningService;
use rmcp::{ClientHandler, RoleClient};
use serde_json::{Value, json};

const WI: &str = "gitlab_work_item";
const GQL: &str = "gitlab_graphql";
const API: &str = "acme/platform/api";

/// A session an agent calls tools through: over stdio or over HTTP.
type Agent<C> = RunningService<RoleClient, C>;

async fn ok<C: ClientHandler>(agent: &Agent<C>, tool: &str, args: Value) -> String {
    let (text, is_error) = common::call(agent, tool, args.clone()).await;
    assert!(!is_error, "{tool} {args}: expected success, got: {text}");
    text
}

async fn err<C: ClientHandler>(agent: &Agent<C>, tool: &str, args: Value) -> String {
    let (text, is_error) = common::call(agent, tool, args.clone()).await;
    assert!(is_error, "{tool} {args}: expected an error, got: {text}");
    text
}

/// The bodies of the GraphQL requests the fake received, in order: an
/// object for one operation, an array for a multiplex.
fn graphql_sent(fake: &FakeGitLab) -> Vec<Value> {
    fake.requests()
        .iter()
        .filter(|r| r.raw_path == "/api/graphql")
        .map(|r| serde_json::from_str(&r.body).unwrap_or_else(|e| panic!("{e}: {}", r.body)))
        .collect()
}

/// The operation names of a request body, a multiplex's in order.
fn names(body: &Value) -> Vec<&str> {
    fn one(op: &Value) -> &str {
        op["operationName"].as_str().unwrap_or("?")
    }
    match body {
        Value::Array(ops) => ops.iter().map(one).collect(),
        op => vec![one(op)],
    }
}

/// The answer's object, from inside its frame.
fn object(text: &str) -> Value {
    serde_json::from_str(common::data(text)).unwrap_or_else(|e| panic!("{e}: {text}"))
}

/// The answer's items, one per line.
fn items(text: &str) -> Vec<Value> {
    if text.starts_with("[]") {
        return Vec::new();
    }
    common::data(text)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .collect()
}

/// The `after` the pagination line offers.
fn next_cursor(text: &str) -> String {
    let start = text.find("next: add ").expect("a next page") + "next: add ".len();
    let end = text[start..].find(" to params").unwrap() + start;
    let next: Value = serde_json::from_str(&text[start..end]).unwrap();
    next["after"].as_str().unwrap().to_string()
}

fn work_item_gid(id: u64) -> String {
    format!("gid://gitlab/WorkItem/{id}")
}

/// Every action of `gitlab_work_item`, in the order an agent would use
/// them, on the seed's `acme/platform/api` (CE). The agent confirms
/// destructive actions when asked.
async fn every_action<C: ClientHandler>(agent: &Agent<C>, fake: &FakeGitLab) {
    // get: one query, the namespace and iid as GitLab's variables.
    fake.clear_requests();
    let text = ok(
        agent,
        WI,
        json!({"action": "get", "params": {"project_id": API, "work_item_iid": 1}}),
    )
    .await;
    let sent = graphql_sent(fake);
    assert_eq!(sent.len(), 1, "{sent:?}");
    assert_eq!(names(&sent[0]), ["workItemGet"]);
    assert_eq!(sent[0]["variables"], json!({"fullPath": API, "iid": "1"}));
    let item = object(&text);
    assert_eq!(item["iid"], 1);
    assert_eq!(item["type"], "issue");
    assert_eq!(item["title"], "Add rate limiting to the public API (#1)");
    assert_eq!(item["state"], "opened");
    assert_eq!(item["author"], "bob");
    assert_eq!(item["assignees"], json!(["carol"]), "{item}");
    assert_eq!(item["labels"], json!(["feature"]));
    let linked: Vec<&Value> = item["linked_items"].as_array().unwrap().iter().collect();
    assert!(
        linked
            .iter()
            .any(|l| l["iid"] == 2 && l["link_type"] == "relates_to"),
        "{item}"
    );
    assert!(item["description"].as_str().unwrap().contains("## Summary"));

    // list: two pages by cursor.
    fake.clear_requests();
    let first = ok(
        agent,
        WI,
        json!({"action": "list", "params": {"project_id": API, "first": 2, "state": "opened"}}),
    )
    .await;
    let sent = graphql_sent(fake);
    assert_eq!(names(&sent[0]), ["workItemsList"]);
    assert_eq!(
        sent[0]["variables"],
        json!({"fullPath": API, "first": 2, "state": "opened"})
    );
    let page_one = items(&first);
    assert_eq!(page_one.len(), 2, "{first}");
    assert!(first.contains("total "), "{first}");
    let after = next_cursor(&first);
    fake.clear_requests();
    let second = ok(agent, WI, json!({"action": "list", "params": {"project_id": API, "first": 2, "state": "opened", "after": after}})).await;
    assert_eq!(graphql_sent(fake)[0]["variables"]["after"], json!(after));
    let page_two = items(&second);
    assert_eq!(page_two.len(), 2, "{second}");
    for item in &page_two {
        assert!(!page_one.contains(item), "{item} on both pages");
    }

    // create: a task under issue #1; names resolved in one multiplex first.
    fake.clear_requests();
    let text = ok(
        agent,
        WI,
        json!({"action": "create", "params": {
            "project_id": API, "type": "task", "title": "Test the rate limits",
            "parent_iid": 1, "labels": ["bug"], "assignee_usernames": ["bob"],
        }}),
    )
    .await;
    let sent = graphql_sent(fake);
    assert_eq!(sent.len(), 2, "{sent:#?}");
    assert_eq!(
        names(&sent[0]),
        [
            "workItemTypes",
            "workItemLabelIds",
            "workItemUserIds",
            "workItemIds"
        ]
    );
    assert_eq!(
        sent[0][1]["variables"],
        json!({"fullPath": API, "title": "bug"})
    );
    assert_eq!(sent[0][2]["variables"], json!({"usernames": ["bob"]}));
    assert_eq!(
        sent[0][3]["variables"],
        json!({"fullPath": API, "iids": ["1"]})
    );
    assert_eq!(names(&sent[1]), ["workItemCreate"]);
    assert_eq!(
        sent[1]["variables"],
        json!({"input": {
            "namespacePath": API,
            // The fake's own type id for a task, read from workItemTypes.
            "workItemTypeId": "gid://gitlab/WorkItems::Type/101",
            "title": "Test the rate limits",
            "hierarchyWidget": {"parentId": work_item_gid(101)},
            "labelsWidget": {"labelIds": ["gid://gitlab/ProjectLabel/501"]},
            "assigneesWidget": {"assigneeIds": ["gid://gitlab/User/2"]},
        }})
    );
    let task = object(&text);
    assert_eq!(
        (task["type"].as_str(), task["title"].as_str()),
        (Some("task"), Some("Test the rate limits"))
    );
    let task_iid = task["iid"].as_u64().unwrap();
    let task_id = task["id"].as_u64().unwrap();

    // update: close it and add a label; the type list is not read again.
    fake.clear_requests();
    let text = ok(
        agent,
        WI,
        json!({"action": "update", "params": {"project_id": API, "work_item_iid": task_iid, "state_event": "close", "add_labels": ["feature"]}}),
    )
    .await;
    let sent = graphql_sent(fake);
    assert_eq!(names(&sent[0]), ["workItemLabelIds", "workItemIds"]);
    assert_eq!(names(&sent[1]), ["workItemUpdate"]);
    assert_eq!(
        sent[1]["variables"],
        json!({"input": {
            "id": work_item_gid(task_id),
            "stateEvent": "CLOSE",
            "labelsWidget": {"addLabelIds": ["gid://gitlab/ProjectLabel/502"]},
        }})
    );
    assert_eq!(object(&text)["state"], "closed");
    let task = object(
        &ok(
            agent,
            WI,
            json!({"action": "get", "params": {"project_id": API, "work_item_iid": task_iid}}),
        )
        .await,
    );
    assert_eq!(task["state"], "closed");
    assert_eq!(task["labels"], json!(["bug", "feature"]));
    assert_eq!(task["assignees"], json!(["bob"]));
    assert_eq!(task["parent"]["iid"], 1);
    assert_eq!(task["parent"]["type"], "issue");

    // children: the task is one of #1's.
    fake.clear_requests();
    let text = ok(
        agent,
        WI,
        json!({"action": "children", "params": {"project_id": API, "work_item_iid": 1}}),
    )
    .await;
    assert_eq!(
        graphql_sent(fake)[0]["variables"],
        json!({"fullPath": API, "iid": "1"})
    );
    let children = items(&text);
    assert!(
        children
            .iter()
            .any(|c| c["iid"] == task_iid && c["type"] == "task" && c["state"] == "closed"),
        "{text}"
    );

    // add_children: another task, then made a child of #1.
    let other = object(&ok(agent, WI, json!({"action": "create", "params": {"project_id": API, "type": "task", "title": "Load test"}})).await);
    fake.clear_requests();
    let text = ok(agent, WI, json!({"action": "add_children", "params": {"project_id": API, "work_item_iid": 1, "child_iids": [other["iid"]]}})).await;
    let sent = graphql_sent(fake);
    assert_eq!(names(&sent[1]), ["workItemAddChildren"]);
    assert_eq!(
        sent[1]["variables"],
        json!({"input": {"id": work_item_gid(101), "hierarchyWidget": {"childrenIds": [work_item_gid(other["id"].as_u64().unwrap())]}}})
    );
    let parent = object(&text);
    assert!(
        parent["children"]
            .as_array()
            .unwrap()
            .iter()
            .any(|c| c["iid"] == other["iid"]),
        "{text}"
    );

    // link and unlink #1 and #3. A blocking link needs a paid tier: CE
    // refuses it in the payload, an error result with GitLab's words.
    fake.clear_requests();
    let text = err(agent, WI, json!({"action": "link", "params": {"project_id": API, "work_item_iid": 1, "target_iids": [3], "link_type": "blocks"}})).await;
    assert!(
        text.contains("GitLab refused the change.\nGitLab says: Blocked work items are not available for the current subscription tier"),
        "{text}"
    );
    let sent = graphql_sent(fake);
    assert_eq!(names(&sent[0]), ["workItemIds"]);
    assert_eq!(
        sent[0]["variables"],
        json!({"fullPath": API, "iids": ["1", "3"]})
    );
    assert_eq!(
        sent[1]["variables"],
        json!({"input": {"id": work_item_gid(101), "workItemsIds": [work_item_gid(103)], "linkType": "BLOCKS"}})
    );
    fake.clear_requests();
    let text = ok(agent, WI, json!({"action": "link", "params": {"project_id": API, "work_item_iid": 1, "target_iids": [3], "link_type": "relates_to"}})).await;
    assert_eq!(
        text,
        "Done: gitlab_work_item link succeeded.\nGitLab says: Successfully linked ID(s): 103."
    );
    assert_eq!(names(&graphql_sent(fake)[1]), ["workItemLink"]);
    assert_eq!(
        graphql_sent(fake)[1]["variables"]["input"]["linkType"],
        "RELATED"
    );
    let linked = |item: &Value| -> Vec<(u64, String)> {
        item["linked_items"]
            .as_array()
            .into_iter()
            .flatten()
            .map(|l| {
                (
                    l["iid"].as_u64().unwrap(),
                    l["link_type"].as_str().unwrap().to_string(),
                )
            })
            .collect()
    };
    let item = object(
        &ok(
            agent,
            WI,
            json!({"action": "get", "params": {"project_id": API, "work_item_iid": 1}}),
        )
        .await,
    );
    assert!(linked(&item).contains(&(3, "relates_to".into())), "{item}");
    fake.clear_requests();
    ok(agent, WI, json!({"action": "unlink", "params": {"project_id": API, "work_item_iid": 1, "target_iids": [3]}})).await;
    let sent = graphql_sent(fake);
    assert_eq!(names(&sent[1]), ["workItemUnlink"]);
    assert_eq!(
        sent[1]["variables"],
        json!({"input": {"id": work_item_gid(101), "workItemsIds": [work_item_gid(103)]}})
    );
    // Read back by a reference, as people paste them.
    let item = object(
        &ok(
            agent,
            WI,
            json!({"action": "get", "params": {"url": format!("{API}#1")}}),
        )
        .await,
    );
    assert!(!linked(&item).iter().any(|(iid, _)| *iid == 3), "{item}");

    // A note, and a reply in its thread.
    fake.clear_requests();
    let text = ok(agent, WI, json!({"action": "note_create", "params": {"project_id": API, "work_item_iid": 1, "body": "Limits ship in 2.1."}})).await;
    let sent = graphql_sent(fake);
    assert_eq!(names(&sent[1]), ["noteCreate"]);
    assert_eq!(
        sent[1]["variables"],
        json!({"input": {"noteableId": work_item_gid(101), "body": "Limits ship in 2.1."}})
    );
    let note = object(&text);
    assert_eq!(note["author"], "alice");
    let thread = note["discussion"].as_str().unwrap().to_string();
    fake.clear_requests();
    ok(agent, WI, json!({"action": "note_create", "params": {"project_id": API, "work_item_iid": 1, "body": "Thanks!", "discussion_id": thread}})).await;
    assert_eq!(
        graphql_sent(fake)[1]["variables"]["input"]["discussionId"],
        json!(format!("gid://gitlab/Discussion/{thread}"))
    );
    fake.clear_requests();
    let text = ok(
        agent,
        WI,
        json!({"action": "notes", "params": {"project_id": API, "work_item_iid": 1}}),
    )
    .await;
    assert_eq!(
        graphql_sent(fake)[0]["variables"],
        json!({"fullPath": API, "iid": "1"})
    );
    let threads = items(&text);
    let ours = threads
        .iter()
        .find(|t| t["id"] == json!(thread))
        .unwrap_or_else(|| panic!("{text}"));
    let bodies: Vec<&str> = ours["notes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| n["body"].as_str().unwrap())
        .collect();
    assert_eq!(bodies, ["Limits ship in 2.1.", "Thanks!"]);

    // delete, confirmed by the user; the task is gone.
    fake.clear_requests();
    let text = ok(
        agent,
        WI,
        json!({"action": "delete", "params": {"project_id": API, "work_item_iid": task_iid}}),
    )
    .await;
    assert!(
        text.starts_with("Done: gitlab_work_item delete succeeded."),
        "{text}"
    );
    let sent = graphql_sent(fake);
    assert_eq!(names(&sent[1]), ["workItemDelete"]);
    assert_eq!(
        sent[1]["variables"],
        json!({"input": {"id": work_item_gid(task_id)}})
    );
    let text = err(
        agent,
        WI,
        json!({"action": "get", "params": {"project_id": API, "work_item_iid": task_iid}}),
    )
    .await;
    assert!(
        text.starts_with(&format!(
            "Not found: gitlab_work_item get with project_id \"{API}\", work_item_iid {task_iid}."
        )),
        "{text}"
    );
}

#[tokio::test]
async fn every_work_item_action_over_stdio() {
    let user = Accepting::default();
    let h = Harness::start_client(user.clone(), Lifecycle::Initialize, &[]).await;
    every_action(&h.client, &h.fake).await;
    assert_eq!(
        user.asked.load(std::sync::atomic::Ordering::SeqCst),
        1,
        "the delete was confirmed once"
    );
    h.stop().await;
}

#[tokio::test]
async fn every_work_item_action_over_http() {
    let fake = FakeGitLab::start().await;
    let server = HttpServer::start(&fake, &[], &[]).await;
    let user = Accepting::default();
    let client = server
        .client(
            user.clone(),
            Lifecycle::Discover,
            &[("private-token", common::TOKEN)],
        )
        .await;
    every_action(&client, &fake).await;
    assert_eq!(
        user.asked.load(std::sync::atomic::Ordering::SeqCst),
        1,
        "the delete was confirmed once"
    );
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn the_newer_lifecycle_reads_and_pages_work_items() {
    let h = Harness::start(Lifecycle::Discover).await;
    let text = h
        .ok(
            WI,
            json!({"action": "list", "params": {"project_id": API, "first": 3}}),
        )
        .await;
    assert_eq!(items(&text).len(), 3, "{text}");
    let all = h
        .ok(
            WI,
            json!({"action": "list", "params": {"project_id": API, "first": 10}, "max_items": 25}),
        )
        .await;
    assert_eq!(
        items(&all).len(),
        25,
        "max_items follows the cursors: {all}"
    );
    assert_eq!(
        graphql_sent(&h.fake).len(),
        4,
        "one page, then three of ten"
    );
    h.stop().await;
}

#[tokio::test]
async fn an_epic_on_ce_is_refused_with_the_namespaces_types_and_nothing_is_changed() {
    let h = Harness::start(Lifecycle::Initialize).await;
    let text = h
        .err(WI, json!({"action": "create", "params": {"project_id": API, "type": "epic", "title": "Q3 roadmap"}}))
        .await;
    assert_eq!(
        text,
        "gitlab_work_item create: refused before any change was sent:\n- `acme/platform/api` has no work item type `epic`; its types: incident, issue, task, ticket"
    );
    let sent = graphql_sent(&h.fake);
    assert_eq!(sent.len(), 1, "{sent:?}");
    assert_eq!(names(&sent[0]), ["workItemTypes"]);
    assert!(!sent[0]["query"].as_str().unwrap().contains("mutation"));

    // A label or a user that does not exist: each named, nothing changed.
    h.fake.clear_requests();
    let text = h
        .err(WI, json!({"action": "update", "params": {"project_id": API, "work_item_iid": 2, "add_labels": ["bug", "urgent"], "assignee_usernames": ["zoe"]}}))
        .await;
    assert!(
        text.contains("- no label `urgent` in `acme/platform/api` or its groups"),
        "{text}"
    );
    assert!(text.contains("- no user `zoe`"), "{text}");
    assert!(!text.contains("`bug`"), "{text}");
    assert!(
        graphql_sent(&h.fake)
            .iter()
            .all(|b| !b.to_string().contains("mutation")),
        "no mutation sent"
    );

    // On EE a group has epics: created, and read by its group page's URL.
    h.fake.set_edition(Edition::Ee);
    let epic = h
        .ok(WI, json!({"action": "create", "params": {"group_id": "acme", "type": "epic", "title": "Q3 roadmap"}}))
        .await;
    let epic = object(&epic);
    assert_eq!(epic["type"], "epic");
    let url = format!("{}/groups/acme/-/epics/{}", h.fake.url(), epic["iid"]);
    let read = object(
        &h.ok(WI, json!({"action": "get", "params": {"url": url}}))
            .await,
    );
    assert_eq!(read["title"], "Q3 roadmap");
    // A group's page is no project.
    let text = h
        .err(
            "gitlab_issue",
            json!({"action": "get", "params": {"url": url}}),
        )
        .await;
    assert!(
        text.contains("is a group's page, but this action works on a project"),
        "{text}"
    );
    h.stop().await;
}

#[tokio::test]
async fn a_raw_query_that_could_write_or_exceeds_gitlabs_limits_is_refused_with_nothing_sent() {
    let h = Harness::start(Lifecycle::Initialize).await;
    let nested = |levels: usize| {
        let mut q = "id".to_string();
        for _ in 1..levels {
            q = format!("a {{ {q} }}");
        }
        format!("query {{ {q} }}")
    };
    let long = format!(
        "{{ project(fullPath: \"{API}\") {{ id }} }}{}",
        " ".repeat(10_001)
    );
    let cases: Vec<(String, Option<&str>, String)> = vec![
        (
            "mutation { workItemDelete(input: {id: \"gid://gitlab/WorkItem/101\"}) { errors } }"
                .into(),
            None,
            "`query` holds a mutation: this tool only reads".into(),
        ),
        (
            format!(
                "query A {{ project(fullPath: \"{API}\") {{ id }} }} mutation B {{ workItemDelete(input: {{id: \"gid://gitlab/WorkItem/101\"}}) {{ errors }} }}"
            ),
            Some("A"),
            "`query` holds a mutation (`B`): this tool only reads, whatever `operation_name` says"
                .into(),
        ),
        (
            "subscription { workItemUpdated { id } }".into(),
            None,
            "`query` holds a subscription".into(),
        ),
        (
            "query { ...F } fragment F on Query { ...G } fragment G on Query { ...F }".into(),
            None,
            "fragment `F` spreads itself".into(),
        ),
        (
            nested(21),
            None,
            "`query` has depth 21, over GitLab's limit of 20".into(),
        ),
        (
            long.clone(),
            None,
            format!(
                "`query` is {} characters, over GitLab's limit of 10000",
                long.chars().count()
            ),
        ),
        (
            format!("{{ project(fullPath: \"{API}\") {{ workItems(first: 101) {{ count }} }} }}"),
            None,
            "`first: 101` on `workItems` is over GitLab's limit of 100 nodes a page".into(),
        ),
    ];
    for (query, operation_name, expected) in cases {
        let mut params = json!({"query": query});
        if let Some(name) = operation_name {
            params["operation_name"] = json!(name);
        }
        let text = h
            .err(GQL, json!({"action": "query", "params": params}))
            .await;
        assert!(text.contains(&expected), "{expected:?} not in:\n{text}");
        assert_eq!(graphql_sent(&h.fake), Vec::<Value>::new(), "sent: {query}");
    }
    // A quick action in a note is held like on REST: nothing sent.
    let text = h
        .err(WI, json!({"action": "note_create", "params": {"project_id": API, "work_item_iid": 1, "body": "/close"}}))
        .await;
    assert!(text.contains("quick action"), "{text}");
    assert_eq!(graphql_sent(&h.fake), Vec::<Value>::new());
    h.stop().await;
}

#[tokio::test]
async fn read_only_lists_no_work_item_write_and_the_raw_query_still_answers() {
    let h = Harness::start_with(Lifecycle::Initialize, &[("GITLAB_READ_ONLY", "true")]).await;
    let tools = h.client.list_all_tools().await.unwrap();
    let actions = |name: &str| -> Vec<String> {
        let tool = tools.iter().find(|t| t.name == name).unwrap();
        serde_json::from_value(tool.input_schema["properties"]["action"]["enum"].clone()).unwrap()
    };
    assert_eq!(actions(WI), ["get", "list", "children", "notes", "help"]);
    assert_eq!(actions(GQL), ["query", "schema", "help"]);
    let text = h
        .err(WI, json!({"action": "create", "params": {"project_id": API, "type": "task", "title": "x"}}))
        .await;
    assert!(text.contains("read-only mode"), "{text}");
    assert_eq!(graphql_sent(&h.fake), Vec::<Value>::new());
    let text = h
        .ok(GQL, json!({"action": "query", "params": {"query": format!("{{ project(fullPath: \"{API}\") {{ workItems(first: 1) {{ count }} }} }}")}}))
        .await;
    assert_eq!(
        object(&text),
        json!({"project": {"workItems": {"count": 25}}})
    );
    h.stop().await;
}

#[tokio::test]
async fn graphql_errors_in_a_200_and_null_objects_are_error_results_with_gitlabs_words() {
    let h = Harness::start(Lifecycle::Initialize).await;
    let text = h
        .err(GQL, json!({"action": "query", "params": {"query": format!("{{ project(fullPath: \"{API}\") {{ nope }} }}")}}))
        .await;
    assert!(
        text.starts_with(
            "gitlab_graphql query: GitLab's GraphQL API answered with errors.\nGitLab says: "
        ),
        "{text}"
    );
    assert!(text.contains("nope"), "{text}");
    assert!(text.contains("Request id: "), "{text}");
    assert_eq!(graphql_sent(&h.fake).len(), 1, "a query is sent once");

    let text = h
        .err(GQL, json!({"action": "query", "params": {"query": "{ project(fullPath: \"acme/nothing\") { workItems { count } } }"}}))
        .await;
    assert!(
        text.starts_with("Not found: gitlab_graphql query"),
        "{text}"
    );
    assert!(
        text.contains("GitLab answers null for both, at `project`"),
        "{text}"
    );

    let text = h
        .err(
            WI,
            json!({"action": "get", "params": {"project_id": API, "work_item_iid": 999}}),
        )
        .await;
    assert!(
        text.starts_with("Not found: gitlab_work_item get with project_id \"acme/platform/api\", work_item_iid 999. It may not exist, or the token cannot see it"),
        "{text}"
    );
    assert!(text.contains("Next: Use action `list`"), "{text}");

    let text = h
        .err(
            WI,
            json!({"action": "get", "params": {"project_id": "acme/secret", "work_item_iid": 1}}),
        )
        .await;
    assert!(text.contains("at `namespace.workItem`"), "{text}");

    // A change GitLab refuses in the mutation's payload.
    let text = h
        .err(WI, json!({"action": "update", "params": {"project_id": API, "work_item_iid": 1, "title": "  "}}))
        .await;
    assert!(
        text.starts_with(
            "gitlab_work_item update: GitLab refused the change.\nGitLab says: Title can't be blank"
        ),
        "{text}"
    );
    h.stop().await;
}

#[tokio::test]
async fn the_schema_action_describes_a_type_and_suggests_the_name_meant() {
    let h = Harness::start(Lifecycle::Initialize).await;
    let text = h
        .ok(
            GQL,
            json!({"action": "schema", "params": {"type": "WorkItemUpdateInput"}}),
        )
        .await;
    let ty = object(&text);
    assert_eq!(ty["kind"], "INPUT_OBJECT");
    assert!(
        ty["input_fields"]
            .as_array()
            .unwrap()
            .contains(&json!("id: WorkItemID!")),
        "{ty}"
    );
    let ty = object(
        &h.ok(
            GQL,
            json!({"action": "schema", "params": {"type": "Project"}}),
        )
        .await,
    );
    let fields: Vec<&str> = ty["fields"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f.as_str().unwrap())
        .collect();
    assert!(
        fields.iter().any(|f| f.starts_with("workItems(")
            && f.contains("first: Int")
            && f.ends_with(": WorkItemConnection")),
        "{fields:?}"
    );
    let text = h
        .err(
            GQL,
            json!({"action": "schema", "params": {"type": "Workitem"}}),
        )
        .await;
    assert_eq!(
        text,
        "gitlab_graphql schema: GitLab's schema has no type `Workitem`; did you mean `WorkItem`?"
    );
    h.stop().await;
}

#[tokio::test]
async fn lockdown_withholds_the_graphql_tools_it_cannot_screen() {
    let h = Harness::start_with(
        Lifecycle::Initialize,
        &[("GITLAB_MCP_LOCKDOWN", "developer")],
    )
    .await;
    let tools = h.client.list_all_tools().await.unwrap();
    let names: Vec<&str> = tools.iter().map(|t| t.name.as_ref()).collect();
    assert!(!names.contains(&WI) && !names.contains(&GQL), "{names:?}");
    assert!(names.contains(&"gitlab_issue"), "{names:?}");
    h.stop().await;
}

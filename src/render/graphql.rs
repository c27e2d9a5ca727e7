//! GitLab's GraphQL answers to the server's stored documents, reshaped as
//! the REST answers read, so the compact renderer, the kinds' summaries
//! and the `fields` view treat both alike:
//! - a work item's `widgets` are folded into the work item;
//! - a connection (`{nodes, count, pageInfo}`) is its list of nodes, with
//!   `<field>_count` beside it when there are more than it holds;
//! - an object of one field is that field's value: a user is its
//!   username, a label its title, a type its name;
//! - `workItemType` is `type`, its name in the words `list` and `create`
//!   take (`key_result`); a work item's `state` is `opened` or `closed`
//!   and its `iid` a number, as on REST; a linked item's `workItem` is
//!   folded into the link;
//! - global IDs (`gid://gitlab/Note/5`) are their ids (`5`);
//! - keys are snake_case (`webUrl` is `web_url`, which compaction keeps).
//!
//! An agent's own query is not reshaped: it reads the names it asked for.

use serde_json::{Map, Value};

use crate::gitlab::Pagination;

/// What a global ID starts with.
const GID: &str = "gid://gitlab/";

/// A stored document's answer, reshaped.
pub fn flatten(value: Value) -> Value {
    match value {
        Value::Object(fields) => flatten_object(fields),
        Value::Array(items) => Value::Array(items.into_iter().map(flatten).collect()),
        Value::String(text) => global_id(text),
        other => other,
    }
}

/// A connection's nodes, reshaped, and its page: the total when GitLab
/// counted, and the cursor of the next page when there is one.
pub fn page(connection: Value) -> (Vec<Value>, Pagination) {
    let Value::Object(mut fields) = connection else {
        return (Vec::new(), Pagination::default());
    };
    let nodes = match fields.remove("nodes") {
        Some(Value::Array(nodes)) => nodes.into_iter().map(flatten).collect(),
        _ => Vec::new(),
    };
    let info = fields.get("pageInfo");
    let more = info
        .and_then(|i| i.get("hasNextPage"))
        .and_then(Value::as_bool)
        .unwrap_or(false);
    let pagination = Pagination {
        total: fields.get("count").and_then(Value::as_u64),
        next_cursor: info
            .and_then(|i| i.get("endCursor"))
            .and_then(Value::as_str)
            .filter(|_| more)
            .map(str::to_string),
        ..Pagination::default()
    };
    (nodes, pagination)
}

/// An object reshaped: a connection as its nodes, an object of one scalar
/// field as that value.
fn flatten_object(fields: Map<String, Value>) -> Value {
    if let Some(nodes) = fields.get("nodes").filter(|_| is_connection(&fields)) {
        return flatten(nodes.clone());
    }
    let out = flatten_fields(fields);
    let mut values = out.values();
    match (values.next(), values.next()) {
        (Some(only), None) if !only.is_object() && !only.is_array() => only.clone(),
        _ => Value::Object(out),
    }
}

/// An object's fields reshaped, widgets and a link's work item folded in.
fn flatten_fields(fields: Map<String, Value>) -> Map<String, Value> {
    let mut out = Map::new();
    for (key, value) in fields {
        match (key.as_str(), value) {
            // Each widget's fields belong to the work item.
            ("widgets", Value::Array(widgets)) => {
                for widget in widgets {
                    if let Value::Object(fields) = widget {
                        out.extend(flatten_fields(fields));
                    }
                }
            }
            // A link's other end is the link's subject.
            ("workItem", Value::Object(item)) => out.extend(flatten_fields(item)),
            ("workItemType", value) => {
                let name = value.get("name").cloned().unwrap_or(value);
                out.insert("type".into(), type_name(name));
            }
            // GraphQL's iids are strings; REST's, which agents pass back,
            // are numbers.
            ("iid", Value::String(iid)) => {
                let iid = iid.parse::<u64>().map_or(Value::String(iid), Value::from);
                out.insert("iid".into(), iid);
            }
            ("state", Value::String(state)) => {
                let state = match state.as_str() {
                    "OPEN" => "opened".to_string(),
                    "CLOSED" => "closed".to_string(),
                    _ => state,
                };
                out.insert("state".into(), Value::String(state));
            }
            (_, value @ Value::Object(_)) if count_beside(&value) => {
                let count = value.get("count").cloned();
                let nodes = flatten(value);
                let shown = nodes.as_array().map_or(0, Vec::len) as u64;
                if let Some(count) = count.filter(|c| c.as_u64().is_some_and(|c| c > shown)) {
                    out.insert(format!("{}_count", snake_case(&key)), count);
                }
                out.insert(snake_case(&key), nodes);
            }
            (_, value) => {
                out.insert(snake_case(&key), flatten(value));
            }
        }
    }
    out
}

/// `{nodes: [...]}`, with `count` and `pageInfo` at most.
fn is_connection(fields: &Map<String, Value>) -> bool {
    fields.get("nodes").is_some_and(Value::is_array)
        && fields
            .keys()
            .all(|k| matches!(k.as_str(), "nodes" | "count" | "pageInfo"))
}

fn count_beside(value: &Value) -> bool {
    value
        .as_object()
        .is_some_and(|f| is_connection(f) && f.contains_key("count"))
}

/// `Key Result` as `key_result`, the words the actions take.
fn type_name(value: Value) -> Value {
    match value {
        Value::String(name) => Value::String(name.to_lowercase().replace(' ', "_")),
        other => other,
    }
}

/// `gid://gitlab/WorkItem/12` as `12`, `gid://gitlab/Discussion/ab1` as
/// `ab1`; other text as it is.
fn global_id(text: String) -> Value {
    let Some(id) = text
        .strip_prefix(GID)
        .and_then(|rest| rest.rsplit_once('/'))
        .map(|(_, id)| id)
    else {
        return Value::String(text);
    };
    match id.parse::<u64>() {
        Ok(n) => Value::from(n),
        Err(_) => Value::String(id.to_string()),
    }
}

/// `webUrl` as `web_url`.
fn snake_case(key: &str) -> String {
    let mut out = String::with_capacity(key.len() + 4);
    for c in key.chars() {
        if c.is_ascii_uppercase() {
            out.push('_');
            out.push(c.to_ascii_lowercase());
        } else {
            out.push(c);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_work_item_reads_as_a_rest_answer() {
        let item = json!({
            "id": "gid://gitlab/WorkItem/7", "iid": "3",
            "workItemType": {"id": "gid://gitlab/WorkItems::Type/102", "name": "Key Result"},
            "title": "Ship", "state": "OPEN", "author": {"username": "alice"},
            "webUrl": "https://g/acme/api/-/work_items/3",
            "widgets": [
                {"assignees": {"nodes": [{"username": "bob"}]}},
                {"labels": {"nodes": [{"title": "bug"}, {"title": "ux"}]}},
                {},
                {"parent": {"iid": "1", "title": "Epic", "webUrl": "u", "workItemType": {"name": "Issue"}},
                 "hasChildren": true,
                 "children": {"count": 3, "nodes": [{"iid": "4", "title": "t", "state": "CLOSED", "workItemType": {"name": "Task"}}]}},
                {"linkedItems": {"nodes": [{"linkType": "blocks", "workItem": {"iid": "9", "title": "x", "state": "OPEN", "webUrl": "v"}}]}},
                {"startDate": null, "dueDate": "2026-04-01"}
            ]
        });
        assert_eq!(
            flatten(item),
            json!({
                "id": 7, "iid": 3, "type": "key_result", "title": "Ship", "state": "opened",
                "author": "alice", "web_url": "https://g/acme/api/-/work_items/3",
                "assignees": ["bob"], "labels": ["bug", "ux"],
                "parent": {"iid": 1, "title": "Epic", "web_url": "u", "type": "issue"},
                "has_children": true,
                "children_count": 3,
                "children": [{"iid": 4, "title": "t", "state": "closed", "type": "task"}],
                "linked_items": [{"link_type": "blocks", "iid": 9, "title": "x", "state": "opened", "web_url": "v"}],
                "start_date": null, "due_date": "2026-04-01"
            })
        );
    }

    #[test]
    fn a_connection_is_its_nodes_and_its_page() {
        let (nodes, page) = page(json!({
            "count": 5,
            "pageInfo": {"hasNextPage": true, "endCursor": "abc"},
            "nodes": [{"id": "gid://gitlab/Discussion/f00", "notes": {"nodes": [{"id": "gid://gitlab/Note/5", "body": "hi"}]}}]
        }));
        assert_eq!(
            nodes,
            [json!({"id": "f00", "notes": [{"id": 5, "body": "hi"}]})]
        );
        assert_eq!(
            (page.total, page.next_cursor.as_deref()),
            (Some(5), Some("abc"))
        );
        let (_, last) =
            super::page(json!({"pageInfo": {"hasNextPage": false, "endCursor": "z"}, "nodes": []}));
        assert_eq!(last.next_cursor, None);
    }
}

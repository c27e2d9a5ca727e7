//! Names to IDs, before a GraphQL action is sent: "only valid calls reach
//! GitLab". The namespace as a full path (a numeric id looked up on REST),
//! a type name as the namespace's type ID (from `workItemTypes`, cached:
//! type IDs differ between installations), label titles, usernames and
//! work item iids as global IDs. The reads go as one multiplex (a JSON
//! array of the small documents in `catalog/graphql/`, split only where
//! GitLab's 10,000-character limit asks), and every name that resolves to
//! nothing is refused together, naming each, with no mutation sent.

use std::collections::{BTreeSet, HashMap};
use std::fmt::Write as _;

use serde_json::{Map, Value, json};

use super::cache::{Cache, Types};
use super::send;
use crate::catalog::{Feed, GraphqlRoute, Operation, Resolver, Role, documents};
use crate::dispatch::ValidatedCall;
use crate::encoding::scalar_text;
use crate::gitlab::graphql::GraphqlOperation;
use crate::gitlab::{GitLabError, GraphqlError, GraphqlFailure, HttpRequest};
use crate::handlers::Gitlab;
use crate::render::Output;

/// What the resolvers found.
#[derive(Debug, Default)]
pub struct Resolved {
    /// The namespace's full path.
    pub namespace: Option<String>,
    /// What each resolved parameter (by its index) is sent as.
    values: HashMap<usize, Value>,
}

impl Resolved {
    pub fn get(&self, param: usize) -> Option<&Value> {
        self.values.get(&param)
    }
}

/// A name GitLab does not know here.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Unknown {
    Type {
        given: String,
        available: Vec<String>,
    },
    Label(String),
    User(String),
    WorkItem(String),
}

/// One read of the multiplex, and what it is for.
enum Ask {
    Types,
    Label(String),
    Users,
    WorkItems,
}

/// Every name of the call as GitLab's IDs, or the answer that refuses it.
pub async fn resolve(
    call: &ValidatedCall,
    route: &GraphqlRoute,
    gitlab: &Gitlab<'_>,
    cache: &Cache,
) -> Result<Resolved, Output> {
    let resolvers: Vec<(Resolver, usize, &Value)> = route
        .variables
        .iter()
        .filter_map(|v| match (v.feed, v.param) {
            (Feed::Resolve(r), Some(i)) => Some((r, i, call.arg(call.action.params[i].name)?)),
            _ => None,
        })
        .collect();
    let needs_namespace = route
        .variables
        .iter()
        .any(|v| matches!(v.feed, Feed::Resolve(_)));
    if !needs_namespace {
        return Ok(Resolved::default());
    }
    let namespace = namespace(call, gitlab).await?;
    let wanted = Wanted::of(&resolvers);
    let root = gitlab.target.web_root();
    let mut found = Found {
        types: cache.types(root, &namespace),
        ..Found::default()
    };
    let asks = wanted.asks(found.types.is_some());
    let operations: Vec<GraphqlOperation> = asks
        .iter()
        .map(|ask| ask.operation(&namespace, &wanted))
        .collect();
    let (answers, request_id) = if operations.is_empty() {
        (Vec::new(), None)
    } else {
        send(call, gitlab, &operations, Operation::Query).await?
    };
    let had_types = found.types.is_some();
    found.read(&asks, &answers);
    if found.namespace_missing {
        return Err(not_visible(call, gitlab, &namespace, request_id));
    }
    if let (false, Some(types)) = (had_types, &found.types) {
        cache.keep_types(root, &namespace, types.clone());
    }
    match found.values(&resolvers) {
        Ok(values) => Ok(Resolved {
            namespace: Some(namespace),
            values,
        }),
        Err(unknown) => Err(refusal(call, &namespace, &unknown)),
    }
}

/// The names a call asks to resolve, each once.
#[derive(Debug, Default, PartialEq)]
struct Wanted {
    types: bool,
    labels: BTreeSet<String>,
    users: BTreeSet<String>,
    iids: BTreeSet<String>,
}

impl Wanted {
    fn of(resolvers: &[(Resolver, usize, &Value)]) -> Wanted {
        let mut wanted = Wanted::default();
        for (resolver, _, value) in resolvers {
            match resolver {
                Resolver::Namespace => {}
                Resolver::WorkItemType => wanted.types = true,
                Resolver::LabelIds => wanted.labels.extend(texts(value)),
                Resolver::UserIds => wanted.users.extend(texts(value)),
                Resolver::WorkItemId | Resolver::WorkItemIds => wanted.iids.extend(texts(value)),
            }
        }
        wanted
    }

    /// The reads to make; the types not when they are cached.
    fn asks(&self, types_cached: bool) -> Vec<Ask> {
        let mut asks = Vec::new();
        if self.types && !types_cached {
            asks.push(Ask::Types);
        }
        asks.extend(self.labels.iter().cloned().map(Ask::Label));
        if !self.users.is_empty() {
            asks.push(Ask::Users);
        }
        if !self.iids.is_empty() {
            asks.push(Ask::WorkItems);
        }
        asks
    }
}

impl Ask {
    /// The stored document that reads it, with its variables.
    fn operation(&self, namespace: &str, wanted: &Wanted) -> GraphqlOperation<'static> {
        let (document, variables) = match self {
            Ask::Types => (
                &documents::WORK_ITEM_TYPES,
                json!({ "fullPath": namespace }),
            ),
            Ask::Label(title) => (
                &documents::WORK_ITEM_LABEL_IDS,
                json!({ "fullPath": namespace, "title": title }),
            ),
            Ask::Users => (
                &documents::WORK_ITEM_USER_IDS,
                json!({ "usernames": wanted.users }),
            ),
            Ask::WorkItems => (
                &documents::WORK_ITEM_IDS,
                json!({ "fullPath": namespace, "iids": wanted.iids }),
            ),
        };
        GraphqlOperation {
            document: document.text,
            variables: object(variables),
            operation_name: document.operation_name,
        }
    }
}

/// What the reads answered: names and their IDs.
#[derive(Debug, Default)]
struct Found {
    types: Option<Types>,
    labels: HashMap<String, String>,
    users: HashMap<String, String>,
    items: HashMap<String, String>,
    /// The namespace answered null: missing, or not visible.
    namespace_missing: bool,
}

impl Found {
    /// Read each answer by what it was asked for.
    fn read(&mut self, asks: &[Ask], answers: &[Value]) {
        for (ask, data) in asks.iter().zip(answers) {
            match ask {
                Ask::Types => match data.pointer("/namespace/workItemTypes/nodes") {
                    Some(Value::Array(nodes)) => {
                        self.types = Some(
                            nodes
                                .iter()
                                .filter_map(|n| Some((text(n, "name")?, text(n, "id")?)))
                                .collect(),
                        );
                    }
                    _ => self.namespace_missing = true,
                },
                Ask::Label(title) => match either(data, "labels") {
                    // `title` filters, and the exact title is the one meant.
                    Some(nodes) => {
                        let id = nodes
                            .iter()
                            .find(|n| n.get("title").and_then(Value::as_str) == Some(title))
                            .and_then(|n| text(n, "id"));
                        self.labels.extend(id.map(|id| (title.clone(), id)));
                    }
                    None => self.namespace_missing = true,
                },
                Ask::Users => {
                    let nodes = data.pointer("/users/nodes").and_then(Value::as_array);
                    for node in nodes.into_iter().flatten() {
                        if let (Some(name), Some(id)) = (text(node, "username"), text(node, "id")) {
                            self.users.insert(name, id);
                        }
                    }
                }
                Ask::WorkItems => match either(data, "workItems") {
                    Some(nodes) => {
                        for node in nodes {
                            if let (Some(iid), Some(id)) = (text(node, "iid"), text(node, "id")) {
                                self.items.insert(iid, id);
                            }
                        }
                    }
                    None => self.namespace_missing = true,
                },
            }
        }
    }

    /// What each resolved parameter is sent as, or every name unknown.
    fn values(
        &self,
        resolvers: &[(Resolver, usize, &Value)],
    ) -> Result<HashMap<usize, Value>, Vec<Unknown>> {
        let mut unknown = Vec::new();
        let mut values = HashMap::new();
        for (resolver, index, value) in resolvers {
            let sent = match resolver {
                Resolver::Namespace => continue,
                Resolver::WorkItemType => {
                    let given = scalar_text(value).into_owned();
                    let types = self.types.as_deref().unwrap_or_default();
                    match types.iter().find(|(name, _)| words(name) == given) {
                        Some((_, id)) => Value::String(id.clone()),
                        None => {
                            unknown.push(Unknown::Type {
                                given,
                                available: types.iter().map(|(name, _)| words(name)).collect(),
                            });
                            continue;
                        }
                    }
                }
                Resolver::LabelIds => Value::Array(ids(
                    texts(value),
                    &self.labels,
                    Unknown::Label,
                    &mut unknown,
                )),
                Resolver::UserIds => {
                    Value::Array(ids(texts(value), &self.users, Unknown::User, &mut unknown))
                }
                Resolver::WorkItemIds => Value::Array(ids(
                    texts(value),
                    &self.items,
                    Unknown::WorkItem,
                    &mut unknown,
                )),
                Resolver::WorkItemId => {
                    match ids(texts(value), &self.items, Unknown::WorkItem, &mut unknown).pop() {
                        Some(id) => id,
                        None => continue,
                    }
                }
            };
            values.insert(*index, sent);
        }
        if unknown.is_empty() {
            Ok(values)
        } else {
            Err(unknown)
        }
    }
}

/// A value's names: the items of a list, or the one value.
fn texts(value: &Value) -> Vec<String> {
    match value {
        Value::Array(items) => items.iter().map(|v| scalar_text(v).into_owned()).collect(),
        one => vec![scalar_text(one).into_owned()],
    }
}

/// The IDs of `names`, in their order; each name without one is unknown.
fn ids(
    names: Vec<String>,
    found: &HashMap<String, String>,
    missing: fn(String) -> Unknown,
    unknown: &mut Vec<Unknown>,
) -> Vec<Value> {
    let mut out = Vec::new();
    for name in names {
        match found.get(&name) {
            Some(id) => out.push(Value::String(id.clone())),
            None => {
                let problem = missing(name);
                if !unknown.contains(&problem) {
                    unknown.push(problem);
                }
            }
        }
    }
    out
}

/// The project or group parameter as a full path: a path as given, a
/// numeric id looked up (`GET /projects/:id`, `GET /groups/:id`).
async fn namespace(call: &ValidatedCall, gitlab: &Gitlab<'_>) -> Result<String, Output> {
    let Some(arg) = call
        .args
        .iter()
        .find(|a| matches!(a.spec.role, Some(Role::Project | Role::Group)))
    else {
        return Err(Output::error(format!(
            "{} {}: give the project or the group.",
            call.tool.name, call.action.name
        )));
    };
    let given = scalar_text(&arg.value).into_owned();
    if given.is_empty() || !given.bytes().all(|b| b.is_ascii_digit()) {
        return Ok(given);
    }
    let (path, field) = match arg.spec.role {
        Some(Role::Group) => (format!("/groups/{given}"), "full_path"),
        _ => (format!("/projects/{given}"), "path_with_namespace"),
    };
    let response = gitlab
        .send(&HttpRequest::get(path))
        .await
        .map_err(|failed| gitlab.failure(call, &failed))?;
    serde_json::from_slice::<Value>(&response.body)
        .ok()
        .as_ref()
        .and_then(|found| text(found, field))
        .ok_or_else(|| {
            Output::error(format!(
                "{} {}: GitLab's answer for {} {given} has no `{field}`.",
                call.tool.name, call.action.name, arg.spec.name
            ))
        })
}

/// The namespace answered null: it does not exist, or the token cannot
/// see it.
fn not_visible(
    call: &ValidatedCall,
    gitlab: &Gitlab<'_>,
    namespace: &str,
    request_id: Option<String>,
) -> Output {
    let error = GitLabError::Graphql(GraphqlError {
        failure: GraphqlFailure::Null {
            path: format!("namespace `{namespace}`"),
        },
        request_id,
    });
    gitlab.failure(call, &crate::gitlab::Failed { error, attempts: 1 })
}

/// Every unknown name, and that nothing was changed.
fn refusal(call: &ValidatedCall, namespace: &str, unknown: &[Unknown]) -> Output {
    let mut out = format!(
        "{} {}: refused before any change was sent:\n",
        call.tool.name, call.action.name
    );
    for problem in unknown {
        let _ = match problem {
            Unknown::Type { given, available } => writeln!(
                out,
                "- `{namespace}` has no work item type `{given}`; its types: {}",
                available.join(", ")
            ),
            Unknown::Label(title) => writeln!(
                out,
                "- no label `{title}` in `{namespace}` or its groups (gitlab_label `list` lists them)"
            ),
            Unknown::User(name) => writeln!(out, "- no user `{name}`"),
            Unknown::WorkItem(iid) => writeln!(
                out,
                "- no work item #{iid} in `{namespace}` that the token can see (action `list` finds iids)"
            ),
        };
    }
    Output::error(out.trim_end().to_string())
}

/// `project.<field>.nodes`, else `group.<field>.nodes`: the documents ask
/// both for the same path, and the one it is not answers null.
fn either<'a>(data: &'a Value, field: &str) -> Option<&'a Vec<Value>> {
    ["project", "group"]
        .iter()
        .find_map(|root| data.get(root)?.get(field)?.get("nodes")?.as_array())
}

fn text(node: &Value, key: &str) -> Option<String> {
    node.get(key).map(|v| scalar_text(v).into_owned())
}

/// GitLab's `Key Result` in the actions' words, `key_result`.
fn words(name: &str) -> String {
    name.to_lowercase().replace(' ', "_")
}

fn object(value: Value) -> Map<String, Value> {
    match value {
        Value::Object(map) => map,
        _ => Map::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn resolvers(given: &[(Resolver, Value)]) -> Vec<(Resolver, usize, &Value)> {
        given
            .iter()
            .enumerate()
            .map(|(i, (r, v))| (*r, i, v))
            .collect()
    }

    #[test]
    fn each_name_is_asked_once_and_cached_types_are_not_asked_again() {
        let given = [
            (Resolver::LabelIds, json!(["bug", "ux"])),
            (Resolver::LabelIds, json!(["bug"])),
            (Resolver::UserIds, json!(["bob"])),
            (Resolver::WorkItemId, json!(1)),
            (Resolver::WorkItemIds, json!([1, 3])),
            (Resolver::WorkItemType, json!("task")),
        ];
        let wanted = Wanted::of(&resolvers(&given));
        assert_eq!(wanted.labels.iter().collect::<Vec<_>>(), ["bug", "ux"]);
        assert_eq!(wanted.iids.iter().collect::<Vec<_>>(), ["1", "3"]);
        let names = |asks: Vec<Ask>| -> Vec<&'static str> {
            asks.iter()
                .map(|a| a.operation("g/p", &wanted).operation_name.unwrap())
                .collect()
        };
        assert_eq!(
            names(wanted.asks(false)),
            [
                "workItemTypes",
                "workItemLabelIds",
                "workItemLabelIds",
                "workItemUserIds",
                "workItemIds"
            ]
        );
        assert_eq!(names(wanted.asks(true))[0], "workItemLabelIds");
        let users = Ask::Users.operation("g/p", &wanted);
        assert_eq!(
            Value::Object(users.variables),
            json!({"usernames": ["bob"]})
        );
    }

    #[test]
    fn answers_become_ids_and_every_unknown_name_is_named() {
        let asks = [
            Ask::Types,
            Ask::Label("bug".into()),
            Ask::Label("urgent".into()),
            Ask::Users,
            Ask::WorkItems,
        ];
        let answers = [
            json!({"namespace": {"workItemTypes": {"nodes": [
                {"id": "gid://gitlab/WorkItems::Type/101", "name": "Task"},
                {"id": "gid://gitlab/WorkItems::Type/107", "name": "Key Result"}
            ]}}}),
            // The project answers; the group asked for the same path is null.
            json!({"project": {"labels": {"nodes": [{"id": "gid://gitlab/ProjectLabel/501", "title": "bug"}]}}, "group": null}),
            json!({"project": {"labels": {"nodes": []}}, "group": null}),
            json!({"users": {"nodes": [{"id": "gid://gitlab/User/2", "username": "bob"}]}}),
            json!({"project": null, "group": {"workItems": {"nodes": [{"id": "gid://gitlab/WorkItem/9", "iid": "1"}]}}}),
        ];
        let mut found = Found::default();
        found.read(&asks, &answers);
        assert!(!found.namespace_missing);
        let fine = [
            (Resolver::WorkItemType, json!("key_result")),
            (Resolver::LabelIds, json!(["bug"])),
            (Resolver::UserIds, json!(["bob"])),
            (Resolver::WorkItemId, json!(1)),
        ];
        let values = found.values(&resolvers(&fine)).unwrap();
        assert_eq!(values[&0], json!("gid://gitlab/WorkItems::Type/107"));
        assert_eq!(values[&1], json!(["gid://gitlab/ProjectLabel/501"]));
        assert_eq!(values[&2], json!(["gid://gitlab/User/2"]));
        assert_eq!(values[&3], json!("gid://gitlab/WorkItem/9"));
        let wrong = [
            (Resolver::WorkItemType, json!("epic")),
            (Resolver::LabelIds, json!(["bug", "urgent"])),
            (Resolver::UserIds, json!(["zoe"])),
            (Resolver::WorkItemIds, json!([1, 7])),
        ];
        assert_eq!(
            found.values(&resolvers(&wrong)).unwrap_err(),
            [
                Unknown::Type {
                    given: "epic".into(),
                    available: vec!["task".into(), "key_result".into()]
                },
                Unknown::Label("urgent".into()),
                Unknown::User("zoe".into()),
                Unknown::WorkItem("7".into()),
            ]
        );
    }

    #[test]
    fn a_namespace_that_answers_null_is_missing() {
        let mut found = Found::default();
        found.read(
            &[Ask::WorkItems],
            &[json!({"project": null, "group": null})],
        );
        assert!(found.namespace_missing);
    }
}

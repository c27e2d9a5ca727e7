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
    let resolvers: Vec<(Resolver, Option<usize>)> = route
        .variables
        .iter()
        .filter_map(|v| match v.feed {
            Feed::Resolve(r) => Some((r, v.param)),
            _ => None,
        })
        .collect();
    if resolvers.is_empty() {
        return Ok(Resolved::default());
    }
    let namespace = namespace(call, gitlab).await?;
    let given = |i: Option<usize>| i.and_then(|i| call.arg(call.action.params[i].name));
    let texts = |value: &Value| -> Vec<String> {
        match value {
            Value::Array(items) => items.iter().map(|v| scalar_text(v).into_owned()).collect(),
            one => vec![scalar_text(one).into_owned()],
        }
    };
    // What to ask, each name once.
    let mut wants_types = false;
    let mut labels = BTreeSet::new();
    let mut users = BTreeSet::new();
    let mut iids = BTreeSet::new();
    for (resolver, param) in &resolvers {
        let Some(value) = given(*param) else { continue };
        match resolver {
            Resolver::Namespace => {}
            Resolver::WorkItemType => wants_types = true,
            Resolver::LabelIds => labels.extend(texts(value)),
            Resolver::UserIds => users.extend(texts(value)),
            Resolver::WorkItemId | Resolver::WorkItemIds => iids.extend(texts(value)),
        }
    }
    let root = gitlab.target.web_root();
    let cached = cache.types(root, &namespace);
    let mut asks = Vec::new();
    if wants_types && cached.is_none() {
        asks.push(Ask::Types);
    }
    asks.extend(labels.iter().cloned().map(Ask::Label));
    if !users.is_empty() {
        asks.push(Ask::Users);
    }
    if !iids.is_empty() {
        asks.push(Ask::WorkItems);
    }
    let path = |ns: &str| json!({ "fullPath": ns });
    let operations: Vec<GraphqlOperation> = asks
        .iter()
        .map(|ask| {
            let (document, variables) = match ask {
                Ask::Types => (&documents::WORK_ITEM_TYPES, path(&namespace)),
                Ask::Label(title) => (
                    &documents::WORK_ITEM_LABEL_IDS,
                    json!({ "fullPath": namespace, "title": title }),
                ),
                Ask::Users => (
                    &documents::WORK_ITEM_USER_IDS,
                    json!({ "usernames": users.iter().collect::<Vec<_>>() }),
                ),
                Ask::WorkItems => (
                    &documents::WORK_ITEM_IDS,
                    json!({ "fullPath": namespace, "iids": iids.iter().collect::<Vec<_>>() }),
                ),
            };
            GraphqlOperation {
                document: document.text,
                variables: object(variables),
                operation_name: document.operation_name,
            }
        })
        .collect();
    let (answers, request_id) = if operations.is_empty() {
        (Vec::new(), None)
    } else {
        send(call, gitlab, &operations, Operation::Query).await?
    };

    let mut types = cached;
    let mut label_ids = HashMap::new();
    let mut user_ids = HashMap::new();
    let mut item_ids = HashMap::new();
    let mut seen_namespace = true;
    for (ask, data) in asks.iter().zip(&answers) {
        match ask {
            Ask::Types => match data.pointer("/namespace/workItemTypes/nodes") {
                Some(Value::Array(nodes)) => {
                    let found: Types = nodes
                        .iter()
                        .filter_map(|n| Some((text(n, "name")?, text(n, "id")?)))
                        .collect();
                    cache.keep_types(root, &namespace, found.clone());
                    types = Some(found);
                }
                _ => seen_namespace = false,
            },
            Ask::Label(title) => match either(data, "labels") {
                Some(nodes) => {
                    if let Some(id) = nodes
                        .iter()
                        .find(|n| n.get("title").and_then(Value::as_str) == Some(title))
                        .and_then(|n| text(n, "id"))
                    {
                        label_ids.insert(title.clone(), id);
                    }
                }
                None => seen_namespace = false,
            },
            Ask::Users => {
                for node in data
                    .pointer("/users/nodes")
                    .and_then(Value::as_array)
                    .into_iter()
                    .flatten()
                {
                    if let (Some(name), Some(id)) = (text(node, "username"), text(node, "id")) {
                        user_ids.insert(name, id);
                    }
                }
            }
            Ask::WorkItems => match either(data, "workItems") {
                Some(nodes) => {
                    for node in nodes {
                        if let (Some(iid), Some(id)) = (text(node, "iid"), text(node, "id")) {
                            item_ids.insert(iid, id);
                        }
                    }
                }
                None => seen_namespace = false,
            },
        }
    }
    if !seen_namespace {
        return Err(not_visible(call, gitlab, &namespace, request_id));
    }

    let mut unknown = Vec::new();
    let mut values = HashMap::new();
    for (resolver, param) in &resolvers {
        let (Some(index), Some(value)) = (*param, given(*param)) else {
            continue;
        };
        let sent = match resolver {
            Resolver::Namespace => continue,
            Resolver::WorkItemType => {
                let given = scalar_text(value).into_owned();
                let types = types.clone().unwrap_or_default();
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
            Resolver::LabelIds => {
                Value::Array(ids(texts(value), &label_ids, Unknown::Label, &mut unknown))
            }
            Resolver::UserIds => {
                Value::Array(ids(texts(value), &user_ids, Unknown::User, &mut unknown))
            }
            Resolver::WorkItemIds => Value::Array(ids(
                texts(value),
                &item_ids,
                Unknown::WorkItem,
                &mut unknown,
            )),
            Resolver::WorkItemId => {
                match ids(texts(value), &item_ids, Unknown::WorkItem, &mut unknown).pop() {
                    Some(id) => id,
                    None => continue,
                }
            }
        };
        values.insert(index, sent);
    }
    if !unknown.is_empty() {
        return Err(refusal(call, &namespace, &unknown));
    }
    Ok(Resolved {
        namespace: Some(namespace),
        values,
    })
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

//! `completion/complete`: values for the prompts' arguments and the
//! resource templates' variables, as the user types. Each argument draws
//! from one source, read with one GitLab request (through the engine, so
//! the policy and the token's scopes apply) within `TIME_LIMIT`:
//!
//! - a project (`project`): the caller's projects whose path or name holds
//!   the text, most recently active first (`membership=true`: a search of
//!   every project GitLab shows would need a second request when the
//!   caller's own fall short, and the caller's are what it means);
//! - a branch (`ref`): the chosen project's branches starting with the
//!   text; a tag (`since`, the previous release): its tags;
//! - a merge request (`merge_request`, a diff's `iid`): the chosen project's
//!   open merge requests, their iids starting with the text, or their
//!   titles holding it. A value must be valid input, so it is the iid
//!   alone; completion has no place for the title beside it.
//!
//! At most `MAX_VALUES` values, `hasMore` when GitLab has another page. A
//! failure or a timeout is an empty completion, logged; an unknown prompt
//! or template is an error (-32602), as MCP asks.

use std::time::Duration;

use rmcp::ErrorData;
use rmcp::model::{CompleteRequestParams, CompletionInfo, Reference};
use serde_json::{Map, Value, json};

use crate::catalog::ToolSpec;
use crate::gitlab::Pagination;

/// The most values one completion answers.
pub const MAX_VALUES: usize = 20;

/// The longest a completion waits for GitLab.
pub const TIME_LIMIT: Duration = Duration::from_secs(2);

/// Where an argument's values come from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Source {
    Projects,
    Branches,
    Tags,
    OpenMergeRequests,
    /// Free text: nothing to offer.
    Nothing,
}

/// The source of the argument being completed; an error when the request
/// names a prompt these tools cannot carry out, or no template of ours.
pub fn source(tools: &[ToolSpec], request: &CompleteRequestParams) -> Result<Source, ErrorData> {
    let argument = request.argument.name.as_str();
    match &request.r#ref {
        Reference::Prompt(prompt) => {
            let known = super::prompts::available(tools)
                .iter()
                .any(|p| p.name == prompt.name);
            if !known {
                return Err(ErrorData::invalid_params(
                    format!("no prompt `{}`", prompt.name),
                    None,
                ));
            }
            Ok(match argument {
                "project" => Source::Projects,
                "merge_request" => Source::OpenMergeRequests,
                "ref" => Source::Branches,
                "since" => Source::Tags,
                _ => Source::Nothing,
            })
        }
        Reference::Resource(template) => {
            let Some(name) = super::resources::template_name(&template.uri) else {
                return Err(ErrorData::invalid_params(
                    format!("no resource template `{}`", template.uri),
                    None,
                ));
            };
            Ok(match (name, argument) {
                (_, "project") => Source::Projects,
                (_, "ref") => Source::Branches,
                ("merge_request_diff", "iid") => Source::OpenMergeRequests,
                _ => Source::Nothing,
            })
        }
        _ => Err(ErrorData::invalid_params(
            "an unknown kind of reference",
            None,
        )),
    }
}

/// A read the completion makes: a tool and its arguments.
#[derive(Debug, PartialEq)]
pub struct Read {
    pub tool: &'static str,
    pub arguments: Map<String, Value>,
}

impl Source {
    /// The one read that answers `typed`; `None` when there is nothing to
    /// read (free text, or no project chosen yet).
    pub fn read(self, typed: &str, project: Option<&str>) -> Option<Read> {
        let typed = typed.trim();
        let per_page = MAX_VALUES;
        let (tool, action, mut params) = match self {
            Source::Nothing => return None,
            Source::Projects => (
                "gitlab_project",
                "list",
                json!({"membership": true, "simple": true, "order_by": "last_activity_at", "per_page": per_page}),
            ),
            Source::Branches => (
                "gitlab_repository",
                "branch_list",
                json!({"project_id": project?, "per_page": per_page}),
            ),
            Source::Tags => (
                "gitlab_repository",
                "tag_list",
                json!({"project_id": project?, "per_page": per_page}),
            ),
            Source::OpenMergeRequests => (
                "gitlab_merge_request",
                "list",
                json!({"project_id": project?, "state": "opened", "order_by": "updated_at", "per_page": per_page}),
            ),
        };
        if !typed.is_empty() {
            let search = match self {
                // GitLab anchors a ref search at the start with `^`.
                Source::Branches | Source::Tags => format!("^{typed}"),
                // An iid is filtered here; words search the titles.
                Source::OpenMergeRequests if typed.bytes().all(|b| b.is_ascii_digit()) => {
                    String::new()
                }
                _ => typed.to_string(),
            };
            if !search.is_empty() {
                params["search"] = Value::String(search);
            }
        }
        let mut arguments = Map::new();
        arguments.insert("action".into(), Value::String(action.into()));
        arguments.insert("params".into(), params);
        Some(Read { tool, arguments })
    }

    /// The values of GitLab's answer for `typed`.
    pub fn values(self, typed: &str, answer: &Value, pagination: &Pagination) -> CompletionInfo {
        let field = match self {
            Source::Projects => "path_with_namespace",
            Source::Branches | Source::Tags => "name",
            Source::OpenMergeRequests => "iid",
            Source::Nothing => return CompletionInfo::default(),
        };
        let typed = typed.trim();
        let numeric = !typed.is_empty() && typed.bytes().all(|b| b.is_ascii_digit());
        let mut values: Vec<String> = answer
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|item| match &item[field] {
                Value::String(text) => Some(text.clone()),
                Value::Number(n) => Some(n.to_string()),
                _ => None,
            })
            .filter(|v| self != Source::OpenMergeRequests || !numeric || v.starts_with(typed))
            .collect();
        values.truncate(MAX_VALUES);
        let has_more = pagination.next_page.is_some() || pagination.next_link.is_some();
        // GitLab's count holds for what it filtered, not for an iid prefix.
        let total = if self == Source::OpenMergeRequests && numeric {
            None
        } else {
            pagination.total.and_then(|t| u32::try_from(t).ok())
        };
        CompletionInfo::with_pagination(values, total, has_more)
            .expect("at most MAX_VALUES values, under MCP's 100")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn params(read: Option<Read>) -> Value {
        read.map(|r| r.arguments["params"].clone())
            .unwrap_or(Value::Null)
    }

    #[test]
    fn each_source_is_one_read_of_twenty() {
        assert_eq!(
            params(Source::Projects.read("web", None)),
            json!({"membership": true, "simple": true, "order_by": "last_activity_at", "per_page": 20, "search": "web"})
        );
        assert_eq!(
            params(Source::Branches.read("feat", Some("g/p"))),
            json!({"project_id": "g/p", "per_page": 20, "search": "^feat"})
        );
        assert_eq!(Source::Branches.read("feat", None), None, "no project yet");
        assert_eq!(
            params(Source::OpenMergeRequests.read("1", Some("g/p")))["search"],
            Value::Null,
            "an iid is filtered here"
        );
        assert_eq!(
            params(Source::OpenMergeRequests.read("login", Some("g/p")))["search"],
            "login"
        );
        assert_eq!(Source::Nothing.read("x", Some("g/p")), None);
    }

    #[test]
    fn values_are_bounded_and_say_when_there_are_more() {
        let items: Vec<Value> = (1..=30).map(|i| json!({"iid": i, "title": "t"})).collect();
        let more = Pagination {
            next_page: Some(2),
            total: Some(30),
            ..Pagination::default()
        };
        let all = Source::OpenMergeRequests.values("", &Value::Array(items.clone()), &more);
        assert_eq!(all.values.len(), MAX_VALUES);
        assert_eq!((all.total, all.has_more), (Some(30), Some(true)));
        let ones = Source::OpenMergeRequests.values("1", &Value::Array(items), &more);
        assert_eq!(
            ones.values,
            [
                "1", "10", "11", "12", "13", "14", "15", "16", "17", "18", "19"
            ]
        );
        assert_eq!(ones.total, None);
    }
}

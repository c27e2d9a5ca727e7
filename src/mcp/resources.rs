//! Resource templates a client can attach to a conversation: a file, a
//! merge request's diff, a job's log, an issue. A `gitlab://` URI names the
//! project (its path percent-encoded as one part, `group%2Fproject`, or
//! plain: the `/-/` that follows it, as in GitLab's web URLs, says where it
//! ends), then what to read. `resources/read` turns the URI into the tool
//! call that reads it and answers through the engine, so the policy, the
//! token's scopes, lockdown and the rendering (the file's window, the log's
//! tail) are those of the tool. `resources/list` is empty: what is worth
//! attaching depends on the project, which only the client knows.

use rmcp::ErrorData;
use rmcp::model::{ReadResourceResult, ResourceContents, ResourceTemplate};
use serde_json::{Map, Value, json};

use crate::catalog::ToolSpec;
use crate::encoding::percent_decode_path;
use crate::render::Output;

const SCHEME: &str = "gitlab://";

/// One template: its URI, its words, and the action that reads it.
struct Template {
    uri: &'static str,
    name: &'static str,
    title: &'static str,
    description: &'static str,
    tool: &'static str,
    action: &'static str,
}

/// The templates, each read by one action. `{+path}` keeps its slashes
/// (RFC 6570 reserved expansion); a `{ref}` with a slash is
/// percent-encoded, as simple expansion writes it.
const TEMPLATES: [Template; 4] = [
    Template {
        uri: "gitlab://{project}/-/blob/{ref}/{+path}",
        name: "file",
        title: "A repository file",
        description: "A file at a branch, tag or commit, from its start (gitlab_repository file_raw).",
        tool: "gitlab_repository",
        action: "file_raw",
    },
    Template {
        uri: "gitlab://{project}/-/merge_requests/{iid}/diff",
        name: "merge_request_diff",
        title: "A merge request's changes",
        description: "The changed files of a merge request with their diffs (gitlab_merge_request diffs).",
        tool: "gitlab_merge_request",
        action: "diffs",
    },
    Template {
        uri: "gitlab://{project}/-/jobs/{id}/log",
        name: "job_log",
        title: "A CI job's log",
        description: "The end of a job's log, where a failure is (gitlab_pipeline job_log).",
        tool: "gitlab_pipeline",
        action: "job_log",
    },
    Template {
        uri: "gitlab://{project}/-/issues/{iid}",
        name: "issue",
        title: "An issue",
        description: "An issue with its description (gitlab_issue get).",
        tool: "gitlab_issue",
        action: "get",
    },
];

/// The name of the template whose URI this is (`merge_request_diff`...),
/// for completion.
pub fn template_name(uri: &str) -> Option<&'static str> {
    TEMPLATES.iter().find(|t| t.uri == uri).map(|t| t.name)
}

/// The templates whose action these tools offer.
pub fn templates(tools: &[ToolSpec]) -> Vec<ResourceTemplate> {
    TEMPLATES
        .iter()
        .filter(|t| offered(tools, t.tool, t.action))
        .map(|t| {
            ResourceTemplate::new(t.uri, t.name)
                .with_title(t.title)
                .with_description(t.description)
                .with_mime_type("text/plain")
        })
        .collect()
}

fn offered(tools: &[ToolSpec], tool: &str, action: &str) -> bool {
    tools
        .iter()
        .any(|t| t.name == tool && t.action(action).is_some())
}

/// The tool call a resource URI stands for.
#[derive(Debug, PartialEq)]
pub struct ResourceCall {
    pub tool: &'static str,
    pub arguments: Map<String, Value>,
}

/// The call that reads `uri`; a URI no template matches is MCP's
/// "resource not found" (-32002, which rmcp sends as -32602 on 2026-07-28
/// sessions), with the URI in `data`.
pub fn call(uri: &str) -> Result<ResourceCall, ErrorData> {
    parse(uri).ok_or_else(|| {
        ErrorData::resource_not_found(
            format!(
                "no resource `{uri}`: resources are {}",
                TEMPLATES.map(|t| t.uri).join(", ")
            ),
            Some(json!({ "uri": uri })),
        )
    })
}

fn parse(uri: &str) -> Option<ResourceCall> {
    let rest = uri.strip_prefix(SCHEME)?;
    let (project, rest) = rest.split_once("/-/")?;
    let project = percent_decode_path(project);
    if project.is_empty() {
        return None;
    }
    let parts: Vec<&str> = rest.split('/').collect();
    let number = |text: &str| text.parse::<u64>().ok().filter(|n| *n > 0);
    let (template, params) = match parts.as_slice() {
        ["blob", reference, path @ ..] if !reference.is_empty() && !path.is_empty() => {
            let path = percent_decode_path(&path.join("/"));
            if path.is_empty() {
                return None;
            }
            (
                &TEMPLATES[0],
                json!({"ref": percent_decode_path(reference), "file_path": path}),
            )
        }
        ["merge_requests", iid, "diff"] => {
            (&TEMPLATES[1], json!({"merge_request_iid": number(iid)?}))
        }
        ["jobs", id, "log"] => (&TEMPLATES[2], json!({"job_id": number(id)?})),
        ["issues", iid] => (&TEMPLATES[3], json!({"issue_iid": number(iid)?})),
        _ => return None,
    };
    let Value::Object(mut params) = params else {
        unreachable!("json! of an object literal is an object")
    };
    params.insert("project_id".into(), Value::String(project));
    let mut arguments = Map::new();
    arguments.insert("action".into(), Value::String(template.action.into()));
    arguments.insert("params".into(), Value::Object(params));
    Some(ResourceCall {
        tool: template.tool,
        arguments,
    })
}

/// The read's answer: the text the tool call rendered; a call that failed
/// (GitLab's 404, a refused scope) is an error naming the URI.
pub fn contents(uri: &str, output: Output) -> Result<ReadResourceResult, ErrorData> {
    if output.is_error {
        return Err(ErrorData::invalid_params(
            output.text,
            Some(json!({ "uri": uri })),
        ));
    }
    Ok(ReadResourceResult::new(vec![ResourceContents::text(
        output.text,
        uri,
    )]))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(uri: &str) -> Option<(String, Value)> {
        parse(uri).map(|c| (c.tool.to_string(), Value::Object(c.arguments)))
    }

    #[test]
    fn each_template_is_one_tool_call() {
        assert_eq!(
            read("gitlab://group%2Fproject/-/blob/feature%2Fx/src/a%20b.rs"),
            Some((
                "gitlab_repository".into(),
                json!({"action": "file_raw", "params": {"ref": "feature/x", "file_path": "src/a b.rs", "project_id": "group/project"}})
            ))
        );
        // The plain path: `/-/` says where the project ends.
        assert_eq!(
            read("gitlab://acme/platform/api/-/merge_requests/3/diff"),
            Some((
                "gitlab_merge_request".into(),
                json!({"action": "diffs", "params": {"merge_request_iid": 3, "project_id": "acme/platform/api"}})
            ))
        );
        assert_eq!(
            read("gitlab://1/-/jobs/77/log"),
            Some((
                "gitlab_pipeline".into(),
                json!({"action": "job_log", "params": {"job_id": 77, "project_id": "1"}})
            ))
        );
        assert_eq!(
            read("gitlab://g%2Fp/-/issues/4"),
            Some((
                "gitlab_issue".into(),
                json!({"action": "get", "params": {"issue_iid": 4, "project_id": "g/p"}})
            ))
        );
        assert_eq!(
            read("gitlab://g/p/-/blob/main/c++/x.h").unwrap().1["params"]["file_path"],
            "c++/x.h"
        );
    }

    #[test]
    fn a_uri_no_template_matches_is_not_found() {
        for uri in [
            "test://static-text",
            "gitlab://g/p/issues/4",
            "gitlab:///-/issues/4",
            "gitlab://g/p/-/issues/four",
            "gitlab://g/p/-/issues/0",
            "gitlab://g/p/-/issues/4/notes",
            "gitlab://g/p/-/blob/main",
            "gitlab://g/p/-/blob/main/",
            "gitlab://g/p/-/jobs/9/trace",
        ] {
            assert_eq!(read(uri), None, "{uri}");
        }
        let error = call("test://static-text").unwrap_err();
        assert_eq!(error.code, rmcp::model::ErrorCode::RESOURCE_NOT_FOUND);
        assert_eq!(error.data, Some(json!({"uri": "test://static-text"})));
    }
}

//! Which pipeline a triage reads: the one named by `pipeline_id` (its GET,
//! https://docs.gitlab.com/api/pipelines/#get-a-single-pipeline), a merge
//! request's head pipeline (the merge request's GET carries it whole as
//! `head_pipeline`, https://docs.gitlab.com/api/merge_requests/#get-single-mr),
//! or a ref's latest (https://docs.gitlab.com/api/pipelines/#get-the-latest-pipeline).
//! One request in each case.

use serde_json::Value;

use super::super::Gitlab;
use crate::dispatch::ValidatedCall;
use crate::encoding::{percent_encode_into, scalar_text};
use crate::gitlab::HttpRequest;
use crate::render::Output;

/// What the answer says of a pipeline, and where its jobs are read.
#[derive(Debug, Clone, PartialEq)]
pub struct Pipeline {
    pub id: u64,
    /// `/projects/<id>`: the pipeline's own project (a merge request's
    /// head pipeline can be a fork's, a downstream one another project's).
    pub project: String,
    pub status: String,
    pub git_ref: String,
    pub sha: String,
    pub web_url: String,
}

impl Pipeline {
    /// GitLab's pipeline object (full or `PipelineBasic`); `project` when
    /// it names none.
    pub fn from_json(value: &Value, project: &str) -> Option<Pipeline> {
        let text = |key: &str| {
            value
                .get(key)
                .and_then(Value::as_str)
                .unwrap_or("")
                .to_string()
        };
        Some(Pipeline {
            id: value.get("id")?.as_u64()?,
            project: value
                .get("project_id")
                .and_then(Value::as_u64)
                .map_or_else(|| project.to_string(), |id| format!("/projects/{id}")),
            status: text("status"),
            git_ref: text("ref"),
            sha: text("sha"),
            web_url: text("web_url"),
        })
    }

    /// `/projects/<id>/pipelines/<id>`.
    pub fn path(&self) -> String {
        format!("{}/pipelines/{}", self.project, self.id)
    }
}

/// The pipeline the call names, or the answer that says why there is none.
pub async fn resolve(
    call: &ValidatedCall,
    project: &str,
    gitlab: &Gitlab<'_>,
) -> Result<Pipeline, Output> {
    let number = |name: &str| call.arg(name).and_then(Value::as_u64);
    let (request, from_merge_request) = if let Some(id) = number("pipeline_id") {
        (HttpRequest::get(format!("{project}/pipelines/{id}")), false)
    } else if let Some(iid) = number("merge_request_iid") {
        (
            HttpRequest::get(format!("{project}/merge_requests/{iid}")),
            true,
        )
    } else {
        let mut query = String::from("ref=");
        percent_encode_into(
            &mut query,
            &call.arg("ref").map(scalar_text).unwrap_or_default(),
        );
        (
            HttpRequest::get(format!("{project}/pipelines/latest")).with_query(query),
            false,
        )
    };
    let response = gitlab
        .send(&request)
        .await
        .map_err(|failed| gitlab.failure(call, &failed))?;
    let value: Value = serde_json::from_slice(&response.body).unwrap_or(Value::Null);
    let value = if from_merge_request {
        match value.get("head_pipeline").filter(|p| !p.is_null()) {
            Some(head) => head.clone(),
            None => {
                return Err(Output::ok(format!(
                    "Merge request !{} has no pipeline yet: nothing to triage.",
                    number("merge_request_iid").unwrap_or_default()
                )));
            }
        }
    } else {
        value
    };
    Pipeline::from_json(&value, project).ok_or_else(|| {
        Output::error(format!(
            "{} {}: GitLab's answer holds no pipeline.",
            call.tool.name, call.action.name
        ))
    })
}

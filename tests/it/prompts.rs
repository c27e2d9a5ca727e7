//! MCP prompts: listed with typed arguments, rendered with them, refused
//! without a required one, and hidden when the policy removed their tools.

use crate::common;

use common::{Harness, Lifecycle};
use rmcp::model::GetPromptRequestParams;
use serde_json::{Map, Value, json};

fn args(value: Value) -> Map<String, Value> {
    let Value::Object(map) = value else {
        unreachable!()
    };
    map
}

#[tokio::test]
async fn prompts_are_listed_and_rendered_with_their_arguments() {
    for lifecycle in common::BOTH {
        let h = Harness::start(lifecycle).await;
        let prompts = h.client.list_all_prompts().await.unwrap();
        let names: Vec<&str> = prompts.iter().map(|p| p.name.as_str()).collect();
        assert_eq!(
            names,
            [
                "review_merge_request",
                "explain_pipeline_failure",
                "triage_issues",
                "release_notes"
            ]
        );
        let review = &prompts[0];
        let arguments = review.arguments.as_ref().unwrap();
        assert_eq!(arguments[0].name, "project");
        assert_eq!(arguments[0].required, Some(true));
        assert_eq!(arguments[2].required, Some(false));

        let got = h
            .client
            .get_prompt(
                GetPromptRequestParams::new("review_merge_request")
                    .with_arguments(args(json!({"project": "acme/api", "merge_request": "12"}))),
            )
            .await
            .unwrap();
        let text = format!("{:?}", got.messages[0].content);
        assert!(
            text.contains("Review merge request !12 of project acme/api"),
            "{text}"
        );
        assert!(
            text.contains("merge_request_iid 12") && !text.contains("Pay special attention"),
            "{text}"
        );
        let got = h
            .client
            .get_prompt(
                GetPromptRequestParams::new("review_merge_request").with_arguments(args(
                    json!({"project": "acme/api", "merge_request": 12, "focus": "security"}),
                )),
            )
            .await
            .unwrap();
        assert!(
            format!("{:?}", got.messages[0].content)
                .contains("Pay special attention to: security.")
        );
        let got = h
            .client
            .get_prompt(
                GetPromptRequestParams::new("triage_issues").with_arguments(args(
                    json!({"project": "acme/api", "label": "needs-triage"}),
                )),
            )
            .await
            .unwrap();
        assert!(
            format!("{:?}", got.messages[0].content)
                .contains("with state \\\"opened\\\", labels \\\"needs-triage\\\", newest first")
        );

        let missing = h
            .client
            .get_prompt(
                GetPromptRequestParams::new("review_merge_request")
                    .with_arguments(args(json!({"project": "acme/api"}))),
            )
            .await;
        assert!(
            format!("{missing:?}").contains("argument `merge_request` is required"),
            "{missing:?}"
        );
        h.stop().await;
    }
}

#[tokio::test]
async fn a_prompt_whose_tools_are_disabled_is_not_listed() {
    let h = Harness::start_with(Lifecycle::Initialize, &[("GITLAB_MCP_TOOLS", "planning")]).await;
    let names: Vec<String> = h
        .client
        .list_all_prompts()
        .await
        .unwrap()
        .into_iter()
        .map(|p| p.name)
        .collect();
    assert_eq!(names, ["triage_issues"]);
    h.stop().await;
}

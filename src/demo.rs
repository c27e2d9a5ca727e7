//! `gitlab-mcp demo`: a short guided tour against the sandbox, printed as
//! it happens, so a person sees in seconds what an agent gets: the size of
//! the tool list, a few real calls, and a mistake with the reply that
//! teaches it. Each call goes through the same engine an MCP client uses.

use serde_json::{Value, json};

use crate::engine::{CallContext, Engine, Outcome};
use crate::mcp::tools::tool_list_json;
use crate::sandbox::PROJECT;
use crate::tokens;

/// Lines shown of most answers; the rest is counted.
const SHOWN_LINES: usize = 14;

struct Step {
    title: &'static str,
    tool: &'static str,
    call: Value,
    /// Lines shown of its answer; the rest is counted.
    shown: usize,
}

fn steps() -> Vec<Step> {
    vec![
        Step {
            title: "An agent lists the open issues",
            tool: "gitlab_issue",
            call: json!({"action": "list", "params": {"project_id": PROJECT, "state": "opened", "per_page": 4}}),
            shown: SHOWN_LINES,
        },
        Step {
            title: "It reads a merge request's diff, one file",
            tool: "gitlab_merge_request",
            call: json!({"action": "diffs", "params": {"project_id": PROJECT, "merge_request_iid": 3}, "file": "src/checkout.ts"}),
            shown: SHOWN_LINES,
        },
        Step {
            title: "It asks why the release branch's pipeline failed: the failing test sits mid-log, where the log's tail does not show it",
            tool: "gitlab_pipeline",
            call: json!({"action": "triage", "params": {"project_id": PROJECT, "ref": "release/1.3"}}),
            shown: 48,
        },
        Step {
            title: "It makes a mistake, wrong parameter names: nothing reaches GitLab, the reply teaches",
            tool: "gitlab_issue",
            call: json!({"action": "get", "params": {"project": PROJECT, "iid": 2}}),
            shown: SHOWN_LINES,
        },
        Step {
            title: "It corrects the call from the reply alone",
            tool: "gitlab_issue",
            call: json!({"action": "get", "params": {"project_id": PROJECT, "issue_iid": 2}, "fields": ["iid", "title", "state", "labels", "assignees"]}),
            shown: SHOWN_LINES,
        },
    ]
}

/// Run the tour, giving each line to `out` as soon as it is known.
pub async fn tour(engine: &Engine, out: &mut dyn FnMut(&str)) -> Result<(), String> {
    let list = tool_list_json(engine.tools());
    let actions: usize = engine.tools().iter().map(|t| t.actions.len()).sum();
    let tokens = tokens::cl100k(&list)
        .map(|t| format!(", {t} tokens"))
        .unwrap_or_default();
    out(&format!(
        "gitlab-mcp demo, against the built-in sandbox (a stand-in GitLab: no account, token or network).\n\
         An agent is handed {} tools covering {actions} actions; the whole tool list is {} bytes{tokens}.\n",
        engine.tools().len(),
        list.len()
    ));
    for (i, step) in steps().into_iter().enumerate() {
        out(&format!(
            "{}. {}\n   {} {}",
            i + 1,
            step.title,
            step.tool,
            step.call
        ));
        let Value::Object(arguments) = step.call else {
            unreachable!("steps are objects")
        };
        let target = engine.default_target().clone();
        let output = match engine
            .call(step.tool, arguments, CallContext::plain(&target))
            .await
        {
            Ok(Outcome::Done(output)) => output,
            Ok(Outcome::NeedsConfirmation { refusal, .. }) => crate::render::Output::error(refusal),
            Err(unknown) => return Err(unknown.to_string()),
        };
        out(&format!(
            "   → {} ({} bytes)",
            if output.is_error {
                "error result"
            } else {
                "answer"
            },
            output.text.len()
        ));
        let lines: Vec<&str> = output.text.lines().collect();
        for line in lines.iter().take(step.shown) {
            out(&format!("   │ {}", shorten(line, 160)));
        }
        if lines.len() > step.shown {
            out(&format!("   │ … {} more lines", lines.len() - step.shown));
        }
        out("");
    }
    out(
        "Next: `gitlab-mcp serve --sandbox` gives an MCP client this sandbox; see README.md to connect a real GitLab.",
    );
    Ok(())
}

fn shorten(line: &str, max: usize) -> String {
    if line.chars().count() <= max {
        return line.to_string();
    }
    let cut: String = line.chars().take(max).collect();
    format!("{cut}…")
}

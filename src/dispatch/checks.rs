//! Rules across parameters that the catalog cannot state, named by an
//! action's `check`. Each returns every problem it finds.

use serde_json::Value;

use super::Arg;
use super::error::ParamProblem;
use crate::catalog::Check;

pub fn run(check: Check, args: &[Arg]) -> Vec<ParamProblem> {
    match check {
        Check::CommitActions => commit_actions(args),
    }
}

/// What each file action of a multi-file commit needs, as GitLab's commits
/// API documents it: `content` for create and update, `previous_path` for
/// move, `execute_filemode` for chmod; delete needs only `file_path`.
fn commit_actions(args: &[Arg]) -> Vec<ParamProblem> {
    let Some(Value::Array(actions)) = args
        .iter()
        .find(|a| a.spec.name == "actions")
        .map(|a| &a.value)
    else {
        return Vec::new();
    };
    let mut problems = Vec::new();
    if actions.is_empty() {
        problems.push(ParamProblem::Item {
            param: "actions",
            message: "`actions` is empty: give at least one file action".into(),
        });
    }
    for (index, item) in actions.iter().enumerate() {
        let kind = item
            .get("action")
            .and_then(Value::as_str)
            .unwrap_or_default();
        let needs: &[&str] = match kind {
            "create" | "update" => &["content"],
            "move" => &["previous_path"],
            "chmod" => &["execute_filemode"],
            _ => &[],
        };
        for field in needs {
            if item.get(*field).is_none() {
                problems.push(ParamProblem::Item {
                    param: "actions",
                    message: format!(
                        "`actions[{index}].{field}` is missing: a `{kind}` action needs it"
                    ),
                });
            }
        }
    }
    problems
}

//! A multi-file commit's `actions`: what each file action needs, as
//! GitLab's commits API documents it (https://docs.gitlab.com/api/commits/#create-a-commit-with-multiple-files-and-actions):
//! `content` for create and update, `previous_path` for move,
//! `execute_filemode` for chmod; delete needs only `file_path`.

use serde_json::Value;

use crate::dispatch::Arg;
use crate::dispatch::error::{ItemProblem, ParamProblem};

/// Every file action missing what its kind needs.
pub fn problems(args: &[Arg]) -> Vec<ParamProblem> {
    let Some(Value::Array(actions)) = args
        .iter()
        .find(|a| a.spec.name == "actions")
        .map(|a| &a.value)
    else {
        return Vec::new();
    };
    let mut problems = Vec::new();
    if actions.is_empty() {
        problems.push(ParamProblem::Empty {
            name: "actions",
            element: "file action",
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
                    index,
                    field: Some((*field).to_string()),
                    problem: ItemProblem::NeededFor {
                        kind: kind.to_string(),
                    },
                });
            }
        }
    }
    problems
}

//! A whole review (`gitlab_merge_request review`): each of its `comments`
//! names its lines as `line_comment` does (the same rule, `sides`, named
//! with the comment's index: `comments[2]`), an approval names the head
//! commit the reviewer read (`sha`: GitLab's approve refuses a stale one
//! with a 409, lib/api/merge_request_approvals.rb), and the review posts
//! something. Whether the lines are in the diff, and whether `sha` is
//! still the head, are the handler's questions: they need GitLab's reads.

use serde_json::Value;

use super::line_comment::sides;
use crate::dispatch::Arg;
use crate::dispatch::error::{ItemProblem, ParamProblem};

/// Every comment's line problems, an approval without `sha`, and a review
/// with nothing in it.
pub fn problems(args: &[Arg]) -> Vec<ParamProblem> {
    let arg = |name: &str| args.iter().find(|a| a.spec.name == name).map(|a| &a.value);
    let comments: &[Value] = arg("comments")
        .and_then(Value::as_array)
        .map_or(&[], Vec::as_slice);
    let approve = arg("approve").and_then(Value::as_bool) == Some(true);
    let mut problems = Vec::new();
    for (index, comment) in comments.iter().enumerate() {
        for rule in sides(|name| comment.get(name)) {
            problems.push(ParamProblem::Item {
                param: "comments",
                index,
                field: None,
                problem: ItemProblem::Rule(Box::new(rule)),
            });
        }
    }
    if approve && arg("sha").is_none() {
        problems.push(ParamProblem::NeededFor {
            name: "sha",
            reason: "`approve` needs the head commit you reviewed (`sha` of action `get`)",
        });
    }
    if comments.is_empty() && arg("body").is_none() && !approve {
        problems.push(ParamProblem::Empty {
            name: "comments",
            element: "comment (or a `body`, or `approve`)",
        });
    }
    problems
}

//! A diff-line comment names one side of the diff: exactly one of `line`
//! (the new version) and `old_line` (the old version), as GitLab's
//! position takes `new_line` for an added line and `old_line` for a
//! removed one (https://docs.gitlab.com/api/discussions/#create-a-new-thread-in-the-merge-request-diff);
//! `end_line`, the last line of a range on the same side, is not before
//! its start. The catalog says one of the two is needed (`one_of`) and
//! that line numbers start at 1 (`minimum`); this check says not both.
//! Whether the lines are in the diff is the handler's question.
//!
//! `sides` is the same rule for any comment, read through a lookup: the
//! `review` check applies it to each of its `comments`.

use serde_json::Value;

use crate::dispatch::Arg;
use crate::dispatch::error::ParamProblem;

/// Both sides given, or a range that ends before it starts.
pub fn problems(args: &[Arg]) -> Vec<ParamProblem> {
    sides(|name| args.iter().find(|a| a.spec.name == name).map(|a| &a.value))
}

/// The rule on one comment's `line`, `old_line` and `end_line`, whose
/// values `get` finds: neither side, both sides, or a range that ends
/// before it starts.
pub(super) fn sides<'v>(get: impl Fn(&str) -> Option<&'v Value>) -> Vec<ParamProblem> {
    let given = |name: &str| get(name).is_some_and(|v| !v.is_null());
    let number = |name: &str| get(name).and_then(Value::as_i64);
    let mut problems = Vec::new();
    match (given("line"), given("old_line")) {
        (true, true) => problems.push(ParamProblem::BothGiven {
            names: ["line", "old_line"],
        }),
        (false, false) => problems.push(ParamProblem::OneOf {
            names: &["line", "old_line"],
        }),
        (true, false) | (false, true) => {
            let (start_name, start) = match number("line") {
                Some(n) => ("line", n),
                None => ("old_line", number("old_line").unwrap_or(0)),
            };
            if let Some(end) = number("end_line").filter(|end| *end < start) {
                problems.push(ParamProblem::EndsBeforeStart {
                    name: "end_line",
                    end,
                    start_name,
                    start,
                });
            }
        }
    }
    problems
}

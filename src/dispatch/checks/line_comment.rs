//! A diff-line comment names one side of the diff: exactly one of `line`
//! (the new version) and `old_line` (the old version), as GitLab's
//! position takes `new_line` for an added line and `old_line` for a
//! removed one (https://docs.gitlab.com/api/discussions/#create-a-new-thread-in-the-merge-request-diff);
//! `end_line`, the last line of a range on the same side, is not before
//! its start. The catalog says one of the two is needed (`one_of`) and
//! that line numbers start at 1 (`minimum`); this check says not both.
//! Whether the lines are in the diff is the handler's question.

use crate::dispatch::Arg;
use crate::dispatch::error::ParamProblem;

/// Both sides given, or a range that ends before it starts.
pub fn problems(args: &[Arg]) -> Vec<ParamProblem> {
    let number = |name: &str| {
        args.iter()
            .find(|a| a.spec.name == name)
            .and_then(|a| a.value.as_i64())
    };
    let given = |name: &str| {
        args.iter()
            .any(|a| a.spec.name == name && !a.value.is_null())
    };
    let mut problems = Vec::new();
    let (line, old_line, end_line) = (number("line"), number("old_line"), number("end_line"));
    if given("line") && given("old_line") {
        problems.push(ParamProblem::BothGiven {
            names: ["line", "old_line"],
        });
    } else {
        let (start_name, start) = match line {
            Some(n) => ("line", n),
            None => ("old_line", old_line.unwrap_or(0)),
        };
        if let Some(end) = end_line.filter(|end| *end < start) {
            problems.push(ParamProblem::EndsBeforeStart {
                name: "end_line",
                end,
                start_name,
                start,
            });
        }
    }
    problems
}

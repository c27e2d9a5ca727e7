//! Rules across parameters that the catalog cannot state. An action names
//! one with `check = "<name>"`; its home is the file `<name>.rs` here. The
//! build turns those names into the enum `catalog::Check`, and `problems`
//! matches on it exhaustively, with no wildcard: a name without an arm
//! does not compile (the build also refuses a name without a file).

mod commit_actions;
mod line_comment;
mod one_namespace;
mod one_pipeline;
mod review;

use super::Arg;
use super::error::ParamProblem;
use crate::catalog::Check;

/// Every problem these (individually valid) arguments have together.
pub fn problems(check: Check, args: &[Arg]) -> Vec<ParamProblem> {
    match check {
        Check::CommitActions => commit_actions::problems(args),
        Check::LineComment => line_comment::problems(args),
        Check::OnePipeline => one_pipeline::problems(args),
        Check::Review => review::problems(args),
        Check::OneNamespace => one_namespace::problems(args),
    }
}

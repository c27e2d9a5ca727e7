//! A work item lives in a project or in a group: the action takes one
//! namespace, its project parameter or its group parameter (by their
//! roles), not both. The catalog says at least one (`one_of`).

use crate::catalog::Role;
use crate::dispatch::Arg;
use crate::dispatch::error::ParamProblem;

/// Both a project and a group given.
pub fn problems(args: &[Arg]) -> Vec<ParamProblem> {
    let given: Vec<&'static str> = args
        .iter()
        .filter(|a| matches!(a.spec.role, Some(Role::Project | Role::Group)))
        .map(|a| a.spec.name)
        .collect();
    match given[..] {
        [a, b, ..] => vec![ParamProblem::BothGiven { names: [a, b] }],
        _ => Vec::new(),
    }
}

//! Deprecated parameters: GitLab still accepts them, so the catalog accepts
//! them too, and the answer names the current parameter.
//!
//! The value is sent under the name it was given: every GitLab that
//! deprecated a parameter still honours it, while its replacement may not
//! exist yet on an older self-managed instance.

use crate::catalog::ActionSpec;

use super::{Arg, ParamProblem};

/// One deprecated parameter a call used.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Deprecated {
    pub name: &'static str,
    pub replaced_by: Option<&'static str>,
}

impl std::fmt::Display for Deprecated {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.replaced_by {
            Some(current) => write!(f, "`{}` is deprecated: use `{current}`", self.name),
            None => write!(
                f,
                "`{}` is deprecated: GitLab may stop accepting it",
                self.name
            ),
        }
    }
}

/// Every deprecated parameter a call used; giving one with its replacement
/// is a problem, since GitLab would pick one of the two silently.
pub fn used(
    action: &'static ActionSpec,
    args: &[Arg],
) -> Result<Vec<Deprecated>, Vec<ParamProblem>> {
    let given = |name: &str| args.iter().any(|a| a.spec.name == name);
    let mut used = Vec::new();
    let mut problems = Vec::new();
    for spec in args.iter().map(|a| a.spec).filter(|s| s.deprecated) {
        match spec.replaced_by.filter(|current| given(current)) {
            Some(current) => problems.push(ParamProblem::BothGiven {
                names: [spec.name, current],
            }),
            None => used.push(Deprecated {
                name: spec.name,
                replaced_by: spec.replaced_by.filter(|c| action.param(c).is_some()),
            }),
        }
    }
    if problems.is_empty() {
        Ok(used)
    } else {
        Err(problems)
    }
}

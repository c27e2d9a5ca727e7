//! Rules across parameters that the catalog cannot state. An action names
//! one with `check = "<name>"`; its home is the file `<name>.rs` here
//! (build.rs refuses a name without a file), registered below.

mod commit_actions;
mod line_comment;

use super::Arg;
use super::error::ParamProblem;

/// A rule across an action's parameters.
pub trait Check: Sync {
    /// Every problem these (individually valid) arguments have together.
    fn problems(&self, args: &[Arg]) -> Vec<ParamProblem>;
}

static REGISTRY: &[(&str, &dyn Check)] = &[
    ("commit_actions", &commit_actions::CommitActions),
    ("line_comment", &line_comment::LineComment),
];

/// The check of that name. The catalog names only checks that exist
/// (build.rs), and every file here is registered (a test below).
pub fn find(name: &str) -> &'static dyn Check {
    REGISTRY
        .iter()
        .find(|(n, _)| *n == name)
        .map(|(_, check)| *check)
        .unwrap_or_else(|| panic!("check `{name}` is not registered in dispatch/checks/mod.rs"))
}

#[cfg(test)]
mod tests {
    #[test]
    fn every_check_the_catalog_names_is_registered() {
        for tool in crate::catalog::tools() {
            for action in tool.actions {
                if let Some(name) = action.check {
                    assert!(
                        super::REGISTRY.iter().any(|(n, _)| *n == name),
                        "{}.{}: check `{name}`",
                        tool.name,
                        action.name
                    );
                }
            }
        }
    }
}

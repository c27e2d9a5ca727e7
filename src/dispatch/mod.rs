//! From a tool's raw arguments to a validated call, or to an error that
//! teaches the agent how to fix its call.
//!
//! Pure: no I/O, no clock, no global state beyond the static catalog, so it
//! is tested by tables and benchmarked in isolation. The two stages mirror
//! the input: first the envelope (`action`, `params`), then the action's
//! parameters, each checked against the catalog. Every problem is collected
//! before answering.

mod checks;
mod envelope;
mod error;
pub mod help;
mod params;
pub mod suggest;
pub mod view;

use serde_json::{Map, Value};

use crate::catalog::{ActionSpec, ParamSpec, ToolSpec};

pub use envelope::{ENVELOPE_KEYS, Envelope};
pub use error::{DecodeError, EnvelopeProblem, ItemProblem, ParamProblem};
pub use view::{LineRange, View, ViewProblem};

/// A call that passed every check and can be turned into a request.
#[derive(Debug)]
pub struct ValidatedCall {
    pub tool: &'static ToolSpec,
    pub action: &'static ActionSpec,
    /// The given parameters, in the action's declared order, with the
    /// unambiguous coercions applied (`"42"` → `42`, `"a,b"` → `["a","b"]`).
    pub args: Vec<Arg>,
    /// How to show the answer.
    pub view: View,
    /// What the caller said about safety: `confirm`, `quick_actions`.
    pub intent: Intent,
}

/// The envelope's safety keys, judged by the server's policy.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Intent {
    pub confirm: bool,
    pub quick_actions: bool,
}

#[derive(Debug)]
pub struct Arg {
    pub spec: &'static ParamSpec,
    pub value: Value,
}

impl ValidatedCall {
    pub fn arg(&self, name: &str) -> Option<&Value> {
        self.args
            .iter()
            .find(|a| a.spec.name == name)
            .map(|a| &a.value)
    }
}

/// Decode and validate one call of `tool`. `all` is the whole tool set, used
/// to say which other tool has an action this one lacks.
pub fn decode(
    tool: &'static ToolSpec,
    all: &'static [ToolSpec],
    arguments: Map<String, Value>,
) -> Result<ValidatedCall, DecodeError> {
    let mut envelope = envelope::decode(tool, arguments)?;
    let action = match tool.action(&envelope.action) {
        Some(action) => action,
        None => {
            let elsewhere = suggest::action_elsewhere(&envelope.action, tool, all);
            // When the guess names another tool's action, a merely similar
            // name here would mislead: keep only a structural match.
            let closest = if elsewhere.is_empty() {
                suggest::closest_actions(&envelope.action, tool)
            } else {
                suggest::match_action(&envelope.action, tool)
                    .into_iter()
                    .collect()
            };
            return Err(DecodeError::UnknownAction {
                tool,
                closest,
                elsewhere,
                given: envelope.action,
            });
        }
    };
    let view = take_view(tool, action, &mut envelope)?;
    let args =
        params::validate(action, envelope.params).map_err(|problems| DecodeError::Params {
            tool,
            action,
            problems,
        })?;
    if let Some(check) = action.check {
        let problems = checks::find(check).problems(&args);
        if !problems.is_empty() {
            return Err(DecodeError::Params {
                tool,
                action,
                problems,
            });
        }
    }
    Ok(ValidatedCall {
        tool,
        action,
        args,
        view,
        intent: Intent {
            confirm: envelope.confirm,
            quick_actions: envelope.quick_actions,
        },
    })
}

/// The envelope's view keys, checked against what the action answers.
fn take_view(
    tool: &'static ToolSpec,
    action: &'static ActionSpec,
    envelope: &mut Envelope,
) -> Result<View, DecodeError> {
    let mut problems = Vec::new();
    let lines = match envelope.lines.take().map(|l| LineRange::parse(&l)) {
        Some(Ok(range)) => Some(range),
        Some(Err(problem)) => {
            problems.push(EnvelopeProblem::View(problem));
            None
        }
        None => None,
    };
    let max_items = match envelope.max_items {
        Some(n) if (1..=view::MAX_ITEMS as i64).contains(&n) => Some(n as usize),
        Some(given) => {
            problems.push(EnvelopeProblem::View(ViewProblem::MaxItemsRange { given }));
            None
        }
        None => None,
    };
    let view = View {
        fields: envelope.fields.take(),
        raw: envelope.raw,
        lines,
        file: envelope.file.take(),
        max_items,
    };
    problems.extend(
        view::check(&view, action)
            .into_iter()
            .map(EnvelopeProblem::View),
    );
    if problems.is_empty() {
        Ok(view)
    } else {
        Err(DecodeError::Envelope {
            tool,
            action: Some(action),
            problems,
        })
    }
}

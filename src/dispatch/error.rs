//! Decoding errors as values, rendered once into the text an agent reads.
//!
//! Every problem stays typed until `Display`: what is wrong, with which
//! parameter, field and index. A rendered error is short and complete:
//! every problem on its own line, then the action's parameters (or the
//! tool's actions), so the next call can succeed without another round trip.

use std::fmt::{self, Write as _};

use super::graphql_read::GraphqlProblem;
use super::help;
use super::view::ViewProblem;
use super::web_url::UrlProblem;
use crate::catalog::{ActionSpec, ToolSpec};

#[derive(Debug, thiserror::Error)]
pub enum DecodeError {
    #[error("{}", render_envelope(tool, *action, problems))]
    Envelope {
        tool: &'static ToolSpec,
        action: Option<&'static ActionSpec>,
        problems: Vec<EnvelopeProblem>,
    },
    #[error("{}", render_unknown_action(tool, given, closest, elsewhere, *meant))]
    UnknownAction {
        tool: &'static ToolSpec,
        given: String,
        closest: Vec<&'static str>,
        elsewhere: Vec<(&'static str, &'static str)>,
        /// The action the guess stands for, when it is more than a
        /// similar spelling: its parameters are in the reply.
        meant: Option<&'static ActionSpec>,
    },
    #[error("{}", render_params(tool, action, problems))]
    Params {
        tool: &'static ToolSpec,
        action: &'static ActionSpec,
        problems: Vec<ParamProblem>,
    },
}

#[derive(Debug, Clone, PartialEq)]
pub enum EnvelopeProblem {
    MissingAction,
    MisspelledAction {
        key: String,
    },
    MisspelledParams {
        key: String,
    },
    ParamOutsideParams {
        key: String,
        param: &'static str,
    },
    UnknownKey {
        key: String,
    },
    /// serde's own words for a value of the wrong shape, at `path`.
    Malformed {
        path: String,
        message: String,
    },
    /// A view key that does not fit this action.
    View(ViewProblem),
}

#[derive(Debug, Clone, PartialEq)]
pub enum ParamProblem {
    Unknown {
        key: String,
        suggestion: Option<&'static str>,
    },
    Missing {
        name: &'static str,
    },
    WrongType {
        name: &'static str,
        expected: String,
        got: String,
    },
    NotAllowed {
        name: &'static str,
        value: String,
        allowed: &'static [&'static str],
        closest: Option<&'static str>,
    },
    BadPathValue {
        name: &'static str,
        value: String,
        reason: &'static str,
    },
    /// A string that is not in the form GitLab reads (`date`, `date-time`).
    Format {
        name: &'static str,
        value: String,
        expected: &'static str,
    },
    /// A number outside GitLab's bounds.
    OutOfRange {
        name: &'static str,
        value: i64,
        minimum: Option<i64>,
        maximum: Option<i64>,
    },
    /// None of several parameters of which one is needed.
    OneOf {
        names: &'static [&'static str],
    },
    /// A view key or `confirm` put inside `params`.
    BesideAction {
        key: String,
    },
    /// A web URL or reference that cannot stand for this call's parameters.
    Url(UrlProblem),
    /// A list that needs at least one `element`.
    Empty {
        name: &'static str,
        element: &'static str,
    },
    /// Two parameters of which at most one may be given.
    BothGiven {
        names: [&'static str; 2],
    },
    /// A parameter another one needs, missing: `reason` says which, and why.
    NeededFor {
        name: &'static str,
        reason: &'static str,
    },
    /// The end of a range before its start.
    EndsBeforeStart {
        name: &'static str,
        end: i64,
        start_name: &'static str,
        start: i64,
    },
    /// An agent's GraphQL document that is not a read within GitLab's
    /// limits.
    Graphql(GraphqlProblem),
    /// A problem with one object of an array parameter: `field` of element
    /// `index` (`actions[1].content`), or the element itself.
    Item {
        param: &'static str,
        index: usize,
        field: Option<String>,
        problem: ItemProblem,
    },
}

#[derive(Debug, Clone, PartialEq)]
pub enum ItemProblem {
    NotAnObject,
    UnknownField {
        suggestion: Option<&'static str>,
        accepted: Vec<&'static str>,
    },
    Missing,
    /// Required because of the element's own kind (a `create` file action
    /// needs `content`).
    NeededFor {
        kind: String,
    },
    WrongType {
        expected: &'static str,
        got: String,
    },
    NotAllowed {
        value: String,
        allowed: &'static [&'static str],
        closest: Option<&'static str>,
    },
    /// A rule across the element's fields, worded as for parameters
    /// (`comments[1]`: `line` and `old_line` are both given).
    Rule(Box<ParamProblem>),
}

impl ParamProblem {
    /// The declared parameter this problem is about, if any.
    pub fn param(&self) -> Option<&'static str> {
        match self {
            ParamProblem::Unknown { .. }
            | ParamProblem::BesideAction { .. }
            | ParamProblem::OneOf { .. }
            | ParamProblem::Url(_)
            | ParamProblem::Graphql(_) => None,
            ParamProblem::Missing { name }
            | ParamProblem::WrongType { name, .. }
            | ParamProblem::NotAllowed { name, .. }
            | ParamProblem::BadPathValue { name, .. }
            | ParamProblem::Format { name, .. }
            | ParamProblem::OutOfRange { name, .. }
            | ParamProblem::Empty { name, .. }
            | ParamProblem::NeededFor { name, .. }
            | ParamProblem::EndsBeforeStart { name, .. } => Some(name),
            ParamProblem::BothGiven { .. } => None,
            ParamProblem::Item { param, .. } => Some(param),
        }
    }

    /// Whether this problem is about `field` of element `index` of `param`.
    pub fn is_about_field(&self, param: &str, index: usize, field: &str) -> bool {
        matches!(self, ParamProblem::Item { param: p, index: i, field: Some(f), .. }
            if *p == param && *i == index && f == field)
    }
}

impl fmt::Display for EnvelopeProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            EnvelopeProblem::MissingAction => write!(f, "`action` is missing"),
            EnvelopeProblem::MisspelledAction { key } => {
                write!(f, "`{key}` is not an envelope key; did you mean `action`?")
            }
            EnvelopeProblem::MisspelledParams { key } => write!(
                f,
                "`{key}` is not an envelope key; did you mean `params`? Parameters go inside `params`"
            ),
            EnvelopeProblem::ParamOutsideParams { key, param } if key == param => write!(
                f,
                "`{key}` is a parameter: put it inside `params`, not beside `action`"
            ),
            EnvelopeProblem::ParamOutsideParams { key, param } => write!(
                f,
                "`{key}` is beside `action`: parameters go inside `params` (did you mean `{param}`?)"
            ),
            EnvelopeProblem::UnknownKey { key } => write!(
                f,
                "`{key}` is not an envelope key (accepted: {})",
                super::ENVELOPE_KEYS.join(", ")
            ),
            EnvelopeProblem::View(problem) => write!(f, "{problem}"),
            EnvelopeProblem::Malformed { path, message } if path.is_empty() || path == "." => {
                write!(f, "{message}")
            }
            EnvelopeProblem::Malformed { path, message } => write!(f, "`{path}`: {message}"),
        }
    }
}

/// `must be one of a, b; got "c" (did you mean `a`?)`
fn write_not_allowed(
    f: &mut fmt::Formatter<'_>,
    allowed: &[&str],
    value: &str,
    closest: Option<&str>,
) -> fmt::Result {
    write!(f, "must be one of {}; got \"{value}\"", allowed.join(", "))?;
    if let Some(c) = closest {
        write!(f, " (did you mean `{c}`?)")?;
    }
    Ok(())
}

impl fmt::Display for ParamProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ParamProblem::Unknown {
                key,
                suggestion: Some(s),
            } => write!(
                f,
                "`{key}` is not a parameter of this action; did you mean `{s}`?"
            ),
            ParamProblem::Unknown {
                key,
                suggestion: None,
            } => write!(f, "`{key}` is not a parameter of this action"),
            ParamProblem::Missing { name } => write!(f, "`{name}` is missing (required)"),
            ParamProblem::WrongType {
                name,
                expected,
                got,
            } => write!(f, "`{name}` must be {expected}; got {got}"),
            ParamProblem::NotAllowed {
                name,
                value,
                allowed,
                closest,
            } => {
                write!(f, "`{name}` ")?;
                write_not_allowed(f, allowed, value, *closest)
            }
            ParamProblem::BadPathValue {
                name,
                value,
                reason,
            } => write!(f, "`{name}` cannot be \"{value}\": {reason}"),
            ParamProblem::Format {
                name,
                value,
                expected,
            } => write!(f, "`{name}` must be {expected}; got \"{value}\""),
            ParamProblem::OutOfRange {
                name,
                value,
                minimum,
                maximum,
            } => match (minimum, maximum) {
                (Some(min), _) if value < min => {
                    write!(f, "`{name}` must be at least {min}; got {value}")
                }
                (_, Some(max)) => write!(f, "`{name}` must be at most {max}; got {value}"),
                _ => write!(f, "`{name}` is out of range: {value}"),
            },
            ParamProblem::OneOf { names } => {
                let names: Vec<String> = names.iter().map(|n| format!("`{n}`")).collect();
                write!(f, "give {} (at least one)", names.join(" or "))
            }
            ParamProblem::BesideAction { key } => write!(
                f,
                "`{key}` is not a parameter: it goes beside `action`, not inside `params`"
            ),
            ParamProblem::Url(problem) => write!(f, "{problem}"),
            ParamProblem::Graphql(problem) => write!(f, "{problem}"),
            ParamProblem::Empty { name, element } => {
                write!(f, "`{name}` is empty: give at least one {element}")
            }
            ParamProblem::BothGiven { names: [a, b] } => {
                write!(f, "`{a}` and `{b}` are both given: give one of them")
            }
            ParamProblem::NeededFor { name, reason } => {
                write!(f, "`{name}` is missing: {reason}")
            }
            ParamProblem::EndsBeforeStart {
                name,
                end,
                start_name,
                start,
            } => write!(
                f,
                "`{name}` ({end}) is before `{start_name}` ({start}): a range ends at or after its start"
            ),
            ParamProblem::Item {
                param,
                index,
                field,
                problem,
            } => {
                let at = match field {
                    Some(field) => format!("{param}[{index}].{field}"),
                    None => format!("{param}[{index}]"),
                };
                match problem {
                    ItemProblem::NotAnObject => write!(f, "`{at}` must be an object"),
                    ItemProblem::UnknownField {
                        suggestion: Some(s),
                        ..
                    } => write!(f, "`{at}` is not a field of `{param}`; did you mean `{s}`?"),
                    ItemProblem::UnknownField {
                        suggestion: None,
                        accepted,
                    } => write!(
                        f,
                        "`{at}` is not a field of `{param}` (fields: {})",
                        accepted.join(", ")
                    ),
                    ItemProblem::Missing => write!(f, "`{at}` is missing (required)"),
                    ItemProblem::NeededFor { kind } => {
                        write!(f, "`{at}` is missing: a `{kind}` action needs it")
                    }
                    ItemProblem::WrongType { expected, got } => {
                        write!(f, "`{at}` must be a {expected}; got {got}")
                    }
                    ItemProblem::NotAllowed {
                        value,
                        allowed,
                        closest,
                    } => {
                        write!(f, "`{at}` ")?;
                        write_not_allowed(f, allowed, value, *closest)
                    }
                    ItemProblem::Rule(rule) => write!(f, "`{at}`: {rule}"),
                }
            }
        }
    }
}

impl ParamProblem {
    /// Whether the problem's own words tell the agent how to fix it: only
    /// an unknown name with no likely meaning needs the full help.
    fn has_fix(&self) -> bool {
        !matches!(
            self,
            ParamProblem::Unknown {
                suggestion: None,
                ..
            }
        )
    }
}

/// Replies are sized to the mistake: each problem with its fix, then the
/// accepted names; the full help only when a problem has no fix of its own.
fn render_envelope(
    tool: &ToolSpec,
    action: Option<&ActionSpec>,
    problems: &[EnvelopeProblem],
) -> String {
    let mut out = format!("{}: invalid call\n", tool.name);
    for p in problems {
        let _ = writeln!(out, "- {p}");
    }
    out.push_str(
        "The arguments are one envelope: {\"action\": \"<action>\", \"params\": {...}}, with view keys (fields, raw, lines, file, max_items) and confirm beside action.\n",
    );
    match action {
        Some(action) => {
            let _ = writeln!(out, "{}", help::param_index(action));
        }
        None => {
            let _ = writeln!(out, "{}", help::action_index(tool));
        }
    }
    out
}

fn render_unknown_action(
    tool: &ToolSpec,
    given: &str,
    closest: &[&str],
    elsewhere: &[(&str, &str)],
    meant: Option<&ActionSpec>,
) -> String {
    let mut out = format!("{}: unknown action `{given}`", tool.name);
    if !closest.is_empty() {
        let list: Vec<String> = closest.iter().map(|c| format!("`{c}`")).collect();
        let _ = write!(out, "; did you mean {}?", list.join(" or "));
    }
    out.push('\n');
    for (other, action) in elsewhere {
        let _ = writeln!(out, "- tool `{other}` has action `{action}`");
    }
    if let Some(meant) = meant {
        let _ = writeln!(out, "`{}`: {}", meant.name, meant.summary);
        let _ = writeln!(out, "{}", help::param_index(meant));
        let _ = writeln!(out, "Example: {}", crate::catalog::example_envelope(meant));
    } else if closest.is_empty() && elsewhere.is_empty() {
        let _ = writeln!(out, "{}", help::action_index(tool));
    } else {
        out.push_str("{\"action\": \"help\"} lists every action.\n");
    }
    out
}

fn render_params(tool: &ToolSpec, action: &ActionSpec, problems: &[ParamProblem]) -> String {
    let mut out = format!("{} {}: invalid params\n", tool.name, action.name);
    for p in problems {
        let _ = write!(out, "- {p}");
        // What a missing parameter is, so the next call can give it
        // without asking `help`.
        if let ParamProblem::Missing { name } = p
            && let Some(spec) = action.param(name)
        {
            let _ = write!(out, ": {}", spec.doc);
        }
        out.push('\n');
    }
    if problems.iter().all(ParamProblem::has_fix) {
        let _ = writeln!(out, "{}", help::param_index(action));
        let _ = writeln!(out, "Example: {}", crate::catalog::example_envelope(action));
        let _ = writeln!(out, "{}", help::help_pointer(action));
    } else {
        out.push('\n');
        out.push_str(&help::action_help(tool, action, None));
    }
    out
}

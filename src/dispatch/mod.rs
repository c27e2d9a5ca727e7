//! From a tool's raw arguments to a validated call, or to an error that
//! teaches the agent how to fix its call.
//!
//! Pure: no I/O, no clock, no global state beyond the static catalog, so it
//! is tested by tables and benchmarked in isolation. The two stages mirror
//! the input: first the envelope (`action`, `params`), then the action's
//! parameters, each checked against the catalog. Every problem is collected
//! before answering.

mod checks;
mod deprecation;
mod envelope;
mod error;
pub mod graphql_read;
pub mod help;
mod params;
pub mod suggest;
pub mod view;
pub mod web_url;

use serde_json::{Map, Value};

use crate::catalog::{self, ActionSpec, ParamSpec, Role, ToolSpec};
use crate::encoding;

pub use deprecation::Deprecated;
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
    /// The deprecated parameters the call used, for the answer to name.
    pub deprecated: Vec<Deprecated>,
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
/// to say which other tool has an action this one lacks. `gitlab` is the
/// GitLab's web address (without `/api/v4`), to read web URLs on it.
pub fn decode(
    tool: &'static ToolSpec,
    all: &'static [ToolSpec],
    arguments: Map<String, Value>,
    gitlab: Option<&str>,
) -> Result<ValidatedCall, DecodeError> {
    let mut envelope = envelope::decode(tool, arguments)?;
    let action = match tool.action(&envelope.action) {
        Some(action) => action,
        None => {
            // The action the guess stands for here (a synonym, or verb and
            // noun in the catalog's order): its parameters come with the
            // error, and the same-named actions of other tools do not.
            let meant = suggest::match_action(&envelope.action, tool).and_then(|m| tool.action(m));
            let mut elsewhere = suggest::action_elsewhere(&envelope.action, tool, all);
            if let Some(meant) = meant {
                elsewhere.retain(|(_, a)| *a != meant.name);
            }
            // When the guess names another tool's action, a merely similar
            // name here would mislead: keep only a structural match.
            let closest: Vec<&'static str> = match meant {
                Some(meant) => vec![meant.name],
                None if elsewhere.is_empty() => suggest::closest_actions(&envelope.action, tool),
                None => Vec::new(),
            };
            // A lone close spelling (`gte`) is as good as a structural match.
            let meant = meant.or_else(|| match closest.as_slice() {
                [only] if elsewhere.is_empty() => tool.action(only),
                _ => None,
            });
            return Err(DecodeError::UnknownAction {
                tool,
                closest,
                elsewhere,
                meant,
                given: envelope.action,
            });
        }
    };
    let view = take_view(tool, action, &mut envelope)?;
    let url_problems = read_urls(action, &mut envelope.params, gitlab);
    let args = match params::validate(action, envelope.params) {
        Ok(args) if url_problems.is_empty() => args,
        Ok(_) => {
            return Err(DecodeError::Params {
                tool,
                action,
                problems: url_problems,
            });
        }
        Err(mut problems) => {
            problems.splice(0..0, url_problems);
            return Err(DecodeError::Params {
                tool,
                action,
                problems,
            });
        }
    };
    let deprecated = deprecation::used(action, &args).map_err(|problems| DecodeError::Params {
        tool,
        action,
        problems,
    })?;
    // A document the caller writes is judged here, whatever the catalog
    // says: the route, not a catalog entry, carries the rule.
    if let Some(graphql) = action.graphql()
        && graphql.document.is_none()
    {
        let problems = graphql_read::problems(&args);
        if !problems.is_empty() {
            return Err(DecodeError::Params {
                tool,
                action,
                problems,
            });
        }
    }
    if let Some(check) = action.check {
        let problems = checks::problems(check, &args);
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
        deprecated,
    })
}

/// Web URLs and references in place of parameters: the catalog's web URL
/// parameter (`url`), and a project parameter given as the project's web
/// URL. Each value the URL holds fills the parameter it stands for, unless
/// the call gives that parameter otherwise (then the two must agree).
/// Which parameter takes the project, the group or the note is the
/// parameter's role, not its name.
fn read_urls(
    action: &'static ActionSpec,
    params: &mut Map<String, Value>,
    gitlab: Option<&str>,
) -> Vec<ParamProblem> {
    let Some(project_param) = action.param_with(Role::Project) else {
        return Vec::new();
    };
    let base = gitlab.unwrap_or("");
    let mut problems = Vec::new();
    if let Some(Value::String(text)) = params.get(project_param.name)
        && web_url::is_web_url(text)
    {
        match web_url::parse_project(text, base) {
            Ok(project) => {
                params.insert(project_param.name.into(), Value::String(project));
            }
            Err(problem) => problems.push(ParamProblem::Url(problem)),
        }
    }
    let Some(url_param) = catalog::web_url() else {
        return problems;
    };
    // An action with a `url` of its own (a webhook's) takes it as it is.
    if action.param(url_param.name).is_some() {
        return problems;
    }
    let Some(url) = params.remove(url_param.name) else {
        return problems;
    };
    let Value::String(text) = url else {
        problems.push(ParamProblem::WrongType {
            name: url_param.name,
            expected: "a string: a GitLab web URL, or a reference such as group/project#42".into(),
            got: format!("{url}"),
        });
        return problems;
    };
    let parsed = match web_url::parse(&text, base) {
        Ok(parsed) => parsed,
        Err(problem) => {
            problems.push(ParamProblem::Url(problem));
            return problems;
        }
    };
    let namespace_param = match &parsed.namespace {
        web_url::Namespace::Project(_) => Some(project_param),
        web_url::Namespace::Group(_) => action.param_with(Role::Group),
    };
    let Some(namespace_param) = namespace_param else {
        problems.push(ParamProblem::Url(web_url::UrlProblem::GroupPage {
            given: text.clone(),
        }));
        return problems;
    };
    let mut values: Vec<(&'static str, String)> =
        vec![(namespace_param.name, parsed.namespace.path().to_string())];
    for (candidates, value) in &parsed.values {
        match candidates.iter().find(|c| action.param(c).is_some()) {
            Some(name) => values.push((name, value.clone())),
            None => {
                let resource = parsed.resource.expect("a value comes from a matched shape");
                problems.push(ParamProblem::Url(web_url::UrlProblem::NotHere {
                    given: text.clone(),
                    resource,
                }));
                return problems;
            }
        }
    }
    if let Some(note) = &parsed.note
        && let Some(note_param) = action.param_with(Role::Note)
    {
        values.push((note_param.name, note.clone()));
    }
    if let Some(at) = parsed.split_before_rest {
        // `values[0]` is the namespace.
        move_split_to_given(&mut values[at + 1..], params);
    }
    for (name, value) in values {
        match params.get(name) {
            Some(given) if encoding::scalar_text(given) != value => {
                problems.push(ParamProblem::Url(web_url::UrlProblem::Conflict {
                    param: name,
                    from_url: value,
                    given: encoding::scalar_text(given).into_owned(),
                }));
            }
            Some(_) => {}
            None => {
                params.insert(name.into(), Value::String(value));
            }
        }
    }
    problems
}

/// A blob or tree URL cannot tell a ref with a `/` (`feature/login`) from
/// the path after it: `pair` is the ref's value and the path's. When the
/// call gives the ref and the URL's ref and path start with it, that ref
/// is meant and the rest is the path.
fn move_split_to_given(pair: &mut [(&'static str, String)], params: &Map<String, Value>) {
    let [(ref_name, ref_value), (_, path), ..] = pair else {
        return;
    };
    let Some(Value::String(given)) = params.get(*ref_name) else {
        return;
    };
    let joined = format!("{ref_value}/{path}");
    if let Some(rest) = joined.strip_prefix(&format!("{given}/")) {
        *ref_value = given.clone();
        *path = rest.to_string();
    }
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
    // A field close to one the kind is known to have is a typo of it; a
    // field far from all of them may still exist, and is let through.
    if let (Some(fields), Some(kind)) = (&view.fields, action.kind())
        && !kind.fields.is_empty()
    {
        for field in fields {
            if kind.fields.contains(&field.as_str()) {
                continue;
            }
            if let Some(meant) = suggest::typo_of(field, kind.fields.iter().copied()) {
                problems.push(EnvelopeProblem::View(ViewProblem::UnknownField {
                    field: field.clone(),
                    kind: kind.name,
                    meant,
                }));
            }
        }
    }
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

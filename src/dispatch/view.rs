//! The envelope's view keys: how the answer is shown, never sent to GitLab.
//!
//! - `fields`: keep only these fields of each object (long texts in full);
//! - `raw`: GitLab's JSON as it came, for when everything is needed;
//! - `lines`: a window over a text answer (a job log, a raw file);
//! - `file`: one file's diff out of a diff answer.

use std::fmt;

use crate::catalog::{ActionSpec, Returns};

#[derive(Debug, Clone, Default, PartialEq)]
pub struct View {
    pub fields: Option<Vec<String>>,
    pub raw: bool,
    pub lines: Option<LineRange>,
    pub file: Option<String>,
    /// Follow a list's pages until this many items.
    pub max_items: Option<usize>,
}

/// The most items `max_items` may ask for.
pub const MAX_ITEMS: usize = 1000;

/// Lines of a text, 1-based and inclusive.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LineRange {
    /// `"100-200"`, or `"100-"` to the end.
    Span { start: usize, end: Option<usize> },
    /// `"-50"`: the last 50 lines.
    Last(usize),
}

/// A view key that does not fit the action, or a `lines` that does not parse.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ViewProblem {
    BadLines {
        given: String,
    },
    LinesBackwards {
        given: String,
    },
    LinesOnJson,
    FileWithoutDiffs,
    /// `file` beside `action` where the action has a `file` parameter.
    FileIsAParam,
    FieldsOnText,
    MaxItemsOnNonList,
    MaxItemsRange {
        given: i64,
    },
    /// A `fields` entry close to a field the answer's kind has.
    UnknownField {
        field: String,
        kind: &'static str,
        meant: &'static str,
    },
}

impl fmt::Display for ViewProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ViewProblem::BadLines { given } => write!(
                f,
                "`lines` must look like \"100-200\", \"100-\" or \"-50\" (the last 50 lines); got \"{given}\""
            ),
            ViewProblem::LinesBackwards { given } => {
                write!(f, "`lines` \"{given}\" ends before it starts")
            }
            ViewProblem::LinesOnJson => f.write_str(
                "`lines` windows text answers (logs, raw files); this action answers JSON: use `fields` or pagination",
            ),
            ViewProblem::FileWithoutDiffs => f.write_str(
                "`file` picks one file's diff from a diff answer (merge request `diffs`, commit `commit_diff`, `compare`); this action has none",
            ),
            ViewProblem::FileIsAParam => f.write_str(
                "`file` is a parameter of this action: put it inside `params`, not beside `action`",
            ),
            ViewProblem::FieldsOnText => f.write_str(
                "`fields` and `raw` apply to JSON answers; this action answers text: use `lines`",
            ),
            ViewProblem::MaxItemsOnNonList => f.write_str(
                "`max_items` follows the pages of a list; this action answers one object or text",
            ),
            ViewProblem::UnknownField { field, kind, meant } => write!(
                f,
                "`fields`: `{field}` is not a field of {kind}; did you mean `{meant}`?"
            ),
            ViewProblem::MaxItemsRange { given } => write!(
                f,
                "`max_items` must be from 1 to {MAX_ITEMS}; got {given}"
            ),
        }
    }
}

impl LineRange {
    pub fn parse(text: &str) -> Result<LineRange, ViewProblem> {
        let text = text.trim();
        let bad = || ViewProblem::BadLines {
            given: text.to_string(),
        };
        let number = |s: &str| s.trim().parse::<usize>().ok().filter(|n| *n > 0);
        if let Some(last) = text.strip_prefix('-') {
            return number(last).map(LineRange::Last).ok_or_else(bad);
        }
        let (start, end) = text.split_once('-').unwrap_or((text, text));
        let start = number(start).ok_or_else(bad)?;
        let end = if end.trim().is_empty() {
            None
        } else {
            Some(number(end).ok_or_else(bad)?)
        };
        if end.is_some_and(|e| e < start) {
            return Err(ViewProblem::LinesBackwards {
                given: text.to_string(),
            });
        }
        Ok(LineRange::Span { start, end })
    }
}

/// The problems of a view for this action.
pub fn check(view: &View, action: &ActionSpec) -> Vec<ViewProblem> {
    let mut problems = Vec::new();
    let is_text = matches!(action.returns, Returns::Text(_));
    if view.lines.is_some() && !is_text {
        problems.push(ViewProblem::LinesOnJson);
    }
    if view.file.is_some() && !action.shows_diffs() {
        if action.params.iter().any(|p| p.name == "file") {
            problems.push(ViewProblem::FileIsAParam);
        } else {
            problems.push(ViewProblem::FileWithoutDiffs);
        }
    }
    if is_text && (view.fields.is_some() || view.raw) {
        problems.push(ViewProblem::FieldsOnText);
    }
    if view.max_items.is_some() && !matches!(action.returns, Returns::List(_)) {
        problems.push(ViewProblem::MaxItemsOnNonList);
    }
    problems
}

//! The envelope's view keys: how the answer is shown, never sent to GitLab.
//!
//! - `fields`: keep only these fields of each object (long texts in full);
//! - `raw`: GitLab's JSON as it came, for when everything is needed;
//! - `lines`: a window over a text answer (a job log, a raw file);
//! - `file`: one file's diff out of a diff answer.

use crate::catalog::{ActionSpec, Returns};

#[derive(Debug, Clone, Default, PartialEq)]
pub struct View {
    pub fields: Option<Vec<String>>,
    pub raw: bool,
    pub lines: Option<LineRange>,
    pub file: Option<String>,
}

/// Lines of a text, 1-based and inclusive.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LineRange {
    /// `"100-200"`, or `"100-"` to the end.
    Span { start: usize, end: Option<usize> },
    /// `"-50"`: the last 50 lines.
    Last(usize),
}

impl LineRange {
    pub fn parse(text: &str) -> Result<LineRange, String> {
        let text = text.trim();
        let bad = || {
            format!(
                "`lines` must look like \"100-200\", \"100-\" or \"-50\" (the last 50 lines); got \"{text}\""
            )
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
            return Err(format!("`lines` \"{text}\" ends before it starts"));
        }
        Ok(LineRange::Span { start, end })
    }

    pub fn to_text(self) -> String {
        match self {
            LineRange::Span {
                start,
                end: Some(end),
            } => format!("{start}-{end}"),
            LineRange::Span { start, end: None } => format!("{start}-"),
            LineRange::Last(n) => format!("-{n}"),
        }
    }
}

/// Whether an action's answer is a diff (or holds diffs) that `file` can pick from.
pub fn shows_diffs(action: &ActionSpec) -> bool {
    matches!(
        action.returns,
        Returns::List("diff") | Returns::One("compare") | Returns::One("merge_request_changes")
    )
}

/// The problems of a view for this action, as `(key, message)`.
pub fn check(view: &View, action: &ActionSpec) -> Vec<(&'static str, String)> {
    let mut problems = Vec::new();
    let is_text = matches!(action.returns, Returns::Text(_));
    if view.lines.is_some() && !is_text {
        problems.push(("lines", "`lines` windows text answers (logs, raw files); this action answers JSON: use `fields` or pagination".to_string()));
    }
    if view.file.is_some() && !shows_diffs(action) {
        problems.push(("file", "`file` picks one file's diff from a diff answer (merge request `diffs`, commit `commit_diff`, `compare`); this action has none".to_string()));
    }
    if is_text && (view.fields.is_some() || view.raw) {
        problems.push((
            "fields",
            "`fields` and `raw` apply to JSON answers; this action answers text: use `lines`"
                .to_string(),
        ));
    }
    problems
}

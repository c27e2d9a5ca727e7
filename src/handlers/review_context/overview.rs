//! The merge request's own facts in `review_context`, one section builder
//! each: title and state, branches and people, pipeline, approvals, the
//! address, the description.

use std::fmt::Write as _;

use serde_json::Value;

use super::text::{cut_chars, json_of, not_read, str_at, username};
use crate::gitlab::{Failed, Response};

/// The longest description shown.
const DESCRIPTION_CHARS: usize = 2000;

/// `!12`, or the merge request's full reference.
pub(super) fn reference(mr: &Value) -> String {
    str_at(mr, "reference")
        .map(str::to_string)
        .or_else(|| mr.get("iid").map(|i| format!("!{i}")))
        .unwrap_or_default()
}

/// Title, state, author and branches, reviewers and labels.
pub(super) fn state_and_branches(mr: &Value, reference: &str) -> String {
    let text_of = |k: &str| str_at(mr, k).unwrap_or("?");
    let yes_no = |k: &str| match mr.get(k).and_then(Value::as_bool) {
        Some(true) => "yes",
        Some(false) => "no",
        None => "?",
    };
    let mut out = format!("{reference} {}\n", text_of("title"));
    let _ = writeln!(
        out,
        "state: {}; draft: {}; merge status: {}; conflicts: {}",
        text_of("state"),
        yes_no("draft"),
        str_at(mr, "detailed_merge_status")
            .or_else(|| str_at(mr, "merge_status"))
            .unwrap_or("?"),
        yes_no("has_conflicts"),
    );
    let _ = writeln!(
        out,
        "author: {}; branches: {} → {}",
        username(mr.get("author")),
        text_of("source_branch"),
        text_of("target_branch")
    );
    let reviewers: Vec<String> = mr
        .get("reviewers")
        .and_then(Value::as_array)
        .map(|a| a.iter().map(|u| username(Some(u))).collect())
        .unwrap_or_default();
    if !reviewers.is_empty() {
        let _ = writeln!(out, "reviewers: {}", reviewers.join(", "));
    }
    let labels: Vec<&str> = mr
        .get("labels")
        .and_then(Value::as_array)
        .map(|a| a.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    if !labels.is_empty() {
        let _ = writeln!(out, "labels: {}", labels.join(", "));
    }
    out
}

/// The head pipeline: its line, and its status for the structured content.
pub(super) fn pipeline(mr: &Value) -> (String, Option<&str>) {
    let pipeline = mr
        .get("head_pipeline")
        .filter(|p| p.is_object())
        .or_else(|| mr.get("pipeline").filter(|p| p.is_object()));
    let status = pipeline.and_then(|p| str_at(p, "status"));
    let line = match pipeline {
        Some(p) => format!(
            "pipeline: {} (id {})\n",
            status.unwrap_or("?"),
            p.get("id").map(Value::to_string).unwrap_or_default()
        ),
        None => "pipeline: none\n".to_string(),
    };
    (line, status)
}

/// Who approved and how many approvals are left, with its line.
pub(super) struct Approvals {
    pub line: String,
    pub approved_by: Vec<String>,
    pub left: Option<u64>,
}

pub(super) fn approvals(read: &Result<Response, Failed>) -> Approvals {
    let response = match read {
        Ok(response) => response,
        Err(failed) => {
            return Approvals {
                line: format!("approvals: {}\n", not_read(failed)),
                approved_by: Vec::new(),
                left: None,
            };
        }
    };
    let a = json_of(response);
    let approved_by: Vec<String> = a
        .get("approved_by")
        .and_then(Value::as_array)
        .map(|list| list.iter().map(|x| username(x.get("user"))).collect())
        .unwrap_or_default();
    let left = a.get("approvals_left").and_then(Value::as_u64);
    let by = if approved_by.is_empty() {
        "nobody yet".to_string()
    } else {
        approved_by.join(", ")
    };
    let left_text = left.map_or_else(|| "?".to_string(), |n| n.to_string());
    Approvals {
        line: format!("approvals: approved by {by}; approvals left: {left_text}\n"),
        approved_by,
        left,
    }
}

/// `url: ...`, when GitLab gave one.
pub(super) fn url(mr: &Value) -> String {
    str_at(mr, "web_url").map_or_else(String::new, |url| format!("url: {url}\n"))
}

/// The description, cut at `DESCRIPTION_CHARS` or a quarter of the cap.
pub(super) fn description(mr: &Value, cap: usize) -> String {
    let description = str_at(mr, "description").unwrap_or("").trim_end();
    if description.is_empty() {
        return "\ndescription: none\n".to_string();
    }
    let max = DESCRIPTION_CHARS.min(cap / 4);
    let (shown, cut) = cut_chars(description, max);
    let mut out = format!("\ndescription:\n{shown}\n");
    if cut {
        let _ = writeln!(
            out,
            "[description cut at {max} of {} characters; action `get` has it whole]",
            description.chars().count()
        );
    }
    out
}

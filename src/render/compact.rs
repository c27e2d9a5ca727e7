//! GitLab's JSON, reduced to what an agent acts on.
//!
//! Generic rules, applied at every depth: nested users become their
//! username; `_links`, avatars, `*_html` renderings and URLs other than the
//! resource's own `web_url` go; so do nulls, empty strings, lists and
//! objects, falses that only restate a default, objects of zeros, and
//! fields that duplicate another (`assignee` beside `assignees`). In a list,
//! a resource keeps only the fields of its kind's summary (`resources.rs`)
//! and long texts are cut to an excerpt; a single resource keeps everything
//! else, long texts in full.

use serde_json::{Map, Value};

use super::resources;

/// Longest excerpt of a long text field in a list.
pub const EXCERPT_CHARS: usize = 160;

/// Keys that are never worth their tokens.
const NOISE: &[&str] = &[
    "_links",
    "avatar_url",
    "references",
    "reference",
    "time_stats",
    "task_completion_status",
    "commands_changes",
    "imported",
    "imported_from",
    "container_expiration_policy",
    "detailed_status",
    "permissions",
    "tag_list",
    "name_with_namespace",
    "ssh_url_to_repo",
    "http_url_to_repo",
    "readme_url",
    "logs_api_path",
    "evidences",
    "commit_path",
    "tag_path",
    "wiki_page_meta_id",
    "content_sha256",
];

/// URL fields that are the thing itself rather than a link to elsewhere.
const KEPT_URLS: &[&str] = &[
    "web_url",
    "url",
    "external_url",
    "target_url",
    "direct_asset_url",
];

/// Booleans whose `false` is news, not a default.
const MEANINGFUL_FALSE: &[&str] = &[
    "approved",
    "resolved",
    "can_merge",
    "mergeable",
    "merged",
    "active",
    "valid",
    "enabled",
    "user_can_approve",
    "blocking_discussions_resolved",
];

/// Fields that repeat another field of the same object: (dropped, kept).
const DUPLICATES: &[(&str, &str)] = &[
    ("assignee", "assignees"),
    ("merge_user", "merged_by"),
    ("work_in_progress", "draft"),
    ("squash_on_merge", "squash"),
    ("merge_status", "detailed_merge_status"),
    ("committer_name", "author_name"),
    ("committer_email", "author_email"),
    ("committed_date", "authored_date"),
    ("created_at", "authored_date"),
    ("confidential", "internal"),
    ("type", "issue_type"),
    ("prepared_at", "created_at"),
];

/// Values that only restate GitLab's default for the field.
const DEFAULT_VALUES: &[(&str, &str)] = &[
    ("issue_type", "issue"),
    ("type", "ISSUE"),
    ("severity", "UNKNOWN"),
    ("merge_method", "merge"),
    ("encoding", "UTF-8"),
];

/// A count of zero says nothing an agent acts on.
fn zero_count(key: &str, value: &Value) -> bool {
    (key.ends_with("_count") || key == "upvotes" || key == "downvotes")
        && value.as_f64() == Some(0.0)
}

/// Long free-text fields: kept whole for one resource, cut in a list.
pub const LONG_TEXT: &[&str] = &[
    "description",
    "body",
    "message",
    "note",
    "content",
    "diff",
    "data",
];

pub fn compact(value: &Value, kind: &str, in_list: bool) -> Value {
    match value {
        Value::Object(map) => {
            let summary = if in_list {
                resources::summary_fields(kind)
            } else {
                None
            };
            compact_object(map, summary, in_list, true)
        }
        Value::Array(items) => Value::Array(
            items
                .iter()
                .map(|v| compact(v, kind, true))
                .filter(|v| !is_empty(v))
                .collect(),
        ),
        other => other.clone(),
    }
}

fn compact_object(
    map: &Map<String, Value>,
    summary: Option<&[&str]>,
    in_list: bool,
    top: bool,
) -> Value {
    if !top && is_user(map) {
        return map.get("username").cloned().unwrap_or(Value::Null);
    }
    let mut out = Map::new();
    for (key, value) in map {
        let key = key.as_str();
        if let Some(fields) = summary
            && !fields.contains(&key)
        {
            continue;
        }
        if NOISE.contains(&key)
            || (!top && key == "project_id")
            || zero_count(key, value)
            || DEFAULT_VALUES
                .iter()
                .any(|(k, v)| *k == key && value.as_str() == Some(v))
            || key.ends_with("_html")
            || (key.ends_with("_url") && !KEPT_URLS.contains(&key))
            || DUPLICATES
                .iter()
                .any(|(dup, kept)| *dup == key && map.contains_key(*kept))
        {
            continue;
        }
        let value = match value {
            Value::Object(inner) if in_list && let Some(reduced) = nested_summary(key, inner) => {
                reduced
            }
            Value::Object(inner) => compact_object(inner, None, in_list, false),
            Value::Array(items) => Value::Array(
                items
                    .iter()
                    .map(|v| match v {
                        Value::Object(inner) => compact_object(inner, None, in_list, false),
                        other => other.clone(),
                    })
                    .filter(|v| !is_empty(v))
                    .collect(),
            ),
            Value::String(text) if in_list && LONG_TEXT.contains(&key) => {
                Value::String(excerpt(text))
            }
            Value::Bool(false) if !MEANINGFUL_FALSE.contains(&key) => continue,
            other => other.clone(),
        };
        if is_empty(&value) || is_all_zero(&value) {
            continue;
        }
        out.insert(key.to_string(), value);
    }
    Value::Object(out)
}

/// In a list, a nested resource shrinks to what identifies it: a
/// milestone to its title, a commit to its short id and title, a pipeline
/// to its id and status, a namespace to its path.
fn nested_summary(key: &str, inner: &Map<String, Value>) -> Option<Value> {
    let pick = |fields: &[&str]| {
        let mut out = Map::new();
        for f in fields {
            if let Some(v) = inner.get(*f).filter(|v| !v.is_null()) {
                out.insert((*f).to_string(), v.clone());
            }
        }
        Value::Object(out)
    };
    match key {
        "milestone" | "iteration" | "epic" => inner.get("title").cloned(),
        "commit" | "last_commit" => Some(pick(&["short_id", "title", "authored_date"])),
        "pipeline" | "head_pipeline" => Some(pick(&["id", "status"])),
        "namespace" => inner.get("full_path").cloned(),
        "environment" => inner.get("name").cloned(),
        "project" => inner.get("path_with_namespace").cloned(),
        _ => None,
    }
}

/// A nested user: GitLab's "basic user" shape.
fn is_user(map: &Map<String, Value>) -> bool {
    map.contains_key("username")
        && map.contains_key("id")
        && (map.contains_key("avatar_url")
            || map.contains_key("state")
            || map.contains_key("web_url"))
}

fn is_empty(value: &Value) -> bool {
    match value {
        Value::Null => true,
        Value::String(s) => s.is_empty(),
        Value::Array(a) => a.is_empty(),
        Value::Object(o) => o.is_empty(),
        _ => false,
    }
}

/// `{"count": 0, "completed_count": 0}`: nothing to say.
fn is_all_zero(value: &Value) -> bool {
    match value {
        Value::Object(o) => o.values().all(|v| v.as_f64() == Some(0.0)),
        _ => false,
    }
}

/// The first line or so of a long text, marked when cut.
pub fn excerpt(text: &str) -> String {
    let first_chars: String = text.chars().take(EXCERPT_CHARS).collect();
    if first_chars.len() == text.len() {
        return text.to_string();
    }
    format!("{}…", first_chars.trim_end())
}

//! GitLab's JSON, reduced to what an agent acts on.
//!
//! Generic rules, applied at every depth: nested users become their
//! username; `_links`, avatars, `*_html` renderings and URLs other than the
//! resource's own `web_url` go; so do nulls, empty strings, lists and
//! objects, falses that only restate a default, objects of zeros, and
//! fields that duplicate another (`assignee` beside `assignees`). In a list,
//! a resource keeps only the fields of its kind's summary and its kind's
//! long texts are cut to an excerpt (`catalog/kinds.toml`); a single
//! resource keeps everything else, long texts in full.

use std::borrow::Cow;

use super::tree::Node;
use crate::catalog::KindSpec;

/// Longest excerpt of a long text field in a list.
pub const EXCERPT_CHARS: usize = 160;

/// Keys that are never worth their tokens.
fn noise(key: &str) -> bool {
    matches!(
        key,
        "_links"
            | "avatar_url"
            | "references"
            | "reference"
            | "time_stats"
            | "task_completion_status"
            | "commands_changes"
            | "imported"
            | "imported_from"
            | "container_expiration_policy"
            | "detailed_status"
            | "permissions"
            | "tag_list"
            | "name_with_namespace"
            | "ssh_url_to_repo"
            | "http_url_to_repo"
            | "readme_url"
            | "logs_api_path"
            | "evidences"
            | "commit_path"
            | "tag_path"
            | "wiki_page_meta_id"
            | "content_sha256"
    )
}

/// URL fields that are the thing itself rather than a link to elsewhere.
fn kept_url(key: &str) -> bool {
    matches!(
        key,
        "web_url"
            | "url"
            | "external_url"
            | "target_url"
            | "direct_asset_url"
            // An OAuth application's redirect, a migration's source instance.
            | "callback_url"
            | "source_url"
    )
}

/// Booleans whose `false` is news, not a default.
fn meaningful_false(key: &str) -> bool {
    matches!(
        key,
        "approved"
            | "resolved"
            | "can_merge"
            | "mergeable"
            | "merged"
            | "active"
            | "valid"
            | "enabled"
            | "user_can_approve"
            | "blocking_discussions_resolved"
            // A merge request without conflicts; a GitLab that is not EE
            // (`/metadata`): both what the agent asked to learn.
            | "has_conflicts"
            | "enterprise"
    )
}

/// Fields that repeat another field of the same object: the one kept.
fn duplicate_of(key: &str) -> Option<&'static str> {
    Some(match key {
        "assignee" => "assignees",
        "merge_user" => "merged_by",
        "work_in_progress" => "draft",
        "squash_on_merge" => "squash",
        "merge_status" => "detailed_merge_status",
        "committer_name" => "author_name",
        "committer_email" => "author_email",
        "committed_date" => "authored_date",
        "created_at" => "authored_date",
        "confidential" => "internal",
        "type" => "issue_type",
        "prepared_at" => "created_at",
        _ => return None,
    })
}

/// Values that only restate GitLab's default for the field.
fn default_value(key: &str) -> Option<&'static str> {
    Some(match key {
        "issue_type" => "issue",
        "type" => "ISSUE",
        "severity" => "UNKNOWN",
        "merge_method" => "merge",
        "encoding" => "UTF-8",
        _ => return None,
    })
}

/// A count of zero says nothing an agent acts on.
fn zero_count(key: &str, value: &Node) -> bool {
    (key.ends_with("_count") || key == "upvotes" || key == "downvotes") && is_zero(value)
}

fn is_zero(value: &Node) -> bool {
    matches!(value, Node::Number(n) if n.as_f64() == Some(0.0))
}

/// What compaction keeps of one answer: in a list, the kind's summary
/// fields and excerpts of its long texts.
#[derive(Clone, Copy)]
struct Rules<'k> {
    in_list: bool,
    long_text: &'k [&'k str],
}

/// `kind` is `None` where only the generic rules apply (a chosen field).
pub fn compact<'a>(node: Node<'a>, kind: Option<&KindSpec>, in_list: bool) -> Node<'a> {
    let rules = Rules {
        in_list,
        long_text: kind.map_or(&[], |k| k.long_text),
    };
    match node {
        Node::Obj(fields) => {
            let summary = kind.map(|k| k.summary).filter(|s| in_list && !s.is_empty());
            compact_object(fields, summary, rules, true)
        }
        Node::Arr(items) => Node::Arr(
            items
                .into_iter()
                .map(|v| compact(v, kind, true))
                .filter(|v| !v.is_empty())
                .collect(),
        ),
        other => other,
    }
}

/// Whether a field is dropped whatever its value's shape.
fn dropped(key: &str, value: &Node, fields: &[(Cow<'_, str>, Node)], top: bool) -> bool {
    noise(key)
        || (!top && key == "project_id")
        || zero_count(key, value)
        || default_value(key).is_some_and(|default| value.as_str() == Some(default))
        || key.ends_with("_html")
        || (key.ends_with("_url") && !kept_url(key))
        || duplicate_of(key).is_some_and(|kept| fields.iter().any(|(k, _)| k == kept))
}

fn compact_object<'a>(
    fields: Vec<(Cow<'a, str>, Node<'a>)>,
    summary: Option<&[&str]>,
    rules: Rules,
    top: bool,
) -> Node<'a> {
    let in_list = rules.in_list;
    if !top && is_user(&fields) {
        return fields
            .into_iter()
            .find(|(k, _)| k == "username")
            .map_or(Node::Null, |(_, v)| v);
    }
    // Decided on the original fields, since duplicates look at siblings.
    let keep: Vec<bool> = fields
        .iter()
        .map(|(key, value)| {
            summary.is_none_or(|s| s.contains(&key.as_ref())) && !dropped(key, value, &fields, top)
        })
        .collect();
    // Kept fields are compacted where they are, not moved to a new list.
    let mut fields = fields;
    let mut keep = keep.into_iter();
    fields.retain_mut(|(key, value)| {
        if keep.next() != Some(true) {
            return false;
        }
        let compacted = match std::mem::replace(value, Node::Null) {
            Node::Obj(inner) if in_list && nested_reduces(key) => nested_summary(key, inner),
            Node::Obj(inner) => compact_object(inner, None, rules, false),
            Node::Arr(items) => Node::Arr(
                items
                    .into_iter()
                    .map(|v| match v {
                        Node::Obj(inner) => compact_object(inner, None, rules, false),
                        other => other,
                    })
                    .filter(|v| !v.is_empty())
                    .collect(),
            ),
            Node::Str(text) if in_list && rules.long_text.contains(&key.as_ref()) => {
                Node::Str(Cow::Owned(excerpt(&text)))
            }
            Node::Bool(false) if !meaningful_false(key) => return false,
            other => other,
        };
        *value = compacted;
        !value.is_empty() && !is_all_zero(value)
    });
    Node::Obj(fields)
}

fn nested_reduces(key: &str) -> bool {
    matches!(
        key,
        "milestone"
            | "iteration"
            | "epic"
            | "commit"
            | "last_commit"
            | "pipeline"
            | "head_pipeline"
            | "namespace"
            | "environment"
            | "project"
    )
}

/// In a list, a nested resource shrinks to what identifies it: a
/// milestone to its title, a commit to its short id and title, a pipeline
/// to its id and status, a namespace to its path.
fn nested_summary<'a>(key: &str, inner: Vec<(Cow<'a, str>, Node<'a>)>) -> Node<'a> {
    let pick = |inner: Vec<(Cow<'a, str>, Node<'a>)>, wanted: &[&str]| {
        Node::Obj(
            inner
                .into_iter()
                .filter(|(k, v)| wanted.contains(&k.as_ref()) && !v.is_empty())
                .collect(),
        )
    };
    let field = |inner: Vec<(Cow<'a, str>, Node<'a>)>, name: &str| {
        inner
            .into_iter()
            .find(|(k, _)| k == name)
            .map_or(Node::Null, |(_, v)| v)
    };
    match key {
        "milestone" | "iteration" | "epic" => field(inner, "title"),
        "commit" | "last_commit" => pick(inner, &["short_id", "title", "authored_date"]),
        "pipeline" | "head_pipeline" => pick(inner, &["id", "status"]),
        "namespace" => field(inner, "full_path"),
        "environment" => field(inner, "name"),
        _ => field(inner, "path_with_namespace"),
    }
}

/// A nested user: GitLab's "basic user" shape.
fn is_user(fields: &[(Cow<'_, str>, Node)]) -> bool {
    let has = |name: &str| fields.iter().any(|(k, _)| k == name);
    has("username") && has("id") && (has("avatar_url") || has("state") || has("web_url"))
}

/// `{"count": 0, "completed_count": 0}`: nothing to say.
fn is_all_zero(value: &Node) -> bool {
    match value {
        Node::Obj(fields) => fields.iter().all(|(_, v)| is_zero(v)),
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

#[cfg(test)]
mod tests {
    use std::borrow::Cow;

    use super::compact;
    use crate::render::tree::Node;

    /// `n` numbered fields with noise at a few places, compacted: the
    /// numbered ones stay, in order, whatever the object's size.
    #[test]
    fn fields_are_kept_or_dropped_in_objects_of_any_size() {
        for n in [1, 5, 63, 64, 65, 70, 130] {
            let mut fields: Vec<(Cow<str>, Node)> = (0..n)
                .map(|i| (Cow::Owned(format!("f{i}")), Node::Bool(true)))
                .collect();
            for at in [0, n / 2, n] {
                fields.insert(at, (Cow::Borrowed("_links"), Node::Bool(true)));
            }
            let Node::Obj(kept) = compact(Node::Obj(fields), None, false) else {
                panic!("an object");
            };
            let names: Vec<&str> = kept.iter().map(|(k, _)| k.as_ref()).collect();
            let expected: Vec<String> = (0..n).map(|i| format!("f{i}")).collect();
            assert_eq!(names, expected, "{n} fields");
        }
    }
}

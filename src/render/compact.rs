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

use super::compact_keys::{self, Key};
use super::tree::Node;
use crate::catalog::KindSpec;

/// Longest excerpt of a long text field in a list.
pub const EXCERPT_CHARS: usize = 160;

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

/// Whether a field is dropped whatever its value's shape; `present` holds
/// the bits of the object's fields that others may repeat.
fn dropped(class: Key, value: &Node, present: u16, top: bool) -> bool {
    class.noise()
        || (!top && class.project_id())
        || (class.count() && is_zero(value))
        || class
            .default_value()
            .is_some_and(|default| value.as_str() == Some(default))
        || class.repeats_one_of(present)
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
    // Each key looked up once; duplicates are decided on the original
    // fields, since they look at siblings.
    let classes: Vec<Key> = fields.iter().map(|(k, _)| compact_keys::key(k)).collect();
    let present = classes.iter().fold(0, |bits, c| bits | c.kept_bit());
    let mut fields = fields;
    let mut classes = classes.into_iter();
    // Kept fields are compacted where they are, not moved to a new list.
    fields.retain_mut(|(key, value)| {
        let class = classes.next().unwrap_or_default();
        if summary.is_some_and(|s| !s.contains(&key.as_ref()))
            || dropped(class, value, present, top)
        {
            return false;
        }
        let compacted = match std::mem::replace(value, Node::Null) {
            Node::Obj(inner) if in_list && class.reduced() => nested_summary(key, inner),
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
            Node::Bool(false) if !class.meaningful_false() => return false,
            other => other,
        };
        *value = compacted;
        !value.is_empty() && !is_all_zero(value)
    });
    Node::Obj(fields)
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

//! One short line of pagination facts, and how to get the next page.

use serde_json::{Map, Value};

use crate::dispatch::ValidatedCall;
use crate::encoding::{percent_decode, scalar_text};
use crate::gitlab::Pagination;

/// `page 2/5 · per_page 20 · total 93 · next: {"page": 3}`, or `None` when
/// GitLab sent no pagination headers at all.
pub fn pagination_line(call: &ValidatedCall, p: &Pagination) -> Option<String> {
    if p.is_empty() {
        return None;
    }
    let mut parts = Vec::new();
    match (p.page, p.total_pages) {
        (Some(page), Some(pages)) => parts.push(format!("page {page}/{pages}")),
        (Some(page), None) => parts.push(format!("page {page}")),
        _ => {}
    }
    if let Some(per_page) = p.per_page {
        parts.push(format!("per_page {per_page}"));
    }
    if let Some(total) = p.total {
        parts.push(format!("total {total}"));
    }
    let next = match (p.next_page, &p.next_link, &p.next_cursor) {
        (Some(page), _, _) => Some(format!("next: {{\"page\": {page}}}")),
        (None, Some(link), _) => Some(keyset_next(call, link)),
        // A GraphQL cursor: the next page is `after` it.
        (None, None, Some(cursor)) => Some(format!(
            "next: add {} to params",
            serde_json::json!({ "after": cursor })
        )),
        (None, None, None) => Some("last page".to_string()),
    };
    parts.extend(next);
    Some(format!("[{}]", parts.join(" · ")))
}

/// With keyset pagination the next page is named by cursor parameters in
/// GitLab's `Link` header; show the ones the action accepts, so the agent can
/// add them to its params.
fn keyset_next(call: &ValidatedCall, link: &str) -> String {
    let query = link.split_once('?').map(|(_, q)| q).unwrap_or("");
    let mut next = Map::new();
    for pair in query.split('&') {
        let (key, value) = pair.split_once('=').unwrap_or((pair, ""));
        let key = percent_decode(key);
        let value = percent_decode(value);
        let Some(spec) = call.action.param(&key) else {
            continue;
        };
        let given = call.arg(spec.name).map(scalar_text);
        if given.as_deref() != Some(value.as_str()) {
            next.insert(key, Value::String(value));
        }
    }
    if next.is_empty() {
        format!("next link: {link}")
    } else {
        format!("next: add {} to params", Value::Object(next))
    }
}

//! `"max_items": N` on a list: follow GitLab's pagination (the next page
//! number, or the keyset `Link`) until N items, the last page, or 1,000
//! items, reporting progress after each page; one answer with every item.
//! A cancelled call stops between pages (its future is dropped).

use serde_json::Value;

use super::{Answer, Gitlab};
use crate::dispatch::ValidatedCall;
use crate::gitlab::{HttpRequest, Pagination, Response};
use crate::render::Output;

/// The most items one call may gather, whatever it asks.
pub const MAX_FOLLOWED_ITEMS: usize = 1000;

pub async fn follow(
    call: &ValidatedCall,
    first: HttpRequest,
    max_items: usize,
    gitlab: &Gitlab<'_>,
    answer: Answer,
) -> Output {
    let wanted = max_items.min(MAX_FOLLOWED_ITEMS);
    let mut items: Vec<Value> = Vec::new();
    let mut request = first;
    let mut pages = 0;
    let last = loop {
        let response = match gitlab.send(&request).await {
            Ok(response) => response,
            Err(failed) if pages == 0 => return gitlab.failure(call, &failed),
            Err(failed) => {
                // Keep what arrived; say where it stopped.
                let mut output = gitlab.failure(call, &failed);
                output.text = format!(
                    "[stopped after {pages} pages and {} items: page {} failed]\n{}",
                    items.len(),
                    pages + 1,
                    output.text
                );
                return output;
            }
        };
        pages += 1;
        let empty = match serde_json::from_slice::<Value>(&response.body) {
            Ok(Value::Array(page)) => {
                let empty = page.is_empty();
                items.extend(page);
                empty
            }
            // Not a list after all: show it as it came.
            _ => return answer(call, &response, gitlab.render),
        };
        gitlab.progress(
            items.len().min(wanted) as f64,
            response
                .pagination
                .total
                .map(|t| t.min(wanted as u64) as f64)
                .or(Some(wanted as f64)),
            &format!("{pages} pages, {} items", items.len().min(wanted)),
        );
        match next_request(&request, &response.pagination, gitlab) {
            // An empty page ends the list, whatever its headers say: a
            // next page named on every page would be followed for ever.
            Some(next) if items.len() < wanted && !empty => request = next,
            _ => break response,
        }
    };
    let more_left = items.len() > wanted;
    items.truncate(wanted);
    let gathered = items.len();
    let merged = Response {
        body: serde_json::to_vec(&Value::Array(items))
            .expect("JSON values serialize")
            .into(),
        ..last
    };
    let mut output = answer(call, &merged, gitlab.render);
    output.text.push_str(&format!(
        "\n[followed {pages} pages: {gathered} items{}]",
        if more_left
            || merged.pagination.next_page.is_some()
            || merged.pagination.next_link.is_some()
        {
            "; more remain (the pagination line above says where to go on)"
        } else {
            "; that is all"
        }
    ));
    output
}

/// The request for the page after `response`: the next page number, or
/// the keyset `Link` (on the same API root only).
fn next_request(
    previous: &HttpRequest,
    pagination: &Pagination,
    gitlab: &Gitlab<'_>,
) -> Option<HttpRequest> {
    if let Some(page) = pagination.next_page {
        let mut query: Vec<&str> = previous
            .query
            .split('&')
            .filter(|p| !p.is_empty() && !p.starts_with("page="))
            .collect();
        let page = format!("page={page}");
        query.push(&page);
        return Some(HttpRequest {
            query: query.join("&"),
            ..previous.clone()
        });
    }
    let link = pagination.next_link.as_deref()?;
    let rest = link.strip_prefix(&gitlab.target.api_root)?;
    let (path, query) = rest.split_once('?').unwrap_or((rest, ""));
    Some(HttpRequest {
        path: path.to_string(),
        query: query.to_string(),
        ..previous.clone()
    })
}

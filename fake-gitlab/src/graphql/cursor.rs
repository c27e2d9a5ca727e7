//! Cursor pagination as GitLab's connections do it: `first` (at most 100,
//! the schema's `default_max_page_size`, which clamps rather than refuses:
//! app/graphql/gitlab_schema.rb), `after` an opaque cursor, and
//! `pageInfo { hasNextPage endCursor }`. A cursor is the keyset of the
//! last item, JSON in unpadded URL-safe base64, as GitLab's keyset
//! connections encode it (`{"created_at":"...","id":"123"}`); one that does
//! not decode is refused with GitLab's "Please provide a valid cursor".

use async_graphql::{Error, SimpleObject};
use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use serde_json::json;

/// GitLab's page size cap.
pub const MAX_PAGE_SIZE: usize = 100;

#[derive(SimpleObject, Clone, Debug)]
#[graphql(name = "PageInfo")]
pub struct PageInfo {
    pub end_cursor: Option<String>,
    pub has_next_page: bool,
}

/// Where an item sorts: its timestamp, then its id.
pub type Key = (String, u64);

/// One page of `items` (already sorted by their keys, newest first when
/// `descending`), and the number of all of them.
pub struct Page<T> {
    pub nodes: Vec<T>,
    pub info: PageInfo,
    pub count: usize,
}

pub fn paginate<T>(
    items: Vec<(Key, T)>,
    descending: bool,
    first: Option<i32>,
    after: Option<&str>,
) -> Result<Page<T>, Error> {
    let count = items.len();
    let start = match after {
        None => 0,
        Some(cursor) => {
            let key = decode(cursor).ok_or_else(|| Error::new("Please provide a valid cursor"))?;
            items
                .iter()
                .position(|(k, _)| if descending { *k < key } else { *k > key })
                .unwrap_or(count)
        }
    };
    let size = first.map_or(MAX_PAGE_SIZE, |n| {
        usize::try_from(n).unwrap_or(0).min(MAX_PAGE_SIZE)
    });
    let has_next_page = start + size < count;
    let page: Vec<(Key, T)> = items.into_iter().skip(start).take(size).collect();
    let end_cursor = page.last().map(|(k, _)| encode(k));
    Ok(Page {
        nodes: page.into_iter().map(|(_, t)| t).collect(),
        info: PageInfo {
            end_cursor,
            has_next_page,
        },
        count,
    })
}

fn encode((at, id): &Key) -> String {
    URL_SAFE_NO_PAD.encode(json!({"created_at": at, "id": id.to_string()}).to_string())
}

fn decode(cursor: &str) -> Option<Key> {
    let bytes = URL_SAFE_NO_PAD.decode(cursor.trim_end_matches('=')).ok()?;
    let value: serde_json::Value = serde_json::from_slice(&bytes).ok()?;
    let at = value.get("created_at")?.as_str()?.to_string();
    let id = value.get("id")?.as_str()?.parse().ok()?;
    Some((at, id))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn items(n: u64) -> Vec<(Key, u64)> {
        (1..=n)
            .rev()
            .map(|i| ((format!("2026-01-{i:02}"), i), i))
            .collect()
    }

    #[test]
    fn pages_follow_their_cursor_and_the_last_says_so() {
        let first = paginate(items(5), true, Some(2), None).unwrap();
        assert_eq!(first.nodes, [5, 4]);
        assert!(first.info.has_next_page);
        let cursor = first.info.end_cursor.unwrap();
        let second = paginate(items(5), true, Some(2), Some(&cursor)).unwrap();
        assert_eq!(second.nodes, [3, 2]);
        let third = paginate(items(5), true, Some(2), second.info.end_cursor.as_deref()).unwrap();
        assert_eq!(
            (third.nodes, third.info.has_next_page, third.count),
            (vec![1], false, 5)
        );
    }

    #[test]
    fn first_is_clamped_to_a_hundred_and_a_bad_cursor_refused() {
        let page = paginate(items(120), true, Some(500), None).unwrap();
        assert_eq!(page.nodes.len(), 100);
        let error = paginate(items(3), true, None, Some("not a cursor"))
            .err()
            .unwrap();
        assert_eq!(error.message, "Please provide a valid cursor");
    }
}

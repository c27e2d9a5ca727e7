//! What GitLab answered, reduced to what the server uses: status, body,
//! pagination facts and the request id. Header values other than these are
//! dropped here and never reach any output.

use bytes::Bytes;

/// A successful (2xx) answer.
#[derive(Debug, Clone)]
pub struct Response {
    pub status: u16,
    pub body: Bytes,
    /// True when GitLab said the body is JSON.
    pub is_json: bool,
    pub pagination: Pagination,
    pub request_id: Option<String>,
}

/// GitLab's pagination headers: offset (`x-page`...) and keyset (`Link`).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Pagination {
    pub page: Option<u64>,
    pub per_page: Option<u64>,
    pub next_page: Option<u64>,
    pub prev_page: Option<u64>,
    /// Absent above 10,000 records: GitLab stops counting.
    pub total: Option<u64>,
    pub total_pages: Option<u64>,
    /// The `rel="next"` link, the only way forward with keyset pagination.
    pub next_link: Option<String>,
    /// A GraphQL connection's `endCursor`, when it has a next page: the
    /// `after` of that page.
    pub next_cursor: Option<String>,
}

impl Pagination {
    /// The headers `from_headers` reads, in the order of its fields.
    pub const HEADERS: [&str; 7] = [
        "x-page",
        "x-per-page",
        "x-next-page",
        "x-prev-page",
        "x-total",
        "x-total-pages",
        "link",
    ];

    /// Read the headers GitLab documents; `get` returns one header's value.
    pub fn from_headers<'a>(get: impl Fn(&str) -> Option<&'a str>) -> Self {
        let number = |name: &str| get(name).and_then(|v| v.trim().parse().ok());
        Pagination {
            page: number("x-page"),
            per_page: number("x-per-page"),
            next_page: number("x-next-page"),
            prev_page: number("x-prev-page"),
            total: number("x-total"),
            total_pages: number("x-total-pages"),
            next_link: get("link").and_then(next_link),
            next_cursor: None,
        }
    }

    pub fn is_empty(&self) -> bool {
        *self == Pagination::default()
    }
}

/// The URL of `rel="next"` in an RFC 8288 `Link` header.
fn next_link(header: &str) -> Option<String> {
    header.split(',').find_map(|entry| {
        let (url, params) = entry.split_once(';')?;
        let is_next = params
            .split(';')
            .any(|p| matches!(p.trim(), "rel=\"next\"" | "rel=next"));
        is_next.then(|| {
            url.trim()
                .trim_start_matches('<')
                .trim_end_matches('>')
                .to_string()
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_offset_and_keyset_headers() {
        let headers = [
            ("x-page", "2"),
            ("x-per-page", "20"),
            ("x-next-page", ""),
            ("x-total", "41"),
            (
                "link",
                "<https://g/api/v4/projects?page=1>; rel=\"prev\", <https://g/api/v4/projects?id_after=9>; rel=\"next\"",
            ),
        ];
        let p =
            Pagination::from_headers(|n| headers.iter().find(|(k, _)| *k == n).map(|(_, v)| *v));
        assert_eq!(p.page, Some(2));
        assert_eq!(p.next_page, None);
        assert_eq!(p.total, Some(41));
        assert_eq!(
            p.next_link.as_deref(),
            Some("https://g/api/v4/projects?id_after=9")
        );
    }
}

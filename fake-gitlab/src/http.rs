//! Small HTTP helpers: query parsing, GitLab's error bodies, pagination.

use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde_json::{Value, json};

/// Decode `a=1&b%5B%5D=x+y` into pairs, as Rack does (`+` is a space).
pub fn parse_query(raw: &str) -> Vec<(String, String)> {
    raw.split('&')
        .filter(|p| !p.is_empty())
        .map(|pair| {
            let (k, v) = pair.split_once('=').unwrap_or((pair, ""));
            (decode(&k.replace('+', " ")), decode(&v.replace('+', " ")))
        })
        .collect()
}

/// Percent-decode one path segment or query component.
pub fn decode(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' && i + 2 < bytes.len() {
            let hex = std::str::from_utf8(&bytes[i + 1..i + 3]).ok();
            if let Some(b) = hex.and_then(|h| u8::from_str_radix(h, 16).ok()) {
                out.push(b);
                i += 3;
                continue;
            }
        }
        out.push(bytes[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

pub fn json_response(status: StatusCode, body: Value) -> Response {
    (
        status,
        [(header::CONTENT_TYPE, "application/json")],
        body.to_string(),
    )
        .into_response()
}

pub fn ok(body: Value) -> Response {
    json_response(StatusCode::OK, body)
}

pub fn created(body: Value) -> Response {
    json_response(StatusCode::CREATED, body)
}

pub fn no_content() -> Response {
    StatusCode::NO_CONTENT.into_response()
}

pub fn text(body: String) -> Response {
    (
        StatusCode::OK,
        [(header::CONTENT_TYPE, "text/plain; charset=utf-8")],
        body,
    )
        .into_response()
}

// GitLab's error bodies (docs: https://docs.gitlab.com/api/rest/troubleshooting/#status-codes):

/// A resource that is missing or invisible: `{"message":"404 Project Not Found"}`.
pub fn not_found(what: &str) -> Response {
    json_response(
        StatusCode::NOT_FOUND,
        json!({ "message": format!("404 {what} Not Found") }),
    )
}

/// A route that does not exist: `{"error":"404 Not Found"}`.
pub fn no_route() -> Response {
    json_response(StatusCode::NOT_FOUND, json!({ "error": "404 Not Found" }))
}

/// Grape's parameter validation: `{"error":"title is missing"}`.
pub fn missing(param: &str) -> Response {
    json_response(
        StatusCode::BAD_REQUEST,
        json!({ "error": format!("{param} is missing") }),
    )
}

/// Grape's enum validation: `{"error":"state does not have a valid value"}`.
pub fn invalid_value(param: &str) -> Response {
    json_response(
        StatusCode::BAD_REQUEST,
        json!({ "error": format!("{param} does not have a valid value") }),
    )
}

/// Model validation: `{"message":{"title":["can't be blank"]}}`.
pub fn validation(field: &str, problem: &str) -> Response {
    json_response(
        StatusCode::BAD_REQUEST,
        json!({ "message": { field: [problem] } }),
    )
}

/// `{"message":"..."}` with any status.
pub fn message(status: u16, text: &str) -> Response {
    json_response(
        StatusCode::from_u16(status).unwrap(),
        json!({ "message": text }),
    )
}

pub fn unauthorized() -> Response {
    message(401, "401 Unauthorized")
}

pub fn forbidden() -> Response {
    message(403, "403 Forbidden")
}

/// Offset pagination as GitLab does it: `page` from 1, `per_page` default 20
/// and at most 100, the `x-*` headers and a `Link` header with prev, next,
/// first and last. Above 10,000 records GitLab stops counting: no `x-total`,
/// no `x-total-pages`, no `rel="last"`.
pub fn paginate(items: Vec<Value>, query: &[(String, String)], url: &str) -> Response {
    let number = |name: &str, default: usize| {
        query
            .iter()
            .find(|(k, _)| k == name)
            .and_then(|(_, v)| v.parse::<usize>().ok())
            .filter(|n| *n > 0)
            .unwrap_or(default)
    };
    let page = number("page", 1);
    let per_page = number("per_page", 20).min(100);
    let total = items.len();
    let total_pages = total.div_ceil(per_page).max(1);
    let start = (page - 1).saturating_mul(per_page);
    let slice: Vec<Value> = items.into_iter().skip(start).take(per_page).collect();
    let next = (page < total_pages).then_some(page + 1);
    let prev = (page > 1).then(|| page - 1);
    let counted = total <= 10_000;

    let link_to = |p: usize| {
        let mut pairs: Vec<(String, String)> = query
            .iter()
            .filter(|(k, _)| k != "page" && k != "per_page")
            .cloned()
            .collect();
        pairs.push(("page".into(), p.to_string()));
        pairs.push(("per_page".into(), per_page.to_string()));
        let q: Vec<String> = pairs
            .iter()
            .map(|(k, v)| format!("{}={}", encode(k), encode(v)))
            .collect();
        format!("{url}?{}", q.join("&"))
    };
    let mut links = Vec::new();
    if let Some(p) = prev {
        links.push(format!("<{}>; rel=\"prev\"", link_to(p)));
    }
    if let Some(n) = next {
        links.push(format!("<{}>; rel=\"next\"", link_to(n)));
    }
    links.push(format!("<{}>; rel=\"first\"", link_to(1)));
    if counted {
        links.push(format!("<{}>; rel=\"last\"", link_to(total_pages)));
    }

    let mut response = ok(Value::Array(slice));
    let headers = response.headers_mut();
    let mut set = |name: &'static str, value: String| {
        headers.insert(name, HeaderValue::from_str(&value).unwrap());
    };
    set("x-page", page.to_string());
    set("x-per-page", per_page.to_string());
    set(
        "x-next-page",
        next.map(|n| n.to_string()).unwrap_or_default(),
    );
    set(
        "x-prev-page",
        prev.map(|n| n.to_string()).unwrap_or_default(),
    );
    if counted {
        set("x-total", total.to_string());
        set("x-total-pages", total_pages.to_string());
    }
    set("link", links.join(", "));
    response
}

/// Keyset pagination (`pagination=keyset`): no counts, only a
/// `Link: <...>; rel="next"` carrying the cursor, absent on the last page.
pub fn keyset(
    items: Vec<Value>,
    per_page: usize,
    next_query: Option<String>,
    url: &str,
) -> Response {
    let mut response = ok(Value::Array(items));
    if let Some(q) = next_query {
        response.headers_mut().insert(
            "link",
            HeaderValue::from_str(&format!("<{url}?{q}>; rel=\"next\"")).unwrap(),
        );
    }
    response.headers_mut().insert(
        "x-per-page",
        HeaderValue::from_str(&per_page.to_string()).unwrap(),
    );
    response
}

pub fn encode(text: &str) -> String {
    let mut out = String::new();
    for &b in text.as_bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~') {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

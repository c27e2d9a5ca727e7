//! The pages a person sees during sign-in: this server's own consent page
//! (naming the client and where the browser will be sent) and plain error
//! pages. Every value is HTML-escaped; no page may be framed.

use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{Html, IntoResponse, Response};

pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// A page; `form_action` is where its form may send the browser (CSP
/// sources), `'none'` for a page without one.
fn page(status: StatusCode, title: &str, body: &str, form_action: &str) -> Response {
    let html = format!(
        "<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\"><meta name=\"viewport\" content=\"width=device-width\"><title>{}</title>\
<style>body{{font-family:system-ui,sans-serif;max-width:34rem;margin:4rem auto;padding:0 1rem;line-height:1.5}}button{{font-size:1rem;padding:.5rem 1.2rem;margin-right:.5rem}}code{{background:#f3f3f3;padding:0 .2rem}}</style>\
</head><body><h1>{}</h1>{body}</body></html>",
        escape(title),
        escape(title)
    );
    let mut response = (status, Html(html)).into_response();
    let headers = response.headers_mut();
    headers.insert(header::X_FRAME_OPTIONS, HeaderValue::from_static("DENY"));
    let policy = format!(
        "default-src 'none'; style-src 'unsafe-inline'; form-action {form_action}; frame-ancestors 'none'"
    );
    // Origins as the url crate writes them are header text; were one not,
    // the page would still be sent with no form target at all.
    let policy = HeaderValue::from_str(&policy).unwrap_or(HeaderValue::from_static(
        "default-src 'none'; style-src 'unsafe-inline'; form-action 'none'; frame-ancestors 'none'",
    ));
    headers.insert(header::CONTENT_SECURITY_POLICY, policy);
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    // The page's address (the client's request) goes to no other site;
    // `no-referrer` would also make a browser send `Origin: null` with the
    // consent form, which the Origin check refuses.
    headers.insert(
        header::REFERRER_POLICY,
        HeaderValue::from_static("same-origin"),
    );
    response
}

/// A failure shown to the person, never sent to a client's redirect URI.
pub fn error(status: StatusCode, what: &str) -> Response {
    page(
        status,
        "Sign-in stopped",
        &format!(
            "<p>{}</p><p>Nothing was shared. Start the sign-in again from your MCP client.</p>",
            escape(what)
        ),
        "'none'",
    )
}

/// What the person is asked before anything goes to GitLab.
pub struct Consent<'a> {
    pub client_name: &'a str,
    pub client_id: &'a str,
    pub redirect_host: &'a str,
    pub gitlab_host: &'a str,
    /// The GitLab scopes the server asks for, space-separated.
    pub scopes: &'a str,
    pub ticket: &'a str,
    /// The origins the answer's redirects go through besides this server:
    /// GitLab's, then the client's redirect URI's. Chromium holds every
    /// redirect of a form's submission to the page's `form-action`.
    pub form_targets: &'a [String],
}

/// What a GitLab scope lets the server do, in the person's words.
fn scope_meaning(scope: &str) -> &'static str {
    match scope {
        "api" => "read and change everything your account can",
        "read_api" => "read everything your account can",
        "read_user" => "read your profile",
        "read_repository" => "read repositories",
        "write_repository" => "push to repositories",
        _ => "as GitLab defines it",
    }
}

pub fn consent(c: &Consent) -> Response {
    let scopes: String = c
        .scopes
        .split_whitespace()
        .map(|s| format!("<li><code>{}</code>: {}</li>", escape(s), scope_meaning(s)))
        .collect();
    let body = format!(
        "<p><strong>{name}</strong> asks to use GitLab at <code>{gitlab}</code> <em>as you</em>, through this gitlab-mcp server: reading and, depending on the server's settings, changing what your account can.</p>\
<p>GitLab scopes asked for:</p><ul id=\"scopes\">{scopes}</ul>\
<p>Client id: <code>{id}</code><br>After you approve, you sign in at GitLab, and then your browser is sent back to <code>{redirect}</code>.</p>\
<p>Approve only if you started this from that application.</p>\
<form method=\"post\" action=\"authorize\"><input type=\"hidden\" name=\"ticket\" value=\"{ticket}\">\
<button type=\"submit\" name=\"decision\" value=\"approve\">Approve</button><button type=\"submit\" name=\"decision\" value=\"deny\">Deny</button></form>",
        name = escape(c.client_name),
        gitlab = escape(c.gitlab_host),
        id = escape(c.client_id),
        redirect = escape(c.redirect_host),
        ticket = escape(c.ticket),
    );
    page(
        StatusCode::OK,
        "Allow access to GitLab?",
        &body,
        &format!("'self' {}", c.form_targets.join(" ")),
    )
}

#[cfg(test)]
mod tests {
    #[test]
    fn markup_is_escaped() {
        assert_eq!(
            super::escape("<a href=\"x\">&'"),
            "&lt;a href=&quot;x&quot;&gt;&amp;&#39;"
        );
    }
}

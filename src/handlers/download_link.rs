//! `download_link`: a binary download (a repository archive, an export)
//! would be bytes a model cannot read, so the action answers with the URL
//! to fetch instead of fetching it: the request the catalog builds, on the
//! call's GitLab, with how to send a token. Nothing reaches GitLab, and no
//! token is ever written into the answer.
//!
//! GitLab picks an archive's format from the path's extension
//! (`archive.zip`, lib/api/repositories.rb): a `format` value moves there.

use super::Gitlab;
use crate::catalog::RestRoute;
use crate::dispatch::ValidatedCall;
use crate::gitlab::{AuthScheme, request};
use crate::render::Output;

/// The link, and how to fetch it; nothing is sent.
pub fn run(call: &ValidatedCall, route: &RestRoute, gitlab: &Gitlab<'_>) -> Output {
    let mut request = request::build(call, route);
    let (format, rest) = take_format(&request.query);
    if let Some(format) = format {
        request.path = format!("{}.{format}", request.path);
    }
    request.query = rest;
    let url = format!("{}{}", gitlab.target.api_root, request.path_and_query());
    let header = match gitlab.target.credentials.as_ref().map(|c| c.scheme) {
        Some(AuthScheme::Bearer) => "Authorization: Bearer <token>",
        _ => "PRIVATE-TOKEN: <token>",
    };
    Output::ok(format!(
        "{url}\nA download link, not fetched: the file is binary. It needs a token that may read the project:\ncurl --fail --location --header \"{header}\" --output <file> \"{url}\""
    ))
}

/// The `format=` pair of an encoded query, and the query without it.
fn take_format(query: &str) -> (Option<String>, String) {
    let mut format = None;
    let rest: Vec<&str> = query
        .split('&')
        .filter(|pair| match pair.strip_prefix("format=") {
            Some(value) => {
                format = Some(value.to_string());
                false
            }
            None => !pair.is_empty(),
        })
        .collect();
    (format, rest.join("&"))
}

#[cfg(test)]
mod tests {
    use super::take_format;

    #[test]
    fn the_format_leaves_the_query_and_the_rest_stays_in_order() {
        assert_eq!(
            take_format("sha=main&format=zip&path=src"),
            (Some("zip".into()), "sha=main&path=src".into())
        );
        assert_eq!(take_format(""), (None, String::new()));
        assert_eq!(take_format("sha=v1"), (None, "sha=v1".into()));
    }
}

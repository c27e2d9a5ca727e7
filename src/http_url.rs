//! An http(s) URL as this server reads it wherever it trusts one: the
//! GitLab's address, `--public-url`, a browser's `Origin`, a client's
//! redirect URI and the host its consent page names, a pasted web URL.
//! One parser for all of them, the `url` crate's WHATWG parsing (how
//! browsers read URLs), and the refusals they share: another scheme, a
//! user name or password before the host (`https://app.example@evil.example/`
//! is a URL of evil.example that a person reads as app.example), and the
//! spellings WHATWG repairs silently but other readers take differently
//! (backslashes, a missing or extra slash after the scheme, tabs, newlines).
//!
//! A leaf: pure, it depends on nothing of this crate.

use std::cell::Cell;

pub use url::{Host, Url};
use url::{ParseError, SyntaxViolation};

/// Why a text is not an http(s) URL this server relies on. The text is
/// named, but for a user name or password, which may be a secret.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum HttpUrlError {
    #[error("must start with http:// or https://, got `{0}`")]
    Scheme(String),
    #[error("has no host: `{0}`")]
    NoHost(String),
    #[error("is not a URL: `{0}`")]
    NotUrl(String),
    #[error(
        "has a user name or password before its host, which a person reads as the host (not shown here)"
    )]
    Userinfo,
    #[error("is written ambiguously ({what}), so readers may disagree on its host: `{text}`")]
    Ambiguous { what: &'static str, text: String },
    #[error("has a query or a fragment, which an address cannot have: `{0}`")]
    QueryOrFragment(String),
}

/// What the parser's report says of the text: the first credential or
/// ambiguity it noticed.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Noticed {
    Nothing,
    Credentials,
    Ambiguous(&'static str),
}

/// `text` as an http(s) URL with a host and without user name or password,
/// written as every reader reads it.
pub fn parse(text: &str) -> Result<Url, HttpUrlError> {
    let noticed = Cell::new(Noticed::Nothing);
    let report = |violation: SyntaxViolation| {
        let now = match violation {
            SyntaxViolation::EmbeddedCredentials | SyntaxViolation::UnencodedAtSign => {
                Noticed::Credentials
            }
            SyntaxViolation::Backslash
            | SyntaxViolation::ExpectedDoubleSlash
            | SyntaxViolation::TabOrNewlineIgnored
            | SyntaxViolation::C0SpaceIgnored => Noticed::Ambiguous(violation.description()),
            // Characters the parser percent-encodes or keeps: no reader
            // takes the host differently for them.
            _ => Noticed::Nothing,
        };
        // Credentials outrank an ambiguity: the error must not show them.
        if noticed.get() != Noticed::Credentials && now != Noticed::Nothing {
            noticed.set(now);
        }
    };
    let parsed = Url::options()
        .syntax_violation_callback(Some(&report))
        .parse(text);
    match (parsed, noticed.get()) {
        (_, Noticed::Credentials) => Err(HttpUrlError::Userinfo),
        (Err(ParseError::RelativeUrlWithoutBase), _) => Err(HttpUrlError::Scheme(text.into())),
        (Err(ParseError::EmptyHost), _) => Err(HttpUrlError::NoHost(text.into())),
        (Err(_), _) => Err(HttpUrlError::NotUrl(text.into())),
        (Ok(_), Noticed::Ambiguous(what)) => Err(HttpUrlError::Ambiguous {
            what,
            text: text.into(),
        }),
        (Ok(url), Noticed::Nothing) => {
            if !matches!(url.scheme(), "http" | "https") {
                Err(HttpUrlError::Scheme(text.into()))
            } else if !url.username().is_empty() || url.password().is_some() {
                Err(HttpUrlError::Userinfo)
            } else if url.host_str().is_none_or(str::is_empty) {
                Err(HttpUrlError::NoHost(text.into()))
            } else {
                Ok(url)
            }
        }
    }
}

/// An address other URLs are under (a GitLab, this server): an http(s)
/// URL as `parse` takes it, without query or fragment.
pub fn parse_address(text: &str) -> Result<Url, HttpUrlError> {
    let url = parse(text)?;
    if url.query().is_some() || url.fragment().is_some() {
        return Err(HttpUrlError::QueryOrFragment(text.into()));
    }
    Ok(url)
}

/// `host`, or `host:port` when the port is not the scheme's default: the
/// host lowercase, international names in punycode, IPv6 in brackets.
pub fn authority(url: &Url) -> String {
    let host = url.host_str().unwrap_or_default();
    match url.port() {
        Some(port) => format!("{host}:{port}"),
        None => host.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn host(text: &str) -> Result<String, HttpUrlError> {
        parse(text).map(|url| authority(&url))
    }

    #[test]
    fn the_host_is_the_one_a_browser_goes_to() {
        for (text, expected) in [
            ("https://gitlab.example.com/x", "gitlab.example.com"),
            ("HTTPS://GitLab.Example.COM:443/", "gitlab.example.com"),
            ("http://h:8080/gitlab", "h:8080"),
            ("http://[::1]:80/", "[::1]"),
            ("http://[0:0::1]:9/", "[::1]:9"),
            ("https://gitlab.example.com./", "gitlab.example.com."),
            ("https://b\u{fc}cher.example/", "xn--bcher-kva.example"),
            ("http://2130706433/", "127.0.0.1"),
        ] {
            assert_eq!(host(text).as_deref(), Ok(expected), "{text}");
        }
    }

    #[test]
    fn credentials_are_refused_without_being_shown() {
        for text in [
            "https://a@b/",
            "https://app.example@evil.example/cb",
            "http://localhost:1@evil.example/",
            "https://user:secret@gitlab.example.com/",
            "https://@evil.example/",
            "https://a@b@evil.example/",
            "https://app.example%40@evil.example/",
        ] {
            let refused = parse(text).unwrap_err();
            assert_eq!(refused, HttpUrlError::Userinfo, "{text}");
            assert!(!refused.to_string().contains("secret"));
        }
    }

    #[test]
    fn spellings_readers_take_differently_are_refused() {
        for text in [
            "https://app.example\\@evil.example/",
            "https:\\\\evil.example/",
            "https:///evil.example/",
            "https:/evil.example/",
            "https:evil.example/",
            "https://app.exa\nmple/",
            "https://app.example/\t",
            " https://app.example/",
        ] {
            assert!(
                matches!(parse(text), Err(HttpUrlError::Ambiguous { .. })),
                "{text}: {:?}",
                parse(text)
            );
        }
    }

    #[test]
    fn other_schemes_and_empty_hosts_are_refused() {
        for text in [
            "javascript:alert(1)",
            "data:text/html,<script>alert(1)</script>",
            "ftp://gitlab.example.com/",
            "gitlab.example.com",
            "localhost:8080",
        ] {
            assert_eq!(
                parse(text),
                Err(HttpUrlError::Scheme(text.into())),
                "{text}"
            );
        }
        for text in ["https://", "http://:80/", "https://?x"] {
            assert_eq!(parse(text), Err(HttpUrlError::NoHost(text.into())));
        }
        assert_eq!(
            parse_address("https://gitlab.example.com/?x=1"),
            Err(HttpUrlError::QueryOrFragment(
                "https://gitlab.example.com/?x=1".into()
            ))
        );
        assert!(parse_address("https://gitlab.example.com/#top").is_err());
    }
}

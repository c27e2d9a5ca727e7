//! deploy/nginx/ says what a proxy in front of `serve --http` must do, in
//! nginx's own words: answers stream (no buffering), a call may last the
//! server's whole --call-timeout between two events, the original Host and
//! scheme are passed on, and the two instances are balanced with no
//! stickiness. Cheap, so in CI; scripts/proxy-test.sh runs the same files in
//! a real nginx (outside CI: it installs nginx and binds fixed ports).

use clap::Parser;
use gitlab_mcp::cli::{Cli, Command};

const DIR: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/deploy/nginx");

/// Each directive of an nginx file, as its words (`["proxy_buffering",
/// "off"]`), comments left out; a block's opening line is its words with
/// `{`, its end `}`.
fn directives(file: &str) -> Vec<Vec<String>> {
    let text = std::fs::read_to_string(format!("{DIR}/{file}")).unwrap();
    let mut out = Vec::new();
    for line in text.lines() {
        let line = line.split('#').next().unwrap().trim();
        for statement in line.split_inclusive([';', '{', '}']) {
            let words: Vec<String> = statement
                .trim_end_matches(';')
                .split_whitespace()
                .map(|w| w.trim_matches('"').to_string())
                .collect();
            if !words.is_empty() {
                out.push(words);
            }
        }
    }
    out
}

fn values<'a>(all: &'a [Vec<String>], name: &str) -> Vec<&'a [String]> {
    all.iter()
        .filter(|d| d[0] == name)
        .map(|d| &d[1..])
        .collect()
}

/// nginx's time: `180s`, `3m`, or bare seconds.
fn seconds(text: &str) -> u64 {
    match text.strip_suffix('m') {
        Some(m) => m.parse::<u64>().unwrap() * 60,
        None => text.trim_end_matches('s').parse().unwrap(),
    }
}

#[test]
fn the_proxy_streams_waits_for_long_calls_and_passes_host_and_scheme() {
    let proxy = directives("gitlab-mcp-proxy.conf");
    assert_eq!(
        values(&proxy, "proxy_pass"),
        [["http://gitlab_mcp".to_string()]]
    );
    assert_eq!(
        values(&proxy, "proxy_buffering"),
        [["off".to_string()]],
        "answers stream"
    );
    assert_eq!(values(&proxy, "proxy_http_version"), [["1.1".to_string()]]);

    let Command::Serve(serve) = Cli::parse_from(["gitlab-mcp", "serve"]).command else {
        unreachable!()
    };
    for timeout in ["proxy_read_timeout", "proxy_send_timeout"] {
        let set = values(&proxy, timeout);
        assert_eq!(set.len(), 1, "{timeout}");
        assert!(
            seconds(&set[0][0]) > serve.call_timeout,
            "{timeout} {} does not outlast --call-timeout {}",
            set[0][0],
            serve.call_timeout
        );
    }

    let headers: Vec<(String, String)> = values(&proxy, "proxy_set_header")
        .iter()
        .map(|v| (v[0].clone(), v[1..].join(" ")))
        .collect();
    for (name, value) in [
        ("Host", "$http_host"),
        ("X-Forwarded-Host", "$http_host"),
        ("X-Forwarded-Proto", "$scheme"),
    ] {
        assert!(
            headers.contains(&(name.to_string(), value.to_string())),
            "{name} {value} not in {headers:?}"
        );
    }
}

#[test]
fn two_instances_share_the_load_with_no_stickiness() {
    let site = directives("gitlab-mcp.conf");
    let start = site
        .iter()
        .position(|d| d == &["upstream", "gitlab_mcp", "{"])
        .expect("an upstream gitlab_mcp");
    let end = start + site[start..].iter().position(|d| d == &["}"]).unwrap();
    let upstream = &site[start + 1..end];
    assert_eq!(values(upstream, "server").len(), 2, "{upstream:?}");
    for sticky in ["ip_hash", "hash", "sticky", "sticky_cookie_insert"] {
        assert!(
            values(upstream, sticky).is_empty(),
            "{sticky} in {upstream:?}"
        );
    }
    assert!(
        site.iter()
            .any(|d| d[0] == "listen" && d.contains(&"ssl".to_string())),
        "TLS ends at the proxy"
    );
    assert_eq!(
        values(&site, "include"),
        [["snippets/gitlab-mcp-proxy.conf".to_string()]]
    );
}

//! Web URLs and references as input: what people paste
//! (`https://gitlab.example.com/acme/api/-/merge_requests/12`,
//! `acme/api#42`) read as the parameters they stand for, by the shapes in
//! `catalog/urls.toml`. Pure: the GitLab's web address is given, nothing
//! is fetched.

use std::fmt;

use crate::catalog::{self, UrlShape};
use crate::encoding::percent_decode;
use crate::http_url::{self, HttpUrlError, Url};

/// What a URL or a reference stands for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Parsed {
    /// The project or group it is in.
    pub namespace: Namespace,
    /// Values with the parameter names each may fill, best first.
    pub values: Vec<(Vec<&'static str>, String)>,
    /// The shape matched, if the URL named a resource.
    pub resource: Option<Resource>,
    /// A `#note_123` anchor.
    pub note: Option<String>,
    /// The index in `values` of a one-segment value followed by the rest
    /// of the path (`blob/{ref}/{file_path*}`): a ref holding a `/` cannot
    /// be told from the path after it, so a call that names the ref may
    /// move the split.
    pub split_before_rest: Option<usize>,
}

/// The namespace a URL or a reference is in.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Namespace {
    /// A project's full path (`group/project`).
    Project(String),
    /// A group's full path, from a group's page (`groups/<path>/-/epics/5`).
    Group(String),
}

impl Namespace {
    pub fn path(&self) -> &str {
        match self {
            Namespace::Project(path) | Namespace::Group(path) => path,
        }
    }
}

/// What kind of resource a URL names, and what reads it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Resource {
    pub what: &'static str,
    pub tool: &'static str,
    pub action: &'static str,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum UrlProblem {
    /// The URL is on another GitLab than the one this server talks to.
    OtherHost { given: String, expected: String },
    /// Under the right host, but not under the GitLab's path.
    OutsideGitLab { given: String, base: String },
    /// Not a shape this server reads.
    Unrecognized { given: String },
    /// A URL of another kind than the action takes.
    NotHere { given: String, resource: Resource },
    /// Not a URL any reader takes the same way (a user name before the
    /// host, a backslash...).
    Invalid(HttpUrlError),
    /// A group's page where a project is expected.
    GroupPage { given: String },
    /// The URL and a parameter given beside it disagree.
    Conflict {
        param: &'static str,
        from_url: String,
        given: String,
    },
}

impl fmt::Display for UrlProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            UrlProblem::OtherHost { given, expected } => write!(
                f,
                "`url` is on {given}, but this server works with the GitLab at {expected}"
            ),
            UrlProblem::OutsideGitLab { given, base } => {
                write!(
                    f,
                    "`url` `{given}` is not under this server's GitLab, {base}"
                )
            }
            UrlProblem::Unrecognized { given } => write!(
                f,
                "`url` `{given}` is not a GitLab URL this server reads (issues, work items, epics, merge requests, pipelines, jobs, commits, files, trees, compare, releases, tags, wikis, snippets, environments, branches, a project or a group), nor a reference such as group/project#42"
            ),
            UrlProblem::Invalid(problem) => write!(f, "`url` {problem}"),
            UrlProblem::NotHere { given, resource } => write!(
                f,
                "`url` `{given}` is {}: `{}` action `{}` reads it",
                resource.what, resource.tool, resource.action
            ),
            UrlProblem::GroupPage { given } => write!(
                f,
                "`url` `{given}` is a group's page, but this action works on a project"
            ),
            UrlProblem::Conflict {
                param,
                from_url,
                given,
            } => write!(
                f,
                "`url` says {param} {from_url}, but `{param}` is {given}: give one or the other"
            ),
        }
    }
}

/// Whether `text` is a web URL (rather than a path or a reference).
pub fn is_web_url(text: &str) -> bool {
    let lower = text.trim_start().to_ascii_lowercase();
    lower.starts_with("https://") || lower.starts_with("http://")
}

/// Read a web URL on the GitLab at `base` (its address without `/api/v4`),
/// or a reference such as `group/project#42`.
pub fn parse(text: &str, base: &str) -> Result<Parsed, UrlProblem> {
    let text = text.trim();
    if is_web_url(text) {
        parse_url(text, base)
    } else {
        parse_reference(text).ok_or_else(|| UrlProblem::Unrecognized {
            given: text.to_string(),
        })
    }
}

/// The project of a project's web URL, whatever follows it (`/-/issues`,
/// `/-/settings`...).
pub fn parse_project(text: &str, base: &str) -> Result<String, UrlProblem> {
    let text = text.trim();
    match parse_url_parts(text, base)? {
        (Namespace::Project(project), _, _) => Ok(project),
        (Namespace::Group(_), _, _) => Err(UrlProblem::GroupPage {
            given: text.to_string(),
        }),
    }
}

fn parse_url(text: &str, base: &str) -> Result<Parsed, UrlProblem> {
    let (namespace, rest, note) = parse_url_parts(text, base)?;
    let mut parsed = Parsed {
        namespace,
        values: Vec::new(),
        resource: None,
        note,
        split_before_rest: None,
    };
    if rest.is_empty() {
        return Ok(parsed);
    }
    let segments: Vec<String> = rest.split('/').map(percent_decode).collect();
    let (shape, matched) = catalog::url_shapes()
        .iter()
        .find_map(|shape| match_shape(shape, &segments).map(|m| (shape, m)))
        .ok_or_else(|| UrlProblem::Unrecognized {
            given: text.to_string(),
        })?;
    parsed.values = matched.values;
    parsed.split_before_rest = matched.split_before_rest;
    parsed.resource = Some(Resource {
        what: shape.what,
        tool: shape.tool,
        action: shape.action,
    });
    Ok(parsed)
}

/// The namespace, what follows `/-/`, and a note anchor.
fn parse_url_parts(
    text: &str,
    base: &str,
) -> Result<(Namespace, String, Option<String>), UrlProblem> {
    let unrecognized = || UrlProblem::Unrecognized {
        given: text.to_string(),
    };
    let given = http_url::parse(text).map_err(UrlProblem::Invalid)?;
    let gitlab = http_url::parse(base).ok();
    if let Some(problem) = other_gitlab(&given, gitlab.as_ref(), base) {
        return Err(problem);
    }
    let base_path = gitlab
        .as_ref()
        .map_or("", |g| g.path().trim_end_matches('/'));
    // The query goes; a note anchor is kept.
    let fragment = given.fragment();
    // `/gitlabx/...` is not under a GitLab at `/gitlab` (found by fuzzing).
    let under = given
        .path()
        .strip_prefix(base_path)
        .filter(|rest| rest.is_empty() || rest.starts_with('/'));
    let Some(path) = under else {
        return Err(UrlProblem::OutsideGitLab {
            given: text.to_string(),
            base: base.to_string(),
        });
    };
    let path = path.trim_matches('/');
    let (owner, rest) = match path.split_once("/-/") {
        Some((owner, rest)) => (owner, rest.trim_matches('/')),
        None => (path, ""),
    };
    // `groups` is a reserved top-level path (GitLab's
    // Gitlab::PathRegex::TOP_LEVEL_ROUTES): what follows it is a group.
    let namespace = match owner.strip_prefix("groups/") {
        Some(group) if !group.is_empty() => Namespace::Group(percent_decode(group)),
        _ if owner.is_empty() || !owner.contains('/') => return Err(unrecognized()),
        _ => Namespace::Project(percent_decode(owner)),
    };
    let note = fragment
        .and_then(|f| f.strip_prefix("note_"))
        .filter(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
        .map(str::to_string);
    Ok((namespace, rest.to_string(), note))
}

/// Why `given` is not on the GitLab at `gitlab` (`base` as configured), if
/// it is not: the origins differ (scheme, host, port, the default port
/// being no port). A host's trailing dot names the same host in DNS, and
/// the pasted URL is only read, never fetched: it is the same GitLab.
fn other_gitlab(given: &Url, gitlab: Option<&Url>, base: &str) -> Option<UrlProblem> {
    let Some(gitlab) = gitlab else {
        return Some(UrlProblem::OtherHost {
            given: http_url::authority(given),
            expected: base.to_string(),
        });
    };
    // Only a domain name can end in a dot.
    let site = |url: &Url| {
        let host = url.host_str().unwrap_or_default();
        let host = host.strip_suffix('.').unwrap_or(host).to_string();
        (url.scheme().to_string(), host, url.port_or_known_default())
    };
    if site(given) == site(gitlab) {
        return None;
    }
    // Hosts name the GitLabs; where only the scheme tells them apart, the
    // origins do.
    let (given, expected) = match (http_url::authority(given), http_url::authority(gitlab)) {
        (g, e) if g == e => (
            given.origin().ascii_serialization(),
            gitlab.origin().ascii_serialization(),
        ),
        names => names,
    };
    Some(UrlProblem::OtherHost { given, expected })
}

/// What a shape's placeholders took from a URL.
struct Matched {
    values: Vec<(Vec<&'static str>, String)>,
    split_before_rest: Option<usize>,
}

/// The parameter values `segments` give for `shape`, if they match it. A
/// placeholder may name several parameters, best first: `{a|b}`.
fn match_shape(shape: &UrlShape, segments: &[String]) -> Option<Matched> {
    let pattern: Vec<&'static str> = shape.path.split('/').collect();
    let names = |inside: &'static str| inside.split('|').collect::<Vec<_>>();
    let mut values = Vec::new();
    let mut i = 0;
    for (n, part) in pattern.iter().enumerate() {
        if *part == "..." && n == pattern.len() - 1 {
            return Some(Matched {
                values,
                split_before_rest: None,
            });
        }
        if let Some(name) = part.strip_prefix('{').and_then(|p| p.strip_suffix("*}")) {
            let rest = segments.get(i..).filter(|r| !r.is_empty())?.join("/");
            // A one-segment placeholder just before the rest of the path.
            let split_before_rest = (n > 0 && pattern[n - 1].starts_with('{'))
                .then(|| values.len().checked_sub(1))
                .flatten();
            values.push((names(name), rest));
            return Some(Matched {
                values,
                split_before_rest,
            });
        }
        let segment = segments.get(i)?;
        if let Some((a, b)) = part
            .strip_prefix('{')
            .and_then(|p| p.strip_suffix('}'))
            .and_then(|p| p.split_once("}...{"))
        {
            let (left, right) = segment.split_once("...")?;
            if left.is_empty() || right.is_empty() {
                return None;
            }
            values.push((names(a), left.to_string()));
            values.push((names(b), right.to_string()));
        } else if let Some(name) = part.strip_prefix('{').and_then(|p| p.strip_suffix('}')) {
            if segment.is_empty() {
                return None;
            }
            values.push((names(name), segment.clone()));
        } else if part != segment {
            return None;
        }
        i += 1;
    }
    (i == segments.len()).then_some(Matched {
        values,
        split_before_rest: None,
    })
}

/// `group/project#42`, `group/project!12`, `group/project$7`.
fn parse_reference(text: &str) -> Option<Parsed> {
    catalog::references().iter().find_map(|(prefix, params)| {
        let (project, number) = text.rsplit_once(*prefix)?;
        let plausible = project.contains('/')
            && !project.contains(['#', '!', '$', ' '])
            && !number.is_empty()
            && number.bytes().all(|b| b.is_ascii_digit());
        if !plausible {
            return None;
        }
        let resource = catalog::url_shapes()
            .iter()
            .find(|s| {
                s.path.contains(&format!("{{{}}}", params[0]))
                    || s.path.contains(&format!("{{{}|", params[0]))
            })
            .map(|s| Resource {
                what: s.what,
                tool: s.tool,
                action: s.action,
            });
        Some(Parsed {
            namespace: Namespace::Project(project.to_string()),
            values: vec![(params.to_vec(), number.to_string())],
            resource,
            note: None,
            split_before_rest: None,
        })
    })
}

/// `#42` as the number 42, where `param` may take that kind of reference.
pub fn reference_number(param: &str, text: &str) -> Option<i64> {
    let mut chars = text.trim().chars();
    let prefix = chars.next()?;
    let allowed = catalog::references()
        .iter()
        .any(|(p, params)| *p == prefix && params.contains(&param));
    allowed.then(|| chars.as_str().parse().ok()).flatten()
}

#[cfg(test)]
mod tests {
    use super::*;

    const BASE: &str = "https://gitlab.example.com";

    fn values(p: &Parsed) -> Vec<(&str, &str)> {
        p.values.iter().map(|(n, v)| (n[0], v.as_str())).collect()
    }

    #[test]
    fn resource_urls_become_their_parameters() {
        let p = parse(
            "https://gitlab.example.com/acme/platform/api/-/merge_requests/12/diffs",
            BASE,
        )
        .unwrap();
        assert_eq!(p.namespace, Namespace::Project("acme/platform/api".into()));
        assert_eq!(values(&p), [("merge_request_iid", "12")]);
        let p = parse(
            "https://gitlab.example.com/acme/api/-/blob/main/src/a%20b.rs#L10",
            BASE,
        )
        .unwrap();
        assert_eq!(values(&p), [("ref", "main"), ("file_path", "src/a b.rs")]);
        let p = parse(
            "https://gitlab.example.com/acme/api/-/compare/v1.0...main",
            BASE,
        )
        .unwrap();
        assert_eq!(values(&p), [("from", "v1.0"), ("to", "main")]);
        let p = parse(
            "https://gitlab.example.com/acme/api/-/issues/4#note_991",
            BASE,
        )
        .unwrap();
        assert_eq!(p.note.as_deref(), Some("991"));
        assert_eq!(p.split_before_rest, None);
        let p = parse("https://gitlab.example.com/acme/api", BASE).unwrap();
        assert!(p.values.is_empty() && p.resource.is_none());
    }

    #[test]
    fn a_groups_page_names_the_group_and_a_placeholder_may_fill_several_names() {
        let p = parse("https://gitlab.example.com/groups/acme/web/-/epics/5", BASE).unwrap();
        assert_eq!(p.namespace, Namespace::Group("acme/web".into()));
        assert_eq!(
            p.values,
            [(vec!["work_item_iid"], "5".to_string())],
            "{p:?}"
        );
        let p = parse("https://gitlab.example.com/groups/acme", BASE).unwrap();
        assert_eq!(
            (p.namespace, p.values),
            (Namespace::Group("acme".into()), vec![])
        );
        assert_eq!(
            parse_project("https://gitlab.example.com/groups/acme/-/epics/5", BASE),
            Err(UrlProblem::GroupPage {
                given: "https://gitlab.example.com/groups/acme/-/epics/5".into()
            })
        );
        let p = parse("https://gitlab.example.com/acme/api/-/work_items/9", BASE).unwrap();
        assert_eq!(
            p.values,
            [(vec!["issue_iid", "work_item_iid"], "9".to_string())]
        );
    }

    #[test]
    fn a_value_before_the_rest_of_the_path_is_marked_as_a_movable_split() {
        let p = parse(
            "https://gitlab.example.com/acme/api/-/tree/feature/login/src",
            BASE,
        )
        .unwrap();
        assert_eq!(values(&p), [("ref", "feature"), ("path", "login/src")]);
        assert_eq!(p.split_before_rest, Some(0));
        let p = parse("https://gitlab.example.com/acme/api/-/wikis/a/b", BASE).unwrap();
        assert_eq!(p.split_before_rest, None);
    }

    #[test]
    fn a_path_that_only_begins_like_the_gitlabs_sub_path_is_outside_it() {
        // Found by the `web_url` fuzz target: `/gitlabx/acme/api` was read
        // as project `x/acme/api` of the GitLab at `/gitlab`.
        assert!(matches!(
            parse(
                "https://example.com/gitlabx/acme/api/-/issues/1",
                "https://example.com/gitlab"
            ),
            Err(UrlProblem::OutsideGitLab { .. })
        ));
    }

    #[test]
    fn a_gitlab_under_a_sub_path_and_other_hosts() {
        let p = parse(
            "https://example.com/gitlab/acme/api/-/jobs/7",
            "https://example.com/gitlab",
        )
        .unwrap();
        assert_eq!(
            (p.namespace.path(), values(&p)),
            ("acme/api", vec![("job_id", "7")])
        );
        assert_eq!(
            parse("https://gitlab.com/acme/api/-/issues/1", BASE),
            Err(UrlProblem::OtherHost {
                given: "gitlab.com".into(),
                expected: "gitlab.example.com".into()
            })
        );
        assert!(matches!(
            parse("https://gitlab.example.com/acme/api/-/settings/ci_cd", BASE),
            Err(UrlProblem::Unrecognized { .. })
        ));
    }

    #[test]
    fn the_gitlab_is_told_by_its_parsed_origin() {
        // The same GitLab, however its host and port are written.
        for url in [
            "https://GITLAB.Example.com/acme/api/-/issues/4",
            "HTTPS://gitlab.example.com:443/acme/api/-/issues/4",
            "https://gitlab.example.com./acme/api/-/issues/4",
            "https://gitlab.example.com/acme/api/-/issues/4?x=1#note_5",
        ] {
            let p = parse(url, BASE).unwrap();
            assert_eq!(
                (p.namespace.path(), values(&p)),
                ("acme/api", vec![("issue_iid", "4")]),
                "{url}"
            );
        }
        // Another GitLab, whatever a person reads first.
        for (url, given) in [
            (
                "https://gitlab.example.com@evil.example/acme/api/-/issues/4",
                None,
            ),
            (
                "https://gitlab.example.com:8443/acme/api/-/issues/4",
                Some("gitlab.example.com:8443"),
            ),
            (
                "http://gitlab.example.com/acme/api/-/issues/4",
                Some("http://gitlab.example.com"),
            ),
            (
                "https://gitlab.example.com.evil.example/acme/api/-/issues/4",
                Some("gitlab.example.com.evil.example"),
            ),
            (
                "https://gitl\u{430}b.example.com/acme/api/-/issues/4",
                Some("xn--gitlb-7ve.example.com"),
            ),
        ] {
            match (parse(url, BASE), given) {
                (Err(UrlProblem::OtherHost { given, .. }), Some(expected)) => {
                    assert_eq!(given, expected, "{url}")
                }
                (Err(UrlProblem::Invalid(HttpUrlError::Userinfo)), None) => {}
                (other, _) => panic!("{url}: {other:?}"),
            }
        }
        assert!(matches!(
            parse("https://gitlab.example.com\\@evil.example/a/b", BASE),
            Err(UrlProblem::Invalid(HttpUrlError::Ambiguous { .. }))
        ));
        // Dot segments are resolved as a browser resolves them.
        assert!(matches!(
            parse(
                "https://example.com/gitlab/../acme/api/-/issues/1",
                "https://example.com/gitlab"
            ),
            Err(UrlProblem::OutsideGitLab { .. })
        ));
    }

    #[test]
    fn references_read_as_their_numbers() {
        let p = parse("acme/api#42", BASE).unwrap();
        assert_eq!(p.namespace, Namespace::Project("acme/api".into()));
        assert_eq!(
            p.values[0],
            (
                vec!["issue_iid", "target_issue_iid", "work_item_iid"],
                "42".to_string()
            )
        );
        let p = parse("acme/api!12", BASE).unwrap();
        assert_eq!(p.values[0].0, vec!["merge_request_iid"]);
        assert_eq!(reference_number("issue_iid", "#42"), Some(42));
        assert_eq!(reference_number("merge_request_iid", "!12"), Some(12));
        assert_eq!(reference_number("issue_iid", "!12"), None);
        assert!(parse("not a url", BASE).is_err());
    }
}

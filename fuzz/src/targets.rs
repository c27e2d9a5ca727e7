//! The fuzz targets' bodies: plain functions of the input bytes that panic
//! when an invariant breaks. libFuzzer drives them from `fuzz_targets/`
//! (`scripts/fuzz.sh`); `tests/it/fuzz_seeds.rs` in the main crate includes
//! this file and runs every seed in `fuzz/seeds/` (and a few thousand
//! mutations of them) through the same functions on every `cargo test`.
//!
//! Depends only on what the main crate's tests also have: `gitlab_mcp`,
//! `serde_json`, `bytes` and `reqwest`.

use std::sync::OnceLock;

use gitlab_mcp::catalog::{self, ActionSpec, ArrayStyle, Location, Route, ToolSpec};
use gitlab_mcp::dispatch::{self, ValidatedCall};
use gitlab_mcp::gitlab::{GitLabError, Pagination, Response, StatusError};
use gitlab_mcp::render;
use gitlab_mcp::signin::Sealer;
use serde_json::{Map, Value};

/// What a renderer may write past its cap (see `tests/it/properties.rs`).
pub const FOOTER_ALLOWANCE: usize = 1024;

struct Case {
    tool: &'static ToolSpec,
    action: &'static ActionSpec,
    example: Map<String, Value>,
}

/// Every REST action of the catalog with its minimal valid call.
fn cases() -> &'static [Case] {
    static CASES: OnceLock<Vec<Case>> = OnceLock::new();
    CASES.get_or_init(|| {
        let mut cases = Vec::new();
        for tool in catalog::tools() {
            for action in tool.actions {
                if !matches!(action.route, Route::Rest(_)) {
                    continue;
                }
                let Ok(Value::Object(example)) =
                    serde_json::from_str(&catalog::example_envelope(action))
                else {
                    panic!("{}.{}: the example is an object", tool.name, action.name);
                };
                cases.push(Case {
                    tool,
                    action,
                    example,
                });
            }
        }
        cases
    })
}

/// The case the first two bytes name, and the rest of the input.
fn pick(data: &[u8]) -> Option<(&'static Case, &[u8])> {
    let (head, rest) = data.split_at_checked(2)?;
    let cases = cases();
    let index = u16::from_le_bytes([head[0], head[1]]) as usize % cases.len();
    Some((&cases[index], rest))
}

fn call_of(case: &Case, args: Map<String, Value>) -> Option<ValidatedCall> {
    dispatch::decode(case.tool, catalog::tools(), args, Some(WEB_BASES[0])).ok()
}

/// The envelope decoder on any JSON: the first byte picks the tool, the
/// rest is the arguments. A call that decodes is built into a request,
/// which must keep the request invariants.
pub fn decode(data: &[u8]) {
    let Some((&first, rest)) = data.split_first() else {
        return;
    };
    let tools = catalog::tools();
    let tool = &tools[first as usize % tools.len()];
    let Ok(Value::Object(args)) = serde_json::from_slice::<Value>(rest) else {
        return;
    };
    match dispatch::decode(tool, tools, args, Some(WEB_BASES[0])) {
        Ok(call) => {
            if let Route::Rest(route) = &call.action.route
                && let Ok(request) = gitlab_mcp::handlers::request(&call, route)
            {
                check_request(&call, route, &request);
            }
        }
        Err(e) => {
            let _ = e.to_string();
        }
    }
}

/// Request building with path and query values taken from the input: the
/// first two bytes pick the action, the rest (as text, split at NUL) fills
/// its string path and query parameters in order.
pub fn request(data: &[u8]) {
    let Some((case, rest)) = pick(data) else {
        return;
    };
    let text = String::from_utf8_lossy(rest);
    let mut values = text.split('\0');
    let mut args = case.example.clone();
    let params = args
        .get_mut("params")
        .and_then(Value::as_object_mut)
        .expect("the example has params");
    for spec in case.action.params {
        let settable = matches!(spec.location, Location::Path | Location::Query)
            && spec.allowed.is_empty()
            && matches!(
                spec.ty,
                catalog::ParamType::String | catalog::ParamType::Array
            );
        if !settable {
            continue;
        }
        let Some(value) = values.next() else { break };
        params.insert(spec.name.to_string(), Value::String(value.to_string()));
    }
    let Some(call) = call_of(case, args) else {
        return;
    };
    let Route::Rest(route) = &case.action.route else {
        return;
    };
    if let Ok(request) = gitlab_mcp::handlers::request(&call, route) {
        check_request(&call, route, &request);
    }
}

/// The request invariants: the template's segments exactly (one more per
/// `/` of a `segments` value), no empty or dot segment, a path a URL
/// parser keeps, one query pair per value given.
pub fn check_request(
    call: &ValidatedCall,
    route: &catalog::RestRoute,
    request: &gitlab_mcp::gitlab::HttpRequest,
) {
    let mut expected = route.template.split('/').count();
    for arg in &call.args {
        if arg.spec.style == ArrayStyle::Segments
            && let Value::String(v) = &arg.value
        {
            expected += v.split('/').count() - 1;
        }
    }
    let segments: Vec<&str> = request.path.split('/').collect();
    assert_eq!(
        segments.len(),
        expected,
        "{} for {}",
        request.path,
        route.template
    );
    for s in &segments[1..] {
        let dots = s.to_ascii_lowercase().replace("%2e", ".");
        assert!(
            !s.is_empty() && dots != "." && dots != "..",
            "segment {s:?} in {}",
            request.path
        );
    }
    let url = format!("http://gitlab.test/api/v4{}", request.path_and_query());
    if let Some(path) = url_path(&url) {
        assert_eq!(path, format!("/api/v4{}", request.path), "{url}");
    }
    let mut pairs = 0;
    for arg in call
        .args
        .iter()
        .filter(|a| a.spec.location == Location::Query)
    {
        pairs += implied(&arg.value, arg.spec.style);
    }
    for fixed in call
        .action
        .fixed
        .iter()
        .filter(|f| f.location != Location::Body)
    {
        let value: Value = serde_json::from_str(fixed.json).expect("fixed values are JSON");
        pairs += implied(&value, ArrayStyle::Brackets);
    }
    let got = if request.query.is_empty() {
        0
    } else {
        request.query.split('&').count()
    };
    assert_eq!(got, pairs, "{}", request.query);
}

/// The path a URL parser keeps (reqwest's, the one the client uses).
fn url_path(url: &str) -> Option<String> {
    reqwest::Url::parse(url).ok().map(|u| u.path().to_string())
}

fn implied(value: &Value, style: ArrayStyle) -> usize {
    match value {
        Value::Array(_) if style == ArrayStyle::Csv => 1,
        Value::Array(items) => items.len(),
        Value::Object(map) => map.values().map(|v| implied(v, ArrayStyle::Brackets)).sum(),
        _ => 1,
    }
}

/// GitLab's error bodies: the first two bytes are the status, the rest the
/// body. The message is cut at its limit, and the failure text renders.
pub fn status_error(data: &[u8]) {
    let Some((case, body)) = pick(data) else {
        return;
    };
    let status = u16::from_le_bytes([data[0], data[1]]);
    let error = StatusError::from_parts(status, body, Some("01FUZZ".into()), None);
    if let Some(message) = &error.message {
        assert!(message.chars().count() <= gitlab_mcp::gitlab::error::MESSAGE_LIMIT + 1);
    }
    let Some(call) = call_of(case, case.example.clone()) else {
        return;
    };
    let context = render::Context {
        has_token: status.is_multiple_of(2),
        attempts: 1 + u32::from(status % 3),
        connect_timeout_secs: 10,
        request_timeout_secs: 30,
    };
    let _ = render::failure(&call, &GitLabError::Status(error), &context);
}

/// Pagination headers: the input's lines are the values of `x-page`,
/// `x-per-page`, `x-next-page`, `x-prev-page`, `x-total`,
/// `x-total-pages` and `link`, in that order; the pagination line of a
/// list renders from them (keyset links are decoded for their cursors).
pub fn pagination(data: &[u8]) {
    const NAMES: [&str; 7] = Pagination::HEADERS;
    let Some((case, rest)) = pick(data) else {
        return;
    };
    let text = String::from_utf8_lossy(rest);
    let values: Vec<&str> = text.split('\n').collect();
    let p = Pagination::from_headers(|name| {
        let i = NAMES.iter().position(|n| *n == name)?;
        values.get(i).copied().filter(|v| !v.is_empty())
    });
    if let Some(link) = &p.next_link {
        assert!(values.get(6).is_some_and(|l| l.contains(link.as_str())));
    }
    if let Some(call) = call_of(case, case.example.clone()) {
        let _ = render::pagination_line(&call, &p);
    }
}

/// A sealed value of any text never panics `open`; and a real sealed
/// value changed by the input (each pair of bytes: a position and a new
/// byte) never opens.
pub fn seal(data: &[u8]) {
    static SEALER: OnceLock<(Sealer, String)> = OnceLock::new();
    let (sealer, sealed) = SEALER.get_or_init(|| {
        let sealer = Sealer::new("0123456789abcdef0123456789abcdef-fuzzing").unwrap();
        let sealed = sealer.seal("access", &serde_json::json!({"token": "glpat-x", "exp": 9}));
        (sealer, sealed)
    });
    if let Ok(text) = std::str::from_utf8(data) {
        let _ = sealer.open::<Value>("access", text);
    }
    let mut mutated = sealed.clone().into_bytes();
    for pair in data.chunks_exact(2) {
        let at = pair[0] as usize % (mutated.len() + 1);
        match pair[1] {
            // A byte's top values remove or cut instead of replacing.
            0xff => {
                if at < mutated.len() {
                    mutated.remove(at);
                }
            }
            0xfe => mutated.truncate(at),
            b if at == mutated.len() => mutated.push(b),
            b => mutated[at] = b,
        }
    }
    let Ok(mutated) = String::from_utf8(mutated) else {
        return;
    };
    if mutated != *sealed {
        assert!(
            sealer.open::<Value>("access", &mutated).is_err(),
            "{mutated} opened as {sealed}"
        );
    }
}

/// GitLab's answer to any action: the first two bytes pick the action,
/// the next two the size cap (1 KiB to 64 KiB) and the view, the rest is
/// the body. The text stays within the cap and its footer allowance.
pub fn render(data: &[u8]) {
    let Some((case, rest)) = pick(data) else {
        return;
    };
    let Some((view, body)) = rest.split_at_checked(2) else {
        return;
    };
    let max_bytes = 1024 + (view[0] as usize % 64) * 1024;
    let mut args = case.example.clone();
    if view[1] & 1 != 0 {
        args.insert("raw".into(), Value::Bool(true));
    }
    if view[1] & 2 != 0 {
        args.insert("fields".into(), Value::String("id,title,name,diff".into()));
    }
    if view[1] & 4 != 0 {
        args.insert("lines".into(), Value::String("-40".into()));
    }
    let call = call_of(case, args).or_else(|| call_of(case, case.example.clone()));
    let Some(call) = call else { return };
    let response = Response {
        status: 200,
        body: bytes::Bytes::copy_from_slice(body),
        is_json: true,
        pagination: Pagination {
            page: Some(1),
            next_page: (view[1] & 8 != 0).then_some(2),
            ..Pagination::default()
        },
        request_id: None,
    };
    let options = render::Options {
        max_bytes,
        structured: view[1] & 16 != 0,
    };
    let output = render::success(&call, &response, options);
    assert!(
        output.text.len() <= max_bytes + FOOTER_ALLOWANCE,
        "{}.{}: {} bytes for a cap of {max_bytes}:\n{}",
        case.tool.name,
        case.action.name,
        output.text.len(),
        output.text
    );
}

/// A project's path has a group and a name; a group's page names a group.
fn plausible(namespace: &gitlab_mcp::dispatch::web_url::Namespace) -> bool {
    use gitlab_mcp::dispatch::web_url::Namespace;
    match namespace {
        Namespace::Project(path) => path.contains('/'),
        Namespace::Group(path) => !path.is_empty(),
    }
}

/// The GitLab addresses the `web_url` target reads URLs against: a host, a
/// GitLab under a sub-path, a port.
const WEB_BASES: [&str; 3] = [
    "https://gitlab.example.com",
    "https://example.com/gitlab",
    "http://127.0.0.1:8080",
];

/// Web URLs and references: the first byte picks the GitLab's address, the
/// rest is what an agent pasted. Parsing never panics and its problems
/// render; a URL that parses lies under the GitLab's address; and a URL or
/// reference built from project segments taken from the input parses back
/// to that project and issue.
pub fn web_url(data: &[u8]) {
    use gitlab_mcp::dispatch::web_url;
    let Some((&first, rest)) = data.split_first() else {
        return;
    };
    let base = WEB_BASES[first as usize % WEB_BASES.len()];
    let text = String::from_utf8_lossy(rest);
    match web_url::parse(&text, base) {
        Ok(parsed) if web_url::is_web_url(&text) => {
            // On the GitLab's origin (a host's trailing dot being the same
            // host) and under its path, as a browser reads both.
            let given = reqwest::Url::parse(text.trim())
                .unwrap_or_else(|e| panic!("{text:?} parsed, but is no URL: {e}"));
            let gitlab = reqwest::Url::parse(base).unwrap();
            assert_eq!(
                (
                    given.scheme(),
                    given.host_str().map(|h| h.trim_end_matches('.')),
                    given.port_or_known_default()
                ),
                (
                    gitlab.scheme(),
                    gitlab.host_str(),
                    gitlab.port_or_known_default()
                ),
                "{text:?} parsed, but is not on {base}"
            );
            let under = given
                .path()
                .strip_prefix(gitlab.path().trim_end_matches('/'))
                .unwrap_or_else(|| panic!("{text:?} parsed, but is not under {base}"));
            assert!(
                under.starts_with('/'),
                "{text:?} parsed, but is not under {base}"
            );
            assert!(
                plausible(&parsed.namespace),
                "{text:?}: namespace {:?}",
                parsed.namespace
            );
        }
        Ok(parsed) => assert!(plausible(&parsed.namespace), "{text:?}"),
        Err(problem) => {
            let _ = problem.to_string();
        }
    }
    let _ = web_url::reference_number("issue_iid", &text);

    let segments: Vec<String> = rest
        .split(|b| *b == b'/')
        .take(4)
        .map(|s| {
            s.iter()
                .filter(|b| b.is_ascii_alphanumeric() || b"-_.".contains(b))
                .map(|&b| b as char)
                .collect::<String>()
        })
        // `-` separates a project from its pages, `.` and `..` are no names.
        .filter(|s| !s.is_empty() && !matches!(s.as_str(), "-" | "." | ".."))
        .collect();
    if segments.len() < 2 {
        return;
    }
    let project = segments.join("/");
    let iid = (first as u32 + 1).to_string();
    let expected = vec![(vec!["issue_iid", "work_item_iid"], iid.clone())];
    let url = format!("{base}/{project}/-/issues/{iid}#note_7");
    let parsed = web_url::parse(&url, base).unwrap_or_else(|e| panic!("{url}: {e}"));
    let expected_namespace = match project.strip_prefix("groups/") {
        Some(group) => web_url::Namespace::Group(group.to_string()),
        None => web_url::Namespace::Project(project.clone()),
    };
    assert_eq!(parsed.namespace, expected_namespace, "{url}");
    assert_eq!(parsed.values, expected, "{url}");
    assert_eq!(parsed.note.as_deref(), Some("7"), "{url}");
    if let web_url::Namespace::Project(_) = expected_namespace {
        assert_eq!(
            web_url::parse_project(&url, base).as_deref(),
            Ok(project.as_str())
        );
    }
    let reference = format!("{project}#{iid}");
    let parsed = web_url::parse(&reference, base).unwrap_or_else(|e| panic!("{reference}: {e}"));
    assert_eq!(
        parsed.namespace,
        web_url::Namespace::Project(project.clone()),
        "{reference}"
    );
    assert_eq!(parsed.values[0].1, iid, "{reference}");
}

//! A GitLab failure as text an agent can act on: what kind of failure it
//! is, GitLab's own words, the catalog's hint for that status, and the
//! request id an administrator can look up.

use std::fmt::Write as _;

use crate::catalog::{Feed, Location, Method, Resolver, Returns, Role};
use crate::dispatch::ValidatedCall;
use crate::gitlab::{GitLabError, GraphqlError, GraphqlFailure, NetworkKind, StatusError};

/// Facts about the server and the call the messages need.
pub struct Context {
    pub has_token: bool,
    /// Attempts made, retries included.
    pub attempts: u32,
    pub connect_timeout_secs: u64,
    pub request_timeout_secs: u64,
}

pub fn failure(call: &ValidatedCall, error: &GitLabError, ctx: &Context) -> String {
    match error {
        GitLabError::Status(status) if status.status == 404 && is_get(call) => {
            not_found(call, status)
        }
        GitLabError::Status(status) => status_failure(call, status, ctx),
        GitLabError::Network { kind, host } => network_failure(call, *kind, host, ctx),
        GitLabError::TooLarge { limit } => format!(
            "{}: GitLab's answer is over {} MiB, more than this server reads; ask for less (a page, a file, a line range).",
            heading(call),
            limit / (1024 * 1024)
        ),
        GitLabError::PathChanged => format!(
            "{}: refused, nothing was sent: URL parsing would have changed the request's path (a server bug; please report it).",
            heading(call)
        ),
        GitLabError::TokenCharacters => format!(
            "{}: refused, nothing was sent: the token contains characters that cannot be sent in an HTTP header.",
            heading(call)
        ),
        GitLabError::Graphql(error) => graphql_failure(call, error),
    }
}

/// A GraphQL answer that says no, with status 200.
fn graphql_failure(call: &ValidatedCall, error: &GraphqlError) -> String {
    let (mut out, hint) = match &error.failure {
        GraphqlFailure::Null { path } => {
            let ids = graphql_ids(call);
            let with = if ids.is_empty() {
                String::new()
            } else {
                format!(" with {}", ids.join(", "))
            };
            let out = format!(
                "Not found: {}{with}. It may not exist, or the token cannot see it (GitLab answers null for both, at `{path}`).",
                heading(call)
            );
            return match call.action.hint(404) {
                Some(hint) => format!("{out}\nNext: {hint}{}", request_id(error)),
                None => format!("{out}{}", request_id(error)),
            };
        }
        GraphqlFailure::Errors(messages) => (
            format!(
                "{}: GitLab's GraphQL API answered with errors.\nGitLab says: {}",
                heading(call),
                messages.join("; ")
            ),
            call.action.hint(400).or(match call.action.graphql() {
                Some(route) if route.document.is_none() => Some(
                    "check the fields and arguments of a type with {\"action\": \"schema\", \"params\": {\"type\": \"<Type>\"}}",
                ),
                _ => None,
            }),
        ),
        GraphqlFailure::Refused(messages) => (
            format!(
                "{}: GitLab refused the change.\nGitLab says: {}",
                heading(call),
                messages.join("; ")
            ),
            call.action.hint(422),
        ),
        GraphqlFailure::Malformed => (
            format!(
                "{}: GitLab's answer is not a GraphQL answer (no `data`); check GITLAB_URL.",
                heading(call)
            ),
            None,
        ),
    };
    if let Some(hint) = hint {
        let _ = write!(out, "\nHint: {hint}");
    }
    out.push_str(&request_id(error));
    out
}

/// What names the object a GraphQL action asked for: the namespace, and
/// the iids (the parameters sent as text or resolved to work item IDs).
fn graphql_ids(call: &ValidatedCall) -> Vec<String> {
    let Some(route) = call.action.graphql() else {
        return Vec::new();
    };
    let iid = |name: &str| {
        route.variables.iter().any(|v| {
            v.param.is_some_and(|i| call.action.params[i].name == name)
                && matches!(
                    v.feed,
                    Feed::Text | Feed::Resolve(Resolver::WorkItemId | Resolver::WorkItemIds)
                )
        })
    };
    call.args
        .iter()
        .filter(|a| matches!(a.spec.role, Some(Role::Project | Role::Group)) || iid(a.spec.name))
        .map(|a| format!("{} {}", a.spec.name, a.value))
        .collect()
}

fn request_id(error: &GraphqlError) -> String {
    error
        .request_id
        .as_ref()
        .map(|id| format!("\nRequest id: {id}"))
        .unwrap_or_default()
}

fn heading(call: &ValidatedCall) -> String {
    format!("{} {}", call.tool.name, call.action.name)
}

/// A GET of one resource: a 404 is information, not a malfunction.
fn is_get(call: &ValidatedCall) -> bool {
    call.action.method() == Some(Method::Get)
        && matches!(call.action.returns, Returns::One(_) | Returns::Text(_))
}

fn not_found(call: &ValidatedCall, status: &StatusError) -> String {
    let ids: Vec<String> = call
        .args
        .iter()
        .filter(|a| a.spec.location == Location::Path)
        .map(|a| format!("{} {}", a.spec.name, a.value))
        .collect();
    let mut out = format!(
        "Not found: {} with {}. It may not exist, or the token cannot see it (GitLab answers 404 for both).",
        heading(call),
        ids.join(", ")
    );
    if let Some(message) = &status.message {
        let _ = write!(out, "\nGitLab says: {message}");
    }
    if let Some(hint) = call.action.hint(404) {
        let _ = write!(out, "\nNext: {hint}");
    }
    push_request_id(&mut out, status);
    out
}

fn status_failure(call: &ValidatedCall, status: &StatusError, ctx: &Context) -> String {
    let code = status.status;
    let meaning = match code {
        400 => "bad request: GitLab rejected a parameter value".to_string(),
        401 if !ctx.has_token => "authentication required: no token is configured (set GITLAB_TOKEN)".to_string(),
        401 if status.error_code.as_deref() == Some("invalid_token") => {
            "unauthorized: the token is expired or revoked; create a new one".to_string()
        }
        401 => "unauthorized: the token was not accepted (wrong token, or the wrong scheme: PRIVATE-TOKEN for personal/project/group tokens, Bearer for OAuth)".to_string(),
        403 if status.error_code.as_deref() == Some("insufficient_scope") => match &status.scope {
            Some(scope) => format!("forbidden: the token lacks the `{scope}` scope"),
            None => "forbidden: the token lacks a required scope".to_string(),
        },
        403 => "forbidden: the token's user lacks the permission for this action".to_string(),
        404 => "not found: the resource or route does not exist, or the token cannot see it (GitLab answers 404 for both)".to_string(),
        405 => "not allowed in the resource's current state".to_string(),
        409 => "conflict: the resource already exists or changed meanwhile".to_string(),
        412 => "precondition failed: the resource changed since it was read".to_string(),
        422 => "unprocessable: GitLab refused the change".to_string(),
        429 => match status.retry_after {
            Some(wait) => format!("rate limited: try again in {} s", wait.as_secs().max(1)),
            None => "rate limited: wait before trying again".to_string(),
        },
        500 => "GitLab had an internal error".to_string(),
        502 => "bad gateway: GitLab is unreachable behind its proxy; try again shortly".to_string(),
        503 => "GitLab is unavailable (maintenance or overload); try again shortly".to_string(),
        504 => "gateway timeout: GitLab took too long; try again, perhaps with a smaller page".to_string(),
        c if c >= 500 => "GitLab server error".to_string(),
        // The client follows no redirect: the token must not go elsewhere.
        300..=399 => "a redirect, not followed (no token goes to another address); check that GITLAB_URL is GitLab's own address".to_string(),
        _ => "unexpected status".to_string(),
    };
    let mut out = format!("{}: GitLab answered {code}, {meaning}.", heading(call));
    match (&status.message, status.html) {
        (Some(message), _) => {
            let _ = write!(out, "\nGitLab says: {message}");
        }
        (None, true) => out.push_str("\nGitLab sent an HTML error page instead of JSON."),
        (None, false) => {}
    }
    if let Some(hint) = call.action.hint(code) {
        let _ = write!(out, "\nHint: {hint}");
    }
    push_attempts(&mut out, ctx);
    push_request_id(&mut out, status);
    out
}

fn push_attempts(out: &mut String, ctx: &Context) {
    if ctx.attempts > 1 {
        let _ = write!(
            out,
            "\nTried {} times; the retries are spent.",
            ctx.attempts
        );
    }
}

fn network_failure(call: &ValidatedCall, kind: NetworkKind, host: &str, ctx: &Context) -> String {
    let what = match kind {
        NetworkKind::Refused => {
            format!("connection to {host} refused: check GITLAB_URL and that GitLab is up")
        }
        NetworkKind::Dns => format!("the host name {host} could not be resolved: check GITLAB_URL"),
        NetworkKind::Timeout => format!(
            "{host} did not answer in time: the request timeout ({} s, GITLAB_TIMEOUT) passed; try again, or ask for less",
            ctx.request_timeout_secs
        ),
        NetworkKind::ConnectTimeout => format!(
            "no connection to {host} within the connect timeout ({} s, GITLAB_CONNECT_TIMEOUT)",
            ctx.connect_timeout_secs
        ),
        NetworkKind::Tls => {
            format!("the TLS handshake with {host} failed (certificate or protocol problem)")
        }
        NetworkKind::Connection => format!("the connection to {host} failed"),
        NetworkKind::Other => format!("the request to {host} failed"),
    };
    let mut out = format!("{}: network error, {what}.", heading(call));
    let may_have_arrived = matches!(
        kind,
        NetworkKind::Timeout | NetworkKind::Connection | NetworkKind::Other
    );
    if may_have_arrived && call.action.mutates() {
        out.push_str(" GitLab may have applied the change: check before repeating it.");
    }
    push_attempts(&mut out, ctx);
    out
}

fn push_request_id(out: &mut String, status: &StatusError) {
    if let Some(id) = &status.request_id {
        let _ = write!(out, "\nRequest id: {id}");
    }
}

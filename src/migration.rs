//! Coming from `@zereight/mcp-gitlab`: its environment variables that have
//! an equivalent here work as aliases, so a configuration moves over
//! unchanged. An alias only fills our variable when ours is not set; when
//! both are set and disagree, ours wins and a warning names it.
//!
//! Pure: `aliases` reads an environment through a function and says what
//! to set and what to warn about; `main` applies it before parsing flags.

use crate::catalog;

/// One of the peer's variables and ours.
struct Alias {
    theirs: &'static str,
    ours: &'static str,
    /// Their value as ours, or `None` when it has no equivalent.
    convert: fn(&str) -> Option<String>,
}

fn same(value: &str) -> Option<String> {
    Some(value.to_string())
}

/// `readonly`, `modify`, `full` → `read-only`, `no-delete`, `full`.
fn permission_mode(value: &str) -> Option<String> {
    match value.trim() {
        "readonly" => Some("read-only".into()),
        "modify" => Some("no-delete".into()),
        "full" => Some("full".into()),
        _ => None,
    }
}

/// Node's `NODE_TLS_REJECT_UNAUTHORIZED=0` turns verification off.
fn tls_reject(value: &str) -> Option<String> {
    (value.trim() == "0").then(|| "true".into())
}

/// The peer's tool names as `tool.action` patterns.
fn tool_names(value: &str) -> Option<String> {
    let peer = catalog::vocabulary().peer_tools;
    let patterns: Vec<String> = value
        .split(',')
        .map(str::trim)
        .filter(|n| !n.is_empty())
        .filter_map(|n| {
            peer.iter()
                .find(|(name, _, _)| *name == n)
                .map(|(_, tool, action)| format!("{tool}.{action}"))
        })
        .collect();
    (!patterns.is_empty()).then(|| patterns.join(","))
}

/// Hosts allowed in `X-GitLab-API-URL` → GitLab URLs.
fn allowed_hosts(value: &str) -> Option<String> {
    let urls: Vec<String> = value
        .split(',')
        .map(str::trim)
        .filter(|h| !h.is_empty())
        .map(|h| {
            if h.contains("://") {
                h.to_string()
            } else {
                format!("https://{h}")
            }
        })
        .collect();
    (!urls.is_empty()).then(|| urls.join(","))
}

const ALIASES: &[Alias] = &[
    Alias {
        theirs: "GITLAB_PERSONAL_ACCESS_TOKEN",
        ours: "GITLAB_TOKEN",
        convert: same,
    },
    Alias {
        theirs: "GITLAB_API_URL",
        ours: "GITLAB_URL",
        convert: same,
    },
    Alias {
        theirs: "GITLAB_READ_ONLY_MODE",
        ours: "GITLAB_READ_ONLY",
        convert: same,
    },
    Alias {
        theirs: "GITLAB_PERMISSION_MODE",
        ours: "GITLAB_MCP_ACCESS",
        convert: permission_mode,
    },
    Alias {
        theirs: "GITLAB_TOOLSETS",
        ours: "GITLAB_MCP_TOOLS",
        convert: same,
    },
    Alias {
        theirs: "GITLAB_TOOLS",
        ours: "GITLAB_MCP_ALLOW_ACTIONS",
        convert: tool_names,
    },
    Alias {
        theirs: "NODE_TLS_REJECT_UNAUTHORIZED",
        ours: "GITLAB_MCP_TLS_INSECURE",
        convert: tls_reject,
    },
    Alias {
        theirs: "GITLAB_CA_CERT_PATH",
        ours: "GITLAB_CA_CERT",
        convert: same,
    },
    Alias {
        theirs: "MCP_SERVER_URL",
        ours: "GITLAB_MCP_PUBLIC_URL",
        convert: same,
    },
    Alias {
        theirs: "MCP_ALLOWED_HOSTS",
        ours: "GITLAB_MCP_ALLOWED_HOSTS",
        convert: same,
    },
    Alias {
        theirs: "MCP_ALLOWED_ORIGINS",
        ours: "GITLAB_MCP_ALLOWED_ORIGINS",
        convert: same,
    },
    Alias {
        theirs: "GITLAB_OAUTH_APP_ID",
        ours: "GITLAB_OAUTH_CLIENT_ID",
        convert: same,
    },
    Alias {
        theirs: "REMOTE_AUTHORIZATION",
        ours: "GITLAB_MCP_REQUIRE_CLIENT_TOKEN",
        convert: same,
    },
    Alias {
        theirs: "GITLAB_ALLOWED_HOSTS",
        ours: "GITLAB_MCP_ALLOWED_GITLAB_URLS",
        convert: allowed_hosts,
    },
];

/// What to set, and what to warn about.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Plan {
    pub set: Vec<(&'static str, String)>,
    pub warnings: Vec<String>,
}

/// The aliases an environment calls for. `env` reads one variable.
pub fn aliases(env: &dyn Fn(&str) -> Option<String>) -> Plan {
    let mut plan = Plan::default();
    let value = |name: &str| env(name).filter(|v| !v.trim().is_empty());
    for alias in ALIASES {
        let Some(theirs) = value(alias.theirs) else {
            continue;
        };
        let Some(converted) = (alias.convert)(&theirs) else {
            plan.warnings.push(format!(
                "{}={theirs} has no equivalent here and is ignored (see {})",
                alias.theirs, alias.ours
            ));
            continue;
        };
        match value(alias.ours) {
            None => plan.set.push((alias.ours, converted)),
            Some(ours) if ours.trim() != converted.trim() => plan.warnings.push(format!(
                "{} and {} are both set and disagree; {} wins",
                alias.theirs, alias.ours, alias.ours
            )),
            Some(_) => {}
        }
    }
    // STREAMABLE_HTTP=true with HOST and PORT: serve HTTP there.
    if value("STREAMABLE_HTTP").is_some_and(|v| v.trim() == "true")
        && value("GITLAB_MCP_HTTP_ADDR").is_none()
    {
        let host = value("HOST").unwrap_or_else(|| "127.0.0.1".into());
        let port = value("PORT").unwrap_or_else(|| "3002".into());
        plan.set
            .push(("GITLAB_MCP_HTTP_ADDR", format!("{host}:{port}")));
    }
    plan
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    fn plan(pairs: &[(&str, &str)]) -> Plan {
        let env: HashMap<String, String> = pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        aliases(&|name| env.get(name).cloned())
    }

    #[test]
    fn their_variables_fill_ours() {
        let p = plan(&[
            ("GITLAB_PERSONAL_ACCESS_TOKEN", "glpat-x"),
            ("GITLAB_API_URL", "https://gitlab.example.com/api/v4"),
            ("GITLAB_PERMISSION_MODE", "modify"),
            ("GITLAB_TOOLS", "get_issue,list_merge_requests,not_a_tool"),
            ("NODE_TLS_REJECT_UNAUTHORIZED", "0"),
            ("STREAMABLE_HTTP", "true"),
            ("PORT", "3333"),
        ]);
        assert_eq!(
            p.set,
            vec![
                ("GITLAB_TOKEN", "glpat-x".to_string()),
                (
                    "GITLAB_URL",
                    "https://gitlab.example.com/api/v4".to_string()
                ),
                ("GITLAB_MCP_ACCESS", "no-delete".to_string()),
                (
                    "GITLAB_MCP_ALLOW_ACTIONS",
                    "gitlab_issue.get,gitlab_merge_request.list".to_string()
                ),
                ("GITLAB_MCP_TLS_INSECURE", "true".to_string()),
                ("GITLAB_MCP_HTTP_ADDR", "127.0.0.1:3333".to_string()),
            ]
        );
        assert!(p.warnings.is_empty());
    }

    #[test]
    fn ours_wins_and_a_disagreement_is_named() {
        let p = plan(&[
            ("GITLAB_API_URL", "https://a.example"),
            ("GITLAB_URL", "https://b.example"),
        ]);
        assert!(p.set.is_empty());
        assert_eq!(
            p.warnings,
            ["GITLAB_API_URL and GITLAB_URL are both set and disagree; GITLAB_URL wins"]
        );
        let p = plan(&[
            ("GITLAB_API_URL", "https://a.example"),
            ("GITLAB_URL", "https://a.example"),
        ]);
        assert!(p.set.is_empty() && p.warnings.is_empty());
    }
}

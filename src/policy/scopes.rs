//! What a GitLab token may do, as its scopes say, and the surface it gets.
//! GitLab checks scopes on every request; the server reads them once
//! (`engine::KnownScopes`) so that a token is not offered what GitLab would
//! refuse it, and a call to such an action is refused, naming the scope it
//! needs, before anything is sent.
//!
//! What each scope opens to the REST API (docs.gitlab.com/user/profile/
//! personal_access_tokens/#personal-access-token-scopes, and GitLab's
//! `allow_access_with_scope` in `lib/api/`):
//!
//! | scope | what it opens |
//! |---|---|
//! | `api` | everything |
//! | `read_api` | every `GET` (`request.get? \|\| request.head?`), and GraphQL queries (GitLab's GraphQL types are authorized for `api` and `read_api`, its mutations for `api` only) |
//! | `read_repository` | `GET` of the repository files API (`lib/api/files.rb`) |
//! | `read_user` | `GET` of `/user`, `/users`, `/version`, `/metadata`, `/events` |
//! | `write_repository`, `read_registry`, `write_registry`, `read_virtual_registry`, `write_virtual_registry`, `openid`, `profile`, `email`, `read_service_ping`, `read_observability` | nothing the catalog calls |
//!
//! Conservative where unsure: a scope not in that table may open anything
//! (`create_runner`, `self_rotate`, `ai_features`... open a few writes), so
//! a token that has one keeps the whole surface and GitLab decides; a
//! read-only token keeps every read, and the `POST` actions the catalog
//! marks read-only (a GraphQL query, a lint), which GitLab may still refuse.

use crate::catalog::{ActionSpec, Method, Operation, Route, ToolSpec};

/// Scopes whose reach through the REST API is known: none of them writes.
const KNOWN_WITHOUT_WRITES: [&str; 13] = [
    "read_api",
    "read_user",
    "read_repository",
    "write_repository",
    "read_registry",
    "write_registry",
    "read_virtual_registry",
    "write_virtual_registry",
    "openid",
    "profile",
    "email",
    "read_service_ping",
    "read_observability",
];

/// The repository files API, which `read_repository` opens.
const REPOSITORY_FILES: &str = "/projects/{project_id}/repository/files/";

/// The paths `read_user` opens to `GET`, with what lies under them.
const USER_PATHS: [&str; 5] = ["/user", "/users", "/version", "/metadata", "/events"];

/// A token's scopes, as GitLab named them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Scopes {
    names: Vec<String>,
}

/// Which actions a token is offered.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Surface {
    /// Every action the policy allows: `api`, a scope whose reach is not
    /// known, or scopes that could not be read (GitLab decides).
    Full,
    /// Reads only: `read_api` without `api`.
    ReadOnly,
    /// Neither `api` nor `read_api`: only the reads the narrower scopes open.
    Narrow { repository: bool, user: bool },
}

impl Scopes {
    /// The scopes GitLab named; `None` when it named none, which no real
    /// token has (the answer was not understood).
    pub fn new(names: Vec<String>) -> Option<Scopes> {
        let mut names: Vec<String> = names
            .into_iter()
            .map(|n| n.trim().to_string())
            .filter(|n| !n.is_empty())
            .collect();
        names.sort();
        names.dedup();
        (!names.is_empty()).then_some(Scopes { names })
    }

    /// Whether GitLab named this scope.
    pub fn has(&self, scope: &str) -> bool {
        self.names.iter().any(|n| n == scope)
    }

    /// The scopes, comma-separated, for messages.
    pub fn list(&self) -> String {
        self.names.join(", ")
    }

    /// The surface these scopes give.
    pub fn surface(&self) -> Surface {
        if self.has("api")
            || self
                .names
                .iter()
                .any(|n| !KNOWN_WITHOUT_WRITES.contains(&n.as_str()))
        {
            Surface::Full
        } else if self.has("read_api") {
            Surface::ReadOnly
        } else {
            Surface::Narrow {
                repository: self.has("read_repository"),
                user: self.has("read_user"),
            }
        }
    }

    /// Why this token is not offered `tool.action`, naming the scope it
    /// needs; `None` when it is offered.
    pub fn refusal(&self, tool: &ToolSpec, action: &ActionSpec) -> Option<String> {
        if self.surface().allows(action) {
            return None;
        }
        let needed = if reads(action) {
            "`read_api` (or `api`) scope"
        } else {
            "`api` scope"
        };
        Some(format!(
            "`{}.{}` needs a token with the {needed}, and this token has {}",
            tool.name,
            action.name,
            self.list()
        ))
    }
}

/// Whether an action only reads, as `read_api` sees it.
fn reads(action: &ActionSpec) -> bool {
    match action.route {
        Route::Rest(route) => action.read_only || route.method == Method::Get,
        Route::Graphql(route) => route.operation == Operation::Query,
        Route::Local(_) => true,
    }
}

impl Surface {
    /// Every surface, each once: the server builds at most one catalog per
    /// surface.
    pub const ALL: [Surface; 6] = [
        Surface::Full,
        Surface::ReadOnly,
        Surface::Narrow {
            repository: false,
            user: false,
        },
        Surface::Narrow {
            repository: true,
            user: false,
        },
        Surface::Narrow {
            repository: false,
            user: true,
        },
        Surface::Narrow {
            repository: true,
            user: true,
        },
    ];

    /// This surface's place in `ALL`.
    pub fn index(self) -> usize {
        match self {
            Surface::Full => 0,
            Surface::ReadOnly => 1,
            Surface::Narrow { repository, user } => {
                2 + usize::from(repository) + 2 * usize::from(user)
            }
        }
    }

    /// Whether a token with this surface is offered `action`.
    pub fn allows(self, action: &ActionSpec) -> bool {
        match (self, action.route) {
            (_, Route::Local(_)) | (Surface::Full, _) => true,
            (Surface::ReadOnly, _) => reads(action),
            (Surface::Narrow { repository, user }, Route::Rest(route)) => {
                let path = route.template;
                route.method == Method::Get
                    && ((repository && path.starts_with(REPOSITORY_FILES))
                        || (user && USER_PATHS.iter().any(|p| under(path, p))))
            }
            // GraphQL needs `api` or `read_api`.
            (Surface::Narrow { .. }, Route::Graphql(_)) => false,
        }
    }

    /// What the surface offers, in words, for the log and `check`.
    pub fn describe(self) -> &'static str {
        match self {
            Surface::Full => "every action",
            Surface::ReadOnly => "reads only (no `api` scope)",
            Surface::Narrow {
                repository: true,
                user: true,
            } => "repository files and user reads only (no `api` or `read_api` scope)",
            Surface::Narrow {
                repository: true,
                user: false,
            } => "repository files only (no `api` or `read_api` scope)",
            Surface::Narrow {
                repository: false,
                user: true,
            } => "user reads only (no `api` or `read_api` scope)",
            Surface::Narrow {
                repository: false,
                user: false,
            } => "nothing (no scope of this token opens the REST API)",
        }
    }
}

/// `path` is `prefix` or lies under it.
fn under(path: &str, prefix: &str) -> bool {
    path.strip_prefix(prefix)
        .is_some_and(|rest| rest.is_empty() || rest.starts_with('/'))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog;

    fn scopes(names: &[&str]) -> Scopes {
        Scopes::new(names.iter().map(|n| n.to_string()).collect()).unwrap()
    }

    fn action(tool: &str, name: &str) -> &'static ActionSpec {
        catalog::tool(tool).unwrap().action(name).unwrap()
    }

    #[test]
    fn each_set_of_scopes_gives_its_surface() {
        let cases: [(&[&str], Surface); 7] = [
            (&["api"], Surface::Full),
            (&["api", "read_api"], Surface::Full),
            (&["read_api"], Surface::ReadOnly),
            (
                &["read_api", "read_repository", "read_user"],
                Surface::ReadOnly,
            ),
            (
                &["read_repository"],
                Surface::Narrow {
                    repository: true,
                    user: false,
                },
            ),
            (
                &["write_repository"],
                Surface::Narrow {
                    repository: false,
                    user: false,
                },
            ),
            // A scope whose reach is not known may open writes: GitLab decides.
            (&["read_api", "self_rotate"], Surface::Full),
        ];
        for (names, surface) in cases {
            assert_eq!(scopes(names).surface(), surface, "{names:?}");
        }
        assert_eq!(Scopes::new(vec![" ".into()]), None);
    }

    #[test]
    fn surfaces_keep_what_their_scopes_open_and_nothing_else() {
        let create = action("gitlab_issue", "create");
        let get = action("gitlab_issue", "get");
        let file = action("gitlab_repository", "file_raw");
        let user = action("gitlab_user", "current");
        assert!(Surface::Full.allows(create));
        assert!(!Surface::ReadOnly.allows(create));
        assert!(Surface::ReadOnly.allows(get));
        let files = Surface::Narrow {
            repository: true,
            user: false,
        };
        assert!(files.allows(file));
        assert!(!files.allows(get));
        assert!(!files.allows(user));
        let users = Surface::Narrow {
            repository: false,
            user: true,
        };
        assert!(users.allows(user));
        assert!(!users.allows(file));
    }

    #[test]
    fn the_refusal_names_the_scope_needed_and_the_token_s() {
        let tool = catalog::tool("gitlab_issue").unwrap();
        let read = scopes(&["read_api"]);
        assert_eq!(
            read.refusal(tool, action("gitlab_issue", "create"))
                .as_deref(),
            Some(
                "`gitlab_issue.create` needs a token with the `api` scope, and this token has read_api"
            )
        );
        assert_eq!(read.refusal(tool, action("gitlab_issue", "get")), None);
        let files = scopes(&["read_repository", "write_repository"]);
        assert_eq!(
            files
                .refusal(tool, action("gitlab_issue", "get"))
                .as_deref(),
            Some(
                "`gitlab_issue.get` needs a token with the `read_api` (or `api`) scope, and this token has read_repository, write_repository"
            )
        );
    }

    #[test]
    fn every_surface_has_its_own_index() {
        for (i, surface) in Surface::ALL.iter().enumerate() {
            assert_eq!(surface.index(), i, "{surface:?}");
        }
    }
}

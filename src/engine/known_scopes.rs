//! A token's scopes, learned once and shared by every request of that
//! token: over stdio the server's token, over HTTP each caller's (the HTTP
//! layer keeps one per token, for a few minutes). The first request that
//! needs them asks GitLab; the others wait for that answer rather than ask
//! again. When GitLab does not say, the surface fails open to every action
//! the policy allows (GitLab refuses what the token may not do), and the
//! log says so once.

use std::time::Duration;

use tokio::sync::OnceCell;

use super::Engine;
use crate::gitlab::{ScopesUnknown, Target};
use crate::policy::Scopes;

/// The longest the server waits for GitLab to name a token's scopes.
pub const LOOKUP_LIMIT: Duration = Duration::from_secs(5);

/// How long a token's scopes are trusted before GitLab is asked again
/// (over HTTP; a stdio server asks once), and so how long the lists they
/// decide may be reused.
pub const SCOPES_TTL: Duration = Duration::from_secs(5 * 60);

/// One token's scopes: not asked yet, asked, or known not to be known.
#[derive(Debug, Default)]
pub struct KnownScopes {
    cell: OnceCell<Option<Scopes>>,
}

impl KnownScopes {
    pub fn new() -> Self {
        KnownScopes::default()
    }

    /// The token's scopes, asked of GitLab the first time; `None` when
    /// GitLab did not say within `LOOKUP_LIMIT` (or there is no token).
    pub async fn get(&self, engine: &Engine, target: &Target) -> Option<&Scopes> {
        // Boxed: the lookup runs once per token, and inline its future
        // (a GitLab request) would sit in every request's future, which
        // rmcp's tasks copy as they move.
        self.cell
            .get_or_init(|| Box::pin(learn(engine, target)))
            .await
            .as_ref()
    }
}

async fn learn(engine: &Engine, target: &Target) -> Option<Scopes> {
    let answer = tokio::time::timeout(LOOKUP_LIMIT, engine.token_scopes(target)).await;
    match answer {
        Ok(Ok(scopes)) => {
            let surface = scopes.surface();
            tracing::info!(
                scopes = %scopes.list(),
                offered = surface.describe(),
                "the token's scopes decide the actions offered"
            );
            Some(scopes)
        }
        // Anonymous: GitLab refuses every write with a 401, as before.
        Ok(Err(ScopesUnknown::NoToken)) => None,
        Ok(Err(why)) => {
            tracing::warn!(%why, "the token's scopes could not be read: every action is offered, and GitLab refuses what the token may not do");
            None
        }
        Err(_) => {
            tracing::warn!(
                limit_secs = LOOKUP_LIMIT.as_secs(),
                "GitLab did not name the token's scopes in time: every action is offered, and GitLab refuses what the token may not do"
            );
            None
        }
    }
}

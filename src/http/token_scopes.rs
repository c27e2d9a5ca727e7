//! Each caller's token's scopes, kept `SCOPES_TTL` so that GitLab is
//! asked once per token, not once per request. The key is the target's
//! fingerprint (a SHA-256 of the token and the GitLab it goes to): no token
//! is kept, and the key is never logged. Two requests of a new token at once share one lookup (the
//! entry's `KnownScopes`). The map is bounded: past `CAPACITY` tokens the
//! expired entries go, and if none has expired, all of them.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Instant;

use crate::engine::{KnownScopes, SCOPES_TTL as TTL};
use crate::gitlab::Target;

/// The most tokens kept at once.
const CAPACITY: usize = 10_000;

type Key = [u8; 32];

#[derive(Default)]
pub struct ScopeCache {
    entries: Mutex<HashMap<Key, (Instant, Arc<KnownScopes>)>>,
}

impl ScopeCache {
    /// The scopes entry of the target's token, new or still fresh; `None`
    /// for a request without a token.
    pub fn entry(&self, target: &Target) -> Option<Arc<KnownScopes>> {
        let key: Key = target.fingerprint()?;
        let now = Instant::now();
        let mut entries = self
            .entries
            .lock()
            .expect("the scope cache is never poisoned");
        if let Some((created, known)) = entries.get(&key)
            && now.duration_since(*created) < TTL
        {
            return Some(known.clone());
        }
        if entries.len() >= CAPACITY {
            entries.retain(|_, (created, _)| now.duration_since(*created) < TTL);
            if entries.len() >= CAPACITY {
                entries.clear();
            }
        }
        let known = Arc::new(KnownScopes::new());
        entries.insert(key, (now, known.clone()));
        Some(known)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gitlab::{AuthScheme, Credentials};
    use crate::secret::Secret;

    fn target(token: Option<&str>, root: &str) -> Target {
        Target {
            api_root: root.into(),
            credentials: token.map(|t| Credentials {
                token: Secret::new(t),
                scheme: AuthScheme::PrivateToken,
            }),
        }
    }

    #[test]
    fn one_entry_per_token_and_gitlab_and_none_without_a_token() {
        let cache = ScopeCache::default();
        let root = "https://gitlab.example.com/api/v4";
        let alice = cache.entry(&target(Some("a"), root)).unwrap();
        let again = cache.entry(&target(Some("a"), root)).unwrap();
        assert!(Arc::ptr_eq(&alice, &again));
        let bob = cache.entry(&target(Some("b"), root)).unwrap();
        assert!(!Arc::ptr_eq(&alice, &bob));
        let elsewhere = cache
            .entry(&target(Some("a"), "https://other.example.com/api/v4"))
            .unwrap();
        assert!(!Arc::ptr_eq(&alice, &elsewhere));
        assert!(cache.entry(&target(None, root)).is_none());
    }
}

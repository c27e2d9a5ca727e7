//! What the GraphQL actions look up more often than it changes, kept a few
//! minutes: a namespace's work item types (type IDs differ between
//! installations and editions, so they are read, never assumed) and the
//! names of a GitLab's schema types (for `schema`'s suggestions). Keyed by
//! the GitLab (its web root) and the namespace, never by a token: a type
//! list is the namespace's, the same for every caller, and nothing in it
//! is secret.

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// How long a looked-up list is trusted.
pub const TTL: Duration = Duration::from_secs(5 * 60);

/// A namespace's work item types: (name as GitLab writes it, global ID).
pub type Types = Vec<(String, String)>;

#[derive(Default)]
pub struct Cache {
    types: Mutex<HashMap<(String, String), (Instant, Types)>>,
    type_names: Mutex<HashMap<String, (Instant, Vec<String>)>>,
}

impl Cache {
    /// The types of `namespace` on the GitLab at `gitlab`, if looked up
    /// within the TTL.
    pub fn types(&self, gitlab: &str, namespace: &str) -> Option<Types> {
        let key = (gitlab.to_string(), namespace.to_string());
        fresh(&self.types, &key, Instant::now())
    }

    pub fn keep_types(&self, gitlab: &str, namespace: &str, types: Types) {
        let key = (gitlab.to_string(), namespace.to_string());
        keep(&self.types, key, types, Instant::now());
    }

    /// The names of every type of the GitLab's schema.
    pub fn type_names(&self, gitlab: &str) -> Option<Vec<String>> {
        fresh(&self.type_names, &gitlab.to_string(), Instant::now())
    }

    pub fn keep_type_names(&self, gitlab: &str, names: Vec<String>) {
        keep(&self.type_names, gitlab.to_string(), names, Instant::now());
    }
}

type Timed<K, V> = Mutex<HashMap<K, (Instant, V)>>;

fn fresh<K: std::hash::Hash + Eq, V: Clone>(map: &Timed<K, V>, key: &K, now: Instant) -> Option<V> {
    let map = map.lock().expect("not poisoned");
    map.get(key)
        .filter(|(at, _)| now.duration_since(*at) < TTL)
        .map(|(_, value)| value.clone())
}

fn keep<K: std::hash::Hash + Eq, V>(map: &Timed<K, V>, key: K, value: V, now: Instant) {
    let mut map = map.lock().expect("not poisoned");
    // Old entries go when new ones come: the map holds what is fresh.
    map.retain(|_, (at, _)| now.duration_since(*at) < TTL);
    map.insert(key, (now, value));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn types_are_kept_per_gitlab_and_namespace_for_the_ttl() {
        let cache = Cache::default();
        let types = vec![(
            "Issue".to_string(),
            "gid://gitlab/WorkItems::Type/101".to_string(),
        )];
        cache.keep_types("https://a", "g/p", types.clone());
        assert_eq!(cache.types("https://a", "g/p"), Some(types.clone()));
        assert_eq!(cache.types("https://b", "g/p"), None);
        assert_eq!(cache.types("https://a", "g/q"), None);
        let key = ("https://a".to_string(), "g/p".to_string());
        let then = Instant::now();
        keep(&cache.types, key.clone(), types.clone(), then);
        assert_eq!(fresh(&cache.types, &key, then + TTL / 2), Some(types));
        assert_eq!(fresh(&cache.types, &key, then + TTL), None);
    }
}

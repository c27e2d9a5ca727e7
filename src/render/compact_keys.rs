//! The keys compaction knows, and what it knows of each, found once per
//! field.
//!
//! Compaction asks several questions of every key (noise? a link elsewhere?
//! a count? a duplicate of which field?). Asked as `match`es of string
//! arms, they cost about a hundred instructions a field, a tenth of a
//! stdio call's rendering (callgrind, BENCHMARKS.md). Here the answers sit
//! in one table, built once, and a key is looked up by a hash of its length
//! and three of its bytes.

use std::sync::OnceLock;

/// Keys that are never worth their tokens.
const NOISE: &[&str] = &[
    "_links",
    "avatar_url",
    "references",
    "reference",
    "time_stats",
    "task_completion_status",
    "commands_changes",
    "imported",
    "imported_from",
    "container_expiration_policy",
    "detailed_status",
    "permissions",
    "tag_list",
    "name_with_namespace",
    "ssh_url_to_repo",
    "http_url_to_repo",
    "readme_url",
    "logs_api_path",
    "evidences",
    "commit_path",
    "tag_path",
    "wiki_page_meta_id",
    "content_sha256",
];

/// URL fields that are the thing itself rather than a link to elsewhere.
const KEPT_URLS: &[&str] = &[
    "web_url",
    "url",
    "external_url",
    "target_url",
    "direct_asset_url",
    // An OAuth application's redirect, a migration's source instance.
    "callback_url",
    "source_url",
];

/// Booleans whose `false` is news, not a default.
const MEANINGFUL_FALSES: &[&str] = &[
    "approved",
    "resolved",
    "can_merge",
    "mergeable",
    "merged",
    "active",
    "valid",
    "enabled",
    "user_can_approve",
    "blocking_discussions_resolved",
];

/// Fields that repeat another field of the same object, and the one kept.
const DUPLICATES: &[(&str, &str)] = &[
    ("assignee", "assignees"),
    ("merge_user", "merged_by"),
    ("work_in_progress", "draft"),
    ("squash_on_merge", "squash"),
    ("merge_status", "detailed_merge_status"),
    ("committer_name", "author_name"),
    ("committer_email", "author_email"),
    ("committed_date", "authored_date"),
    ("created_at", "authored_date"),
    ("confidential", "internal"),
    ("type", "issue_type"),
    ("prepared_at", "created_at"),
];

/// Values that only restate GitLab's default for the field.
const DEFAULTS: &[(&str, &str)] = &[
    ("issue_type", "issue"),
    ("type", "ISSUE"),
    ("severity", "UNKNOWN"),
    ("merge_method", "merge"),
    ("encoding", "UTF-8"),
];

/// Nested resources that a list shrinks to what identifies them.
const NESTED_REDUCED: &[&str] = &[
    "milestone",
    "iteration",
    "epic",
    "commit",
    "last_commit",
    "pipeline",
    "head_pipeline",
    "namespace",
    "environment",
    "project",
];

/// Counts besides the `*_count` fields.
const COUNTS: &[&str] = &["upvotes", "downvotes"];

/// What compaction knows of one key.
#[derive(Clone, Copy, Default, Debug, PartialEq)]
pub struct Key {
    flags: u8,
    /// This key's bit when another field repeats it (`DUPLICATES`).
    kept: u16,
    /// The bit of the field this one repeats.
    repeats: u16,
    /// The default value, as an index into `DEFAULTS` plus one.
    default: u8,
}

const NOISY: u8 = 1;
const LINK: u8 = 2;
const MEANINGFUL_FALSE: u8 = 4;
const REDUCED: u8 = 8;
const COUNT: u8 = 16;
const PROJECT_ID: u8 = 32;

impl Key {
    /// Dropped by its key alone: noise, a rendering, a link elsewhere.
    pub fn noise(self) -> bool {
        self.flags & (NOISY | LINK) != 0
    }

    pub fn meaningful_false(self) -> bool {
        self.flags & MEANINGFUL_FALSE != 0
    }

    /// Shrunk in a list (`nested_summary`).
    pub fn reduced(self) -> bool {
        self.flags & REDUCED != 0
    }

    /// A count, dropped at zero.
    pub fn count(self) -> bool {
        self.flags & COUNT != 0
    }

    pub fn project_id(self) -> bool {
        self.flags & PROJECT_ID != 0
    }

    pub fn default_value(self) -> Option<&'static str> {
        let index = usize::from(self.default.checked_sub(1)?);
        Some(DEFAULTS[index].1)
    }

    /// The bit this key puts in an object's `present` set.
    pub fn kept_bit(self) -> u16 {
        self.kept
    }

    /// Whether this key repeats a field that `present` says is there.
    pub fn repeats_one_of(self, present: u16) -> bool {
        self.repeats & present != 0
    }
}

/// What compaction knows of `key`.
pub fn key(key: &str) -> Key {
    let mut class = table().find(key);
    let link = key.ends_with("_html") || (key.ends_with("_url") && class.flags & KEPT == 0);
    if link {
        class.flags |= LINK;
    }
    if key.ends_with("_count") {
        class.flags |= COUNT;
    }
    class
}

/// A kept URL; only the table holds it (it is no flag of `Key`).
const KEPT: u8 = 64;

/// Open addressing over a power of two of slots, three quarters empty.
const SLOTS: usize = 512;

struct Table {
    slots: Vec<Option<(&'static str, Key)>>,
}

fn table() -> &'static Table {
    static TABLE: OnceLock<Table> = OnceLock::new();
    TABLE.get_or_init(Table::build)
}

impl Table {
    fn build() -> Table {
        fn entry<'c>(classes: &'c mut Vec<(&'static str, Key)>, name: &'static str) -> &'c mut Key {
            let at = match classes.iter().position(|(k, _)| *k == name) {
                Some(at) => at,
                None => {
                    classes.push((name, Key::default()));
                    classes.len() - 1
                }
            };
            &mut classes[at].1
        }
        let mut classes = Vec::new();
        for (list, flag) in [
            (NOISE, NOISY),
            (KEPT_URLS, KEPT),
            (MEANINGFUL_FALSES, MEANINGFUL_FALSE),
            (NESTED_REDUCED, REDUCED),
            (COUNTS, COUNT),
            (&["project_id"][..], PROJECT_ID),
        ] {
            for name in list {
                entry(&mut classes, name).flags |= flag;
            }
        }
        let mut kept_names: Vec<&str> = Vec::new();
        for (repeating, kept) in DUPLICATES {
            let bit = match kept_names.iter().position(|k| k == kept) {
                Some(at) => 1 << at,
                None => {
                    kept_names.push(kept);
                    1 << (kept_names.len() - 1)
                }
            };
            entry(&mut classes, kept).kept = bit;
            entry(&mut classes, repeating).repeats |= bit;
        }
        for (at, (name, _)) in DEFAULTS.iter().enumerate() {
            entry(&mut classes, name).default = u8::try_from(at + 1).expect("few defaults");
        }
        assert!(kept_names.len() <= 16, "a bit for each kept field");
        let mut slots = vec![None; SLOTS];
        for (name, class) in classes {
            let mut at = slot(name);
            while slots[at].is_some() {
                at = (at + 1) % SLOTS;
            }
            slots[at] = Some((name, class));
        }
        Table { slots }
    }

    fn find(&self, key: &str) -> Key {
        let mut at = slot(key);
        loop {
            match &self.slots[at] {
                None => return Key::default(),
                Some((name, class)) if *name == key => return *class,
                Some(_) => at = (at + 1) % SLOTS,
            }
        }
    }
}

/// A slot from the length and the first, middle and last bytes.
fn slot(key: &str) -> usize {
    let bytes = key.as_bytes();
    let Some(&last) = bytes.last() else {
        return 0;
    };
    let mix = (bytes.len() as u32).wrapping_mul(0x9e37_79b9)
        ^ u32::from(bytes[0]).wrapping_mul(0x85eb_ca6b)
        ^ u32::from(bytes[bytes.len() / 2]).wrapping_mul(0xc2b2_ae35)
        ^ u32::from(last).wrapping_mul(0x27d4_eb2f);
    (mix ^ (mix >> 15)) as usize % SLOTS
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The answers the `match`es of string arms gave before the table.
    fn by_lists(name: &str) -> Key {
        let has = |list: &[&str]| list.contains(&name);
        let mut flags = 0;
        for (list, flag) in [
            (NOISE, NOISY),
            (MEANINGFUL_FALSES, MEANINGFUL_FALSE),
            (NESTED_REDUCED, REDUCED),
            (COUNTS, COUNT),
            (&["project_id"][..], PROJECT_ID),
        ] {
            if has(list) {
                flags |= flag;
            }
        }
        if has(KEPT_URLS) {
            flags |= KEPT;
        }
        if name.ends_with("_html") || (name.ends_with("_url") && !has(KEPT_URLS)) {
            flags |= LINK;
        }
        if name.ends_with("_count") {
            flags |= COUNT;
        }
        let kept_names: Vec<&str> = DUPLICATES.iter().fold(Vec::new(), |mut names, (_, k)| {
            if !names.contains(k) {
                names.push(k);
            }
            names
        });
        let bit = |kept: &str| 1 << kept_names.iter().position(|k| *k == kept).unwrap();
        Key {
            flags,
            kept: if kept_names.contains(&name) {
                bit(name)
            } else {
                0
            },
            repeats: DUPLICATES
                .iter()
                .filter(|(r, _)| *r == name)
                .fold(0, |bits, (_, kept)| bits | bit(kept)),
            default: DEFAULTS
                .iter()
                .position(|(k, _)| *k == name)
                .map_or(0, |at| at as u8 + 1),
        }
    }

    #[test]
    fn every_key_is_found_with_what_the_lists_say() {
        let listed = NOISE
            .iter()
            .chain(KEPT_URLS)
            .chain(MEANINGFUL_FALSES)
            .chain(NESTED_REDUCED)
            .chain(COUNTS)
            .chain(DUPLICATES.iter().flat_map(|(a, b)| [a, b]))
            .chain(DEFAULTS.iter().map(|(k, _)| k));
        let others = [
            "",
            "id",
            "iid",
            "title",
            "description",
            "state",
            "x_url",
            "note_html",
            "web",
            "user_notes_count",
            "count",
            "project",
            "project_ids",
            "_link",
            "url_",
            "aurl",
            "type_",
            "types",
            "assigneez",
            "é_url",
            "ünïcödé",
        ];
        for name in listed.copied().chain(others) {
            assert_eq!(key(name), by_lists(name), "{name:?}");
        }
        // Every GitLab field the catalog documents.
        for kind in crate::catalog::kinds() {
            for name in kind.fields.iter().chain(kind.summary) {
                assert_eq!(key(name), by_lists(name), "{name:?}");
            }
        }
    }

    #[test]
    fn a_duplicate_is_dropped_only_beside_the_field_it_repeats() {
        let present = key("assignees").kept_bit() | key("issue_type").kept_bit();
        assert!(key("assignee").repeats_one_of(present));
        assert!(key("type").repeats_one_of(present));
        assert!(!key("created_at").repeats_one_of(present));
        assert!(key("created_at").repeats_one_of(key("authored_date").kept_bit()));
        assert!(key("prepared_at").repeats_one_of(key("created_at").kept_bit()));
        assert_eq!(key("type").default_value(), Some("ISSUE"));
        assert_eq!(key("title").default_value(), None);
    }
}

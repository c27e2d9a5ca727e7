//! The published surface stays stable: `catalog/surface.lock` (from
//! `gitlab-mcp catalog --surface`) lists every tool, action and parameter
//! with its type, whether it is required and its allowed values. The
//! catalog may add to it (the test passes and prints the one command that
//! regenerates the lock), but a change that breaks a caller fails: a name
//! removed or renamed, a parameter made required, a new required parameter
//! on an existing action, a type changed, an allowed value taken away. It
//! passes only once CHANGELOG.md's `## [Unreleased]` has a `### Breaking`
//! section naming each (`gitlab_issue get`, `gitlab_issue list state`) and
//! the lock is regenerated in the same change.

use std::collections::BTreeMap;

const REGENERATE: &str = "cargo run -q -- catalog --surface > catalog/surface.lock";

/// A parameter's shape on its line: `string required enum=a|b`.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Shape {
    ty: String,
    required: bool,
    /// `None`: any value of the type.
    allowed: Option<Vec<String>>,
}

/// Every name of a surface: a tool (`gitlab_issue`), an action
/// (`gitlab_issue get`) or a parameter (`gitlab_issue get issue_iid`),
/// parameters with their shape.
type Surface = BTreeMap<String, Option<Shape>>;

fn parse(text: &str) -> Result<Surface, String> {
    let mut surface = Surface::new();
    for (n, line) in text.lines().enumerate() {
        if line.starts_with('#') || line.trim().is_empty() {
            continue;
        }
        let words: Vec<&str> = line.split(' ').collect();
        let (name, shape) = match words.as_slice() {
            [tool] => (tool.to_string(), None),
            [tool, action] => (format!("{tool} {action}"), None),
            [tool, action, param, ty, required, rest @ ..] if rest.len() <= 1 => {
                let required = match *required {
                    "required" => true,
                    "optional" => false,
                    other => {
                        return Err(format!(
                            "line {}: `{other}` is not required/optional",
                            n + 1
                        ));
                    }
                };
                let allowed = match rest {
                    [] => None,
                    [values] => match values.strip_prefix("enum=") {
                        Some(values) => Some(values.split('|').map(String::from).collect()),
                        None => return Err(format!("line {}: `{values}` is not enum=…", n + 1)),
                    },
                    _ => unreachable!("rest has at most one word"),
                };
                let shape = Shape {
                    ty: ty.to_string(),
                    required,
                    allowed,
                };
                (format!("{tool} {action} {param}"), Some(shape))
            }
            _ => return Err(format!("line {}: `{line}` is not a surface line", n + 1)),
        };
        if surface.insert(name.clone(), shape).is_some() {
            return Err(format!("line {}: `{name}` twice", n + 1));
        }
    }
    Ok(surface)
}

/// What changed from `lock` to `now`: the breaking changes, each naming
/// its item, and how many names were added.
#[derive(Debug, Default, PartialEq)]
struct Changes {
    breaking: Vec<(String, String)>,
    added: usize,
}

fn compare(lock: &Surface, now: &Surface) -> Changes {
    let mut changes = Changes::default();
    // The item that holds `name`: `a b c` is in `a b`, which is in `a`.
    let parent = |name: &str| name.rsplit_once(' ').map(|(p, _)| p.to_string());
    for (name, old) in lock {
        match (old, now.get(name)) {
            // A removed tool or action is one change, not one per parameter.
            (_, None) if parent(name).is_none_or(|p| now.contains_key(&p)) => {
                changes
                    .breaking
                    .push((name.clone(), "was removed or renamed".into()));
            }
            (Some(old), Some(Some(new))) => {
                if new.required && !old.required {
                    changes
                        .breaking
                        .push((name.clone(), "became required".into()));
                }
                if new.ty != old.ty {
                    let why = format!("changed type from {} to {}", old.ty, new.ty);
                    changes.breaking.push((name.clone(), why));
                }
                let lost: Vec<&String> = match (&old.allowed, &new.allowed) {
                    (_, None) => Vec::new(),
                    (None, Some(_)) => {
                        changes
                            .breaking
                            .push((name.clone(), "now takes only listed values".into()));
                        Vec::new()
                    }
                    (Some(old), Some(new)) => old.iter().filter(|v| !new.contains(v)).collect(),
                };
                if !lost.is_empty() {
                    let lost: Vec<&str> = lost.iter().map(|v| v.as_str()).collect();
                    let why = format!("no longer takes {}", lost.join(", "));
                    changes.breaking.push((name.clone(), why));
                }
            }
            _ => {}
        }
    }
    for (name, new) in now {
        if lock.contains_key(name) {
            continue;
        }
        changes.added += 1;
        // A call that worked without it would now be refused.
        let on_existing_action = parent(name).is_some_and(|p| lock.contains_key(&p));
        if new.as_ref().is_some_and(|s| s.required) && on_existing_action {
            changes
                .breaking
                .push((name.clone(), "is a new required parameter".into()));
        }
    }
    changes
}

/// The `### Breaking` section of `## [Unreleased]` in a Keep a Changelog
/// file, or "" when it has none.
fn unreleased_breaking(changelog: &str) -> String {
    let mut in_unreleased = false;
    let mut in_breaking = false;
    let mut section = String::new();
    for line in changelog.lines() {
        if let Some(heading) = line.strip_prefix("## ") {
            in_unreleased = heading.trim().eq_ignore_ascii_case("[Unreleased]");
            in_breaking = false;
        } else if let Some(heading) = line.strip_prefix("### ") {
            in_breaking = in_unreleased && heading.trim().eq_ignore_ascii_case("Breaking");
        } else if in_breaking {
            section.push_str(line);
            section.push('\n');
        }
    }
    section
}

/// The breaking changes CHANGELOG.md does not name under Unreleased's
/// Breaking.
fn unacknowledged<'a>(changes: &'a Changes, changelog: &str) -> Vec<&'a str> {
    let breaking = unreleased_breaking(changelog);
    changes
        .breaking
        .iter()
        .map(|(name, _)| name.as_str())
        .filter(|name| !breaking.contains(&format!("`{name}`")))
        .collect()
}

fn read(path: &str) -> String {
    let path = format!("{}/{path}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

#[test]
fn the_catalog_keeps_every_name_of_the_published_surface() {
    let lock_text = read("catalog/surface.lock");
    assert!(
        lock_text.starts_with(gitlab_mcp::catalog::SURFACE_HEADER),
        "catalog/surface.lock is generated, not edited: {REGENERATE}"
    );
    let lock = parse(&lock_text).expect("catalog/surface.lock parses");
    let now = parse(&gitlab_mcp::catalog::catalog_surface()).expect("the surface parses");
    let changes = compare(&lock, &now);
    let listed: Vec<String> = changes
        .breaking
        .iter()
        .map(|(name, why)| format!("- `{name}` {why}"))
        .collect();
    let listed = listed.join("\n");
    assert_eq!(
        unacknowledged(&changes, &read("CHANGELOG.md")),
        Vec::<&str>::new(),
        "the catalog breaks callers that depend on the published surface:\n{listed}\n\
         If that is meant, name each under `### Breaking` in CHANGELOG.md's `## [Unreleased]` \
         (in backticks, as above), then regenerate the lock: {REGENERATE}"
    );
    assert_eq!(
        changes.breaking,
        Vec::new(),
        "CHANGELOG.md names these breaking changes; regenerate the lock in the same change: {REGENERATE}"
    );
    if changes.added > 0 {
        eprintln!(
            "catalog/surface.lock lacks {} new names (additions are fine); regenerate it: {REGENERATE}",
            changes.added
        );
    }
}

/// The base of the cases below: today's surface, as a lock.
fn today() -> (String, Surface) {
    let text = gitlab_mcp::catalog::catalog_surface();
    let surface = parse(&text).unwrap();
    (text, surface)
}

/// `text` with each line passed through `edit` (`None` drops it).
fn edited(text: &str, edit: impl Fn(&str) -> Option<String>) -> Surface {
    let lines: Vec<String> = text.lines().filter_map(&edit).collect();
    parse(&lines.join("\n")).unwrap()
}

const NAMED: &str = "# Changelog\n\n## [Unreleased]\n\n### Breaking\n\n- `gitlab_issue get` is now `fetch`.\n\n## [0.1.0]\n";

#[test]
fn a_renamed_action_fails_until_the_changelog_names_it_under_breaking() {
    let (text, lock) = today();
    let renamed = edited(&text, |line| {
        Some(match line.strip_prefix("gitlab_issue get") {
            Some(rest) if rest.is_empty() || rest.starts_with(' ') => {
                format!("gitlab_issue fetch{rest}")
            }
            _ => line.to_string(),
        })
    });
    let changes = compare(&lock, &renamed);
    // One change for the action, not one per parameter; its parameters
    // under the new name are additions.
    assert_eq!(
        changes.breaking,
        vec![(
            "gitlab_issue get".to_string(),
            "was removed or renamed".to_string()
        )]
    );
    let params = text
        .lines()
        .filter(|l| l.starts_with("gitlab_issue get "))
        .count();
    assert_eq!(changes.added, 1 + params);

    assert_eq!(
        unacknowledged(&changes, "# Changelog\n\n## [Unreleased]\n"),
        vec!["gitlab_issue get"]
    );
    // Named under a released version's Breaking, or only in Added, is not enough.
    let released = "# Changelog\n\n## [Unreleased]\n\n### Added\n\n- `gitlab_issue get`\n\n## [0.1.0]\n\n### Breaking\n\n- `gitlab_issue get`\n";
    assert_eq!(unacknowledged(&changes, released), vec!["gitlab_issue get"]);
    assert_eq!(unacknowledged(&changes, NAMED), Vec::<&str>::new());
}

#[test]
fn a_removed_tool_is_one_change() {
    let (text, lock) = today();
    let without = edited(&text, |line| {
        (line != "gitlab_issue" && !line.starts_with("gitlab_issue ")).then(|| line.to_string())
    });
    let changes = compare(&lock, &without);
    assert_eq!(
        changes.breaking,
        vec![(
            "gitlab_issue".to_string(),
            "was removed or renamed".to_string()
        )]
    );
    assert_eq!(changes.added, 0);
}

#[test]
fn a_parameter_made_required_or_narrowed_breaks_and_a_relaxed_one_does_not() {
    let (text, lock) = today();
    let param = "gitlab_issue list state";
    let line = text
        .lines()
        .find(|l| l.starts_with(&format!("{param} ")))
        .unwrap()
        .to_string();
    assert!(line.contains(" optional enum="), "{line}");
    let with = |new: String| {
        edited(&text, |l| {
            Some(if l == line {
                new.clone()
            } else {
                l.to_string()
            })
        })
    };

    let required = compare(&lock, &with(line.replace(" optional", " required")));
    assert_eq!(
        required.breaking,
        vec![(param.to_string(), "became required".to_string())]
    );

    let (head, values) = line.split_once(" enum=").unwrap();
    let first = values.split('|').next().unwrap();
    let rest: Vec<&str> = values.split('|').skip(1).collect();
    let narrowed = compare(&lock, &with(format!("{head} enum={}", rest.join("|"))));
    assert_eq!(
        narrowed.breaking,
        vec![(param.to_string(), format!("no longer takes {first}"))]
    );

    let retyped = compare(&lock, &with(line.replace(" string ", " integer ")));
    assert_eq!(
        retyped.breaking,
        vec![(
            param.to_string(),
            "changed type from string to integer".to_string()
        )]
    );

    // Any value now, or one more value: callers still work.
    assert_eq!(compare(&lock, &with(head.to_string())), Changes::default());
    assert_eq!(
        compare(&lock, &with(format!("{line}|zzz"))),
        Changes::default()
    );
}

#[test]
fn additions_pass_but_a_new_required_parameter_on_an_existing_action_breaks() {
    let (text, lock) = today();
    let mut added = text.clone();
    added.push_str("gitlab_issue summon\ngitlab_issue summon spell string required\n");
    assert_eq!(
        compare(&lock, &parse(&added).unwrap()),
        Changes {
            breaking: vec![],
            added: 2
        }
    );

    let mut required = text.clone();
    required.push_str("gitlab_issue get spell string required\n");
    let changes = compare(&lock, &parse(&required).unwrap());
    assert_eq!(
        changes.breaking,
        vec![(
            "gitlab_issue get spell".to_string(),
            "is a new required parameter".to_string()
        )]
    );
    let mut optional = text;
    optional.push_str("gitlab_issue get spell string optional\n");
    assert_eq!(
        compare(&lock, &parse(&optional).unwrap()),
        Changes {
            breaking: vec![],
            added: 1
        }
    );
}

#[test]
fn a_garbled_lock_line_is_refused_with_its_line_number() {
    assert_eq!(
        parse("gitlab_issue get x string maybe"),
        Err("line 1: `maybe` is not required/optional".into())
    );
    assert_eq!(parse("a\na"), Err("line 2: `a` twice".into()));
}

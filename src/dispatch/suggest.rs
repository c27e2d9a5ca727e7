//! Finding the name an agent probably meant.
//!
//! Suggestions are only words in an error: nothing here renames anything.
//! Three sources, tried in order: the same name in snake_case, the synonyms
//! agents really use (`catalog/vocabulary.toml`), then edit distance.

use crate::catalog::{self, ActionSpec, ToolSpec};

/// `issueIid` → `issue_iid`, `Project-ID` → `project_id`, ` ref ` → `ref`.
pub fn snake_case(name: &str) -> String {
    let mut out = String::with_capacity(name.len() + 4);
    let mut prev_lower_or_digit = false;
    for c in name.trim().chars() {
        if c.is_ascii_uppercase() {
            if prev_lower_or_digit {
                out.push('_');
            }
            out.push(c.to_ascii_lowercase());
            prev_lower_or_digit = false;
        } else if c == '-' || c == ' ' || c == '.' {
            out.push('_');
            prev_lower_or_digit = false;
        } else {
            out.push(c);
            prev_lower_or_digit = c.is_ascii_lowercase() || c.is_ascii_digit();
        }
    }
    // `iids[]` as GitLab's docs write it is the parameter `iids`.
    while out.ends_with("[]") {
        out.truncate(out.len() - 2);
    }
    out
}

/// The accepted parameter `key` probably meant, if any; parameters the call
/// already gives (`given`) are not suggested again.
pub fn suggest_param(key: &str, action: &ActionSpec, given: &[String]) -> Option<&'static str> {
    let names: Vec<&'static str> = action
        .params
        .iter()
        .map(|p| p.name)
        .filter(|n| !given.iter().any(|g| g == n))
        .collect();
    if let Some(name) = suggest_among(key, &names) {
        return Some(name);
    }
    // A bare `id` or `iid` is the action's own resource: its last path
    // parameter not already given.
    let snake = snake_case(key);
    if matches!(snake.as_str(), "id" | "iid") {
        return action
            .params
            .iter()
            .filter(|p| p.location == crate::catalog::Location::Path)
            .map(|p| p.name)
            .rfind(|n| names.contains(n));
    }
    None
}

/// The name among `names` that `key` probably meant: the same name in
/// snake_case, a synonym agents use, one word of a longer name (`ref` for
/// `ref_name`), or a close spelling.
pub fn suggest_among(key: &str, names: &[&'static str]) -> Option<&'static str> {
    let snake = snake_case(key);
    let find = |name: &str| names.iter().copied().find(|n| *n == name);
    if let Some(n) = find(&snake) {
        return Some(n);
    }
    if let Some((_, candidates)) = catalog::vocabulary()
        .param_synonyms
        .iter()
        .find(|(k, _)| *k == snake)
        && let Some(n) = candidates.iter().find_map(|c| find(c))
    {
        return Some(n);
    }
    let part_of = names.iter().copied().find(|n| {
        n.strip_suffix(snake.as_str())
            .is_some_and(|rest| rest.ends_with('_'))
            || n.strip_prefix(snake.as_str())
                .is_some_and(|rest| rest.starts_with('_'))
    });
    if part_of.is_some() {
        return part_of;
    }
    // `ref_name` for `ref`: an accepted name is one word of the key.
    let words: Vec<&str> = snake.split('_').collect();
    if words.len() > 1
        && let Some(n) = names.iter().copied().find(|n| words.contains(n))
    {
        return Some(n);
    }
    closest(&snake, names.iter().copied())
}

/// The closest of `candidates` by edit distance, if close enough to be a
/// plausible typo: transpositions count as one edit.
pub fn closest<'a>(given: &str, candidates: impl Iterator<Item = &'a str>) -> Option<&'a str> {
    let given = given.to_ascii_lowercase();
    let mut best: Option<(&'a str, usize, f64)> = None;
    for candidate in candidates {
        let distance = strsim::damerau_levenshtein(&given, candidate);
        let similarity = strsim::jaro_winkler(&given, candidate);
        let better = match best {
            None => true,
            Some((_, d, s)) => distance < d || (distance == d && similarity > s),
        };
        if better {
            best = Some((candidate, distance, similarity));
        }
    }
    let (name, distance, similarity) = best?;
    let allowed = match given.chars().count().max(name.len()) {
        0..=3 => 1,
        4..=7 => 2,
        _ => 3,
    };
    (distance <= allowed || similarity >= 0.92).then_some(name)
}

/// A typo of one of `candidates`: the same first letter and about one edit
/// per four letters. Stricter than `closest`, for names that may be right
/// although unknown (a field GitLab added).
pub fn typo_of<'a>(given: &str, candidates: impl Iterator<Item = &'a str>) -> Option<&'a str> {
    let given = given.to_ascii_lowercase();
    let first = given.chars().next()?;
    let allowed = (given.chars().count() / 4).max(1);
    candidates
        .filter(|c| c.starts_with(first))
        .map(|c| (c, strsim::damerau_levenshtein(&given, c)))
        .filter(|(_, d)| *d <= allowed)
        .min_by_key(|(_, d)| *d)
        .map(|(c, _)| c)
}

/// Words of a guessed action name, mapped to catalog words and singular.
/// The flag says whether a plural noun asked for a list (`get_comments`).
fn action_words(given: &str) -> (Vec<String>, bool) {
    let snake = snake_case(given);
    let mut plural = false;
    let mut words: Vec<String> = Vec::new();
    for raw in snake.split('_').filter(|w| !w.is_empty()) {
        let mapped = |w: &str| {
            catalog::vocabulary()
                .action_words
                .iter()
                .find(|(k, _)| *k == w)
                .map(|(_, v)| *v)
        };
        let word = match mapped(raw) {
            Some(m) => m.to_string(),
            None => match singular(raw) {
                Some(stem) => {
                    plural = true;
                    mapped(stem).unwrap_or(stem).to_string()
                }
                None => raw.to_string(),
            },
        };
        words.extend(word.split('_').map(str::to_string));
    }
    (words, plural)
}

/// `branches` → `branch`, `issues` → `issue`; `None` when not a plural.
fn singular(word: &str) -> Option<&str> {
    if let Some(stem) = word.strip_suffix("es")
        && (stem.ends_with("ch")
            || stem.ends_with("sh")
            || stem.ends_with('x')
            || stem.ends_with("ss"))
    {
        return Some(stem);
    }
    word.strip_suffix('s')
        .filter(|stem| stem.len() > 2 && !word.ends_with("ss"))
}

/// The nouns a tool's name stands for: `gitlab_merge_request` → merge, request.
fn tool_nouns(tool: &ToolSpec) -> Vec<&'static str> {
    tool.name.trim_start_matches("gitlab_").split('_').collect()
}

/// The action of `tool` that `given` names once the tool's own nouns are set
/// aside and verb and noun are put in catalog order: `get_issue` is `get` in
/// `gitlab_issue`, `add_comment` is `note_create`, `get_comments` is `note_list`.
pub fn match_action(given: &str, tool: &'static ToolSpec) -> Option<&'static str> {
    if let Some(name) = action_synonym(given, tool) {
        return Some(name);
    }
    let (words, plural) = action_words(given);
    let nouns = tool_nouns(tool);
    let rest: Vec<&str> = words
        .iter()
        .map(String::as_str)
        .filter(|w| !nouns.contains(w))
        .collect();
    // The mapped words may name an action as they are (`accept` → `merge`).
    let mut candidates: Vec<String> = vec![words.join("_")];
    if rest.is_empty() {
        // Only the tool's noun was given: `list_issues` or `issues`.
        candidates.push(if plural { "list".into() } else { "get".into() });
    } else {
        // `get_comments` asks for a list of comments, before `note_get`.
        if plural && rest.len() == 2 && rest.contains(&"get") {
            let noun = rest.iter().find(|w| **w != "get").unwrap();
            candidates.push(format!("{noun}_list"));
        }
        candidates.push(rest.join("_"));
        let mut reversed = rest.clone();
        reversed.reverse();
        candidates.push(reversed.join("_"));
        // `get_job_log` is `job_log`: a leading verb on a noun-named action.
        let without_get: Vec<&str> = rest.iter().copied().filter(|w| *w != "get").collect();
        if !without_get.is_empty() && without_get.len() < rest.len() {
            candidates.push(without_get.join("_"));
        }
        if rest.len() == 1 && plural {
            candidates.push(format!("{}_list", rest[0]));
        }
    }
    // `get_diff` for `diffs`: the same action, named in the plural.
    let plurals: Vec<String> = candidates.iter().map(|c| format!("{c}s")).collect();
    candidates
        .iter()
        .chain(&plurals)
        .find_map(|c| tool.action(c))
        .map(|a| a.name)
}

/// The action of `tool` a whole guessed name stands for in the
/// vocabulary's `action_synonyms` (`comment` is `note_create`): the first
/// of its meanings the tool has.
fn action_synonym(given: &str, tool: &'static ToolSpec) -> Option<&'static str> {
    let snake = snake_case(given);
    let (_, meanings) = catalog::vocabulary()
        .action_synonyms
        .iter()
        .find(|(k, _)| *k == snake)?;
    meanings.iter().find_map(|m| tool.action(m)).map(|a| a.name)
}

/// Up to three actions of `tool` close to `given`, best first.
pub fn closest_actions(given: &str, tool: &'static ToolSpec) -> Vec<&'static str> {
    let mut out = Vec::new();
    if let Some(name) = match_action(given, tool) {
        out.push(name);
    }
    let snake = snake_case(given);
    // A typo of a short name (`gte` for `get`) is edit distance, not likeness.
    if let Some(name) = closest(&snake, tool.actions.iter().map(|a| a.name))
        && !out.contains(&name)
    {
        out.push(name);
    }
    let mut scored: Vec<(&'static str, f64)> = tool
        .actions
        .iter()
        .filter(|a| !out.contains(&a.name))
        .map(|a| (a.name, strsim::jaro_winkler(&snake, a.name)))
        .filter(|(_, s)| *s >= 0.8)
        .collect();
    scored.sort_by(|a, b| b.1.total_cmp(&a.1));
    out.extend(scored.into_iter().map(|(n, _)| n));
    out.truncate(3);
    out
}

/// Other tools that have the action `given` asks for.
pub fn action_elsewhere(
    given: &str,
    tool: &'static ToolSpec,
    all: &'static [ToolSpec],
) -> Vec<(&'static str, &'static str)> {
    let snake = snake_case(given);
    let given_words = action_words(given).0;
    all.iter()
        .filter(|t| t.name != tool.name)
        .filter_map(|other| {
            if let Some(a) = other.action(&snake) {
                // A plain verb like `list` exists everywhere; it names another
                // tool only when that tool's noun was in the guess too.
                if snake.contains('_') {
                    return Some((other.name, a.name));
                }
            }
            let nouns = tool_nouns(other);
            let names_other = nouns.iter().all(|n| given_words.iter().any(|w| w == n));
            // A sub-resource action (`branch_create`) names its resource; a
            // bare verb (`list`) needs the other tool's noun in the guess.
            match_action(given, other)
                .filter(|a| names_other || a.contains('_'))
                .map(|a| (other.name, a))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn snake_case_normalises_common_spellings() {
        assert_eq!(snake_case("issueIid"), "issue_iid");
        assert_eq!(snake_case("projectID"), "project_id");
        assert_eq!(snake_case("per-page"), "per_page");
        assert_eq!(snake_case("iids[]"), "iids");
        assert_eq!(snake_case("already_snake"), "already_snake");
    }

    #[test]
    fn closest_tolerates_typos_and_transpositions() {
        let names = ["project_id", "issue_iid", "labels"];
        assert_eq!(
            closest("projcet_id", names.iter().copied()),
            Some("project_id")
        );
        assert_eq!(closest("lables", names.iter().copied()), Some("labels"));
        assert_eq!(closest("zebra", names.iter().copied()), None);
    }
}

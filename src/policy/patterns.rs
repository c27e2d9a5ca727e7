//! `tool.action` patterns with `*` wildcards: `*.delete`,
//! `gitlab_pipeline.*`, `gitlab_*.member_*`.

use std::fmt;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pattern(String);

impl Pattern {
    /// A pattern; a bare action pattern (`delete`) means it in every tool.
    pub fn new(text: &str) -> Pattern {
        let text = text.trim();
        if text.contains('.') {
            Pattern(text.to_string())
        } else {
            Pattern(format!("*.{text}"))
        }
    }

    pub fn matches(&self, name: &str) -> bool {
        glob(self.0.as_bytes(), name.as_bytes())
    }
}

impl fmt::Display for Pattern {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// `*` matches any run of characters; everything else matches itself.
fn glob(pattern: &[u8], text: &[u8]) -> bool {
    match pattern.split_first() {
        None => text.is_empty(),
        Some((b'*', rest)) => (0..=text.len()).any(|i| glob(rest, &text[i..])),
        Some((c, rest)) => text.first() == Some(c) && glob(rest, &text[1..]),
    }
}

#[cfg(test)]
mod tests {
    use super::Pattern;

    #[test]
    fn wildcards_match_tool_and_action_parts() {
        assert!(Pattern::new("*.delete").matches("gitlab_issue.delete"));
        assert!(!Pattern::new("*.delete").matches("gitlab_issue.note_delete"));
        assert!(Pattern::new("*delete").matches("gitlab_issue.note_delete"));
        assert!(Pattern::new("gitlab_pipeline.*").matches("gitlab_pipeline.job_erase"));
        assert!(Pattern::new("delete").matches("gitlab_project.delete"));
        assert!(Pattern::new("gitlab_*.member_*").matches("gitlab_group.member_remove"));
    }
}

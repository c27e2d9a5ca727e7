//! What the compiler refuses. Like rustc, it reports every mistake at once:
//! each check pushes a `Problem` naming the file, the item in it and the
//! key at fault, and goes on; the build fails once, listing them all.

use std::fmt;

/// One mistake in the catalog.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Problem {
    /// `catalog/gitlab_issue.toml`
    pub file: String,
    /// What in the file: "action `list`", "action `list` param `state`",
    /// "kind `issue`"; empty for the file as a whole.
    pub item: String,
    /// The key at fault (`returns`, `in`...), when there is one.
    pub field: Option<&'static str>,
    pub message: String,
}

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.file)?;
        if !self.item.is_empty() {
            write!(f, ": {}", self.item)?;
        }
        if let Some(field) = self.field {
            write!(f, ": `{field}`")?;
        }
        write!(f, ": {}", self.message.trim_end())
    }
}

/// Every mistake of a compilation, sorted by file (in the order found
/// within a file).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Problems(pub Vec<Problem>);

impl Problems {
    fn sorted(mut problems: Vec<Problem>) -> Problems {
        problems.sort_by(|a, b| a.file.cmp(&b.file));
        Problems(problems)
    }
}

impl fmt::Display for Problems {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let n = self.0.len();
        writeln!(
            f,
            "{n} problem{} in the catalog:",
            if n == 1 { "" } else { "s" }
        )?;
        for problem in &self.0 {
            // A TOML error spans several lines: keep them under their dash.
            writeln!(f, "- {}", problem.to_string().replace('\n', "\n  "))?;
        }
        Ok(())
    }
}

impl std::error::Error for Problems {}

/// Where a check is looking: a file, and an item in it.
#[derive(Clone)]
pub struct Place {
    file: String,
    item: String,
}

impl Place {
    pub fn file(file: impl Into<String>) -> Place {
        Place {
            file: file.into(),
            item: String::new(),
        }
    }

    /// The file of this place, no item.
    pub fn file_only(&self) -> Place {
        Place::file(self.file.clone())
    }

    /// An item of this place: `action `list``, then `action `list` param `state``.
    pub fn then(&self, item: impl fmt::Display) -> Place {
        let item = if self.item.is_empty() {
            item.to_string()
        } else {
            format!("{} {item}", self.item)
        };
        Place {
            file: self.file.clone(),
            item,
        }
    }
}

/// The problems found so far.
#[derive(Default)]
pub struct Report {
    problems: Vec<Problem>,
}

impl Report {
    pub fn push(&mut self, at: &Place, field: Option<&'static str>, message: impl Into<String>) {
        self.problems.push(Problem {
            file: at.file.clone(),
            item: at.item.clone(),
            field,
            message: message.into(),
        });
    }

    /// A problem with a key of the item.
    pub fn field(&mut self, at: &Place, field: &'static str, message: impl Into<String>) {
        self.push(at, Some(field), message);
    }

    /// Keep only the problems of files `keep` accepts.
    pub fn retain_files(&mut self, keep: impl Fn(&str) -> bool) {
        self.problems.retain(|p| keep(&p.file));
    }

    /// The value, or every problem once (a shared declaration is checked
    /// in every action that uses it).
    pub fn finish<T>(mut self, value: T) -> Result<T, Problems> {
        if self.problems.is_empty() {
            return Ok(value);
        }
        let mut seen = std::collections::HashSet::new();
        self.problems.retain(|p| seen.insert(p.clone()));
        Err(Problems::sorted(self.problems))
    }
}

//! Why a comment cannot be placed, as a typed value whose `Display` is the
//! sentence the model reads: a file not in the version, a file without
//! diff text, a line outside the hunks (naming the lines that can take a
//! comment), a range across lines that are not in the diff.

use std::fmt::{self, Write as _};

use crate::diff::Side;

/// Why a comment cannot be placed; its `Display` is the sentence the
/// model reads.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Problem {
    /// No file of the version has this path.
    NotAFile {
        file: String,
        version: u64,
        /// The version's files, by their new paths.
        files: Vec<String>,
    },
    /// GitLab sent no diff text for the file.
    NoText { file: String, too_large: bool },
    /// A line (`param`: `line`, `old_line` or `end_line`) outside the hunks.
    NotInDiff {
        file: String,
        param: &'static str,
        side: Side,
        line: u64,
        /// Runs of lines that can take a comment on that side.
        runs: Vec<(u64, u64)>,
    },
    /// A range whose ends are in the diff but not in one run of lines.
    CrossesGap {
        file: String,
        side: Side,
        start: u64,
        end: u64,
        runs: Vec<(u64, u64)>,
    },
}

/// The parameter that names a line on `side`.
pub(super) fn param(side: Side) -> &'static str {
    match side {
        Side::New => "line",
        Side::Old => "old_line",
    }
}

/// The runs nearest to `near` (at most six), in line order: `10-24, 31-35`.
pub(super) fn nearest_runs(runs: &[(u64, u64)], near: u64) -> String {
    const SHOWN: usize = 6;
    let distance = |(a, b): &(u64, u64)| {
        if near < *a {
            a - near
        } else {
            near.saturating_sub(*b)
        }
    };
    let mut picked: Vec<(u64, u64)> = runs.to_vec();
    if picked.len() > SHOWN {
        picked.sort_by_key(distance);
        picked.truncate(SHOWN);
        picked.sort_unstable();
    }
    let mut text = picked
        .iter()
        .map(|(a, b)| {
            if a == b {
                a.to_string()
            } else {
                format!("{a}-{b}")
            }
        })
        .collect::<Vec<_>>()
        .join(", ");
    if runs.len() > SHOWN {
        let _ = write!(text, " (the {SHOWN} nearest of {} ranges)", runs.len());
    }
    text
}

/// A version's files for a refusal: at most 20.
pub(super) fn file_names(files: &[String]) -> String {
    const SHOWN: usize = 20;
    if files.is_empty() {
        return "none".into();
    }
    let mut text = files[..files.len().min(SHOWN)].join(", ");
    if files.len() > SHOWN {
        let _ = write!(text, " and {} more (action `diffs`)", files.len() - SHOWN);
    }
    text
}

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Problem::NotAFile {
                file,
                version,
                files,
            } => write!(
                f,
                "{file} is not a file of this merge request's diff (version {version}); its files: {}",
                file_names(files)
            ),
            Problem::NoText { file, too_large } => write!(
                f,
                "GitLab sent no diff text for {file} ({}), so no line of it can be checked; action `discussion_create` takes a position as given",
                if *too_large {
                    "too large, or collapsed"
                } else {
                    "binary, or only renamed"
                }
            ),
            Problem::NotInDiff {
                file,
                param,
                side,
                line,
                runs,
            } => {
                let version = match side {
                    Side::New => "new",
                    Side::Old => "old",
                };
                write!(f, "{param} {line} is not in the diff of {file}; ")?;
                if runs.is_empty() {
                    write!(
                        f,
                        "no {version}-version line of this file can take a comment"
                    )?;
                } else {
                    write!(
                        f,
                        "{version}-version lines that can take a comment: {}",
                        nearest_runs(runs, *line)
                    )?;
                }
                f.write_str(match side {
                    Side::New => " (a removed line takes `old_line`)",
                    Side::Old => " (an added line takes `line`)",
                })
            }
            Problem::CrossesGap {
                file,
                side,
                start,
                end,
                runs,
            } => write!(
                f,
                "{} {start} to {end} crosses lines that are not in the diff of {file}; a range stays within one of: {}",
                param(*side),
                nearest_runs(runs, *start)
            ),
        }
    }
}

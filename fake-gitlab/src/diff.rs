//! Unified diffs as GitLab shows them in the `diff` field of a diff file
//! (docs: https://docs.gitlab.com/api/merge_requests/#list-merge-request-diffs):
//! hunks only, no `---`/`+++` header, three lines of context, and the line
//! codes GitLab gives each diff line.

use sha1::{Digest, Sha1};

/// The unified diff of `old` to `new`: `@@ -a,b +c,d @@` hunks with three
/// lines of context, from a longest-common-subsequence line match.
pub fn unified(old: &str, new: &str) -> String {
    let a: Vec<&str> = old.lines().collect();
    let b: Vec<&str> = new.lines().collect();
    let ops = edit_script(&a, &b);
    let mut out = String::new();
    let context = 3;
    // Indexes of changed operations, grouped into hunks.
    let changed: Vec<usize> = ops
        .iter()
        .enumerate()
        .filter(|(_, op)| !matches!(op, Op::Same(..)))
        .map(|(i, _)| i)
        .collect();
    let mut i = 0;
    while i < changed.len() {
        let start = changed[i].saturating_sub(context);
        let mut end = changed[i] + context + 1;
        while i + 1 < changed.len() && changed[i + 1] <= end + context {
            i += 1;
            end = changed[i] + context + 1;
        }
        let end = end.min(ops.len());
        let (mut old_start, mut new_start) = (None, None);
        let (mut old_count, mut new_count) = (0, 0);
        let mut body = String::new();
        for op in &ops[start..end] {
            match op {
                Op::Same(x, y) => {
                    old_start.get_or_insert(*x);
                    new_start.get_or_insert(*y);
                    old_count += 1;
                    new_count += 1;
                    body.push_str(&format!(" {}\n", a[*x]));
                }
                Op::Del(x, y) => {
                    old_start.get_or_insert(*x);
                    new_start.get_or_insert(*y);
                    old_count += 1;
                    body.push_str(&format!("-{}\n", a[*x]));
                }
                Op::Add(x, y) => {
                    old_start.get_or_insert(*x);
                    new_start.get_or_insert(*y);
                    new_count += 1;
                    body.push_str(&format!("+{}\n", b[*y]));
                }
            }
        }
        // A range of zero lines starts at the line before it (diff's rule).
        let range = |start: Option<usize>, count: usize| {
            let start = start.unwrap_or(0);
            match count {
                0 => format!("{start},0"),
                1 => format!("{}", start + 1),
                n => format!("{},{n}", start + 1),
            }
        };
        out.push_str(&format!(
            "@@ -{} +{} @@\n{body}",
            range(old_start, old_count),
            range(new_start, new_count)
        ));
        i += 1;
    }
    out
}

/// One operation of an edit script: indexes into the old and new lines
/// (for an addition, the old index is where it goes, and the reverse).
enum Op {
    Same(usize, usize),
    Del(usize, usize),
    Add(usize, usize),
}

fn edit_script(a: &[&str], b: &[&str]) -> Vec<Op> {
    let (n, m) = (a.len(), b.len());
    let mut lcs = vec![vec![0u32; m + 1]; n + 1];
    for i in (0..n).rev() {
        for j in (0..m).rev() {
            lcs[i][j] = if a[i] == b[j] {
                lcs[i + 1][j + 1] + 1
            } else {
                lcs[i + 1][j].max(lcs[i][j + 1])
            };
        }
    }
    let (mut i, mut j) = (0, 0);
    let mut ops = Vec::new();
    while i < n || j < m {
        if i < n && j < m && a[i] == b[j] {
            ops.push(Op::Same(i, j));
            i += 1;
            j += 1;
        } else if i < n && (j == m || lcs[i + 1][j] >= lcs[i][j + 1]) {
            // Removed lines before added ones, as diff writes them.
            ops.push(Op::Del(i, j));
            i += 1;
        } else {
            ops.push(Op::Add(i, j));
            j += 1;
        }
    }
    ops
}

/// A line of a diff: its number in the old file (none for an added line)
/// and in the new file (none for a removed line), and GitLab's two
/// counters at that line (`old_pos`, `new_pos`: an added line's `old_pos`
/// is the number of the old line it comes before; lib/gitlab/diff/parser.rb),
/// from which its line code is made.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DiffLine {
    pub old_line: Option<u32>,
    pub new_line: Option<u32>,
    pub old_pos: u32,
    pub new_pos: u32,
}

impl DiffLine {
    /// GitLab's line code of this line in the file at `path`.
    pub fn line_code(&self, path: &str) -> String {
        line_code(path, self.old_pos, self.new_pos)
    }
}

/// Every commentable line of a unified diff, in order.
pub fn lines(diff: &str) -> Vec<DiffLine> {
    let mut out = Vec::new();
    let (mut old, mut new) = (0u32, 0u32);
    for line in diff.lines() {
        if let Some(header) = line.strip_prefix("@@ -") {
            let mut parts = header.split(' ');
            let start = |s: Option<&str>| {
                s.and_then(|s| s.trim_start_matches('+').split(',').next())
                    .and_then(|n| n.parse::<u32>().ok())
                    .unwrap_or(0)
            };
            old = start(parts.next());
            new = start(parts.next());
            continue;
        }
        match line.as_bytes().first() {
            Some(b'+') => {
                out.push(DiffLine {
                    old_line: None,
                    new_line: Some(new),
                    old_pos: old,
                    new_pos: new,
                });
                new += 1;
            }
            Some(b'-') => {
                out.push(DiffLine {
                    old_line: Some(old),
                    new_line: None,
                    old_pos: old,
                    new_pos: new,
                });
                old += 1;
            }
            Some(b'\\') => {}
            _ => {
                out.push(DiffLine {
                    old_line: Some(old),
                    new_line: Some(new),
                    old_pos: old,
                    new_pos: new,
                });
                old += 1;
                new += 1;
            }
        }
    }
    out
}

/// GitLab's line code of a diff line: the SHA-1 of the file path, then the
/// line's old and new counters (`Gitlab::Git.diff_line_code`; see
/// `DiffLine`), as `line_range` of a multi-line comment carries them
/// (docs: https://docs.gitlab.com/api/discussions/#parameters-for-multiline-comments).
pub fn line_code(path: &str, old_pos: u32, new_pos: u32) -> String {
    let digest = Sha1::digest(path.as_bytes());
    let hex: String = digest.iter().map(|b| format!("{b:02x}")).collect();
    format!("{hex}_{old_pos}_{new_pos}")
}

/// The line of `diff` with these numbers, as a position names it.
pub fn find_line(diff: &str, old_line: Option<u32>, new_line: Option<u32>) -> Option<DiffLine> {
    lines(diff)
        .into_iter()
        .find(|l| l.old_line == old_line && l.new_line == new_line)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_changed_line_in_the_middle() {
        let old = "a\nb\nc\nd\ne\nf\ng\nh\n";
        let new = "a\nb\nc\nd\nE\nf\ng\nh\n";
        assert_eq!(
            unified(old, new),
            "@@ -2,7 +2,7 @@\n b\n c\n d\n-e\n+E\n f\n g\n h\n"
        );
        let l = lines(&unified(old, new));
        assert_eq!(l[3].old_line, Some(5));
        assert_eq!(l[3].new_line, None);
        assert_eq!((l[3].old_pos, l[3].new_pos), (5, 5));
        assert_eq!(l[4].new_line, Some(5));
        assert_eq!((l[4].old_pos, l[4].new_pos), (6, 5));
        assert_eq!(l[0].old_line, Some(2));
    }

    #[test]
    fn new_file_and_separate_hunks() {
        assert_eq!(unified("", "x\ny\n"), "@@ -0,0 +1,2 @@\n+x\n+y\n");
        let old: String = (1..=20).map(|n| format!("{n}\n")).collect();
        let new = old.replace("2\n", "two\n").replace("18\n", "eighteen\n");
        let d = unified(&old, &new);
        assert_eq!(d.matches("@@ -").count(), 2, "{d}");
        assert!(d.starts_with("@@ -1,5 +1,5 @@\n 1\n-2\n+two\n"), "{d}");
    }

    #[test]
    fn line_codes_are_sha1_of_the_path() {
        // SHA-1 of "README.md".
        assert_eq!(
            line_code("README.md", 3, 0),
            "8ec9a00bfd09b3190ac6b22251dbb1aa95a0579d_3_0"
        );
    }
}

//! The diff model, tested once, by tables: each diff text against its
//! hunks written out one line each, `kind old:new (old_pos,new_pos) text`
//! (`.` where a line has no number on a side), so GitLab's numbers and
//! counters are all visible in the expectation.

use serde_json::json;

use super::fixtures::{ORDERS, README};
use super::{Change, Counts, FileDiff, Side};

/// The hunks of `text`, one header or line per line.
fn written(text: &str) -> String {
    let file = FileDiff {
        text,
        ..FileDiff::default()
    };
    let mut out = String::new();
    for hunk in file.hunks() {
        let h = hunk.header;
        out.push_str(&format!(
            "@@ -{},{} +{},{}\n",
            h.old_start, h.old_count, h.new_start, h.new_count
        ));
        for line in &hunk.lines {
            let number = |n: Option<u64>| n.map_or(".".to_string(), |n| n.to_string());
            let kind = match line.kind {
                super::LineKind::Added => '+',
                super::LineKind::Removed => '-',
                super::LineKind::Context => ' ',
            };
            out.push_str(&format!(
                "{kind}{}:{} ({},{}) {}{}\n",
                number(line.old_line()),
                number(line.new_line()),
                line.old_pos,
                line.new_pos,
                line.text,
                if line.no_newline { " [no newline]" } else { "" }
            ));
        }
    }
    out
}

#[test]
fn diff_texts_read_into_gitlabs_numbers_and_counters() {
    let cases: &[(&str, &str, &str)] = &[
        (
            "one hunk with each kind of line",
            README,
            "@@ -1,3 +1,4
 1:1 (1,1) line one
-2:. (2,2) line two
+.:2 (3,2) line two, changed
+.:3 (3,3) line added
 3:4 (3,4) line three
",
        ),
        (
            "no newline at the end of the old file",
            "@@ -1 +1 @@\n-a\n\\ No newline at end of file\n+a\n",
            "@@ -1,1 +1,1
-1:. (1,1) a [no newline]
+.:1 (2,1) a
",
        ),
        (
            "no newline at the end of the new file",
            "@@ -1 +1 @@\n-a\n+a\n\\ No newline at end of file\n",
            "@@ -1,1 +1,1
-1:. (1,1) a
+.:1 (2,1) a [no newline]
",
        ),
        (
            "no newline at the end of either file",
            "@@ -1,2 +1,2 @@\n x\n-a\n\\ No newline at end of file\n+b\n\\ No newline at end of file\n",
            "@@ -1,2 +1,2
 1:1 (1,1) x
-2:. (2,2) a [no newline]
+.:2 (3,2) b [no newline]
",
        ),
        (
            "an empty diff (binary, or a rename without changes)",
            "",
            "",
        ),
        (
            "git's binary notice",
            "Binary files a/logo.png and b/logo.png differ\n",
            "",
        ),
        (
            "a new file of one line",
            "@@ -0,0 +1 @@\n+x\n",
            "@@ -0,0 +1,1
+.:1 (0,1) x
",
        ),
        (
            "a deleted file of one line",
            "@@ -1 +0,0 @@\n-x\n",
            "@@ -1,1 +0,0
-1:. (1,0) x
",
        ),
        (
            "counts omitted on both sides",
            "@@ -7 +7 @@ fn main() {\n-a\n+b\n",
            "@@ -7,1 +7,1
-7:. (7,7) a
+.:7 (8,7) b
",
        ),
        (
            "several hunks",
            ORDERS,
            "@@ -8,7 +8,9
 8:8 (8,8) a
 9:9 (9,9) b
 10:10 (10,10) c
-11:. (11,11) old eleven
+.:11 (12,11) new eleven
+.:12 (12,12) new twelve
+.:13 (12,13) new thirteen
 12:14 (12,14) d
 13:15 (13,15) e
 14:16 (14,16) f
@@ -30,5 +32,4
 30:32 (30,32) g
 31:33 (31,33) h
-32:. (32,34) old thirty-two
 33:34 (33,34) i
 34:35 (34,35) j
",
        ),
        (
            "@@ that is not a header",
            "@@ -1,3 +1,3 @@\n @@ -9 +9 @@ a context line\n-@@ -5,2 +5,2 @@\n+x @@ -1 +1 @@\n end\n@@ after the hunk\n@@@ -1,2 -1,2 +1,3 @@@\n@@ -x +1 @@\n@@ -4 +4 @@x\n",
            "@@ -1,3 +1,3
 1:1 (1,1) @@ -9 +9 @@ a context line
-2:. (2,2) @@ -5,2 +5,2 @@
+.:2 (3,2) x @@ -1 +1 @@
 3:3 (3,3) end
",
        ),
        (
            "CRLF line endings",
            "@@ -1,2 +1,2 @@\r\n keep\r\n-old\r\n+new\r\n\\ No newline at end of file\r\n",
            "@@ -1,2 +1,2
 1:1 (1,1) keep
-2:. (2,2) old
+.:2 (3,2) new [no newline]
",
        ),
        (
            "file headers before the first hunk, and lines that look like them inside it",
            "diff --git a/x b/x\nindex 1111111..2222222 100644\n--- a/x\n+++ b/x\n@@ -1,2 +1,2 @@\n--- a/y\n+++ b/y\n same\n",
            "@@ -1,2 +1,2
-1:. (1,1) -- a/y
+.:1 (2,1) ++ b/y
 2:2 (2,2) same
",
        ),
        (
            "a blank context line that lost its space",
            "@@ -1,3 +1,3 @@\n a\n\n-b\n+c\n",
            "@@ -1,3 +1,3
 1:1 (1,1) a
 2:2 (2,2) 
-3:. (3,3) b
+.:3 (4,3) c
",
        ),
        (
            "a header before the counts are used up starts a new hunk",
            "@@ -1,5 +1,5 @@\n a\n@@ -9 +9 @@\n-b\n+c\n",
            "@@ -1,5 +1,5
 1:1 (1,1) a
@@ -9,1 +9,1
-9:. (9,9) b
+.:9 (10,9) c
",
        ),
    ];
    for (name, text, expected) in cases {
        assert_eq!(&written(text), expected, "{name}");
    }
}

#[test]
fn counts_are_the_added_and_removed_lines_of_the_hunks() {
    let file = FileDiff {
        text: "--- a/x\n+++ b/x\n@@ -1,2 +1,3 @@\n--- a/y\n+++ b/y\n+++ c\n same\n",
        ..FileDiff::default()
    };
    assert_eq!(
        file.counts(),
        Counts {
            added: 2,
            removed: 1
        }
    );
    assert_eq!(FileDiff::default().counts(), Counts::default());
}

#[test]
fn a_line_has_a_number_on_each_side_it_is_on() {
    let file = FileDiff {
        text: "@@ -4,2 +4,2 @@\n-a\n+b\n c\n",
        ..FileDiff::default()
    };
    let numbers: Vec<(Option<u64>, Option<u64>)> = file
        .lines()
        .map(|l| (l.number(Side::Old), l.number(Side::New)))
        .collect();
    assert_eq!(
        numbers,
        [(Some(4), None), (None, Some(4)), (Some(5), Some(5))]
    );
}

#[test]
fn gitlabs_diff_object_reads_into_a_file_diff() {
    let cases = [
        (
            json!({"old_path": "a.rs", "new_path": "b.rs", "renamed_file": true, "diff": ""}),
            FileDiff {
                old_path: "a.rs",
                new_path: "b.rs",
                renamed_file: true,
                ..FileDiff::default()
            },
            Change::Renamed,
            "a.rs → b.rs",
        ),
        (
            json!({"old_path": "a.rs", "new_path": "b.rs", "renamed_file": true, "diff": "@@ -1 +1 @@\n-x\n+y\n"}),
            FileDiff {
                old_path: "a.rs",
                new_path: "b.rs",
                renamed_file: true,
                text: "@@ -1 +1 @@\n-x\n+y\n",
                ..FileDiff::default()
            },
            Change::Renamed,
            "a.rs → b.rs",
        ),
        (
            json!({"old_path": "new.rs", "new_path": "new.rs", "new_file": true, "diff": "@@ -0,0 +1 @@\n+x\n"}),
            FileDiff {
                old_path: "new.rs",
                new_path: "new.rs",
                new_file: true,
                text: "@@ -0,0 +1 @@\n+x\n",
                ..FileDiff::default()
            },
            Change::Added,
            "new.rs",
        ),
        (
            // A path GitLab left out is the other one.
            json!({"old_path": "gone.rs", "deleted_file": true, "collapsed": true, "diff": ""}),
            FileDiff {
                old_path: "gone.rs",
                new_path: "gone.rs",
                deleted_file: true,
                too_large: true,
                ..FileDiff::default()
            },
            Change::Deleted,
            "gone.rs",
        ),
        (
            json!({"new_path": "big.rs", "old_path": "", "too_large": true, "diff": null}),
            FileDiff {
                old_path: "big.rs",
                new_path: "big.rs",
                too_large: true,
                ..FileDiff::default()
            },
            Change::Modified,
            "big.rs",
        ),
    ];
    for (value, expected, change, name) in &cases {
        let file = FileDiff::from_json(value);
        assert_eq!(&file, expected, "{value}");
        assert_eq!(file.change(), *change, "{value}");
        assert_eq!(file.name(), *name, "{value}");
        assert!(file.is_named(expected.old_path) && file.is_named(expected.new_path));
        assert!(!file.is_named("other.rs"));
    }
}

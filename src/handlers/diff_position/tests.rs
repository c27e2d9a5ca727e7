//! `place` by tables, on the diff model's fixtures: each ask placed or
//! refused with the sentence the model reads, the `position` of a range
//! with GitLab's line codes, and the pieces of the refusals.

use serde_json::json;

use super::problem::{file_names, nearest_runs};
use super::*;
use crate::diff::fixtures::{ORDERS, README};

fn version() -> DiffVersion {
    DiffVersion {
        id: 555,
        base_sha: "b".into(),
        start_sha: "s".into(),
        head_sha: "h".into(),
    }
}

fn files() -> Vec<FileDiff<'static>> {
    let file = |path, text, too_large| FileDiff {
        old_path: path,
        new_path: path,
        too_large,
        text,
        ..FileDiff::default()
    };
    vec![
        file("src/orders.rs", ORDERS, false),
        file("logo.png", "", false),
        file("huge.sql", "", true),
    ]
}

fn ask(file: &str, side: Side, line: u64, end_line: Option<u64>) -> LineAsk<'_> {
    LineAsk {
        file,
        side,
        line,
        end_line,
    }
}

#[test]
fn each_ask_is_placed_or_refused_with_the_lines_that_can_take_one() {
    let (version, files) = (version(), files());
    let cases = [
        (
            ask("src/orders.rs", Side::New, 12, None),
            Ok("line +12 (added)"),
        ),
        (
            // A range that ends where it starts is one line.
            ask("src/orders.rs", Side::New, 12, Some(12)),
            Ok("line +12 (added)"),
        ),
        (
            ask("src/orders.rs", Side::Old, 11, None),
            Ok("line -11 (removed)"),
        ),
        (
            ask("src/orders.rs", Side::New, 10, Some(13)),
            Ok("lines 10 (unchanged) to +13 (added)"),
        ),
        (
            ask("src/orders.rs", Side::New, 40, None),
            Err(
                "line 40 is not in the diff of src/orders.rs; new-version lines that can take a comment: 8-16, 32-35 (a removed line takes `old_line`)",
            ),
        ),
        (
            ask("src/orders.rs", Side::Old, 20, None),
            Err(
                "old_line 20 is not in the diff of src/orders.rs; old-version lines that can take a comment: 8-14, 30-34 (an added line takes `line`)",
            ),
        ),
        (
            ask("src/orders.rs", Side::New, 14, Some(20)),
            Err(
                "end_line 20 is not in the diff of src/orders.rs; new-version lines that can take a comment: 8-16, 32-35 (a removed line takes `old_line`)",
            ),
        ),
        (
            ask("src/orders.rs", Side::New, 14, Some(33)),
            Err(
                "line 14 to 33 crosses lines that are not in the diff of src/orders.rs; a range stays within one of: 8-16, 32-35",
            ),
        ),
        (
            ask("src/order.rs", Side::New, 10, None),
            Err(
                "src/order.rs is not a file of this merge request's diff (version 555); its files: src/orders.rs, logo.png, huge.sql",
            ),
        ),
        (
            ask("logo.png", Side::New, 1, None),
            Err(
                "GitLab sent no diff text for logo.png (binary, or only renamed), so no line of it can be checked; action `discussion_create` takes a position as given",
            ),
        ),
        (
            ask("huge.sql", Side::New, 1, None),
            Err(
                "GitLab sent no diff text for huge.sql (too large, or collapsed), so no line of it can be checked; action `discussion_create` takes a position as given",
            ),
        ),
    ];
    for (ask, expected) in cases {
        let placed = place(&version, &files, &ask)
            .map(|p| p.lines_text())
            .map_err(|problem| problem.to_string());
        assert_eq!(
            placed,
            expected.map(str::to_string).map_err(str::to_string),
            "{ask:?}"
        );
    }
}

#[test]
fn a_range_carries_line_range_with_gitlabs_line_codes() {
    let placement = place(
        &version(),
        &files(),
        &ask("src/orders.rs", Side::Old, 11, Some(13)),
    )
    .unwrap();
    let code = "a05e8ad50e25a7055ff9599d17629d8e2cc46a53";
    assert_eq!(
        placement.position,
        json!({
            "position_type": "text",
            "base_sha": "b",
            "start_sha": "s",
            "head_sha": "h",
            "old_path": "src/orders.rs",
            "new_path": "src/orders.rs",
            "new_line": 15,
            "old_line": 13,
            "line_range": {
                "start": {"line_code": format!("{code}_11_11"), "type": "old", "old_line": 11},
                "end": {"line_code": format!("{code}_13_15"), "type": "old", "old_line": 13, "new_line": 15},
            }
        })
    );
}

#[test]
fn line_codes_are_the_sha1_of_the_path_and_the_counters() {
    let line = Line {
        kind: LineKind::Removed,
        old_pos: 3,
        new_pos: 0,
        text: "",
        no_newline: false,
    };
    // SHA-1 of "README.md".
    assert_eq!(
        line_code("README.md", &line),
        "8ec9a00bfd09b3190ac6b22251dbb1aa95a0579d_3_0"
    );
}

#[test]
fn the_newest_version_is_the_first_listed() {
    let versions = json!([
        {"id": 2, "base_commit_sha": "b2", "start_commit_sha": "s2", "head_commit_sha": "h2"},
        {"id": 1, "base_commit_sha": "b1", "start_commit_sha": "s1", "head_commit_sha": "h1"},
    ]);
    assert_eq!(
        DiffVersion::newest(&versions),
        Some(DiffVersion {
            id: 2,
            base_sha: "b2".into(),
            start_sha: "s2".into(),
            head_sha: "h2".into(),
        })
    );
    assert_eq!(DiffVersion::newest(&json!([])), None);
}

#[test]
fn runs_are_the_consecutive_numbers_of_one_side() {
    let file = FileDiff {
        text: README,
        ..FileDiff::default()
    };
    let lines: Vec<Line<'_>> = file.lines().collect();
    assert_eq!(runs(&lines, Side::New), [(1, 4)]);
    assert_eq!(runs(&lines, Side::Old), [(1, 3)]);
    let lines: Vec<Line<'_>> = files()[0].lines().collect();
    assert_eq!(runs(&lines, Side::New), [(8, 16), (32, 35)]);
    assert_eq!(runs(&lines, Side::Old), [(8, 14), (30, 34)]);
}

#[test]
fn the_nearest_ranges_are_named() {
    let runs = [
        (1, 3),
        (10, 24),
        (31, 35),
        (50, 52),
        (60, 61),
        (70, 70),
        (80, 90),
    ];
    assert_eq!(
        nearest_runs(&runs, 40),
        "1-3, 10-24, 31-35, 50-52, 60-61, 70 (the 6 nearest of 7 ranges)"
    );
    assert_eq!(nearest_runs(&runs[1..3], 40), "10-24, 31-35");
    assert_eq!(
        file_names(&(1..=22).map(|n| format!("f{n}")).collect::<Vec<_>>()),
        "f1, f2, f3, f4, f5, f6, f7, f8, f9, f10, f11, f12, f13, f14, f15, f16, f17, f18, f19, f20 and 2 more (action `diffs`)"
    );
}

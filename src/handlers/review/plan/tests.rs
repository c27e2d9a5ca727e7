//! The plan on the diff model's fixtures: every problem at once, and what
//! an earlier attempt left (drafts, notes) found and not posted twice.

use serde_json::{Value, json};

use super::*;
use crate::diff::Side;
use crate::diff::fixtures::ORDERS;

const ME: u64 = 7;

fn version() -> DiffVersion {
    DiffVersion {
        id: 555,
        base_sha: "b".into(),
        start_sha: "s".into(),
        head_sha: "h".into(),
    }
}

fn files() -> Vec<FileDiff<'static>> {
    vec![FileDiff {
        old_path: "src/orders.rs",
        new_path: "src/orders.rs",
        text: ORDERS,
        ..FileDiff::default()
    }]
}

fn line(line: u64) -> LineAsk<'static> {
    LineAsk {
        file: "src/orders.rs",
        side: Side::New,
        line,
        end_line: None,
    }
}

fn ask(
    comments: Vec<(LineAsk<'static>, &'static str)>,
    summary: Option<&'static str>,
) -> Ask<'static> {
    Ask {
        comments,
        summary,
        approve: false,
        sha: None,
    }
}

/// GitLab's shape of a position this server built: every key, `null`
/// where it has none.
fn gitlab_position(at: u64) -> Value {
    let placed = place(&version(), &files(), &line(at)).unwrap().position;
    let mut shown = json!({"old_line": null, "new_line": null, "line_range": null});
    for (k, v) in placed.as_object().unwrap() {
        shown[k] = v.clone();
    }
    shown
}

fn draft(id: u64, note: &str, at: u64) -> Value {
    json!({"id": id, "author_id": ME, "note": note, "position": gitlab_position(at)})
}

fn note(id: u64, author: u64, body: &str, at: Option<u64>) -> Value {
    let mut n =
        json!({"id": id, "body": body, "author": {"id": author, "username": "u"}, "system": false});
    if let Some(at) = at {
        n["position"] = gitlab_position(at);
    }
    n
}

fn reads<'r>(
    version: &'r DiffVersion,
    files: &'r [FileDiff<'r>],
    drafts: &'r [Value],
    notes: &'r [Value],
) -> Reads<'r> {
    Reads {
        head: "h",
        version,
        files,
        drafts,
        notes,
        me: ME,
    }
}

#[test]
fn every_problem_is_named_with_its_comment_and_nothing_is_planned() {
    let (version, files) = (version(), files());
    let mut asked = ask(
        vec![
            (line(12), "fine"),
            (line(20), "outside"),
            (
                LineAsk {
                    file: "README.md",
                    ..line(1)
                },
                "no such file",
            ),
        ],
        None,
    );
    asked.sha = Some("old");
    let drafts = [draft(90, "left from another review", 13)];
    let problems = plan(&asked, &reads(&version, &files, &drafts, &[])).unwrap_err();
    assert_eq!(
        problems,
        [
            "`sha` old is not the head of the merge request any more: the head is now h; review the new commits, then call again with that sha",
            "`comments[1]`: line 20 is not in the diff of src/orders.rs; new-version lines that can take a comment: 8-16, 32-35 (a removed line takes `old_line`)",
            "`comments[2]`: README.md is not a file of this merge request's diff (version 555); its files: src/orders.rs",
            "you have 1 pending draft note(s) that are not this review's (id 90): publishing a review publishes all your drafts, so publish them first (action `draft_note_publish_all`) or delete them (action `draft_note_delete`)",
        ]
    );
}

#[test]
fn an_earlier_attempts_drafts_and_notes_are_found_and_not_posted_twice() {
    let (version, files) = (version(), files());
    let asked = ask(
        vec![(line(12), "one"), (line(13), "two"), (line(14), "three")],
        Some("Summary"),
    );
    // "one" was drafted before; "two" was published (and someone else
    // wrote "three" at the same line, which is not ours).
    let drafts = [draft(80, "one", 12)];
    let notes = [
        note(502, 8, "three", Some(14)),
        note(501, ME, "two", Some(13)),
        note(400, ME, "two", Some(12)),
    ];
    let planned = plan(&asked, &reads(&version, &files, &drafts, &notes)).unwrap();
    let states: Vec<State> = planned.comments.iter().map(|c| c.state).collect();
    assert_eq!(
        states,
        [
            State::Drafted {
                draft: 80,
                reused: true
            },
            State::Posted {
                note: Some(501),
                earlier: true
            },
            State::New,
        ]
    );
    assert_eq!(planned.comments[1].lines, "src/orders.rs line +13 (added)");
    // Not every comment was published: the summary is still to post.
    assert_eq!(planned.summary, Some(("Summary".to_string(), State::New)));
}

#[test]
fn the_summary_counts_as_posted_only_after_the_whole_review() {
    let (version, files) = (version(), files());
    let asked = ask(vec![(line(12), "one")], Some("LGTM"));
    let posted = |notes: &[Value]| {
        plan(&asked, &reads(&version, &files, &[], notes))
            .unwrap()
            .summary
            .unwrap()
            .1
    };
    let whole = [note(601, ME, "LGTM", None), note(600, ME, "one", Some(12))];
    assert_eq!(
        posted(&whole),
        State::Posted {
            note: Some(601),
            earlier: true
        }
    );
    // A "LGTM" of an older review, before this review's comment, is not it.
    let older = [note(600, ME, "one", Some(12)), note(10, ME, "LGTM", None)];
    assert_eq!(posted(&older), State::New);
    // Without comments, nothing tells this summary from an earlier one.
    let alone = ask(vec![], Some("LGTM"));
    let planned = plan(&alone, &reads(&version, &files, &[], &whole)).unwrap();
    assert_eq!(planned.summary, Some(("LGTM".to_string(), State::New)));
}

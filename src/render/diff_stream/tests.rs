//! The streamed reading against the whole one: for every way a body can
//! be cut into chunks, the diffs render the same, and the rest of the
//! answer is the same tree.

use super::*;
use crate::render::diff::render;

/// A file's diff object. Its strings hold what a structural scan could
/// trip on: brackets, braces, commas and colons, escaped quotes and
/// backslashes, `\u` escapes, hidden characters and other scripts.
fn file(i: usize, lines: usize) -> String {
    let name = match i % 5 {
        0 => format!("src/module_{i}.rs"),
        1 => format!("docs/naïve {{{i}}}, [draft]: \\\"q\\\".md"),
        2 => format!("app/ünï/file_{i}\\u200b.ts"),
        3 => format!("lib/x{i}/\\\\path\\\\.rb"),
        _ => format!("日本/{i}.txt"),
    };
    let mut diff = format!("@@ -1,{lines} +1,{lines} @@\\n");
    for l in 0..lines {
        let text = match l % 4 {
            0 => format!("-old {l} \\\"]}},{{[\\\" : {i}"),
            1 => format!("+new {l} \\\\ \\u00e9 \\u202e {i}"),
            2 => format!(" same {l} ⟦ ⟧ {i}"),
            _ => format!("+{}", "x".repeat(l % 97)),
        };
        diff.push_str(&text);
        diff.push_str("\\n");
    }
    let flags = match i % 4 {
        0 => r#""new_file":true,"renamed_file":false,"deleted_file":false"#,
        1 => r#""new_file":false,"renamed_file":true,"deleted_file":false"#,
        _ => r#""new_file":false,"renamed_file":false,"deleted_file":false"#,
    };
    let old = if i % 4 == 1 {
        format!("old/{i}.rs")
    } else {
        name.clone()
    };
    format!(
        "{{\"old_path\":\"{old}\", \"new_path\" : \"{name}\",\n \"a_mode\":\"100644\",\"b_mode\":\"100644\",\"diff\":\"{diff}\",{flags},\"nested\":{{\"diffs\":[1,{{\"a\":[]}}]}}}}"
    )
}

fn files(count: usize, lines: impl Fn(usize) -> usize) -> Vec<String> {
    (0..count).map(|i| file(i, lines(i))).collect()
}

fn list_body(files: &[String]) -> String {
    format!("[\n  {}\n]", files.join(" ,\n  "))
}

/// Compare's shape: commits (with a `diffs` key of their own, deeper),
/// then the diffs, then more fields.
fn compare_body(files: &[String]) -> String {
    format!(
        r#"{{"commit":{{"id":"abc","diffs":"not these"}}, "note":"diffs", "commits":[{{"id":"a1","title":"[x], {{y}}: \"z\""}}],"diffs" : [{}] ,"compare_timeout":false,"compare_same_ref":false}}"#,
        files.join(",")
    )
}

/// The diffs and the rest of a body as the renderer gets them.
fn rendered(
    body: &[u8],
    place: DiffPlace,
    file: Option<&str>,
    cap: usize,
    beyond: &Beyond,
) -> (Result<String, String>, Option<serde_json::Value>) {
    let mut node = Node::parse(body).expect("the body is JSON");
    if !untrusted::is_plain(body) {
        untrusted::escape_node(&mut node);
    }
    let (items, rest) = match place {
        DiffPlace::Body => match node {
            Node::Arr(items) => (items, None),
            other => panic!("not a list: {other:?}"),
        },
        DiffPlace::Field(field) => match node.take(field) {
            Some(Node::Arr(items)) => (items, Some(node.to_value())),
            other => panic!("no diffs: {other:?}"),
        },
    };
    (render(&items, file, cap, beyond), rest)
}

fn streamed(
    body: &[u8],
    place: DiffPlace,
    file: Option<&str>,
    cap: usize,
    chunk: usize,
) -> (Vec<u8>, Beyond) {
    let mut reader = DiffReader::new(place, file, cap);
    for piece in body.chunks(chunk) {
        reader.feed(piece);
    }
    reader.finish()
}

fn assert_same(body: &str, place: DiffPlace, files: &[String], caps: &[usize]) {
    let bytes = body.as_bytes();
    let wanted = [
        None,
        Some("src/module_0.rs".to_string()),
        Some(format!("src/module_{}.rs", 5 * ((files.len() - 1) / 5))),
        Some("old/1.rs".to_string()),
        Some("日本/4.txt".to_string()),
        Some("not/there.rs".to_string()),
    ];
    // The renderer's room can be less than the cap the reader keeps for
    // (an object's own text comes first).
    for &cap in caps {
        for room in [cap, cap / 2] {
            for file in &wanted {
                let whole = rendered(bytes, place, file.as_deref(), room, &Beyond::default());
                for chunk in [1, 2, 3, 7, 64, 4096, bytes.len()] {
                    let (kept, beyond) = streamed(bytes, place, file.as_deref(), cap, chunk);
                    let seen = rendered(&kept, place, file.as_deref(), room, &beyond);
                    assert_eq!(
                        seen, whole,
                        "cap {cap}, room {room}, file {file:?}, chunks of {chunk}"
                    );
                }
            }
        }
    }
}

#[test]
fn a_list_of_diffs_renders_as_when_read_whole() {
    for count in [1, 2, 9, 40] {
        let files = files(count, |i| 3 + (i * 7) % 50);
        assert_same(
            &list_body(&files),
            DiffPlace::Body,
            &files,
            &[600, 4096, 65_536],
        );
    }
}

#[test]
fn diffs_inside_an_object_render_as_when_read_whole() {
    for count in [1, 3, 40] {
        let files = files(count, |i| 3 + (i * 11) % 60);
        assert_same(
            &compare_body(&files),
            DiffPlace::Field("diffs"),
            &files,
            &[600, 4096, 65_536],
        );
    }
}

#[test]
fn an_empty_list_and_a_body_without_the_field_pass_unchanged() {
    for (body, place) in [
        ("[]", DiffPlace::Body),
        ("  [ ]  ", DiffPlace::Body),
        (r#"{"diffs":[]}"#, DiffPlace::Field("diffs")),
        (
            r#"{"other":[{"diff":"x"}],"diffs":null}"#,
            DiffPlace::Field("diffs"),
        ),
        (r#"{"message":"404 Not found"}"#, DiffPlace::Body),
    ] {
        let (kept, beyond) = streamed(body.as_bytes(), place, None, 4096, 1);
        assert_eq!(String::from_utf8(kept).unwrap(), body.replace("[ ]", "[]"));
        assert!(beyond.is_empty());
    }
}

#[test]
fn a_body_that_breaks_off_still_fails_to_parse() {
    let files = files(3, |_| 5);
    let body = list_body(&files);
    let cut = &body.as_bytes()[..body.len() / 2];
    let (kept, _) = streamed(cut, DiffPlace::Body, None, 4096, 5);
    assert_eq!(Node::parse(&kept), None);
}

#[test]
fn what_is_held_is_the_cap_and_one_file_whatever_the_answer() {
    // 2,000 files of about 10 KB: 20 MB of diffs.
    let files = files(2_000, |_| 400);
    let largest = files.iter().map(String::len).max().unwrap();
    for (body, place) in [
        (list_body(&files), DiffPlace::Body),
        (compare_body(&files), DiffPlace::Field("diffs")),
    ] {
        assert!(body.len() > 20_000_000, "{}", body.len());
        for file in [None, Some("src/module_1995.rs")] {
            let (kept, beyond) = streamed(body.as_bytes(), place, file, 65_536, 65_536);
            assert!(
                kept.len() < 65_536 + 2 * largest + 1_000,
                "{file:?}: {} bytes kept",
                kept.len()
            );
            assert!(beyond.headers_bytes < FILE_NAMES_ROOM * 2, "{beyond:?}");
            assert!(beyond.count > 1_900, "{}", beyond.count);
        }
    }
}

#[test]
fn edited_bodies_render_as_when_read_whole_or_fail_alike() {
    // A small deterministic generator (xorshift): no dependency, the same
    // edits every run.
    let mut state = 0x2545_f491_4f6c_dd1d_u64;
    let mut next = move |below: usize| {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        (state % below as u64) as usize
    };
    let pieces: [&[u8]; 12] = [
        b"{",
        b"}",
        b"[",
        b"]",
        b",",
        b":",
        b"\"",
        b"\\",
        b" ",
        b"\"diffs\"",
        b"0",
        b"\\u00e9",
    ];
    let files = files(6, |i| 2 + i % 4);
    let bodies = [
        (list_body(&files), DiffPlace::Body),
        (compare_body(&files), DiffPlace::Field("diffs")),
    ];
    let mut compared = 0;
    for round in 0..3_000 {
        let (body, place) = &bodies[round % 2];
        let mut body = body.clone().into_bytes();
        for _ in 0..1 + next(3) {
            let at = next(body.len());
            match next(3) {
                0 => {
                    body.remove(at);
                }
                1 => {
                    let piece = pieces[next(pieces.len())];
                    body.splice(at..at, piece.iter().copied());
                }
                _ => body[at] = pieces[next(pieces.len())][0],
            }
        }
        let cap = [300, 2_000, 65_536][next(3)];
        let (kept, beyond) = streamed(&body, *place, None, cap, 1 + next(50));
        let (Some(whole), Some(seen)) = (Node::parse(&body), Node::parse(&kept)) else {
            continue;
        };
        // Only bodies still shaped as the action's answer are rendered as
        // diffs; the renderer shows any other JSON as it is.
        let shaped = |node: &Node| match place {
            DiffPlace::Body => matches!(node, Node::Arr(_)),
            DiffPlace::Field(field) => matches!(node.get(field), Some(Node::Arr(_))),
        };
        if !shaped(&whole) {
            assert_eq!(seen, whole, "round {round}");
            continue;
        }
        assert_eq!(
            rendered(&kept, *place, None, cap, &beyond),
            rendered(&body, *place, None, cap, &Beyond::default()),
            "round {round}: {}",
            String::from_utf8_lossy(&body)
        );
        compared += 1;
    }
    assert!(
        compared > 500,
        "only {compared} edited bodies were still JSON"
    );
}

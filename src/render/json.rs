//! JSON answers as text: one compact object, or one object per line for a
//! list, within the size cap. `fields` and `raw` choose what is kept.

use std::borrow::Cow;

use super::compact;
use super::tree::Node;
use crate::catalog::KindSpec;
use crate::dispatch::View;

/// What an object becomes under the view: raw, the chosen fields, or the
/// compact default.
pub fn shape<'a>(item: Node<'a>, kind: Option<&KindSpec>, in_list: bool, view: &View) -> Node<'a> {
    match (&view.fields, view.raw) {
        (Some(fields), _) => pick(item, fields),
        (None, true) => item,
        (None, false) => compact::compact(item, kind, in_list),
    }
}

/// The chosen fields, in the order asked, each exactly as GitLab sent it:
/// a field the caller names is never compacted, so a `false`, a `0` or a
/// default value comes back as it is (compaction would drop it).
fn pick<'a>(item: Node<'a>, wanted: &[String]) -> Node<'a> {
    let Node::Obj(mut fields) = item else {
        return item;
    };
    let mut out = Vec::with_capacity(wanted.len());
    for name in wanted {
        let Some(i) = fields.iter().position(|(k, _)| k == name) else {
            continue;
        };
        out.push(fields.swap_remove(i));
    }
    Node::Obj(out)
}

/// Field names asked for that no object has, with the names there are.
pub fn unknown_fields(items: &[&Node], view: &View) -> Option<String> {
    let fields = view.fields.as_ref()?;
    let missing: Vec<&str> = fields
        .iter()
        .filter(|f| !items.iter().any(|i| i.get(f).is_some()))
        .map(String::as_str)
        .collect();
    if missing.is_empty() || items.is_empty() {
        return None;
    }
    let available: Vec<&str> = match items[0] {
        Node::Obj(fields) => fields.iter().map(|(k, _)| k.as_ref()).collect(),
        _ => Vec::new(),
    };
    Some(format!(
        "[no field {}; fields here: {}]",
        names_within(&missing, 0, NOTE_NAMES_ROOM),
        names_within(&available, 0, NOTE_NAMES_ROOM)
    ))
}

/// Room for each list of names in the unknown-field note: an object can
/// have thousands of fields.
const NOTE_NAMES_ROOM: usize = 300;

/// `a, b, c`, or as many as fit in `room` bytes and `… (N more)`, where N
/// counts the `unnamed` after `names` too.
pub(super) fn names_within(names: &[&str], unnamed: usize, room: usize) -> String {
    let mut out = String::new();
    for (i, name) in names.iter().enumerate() {
        if out.len() + name.len() + 2 > room {
            out.push_str(&format!("… ({} more)", names.len() - i + unnamed));
            break;
        }
        if i > 0 {
            out.push_str(", ");
        }
        out.push_str(name);
    }
    out
}

/// One object per line until the cap; says how many fit.
pub fn list_text(shown: &[Node], cap: usize) -> (String, usize) {
    let mut text = String::new();
    let mut count = 0;
    for item in shown {
        let mut line = item.to_text();
        if !text.is_empty() && text.len() + line.len() + 1 > cap {
            break;
        }
        if line.len() > cap {
            // A first item over the cap on its own is shortened like one
            // object, with its note.
            let (short, note) = object_text(&mut item.clone(), cap);
            line = short;
            line.extend(note.map(|n| format!("\n{n}")));
        }
        text.push_str(&line);
        text.push('\n');
        count += 1;
    }
    if text.ends_with('\n') {
        text.pop();
    }
    (text, count)
}

/// Bytes cut beyond the excess when a text is shortened: the `…` and the
/// escapes a cut can change take a few bytes, and one pass should suffice.
const SHORTENING_SLACK: usize = 64;

/// One object within the cap: if it is too long, its longest texts are
/// shortened, and the note says which.
pub fn object_text(value: &mut Node, cap: usize) -> (String, Option<String>) {
    let mut text = value.to_text();
    if text.len() <= cap {
        return (text, None);
    }
    let mut cut = Vec::new();
    while text.len() > cap {
        let Node::Obj(fields) = value else { break };
        // Only texts longer than `…` can shrink: shortening one again
        // would never end.
        let longest = fields
            .iter_mut()
            .filter_map(|(k, v)| match v {
                Node::Str(s) if s.len() > ELLIPSIS.len() => Some((k.to_string(), s)),
                _ => None,
            })
            .max_by_key(|(_, s)| s.len());
        let Some((key, s)) = longest else { break };
        let len = s.len();
        let excess = text.len() - cap + SHORTENING_SLACK;
        if excess >= len {
            *s = Cow::Borrowed(ELLIPSIS);
        } else {
            let mut keep = len - excess;
            while !s.is_char_boundary(keep) {
                keep -= 1;
            }
            *s = Cow::Owned(format!("{}…", &s[..keep]));
        }
        cut.push(format!("`{}` ({len} bytes)", short_name(&key)));
        text = value.to_text();
    }
    if text.len() > cap {
        // The size is in numbers, nested objects or an array, not in a
        // text of the object: cut the text itself.
        let whole = text.len();
        let mut end = cap;
        while !text.is_char_boundary(end) {
            end -= 1;
        }
        text.truncate(end);
        return (
            text,
            Some(format!(
                "[cut at the {} KB response cap: the answer is {whole} bytes; ask for less with fields]",
                cap.div_ceil(1024)
            )),
        );
    }
    let cut: Vec<&str> = cut.iter().map(String::as_str).collect();
    (
        text,
        Some(format!(
            "[cut to the {} KB response cap: {} shortened]",
            cap.div_ceil(1024),
            names_within(&cut, 0, NOTE_NAMES_ROOM)
        )),
    )
}

/// A field name as a note shows it: at most 60 characters.
fn short_name(name: &str) -> String {
    match name.char_indices().nth(60) {
        Some((end, _)) => format!("{}…", &name[..end]),
        None => name.to_string(),
    }
}

const ELLIPSIS: &str = "…";

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
        (Some(fields), raw) => pick(item, fields, raw),
        (None, true) => item,
        (None, false) => compact::compact(item, kind, in_list),
    }
}

/// The chosen fields, in the order asked; long texts in full.
fn pick<'a>(item: Node<'a>, wanted: &[String], raw: bool) -> Node<'a> {
    let Node::Obj(mut fields) = item else {
        return item;
    };
    let mut out = Vec::with_capacity(wanted.len());
    for name in wanted {
        let Some(i) = fields.iter().position(|(k, _)| k == name) else {
            continue;
        };
        let (key, value) = fields.swap_remove(i);
        let value = if raw {
            value
        } else {
            // Generic rules only: users become usernames, noise goes.
            match compact::compact(Node::Obj(vec![(key.clone(), value)]), None, false) {
                Node::Obj(mut m) if !m.is_empty() => m.remove(0).1,
                _ => Node::Null,
            }
        };
        out.push((Cow::Owned(name.clone()), value));
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
        missing.join(", "),
        available.join(", ")
    ))
}

/// One object per line until the cap; says how many fit.
pub fn list_text(shown: &[Node], cap: usize) -> (String, usize) {
    let mut text = String::new();
    let mut count = 0;
    for item in shown {
        let line = item.to_text();
        if !text.is_empty() && text.len() + line.len() + 1 > cap {
            break;
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
        let longest = fields
            .iter_mut()
            .filter_map(|(k, v)| match v {
                Node::Str(s) => Some((k.to_string(), s)),
                _ => None,
            })
            .max_by_key(|(_, s)| s.len());
        let Some((key, s)) = longest else { break };
        let len = s.len();
        let excess = text.len() - cap + SHORTENING_SLACK;
        if excess >= len {
            *s = Cow::Borrowed("…");
        } else {
            let mut keep = len - excess;
            while !s.is_char_boundary(keep) {
                keep -= 1;
            }
            *s = Cow::Owned(format!("{}…", &s[..keep]));
        }
        cut.push(format!("`{key}` ({len} bytes)"));
        text = value.to_text();
    }
    (
        text,
        Some(format!(
            "[cut to the {} KB response cap: {} shortened]",
            cap.div_ceil(1024),
            cut.join(", ")
        )),
    )
}

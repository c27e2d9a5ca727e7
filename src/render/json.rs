//! JSON answers as text: one compact object, or one object per line for a
//! list, within the size cap. `fields` and `raw` choose what is kept.

use serde_json::{Map, Value};

use super::compact;
use crate::dispatch::View;

/// What an object becomes under the view: raw, the chosen fields, or the
/// compact default.
pub fn shape(item: &Value, kind: &str, in_list: bool, view: &View) -> Value {
    match (&view.fields, view.raw) {
        (Some(fields), raw) => pick(item, fields, raw),
        (None, true) => item.clone(),
        (None, false) => compact::compact(item, kind, in_list),
    }
}

/// The chosen fields, in the order asked; long texts in full.
fn pick(item: &Value, fields: &[String], raw: bool) -> Value {
    let Value::Object(map) = item else {
        return item.clone();
    };
    let mut out = Map::new();
    for field in fields {
        if let Some(value) = map.get(field) {
            let value = if raw {
                value.clone()
            } else {
                // Generic rules only: users become usernames, noise goes.
                let wrapped = Value::Object(Map::from_iter([(field.clone(), value.clone())]));
                match compact::compact(&wrapped, "", false) {
                    Value::Object(mut m) => m.remove(field).unwrap_or(Value::Null),
                    _ => Value::Null,
                }
            };
            out.insert(field.clone(), value);
        }
    }
    Value::Object(out)
}

/// Field names asked for that no object has, with the names there are.
pub fn unknown_fields(items: &[&Value], view: &View) -> Option<String> {
    let fields = view.fields.as_ref()?;
    let missing: Vec<&str> = fields
        .iter()
        .filter(|f| !items.iter().any(|i| i.get(f.as_str()).is_some()))
        .map(String::as_str)
        .collect();
    if missing.is_empty() || items.is_empty() {
        return None;
    }
    let available: Vec<&str> = items[0]
        .as_object()
        .map(|m| m.keys().map(String::as_str).collect())
        .unwrap_or_default();
    Some(format!(
        "[no field {}; fields here: {}]",
        missing.join(", "),
        available.join(", ")
    ))
}

/// One object per line until the cap; says how many were left out.
pub fn list_text(shown: &[Value], cap: usize) -> (String, usize) {
    let mut text = String::new();
    let mut count = 0;
    for item in shown {
        let line = item.to_string();
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

/// One object within the cap: if it is too long, its longest texts are
/// shortened, and the note says which.
pub fn object_text(value: &mut Value, cap: usize) -> (String, Option<String>) {
    let mut text = value.to_string();
    if text.len() <= cap {
        return (text, None);
    }
    let mut cut = Vec::new();
    while text.len() > cap {
        let Some(Value::Object(map)) = Some(&mut *value) else {
            break;
        };
        let longest = map
            .iter()
            .filter_map(|(k, v)| v.as_str().map(|s| (k.clone(), s.len())))
            .max_by_key(|(_, len)| *len);
        let Some((key, len)) = longest else { break };
        let excess = text.len() - cap + 64;
        if excess >= len {
            map.insert(key.clone(), Value::String("…".into()));
        } else {
            let s = map[&key].as_str().unwrap_or_default();
            let mut keep = len - excess;
            while !s.is_char_boundary(keep) {
                keep -= 1;
            }
            let shortened = format!("{}…", &s[..keep]);
            map.insert(key.clone(), Value::String(shortened));
        }
        cut.push(format!("`{key}` ({len} bytes)"));
        text = value.to_string();
    }
    (
        text,
        Some(format!(
            "[cut to the {} KB response cap: {} shortened]",
            cap / 1024,
            cut.join(", ")
        )),
    )
}

//! A JSON tree borrowed from GitLab's answer, for rendering.
//!
//! Objects keep their fields in order in a `Vec` (no hashing: GitLab's
//! objects are small and read once), and strings without escapes borrow
//! from the body instead of being copied. Parsing, compacting and writing
//! an issue this way costs a fraction of going through `serde_json::Value`.

use std::borrow::Cow;

use serde_json::{Number, Value};

use crate::json_string;

#[derive(Debug, Clone, PartialEq)]
pub enum Node<'a> {
    Null,
    Bool(bool),
    Number(Number),
    Str(Cow<'a, str>),
    Arr(Vec<Node<'a>>),
    Obj(Vec<(Cow<'a, str>, Node<'a>)>),
}

impl<'a> Node<'a> {
    pub fn parse(body: &'a [u8]) -> Option<Node<'a>> {
        Self::parse_text(text_of(body)?.0)
    }

    /// The tree of a body already checked by `text_of`.
    pub fn parse_text(text: &'a str) -> Option<Node<'a>> {
        super::parse::parse(text)
    }

    pub fn get(&self, key: &str) -> Option<&Node<'a>> {
        match self {
            Node::Obj(fields) => fields.iter().find(|(k, _)| k == key).map(|(_, v)| v),
            _ => None,
        }
    }

    pub fn as_str(&self) -> Option<&str> {
        match self {
            Node::Str(s) => Some(s),
            _ => None,
        }
    }

    pub fn is_empty(&self) -> bool {
        match self {
            Node::Null => true,
            Node::Str(s) => s.is_empty(),
            Node::Arr(a) => a.is_empty(),
            Node::Obj(o) => o.is_empty(),
            _ => false,
        }
    }

    /// Remove a field of an object, returning it.
    pub fn take(&mut self, key: &str) -> Option<Node<'a>> {
        match self {
            Node::Obj(fields) => fields
                .iter()
                .position(|(k, _)| k == key)
                .map(|i| fields.remove(i).1),
            _ => None,
        }
    }

    /// Set a field of an object, in place or at the end.
    pub fn set(&mut self, key: &'a str, value: Node<'a>) {
        if let Node::Obj(fields) = self {
            match fields.iter_mut().find(|(k, _)| k == key) {
                Some((_, v)) => *v = value,
                None => fields.push((Cow::Borrowed(key), value)),
            }
        }
    }

    /// The tree as compact JSON, exactly as `serde_json::to_string`
    /// writes it, strings through `json_string` (a test compares the two).
    pub fn to_text(&self) -> String {
        // Room for an issue's text and the worst case `json_string` reserves
        // for a long field in it, so the buffer is not moved as it grows.
        let mut out = Vec::with_capacity(2048);
        self.write(&mut out);
        debug_assert!(std::str::from_utf8(&out).is_ok());
        // SAFETY: every byte written is a byte of a `str`, in the order it
        // has there (strings and keys, through `json_string`, which copies
        // them whole and puts ASCII escapes only in place of ASCII bytes),
        // or ASCII (punctuation, digits, words): valid UTF-8 throughout.
        unsafe { String::from_utf8_unchecked(out) }
    }

    fn write(&self, out: &mut Vec<u8>) {
        match self {
            Node::Null => out.extend_from_slice(b"null"),
            Node::Bool(true) => out.extend_from_slice(b"true"),
            Node::Bool(false) => out.extend_from_slice(b"false"),
            Node::Number(n) => write_number(out, n),
            Node::Str(s) => json_string::write(out, s),
            Node::Arr(items) => {
                out.push(b'[');
                for (i, item) in items.iter().enumerate() {
                    if i > 0 {
                        out.push(b',');
                    }
                    item.write(out);
                }
                out.push(b']');
            }
            Node::Obj(fields) => {
                out.push(b'{');
                for (i, (key, value)) in fields.iter().enumerate() {
                    if i > 0 {
                        out.push(b',');
                    }
                    json_string::write(out, key);
                    out.push(b':');
                    value.write(out);
                }
                out.push(b'}');
            }
        }
    }

    /// The same tree as a `serde_json::Value`, for structured content.
    pub fn to_value(&self) -> Value {
        match self {
            Node::Null => Value::Null,
            Node::Bool(b) => Value::Bool(*b),
            Node::Number(n) => Value::Number(n.clone()),
            Node::Str(s) => Value::String(s.to_string()),
            Node::Arr(items) => Value::Array(items.iter().map(Node::to_value).collect()),
            Node::Obj(fields) => Value::Object(
                fields
                    .iter()
                    .map(|(k, v)| (k.to_string(), v.to_value()))
                    .collect(),
            ),
        }
    }
}

/// A body as text, and whether it is all ASCII. JSON is UTF-8: checked
/// once for the whole body, a word at a time, rather than string by
/// string as `from_slice` does; and a body of ASCII (most of GitLab's) is
/// checked by that test alone, which the escaping of untrusted content
/// needs too (`untrusted::is_plain_ascii`).
pub fn text_of(body: &[u8]) -> Option<(&str, bool)> {
    if body.is_ascii() {
        // SAFETY: every ASCII byte is a character of its own in UTF-8, so
        // bytes that are all ASCII are valid UTF-8.
        Some((unsafe { std::str::from_utf8_unchecked(body) }, true))
    } else {
        Some((std::str::from_utf8(body).ok()?, false))
    }
}

/// A number as serde_json writes it: integers in decimal here, anything
/// else (a float) by serde_json itself.
fn write_number(out: &mut Vec<u8>, n: &Number) {
    if let Some(n) = n.as_u64() {
        write_u64(out, n);
    } else if let Some(n) = n.as_i64() {
        out.push(b'-');
        write_u64(out, n.unsigned_abs());
    } else {
        serde_json::to_writer(out, n).expect("a number serializes");
    }
}

fn write_u64(out: &mut Vec<u8>, mut n: u64) {
    let mut digits = [0u8; 20];
    let mut at = digits.len();
    loop {
        at -= 1;
        digits[at] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    out.extend_from_slice(&digits[at..]);
}

#[cfg(test)]
mod tests {
    use serde::ser::{Serialize, SerializeMap, SerializeSeq, Serializer};

    use super::Node;

    /// serde's view of the tree: the tests' oracle for `to_text`.
    impl Serialize for Node<'_> {
        fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
            match self {
                Node::Null => serializer.serialize_unit(),
                Node::Bool(b) => serializer.serialize_bool(*b),
                Node::Number(n) => n.serialize(serializer),
                Node::Str(s) => serializer.serialize_str(s),
                Node::Arr(items) => {
                    let mut seq = serializer.serialize_seq(Some(items.len()))?;
                    for item in items {
                        seq.serialize_element(item)?;
                    }
                    seq.end()
                }
                Node::Obj(fields) => {
                    let mut map = serializer.serialize_map(Some(fields.len()))?;
                    for (k, v) in fields {
                        map.serialize_entry(k.as_ref(), v)?;
                    }
                    map.end()
                }
            }
        }
    }

    #[test]
    fn round_trips_in_order_and_borrows() {
        let text = r#"{"b":1,"a":[true,null,"x\"y"],"c":{"d":2.5}}"#;
        let node = Node::parse(text.as_bytes()).unwrap();
        assert_eq!(node.to_text(), text);
        assert!(matches!(node.get("a"), Some(Node::Arr(items)) if items.len() == 3));
        assert_eq!(node.to_value()["c"]["d"], 2.5);
    }

    /// `to_text` writes what serde_json writes of the same tree.
    #[test]
    fn writes_what_serde_json_writes() {
        let issue = include_str!("../../benches/data/issue.json");
        for text in [
            issue,
            r#"[0,-1,18446744073709551615,-9223372036854775808,1.5,-0.0,1e300,2.5e-8]"#,
            r#"{"a\"b":"\u0000\u001f\t\\","":[],"n":null,"t":true,"f":false,"o":{}}"#,
            r#"{"k":"ünïcödé ⟦⟧ 👩‍💻 \u2028"}"#,
        ] {
            let node = Node::parse(text.as_bytes()).unwrap();
            assert_eq!(
                node.to_text(),
                serde_json::to_string(&node).unwrap(),
                "{text}"
            );
        }
    }
}

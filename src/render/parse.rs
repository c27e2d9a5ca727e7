//! GitLab's JSON read straight into a [`Node`], in one pass over the bytes.
//!
//! serde's visitor machinery cost about 17 instructions a byte of an issue
//! (callgrind, BENCHMARKS.md): every value went through `deserialize_any`,
//! every key through its own visitor. This reader walks the text once and
//! builds the tree as it goes (the benchmark's issue: 58,030 instructions
//! through serde, 37,130 here). It accepts exactly what `serde_json` accepts
//! and builds the same tree (a test compares the two over a corpus and
//! generated documents): strict RFC 8259 syntax, no control characters in
//! strings, no lone surrogates, nesting up to 127 levels, numbers as
//! `serde_json` reads them.

use std::borrow::Cow;

use serde_json::Number;

use super::tree::Node;

/// `serde_json`'s recursion limit: a container 128 levels deep is refused.
const MAX_DEPTH: usize = 127;

pub fn parse(text: &str) -> Option<Node<'_>> {
    let mut reader = Reader {
        text,
        bytes: text.as_bytes(),
        at: 0,
        widths: [(text.len() / FIELD_BYTES).clamp(8, 64), 8, 8, 8],
    };
    let node = reader.value(0)?;
    reader.skip_space();
    (reader.at == reader.bytes.len()).then_some(node)
}

struct Reader<'a> {
    text: &'a str,
    bytes: &'a [u8],
    at: usize,
    /// How many fields to make room for in an object at each of the first
    /// depths: the last object there had that many (a list's items are
    /// alike), the first one a guess from the body's size. A field list
    /// grown by doubling moved the top object's fields three times.
    widths: [usize; 4],
}

/// Bytes a field of GitLab's JSON takes, about: the first object's room.
const FIELD_BYTES: usize = 48;

impl<'a> Reader<'a> {
    fn skip_space(&mut self) {
        while let Some(b' ' | b'\n' | b'\t' | b'\r') = self.bytes.get(self.at) {
            self.at += 1;
        }
    }

    /// The next byte after white space, not consumed.
    #[inline(always)]
    fn peek(&mut self) -> Option<u8> {
        // GitLab writes no white space: the next byte is most often it.
        match self.bytes.get(self.at) {
            Some(&byte) if byte > b' ' => Some(byte),
            _ => {
                self.skip_space();
                self.bytes.get(self.at).copied()
            }
        }
    }

    /// Inlined where a value is read: most values are strings, numbers and
    /// words, and a call for each cost as much as reading it. Only a
    /// container is a call, and the recursion goes through it.
    #[inline(always)]
    fn value(&mut self, depth: usize) -> Option<Node<'a>> {
        match self.peek()? {
            b'"' => {
                self.at += 1;
                self.string().map(Node::Str)
            }
            b'{' | b'[' => self.container(depth + 1),
            b't' => self.word(b"true", Node::Bool(true)),
            b'f' => self.word(b"false", Node::Bool(false)),
            b'n' => self.word(b"null", Node::Null),
            b'-' | b'0'..=b'9' => self.number(),
            _ => None,
        }
    }

    #[inline(never)]
    fn container(&mut self, depth: usize) -> Option<Node<'a>> {
        match self.bytes[self.at] {
            b'{' => self.object(depth),
            _ => self.array(depth),
        }
    }

    /// Inlined, so each word is compared as the constant it is.
    #[inline(always)]
    fn word(&mut self, word: &[u8], node: Node<'a>) -> Option<Node<'a>> {
        let end = self.at + word.len();
        (self.bytes.get(self.at..end)? == word).then(|| {
            self.at = end;
            node
        })
    }

    #[inline(always)]
    fn array(&mut self, depth: usize) -> Option<Node<'a>> {
        if depth > MAX_DEPTH {
            return None;
        }
        self.at += 1;
        let mut items = Vec::new();
        if self.peek()? == b']' {
            self.at += 1;
            return Some(Node::Arr(items));
        }
        loop {
            items.push(self.value(depth)?);
            match self.peek()? {
                b',' => self.at += 1,
                b']' => {
                    self.at += 1;
                    return Some(Node::Arr(items));
                }
                _ => return None,
            }
        }
    }

    #[inline(always)]
    fn object(&mut self, depth: usize) -> Option<Node<'a>> {
        if depth > MAX_DEPTH {
            return None;
        }
        self.at += 1;
        if self.peek()? == b'}' {
            self.at += 1;
            return Some(Node::Obj(Vec::new()));
        }
        let width = self.widths.get_mut(depth - 1);
        let mut fields = Vec::with_capacity(width.map_or(8, |w| *w));
        loop {
            if self.peek()? != b'"' {
                return None;
            }
            self.at += 1;
            let key = self.string()?;
            if self.peek()? != b':' {
                return None;
            }
            self.at += 1;
            fields.push((key, self.value(depth)?));
            match self.peek()? {
                b',' => self.at += 1,
                b'}' => {
                    self.at += 1;
                    if let Some(width) = self.widths.get_mut(depth - 1) {
                        *width = fields.len().max(8);
                    }
                    return Some(Node::Obj(fields));
                }
                _ => return None,
            }
        }
    }

    /// A string's contents, the opening quote already read: borrowed from
    /// the text unless it has escapes. Inlined: a string is most of what a
    /// body holds, and a call's saving and restoring of registers cost as
    /// much as reading a short one.
    #[inline(always)]
    fn string(&mut self) -> Option<Cow<'a, str>> {
        let start = self.at;
        self.skip_plain();
        if self.bytes.get(self.at) == Some(&b'"') {
            let s = &self.text[start..self.at];
            self.at += 1;
            return Some(Cow::Borrowed(s));
        }
        self.escaped_string(start)
    }

    /// The rest of a string that has an escape (or is not a string: a
    /// control character or the end of the text).
    #[cold]
    #[inline(never)]
    fn escaped_string(&mut self, start: usize) -> Option<Cow<'a, str>> {
        if *self.bytes.get(self.at)? != b'\\' {
            return None;
        }
        // Room for the rest of the body, up to a kilobyte: a long text with
        // a line break near its start grew by doubling four times.
        let mut owned = String::with_capacity((self.bytes.len() - start).min(1024));
        owned.push_str(&self.text[start..self.at]);
        loop {
            match *self.bytes.get(self.at)? {
                b'"' => {
                    self.at += 1;
                    return Some(Cow::Owned(owned));
                }
                b'\\' => {}
                _ => return None,
            }
            let escape = *self.bytes.get(self.at + 1)?;
            self.at += 2;
            owned.push(match escape {
                b'"' => '"',
                b'\\' => '\\',
                b'/' => '/',
                b'b' => '\u{8}',
                b'f' => '\u{c}',
                b'n' => '\n',
                b'r' => '\r',
                b't' => '\t',
                b'u' => self.unicode_escape()?,
                _ => return None,
            });
            let run = self.at;
            self.skip_plain();
            owned.push_str(&self.text[run..self.at]);
        }
    }

    /// Moves to the next quote, backslash or control character of a
    /// string (or the end), sixteen bytes at a time: a string's bytes were
    /// most of the reading's cost one at a time.
    #[inline(always)]
    fn skip_plain(&mut self) {
        self.at = crate::json_string::next_special(self.bytes, self.at);
    }

    /// The character of a `\u` escape (its `\u` read), a surrogate pair
    /// read whole; a lone surrogate is refused, as `serde_json` does.
    fn unicode_escape(&mut self) -> Option<char> {
        let first = self.hex4()?;
        match first {
            0xD800..=0xDBFF => {
                if self.bytes.get(self.at..self.at + 2)? != b"\\u" {
                    return None;
                }
                self.at += 2;
                let second = self.hex4()?;
                if !(0xDC00..=0xDFFF).contains(&second) {
                    return None;
                }
                char::from_u32(0x10000 + ((first - 0xD800) << 10) + (second - 0xDC00))
            }
            0xDC00..=0xDFFF => None,
            _ => char::from_u32(first),
        }
    }

    fn hex4(&mut self) -> Option<u32> {
        let digits = self.bytes.get(self.at..self.at + 4)?;
        let mut value = 0;
        for &d in digits {
            value = value * 16 + (d as char).to_digit(16)?;
        }
        self.at += 4;
        Some(value)
    }

    /// A number: plain non-negative integers that fit a `u64` directly,
    /// every other spelling through `serde_json`, so signs, fractions,
    /// exponents and out-of-range values come out exactly as it reads them.
    fn number(&mut self) -> Option<Node<'a>> {
        let start = self.at;
        let mut plain = true;
        // Summed as it is read; it is the number when the spelling is plain
        // digits, at most nineteen of them, which cannot overflow.
        let mut value: u64 = 0;
        while let Some(&b) = self.bytes.get(self.at) {
            match b {
                b'0'..=b'9' => value = value.wrapping_mul(10).wrapping_add(u64::from(b - b'0')),
                b'-' | b'+' | b'.' | b'e' | b'E' => plain = false,
                _ => break,
            }
            self.at += 1;
        }
        let spelled = &self.text[start..self.at];
        let leading_zero = spelled.len() > 1 && spelled.starts_with('0');
        if plain && !leading_zero && spelled.len() < 20 {
            return Some(Node::Number(value.into()));
        }
        serde_json::from_str::<Number>(spelled)
            .ok()
            .map(Node::Number)
    }
}

#[cfg(test)]
mod tests {
    //! The reader against `serde_json` driving the visitor this reader
    //! replaced: the same tree, or a refusal from both.

    use std::borrow::Cow;
    use std::fmt;

    use serde::de::{self, Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};
    use serde_json::Number;

    use super::parse;
    use crate::render::tree::Node;

    /// The tree as serde's visitor built it before this reader.
    struct Oracle<'a>(Node<'a>);

    fn oracle(text: &str) -> Option<Node<'_>> {
        serde_json::from_str::<Oracle>(text).ok().map(|o| o.0)
    }

    fn same(text: &str) {
        assert_eq!(parse(text), oracle(text), "{text:?}");
    }

    impl<'de> Deserialize<'de> for Oracle<'de> {
        fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
            deserializer.deserialize_any(NodeVisitor).map(Oracle)
        }
    }

    struct NodeVisitor;

    impl<'de> Visitor<'de> for NodeVisitor {
        type Value = Node<'de>;

        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("JSON")
        }

        fn visit_unit<E>(self) -> Result<Node<'de>, E> {
            Ok(Node::Null)
        }

        fn visit_bool<E>(self, b: bool) -> Result<Node<'de>, E> {
            Ok(Node::Bool(b))
        }

        fn visit_i64<E>(self, n: i64) -> Result<Node<'de>, E> {
            Ok(Node::Number(n.into()))
        }

        fn visit_u64<E>(self, n: u64) -> Result<Node<'de>, E> {
            Ok(Node::Number(n.into()))
        }

        fn visit_f64<E>(self, n: f64) -> Result<Node<'de>, E> {
            Ok(Number::from_f64(n).map_or(Node::Null, Node::Number))
        }

        fn visit_borrowed_str<E>(self, s: &'de str) -> Result<Node<'de>, E> {
            Ok(Node::Str(Cow::Borrowed(s)))
        }

        fn visit_str<E>(self, s: &str) -> Result<Node<'de>, E> {
            Ok(Node::Str(Cow::Owned(s.to_string())))
        }

        fn visit_string<E>(self, s: String) -> Result<Node<'de>, E> {
            Ok(Node::Str(Cow::Owned(s)))
        }

        fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Node<'de>, A::Error> {
            let mut items = Vec::with_capacity(seq.size_hint().unwrap_or(0));
            while let Some(Oracle(item)) = seq.next_element()? {
                items.push(item);
            }
            Ok(Node::Arr(items))
        }

        fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Node<'de>, A::Error> {
            let mut fields = Vec::with_capacity(map.size_hint().unwrap_or(8));
            while let Some(key) = map.next_key::<Key<'de>>()? {
                fields.push((key.0, map.next_value::<Oracle>()?.0));
            }
            Ok(Node::Obj(fields))
        }
    }

    /// A map key, borrowed when it has no escapes.
    struct Key<'a>(Cow<'a, str>);

    impl<'de> Deserialize<'de> for Key<'de> {
        fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
            struct KeyVisitor;
            impl<'de> Visitor<'de> for KeyVisitor {
                type Value = Key<'de>;
                fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                    f.write_str("a field name")
                }
                fn visit_borrowed_str<E: de::Error>(self, s: &'de str) -> Result<Key<'de>, E> {
                    Ok(Key(Cow::Borrowed(s)))
                }
                fn visit_str<E: de::Error>(self, s: &str) -> Result<Key<'de>, E> {
                    Ok(Key(Cow::Owned(s.to_string())))
                }
                fn visit_string<E: de::Error>(self, s: String) -> Result<Key<'de>, E> {
                    Ok(Key(Cow::Owned(s)))
                }
            }
            deserializer.deserialize_str(KeyVisitor)
        }
    }

    #[test]
    fn reads_gitlab_issue_as_serde_did_and_borrows_plain_strings() {
        let text = include_str!("../../benches/data/issue.json");
        let node = parse(text).expect("the benchmark's issue parses");
        assert_eq!(Some(node.clone()), oracle(text));
        let Some(Node::Str(Cow::Borrowed(title))) = node.get("title") else {
            panic!("title borrowed: {:?}", node.get("title"));
        };
        assert!(!title.is_empty());
    }

    #[test]
    fn edge_spellings_agree_with_serde_json() {
        let cases = [
            "",
            " ",
            "null",
            " true ",
            "false",
            "nul",
            "truex",
            "[]",
            "{}",
            "[ ]",
            "{ }",
            "[1,]",
            "[,1]",
            "{\"a\":1,}",
            "{\"a\" 1}",
            "{a:1}",
            "{\"a\":1 \"b\":2}",
            "[1] [2]",
            "[1]x",
            "\u{feff}[1]",
            "[1]\n\t\r ",
            "0",
            "-0",
            "-",
            "01",
            "-01",
            "1.",
            ".5",
            "1.5",
            "-1.5e3",
            "1E5",
            "1e+5",
            "1e-5",
            "1e400",
            "-1e400",
            "1e-400",
            "18446744073709551615",
            "18446744073709551616",
            "-9223372036854775808",
            "-9223372036854775809",
            "12345678901234567890123",
            "9999999999999999999",
            "0.1",
            "2.5e-3",
            "[-]",
            "[1-2]",
            "[1e5-3]",
            "[+1]",
            "[0x10]",
            "\"\"",
            "\"a\"",
            "\"a",
            "\"\\\"\"",
            "\"\\\\\\/\\b\\f\\n\\r\\t\"",
            "\"\\x\"",
            "\"\\u0041\"",
            "\"\\u00e9\"",
            "\"\\u0000\"",
            "\"\\u00G1\"",
            "\"\\u12\"",
            "\"\\ud83d\\ude00\"",
            "\"\\ud83d\"",
            "\"\\ud83dx\"",
            "\"\\ud83d\\u0041\"",
            "\"\\ude00\"",
            "\"\\uDBFF\\uDFFF\"",
            "\"é ∑ 😀\"",
            "\"tab\there\"",
            "\"nl\nhere\"",
            "\"\u{7f}\"",
            "{\"k\\u0041\":1}",
            "{\"a\":1,\"a\":2}",
            "[\"a\",{\"b\":[null,{}]}]",
        ];
        for case in cases {
            same(case);
        }
    }

    #[test]
    fn a_quote_backslash_or_control_byte_is_found_at_every_offset() {
        for at in 0..20 {
            let before = "é".repeat(at / 2) + &"a".repeat(at % 2);
            for stop in ["\"", "\\n", "\\u00e9", "\u{1}", "\u{1f}", "\n", "\u{7f}"] {
                same(&format!("[\"{before}{stop}tail\"]"));
                same(&format!("{{\"{before}{stop}\":1}}"));
            }
        }
    }

    #[test]
    fn nesting_is_refused_where_serde_json_refuses_it() {
        for depth in [1, 100, 126, 127, 128, 129, 400] {
            same(&format!("{}{}", "[".repeat(depth), "]".repeat(depth)));
            let objects = format!("{}1{}", "{\"a\":".repeat(depth), "}".repeat(depth));
            same(&objects);
        }
    }

    /// A small deterministic generator (xorshift), so a failure repeats.
    struct Rng(u64);

    impl Rng {
        fn next(&mut self) -> u64 {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            self.0
        }
        fn below(&mut self, n: u64) -> u64 {
            self.next() % n
        }
    }

    fn generate(rng: &mut Rng, depth: u32, out: &mut String) {
        const PIECES: [&str; 12] = [
            "a",
            "é",
            "😀",
            "\\n",
            "\\\"",
            "\\u00e9",
            "\\ud83d\\ude00",
            " ",
            "\\/",
            "x y",
            "\\\\",
            "\\t",
        ];
        const NUMBERS: [&str; 10] = [
            "0",
            "7",
            "-3",
            "42.5",
            "1e3",
            "-0.25",
            "123456789012",
            "18446744073709551615",
            "99999999999999999999",
            "-9223372036854775808",
        ];
        let kind = if depth > 4 {
            rng.below(4)
        } else {
            rng.below(6)
        };
        match kind {
            0 => out.push_str(["null", "true", "false"][rng.below(3) as usize]),
            1 => out.push_str(NUMBERS[rng.below(NUMBERS.len() as u64) as usize]),
            2 | 3 => {
                out.push('"');
                for _ in 0..rng.below(5) {
                    out.push_str(PIECES[rng.below(PIECES.len() as u64) as usize]);
                }
                out.push('"');
            }
            4 => {
                out.push('[');
                for i in 0..rng.below(4) {
                    if i > 0 {
                        out.push_str([",", ", ", " ,\n"][rng.below(3) as usize]);
                    }
                    generate(rng, depth + 1, out);
                }
                out.push(']');
            }
            _ => {
                out.push('{');
                for i in 0..rng.below(4) {
                    if i > 0 {
                        out.push(',');
                    }
                    out.push_str(
                        ["\"id\"", "\"t\\u0069tle\"", "\"é\"", "\"id\""][rng.below(4) as usize],
                    );
                    out.push_str([":", " : "][rng.below(2) as usize]);
                    generate(rng, depth + 1, out);
                }
                out.push('}');
            }
        }
    }

    #[test]
    fn generated_documents_and_their_mutations_agree_with_serde_json() {
        const NOISE: [&str; 12] = [
            "\"", "\\", ",", ":", "[", "]", "{", "}", "-", "e", "\u{1}", "\\u",
        ];
        let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
        for _ in 0..3_000 {
            let mut doc = String::new();
            generate(&mut rng, 0, &mut doc);
            same(&doc);
            // One edit at a character boundary: a byte removed, or noise put in.
            let bounds: Vec<usize> = doc.char_indices().map(|(i, _)| i).collect();
            let at = bounds[rng.below(bounds.len() as u64) as usize];
            let mut cut = doc.clone();
            cut.remove(at);
            same(&cut);
            let mut noisy = doc.clone();
            noisy.insert_str(at, NOISE[rng.below(NOISE.len() as u64) as usize]);
            same(&noisy);
        }
    }
}

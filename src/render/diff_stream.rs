//! A diff answer read as it streams, keeping only the files the answer can
//! show (the kinds whose `diffs` say so: `compare`, merge request `diffs`
//! and `version_get`, `commit_diff`). GitLab's diff lists can be hundreds of megabytes:
//! `compare` is not paginated
//! (https://docs.gitlab.com/api/repositories/#compare-branches-tags-or-commits).
//! The answer shows files until the size cap, then only the names of a
//! few more (`diff.rs`), so a file past the cap is kept as its one-line
//! header until the names fill their room, and after that only counted.
//! What the reader holds is the cap, one file (the one being read) and
//! that room, whatever GitLab sends.
//!
//! The body is scanned byte by byte for its JSON structure (strings,
//! escapes, nesting) without being parsed; each element of the diff
//! array is parsed alone once it is complete (past the names' room, a file
//! is only counted, not parsed). Everything outside the
//! array is kept as it came, so the rest of the answer (compare's commits)
//! renders as before.

use super::diff::{Beyond, FILE_NAMES_ROOM, file_diff, header};
use super::tree::Node;
use super::untrusted;

/// Where the diff array is: the body itself, or a field of the body.
#[derive(Debug, Clone, Copy)]
pub enum DiffPlace {
    Body,
    Field(&'static str),
}

/// What comes next at the top level, as the last byte outside a string
/// said.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Expect {
    /// Nothing that matters here.
    Other,
    /// A key of the top-level object comes next.
    Key,
    /// The value of the diff field comes next.
    Value,
}

pub struct DiffReader {
    place: DiffPlace,
    file: Option<String>,
    cap: usize,
    /// The body with the array's left-out elements removed.
    kept: Vec<u8>,
    /// The element being read, when inside the array.
    element: Vec<u8>,
    in_element: bool,
    depth: u32,
    in_string: bool,
    escaped: bool,
    /// The depth inside the diff array, while in it.
    array_depth: Option<u32>,
    /// The array was found and closed (a second one is not looked for).
    array_done: bool,
    expect: Expect,
    /// The top-level key being read, and whether it names the diff field.
    key: Vec<u8>,
    in_key: bool,
    key_matches: bool,
    /// Kept elements so far, and the least their text will take.
    kept_elements: usize,
    kept_room: usize,
    beyond: Beyond,
}

impl DiffReader {
    /// A reader for an answer whose diffs are at `place`, shown whole up
    /// to `cap` bytes, or only `file`'s.
    pub fn new(place: DiffPlace, file: Option<&str>, cap: usize) -> Self {
        DiffReader {
            place,
            file: file.map(str::to_string),
            cap,
            kept: Vec::new(),
            element: Vec::new(),
            in_element: false,
            depth: 0,
            in_string: false,
            escaped: false,
            array_depth: None,
            array_done: false,
            expect: Expect::Other,
            key: Vec::new(),
            in_key: false,
            key_matches: false,
            kept_elements: 0,
            kept_room: 0,
            beyond: Beyond::default(),
        }
    }

    pub fn feed(&mut self, chunk: &[u8]) {
        let mut rest = chunk;
        while !rest.is_empty() {
            if self.in_string {
                rest = self.string_part(rest);
            } else {
                let b = rest[0];
                rest = &rest[1..];
                self.structural(b);
            }
        }
    }

    /// The body to render, and the files left out of it.
    pub fn finish(mut self) -> (Vec<u8>, Beyond) {
        // A body cut off inside the array: what was read is kept as it
        // came, so it fails to parse as the whole body would have.
        if self.in_element {
            let element = std::mem::take(&mut self.element);
            self.kept.extend_from_slice(&element);
        }
        (self.kept, self.beyond)
    }

    /// Inside a string: up to its closing quote, a run at a time.
    fn string_part<'c>(&mut self, chunk: &'c [u8]) -> &'c [u8] {
        let mut end = chunk.len();
        for (i, &b) in chunk.iter().enumerate() {
            if self.escaped {
                self.escaped = false;
            } else if b == b'\\' {
                self.escaped = true;
            } else if b == b'"' {
                self.in_string = false;
                end = i + 1;
                break;
            }
        }
        let (part, rest) = chunk.split_at(end);
        if self.in_key {
            self.key.extend_from_slice(part);
            if !self.in_string {
                self.in_key = false;
                // The key with its closing quote.
                self.key_matches = match self.place {
                    DiffPlace::Field(field) => {
                        self.key.len() == field.len() + 1
                            && &self.key[..field.len()] == field.as_bytes()
                    }
                    DiffPlace::Body => false,
                };
            }
        }
        self.push(part);
        rest
    }

    fn structural(&mut self, b: u8) {
        if b.is_ascii_whitespace() {
            if self.in_element {
                self.element.push(b);
            } else if self.array_depth != Some(self.depth) {
                self.kept.push(b);
            }
            return;
        }
        // What the previous byte outside a string said comes next.
        let expected = std::mem::replace(&mut self.expect, Expect::Other);
        let at_array = self.array_depth == Some(self.depth);
        if at_array && !self.in_element && b != b']' && b != b',' {
            self.in_element = true;
        }
        match b {
            b'"' => {
                self.in_string = true;
                if self.depth == 1 && expected == Expect::Key {
                    self.in_key = true;
                    self.key.clear();
                }
                self.push(&[b]);
            }
            b'[' if !self.array_done
                && (expected == Expect::Value
                    || (self.depth == 0 && matches!(self.place, DiffPlace::Body))) =>
            {
                self.kept.push(b);
                self.depth += 1;
                self.array_depth = Some(self.depth);
            }
            b'{' | b'[' => {
                self.depth += 1;
                self.push(&[b]);
                if self.depth == 1 && b == b'{' {
                    self.expect = Expect::Key;
                }
            }
            b']' if at_array => {
                self.end_element();
                self.kept.push(b);
                self.array_depth = None;
                self.array_done = true;
                self.depth = self.depth.saturating_sub(1);
            }
            b'}' | b']' => {
                self.depth = self.depth.saturating_sub(1);
                self.push(&[b]);
                if self.in_element && self.array_depth == Some(self.depth) {
                    self.end_element();
                }
            }
            b',' if at_array => self.end_element(),
            b',' => {
                self.push(&[b]);
                if self.depth == 1 {
                    self.expect = Expect::Key;
                }
            }
            b':' => {
                self.push(&[b]);
                if self.depth == 1 && std::mem::take(&mut self.key_matches) {
                    self.expect = Expect::Value;
                }
            }
            _ => self.push(&[b]),
        }
    }

    fn push(&mut self, bytes: &[u8]) {
        if self.in_element {
            self.element.extend_from_slice(bytes);
        } else {
            self.kept.extend_from_slice(bytes);
        }
    }

    /// An element of the array is complete: kept, or left out.
    fn end_element(&mut self) {
        if !self.in_element {
            return;
        }
        self.in_element = false;
        let element = std::mem::take(&mut self.element);
        match self.left_out_header(&element) {
            None => {
                if self.kept_elements > 0 {
                    self.kept.push(b',');
                }
                self.kept.extend_from_slice(&element);
                self.kept_elements += 1;
            }
            Some(header) => self.beyond.add(header, FILE_NAMES_ROOM),
        }
        // The buffer is reused for the next element.
        self.element = element;
        self.element.clear();
    }

    /// `None` when the element is kept; else the header it is listed by
    /// (empty once the names have no more room: it is only counted). An
    /// element that is not a diff object is kept, for the renderer to
    /// judge as it would the whole body.
    fn left_out_header(&mut self, element: &[u8]) -> Option<String> {
        if self.file.is_none() && !self.beyond.wants_names(FILE_NAMES_ROOM) {
            // Past the cap and past the names' room: nothing to read in it.
            return Some(String::new());
        }
        let mut node = Node::parse(element)?;
        if !matches!(node, Node::Obj(_)) {
            return None;
        }
        // As the renderer sees it: names with hidden characters shown.
        if !untrusted::is_plain(element) {
            untrusted::escape_node(&mut node);
        }
        let diff = file_diff(&node);
        let keep = match &self.file {
            Some(file) => diff.is_named(file),
            None => {
                // The least this file's block takes in the answer (`=== `,
                // its name, a line break, its text): once the kept files
                // pass the cap, the renderer shows no later file's text.
                let least = 5 + diff.name().len() + diff.text.len();
                let keep = self.beyond.is_empty()
                    && (self.kept_room == 0 || self.kept_room + least < self.cap);
                if keep {
                    self.kept_room += least;
                }
                keep
            }
        };
        (!keep).then(|| header(&diff))
    }
}

#[cfg(test)]
mod tests;

//! A job log read as it streams, for the lines that say why the job
//! failed: not its tail, where the runner's cleanup output often hides the
//! error, but the first error line (`patterns.rs`) with a few lines of
//! context on each side. A line that only marks a failure (a test's
//! `FAILED`, Jest's `FAIL` file, a non-zero exit) is kept too, and the
//! scanner reads on, a bounded number of lines, for the error line that
//! explains it (the panic, the assertion): a second excerpt.
//!
//! The scanner takes the log chunk by chunk and holds little: a small ring
//! of the lines before, the lines of at most two excerpts, and the partial
//! line a chunk ended in (itself bounded). Once it has the excerpts, or has
//! looked its bounded number of lines past a marker, or has read its byte
//! cap, it says it wants no more, so the reader can stop the download.
//! Each line is cleaned as a terminal shows it (`terminal.rs`: colours,
//! erases and GitLab's `section_start`/`section_end` markers gone); line
//! numbers are those of the raw log, as `job_log`'s `lines` counts them.
//! Pure: no I/O, tested on strings.

mod patterns;

use std::collections::VecDeque;
use std::fmt::Write as _;

use super::terminal::clean_line;
pub use patterns::Tier;

/// How much the scanner keeps and reads.
#[derive(Debug, Clone, Copy)]
pub struct Limits {
    /// Lines of context kept before an error line.
    pub before: usize,
    /// Lines of context kept after it.
    pub after: usize,
    /// Lines read past a first excerpt that only marks a failure (a
    /// `FAILED` test, a non-zero exit), looking for the error line that
    /// explains it.
    pub lookahead: usize,
    /// The most bytes of the log read.
    pub max_bytes: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            before: 4,
            after: 10,
            lookahead: 2_000,
            max_bytes: 8 * 1024 * 1024,
        }
    }
}

/// The most characters kept of one line.
const LINE_CHARS: usize = 400;
/// The most bytes of one line held while its end has not come; the rest of
/// a longer line is dropped.
const PENDING_MAX: usize = 64 * 1024;
/// Lines kept of the end of a log with no error line.
const TAIL: usize = 12;
/// Excerpts kept: a marker of a failure and the error line after it.
const MAX_HUNKS: usize = 2;
/// Characters shown of one line in an answer.
const SHOWN_CHARS: usize = 200;

#[derive(Debug, Clone, PartialEq)]
pub struct Line {
    /// 1-based, in the raw log.
    pub number: usize,
    pub text: String,
}

/// Lines around one line of interest.
#[derive(Debug, Clone, PartialEq)]
pub struct Hunk {
    pub lines: Vec<Line>,
    /// The line of interest.
    pub at: usize,
    /// What that line is (`compiler error`, `panic`...).
    pub what: &'static str,
    pub tier: Tier,
}

/// What the excerpts are around.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Found {
    /// An error line (and maybe the next one).
    Error,
    /// No error line, only the runner's `Job failed` line.
    JobFailed,
    /// Nothing that looks like an error: the last lines read.
    Nothing,
}

/// Why reading stopped.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum End {
    /// At the end of the log.
    Whole,
    /// The scanner had what it looks for.
    Enough,
    /// At `Limits::max_bytes`.
    Cap,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Excerpt {
    pub found: Found,
    pub hunks: Vec<Hunk>,
    pub lines_read: usize,
    pub bytes_read: usize,
    pub end: End,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    Searching,
    /// Taking the context after the last hunk's error line.
    Collecting {
        left: usize,
    },
    LookingAhead {
        left: usize,
    },
    Done(End),
}

pub struct Scanner {
    limits: Limits,
    ring: VecDeque<Line>,
    pending: Vec<u8>,
    line_no: usize,
    bytes: usize,
    hunks: Vec<Hunk>,
    /// An excerpt holds an error line (not only a marker of one).
    explained: bool,
    job_failed: Option<Hunk>,
    state: State,
}

impl Scanner {
    pub fn new(limits: Limits) -> Self {
        Scanner {
            limits,
            ring: VecDeque::new(),
            pending: Vec::new(),
            line_no: 0,
            bytes: 0,
            hunks: Vec::new(),
            explained: false,
            job_failed: None,
            state: State::Searching,
        }
    }

    /// Read the next piece of the log; `false` once no more is wanted
    /// (what follows the line that completed the excerpts is not read).
    pub fn feed(&mut self, chunk: &[u8]) -> bool {
        if self.wants_no_more() {
            return false;
        }
        let room = self.limits.max_bytes - self.bytes;
        let capped = chunk.len() >= room;
        let mut rest = &chunk[..chunk.len().min(room)];
        while let Some(at) = rest.iter().position(|&b| b == b'\n') {
            self.hold(&rest[..at]);
            self.bytes += at + 1;
            let line = std::mem::take(&mut self.pending);
            self.line(&line);
            if self.wants_no_more() {
                return false;
            }
            rest = &rest[at + 1..];
        }
        self.hold(rest);
        self.bytes += rest.len();
        if capped {
            self.state = State::Done(End::Cap);
        }
        !self.wants_no_more()
    }

    /// The excerpts, once the log ended or no more was wanted.
    pub fn finish(mut self) -> Excerpt {
        if !self.pending.is_empty() && !self.wants_no_more() {
            let line = std::mem::take(&mut self.pending);
            self.line(&line);
        }
        let end = match self.state {
            State::Done(end) => end,
            _ => End::Whole,
        };
        let (found, hunks) = if !self.hunks.is_empty() {
            (Found::Error, self.hunks)
        } else if let Some(hunk) = self.job_failed {
            (Found::JobFailed, vec![hunk])
        } else {
            let lines: Vec<Line> = self.ring.into_iter().collect();
            let hunks = match lines.last() {
                Some(last) => vec![Hunk {
                    at: last.number,
                    what: "end of the log read",
                    tier: Tier::Fallback,
                    lines,
                }],
                None => Vec::new(),
            };
            (Found::Nothing, hunks)
        };
        Excerpt {
            found,
            hunks,
            lines_read: self.line_no,
            bytes_read: self.bytes,
            end,
        }
    }

    fn wants_no_more(&self) -> bool {
        matches!(self.state, State::Done(_))
    }

    /// Part of the line being read, within `PENDING_MAX`.
    fn hold(&mut self, bytes: &[u8]) {
        let room = PENDING_MAX.saturating_sub(self.pending.len());
        self.pending
            .extend_from_slice(&bytes[..bytes.len().min(room)]);
    }

    fn line(&mut self, raw: &[u8]) {
        self.line_no += 1;
        let mut text = clean_line(&String::from_utf8_lossy(raw));
        if let Some((cut, _)) = text.char_indices().nth(LINE_CHARS) {
            text.truncate(cut);
        }
        let tier = patterns::matching(&text).map(|p| (p.tier, p.name));
        let line = Line {
            number: self.line_no,
            text,
        };
        self.state = match (self.state, tier) {
            (State::Searching, Some((tier @ (Tier::Error | Tier::Marker), what))) => {
                self.explained = tier == Tier::Error;
                self.open(&line, what, tier);
                State::Collecting {
                    left: self.limits.after,
                }
            }
            (State::LookingAhead { .. }, Some((Tier::Error, what))) => {
                self.explained = true;
                self.open(&line, what, Tier::Error);
                State::Collecting {
                    left: self.limits.after,
                }
            }
            (State::Searching, Some((Tier::Fallback, what))) if self.job_failed.is_none() => {
                self.job_failed = Some(self.hunk_from_ring(&line, what, Tier::Fallback));
                State::Searching
            }
            (State::Collecting { left }, _) => {
                self.hunks
                    .last_mut()
                    .expect("collecting has a hunk")
                    .lines
                    .push(line.clone());
                self.after_context(left - 1)
            }
            (State::LookingAhead { left }, _) if left <= 1 => State::Done(End::Enough),
            (State::LookingAhead { left }, _) => State::LookingAhead { left: left - 1 },
            (state, _) => state,
        };
        // A hunk with no context after its line is complete at once.
        if let State::Collecting { left: 0 } = self.state {
            self.state = self.after_context(0);
        }
        self.ring.push_back(line);
        if self.ring.len() > self.limits.before.max(TAIL) {
            self.ring.pop_front();
        }
    }

    /// What comes once `left` lines of context are still to take.
    fn after_context(&self, left: usize) -> State {
        if left > 0 {
            State::Collecting { left }
        } else if self.explained || self.hunks.len() >= MAX_HUNKS {
            State::Done(End::Enough)
        } else {
            State::LookingAhead {
                left: self.limits.lookahead,
            }
        }
    }

    fn open(&mut self, line: &Line, what: &'static str, tier: Tier) {
        let hunk = self.hunk_from_ring(line, what, tier);
        self.hunks.push(hunk);
    }

    /// A hunk of `line` and the ring's last lines before it (none already
    /// in an earlier hunk).
    fn hunk_from_ring(&self, line: &Line, what: &'static str, tier: Tier) -> Hunk {
        let shown_up_to = self
            .hunks
            .last()
            .and_then(|h| h.lines.last())
            .map_or(0, |l| l.number);
        let before = self.limits.before;
        let mut lines: Vec<Line> = self
            .ring
            .iter()
            .skip(self.ring.len().saturating_sub(before))
            .filter(|l| l.number > shown_up_to)
            .cloned()
            .collect();
        lines.push(line.clone());
        Hunk {
            lines,
            at: line.number,
            what,
            tier,
        }
    }
}

/// Read a whole log held in memory (tests, and logs already read).
pub fn scan(log: &str, limits: Limits) -> Excerpt {
    let mut scanner = Scanner::new(limits);
    scanner.feed(log.as_bytes());
    scanner.finish()
}

impl Excerpt {
    /// The excerpts as numbered lines (`  1734| error[E0432]: ...`) within
    /// `budget` bytes. Lines are kept by rank, the hunks taking turns: each
    /// hunk's line of interest, then the lines nearest it, those after it
    /// (where an error's details are) twice as near as those before, a
    /// marker's three times farther than the error that explains it;
    /// lines stop being kept at the first that does not fit, so each hunk
    /// stays one unbroken run. When not even the first line of interest
    /// fits, it is cut.
    pub fn render(&self, budget: usize) -> String {
        let formatted: Vec<Vec<String>> = self
            .hunks
            .iter()
            .map(|h| h.lines.iter().map(numbered).collect())
            .collect();
        // A marker's context says less than the error that explains it.
        let explained = self.hunks.iter().any(|h| h.tier == Tier::Error);
        let mut ranked: Vec<(usize, usize, usize)> = Vec::new();
        for (h, hunk) in self.hunks.iter().enumerate() {
            let weight = if explained && hunk.tier == Tier::Marker {
                3
            } else {
                1
            };
            for (l, line) in hunk.lines.iter().enumerate() {
                let rank = weight
                    * if line.number >= hunk.at {
                        line.number - hunk.at
                    } else {
                        2 * (hunk.at - line.number)
                    };
                ranked.push((rank, h, l));
            }
        }
        ranked.sort_unstable();
        let mut keep: Vec<Vec<bool>> = formatted.iter().map(|f| vec![false; f.len()]).collect();
        let mut used = 0;
        for (_, h, l) in ranked {
            let opens_hunk = h > 0 && !keep[h].iter().any(|&k| k);
            let cost = formatted[h][l].len() + if opens_hunk { GAP.len() } else { 0 };
            if used + cost > budget {
                break;
            }
            used += cost;
            keep[h][l] = true;
        }
        let mut out = String::new();
        for (h, lines) in formatted.iter().enumerate() {
            if !keep[h].iter().any(|&k| k) {
                continue;
            }
            if h > 0 {
                out.push_str(GAP);
            }
            for (line, kept) in lines.iter().zip(&keep[h]) {
                if *kept {
                    out.push_str(line);
                }
            }
        }
        if out.is_empty()
            && let Some(hunk) = self.hunks.first()
            && let Some(line) = hunk.lines.iter().find(|l| l.number == hunk.at)
        {
            // Not even the line of interest fits: as much of it as does.
            let line = numbered(line);
            let mut end = budget.saturating_sub("…\n".len()).min(line.len());
            while !line.is_char_boundary(end) {
                end -= 1;
            }
            if end > 0 {
                out.push_str(&line[..end]);
                out.push_str("…\n");
            }
        }
        out
    }
}

/// Between two hunks.
const GAP: &str = "     …\n";

/// `  1734| text`, the text cut at `SHOWN_CHARS`.
fn numbered(line: &Line) -> String {
    let mut out = String::with_capacity(line.text.len().min(SHOWN_CHARS * 4) + 10);
    let _ = write!(out, "{:>6}| ", line.number);
    match line.text.char_indices().nth(SHOWN_CHARS) {
        Some((cut, _)) => {
            out.push_str(&line.text[..cut]);
            out.push('…');
        }
        None => out.push_str(&line.text),
    }
    out.push('\n');
    out
}

#[cfg(test)]
mod tests;

//! Windows over long texts: job logs from their end, files from their
//! start, any line range on request, always within the size cap, and a
//! footer that says what was cut and which `lines` to ask for next. The
//! lines shown are GitLab's text, framed (`untrusted`); the footer is ours
//! and comes after the frame.

use std::borrow::Cow;
use std::collections::VecDeque;

use super::{terminal, untrusted};
use crate::catalog::TextStart;
use crate::dispatch::LineRange;
use untrusted::FRAME_ROOM;

/// Room kept under the cap for the footer: its longest form (line numbers,
/// the byte count, the cap, two `lines` pointers) is under 200 bytes.
const FOOTER_ROOM: usize = 200;

/// A window of lines `[start, end)`, 0-based.
#[derive(Debug, Clone, Copy)]
struct Span {
    start: usize,
    end: usize,
}

impl Span {
    fn len(self) -> usize {
        self.end - self.start
    }
}

/// The window over a whole text at once.
pub fn window(text: &str, range: Option<LineRange>, start: TextStart, cap: usize) -> String {
    let mut window = Window::new(range, start, cap);
    for line in text.split_inclusive('\n') {
        window.push(line);
    }
    window.finish(true)
}

/// A window built line by line as the text arrives, holding only the
/// lines it may show (at most about `cap` bytes, plus one line), so a log
/// of hundreds of megabytes never sits in memory. A log (`TextStart::Tail`)
/// is cleaned as a terminal shows it, line by line. The answer is the same
/// as over the whole text, except that a range whose end was passed stops
/// the reading (`has_enough`), and then the total is not known.
#[derive(Debug)]
pub struct Window {
    range: Option<LineRange>,
    start: TextStart,
    cap: usize,
    /// Lines pushed so far, and their bytes as shown (cleaned, escaped).
    lines: usize,
    bytes: usize,
    /// The lines that may be shown, and the 0-based index of the first.
    kept: VecDeque<String>,
    kept_bytes: usize,
    first_kept: usize,
    /// Reading forwards: a line did not fit, so no later one is kept.
    full: bool,
}

impl Window {
    pub fn new(range: Option<LineRange>, start: TextStart, cap: usize) -> Self {
        Window {
            range,
            start,
            cap,
            lines: 0,
            bytes: 0,
            kept: VecDeque::new(),
            kept_bytes: 0,
            first_kept: 0,
            full: false,
        }
    }

    /// Which end the window keeps when the text is over the cap.
    fn counts_from_end(&self) -> bool {
        match self.range {
            Some(LineRange::Last(_)) => true,
            Some(LineRange::Span { .. }) => false,
            None => self.start == TextStart::Tail,
        }
    }

    /// The most bytes of lines kept: the whole text while it may still fit
    /// under the cap (it is then shown whole), else the window's budget.
    fn keep_budget(&self) -> usize {
        match self.range {
            None => self.cap.saturating_sub(FRAME_ROOM),
            Some(_) => self.budget(),
        }
    }

    fn budget(&self) -> usize {
        self.cap.saturating_sub(FOOTER_ROOM + FRAME_ROOM)
    }

    /// The next line, with its `\n` (the text's last line may have none).
    pub fn push(&mut self, raw: &str) {
        let index = self.lines;
        self.lines += 1;
        let line = match self.start {
            TextStart::Tail => terminal::clean_log(raw),
            TextStart::Head => Cow::Borrowed(raw),
        };
        let line = match untrusted::escape(&line) {
            Cow::Borrowed(_) => line,
            Cow::Owned(escaped) => Cow::Owned(escaped),
        };
        self.bytes += line.len();
        let budget = self.keep_budget();
        if self.counts_from_end() {
            if self.kept.is_empty() {
                self.first_kept = index;
            }
            self.kept_bytes += line.len();
            self.kept.push_back(line.into_owned());
            let limit = match self.range {
                Some(LineRange::Last(n)) => n,
                _ => usize::MAX,
            };
            while self.kept.len() > limit || (self.kept_bytes > budget && self.kept.len() > 1) {
                let dropped = self.kept.pop_front().expect("more than one line kept");
                self.kept_bytes -= dropped.len();
                self.first_kept += 1;
            }
            return;
        }
        let (first, end) = match self.range {
            Some(LineRange::Span { start, end }) => (start - 1, end.unwrap_or(usize::MAX)),
            _ => (0, usize::MAX),
        };
        if self.full || index < first || index >= end {
            return;
        }
        if !self.kept.is_empty() && self.kept_bytes + line.len() > budget {
            self.full = true;
            return;
        }
        if self.kept.is_empty() {
            self.first_kept = index;
        }
        self.kept_bytes += line.len();
        self.kept.push_back(line.into_owned());
    }

    /// Whether the rest of the text changes nothing but its line count: a
    /// range whose last line was passed.
    pub fn has_enough(&self) -> bool {
        matches!(self.range, Some(LineRange::Span { end: Some(end), .. }) if self.lines > end)
    }

    /// The answer. `complete`: every line was pushed; otherwise the reading
    /// stopped after the range (`has_enough`) and the total is unknown.
    pub fn finish(self, complete: bool) -> String {
        let total = self.lines;
        if self.range.is_none() && complete && self.bytes + FRAME_ROOM <= self.cap {
            let text: String = self.kept.iter().map(String::as_str).collect();
            return untrusted::frame(&text);
        }
        let asked = requested(self.range, total);
        let budget = self.budget();
        let lines: Vec<&str> = self.kept.iter().map(String::as_str).collect();
        // The kept lines that fit the budget, as indices of the text.
        let fitted = fit(
            &lines,
            Span {
                start: 0,
                end: lines.len(),
            },
            budget,
            self.counts_from_end(),
        );
        let mut body: String = lines[fitted.start..fitted.end].concat();
        let within = if lines.is_empty() {
            Span {
                start: asked.start,
                end: asked.start,
            }
        } else {
            Span {
                start: self.first_kept + fitted.start,
                end: self.first_kept + fitted.end,
            }
        };
        let cut_line = body.len() > budget;
        if cut_line {
            // One line longer than the cap (minified code): cut the line itself.
            let mut end = budget;
            while !body.is_char_boundary(end) {
                end -= 1;
            }
            body.truncate(end);
        }
        let mut out = untrusted::frame(&body);
        if !out.is_empty() {
            out.push('\n');
        }
        let total = complete.then_some(total);
        out.push_str(&footer(
            self.bytes, total, asked, within, cut_line, self.cap,
        ));
        out
    }
}

/// The lines asked for, clamped to the text.
fn requested(range: Option<LineRange>, total: usize) -> Span {
    let (start, end) = match range {
        Some(LineRange::Span { start, end }) => {
            ((start - 1).min(total), end.map_or(total, |e| e.min(total)))
        }
        Some(LineRange::Last(n)) => (total.saturating_sub(n), total),
        None => (0, total),
    };
    Span { start, end }
}

/// The largest part of `asked` within `budget` bytes, keeping at least one line.
fn fit(lines: &[&str], asked: Span, budget: usize, from_end: bool) -> Span {
    let mut shown = asked;
    let mut size: usize = lines[shown.start..shown.end].iter().map(|l| l.len()).sum();
    while size > budget && shown.len() > 1 {
        if from_end {
            size -= lines[shown.start].len();
            shown.start += 1;
        } else {
            shown.end -= 1;
            size -= lines[shown.end].len();
        }
    }
    shown
}

/// `[lines 9901-10000 of 10000 (... cut to the 64 KB response cap) · earlier: "lines": "9801-9900"]`
/// `total`: the text's line count, `None` when the reading stopped after
/// the range (there are more lines than were read).
fn footer(
    bytes: usize,
    total: Option<usize>,
    asked: Span,
    shown: Span,
    cut_line: bool,
    cap: usize,
) -> String {
    let mut footer = match total {
        Some(total) => format!("[lines {}-{} of {total}", shown.start + 1, shown.end),
        None => format!(
            "[lines {}-{} of more than {} (the rest not read)",
            shown.start + 1,
            shown.end,
            asked.end
        ),
    };
    if cut_line {
        footer.push_str(", the last one cut");
    }
    if shown.start > asked.start || shown.end < asked.end || cut_line {
        match total {
            Some(_) => footer.push_str(&format!(
                " ({bytes} bytes in all; cut to the {} KB response cap)",
                cap / 1024
            )),
            None => footer.push_str(&format!(" (cut to the {} KB response cap)", cap / 1024)),
        }
    }
    if shown.start > 0 {
        let earlier_end = shown.start;
        let earlier_start = (earlier_end + 1).saturating_sub(shown.len()).max(1);
        footer.push_str(&format!(
            " · earlier: \"lines\": \"{earlier_start}-{earlier_end}\""
        ));
    }
    if total.is_none_or(|total| shown.end < total) {
        let later_start = shown.end + 1;
        let later_end = (shown.end + shown.len()).min(total.unwrap_or(usize::MAX));
        footer.push_str(&format!(
            " · later: \"lines\": \"{later_start}-{later_end}\""
        ));
    }
    footer.push(']');
    footer
}

#[cfg(test)]
mod tests {
    use super::*;

    fn numbered(n: usize) -> String {
        (1..=n).map(|i| format!("line {i}\n")).collect()
    }

    #[test]
    fn short_texts_are_whole() {
        assert_eq!(window("a\nb\n", None, TextStart::Tail, 1000), "⟦\na\nb\n⟧");
    }

    #[test]
    fn a_long_log_shows_its_end_and_how_to_read_earlier() {
        let text = numbered(10_000);
        let out = window(&text, None, TextStart::Tail, 4096);
        assert!(out.len() <= 4096, "{}", out.len());
        assert!(out.contains("line 10000\n"));
        assert!(!out.contains("line 1\n"));
        let footer = out.lines().last().unwrap();
        assert!(
            footer.contains("of 10000") && footer.contains("earlier: \"lines\": \""),
            "{footer}"
        );
    }

    #[test]
    fn a_range_is_honoured_and_points_onwards() {
        let text = numbered(100);
        let out = window(
            &text,
            Some(LineRange::Span {
                start: 10,
                end: Some(12),
            }),
            TextStart::Head,
            4096,
        );
        assert!(
            out.starts_with("⟦\nline 10\nline 11\nline 12\n⟧\n[lines 10-12 of 100"),
            "{out}"
        );
        assert!(
            out.contains("earlier: \"lines\": \"7-9\"")
                && out.contains("later: \"lines\": \"13-15\""),
            "{out}"
        );
        let last = window(&text, Some(LineRange::Last(2)), TextStart::Head, 4096);
        assert!(
            last.starts_with("⟦\nline 99\nline 100\n⟧\n[lines 99-100 of 100"),
            "{last}"
        );
    }

    /// The window as computed over the whole text before it was built
    /// line by line: the reference the incremental one must match.
    fn whole_text_window(
        text: &str,
        range: Option<LineRange>,
        start: TextStart,
        cap: usize,
    ) -> String {
        let cleaned = match start {
            TextStart::Tail => terminal::clean_log(text),
            TextStart::Head => Cow::Borrowed(text),
        };
        let text = untrusted::escape(&cleaned);
        if range.is_none() && text.len() + FRAME_ROOM <= cap {
            return untrusted::frame(&text);
        }
        let lines: Vec<&str> = text.split_inclusive('\n').collect();
        let asked = requested(range, lines.len());
        let from_end = match range {
            Some(LineRange::Last(_)) => true,
            Some(LineRange::Span { .. }) => false,
            None => start == TextStart::Tail,
        };
        let budget = cap.saturating_sub(FOOTER_ROOM + FRAME_ROOM);
        let shown = fit(&lines, asked, budget, from_end);
        let mut body: String = lines[shown.start..shown.end].concat();
        let cut_line = body.len() > budget;
        if cut_line {
            let mut end = budget;
            while !body.is_char_boundary(end) {
                end -= 1;
            }
            body.truncate(end);
        }
        let mut out = untrusted::frame(&body);
        if !out.is_empty() {
            out.push('\n');
        }
        out.push_str(&footer(
            text.len(),
            Some(lines.len()),
            asked,
            shown,
            cut_line,
            cap,
        ));
        out
    }

    #[test]
    fn line_by_line_is_the_same_window_as_over_the_whole_text() {
        let mixed: String = (1..=300)
            .map(|i| match i % 7 {
                0 => format!("\x1b[32;1mstep {i}\x1b[0;m\n"),
                1 => format!("progress 10%\rprogress 100% {i}\n"),
                2 => format!("{}\n", "x".repeat(i * 13)),
                3 => format!("hidden\u{200B}char ⟧ {i}\r\n"),
                4 => "\n".to_string(),
                _ => format!("line {i}\n"),
            })
            .collect();
        let texts = [
            String::new(),
            "one line, no newline".to_string(),
            numbered(3),
            numbered(5_000),
            mixed.clone(),
            format!("{mixed}a last line without its newline"),
            format!("{}\nshort\n", "y".repeat(9_000)),
        ];
        let ranges = [
            None,
            Some(LineRange::Last(1)),
            Some(LineRange::Last(50)),
            Some(LineRange::Last(100_000)),
            Some(LineRange::Span {
                start: 1,
                end: Some(40),
            }),
            Some(LineRange::Span {
                start: 250,
                end: None,
            }),
            Some(LineRange::Span {
                start: 2,
                end: Some(2),
            }),
            Some(LineRange::Span {
                start: 9_000,
                end: Some(9_100),
            }),
        ];
        for text in &texts {
            for range in ranges {
                for start in [TextStart::Head, TextStart::Tail] {
                    for cap in [300, 4_096, 65_536] {
                        assert_eq!(
                            window(text, range, start, cap),
                            whole_text_window(text, range, start, cap),
                            "{range:?} {start:?} cap {cap}, text of {} bytes",
                            text.len()
                        );
                    }
                }
            }
        }
    }

    #[test]
    fn a_long_text_is_windowed_holding_no_more_than_the_cap() {
        let cap = 4_096;
        let mut window = Window::new(Some(LineRange::Last(50)), TextStart::Tail, cap);
        for i in 1..=100_000 {
            window.push(&format!("log line {i} {}\n", "z".repeat(i % 200)));
            assert!(window.kept_bytes <= cap, "{} bytes kept", window.kept_bytes);
        }
        let out = window.finish(true);
        assert!(out.contains("log line 100000 "), "{out}");
        assert!(out.ends_with("]"), "{out}");
        assert!(out.contains("of 100000"), "{out}");
    }

    #[test]
    fn a_range_stops_the_reading_after_its_end() {
        let mut window = Window::new(
            Some(LineRange::Span {
                start: 1,
                end: Some(40),
            }),
            TextStart::Head,
            65_536,
        );
        let mut pushed = 0;
        for line in numbered(1_000).split_inclusive('\n') {
            if window.has_enough() {
                break;
            }
            window.push(line);
            pushed += 1;
        }
        assert_eq!(pushed, 41, "one line past the range tells that more follow");
        let out = window.finish(false);
        assert!(out.starts_with("⟦\nline 1\n"), "{out}");
        assert!(out.contains("line 40\n⟧\n"), "{out}");
        assert!(!out.contains("line 41\n"), "{out}");
        assert_eq!(
            out.lines().last(),
            Some("[lines 1-40 of more than 40 (the rest not read) · later: \"lines\": \"41-80\"]")
        );
    }
}

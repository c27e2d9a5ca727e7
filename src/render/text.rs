//! Windows over long texts: job logs from their end, files from their
//! start, any line range on request, always within the size cap, and a
//! footer that says what was cut and which `lines` to ask for next. The
//! lines shown are GitLab's text, framed (`untrusted`); the footer is ours
//! and comes after the frame.

use super::untrusted;
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

pub fn window(text: &str, range: Option<LineRange>, start: TextStart, cap: usize) -> String {
    let text = untrusted::escape(text);
    if range.is_none() && text.len() + FRAME_ROOM <= cap {
        return untrusted::frame(&text);
    }
    let lines: Vec<&str> = text.split_inclusive('\n').collect();
    let asked = requested(range, lines.len());
    // Within the cap: drop lines from the far end of the reading direction.
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
    out.push_str(&footer(
        text.len(),
        lines.len(),
        asked,
        shown,
        cut_line,
        cap,
    ));
    out
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
fn footer(
    bytes: usize,
    total: usize,
    asked: Span,
    shown: Span,
    cut_line: bool,
    cap: usize,
) -> String {
    let mut footer = format!("[lines {}-{} of {total}", shown.start + 1, shown.end);
    if cut_line {
        footer.push_str(", the last one cut");
    }
    if shown.start > asked.start || shown.end < asked.end || cut_line {
        footer.push_str(&format!(
            " ({bytes} bytes in all; cut to the {} KB response cap)",
            cap / 1024
        ));
    }
    if shown.start > 0 {
        let earlier_end = shown.start;
        let earlier_start = (earlier_end + 1).saturating_sub(shown.len()).max(1);
        footer.push_str(&format!(
            " · earlier: \"lines\": \"{earlier_start}-{earlier_end}\""
        ));
    }
    if shown.end < total {
        let later_start = shown.end + 1;
        let later_end = (shown.end + shown.len()).min(total);
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
}

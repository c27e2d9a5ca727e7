//! Windows over long texts: job logs from their end, files from their
//! start, any line range on request, always within the size cap, and a
//! footer that says what was cut and which `lines` to ask for next.

use crate::catalog::TextStart;
use crate::dispatch::LineRange;

pub fn window(text: &str, range: Option<LineRange>, start: TextStart, cap: usize) -> String {
    let lines: Vec<&str> = text.split_inclusive('\n').collect();
    let total = lines.len();
    if range.is_none() && text.len() <= cap {
        return text.to_string();
    }
    // The requested lines, as 0-based [from, to).
    let (from, to) = match range {
        Some(LineRange::Span { start, end }) => {
            ((start - 1).min(total), end.map_or(total, |e| e.min(total)))
        }
        Some(LineRange::Last(n)) => (total.saturating_sub(n), total),
        None => (0, total),
    };
    // Within the cap: drop lines from the far end of the reading direction.
    let from_end = match range {
        Some(LineRange::Last(_)) => true,
        Some(LineRange::Span { .. }) => false,
        None => start == TextStart::Tail,
    };
    let budget = cap.saturating_sub(200);
    let (mut a, mut b) = (from, to);
    let mut size: usize = lines[a..b].iter().map(|l| l.len()).sum();
    while size > budget && b - a > 1 {
        if from_end {
            size -= lines[a].len();
            a += 1;
        } else {
            b -= 1;
            size -= lines[b].len();
        }
    }
    let mut body: String = lines[a..b].concat();
    let mut cut_line = false;
    if body.len() > budget {
        // One line longer than the cap (minified code): cut the line itself.
        let mut end = budget;
        while !body.is_char_boundary(end) {
            end -= 1;
        }
        body.truncate(end);
        cut_line = true;
    }
    if !body.ends_with('\n') && !body.is_empty() {
        body.push('\n');
    }
    let mut footer = format!("[lines {}-{} of {total}", a + 1, b);
    if cut_line {
        footer.push_str(", the last one cut");
    }
    let capped = a > from || b < to || cut_line;
    if capped {
        footer.push_str(&format!(
            " ({} bytes in all; cut to the {} KB response cap)",
            text.len(),
            cap / 1024
        ));
    }
    if a > 0 {
        let earlier_end = a;
        let earlier_start = (earlier_end + 1).saturating_sub(b - a).max(1);
        footer.push_str(&format!(
            " · earlier: \"lines\": \"{earlier_start}-{earlier_end}\""
        ));
    }
    if b < total {
        let later_start = b + 1;
        let later_end = (b + (b - a)).min(total);
        footer.push_str(&format!(
            " · later: \"lines\": \"{later_start}-{later_end}\""
        ));
    }
    footer.push(']');
    body.push_str(&footer);
    body
}

#[cfg(test)]
mod tests {
    use super::*;

    fn numbered(n: usize) -> String {
        (1..=n).map(|i| format!("line {i}\n")).collect()
    }

    #[test]
    fn short_texts_are_whole() {
        assert_eq!(window("a\nb\n", None, TextStart::Tail, 1000), "a\nb\n");
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
            out.starts_with("line 10\nline 11\nline 12\n[lines 10-12 of 100"),
            "{out}"
        );
        assert!(
            out.contains("earlier: \"lines\": \"7-9\"")
                && out.contains("later: \"lines\": \"13-15\""),
            "{out}"
        );
        let last = window(&text, Some(LineRange::Last(2)), TextStart::Head, 4096);
        assert!(
            last.starts_with("line 99\nline 100\n[lines 99-100 of 100"),
            "{last}"
        );
    }
}

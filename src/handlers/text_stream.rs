//! A text answer (a job log, a raw file) read through its window as it
//! streams: only the lines the window may show are kept, so a log of
//! hundreds of megabytes costs the server about the size cap in memory,
//! not the log (BENCHMARKS.md: 436 MB peak for `lines: "-5"` of a 200 MB
//! log before). A range whose end is passed stops the reading (one piece
//! later, so a text that ends there is still counted whole) and drops the
//! connection: GitLab sends a job's trace and a raw file whole, with
//! no `Range` support (`lib/api/ci/jobs.rb`, `lib/api/files.rb`), so
//! stopping is the only way to read less.

use std::ops::ControlFlow;

use super::Gitlab;
use super::streamed::{self, Ended};
use crate::catalog::TextStart;
use crate::dispatch::ValidatedCall;
use crate::gitlab::HttpRequest;
use crate::render::{Output, Window};

/// The longest line kept whole; the rest of a longer one is not shown (it
/// is counted), since the window shows at most the size cap anyway.
const LINE_MAX: usize = 1024 * 1024;

/// The answer to `request`, a text shown from `start`.
pub async fn read(
    call: &ValidatedCall,
    request: &HttpRequest,
    gitlab: &Gitlab<'_>,
    start: TextStart,
) -> Output {
    let mut window = Window::new(call.view.lines, start, gitlab.render.max_bytes);
    let mut lines = Lines::default();
    let take = |chunk: &[u8]| {
        // Once the range is passed, one more piece is read: a text that
        // ends there (a small file, read whole) still gets its line count.
        let enough = window.has_enough();
        lines.feed(chunk, &mut window);
        if enough {
            ControlFlow::Break(())
        } else {
            ControlFlow::Continue(())
        }
    };
    match streamed::read(call, request, gitlab, take).await {
        Ok((_, Ended::Stopped)) => Output::ok(window.finish(false)),
        Ok((_, Ended::Whole)) => {
            lines.finish(&mut window);
            Output::ok(window.finish(true))
        }
        Err(failed) => failed,
    }
}

/// Splits chunks into lines, carrying a line cut between two chunks.
#[derive(Default)]
struct Lines {
    partial: Vec<u8>,
}

impl Lines {
    fn feed(&mut self, mut chunk: &[u8], window: &mut Window) {
        while let Some(at) = chunk.iter().position(|b| *b == b'\n') {
            let (line, rest) = chunk.split_at(at + 1);
            if self.partial.is_empty() {
                push(line, window);
            } else {
                self.keep(&line[..at]);
                self.partial.push(b'\n');
                push(&self.partial, window);
                self.partial.clear();
            }
            chunk = rest;
        }
        self.keep(chunk);
    }

    /// The last line, which has no `\n`.
    fn finish(self, window: &mut Window) {
        if !self.partial.is_empty() {
            push(&self.partial, window);
        }
    }

    fn keep(&mut self, bytes: &[u8]) {
        let room = LINE_MAX.saturating_sub(self.partial.len());
        self.partial
            .extend_from_slice(&bytes[..bytes.len().min(room)]);
    }
}

/// A line, its invalid UTF-8 replaced as for a whole body (a `\n` is never
/// part of a character, so line by line gives the same text).
fn push(line: &[u8], window: &mut Window) {
    window.push(&String::from_utf8_lossy(line));
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dispatch::LineRange;
    use crate::render::window;

    #[test]
    fn lines_cut_between_chunks_read_as_the_whole_text() {
        let text: String = (1..=500)
            .map(|i| format!("line {i} é\u{200B} {}\n", "x".repeat(i % 37)))
            .collect::<String>()
            + "no newline at the end";
        let bytes = text.as_bytes();
        for range in [
            None,
            Some(LineRange::Last(50)),
            Some(LineRange::Span {
                start: 7,
                end: None,
            }),
        ] {
            for chunk_size in [1, 2, 3, 7, 64, 4096, bytes.len()] {
                let mut streamed = Window::new(range, TextStart::Tail, 4096);
                let mut lines = Lines::default();
                for chunk in bytes.chunks(chunk_size) {
                    lines.feed(chunk, &mut streamed);
                }
                lines.finish(&mut streamed);
                assert_eq!(
                    streamed.finish(true),
                    window(&text, range, TextStart::Tail, 4096),
                    "{range:?}, chunks of {chunk_size}"
                );
            }
        }
    }

    #[test]
    fn a_line_past_the_longest_kept_is_shown_from_its_start() {
        let long = "y".repeat(LINE_MAX + 10);
        let mut window = Window::new(None, TextStart::Head, 4096);
        let mut lines = Lines::default();
        lines.feed(format!("{long}\nshort\n").as_bytes(), &mut window);
        lines.finish(&mut window);
        let out = window.finish(true);
        assert!(out.starts_with("⟦\nyyyy"), "{}", &out[..40]);
        assert!(out.contains("[lines 1-1 of 2, the last one cut"), "{out}");
    }
}

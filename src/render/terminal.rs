//! A CI job's log as a terminal would show it: GitLab stores the runner's
//! raw output, with ANSI escape sequences (colours, `ESC[0K` erases) and
//! carriage returns that redraw a line (progress bars, GitLab's
//! `section_start:...` markers). Both are noise to a model and cost tokens,
//! so each line keeps what a terminal would leave on screen: the escapes
//! removed, and only what follows the line's last carriage return. Lines
//! are never removed, so line numbers stay those of the raw log.

use std::borrow::Cow;

pub fn clean_log(text: &str) -> Cow<'_, str> {
    if !text.contains(['\x1b', '\r']) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len());
    for line in text.split_inclusive('\n') {
        let (body, end) = match line.strip_suffix('\n') {
            Some(body) => (body.strip_suffix('\r').unwrap_or(body), "\n"),
            None => (line, ""),
        };
        out.extend(screen_line(body));
        out.push_str(end);
    }
    Cow::Owned(out)
}

/// One line (without its line break) as a terminal leaves it, for readers
/// that take a log line by line (`log_scan`).
pub(super) fn clean_line(line: &str) -> String {
    let line = line.strip_suffix('\r').unwrap_or(line);
    if !line.contains(['\x1b', '\r']) {
        return line.to_string();
    }
    screen_line(line).into_iter().collect()
}

/// One line as a terminal leaves it: characters written at the cursor,
/// `\r` back to the start, `ESC[K` erasing to the end; every other escape
/// (colours, OSC links) dropped.
fn screen_line(line: &str) -> Vec<char> {
    let mut screen: Vec<char> = Vec::with_capacity(line.len());
    let mut cursor = 0;
    let mut chars = line.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\r' => cursor = 0,
            '\x1b' => match chars.next() {
                Some('[') => {
                    let mut params = String::new();
                    for c in chars.by_ref() {
                        if ('@'..='~').contains(&c) {
                            // ESC[K and ESC[0K erase from the cursor on.
                            if c == 'K' && matches!(params.as_str(), "" | "0") {
                                screen.truncate(cursor);
                            }
                            break;
                        }
                        params.push(c);
                    }
                }
                Some(']') => {
                    while let Some(c) = chars.next() {
                        if c == '\x07' || (c == '\x1b' && chars.next_if_eq(&'\\').is_some()) {
                            break;
                        }
                    }
                }
                _ => {}
            },
            c => {
                if cursor < screen.len() {
                    screen[cursor] = c;
                } else {
                    screen.push(c);
                }
                cursor += 1;
            }
        }
    }
    screen
}

#[cfg(test)]
mod tests {
    use super::clean_log;

    #[test]
    fn colours_erases_and_redraws_are_gone_lines_stay() {
        let raw = "\x1b[32;1mUploading artifacts...\x1b[0;m\n\
section_start:1772443840:upload\r\x1b[0K\x1b[36;1mUploading for failed job\x1b[0;m\n\
section_end:1772443842:upload\r\x1b[0K\n\
Downloading 10%\rDownloading 100%\r\n\
\x1b]8;;https://example.com\x07link\x1b]8;;\x07 plain\n\
\x1b[31;1mERROR: Job failed: exit code 1\n";
        assert_eq!(
            clean_log(raw),
            "Uploading artifacts...\nUploading for failed job\n\nDownloading 100%\nlink plain\nERROR: Job failed: exit code 1\n"
        );
        assert!(matches!(
            clean_log("plain\n"),
            std::borrow::Cow::Borrowed(_)
        ));
    }
}

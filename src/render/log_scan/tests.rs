//! The scanner on small logs written like the runner writes them.

use super::*;

const START: &str = "section_start:1772443749:step_script\r\x1b[0K\x1b[0K\x1b[36;1mExecuting \"step_script\" stage of the job script\x1b[0;m\n";

/// `n` lines of ordinary output numbered from `from`.
fn noise(from: usize, n: usize) -> String {
    (from..from + n)
        .map(|i| format!("\x1b[32m   Compiling\x1b[0m crate_{i} v0.1.{i}\n"))
        .collect()
}

/// A log whose compiler error sits after `before` lines, followed by
/// `after` lines of cleanup output and the runner's last line.
fn rust_log(before: usize, after: usize) -> String {
    let mut log = String::from(START);
    log.push_str("\x1b[32;1m$ cargo build --locked\x1b[0;m\n");
    log.push_str("   Compiling thiserror v2.0.0\n");
    log.push_str("\x1b[33mwarning\x1b[0m: unused variable: `total`\n  --> src/cart.rs:9:9\n   |\n9  |     let total = 0;\n   |         ^^^^^ help: prefix it with an underscore: `_total`\n\n");
    log.push_str(&noise(0, before));
    log.push_str("\x1b[31merror[E0432]\x1b[0m: unresolved import `shop::orders::Refund`\n");
    log.push_str(" --> src/main.rs:3:5\n  |\n3 | use shop::orders::Refund;\n  |     ^^^^^^^^^^^^^^^^^^^^^ no `Refund` in `orders`\n\n");
    log.push_str("error: could not compile `shop` (bin \"shop\") due to 1 previous error\n");
    log.push_str("section_end:1772443800:step_script\r\x1b[0K\n");
    log.push_str(
        "section_start:1772443800:after_script\r\x1b[0K\x1b[0K\x1b[36;1mRunning after_script\x1b[0;m\n",
    );
    for i in 0..after {
        log.push_str(&format!(
            "postgres-1  | 2026-03-02 09:50:{:02}.{i:03} UTC [1] LOG:  checkpoint complete\n",
            i % 60
        ));
    }
    log.push_str("section_end:1772443900:after_script\r\x1b[0K\n");
    log.push_str("\x1b[31;1mERROR: Job failed: exit code 101\n\x1b[0;m\n");
    log
}

fn texts(hunk: &Hunk) -> Vec<&str> {
    hunk.lines.iter().map(|l| l.text.as_str()).collect()
}

#[test]
fn the_error_in_the_middle_is_found_with_its_location_line_and_reading_stops() {
    let log = rust_log(1_500, 10_000);
    let excerpt = scan(&log, Limits::default());
    assert_eq!(excerpt.found, Found::Error);
    let first = &excerpt.hunks[0];
    assert_eq!(first.what, "compiler error");
    assert_eq!(
        first
            .lines
            .iter()
            .find(|l| l.number == first.at)
            .unwrap()
            .text,
        "error[E0432]: unresolved import `shop::orders::Refund`"
    );
    // The error's line in the raw log: the script header, the command, the
    // thiserror line, six warning lines, then the noise.
    assert_eq!(first.at, 1 + 1 + 1 + 6 + 1_500 + 1);
    let lines = texts(first);
    assert!(lines.contains(&" --> src/main.rs:3:5"), "{lines:#?}");
    assert_eq!(lines[0], "   Compiling crate_1496 v0.1.1496");
    assert_eq!(lines.len(), 4 + 1 + 10);
    // An error line explains itself: reading stopped after its context.
    assert_eq!(excerpt.hunks.len(), 1);
    assert_eq!(excerpt.end, End::Enough);
    assert_eq!(excerpt.lines_read, first.at + 10);
    assert!(
        excerpt.bytes_read < log.len() / 2,
        "{} of {}",
        excerpt.bytes_read,
        log.len()
    );
}

#[test]
fn a_failure_marker_is_followed_to_the_error_that_explains_it() {
    let mut log = String::from("running 40 tests\n");
    log.push_str("test orders::tests::refund_rounds_half_even ... FAILED\n");
    for i in 0..30 {
        log.push_str(&format!("test orders::tests::case_{i} ... ok\n"));
    }
    log.push_str("\nfailures:\n\n---- orders::tests::refund_rounds_half_even stdout ----\n");
    log.push_str("thread 'orders::tests::refund_rounds_half_even' panicked at src/orders.rs:88:9:\nassertion `left == right` failed\n  left: 1049\n right: 1050\n");
    log.push_str(&noise(0, 50));
    let excerpt = scan(&log, Limits::default());
    let whats: Vec<&str> = excerpt.hunks.iter().map(|h| h.what).collect();
    assert_eq!(whats, ["failed test", "panic"]);
    assert_eq!(
        texts(&excerpt.hunks[1])[..5],
        [
            "",
            "failures:",
            "",
            "---- orders::tests::refund_rounds_half_even stdout ----",
            "thread 'orders::tests::refund_rounds_half_even' panicked at src/orders.rs:88:9:",
        ]
    );
    assert_eq!(excerpt.end, End::Enough);
    let shown = excerpt.render(100_000);
    assert!(
        shown.contains("ok\n     …\n"),
        "the two excerpts are apart: {shown}"
    );

    // Without an error line within the look-ahead, the marker alone.
    let mut log = String::from("test orders::tests::refund ... FAILED\n");
    log.push_str(&noise(0, 3_000));
    log.push_str("thread 'orders::tests::refund' panicked at src/orders.rs:88:9:\n");
    let excerpt = scan(&log, Limits::default());
    assert_eq!(excerpt.hunks.len(), 1);
    assert_eq!(excerpt.end, End::Enough);
    assert_eq!(excerpt.lines_read, 1 + 10 + 2_000);
}

#[test]
fn look_alikes_before_the_error_are_skipped() {
    let excerpt = scan(&rust_log(3, 5), Limits::default());
    // `Compiling thiserror`, the warning and its `-->` came first.
    assert_eq!(excerpt.hunks[0].what, "compiler error");
    assert!(
        excerpt.hunks[0]
            .lines
            .iter()
            .all(|l| !l.text.contains("warning"))
    );
}

#[test]
fn no_escape_or_section_marker_survives() {
    let excerpt = scan(&rust_log(2, 3), Limits::default());
    for hunk in &excerpt.hunks {
        for line in &hunk.lines {
            assert!(
                !line.text.contains('\x1b') && !line.text.contains("section_"),
                "{line:?}"
            );
        }
    }
}

#[test]
fn a_log_read_a_byte_at_a_time_gives_the_same_excerpt() {
    let log = rust_log(40, 40);
    let mut scanner = Scanner::new(Limits::default());
    for byte in log.as_bytes() {
        if !scanner.feed(std::slice::from_ref(byte)) {
            break;
        }
    }
    assert_eq!(scanner.finish(), scan(&log, Limits::default()));
}

#[test]
fn without_an_error_line_the_runner_line_then_the_tail_is_shown() {
    let log = format!(
        "{START}{}\x1b[31;1mERROR: Job failed: exit code 1\n\x1b[0;m\nUploading artifacts\n",
        noise(0, 30)
    );
    let excerpt = scan(&log, Limits::default());
    assert_eq!(excerpt.found, Found::JobFailed);
    assert_eq!(excerpt.hunks[0].at, 32);
    assert_eq!(excerpt.end, End::Whole);

    let excerpt = scan(&noise(0, 30), Limits::default());
    assert_eq!(excerpt.found, Found::Nothing);
    assert_eq!(excerpt.hunks[0].lines.len(), TAIL);
    assert_eq!(excerpt.hunks[0].at, 30);
    assert_eq!(
        excerpt.hunks[0].lines.last().unwrap().text,
        "   Compiling crate_29 v0.1.29"
    );

    let empty = scan("", Limits::default());
    assert_eq!((empty.found, empty.hunks.len()), (Found::Nothing, 0));
}

#[test]
fn reading_stops_at_the_byte_cap() {
    let log = noise(0, 10_000);
    let limits = Limits {
        max_bytes: 4096,
        ..Limits::default()
    };
    let mut scanner = Scanner::new(limits);
    assert!(!scanner.feed(log.as_bytes()));
    let excerpt = scanner.finish();
    assert_eq!((excerpt.end, excerpt.bytes_read), (End::Cap, 4096));
}

#[test]
fn a_line_without_end_is_held_within_its_bound() {
    let mut scanner = Scanner::new(Limits::default());
    let long = vec![b'x'; 1024 * 1024];
    for _ in 0..4 {
        assert!(scanner.feed(&long));
    }
    assert!(scanner.pending.len() <= PENDING_MAX);
    assert!(scanner.feed(b"\nError: boom\n"));
    let excerpt = scanner.finish();
    assert_eq!(excerpt.hunks[0].at, 2);
    assert_eq!(excerpt.hunks[0].lines[0].text.chars().count(), LINE_CHARS);
}

#[test]
fn rendering_keeps_the_error_line_first_and_the_nearest_context() {
    let excerpt = scan(&rust_log(100, 100), Limits::default());
    let whole = excerpt.render(100_000);
    assert_eq!(whole.lines().count(), 15, "{whole}");
    let small = excerpt.render(200);
    assert!(small.len() <= 200, "{}", small.len());
    assert!(
        small.contains("| error[E0432]: unresolved import `shop::orders::Refund`\n"),
        "{small}"
    );
    assert!(small.contains("|  --> src/main.rs:3:5\n"), "{small}");
    // Lines stay in the log's order.
    let numbers: Vec<usize> = small
        .lines()
        .map(|l| l.split('|').next().unwrap().trim().parse().unwrap())
        .collect();
    assert!(numbers.windows(2).all(|w| w[0] < w[1]), "{numbers:?}");
    // A budget below the error line cuts the line itself.
    let tiny = excerpt.render(30);
    assert!(tiny.len() <= 30 && tiny.ends_with("…\n"), "{tiny:?}");
}

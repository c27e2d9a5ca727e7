//! What an error line of a CI log looks like, as data: one row per kind of
//! line, each tried on a line already cleaned of terminal escapes. A row
//! is anchored (the start of the line, or a phrase no ordinary line holds)
//! because logs are full of lines that merely mention errors: a crate
//! named `thiserror` being compiled, `-Werror`, `0 errors`, the runner's
//! cache `WARNING:`s, compiler warnings with their own `-->` lines. The
//! tests hold one line per row and one per look-alike.

/// How much a matching line says about why the job failed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Tier {
    /// What went wrong: a compiler error, a failed assertion, a panic, an
    /// exception.
    Error,
    /// Only that something failed (a test's `FAILED`, a `FAIL` file, a
    /// non-zero exit): the details usually come later in the log.
    Marker,
    /// Only that the job failed (the runner's last line): shown when no
    /// line of the log says more.
    Fallback,
}

/// How a row matches a line (`t` is the line without its leading blanks).
#[derive(Debug, Clone, Copy)]
enum Rule {
    /// `t` starts with this.
    Starts(&'static str),
    /// The line holds this.
    Holds(&'static str),
    /// The line holds both, in this order.
    HoldsBoth(&'static str, &'static str),
    /// `t` starts with a word ending in this, then `:` (`TypeError:`,
    /// `java.lang.IllegalStateException:`).
    WordEnding(&'static str),
    /// The line holds this, then a number other than 0 (`exit code 2`).
    NonZero(&'static str),
}

/// One kind of error line.
#[derive(Debug, Clone, Copy)]
pub struct Pattern {
    /// What the line is, as the answer names it.
    pub name: &'static str,
    pub tier: Tier,
    rule: Rule,
}

const fn error(name: &'static str, rule: Rule) -> Pattern {
    Pattern {
        name,
        tier: Tier::Error,
        rule,
    }
}

const fn marker(name: &'static str, rule: Rule) -> Pattern {
    Pattern {
        name,
        tier: Tier::Marker,
        rule,
    }
}

use Rule::{Holds, HoldsBoth, NonZero, Starts, WordEnding};

/// Every kind of line, tried in order: the runner's own failure line
/// before the generic `ERROR:`.
pub const PATTERNS: &[Pattern] = &[
    Pattern {
        name: "job failed",
        tier: Tier::Fallback,
        rule: Starts("ERROR: Job failed"),
    },
    // rustc and cargo: `error[E0432]: ...`, `error: could not compile`.
    error("compiler error", Starts("error[E")),
    error("compiler error", Starts("error:")),
    // gcc, clang, javac, tsc: `src/x.c:3:5: error: ...`, `a.ts(3,5): error TS2322: ...`.
    error("compiler error", Holds(": error: ")),
    error("compiler error", Holds("): error TS")),
    error("panic", HoldsBoth("thread '", "' panicked at")),
    error("panic", Starts("panic: ")),
    marker("failed test", Holds(" ... FAILED")),
    marker("failed test", Starts("--- FAIL: ")),
    marker("failed test", Starts("FAILED ")),
    marker("failed test", Starts("FAIL ")),
    marker("failed test", Starts("✕ ")),
    // Jest's failure details (`● describe › test`), not its `● Console`.
    error("failed test", HoldsBoth("● ", " › ")),
    error("failed assertion", Holds("AssertionError")),
    error("failed assertion", Starts("assertion failed")),
    error("traceback", Starts("Traceback (most recent call last):")),
    error("exception", WordEnding("Error")),
    error("exception", WordEnding("Exception")),
    error("error", Starts("Error:")),
    error("error", Starts("ERROR:")),
    error("error", Starts("fatal:")),
    error("error", Starts("FATAL:")),
    marker("npm error", Starts("npm ERR!")),
    marker("npm error", Starts("npm error ")),
    marker("make error", HoldsBoth("*** [", "] Error ")),
    marker("non-zero exit", NonZero("exit code ")),
    marker("non-zero exit", NonZero("exit status ")),
    marker("non-zero exit", NonZero("exited with code ")),
];

/// Lines a row would take that say nothing about why the job failed: the
/// runner's artifact uploader when a path matched no file (the job had
/// already failed, or it would not upload "on failure").
const NOT_ERRORS: &[Rule] = &[Starts("ERROR: No files to upload")];

/// The first row `line` matches, if any.
pub fn matching(line: &str) -> Option<&'static Pattern> {
    let trimmed = line.trim_start();
    if NOT_ERRORS.iter().any(|rule| rule.matches(line, trimmed)) {
        return None;
    }
    PATTERNS.iter().find(|p| p.rule.matches(line, trimmed))
}

impl Rule {
    fn matches(self, line: &str, t: &str) -> bool {
        match self {
            Rule::Starts(start) => t.starts_with(start),
            Rule::Holds(phrase) => line.contains(phrase),
            Rule::HoldsBoth(first, then) => line
                .find(first)
                .is_some_and(|at| line[at + first.len()..].contains(then)),
            Rule::WordEnding(end) => t.split_once(':').is_some_and(|(word, _)| {
                word.len() > end.len()
                    && word.ends_with(end)
                    && word
                        .chars()
                        .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '$'))
            }),
            Rule::NonZero(phrase) => line.match_indices(phrase).any(|(at, _)| {
                let digits: String = line[at + phrase.len()..]
                    .chars()
                    .take_while(char::is_ascii_digit)
                    .collect();
                digits.parse::<u32>().is_ok_and(|code| code != 0)
            }),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What each line is taken for: a pattern's name and tier, or nothing.
    fn check(cases: &[(&str, Option<(&str, Tier)>)]) {
        for (line, expected) in cases {
            let found = matching(line).map(|p| (p.name, p.tier));
            assert_eq!(found, *expected, "{line:?}");
        }
    }

    #[test]
    fn every_row_finds_its_line() {
        use Tier::{Error, Fallback, Marker};
        check(&[
            (
                "ERROR: Job failed: exit code 1",
                Some(("job failed", Fallback)),
            ),
            (
                "error[E0432]: unresolved import `shop::orders::Refund`",
                Some(("compiler error", Error)),
            ),
            (
                "error: could not compile `shop` (lib) due to 1 previous error",
                Some(("compiler error", Error)),
            ),
            (
                "src/cart.c:12:5: error: expected ';' before '}' token",
                Some(("compiler error", Error)),
            ),
            (
                "src/checkout.ts(14,7): error TS2322: Type 'string' is not assignable to type 'number'.",
                Some(("compiler error", Error)),
            ),
            (
                "thread 'orders::tests::refund' panicked at src/lib.rs:10:5:",
                Some(("panic", Error)),
            ),
            (
                "panic: runtime error: index out of range",
                Some(("panic", Error)),
            ),
            (
                "test orders::tests::refund_rounds_half_even ... FAILED",
                Some(("failed test", Marker)),
            ),
            (
                "--- FAIL: TestRefund (0.00s)",
                Some(("failed test", Marker)),
            ),
            (
                "FAILED tests/test_orders.py::test_refund - assert 1049 == 1050",
                Some(("failed test", Marker)),
            ),
            (" FAIL  src/x.test.ts", Some(("failed test", Marker))),
            (
                "  ● checkout › applies free shipping after the discount",
                Some(("failed test", Error)),
            ),
            (
                "      ✕ applies free shipping after the discount (3 ms)",
                Some(("failed test", Marker)),
            ),
            (
                "E       AssertionError: assert 1049 == 1050",
                Some(("failed assertion", Error)),
            ),
            (
                "assertion failed: `(left == right)`",
                Some(("failed assertion", Error)),
            ),
            (
                "Traceback (most recent call last):",
                Some(("traceback", Error)),
            ),
            (
                "TypeError: Cannot read properties of undefined (reading 'total')",
                Some(("exception", Error)),
            ),
            (
                "java.lang.IllegalStateException: no carrier for zone 7",
                Some(("exception", Error)),
            ),
            (
                "Error: Cannot find module './discounts'",
                Some(("error", Error)),
            ),
            (
                "ERROR: Preparation failed: no space left",
                Some(("error", Error)),
            ),
            (
                "fatal: couldn't find remote ref feature/x",
                Some(("error", Error)),
            ),
            ("npm ERR! code ELIFECYCLE", Some(("npm error", Marker))),
            ("npm error code 1", Some(("npm error", Marker))),
            (
                "make: *** [Makefile:12: test] Error 2",
                Some(("make error", Marker)),
            ),
            (
                "error Command failed with exit code 1.",
                Some(("non-zero exit", Marker)),
            ),
            (
                "Process exited with code 137",
                Some(("non-zero exit", Marker)),
            ),
        ]);
    }

    #[test]
    fn look_alikes_are_not_errors() {
        check(&[
            ("   Compiling thiserror v2.0.0", None),
            ("  Downloaded thiserror-impl v2.0.12", None),
            ("warning: unused variable: `total`", None),
            ("  --> src/main.rs:3:9", None),
            ("   = note: `#[warn(unused_variables)]` on by default", None),
            ("WARNING: Cache file does not exist", None),
            ("WARNING: Failed to extract cache", None),
            (
                "WARNING: tests/report.xml: no matching files. Ensure that the artifact path is relative to the working directory",
                None,
            ),
            ("test orders::tests::refund_whole ... ok", None),
            ("test result: ok. 12 passed; 0 failed; 0 ignored", None),
            (
                "     Running tests/errors.rs (target/debug/deps/errors-1a2b)",
                None,
            ),
            ("cc -Werror -Wall -c src/cart.c", None),
            ("0 errors, 3 warnings", None),
            ("error_count: 0", None),
            ("Errors: none", None),
            (
                "npm warn deprecated inflight@1.0.6: This module is not supported",
                None,
            ),
            (
                "Cleaning up project directory and file based variables",
                None,
            ),
            ("Process exited with code 0", None),
            ("ErrorKind::NotFound is handled", None),
            (" PASS  test/cart.test.ts", None),
            ("  ● Console", None),
            ("ERROR: No files to upload                         ", None),
        ]);
    }
}

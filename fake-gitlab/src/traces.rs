//! Job logs as GitLab Runner writes them, made line by line on request
//! (deterministic: the same `Trace` always gives the same bytes), so a log
//! of any length is served as a stream without being held whole.
//!
//! A trace has the runner's shape (docs:
//! https://docs.gitlab.com/ci/jobs/job_logs/#custom-collapsible-sections):
//! colour escapes, and each stage of the job between
//! `ESC[0Ksection_start:<unix time>:<name>\r ESC[0K` and
//! `section_end:<unix time>:<name>\r ESC[0K` markers (the runner's
//! `helpers/trace/section.go`), a user section with `[collapsed=true]`,
//! the runner's cache `WARNING:`s. Then the job's own output: thousands of
//! ordinary lines (among them look-alikes: a crate named `thiserror` being
//! compiled, compiler warnings with their `-->` lines), the error in the
//! middle, then thousands of lines of `after_script` output (a service's
//! logs) and the artifact upload's warnings before the runner's last line,
//! `ERROR: Job failed: exit code N`: the tail of such a log does not show
//! the error.

/// One job's log.
#[derive(Debug, Clone, PartialEq)]
pub struct Trace {
    pub story: Story,
    /// Ordinary lines of the job's output before the error.
    pub before: usize,
    /// Lines of `after_script` output after it.
    pub after: usize,
}

/// What the job ran, and how it failed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Story {
    /// `cargo clippy`: an unresolved import (`error[E0432]` and its
    /// `--> src/checkout.rs:3:5`).
    RustCompile,
    /// `cargo test`: one test `FAILED` near the end of the run list, its
    /// panic in the `failures:` section.
    RustTest,
    /// A Python migration script's traceback.
    PythonTraceback,
    /// A docs build's `Error: Cannot find module`.
    NodeError,
}

/// The runner's clock at the job's start.
const T0: u64 = 1_772_443_740;

impl Trace {
    pub fn new(story: Story, before: usize, after: usize) -> Self {
        Trace {
            story,
            before,
            after,
        }
    }

    /// The lines, each with its `\n`, made as they are read.
    pub fn lines(&self) -> Lines {
        Lines {
            trace: self.clone(),
            head: head(self.story),
            error: [error_block(self.story), after_script_start()].concat(),
            tail: tail(self.story),
            at: 0,
        }
    }

    /// The whole log (tests, and the sandbox's stored logs).
    pub fn text(&self) -> String {
        self.lines().collect()
    }

    /// The 1-based line number of the error line in the raw log.
    pub fn error_line(&self) -> usize {
        head(self.story).len() + self.before + 1 + error_offset(self.story)
    }
}

/// The trace's lines in order: head, `before` ordinary lines, the error
/// block, `after` lines of after_script output, tail.
pub struct Lines {
    trace: Trace,
    head: Vec<String>,
    error: Vec<String>,
    tail: Vec<String>,
    at: usize,
}

impl Iterator for Lines {
    type Item = String;

    fn next(&mut self) -> Option<String> {
        let i = self.at;
        self.at += 1;
        let (before, after) = (self.trace.before, self.trace.after);
        let mut j = i;
        if j < self.head.len() {
            return Some(self.head[j].clone());
        }
        j -= self.head.len();
        if j < before {
            return Some(ordinary(self.trace.story, j, before));
        }
        j -= before;
        if j < self.error.len() {
            return Some(self.error[j].clone());
        }
        j -= self.error.len();
        if j < after {
            return Some(service_log(j));
        }
        j -= after;
        self.tail.get(j).cloned()
    }
}

fn section_start(t: u64, name: &str, title: &str) -> String {
    format!("\x1b[0Ksection_start:{t}:{name}\r\x1b[0K\x1b[0K\x1b[36;1m{title}\x1b[0;m\n")
}

fn section_end(t: u64, name: &str) -> String {
    format!("\x1b[0Ksection_end:{t}:{name}\r\x1b[0K\n")
}

/// The command each story runs.
fn command(story: Story) -> &'static str {
    match story {
        Story::RustCompile => "cargo clippy --all-targets --locked -- -D warnings",
        Story::RustTest => "cargo test --workspace --locked",
        Story::PythonTraceback => "python scripts/migrate.py --database \"$DATABASE_URL\"",
        Story::NodeError => "npm run docs",
    }
}

/// The runner's preamble, up to the job's command.
fn head(story: Story) -> Vec<String> {
    let image = match story {
        Story::RustCompile | Story::RustTest => "rust:1.91",
        Story::PythonTraceback => "python:3.13-slim",
        Story::NodeError => "node:22-alpine",
    };
    let mut out = vec![
        "\x1b[0KRunning with gitlab-runner 18.6.2 (b1c2d3e4)\x1b[0;m\n".to_string(),
        "\x1b[0K  on shared-runner-4 t3_QwErTy, system ID: s_5f6e7d8c9b0a\x1b[0;m\n".to_string(),
        section_start(T0, "prepare_executor", "Preparing the \"docker\" executor"),
        format!("\x1b[0KUsing Docker executor with image {image} ...\x1b[0;m\n"),
        format!("\x1b[0KPulling docker image {image} ...\x1b[0;m\n"),
        section_end(T0 + 4, "prepare_executor"),
        section_start(T0 + 4, "get_sources", "Getting source from Git repository"),
        "\x1b[32;1mFetching changes with git depth set to 20...\x1b[0;m\n".to_string(),
        "Initialized empty Git repository in /builds/acme/website/.git/\n".to_string(),
        "\x1b[32;1mChecking out 5d3c1f2a as detached HEAD (ref is main)...\x1b[0;m\n".to_string(),
        section_end(T0 + 6, "get_sources"),
        section_start(T0 + 6, "restore_cache", "Restoring cache"),
        "\x1b[32;1mChecking cache for main-protected...\x1b[0;m\n".to_string(),
        "\x1b[0;33mWARNING: file does not exist                      \x1b[0;m\n".to_string(),
        "\x1b[0;33mWARNING: Failed to extract cache\x1b[0;m\n".to_string(),
        section_end(T0 + 7, "restore_cache"),
        section_start(
            T0 + 7,
            "step_script",
            "Executing \"step_script\" stage of the job script",
        ),
        format!(
            "\x1b[0Ksection_start:{}:install_deps[collapsed=true]\r\x1b[0KInstalling dependencies\n",
            T0 + 8
        ),
        "\x1b[32;1m$ ./ci/install-deps.sh\x1b[0;m\n".to_string(),
        format!("\x1b[0Ksection_end:{}:install_deps\r\x1b[0K\n", T0 + 20),
        format!("\x1b[32;1m$ {}\x1b[0;m\n", command(story)),
    ];
    if story == Story::RustCompile {
        // Look-alikes before the error: a crate named like an error, and a
        // warning with its own location line.
        out.push("\x1b[0m\x1b[1m\x1b[32m   Compiling\x1b[0m thiserror v2.0.12\n".into());
        out.push(
            "\x1b[0m\x1b[1m\x1b[33mwarning\x1b[0m\x1b[1m: unused variable: `total`\x1b[0m\n".into(),
        );
        out.push(
            "\x1b[0m  \x1b[0m\x1b[0m\x1b[1m\x1b[38;5;12m--> \x1b[0m\x1b[0msrc/cart.rs:9:9\x1b[0m\n"
                .into(),
        );
        out.push("   |\n".into());
        out.push("9  |     let total = 0;\n".into());
        out.push("   |         ^^^^^ help: if this is intentional, prefix it with an underscore: `_total`\n".into());
        out.push("\n".into());
    }
    out
}

const CRATES: &[&str] = &[
    "serde",
    "serde_json",
    "tokio",
    "hyper",
    "axum",
    "tower",
    "bytes",
    "tracing",
    "regex",
    "thiserror-impl",
    "anyhow",
    "rand",
    "chrono",
    "uuid",
    "sqlx",
    "url",
    "itoa",
    "memchr",
];

/// The `n`th of `count` ordinary lines of the job's output.
fn ordinary(story: Story, n: usize, count: usize) -> String {
    match story {
        Story::RustCompile => format!(
            "\x1b[0m\x1b[1m\x1b[32m    Checking\x1b[0m {}-{} v0.{}.{}\n",
            CRATES[n % CRATES.len()],
            n / CRATES.len(),
            n % 7,
            n % 13
        ),
        Story::RustTest if n + 20 == count => {
            "test orders::tests::refund_rounds_half_even ... \x1b[31mFAILED\x1b[0m\n".into()
        }
        Story::RustTest => format!(
            "test {}::tests::case_{n} ... \x1b[32mok\x1b[0m\n",
            ["cart", "orders", "checkout", "catalog", "shipping"][n % 5]
        ),
        Story::PythonTraceback => format!(
            "INFO  [alembic.runtime.migration] Running upgrade {:04} -> {:04}, backfill orders batch {n}\n",
            n,
            n + 1
        ),
        Story::NodeError => format!(
            "[docs] rendered pages/guide/section-{n}.md ({} ms)\n",
            3 + n % 17
        ),
    }
}

/// The lines of the error, the error line itself at `error_offset`.
fn error_block(story: Story) -> Vec<String> {
    let lines: &[&str] = match story {
        Story::RustCompile => &[
            "\x1b[0m\x1b[1m\x1b[38;5;9merror[E0432]\x1b[0m\x1b[0m\x1b[1m: unresolved import `crate::orders::Refund`\x1b[0m",
            "\x1b[0m \x1b[0m\x1b[0m\x1b[1m\x1b[38;5;12m--> \x1b[0m\x1b[0msrc/checkout.rs:3:5\x1b[0m",
            "  |",
            "3 | use crate::orders::Refund;",
            "  |     ^^^^^^^^^^^^^^^^^^^^^ no `Refund` in `orders`",
            "",
            "For more information about this error, try `rustc --explain E0432`.",
            "\x1b[0m\x1b[1m\x1b[38;5;9merror\x1b[0m\x1b[0m\x1b[1m: could not compile `website` (lib) due to 1 previous error\x1b[0m",
        ],
        Story::RustTest => &[
            "",
            "failures:",
            "",
            "---- orders::tests::refund_rounds_half_even stdout ----",
            "",
            "thread 'orders::tests::refund_rounds_half_even' panicked at src/orders.rs:88:9:",
            "assertion `left == right` failed",
            "  left: 1049",
            " right: 1050",
            "note: run with `RUST_BACKTRACE=1` environment variable to display a backtrace",
            "",
            "failures:",
            "    orders::tests::refund_rounds_half_even",
            "",
            "test result: FAILED. 1 failed; 0 ignored; 0 measured",
            "",
            "error: test failed, to rerun pass `--lib`",
        ],
        Story::PythonTraceback => &[
            "Traceback (most recent call last):",
            "  File \"/builds/acme/website/scripts/migrate.py\", line 42, in <module>",
            "    main()",
            "  File \"/builds/acme/website/scripts/migrate.py\", line 37, in main",
            "    apply(conn, step)",
            "  File \"/builds/acme/website/scripts/migrate.py\", line 21, in apply",
            "    conn.execute(step.sql)",
            "psycopg.errors.UndefinedTable: relation \"refunds\" does not exist",
            "LINE 1: ALTER TABLE refunds ADD COLUMN reason text",
        ],
        Story::NodeError => &[
            "Error: Cannot find module './theme/navbar'",
            "Require stack:",
            "- /builds/acme/website/docs/.vitepress/config.js",
            "    at Module._resolveFilename (node:internal/modules/cjs/loader:1225:15)",
            "    at Module._load (node:internal/modules/cjs/loader:1051:27)",
            "npm error code 1",
        ],
    };
    lines.iter().map(|l| format!("{l}\n")).collect()
}

/// Where in `error_block` the first error line is.
fn error_offset(story: Story) -> usize {
    match story {
        Story::RustTest => 5,
        _ => 0,
    }
}

/// The `n`th line of the `after_script` output: a service's log.
fn service_log(n: usize) -> String {
    let (h, m, s) = (9 + n / 3600 % 10, n / 60 % 60, n % 60);
    match n % 4 {
        0 => format!(
            "postgres-1  | 2026-03-02 {h:02}:{m:02}:{s:02}.{:03} UTC [{}] LOG:  checkpoint starting: time\n",
            n % 1000,
            60 + n % 5
        ),
        1 => format!(
            "postgres-1  | 2026-03-02 {h:02}:{m:02}:{s:02}.{:03} UTC [{}] LOG:  checkpoint complete: wrote {} buffers\n",
            n % 1000,
            60 + n % 5,
            n % 97
        ),
        2 => format!(
            "redis-1     | 1:M 02 Mar 2026 {h:02}:{m:02}:{s:02}.{:03} * 100 changes in 300 seconds. Saving...\n",
            n % 1000
        ),
        _ => format!(
            "redis-1     | 1:M 02 Mar 2026 {h:02}:{m:02}:{s:02}.{:03} * Background saving terminated with success\n",
            n % 1000
        ),
    }
}

/// After the error: the end of the script and the start of after_script,
/// whose output (`service_log`) follows.
fn after_script_start() -> Vec<String> {
    let t = T0 + 300;
    vec![
        section_end(t, "step_script"),
        section_start(t, "after_script", "Running after_script"),
        "\x1b[32;1mRunning after script...\x1b[0;m\n".into(),
        "\x1b[32;1m$ docker compose logs --no-color --tail=all\x1b[0;m\n".into(),
    ]
}

/// After the service logs: the end of after_script, the artifacts, the
/// runner's last line.
fn tail(story: Story) -> Vec<String> {
    let exit = match story {
        Story::RustCompile | Story::RustTest => 101,
        Story::PythonTraceback | Story::NodeError => 1,
    };
    let t = T0 + 300;
    vec![
        section_end(t + 40, "after_script"),
        section_start(t + 40, "upload_artifacts_on_failure", "Uploading artifacts for failed job"),
        "\x1b[32;1mUploading artifacts...\x1b[0;m\n".into(),
        "\x1b[0;33mWARNING: target/junit.xml: no matching files. Ensure that the artifact path is relative to the working directory (/builds/acme/website)\x1b[0;m \n".into(),
        "\x1b[31;1mERROR: No files to upload                         \x1b[0;m \n".into(),
        section_end(t + 41, "upload_artifacts_on_failure"),
        section_start(t + 41, "cleanup_file_variables", "Cleaning up project directory and file based variables"),
        section_end(t + 42, "cleanup_file_variables"),
        format!("\x1b[31;1mERROR: Job failed: exit code {exit}\n"),
        "\x1b[0;m\n".into(),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_trace_is_long_its_error_in_the_middle_and_the_same_every_time() {
        let trace = Trace::new(Story::RustCompile, 1_500, 4_000);
        let text = trace.text();
        assert_eq!(text, trace.text());
        let lines: Vec<&str> = text.lines().collect();
        assert!(lines.len() > 5_000, "{}", lines.len());
        let error = trace.error_line();
        assert!(
            lines[error - 1].contains("error[E0432]"),
            "{}",
            lines[error - 1]
        );
        assert!(lines[error].contains("src/checkout.rs:3:5"));
        assert!(error > 1_000 && lines.len() - error > 4_000);
        assert!(text.contains("section_start:") && text.contains('\x1b'));
        assert!(lines[lines.len() - 2].ends_with("ERROR: Job failed: exit code 101"));
        let after_script = lines
            .iter()
            .position(|l| l.contains("Running after script"))
            .unwrap();
        assert!(lines[after_script + 2].starts_with("postgres-1  |"));
        for story in [Story::RustTest, Story::PythonTraceback, Story::NodeError] {
            let trace = Trace::new(story, 50, 50);
            let text = trace.text();
            let line = text.lines().nth(trace.error_line() - 1).unwrap();
            assert!(
                ["panicked at", "Traceback", "Error: "]
                    .iter()
                    .any(|w| line.contains(w)),
                "{story:?}: {line}"
            );
        }
    }
}

//! The MCP conformance suite (`@modelcontextprotocol/conformance`, pinned in
//! tests/conformance/) against `serve --http`, through
//! scripts/conformance.sh, which installs it into .tools/conformance/ the
//! first time (about 10 s and 240 MB: the suite and the Node 22 it needs).
//!
//! The whole active suite runs against both modes with the committed
//! baseline (tests/conformance/baseline.yml: the scenarios that exercise
//! the suite's demo tools, resources and prompts, and the capabilities the
//! server does not offer), and the 2026-07-28 scenarios that need no demo
//! fixture one by one. The suite's exit code
//! fails the test on any failure outside the baseline, and on any baseline
//! entry that passes; on top of it, each required scenario must have
//! passing checks and no failure or warning in its own results.

use crate::common;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Output;
use std::time::Duration;

use common::http::HttpServer;
use fake_gitlab::FakeGitLab;
use serde_json::Value;

/// Must pass in both modes.
const REQUIRED: [&str; 6] = [
    "server-initialize",
    "ping",
    "tools-list",
    "prompts-list",
    "resources-list",
    "dns-rebinding-protection",
];
/// Must pass with --stateful. Stateless, there is no session id to open a
/// second stream with: the suite only warns, which a baseline run counts
/// as a failure, so the stateless run expects it to fail.
const SESSIONS: &str = "server-sse-multiple-streams";
/// Must pass with --stateful; stateless the suite skips it (no session).
const SESSION_LIFECYCLE: &str = "server-session-lifecycle";
/// 2026-07-28 scenarios outside the active suite that need none of the
/// suite's demo fixtures, run one by one, and required in both modes: an
/// unknown resource is -32002 with its uri (SEP-2164), the lists' caching
/// hints (SEP-2549), and the HTTP headers.
const MODERN: [&str; 3] = [
    "sep-2164-resource-not-found",
    "caching",
    "http-header-validation",
];
/// The only checks of `MODERN` the suite may skip: it reads the first
/// resource `resources/list` names, and ours names none (templates only);
/// a read's hints are asserted in tests/it/resources.rs.
const SKIPPED: [&str; 1] = ["sep-2549-resources-read-caching-hints"];

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn baseline() -> PathBuf {
    root().join("tests/conformance/baseline.yml")
}

/// Each scenario's checks: (check id, status).
type Results = BTreeMap<String, Vec<(String, String)>>;

struct Run {
    output: Output,
    results: Results,
}

impl Run {
    fn text(&self) -> String {
        strip_ansi(&format!(
            "{}{}",
            String::from_utf8_lossy(&self.output.stdout),
            String::from_utf8_lossy(&self.output.stderr)
        ))
    }

    /// A scenario passed: some checks succeeded, none failed or warned.
    fn passed(&self, scenario: &str) -> bool {
        self.results.get(scenario).is_some_and(|checks| {
            checks.iter().any(|(_, s)| s == "SUCCESS")
                && checks.iter().all(|(_, s)| s == "SUCCESS" || s == "INFO")
        })
    }

    /// A scenario passed but for checks the suite skipped, each named.
    fn passed_skipping(&self, scenario: &str, skipped: &[&str]) -> bool {
        self.results.get(scenario).is_some_and(|checks| {
            checks.iter().any(|(_, s)| s == "SUCCESS")
                && checks.iter().all(|(id, s)| {
                    s == "SUCCESS" || s == "INFO" || (s == "SKIPPED" && skipped.contains(&&**id))
                })
        })
    }

    fn statuses(&self, scenario: &str) -> String {
        match self.results.get(scenario) {
            Some(checks) => checks
                .iter()
                .map(|(id, s)| format!("{id}={s}"))
                .collect::<Vec<_>>()
                .join(" "),
            None => "(not run)".into(),
        }
    }
}

fn strip_ansi(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        if c == '\x1b' {
            for c in chars.by_ref() {
                if c.is_ascii_alphabetic() {
                    break;
                }
            }
        } else {
            out.push(c);
        }
    }
    out
}

/// Runs scripts/conformance.sh against `url`, its results in a fresh
/// directory named `name`.
async fn suite(name: &str, url: &str, args: &[&str]) -> Run {
    let out = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!("conformance-{name}"));
    let _ = std::fs::remove_dir_all(&out);
    let output = tokio::process::Command::new("bash")
        .arg(root().join("scripts/conformance.sh"))
        .arg(url)
        .args(args)
        .arg("-o")
        .arg(&out)
        .kill_on_drop(true)
        .output();
    let output = tokio::time::timeout(Duration::from_secs(600), output)
        .await
        .expect("the suite (and its first install) ends within 10 minutes")
        .expect("bash runs scripts/conformance.sh");
    let results = read_results(&out);
    Run { output, results }
}

/// `DIR/server-<scenario>-<timestamp>/checks.json`, by scenario.
fn read_results(dir: &Path) -> Results {
    let mut results = Results::new();
    let Ok(entries) = std::fs::read_dir(dir) else {
        return results;
    };
    for entry in entries.flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        let Some(rest) = name.strip_prefix("server-") else {
            continue;
        };
        // The timestamp is the last six dash-separated parts: 2026-12-01T09-43-08-156Z.
        let parts: Vec<&str> = rest.split('-').collect();
        if parts.len() < 7 {
            continue;
        }
        let scenario = parts[..parts.len() - 6].join("-");
        let Ok(text) = std::fs::read_to_string(entry.path().join("checks.json")) else {
            continue;
        };
        let checks: Value = serde_json::from_str(&text).expect("checks.json is JSON");
        let list = checks
            .as_array()
            .expect("checks.json is an array")
            .iter()
            .map(|c| {
                (
                    c["id"].as_str().unwrap_or("?").to_string(),
                    c["status"].as_str().unwrap_or("?").to_string(),
                )
            })
            .collect();
        results.insert(scenario, list);
    }
    results
}

/// The committed baseline plus the one scenario a stateless server cannot pass.
fn stateless_baseline() -> PathBuf {
    let path =
        PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("conformance-baseline-stateless.yml");
    let mut text = std::fs::read_to_string(baseline()).unwrap();
    text.push_str(&format!(
        "  - {SESSIONS} # stateless: no session id, so the suite only warns\n"
    ));
    std::fs::write(&path, text).unwrap();
    path
}

#[tokio::test]
async fn required_scenarios_pass_in_both_modes_and_the_rest_is_the_baseline() {
    let fake = FakeGitLab::start().await;
    let env = [("GITLAB_TOKEN", common::TOKEN)];
    let stateless = HttpServer::start(&fake, &env, &[]).await;
    let stateful = HttpServer::start(&fake, &env, &["--stateful"]).await;
    let stateless_baseline = stateless_baseline();

    // One after the other: the first may install the suite.
    let runs = [
        (
            "stateless",
            suite(
                "stateless",
                &stateless.mcp_url(),
                &["--expected-failures", stateless_baseline.to_str().unwrap()],
            )
            .await,
        ),
        (
            "stateful",
            suite(
                "stateful",
                &stateful.mcp_url(),
                &["--expected-failures", baseline().to_str().unwrap()],
            )
            .await,
        ),
    ];

    let mut table = String::new();
    let scenarios: std::collections::BTreeSet<&String> =
        runs.iter().flat_map(|(_, r)| r.results.keys()).collect();
    for scenario in scenarios {
        table.push_str(scenario);
        for (mode, run) in &runs {
            table.push_str(&format!("\n    {mode}: {}", run.statuses(scenario)));
        }
        table.push('\n');
    }
    eprintln!("{table}");

    for (mode, run) in &runs {
        assert!(
            run.output.status.success(),
            "{mode}: the suite failed outside the baseline (or a baseline entry passed):\n{}",
            run.text()
        );
        assert!(
            run.results.len() >= 30,
            "{mode}: the active suite ran {} scenarios:\n{}",
            run.results.len(),
            run.text()
        );
        for scenario in REQUIRED {
            assert!(
                run.passed(scenario),
                "{mode}: {scenario} gave {}\n{}",
                run.statuses(scenario),
                run.text()
            );
        }
    }
    let (_, stateless_run) = &runs[0];
    let (_, stateful_run) = &runs[1];
    for scenario in [SESSIONS, SESSION_LIFECYCLE] {
        assert!(
            stateful_run.passed(scenario),
            "stateful: {scenario} gave {}\n{}",
            stateful_run.statuses(scenario),
            stateful_run.text()
        );
    }
    assert!(
        !stateless_run.passed(SESSIONS),
        "stateless now passes {SESSIONS}: test it there too"
    );
}

#[tokio::test]
async fn the_2026_07_28_scenarios_without_demo_fixtures_pass_in_both_modes() {
    let fake = FakeGitLab::start().await;
    let env = [("GITLAB_TOKEN", common::TOKEN)];
    let stateless = HttpServer::start(&fake, &env, &[]).await;
    let stateful = HttpServer::start(&fake, &env, &["--stateful"]).await;
    for (mode, server) in [("stateless", &stateless), ("stateful", &stateful)] {
        for scenario in MODERN {
            let run = suite(
                &format!("{mode}-{scenario}"),
                &server.mcp_url(),
                &["--scenario", scenario],
            )
            .await;
            assert!(
                run.output.status.success() && run.passed_skipping(scenario, &SKIPPED),
                "{mode}: {scenario} gave {}\n{}",
                run.statuses(scenario),
                run.text()
            );
        }
    }
}

/// The test above could not fail if the suite passed anything: pointed at
/// an address that is no MCP server, a required scenario fails the run.
#[tokio::test]
async fn the_suite_fails_a_server_that_is_not_mcp() {
    let fake = FakeGitLab::start().await;
    let run = suite(
        "not-mcp",
        &format!("{}/mcp", fake.url()),
        &[
            "--expected-failures",
            baseline().to_str().unwrap(),
            "--scenario",
            "server-initialize",
        ],
    )
    .await;
    assert!(!run.output.status.success(), "{}", run.text());
    assert!(!run.passed("server-initialize"), "{}", run.text());
    assert!(run.text().contains("Unexpected failures"), "{}", run.text());
}

/// Every baseline entry says why, and no required scenario is excused.
#[test]
fn the_baseline_gives_a_reason_for_each_entry_and_excuses_no_required_scenario() {
    let text = std::fs::read_to_string(baseline()).unwrap();
    let mut entries = 0;
    for line in text.lines() {
        let Some(entry) = line.trim_start().strip_prefix("- ") else {
            continue;
        };
        let (name, reason) = entry
            .split_once(" # ")
            .unwrap_or_else(|| panic!("no `# reason` on: {line}"));
        let name = name.trim();
        assert!(
            reason.trim().len() > 10,
            "{name}: the reason is too short: {reason:?}"
        );
        assert!(
            !REQUIRED.contains(&name) && !MODERN.contains(&name),
            "{name} must pass: it cannot be in the baseline"
        );
        for stateful in [SESSIONS, SESSION_LIFECYCLE] {
            assert_ne!(
                name, stateful,
                "{name} must pass: it cannot be in the baseline"
            );
        }
        entries += 1;
    }
    assert!(entries > 0, "the baseline lists no scenario");
}

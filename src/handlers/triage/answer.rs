//! The triage's answer within its byte budget (`max_bytes`), divided
//! fairly, in two steps around the reading of the logs:
//!
//! 1. `plan`, before any log is read: the pipeline's facts and the failed
//!    tests take what they need (the tests at most a quarter); one heading
//!    line per failed job (at most half of the room, and no more than
//!    leave room for one log and the notes of the others; the other jobs
//!    are counted);
//!    the room left is shared equally among as many failed jobs' logs as
//!    get `MIN_SHARE` each (at most `MAX_LOGS`), the jobs that must pass
//!    first. A job whose log is not read costs one note after the frame,
//!    with the exact call that reads it, and that note's room is taken
//!    before the shares.
//! 2. `write`, once the excerpts are in: each fitted in its share.
//!
//! Everything GitLab sent (names, log lines, test output) is inside the
//! `⟦`…`⟧` frame; the notes after it carry only ids and calls.

use std::fmt::Write as _;

use serde_json::{Value, json};

use super::jobs::{FailedJob, Jobs};
use super::pipeline::Pipeline;
use super::test_cases::Tests;
use crate::render::log_scan::{End, Excerpt, Found, Limits};
use crate::render::untrusted::{self, FRAME_ROOM};

/// The least room worth reading a log for.
pub const MIN_SHARE: usize = 320;
/// Logs read at most, whatever the room.
pub const MAX_LOGS: usize = 6;
/// Characters of a failed test's output shown.
const OUTPUT_CHARS: usize = 220;

/// What the triage found before reading the logs.
pub struct Triage<'a> {
    pub pipeline: &'a Pipeline,
    pub jobs: &'a Jobs,
    pub tests: &'a Tests,
}

/// How the budget is spent.
#[derive(Debug, PartialEq)]
pub struct Plan {
    /// The pipeline's facts, and the tests section already fitted.
    header: String,
    tests: String,
    /// Failed jobs given a heading (the first ones); the rest are counted.
    pub headed: usize,
    /// Indexes (into `Jobs::failed`) of the jobs whose logs are read.
    pub read: Vec<usize>,
    /// Bytes for each log's excerpt.
    pub share: usize,
    /// Indexes of headed jobs with a log not read for room.
    pub unread: Vec<usize>,
}

pub fn plan(triage: &Triage, cap: usize) -> Plan {
    let header = header(triage);
    let tests = tests_section(triage.tests, cap / 4);
    let failed = &triage.jobs.failed;
    let tests_gap = usize::from(!tests.is_empty());
    let fixed = FRAME_ROOM + header.len() + tests_gap + tests.len();
    let room = cap.saturating_sub(fixed);

    // Headings within half the room, and no more than leave room for one
    // log besides the notes of the others: however many jobs failed, the
    // notes never crowd the answer out.
    let note = |job: &FailedJob| not_read_note(job).len() + 1;
    let intro = not_read_intro(cap).len() + 1;
    let (mut headed, mut headings, mut one_log, mut notes) = (0, 0, 0, 0);
    for job in failed {
        let headings_then = headings + heading(job).len();
        let (one_log_then, notes_then) = match (job.trigger, one_log) {
            (true, _) => (one_log, notes),
            (false, 0) => (MIN_SHARE, notes),
            (false, _) => (one_log, notes.max(intro) + note(job)),
        };
        if headings_then + MORE_LINE > room / 2
            || headings_then + MORE_LINE + one_log_then + notes_then > room
        {
            break;
        }
        (headings, one_log, notes) = (headings_then, one_log_then, notes_then);
        headed += 1;
    }
    let mut used = headings;
    if headed < failed.len() {
        used += MORE_LINE;
    }
    // A header past the budget (long names of many downstream pipelines)
    // leaves nothing, and `write` cuts it.
    let room = room.saturating_sub(used);

    // As many logs as get their minimum share, the notes of the others
    // paid for first.
    let readable: Vec<usize> = (0..headed).filter(|&i| !failed[i].trigger).collect();
    let mut count = readable.len().min(MAX_LOGS);
    loop {
        let unread = &readable[count..];
        let notes: usize = if unread.is_empty() {
            0
        } else {
            intro + unread.iter().map(|&i| note(&failed[i])).sum::<usize>()
        };
        if count == 0 || count * MIN_SHARE + notes <= room {
            let share = match count {
                0 => 0,
                n => (room - notes) / n,
            };
            return Plan {
                header,
                tests,
                headed,
                read: readable[..count].to_vec(),
                share,
                unread: readable[count..].to_vec(),
            };
        }
        count -= 1;
    }
}

/// Room for the line that counts the failed jobs without a heading.
const MORE_LINE: usize = 100;

/// The answer, once `plan.read`'s logs were read (`logs` in that order:
/// an excerpt, or why the log could not be read).
pub fn write(triage: &Triage, plan: &Plan, logs: &[Result<Excerpt, String>], cap: usize) -> String {
    let failed = &triage.jobs.failed;
    let mut body = plan.header.clone();
    for (i, job) in failed.iter().enumerate().take(plan.headed) {
        body.push_str(&heading(job));
        if let Some(at) = plan.read.iter().position(|&r| r == i) {
            match &logs[at] {
                Ok(excerpt) => body.push_str(&excerpt_block(excerpt, plan.share)),
                Err(why) => {
                    let (why, _) = cut_chars(&format!("  log not read: {why}"), plan.share / 2);
                    body.push_str(&why);
                    body.push('\n');
                }
            }
        }
    }
    let more = failed.len() - plan.headed;
    if more > 0 {
        let _ = writeln!(
            body,
            "… and {more} more failed jobs: action `job_list` with scope [\"failed\"] lists them."
        );
    }
    if !plan.tests.is_empty() {
        body.push('\n');
        body.push_str(&plan.tests);
    }
    let mut notes = String::new();
    if !plan.unread.is_empty() {
        notes = format!("\n{}", not_read_intro(cap));
        for &i in &plan.unread {
            notes.push('\n');
            notes.push_str(&not_read_note(&failed[i]));
        }
    }
    // Escaping shows a hidden character as `[U+XXXX]`, longer than it was:
    // measured after it, and cut if GitLab's text grew past the budget.
    let body = untrusted::escape(&body).into_owned();
    let room = cap.saturating_sub(FRAME_ROOM + notes.len());
    let body = if body.len() > room {
        cut_chars(&body, room.saturating_sub(1)).0 + "\n"
    } else {
        body
    };
    untrusted::frame(&body) + &notes
}

/// Before the notes of the logs not read.
fn not_read_intro(cap: usize) -> String {
    format!("[logs not read, no room left in {cap} bytes; one call each:]")
}

/// `[job 205: {"action":"job_log","params":{"project_id":2,"job_id":205}}]`
fn not_read_note(job: &FailedJob) -> String {
    let project: Value = job
        .project_id()
        .parse::<u64>()
        .map_or_else(|_| json!(job.project_id()), |id| json!(id));
    let call = json!({"action": "job_log", "params": {"project_id": project, "job_id": job.id}});
    format!("[job {}: {call}]", job.id)
}

/// The pipeline, then the counts, the downstream pipelines read and what
/// could not be read.
fn header(triage: &Triage) -> String {
    let p = triage.pipeline;
    let jobs = triage.jobs;
    let mut out = format!("Pipeline {}: {}", p.id, p.status);
    for (label, value) in [("ref", &p.git_ref), ("sha", &p.sha)] {
        if !value.is_empty() {
            let value = if label == "sha" {
                &value[..value.len().min(8)]
            } else {
                value
            };
            let _ = write!(out, " · {label} {value}");
        }
    }
    if !p.web_url.is_empty() {
        let _ = write!(out, " · {}", p.web_url);
    }
    out.push('\n');
    let allowed = jobs.failed.iter().filter(|j| j.allow_failure).count();
    let _ = write!(out, "Failed jobs: {}", jobs.failed.len());
    if allowed > 0 {
        let _ = write!(out, " ({allowed} allowed to fail)");
    }
    let _ = writeln!(
        out,
        " · manual: {} · skipped: {}",
        jobs.manual, jobs.skipped
    );
    for d in &jobs.downstream {
        let kind = if d.pipeline.project == p.project {
            "Child pipeline".to_string()
        } else {
            format!(
                "Downstream pipeline (project {})",
                d.pipeline.project.trim_start_matches("/projects/")
            )
        };
        let _ = writeln!(
            out,
            "{kind} {} from trigger job `{}`: {}",
            d.pipeline.id, d.trigger, d.pipeline.status
        );
    }
    for what in &jobs.unread {
        let _ = writeln!(out, "Not read: {what}");
    }
    out
}

/// `Job 204 `clippy` · stage test · script_failure · allowed to fail · pipeline 2002`
fn heading(job: &FailedJob) -> String {
    let mut out = format!(
        "\n{} {} `{}` · stage {}",
        if job.trigger { "Trigger job" } else { "Job" },
        job.id,
        job.name,
        job.stage
    );
    if let Some(reason) = &job.failure_reason {
        let _ = write!(out, " · {reason}");
    }
    if job.allow_failure {
        out.push_str(" · allowed to fail");
    }
    if job.depth > 0 {
        let _ = write!(out, " · pipeline {}", job.pipeline);
    }
    if job.trigger {
        out.push_str(" · started no pipeline");
    }
    out.push('\n');
    out
}

/// What the excerpt is, then its lines, within `share` bytes.
fn excerpt_block(excerpt: &Excerpt, share: usize) -> String {
    let at = excerpt.hunks.first().map_or(0, |h| h.at);
    let mut label = match excerpt.found {
        Found::Error => format!(
            "  {} at line {at}",
            excerpt.hunks.first().map_or("error", |h| h.what)
        ),
        Found::JobFailed => format!("  no error line; the runner's failure line {at}"),
        Found::Nothing if excerpt.hunks.is_empty() => "  the log is empty".to_string(),
        Found::Nothing => format!("  no error line; the log's last lines read, to {at}"),
    };
    if excerpt.end == End::Cap {
        let _ = write!(
            label,
            " (only the first {} MiB read)",
            Limits::default().max_bytes / (1024 * 1024)
        );
    }
    label.push_str(":\n");
    let lines = excerpt.render(share.saturating_sub(label.len()));
    label + &lines
}

/// The failed tests, within `room`: as many cases as fit, the rest counted.
fn tests_section(tests: &Tests, room: usize) -> String {
    let (total, failed, cases) = match tests {
        Tests::None => return String::new(),
        Tests::Unread(why) => return cut_chars(&format!("Test report not read: {why}\n"), room).0,
        Tests::Counted {
            total,
            failed,
            cases,
        } => (total, failed, cases),
    };
    if *failed == 0 {
        return format!("Test report: {total} tests, none failed.\n");
    }
    let mut out = format!("Failed tests: {failed} of {total}\n");
    let mut shown = 0;
    for case in cases {
        let output: Vec<&str> = case
            .output
            .lines()
            .map(str::trim)
            .filter(|l| !l.is_empty())
            .collect();
        let (output, _) = cut_chars(&output.join(" · "), OUTPUT_CHARS);
        // jest-junit names a case by its class name: said once.
        let class = if case.classname.is_empty() || case.classname == case.name {
            String::new()
        } else {
            format!("{}, ", case.classname)
        };
        let line = format!("- {} ({class}suite {}): {output}\n", case.name, case.suite);
        if out.len() + line.len() + MORE_TESTS > room {
            break;
        }
        out.push_str(&line);
        shown += 1;
    }
    let left = *failed as usize - shown.min(*failed as usize);
    if left > 0 {
        let _ = writeln!(out, "… {left} more: action `test_report` has them.");
    }
    if out.len() > room {
        return cut_chars(&out, room.saturating_sub(4)).0 + "\n";
    }
    out
}

/// Room for the line counting the failed tests not shown.
const MORE_TESTS: usize = 48;

/// The first characters of `text` within `max` bytes, with `…` when cut.
fn cut_chars(text: &str, max: usize) -> (String, bool) {
    if text.len() <= max {
        return (text.to_string(), false);
    }
    let mut end = max.saturating_sub('…'.len_utf8());
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    (format!("{}…", &text[..end]), true)
}

#[cfg(test)]
mod tests;

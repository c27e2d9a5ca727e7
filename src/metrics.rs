//! Counters and a latency histogram for `/metrics`, in the Prometheus text
//! format. A leaf: the engine, the GitLab client and the HTTP layer record
//! into one process-wide registry.
//!
//! Every label value is a name from the catalog or a fixed word of this
//! file (never a token, a user, a path parameter or anything a client
//! sent), so the cardinality is bounded and nothing secret can leak.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::sync::atomic::{AtomicI64, AtomicU64, Ordering};
use std::sync::{Mutex, OnceLock};
use std::time::Duration;

/// What became of a tool call.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum CallOutcome {
    Ok,
    /// GitLab or the handler answered with an error.
    Error,
    /// The call did not decode: nothing was sent.
    Invalid,
    /// The policy refused it: nothing was sent.
    Refused,
    /// Held for the user's confirmation.
    Confirmation,
}

impl CallOutcome {
    fn as_str(self) -> &'static str {
        match self {
            CallOutcome::Ok => "ok",
            CallOutcome::Error => "error",
            CallOutcome::Invalid => "invalid",
            CallOutcome::Refused => "refused",
            CallOutcome::Confirmation => "confirmation",
        }
    }
}

/// Upper bounds of the GitLab latency buckets, in seconds.
const BUCKETS: &[f64] = &[
    0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0,
];

#[derive(Default)]
struct Histogram {
    /// One count per bucket, then the `+Inf` bucket.
    counts: [AtomicU64; 13],
    sum_micros: AtomicU64,
}

#[derive(Default)]
pub struct Metrics {
    calls: Mutex<BTreeMap<(&'static str, &'static str, CallOutcome), u64>>,
    refusals: Mutex<BTreeMap<&'static str, u64>>,
    gitlab_latency: Histogram,
    retries: AtomicU64,
    in_flight: AtomicI64,
    direct_calls: AtomicU64,
}

/// The process's registry.
pub fn global() -> &'static Metrics {
    static METRICS: OnceLock<Metrics> = OnceLock::new();
    METRICS.get_or_init(Metrics::default)
}

impl Metrics {
    /// A tool call of `tool` and `action` (catalog names; `-` when the
    /// action is not known) ended so.
    pub fn call(&self, tool: &'static str, action: &'static str, outcome: CallOutcome) {
        let mut calls = self.calls.lock().unwrap_or_else(|e| e.into_inner());
        *calls.entry((tool, action, outcome)).or_default() += 1;
    }

    /// An HTTP request refused before it reached the engine, by reason.
    pub fn refusal(&self, reason: &'static str) {
        let mut refusals = self.refusals.lock().unwrap_or_else(|e| e.into_inner());
        *refusals.entry(reason).or_default() += 1;
    }

    /// One attempt of a GitLab request took this long.
    pub fn gitlab_request(&self, took: Duration) {
        let seconds = took.as_secs_f64();
        let bucket = BUCKETS
            .iter()
            .position(|b| seconds <= *b)
            .unwrap_or(BUCKETS.len());
        self.gitlab_latency.counts[bucket].fetch_add(1, Ordering::Relaxed);
        self.gitlab_latency
            .sum_micros
            .fetch_add(took.as_micros() as u64, Ordering::Relaxed);
    }

    pub fn retry(&self) {
        self.retries.fetch_add(1, Ordering::Relaxed);
    }

    /// A tool call the HTTP endpoint answered itself, not through rmcp's
    /// service (`mcp/direct_call.rs`).
    pub fn direct_call(&self) {
        self.direct_calls.fetch_add(1, Ordering::Relaxed);
    }

    /// An HTTP request started; the guard counts it until dropped.
    pub fn in_flight(&self) -> InFlight<'_> {
        self.in_flight.fetch_add(1, Ordering::Relaxed);
        InFlight(self)
    }

    /// Everything, in the Prometheus text exposition format.
    pub fn render(&self) -> String {
        let mut out = String::new();
        out.push_str("# HELP gitlab_mcp_calls_total Tool calls by tool, action and outcome.\n# TYPE gitlab_mcp_calls_total counter\n");
        for ((tool, action, outcome), n) in
            self.calls.lock().unwrap_or_else(|e| e.into_inner()).iter()
        {
            let _ = writeln!(
                out,
                "gitlab_mcp_calls_total{{tool=\"{tool}\",action=\"{action}\",outcome=\"{}\"}} {n}",
                outcome.as_str()
            );
        }
        out.push_str("# HELP gitlab_mcp_refusals_total HTTP requests refused before any tool ran, by reason.\n# TYPE gitlab_mcp_refusals_total counter\n");
        for (reason, n) in self
            .refusals
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .iter()
        {
            let _ = writeln!(out, "gitlab_mcp_refusals_total{{reason=\"{reason}\"}} {n}");
        }
        out.push_str("# HELP gitlab_mcp_gitlab_request_seconds Latency of each GitLab request attempt.\n# TYPE gitlab_mcp_gitlab_request_seconds histogram\n");
        let mut cumulative = 0;
        for (i, bound) in BUCKETS.iter().enumerate() {
            cumulative += self.gitlab_latency.counts[i].load(Ordering::Relaxed);
            let _ = writeln!(
                out,
                "gitlab_mcp_gitlab_request_seconds_bucket{{le=\"{bound}\"}} {cumulative}"
            );
        }
        cumulative += self.gitlab_latency.counts[BUCKETS.len()].load(Ordering::Relaxed);
        let _ = writeln!(
            out,
            "gitlab_mcp_gitlab_request_seconds_bucket{{le=\"+Inf\"}} {cumulative}\ngitlab_mcp_gitlab_request_seconds_sum {}\ngitlab_mcp_gitlab_request_seconds_count {cumulative}",
            self.gitlab_latency.sum_micros.load(Ordering::Relaxed) as f64 / 1e6
        );
        let _ = writeln!(
            out,
            "# HELP gitlab_mcp_gitlab_retries_total GitLab requests retried.\n# TYPE gitlab_mcp_gitlab_retries_total counter\ngitlab_mcp_gitlab_retries_total {}",
            self.retries.load(Ordering::Relaxed)
        );
        let _ = writeln!(
            out,
            "# HELP gitlab_mcp_http_requests_in_flight HTTP requests being served.\n# TYPE gitlab_mcp_http_requests_in_flight gauge\ngitlab_mcp_http_requests_in_flight {}",
            self.in_flight.load(Ordering::Relaxed)
        );
        let _ = writeln!(
            out,
            "# HELP gitlab_mcp_http_direct_calls_total Tool calls the HTTP endpoint answered without rmcp's per-request service.\n# TYPE gitlab_mcp_http_direct_calls_total counter\ngitlab_mcp_http_direct_calls_total {}",
            self.direct_calls.load(Ordering::Relaxed)
        );
        out
    }
}

/// Counts one HTTP request in flight while it lives.
pub struct InFlight<'a>(&'a Metrics);

impl Drop for InFlight<'_> {
    fn drop(&mut self) {
        self.0.in_flight.fetch_sub(1, Ordering::Relaxed);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn renders_counters_and_cumulative_buckets() {
        let m = Metrics::default();
        m.call("gitlab_issue", "get", CallOutcome::Ok);
        m.call("gitlab_issue", "get", CallOutcome::Ok);
        m.refusal("host");
        m.gitlab_request(Duration::from_millis(3));
        m.gitlab_request(Duration::from_secs(60));
        let text = m.render();
        assert!(text.contains(
            "gitlab_mcp_calls_total{tool=\"gitlab_issue\",action=\"get\",outcome=\"ok\"} 2"
        ));
        assert!(text.contains("gitlab_mcp_refusals_total{reason=\"host\"} 1"));
        assert!(text.contains("gitlab_mcp_gitlab_request_seconds_bucket{le=\"0.005\"} 1"));
        assert!(text.contains("gitlab_mcp_gitlab_request_seconds_bucket{le=\"30\"} 1"));
        assert!(text.contains("gitlab_mcp_gitlab_request_seconds_bucket{le=\"+Inf\"} 2"));
    }
}

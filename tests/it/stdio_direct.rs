//! Over stdio the server answers plain tool calls without rmcp's serve
//! loop (src/mcp/stdio_direct.rs) and gives every other message to rmcp.
//! The same conversation goes to two servers, the default and
//! `--rmcp-only`, each on a fake GitLab of its own: every line the servers
//! write and every request GitLab receives must be the same, and the
//! default server's debug log says which calls it answered itself.

use std::process::Stdio;
use std::time::Duration;

use fake_gitlab::{FakeGitLab, Fault};
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader, Lines};
use tokio::process::{Child, ChildStdin, ChildStdout};

use crate::common;

/// What the default server logs for each call it answers itself.
const DIRECT: &str = "answered without rmcp's serve loop";

struct Server {
    fake: FakeGitLab,
    child: Child,
    stdin: Option<ChildStdin>,
    stdout: Lines<BufReader<ChildStdout>>,
}

impl Server {
    async fn start(rmcp_only: bool) -> Server {
        let fake = FakeGitLab::start().await;
        let mut command = common::command(&fake, &[("RUST_LOG", "warn,gitlab_mcp=debug")]);
        if rmcp_only {
            command.arg("--rmcp-only");
        }
        let mut child = command
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .kill_on_drop(true)
            .spawn()
            .expect("spawn gitlab-mcp");
        let stdin = child.stdin.take();
        let stdout = BufReader::new(child.stdout.take().unwrap()).lines();
        Server {
            fake,
            child,
            stdin,
            stdout,
        }
    }

    async fn send(&mut self, line: &Value) {
        let stdin = self.stdin.as_mut().expect("input still open");
        let mut bytes = line.to_string().into_bytes();
        bytes.push(b'\n');
        stdin.write_all(&bytes).await.unwrap();
        stdin.flush().await.unwrap();
    }

    /// The next line the server writes, with the fake's address spelled
    /// the same for both servers.
    async fn next(&mut self) -> String {
        let line = tokio::time::timeout(Duration::from_secs(20), self.stdout.next_line())
            .await
            .expect("a line within 20 s")
            .unwrap()
            .expect("a line, not the end");
        line.replace(&self.fake.url(), "http://fake")
    }

    /// Requests GitLab received, but the start-up scope lookup.
    fn received(&self) -> Vec<String> {
        self.fake
            .requests()
            .iter()
            .filter(|r| !common::is_scope_lookup(r))
            .map(|r| format!("{} {}?{} {}", r.method, r.raw_path, r.raw_query, r.body))
            .collect()
    }

    /// Closes input and waits for the process; its log.
    async fn finish(mut self) -> (Vec<String>, String) {
        drop(self.stdin.take());
        let mut rest = Vec::new();
        while let Ok(Some(line)) = self.stdout.next_line().await {
            rest.push(line.replace(&self.fake.url(), "http://fake"));
        }
        let output = tokio::time::timeout(Duration::from_secs(20), self.child.wait_with_output())
            .await
            .expect("the server exits")
            .unwrap();
        (rest, String::from_utf8_lossy(&output.stderr).into_owned())
    }
}

fn request(id: u64, method: &str, params: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params})
}

fn call(id: u64, name: &str, arguments: Value) -> Value {
    request(
        id,
        "tools/call",
        json!({"name": name, "arguments": arguments}),
    )
}

fn get_issue(iid: u64) -> Value {
    json!({"action": "get", "params": {"project_id": 1, "issue_iid": iid}})
}

fn delete_issue(iid: u64) -> Value {
    json!({"action": "delete", "params": {"project_id": 1, "issue_iid": iid}})
}

/// One step of the conversation: lines in, how many lines come out.
enum Step {
    Ask(Value, usize),
    /// The server asks the client (elicitation); the answer, by the
    /// server's request id read from its line.
    Answer(fn(&Value) -> Value, usize),
    /// Only sent (a notification).
    Tell(Value),
    /// GitLab answers the next request to this path after this long.
    Slow(&'static str, u64),
    /// Until GitLab has received a request to this path.
    Reached(&'static str),
}

fn conversation() -> (Vec<Step>, usize) {
    let accept = |asked: &Value| {
        json!({"jsonrpc": "2.0", "id": asked["id"],
            "result": {"action": "accept", "content": {"confirm": true}}})
    };
    let decline = |asked: &Value| json!({"jsonrpc": "2.0", "id": asked["id"], "result": {"action": "decline"}});
    let steps = vec![
        Step::Ask(
            request(
                0,
                "initialize",
                json!({"protocolVersion": "2025-11-25",
                    "capabilities": {"elicitation": {}},
                    "clientInfo": {"name": "differential", "version": "1"}}),
            ),
            1,
        ),
        Step::Tell(json!({"jsonrpc": "2.0", "method": "notifications/initialized"})),
        // Answered directly: a read, a progress token, a teaching error,
        // an unknown tool (a JSON-RPC error), no arguments, a string id.
        Step::Ask(call(1, "gitlab_issue", get_issue(3)), 1),
        Step::Ask(
            json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
                "params": {"name": "gitlab_issue", "arguments": get_issue(1),
                    "_meta": {"progressToken": "p-2"}}}),
            1,
        ),
        Step::Ask(call(3, "gitlab_issue", json!({"action": "gett"})), 1),
        Step::Ask(call(4, "gitlab_nothing", json!({})), 1),
        Step::Ask(request(5, "tools/call", json!({"name": "gitlab_issue"})), 1),
        Step::Ask(
            json!({"jsonrpc": "2.0", "id": "six", "method": "tools/call",
                "params": {"name": "gitlab_issue", "arguments": get_issue(2)}}),
            1,
        ),
        // A delete: the server asks (through rmcp's peer), then answers.
        Step::Ask(call(7, "gitlab_issue", delete_issue(5)), 1),
        Step::Answer(accept, 1),
        Step::Ask(call(8, "gitlab_issue", delete_issue(4)), 1),
        Step::Answer(decline, 1),
        // To rmcp: other metadata, other methods.
        Step::Ask(
            json!({"jsonrpc": "2.0", "id": 9, "method": "tools/call",
                "params": {"name": "gitlab_issue", "arguments": get_issue(3),
                    "_meta": {"progressToken": 9, "trace": "x"}}}),
            1,
        ),
        Step::Ask(request(10, "ping", json!({})), 1),
        // A call cancelled while GitLab is slow is never answered; the
        // next call is.
        Step::Slow("/api/v4/projects/1/issues/4", 3_000),
        Step::Ask(call(11, "gitlab_issue", get_issue(4)), 0),
        Step::Reached("/api/v4/projects/1/issues/4"),
        Step::Tell(
            json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
            "params": {"requestId": 11, "reason": "the user stopped it"}}),
        ),
        Step::Ask(call(12, "gitlab_issue", get_issue(2)), 1),
        // A slow call still running when input ends is answered.
        Step::Slow("/api/v4/projects/1/issues/3", 1_000),
        Step::Ask(call(13, "gitlab_issue", get_issue(3)), 0),
    ];
    // Calls the default server takes: 1 to 8 (7 and 8 through their
    // elicitation rounds), 11 (cancelled), 12 and 13.
    (steps, 11)
}

/// Every line one server wrote, in order, and what GitLab received.
async fn run(server: &mut Server) -> (Vec<String>, Vec<Vec<String>>) {
    let (steps, _) = conversation();
    let mut lines = Vec::new();
    let mut received = Vec::new();
    let mut last = Value::Null;
    for step in steps {
        let expected = match step {
            Step::Ask(line, expected) => {
                server.send(&line).await;
                expected
            }
            Step::Answer(answer, expected) => {
                server.send(&answer(&last)).await;
                expected
            }
            Step::Tell(line) => {
                server.send(&line).await;
                0
            }
            Step::Slow(path, ms) => {
                let fault = Fault::delay(Duration::from_millis(ms)).on("GET", path);
                server.fake.inject(fault.times(1));
                0
            }
            Step::Reached(path) => {
                common::until_received(&server.fake, path).await;
                0
            }
        };
        for _ in 0..expected {
            let line = server.next().await;
            last = serde_json::from_str(&line).unwrap();
            lines.push(line);
        }
        // Read only once an answer came: a call still running may not
        // have reached GitLab yet.
        if expected > 0 {
            received.push(server.received());
        }
    }
    (lines, received)
}

#[tokio::test]
async fn plain_calls_answered_directly_write_what_rmcp_writes() {
    let mut direct = Server::start(false).await;
    let mut rmcp = Server::start(true).await;
    let (direct_lines, direct_received) = run(&mut direct).await;
    let (rmcp_lines, rmcp_received) = run(&mut rmcp).await;
    assert_eq!(direct_lines.len(), rmcp_lines.len());
    for (ours, theirs) in direct_lines.iter().zip(&rmcp_lines) {
        assert_eq!(ours, theirs);
    }
    assert_eq!(direct_received, rmcp_received, "what GitLab received");
    // The steps did what they say: two deletes asked, one sent.
    assert!(
        direct_lines
            .iter()
            .any(|l| l.contains("elicitation/create"))
    );
    let deletes = direct_received.last().unwrap();
    assert_eq!(
        deletes.iter().filter(|r| r.starts_with("DELETE")).count(),
        1,
        "{deletes:?}"
    );
    let (direct_rest, direct_log) = direct.finish().await;
    let (rmcp_rest, rmcp_log) = rmcp.finish().await;
    assert_eq!(
        direct_rest, rmcp_rest,
        "the answer written after input ended"
    );
    assert_eq!(direct_rest.len(), 1, "{direct_rest:?}");
    assert!(direct_rest[0].contains(r#""id":13"#), "{direct_rest:?}");
    // The cancelled call had no answer, from either.
    assert!(!direct_lines.iter().any(|l| l.contains(r#""id":11"#)));
    let (_, answered_here) = conversation();
    assert_eq!(
        direct_log.matches(DIRECT).count(),
        answered_here,
        "{direct_log}"
    );
    assert_eq!(rmcp_log.matches(DIRECT).count(), 0, "{rmcp_log}");
}

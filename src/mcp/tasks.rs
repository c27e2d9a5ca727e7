//! Long-running actions as tasks (MCP's tasks extension,
//! `io.modelcontextprotocol/tasks`, SEP-2663, which rmcp 3.11 carries:
//! `TaskManager`, `CallToolResponse::Task`, `tasks/get|update|cancel`): an
//! action the catalog marks `long_running`, called by a client that
//! declared the extension, answers at once with a task the client polls
//! (`tasks/get`) or cancels (`tasks/cancel`); any other call, or a client
//! that did not declare it, is answered as before.
//!
//! A task runs the same engine call as the tool, detached from the request
//! that started it, with that request's GitLab, token and scopes; its
//! progress reports become the task's status message. Only its caller sees
//! it: each task is kept with its caller's fingerprint (a hash of the token
//! and the GitLab), and another caller asking for it hears of no such task.
//! Tasks live in this process: behind a load balancer, the instance that
//! started one answers for it.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use rmcp::ErrorData;
use rmcp::model::{CreateTaskResult, DetailedTask};
use rmcp::task_manager::{TaskContext, TaskExit, TaskManager, TaskOptions};
use serde_json::{Map, Value};

use crate::catalog::ToolSpec;
use crate::engine::{CallContext, Engine, Outcome, Progress, Scopes};
use crate::gitlab::Target;
use crate::render::Output;

/// How long a task may run (rmcp fails it past that), and how long its
/// result is kept after it ends.
const TTL: Duration = Duration::from_secs(60 * 60);

/// How often a client should poll.
const POLL_INTERVAL: Duration = Duration::from_secs(2);

/// Past this many tasks running in the process, a long call is answered
/// inline as for a client without tasks: a task outlives its request, so
/// the HTTP layer's bounds on requests in flight do not bound tasks.
const MAX_RUNNING: usize = 64;

/// Whose a task is: the fingerprint of its caller's token and GitLab
/// (`None`: no token).
type Owner = Option<[u8; 32]>;

/// The tasks of this process and their owners. Shared by every server of
/// the process (over HTTP, one per request).
#[derive(Default)]
pub struct Tasks {
    manager: TaskManager,
    /// Each task's owner, until rmcp may have forgotten the task (twice
    /// the TTL: a task ends by then, and is kept one TTL after).
    owners: Mutex<HashMap<String, (Owner, Instant)>>,
}

/// One call to run as a task.
pub struct TaskCall {
    pub engine: Arc<Engine>,
    pub tool: String,
    pub arguments: Map<String, Value>,
    pub target: Target,
    pub scopes: Option<Scopes>,
}

/// Whether `tool`'s action (named in `arguments`) is long-running among
/// the tools the caller is offered.
pub fn long_running(tools: &[ToolSpec], tool: &str, arguments: &Map<String, Value>) -> bool {
    let action = arguments.get("action").and_then(Value::as_str);
    tools
        .iter()
        .find(|t| t.name == tool)
        .zip(action)
        .and_then(|(t, action)| t.action(action))
        .is_some_and(|a| a.long_running)
}

impl Tasks {
    /// Start `call` as a task of its caller; its seed state answers the
    /// `tools/call`. `None` when too many tasks run already: answer inline.
    pub fn start(&self, call: TaskCall) -> Option<CreateTaskResult> {
        if self.manager.running_task_count() >= MAX_RUNNING {
            tracing::info!(tool = call.tool, "too many tasks running: answered inline");
            return None;
        }
        let owner = call.target.fingerprint();
        let options = TaskOptions::new()
            .with_ttl_ms(TTL.as_millis() as u64)
            .with_poll_interval_ms(POLL_INTERVAL.as_millis() as u64)
            .with_status_message(format!("{} running", call.tool));
        let task = self
            .manager
            .spawn(options, |context| Box::pin(run(call, context)));
        let now = Instant::now();
        let mut owners = self
            .owners
            .lock()
            .expect("the task owners are never poisoned");
        owners.retain(|_, (_, forget_at)| *forget_at > now);
        owners.insert(task.task_id.clone(), (owner, now + 2 * TTL));
        Some(CreateTaskResult::new(task))
    }

    /// `tasks/get`, for its owner only.
    pub fn get(&self, task_id: &str, target: &Target) -> Result<DetailedTask, ErrorData> {
        self.check_owner(task_id, target)?;
        self.manager.get_task(task_id)
    }

    /// `tasks/cancel`, for its owner only: the engine's call is dropped,
    /// which aborts its GitLab request.
    pub fn cancel(&self, task_id: &str, target: &Target) -> Result<(), ErrorData> {
        self.check_owner(task_id, target)?;
        self.manager.cancel_task(task_id)
    }

    /// `tasks/update`, for its owner only: these tasks never ask for
    /// input, so there is nothing to deliver.
    pub fn update(&self, task_id: &str, target: &Target) -> Result<(), ErrorData> {
        self.check_owner(task_id, target)?;
        self.manager.update_task(task_id, [])
    }

    /// Another caller's task is answered as no task at all, in rmcp's
    /// words for an unknown one.
    fn check_owner(&self, task_id: &str, target: &Target) -> Result<(), ErrorData> {
        let owners = self
            .owners
            .lock()
            .expect("the task owners are never poisoned");
        match owners.get(task_id) {
            Some((owner, _)) if *owner == target.fingerprint() => Ok(()),
            _ => Err(ErrorData::invalid_params(
                format!("unknown task: {task_id}"),
                None,
            )),
        }
    }
}

/// The task's work: the engine's call, until it ends or the client cancels.
async fn run(
    call: TaskCall,
    context: TaskContext,
) -> Result<rmcp::model::CallToolResult, TaskExit> {
    let progress = StatusMessage(context.clone());
    let outcome = call.engine.call(
        &call.tool,
        call.arguments,
        CallContext {
            target: &call.target,
            scopes: call.scopes.as_ref(),
            confirmed: false,
            progress: Some(&progress),
        },
    );
    // Dropping the engine's future aborts its GitLab request.
    let outcome = tokio::select! {
        outcome = outcome => outcome,
        () = context.cancelled() => return Err(TaskExit::Cancelled),
    };
    let output = match outcome {
        Ok(Outcome::Done(output)) => output,
        // The catalog compiler refuses a long-running destructive action,
        // so nothing here waits for a confirmation; were one needed, a task
        // has no one to ask, and the call is refused.
        Ok(Outcome::NeedsConfirmation { refusal, .. }) => Output::error(refusal),
        Err(unknown) => {
            return Err(TaskExit::Error(ErrorData::invalid_params(
                unknown.to_string(),
                None,
            )));
        }
    };
    Ok(super::server::to_result(output))
}

/// A task's progress, shown as its status message (`tasks/get`).
struct StatusMessage(TaskContext);

impl Progress for StatusMessage {
    fn report(&self, _done: f64, _total: Option<f64>, message: &str) {
        self.0.set_status_message(message);
    }
}

//! Entry point: parse the command line, send logs to stderr, run the
//! command. The one place that writes to stdout, besides the stdio
//! transport.

use std::io::Write as _;
use std::process::ExitCode;
use std::sync::Arc;

use clap::Parser;
use serde_json::Value;

use clap::CommandFactory;
use gitlab_mcp::catalog;
use gitlab_mcp::cli::{Cli, Command, LogArgs, LogFormat, ServeArgs};
use gitlab_mcp::engine::{self, CallContext, Engine, Outcome};
use gitlab_mcp::render::Output;
use gitlab_mcp::sandbox::{self, Sandbox};
use gitlab_mcp::{demo, http, mcp};

mod allocator;

/// mimalloc instead of the system allocator: a tool call allocates a few
/// hundred small blocks (the parsed answer's tree, the request, the
/// frames), and glibc's `malloc`/`free` were 13% of a stdio call's
/// instructions and 18% of an HTTP call's (BENCHMARKS.md).
#[global_allocator]
static ALLOCATOR: allocator::Mimalloc = allocator::Mimalloc;

fn main() -> ExitCode {
    // Another server's variables, as ours, before the flags are read.
    let migration = gitlab_mcp::migration::aliases(&|name| std::env::var(name).ok());
    for (name, value) in &migration.set {
        // SAFETY: no other thread exists yet: the runtime starts later.
        unsafe { std::env::set_var(name, value) };
    }
    let cli = Cli::parse();
    if let Err(message) = init_tracing(&cli.log) {
        eprintln!("gitlab-mcp: {message}");
        return ExitCode::from(2);
    }
    for warning in &migration.warnings {
        tracing::warn!("{warning}");
    }
    match run(cli) {
        Ok(code) => code,
        Err(message) => {
            eprintln!("gitlab-mcp: {message}");
            ExitCode::from(2)
        }
    }
}

/// Logs go to stderr (or a file), never stdout: in stdio mode stdout
/// carries JSON-RPC only. rmcp logs whole messages at debug, so it stays at
/// warn unless asked.
fn init_tracing(log: &LogArgs) -> Result<(), String> {
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("warn,gitlab_mcp=info,rmcp=warn"));
    let writer = match &log.log_file {
        Some(path) => {
            let file = std::fs::OpenOptions::new()
                .create(true)
                .append(true)
                .open(path)
                .map_err(|e| format!("--log-file {}: {e}", path.display()))?;
            tracing_subscriber::fmt::writer::BoxMakeWriter::new(std::sync::Mutex::new(file))
        }
        None => tracing_subscriber::fmt::writer::BoxMakeWriter::new(std::io::stderr),
    };
    let builder = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(writer)
        .with_ansi(false);
    match log.log_format {
        LogFormat::Text => builder.init(),
        LogFormat::Json => builder.json().flatten_event(true).init(),
    }
    Ok(())
}

fn run(cli: Cli) -> Result<ExitCode, String> {
    match &cli.command {
        Command::Tools { json } => {
            // The list the server would serve with these settings.
            let settings = settings(&cli)?;
            let tools = settings.policy.prune(catalog::tools());
            let list = mcp::tools::tool_list_json(tools);
            if *json {
                print_stdout(&list);
            } else {
                let model = mcp::tools::model_view_json(tools);
                print_stdout(&tools_summary(tools, &list, &model));
            }
            Ok(ExitCode::SUCCESS)
        }
        Command::Catalog {
            json: _,
            markdown,
            surface,
        } => {
            // JSON unless another form was asked for; `--json` says it explicitly.
            if *markdown {
                print_stdout(&catalog::catalog_markdown());
            } else if *surface {
                print_stdout(&catalog::catalog_surface());
            } else {
                print_stdout(&catalog::catalog_json().to_string());
            }
            Ok(ExitCode::SUCCESS)
        }
        Command::Serve(serve) => serve_command(&cli, serve),
        Command::Completions { shell } => {
            let mut out = Vec::new();
            clap_complete::generate(*shell, &mut Cli::command(), "gitlab-mcp", &mut out);
            print_stdout(&String::from_utf8_lossy(&out));
            Ok(ExitCode::SUCCESS)
        }
        Command::Man => {
            let mut out = Vec::new();
            // The page names the release, not the build: the same page
            // whatever commit or machine built it.
            clap_mangen::Man::new(Cli::command().version(env!("CARGO_PKG_VERSION")))
                .render(&mut out)
                .map_err(|e| format!("cannot render the manual page: {e}"))?;
            print_stdout(&String::from_utf8_lossy(&out));
            Ok(ExitCode::SUCCESS)
        }
        Command::Call { tool, json } => call(&cli, tool, json),
        Command::Check => {
            let settings = settings(&cli)?;
            let report = current_thread()?
                .block_on(gitlab_mcp::check::run(&settings, &cli.gitlab.gitlab_url));
            print_stdout(&report.text());
            Ok(if report.passed() {
                ExitCode::SUCCESS
            } else {
                ExitCode::from(1)
            })
        }
        Command::Demo => {
            current_thread()?.block_on(async {
                let (engine, _sandbox) = engine(settings(&cli)?, true).await?;
                demo::tour(&engine, &mut |line| print_stdout(line)).await
            })?;
            Ok(ExitCode::SUCCESS)
        }
    }
}

fn settings(cli: &Cli) -> Result<engine::Settings, String> {
    let settings = cli.gitlab.settings().map_err(|e| e.to_string())?;
    if settings.client.tls.skip_verify {
        tracing::warn!(
            "TLS verification of GitLab is OFF (GITLAB_MCP_TLS_INSECURE): anyone between this server and GitLab can read and change its traffic, tokens included. Prefer GITLAB_CA_CERT with your CA."
        );
    }
    Ok(settings)
}

/// The engine for `settings`, against the sandbox when asked (started
/// here, kept alive by the caller).
async fn engine(
    mut settings: engine::Settings,
    sandbox: bool,
) -> Result<(Arc<Engine>, Option<Sandbox>), String> {
    let sandbox = if sandbox {
        let sandbox = Sandbox::start().await;
        settings.target = sandbox.target();
        Some(sandbox)
    } else {
        None
    };
    Ok((Arc::new(Engine::new(settings)?), sandbox))
}

/// How the MCP server introduces itself: the sandbox says it is one.
fn introduction(sandbox: bool) -> mcp::Introduction {
    if sandbox {
        mcp::Introduction::with_note(sandbox::TITLE, sandbox::NOTE)
    } else {
        mcp::Introduction::default()
    }
}

/// GitLab requests in flight at once over HTTP, unless set.
const HTTP_MAX_CONCURRENT: usize = 64;

fn serve_command(cli: &Cli, serve: &ServeArgs) -> Result<ExitCode, String> {
    let mut settings = settings(cli)?;
    let sandbox = cli.gitlab.sandbox;
    if sandbox {
        tracing::warn!(
            "serving the sandbox: a stand-in GitLab with a demo project; writes last until the process stops"
        );
    }
    match serve.http_settings(settings.client.tls.extra_ca_pem.clone())? {
        None => current_thread()?.block_on(async {
            let (engine, _sandbox) = engine(settings, sandbox).await?;
            mcp::serve_stdio(engine, introduction(sandbox), serve.rmcp_only)
                .await
                .map_err(|e| e.to_string())
        })?,
        Some(http_settings) => {
            http_settings.check().map_err(|e| e.to_string())?;
            // A shared server sends many users' requests at once.
            if cli.gitlab.max_concurrent.is_none() {
                settings.client.max_concurrent = HTTP_MAX_CONCURRENT;
            }
            tokio::runtime::Builder::new_multi_thread()
                .enable_all()
                .build()
                .map_err(|e| format!("cannot start the async runtime: {e}"))?
                .block_on(async {
                    let (engine, _sandbox) = engine(settings, sandbox).await?;
                    http::serve(engine, http_settings, introduction(sandbox)).await
                })?;
        }
    }
    Ok(ExitCode::SUCCESS)
}

fn call(cli: &Cli, tool: &str, json: &str) -> Result<ExitCode, String> {
    let arguments = match serde_json::from_str::<Value>(json) {
        Ok(Value::Object(map)) => map,
        Ok(_) => {
            return Err(
                "the call's JSON must be an object: {\"action\": ..., \"params\": {...}}".into(),
            );
        }
        Err(e) => return Err(format!("the call's JSON does not parse: {e}")),
    };
    let settings = settings(cli)?;
    let outcome = current_thread()?.block_on(async {
        let (engine, _sandbox) = engine(settings, cli.gitlab.sandbox).await?;
        let target = engine.default_target().clone();
        engine
            .call(tool, arguments, CallContext::plain(&target))
            .await
            .map_err(|e| e.to_string())
    })?;
    // A one-shot command has no user to ask: a destructive action runs
    // only with --yes, or "confirm" when the model may confirm.
    let output = match outcome {
        Outcome::Done(output) => output,
        Outcome::NeedsConfirmation { refusal, .. } => Output::error(refusal),
    };
    print_stdout(&output.text);
    Ok(if output.is_error {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}

/// One thread: a call hops between the stdin reader, the handler, the
/// HTTP client and the stdout writer, and every hop to another thread
/// costs a wake-up; GitLab's latency, not CPU, bounds a stdio server.
fn current_thread() -> Result<tokio::runtime::Runtime, String> {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| format!("cannot start the async runtime: {e}"))
}

/// The first line counts the whole list (icons included) and the model's
/// view of it (names, descriptions, schemas), which the budget bounds.
fn tools_summary(tools: &[catalog::ToolSpec], list_json: &str, model_json: &str) -> String {
    let tokens = gitlab_mcp::tokens::cl100k(list_json)
        .zip(gitlab_mcp::tokens::cl100k(model_json))
        .map(|(all, model)| format!(", {all} tokens (cl100k), {model} in the model's view"))
        .unwrap_or_default();
    let mut out = format!(
        "{} tools, {} actions, tool list {} bytes{tokens}\n",
        tools.len(),
        tools.iter().map(|t| t.actions.len()).sum::<usize>(),
        list_json.len()
    );
    for tool in tools {
        let names: Vec<&str> = tool.actions.iter().map(|a| a.name).collect();
        out.push_str(&format!(
            "{:<24} {:>3} actions: {}\n",
            tool.name,
            names.len(),
            names.join(", ")
        ));
    }
    out
}

/// Print and end with a newline; a closed stdout (a pipe to `head`) is not an error.
fn print_stdout(text: &str) {
    let mut out = std::io::stdout().lock();
    let _ = out.write_all(text.as_bytes());
    if !text.ends_with('\n') {
        let _ = out.write_all(b"\n");
    }
    let _ = out.flush();
}

//! The command line: flags and environment variables into one `Config`, and
//! the subcommands.

use std::time::Duration;

use clap::{Args, Parser, Subcommand};

use crate::config::{self, AuthScheme, Config, ConfigError, Secret};

#[derive(Debug, Parser)]
#[command(
    name = "gitlab-mcp",
    version,
    about = "The GitLab REST API for AI agents, through a few strict MCP meta-tools"
)]
pub struct Cli {
    #[command(flatten)]
    pub gitlab: GitLabArgs,
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Args)]
pub struct GitLabArgs {
    /// GitLab's address, with or without /api/v4.
    #[arg(
        long,
        env = "GITLAB_URL",
        default_value = "https://gitlab.com",
        global = true
    )]
    pub gitlab_url: String,
    /// Access token (prefer the environment variable: flags show up in `ps`).
    /// Also read from GITLAB_PERSONAL_ACCESS_TOKEN. Without one, requests are anonymous.
    #[arg(long, env = "GITLAB_TOKEN", hide_env_values = true, global = true)]
    pub token: Option<String>,
    /// How the token is sent: private-token (personal, project, group tokens) or bearer (OAuth).
    #[arg(
        long,
        env = "GITLAB_AUTH",
        value_enum,
        default_value = "private-token",
        global = true
    )]
    pub auth: AuthScheme,
    /// Seconds allowed to open a connection to GitLab.
    #[arg(
        long,
        env = "GITLAB_CONNECT_TIMEOUT",
        default_value_t = 10,
        global = true
    )]
    pub connect_timeout: u64,
    /// Seconds allowed for one whole GitLab request.
    #[arg(long, env = "GITLAB_TIMEOUT", default_value_t = 30, global = true)]
    pub timeout: u64,
    /// The most bytes of text one answer carries; longer answers are cut and say how to get the rest.
    #[arg(long, env = "GITLAB_MCP_MAX_RESPONSE_BYTES", default_value_t = crate::render::DEFAULT_MAX_BYTES, global = true)]
    pub max_response_bytes: usize,
    /// Also send results as structuredContent (doubles the payload; lists are wrapped in an object).
    #[arg(long, env = "GITLAB_MCP_STRUCTURED_CONTENT", global = true)]
    pub structured_content: bool,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Serve MCP on stdin/stdout.
    Serve,
    /// Make one tool call and print the result's text.
    /// Exit status: 0 success, 1 the result is an error, 2 usage or configuration error.
    Call {
        /// Tool name, such as gitlab_issue.
        tool: String,
        /// The envelope, such as '{"action": "get", "params": {"project_id": "g/p", "issue_iid": 1}}'.
        json: String,
    },
    /// Show the tool list: a summary, or with --json exactly what tools/list serves.
    Tools {
        #[arg(long)]
        json: bool,
    },
    /// Print the whole catalog (every action and parameter) as JSON.
    Catalog {
        #[arg(long)]
        json: bool,
    },
}

impl GitLabArgs {
    pub fn config(&self) -> Result<Config, ConfigError> {
        let token = self
            .token
            .clone()
            .or_else(|| std::env::var("GITLAB_PERSONAL_ACCESS_TOKEN").ok())
            .filter(|t| !t.trim().is_empty())
            .map(|t| Secret::new(t.trim().to_string()));
        Ok(Config {
            api_root: config::api_root(&self.gitlab_url)?,
            token,
            auth: self.auth,
            connect_timeout: Duration::from_secs(self.connect_timeout),
            request_timeout: Duration::from_secs(self.timeout),
            render: crate::render::Options {
                max_bytes: self.max_response_bytes.max(1024),
                structured: self.structured_content,
            },
        })
    }
}

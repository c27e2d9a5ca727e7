//! The command line: flags and environment variables into one `Config`, and
//! the subcommands.

use std::time::Duration;

use clap::builder::BoolishValueParser;
use clap::{Args, Parser, Subcommand, ValueEnum};

use crate::config::{self, Config, ConfigError};
use crate::gitlab::{self, AuthScheme, ClientSettings, Credentials, Retry, Target};
use crate::policy::{Access, Confirmation, Pattern, Policy};
use crate::secret::Secret;

/// `--auth`: how the token is sent.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum AuthArg {
    /// `PRIVATE-TOKEN: <token>`: personal, project and group access tokens.
    PrivateToken,
    /// `Authorization: Bearer <token>`: OAuth tokens (personal tokens work too).
    Bearer,
}

impl From<AuthArg> for AuthScheme {
    fn from(arg: AuthArg) -> Self {
        match arg {
            AuthArg::PrivateToken => AuthScheme::PrivateToken,
            AuthArg::Bearer => AuthScheme::Bearer,
        }
    }
}

/// `--access`: how much the server may change in GitLab.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum AccessArg {
    /// Reads only: every action that writes is removed.
    ReadOnly,
    /// Everything but destructive actions (delete, erase, archive, transfer, unprotect...).
    NoDelete,
    /// Everything the token allows.
    Full,
}

impl From<AccessArg> for Access {
    fn from(arg: AccessArg) -> Self {
        match arg {
            AccessArg::ReadOnly => Access::ReadOnly,
            AccessArg::NoDelete => Access::NoDelete,
            AccessArg::Full => Access::Full,
        }
    }
}

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
    pub auth: AuthArg,
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
    #[arg(long, env = "GITLAB_MCP_STRUCTURED_CONTENT", value_parser = BoolishValueParser::new(), global = true)]
    pub structured_content: bool,

    /// Reads only: every action that changes GitLab is removed and refused.
    /// Also GITLAB_READ_ONLY_MODE.
    #[arg(long, env = "GITLAB_READ_ONLY", value_parser = BoolishValueParser::new(), global = true)]
    pub read_only: bool,
    /// What the server may do: read-only, no-delete (no destructive action) or full.
    #[arg(
        long,
        env = "GITLAB_MCP_ACCESS",
        value_enum,
        default_value = "full",
        global = true
    )]
    pub access: AccessArg,
    /// Enable only these tools or toolsets (comma-separated: gitlab_issue, issue, core, ci...).
    #[arg(
        long,
        env = "GITLAB_MCP_TOOLS",
        alias = "toolsets",
        value_delimiter = ',',
        global = true
    )]
    pub tools: Vec<String>,
    /// Enable only actions matching these `tool.action` patterns (`*` wildcards).
    #[arg(
        long,
        env = "GITLAB_MCP_ALLOW_ACTIONS",
        value_delimiter = ',',
        global = true
    )]
    pub allow_actions: Vec<String>,
    /// Remove actions matching these `tool.action` patterns, such as `*.delete`.
    #[arg(
        long,
        env = "GITLAB_MCP_DENY_ACTIONS",
        value_delimiter = ',',
        global = true
    )]
    pub deny_actions: Vec<String>,
    /// Run destructive actions without asking (for unattended agents).
    #[arg(long = "yes", env = "GITLAB_MCP_AUTO_CONFIRM", value_parser = BoolishValueParser::new(), global = true)]
    pub auto_confirm: bool,
    /// Accept `"confirm": true` from the model as confirmation of a destructive action.
    #[arg(long, env = "GITLAB_MCP_MODEL_CONFIRM", value_parser = BoolishValueParser::new(), global = true)]
    pub allow_model_confirm: bool,
    /// Send text whose lines start with `/` (GitLab quick actions) without the call opting in.
    #[arg(long, env = "GITLAB_MCP_ALLOW_QUICK_ACTIONS", value_parser = BoolishValueParser::new(), global = true)]
    pub allow_quick_actions: bool,
    /// Retries of a request that is safe to repeat (429, 502, 503, 504, connection failures); 0 for none.
    #[arg(
        long,
        env = "GITLAB_MCP_MAX_RETRIES",
        default_value_t = 3,
        global = true
    )]
    pub max_retries: u32,
    /// Most seconds spent waiting between retries, over all attempts of one call.
    #[arg(
        long,
        env = "GITLAB_MCP_RETRY_MAX_WAIT",
        default_value_t = 30,
        global = true
    )]
    pub retry_max_wait: u64,
    /// Most GitLab requests in flight at once.
    #[arg(
        long,
        env = "GITLAB_MCP_MAX_CONCURRENT",
        default_value_t = 8,
        global = true
    )]
    pub max_concurrent: usize,
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
    /// Print the whole catalog: every tool, action and parameter.
    Catalog {
        /// As JSON (the default).
        #[arg(long, conflicts_with = "markdown")]
        json: bool,
        /// As Markdown, the reference committed as docs/tools.md.
        #[arg(long)]
        markdown: bool,
    },
}

impl GitLabArgs {
    pub fn config(&self) -> Result<Config, ConfigError> {
        let token = self
            .token
            .clone()
            .or_else(|| std::env::var("GITLAB_PERSONAL_ACCESS_TOKEN").ok())
            .map(|t| t.trim().to_string())
            .filter(|t| !t.is_empty());
        if let Some(token) = &token {
            config::check_token(token)?;
        }
        Ok(Config {
            target: Target {
                api_root: gitlab::api_root(&self.gitlab_url)?,
                credentials: token.map(|t| Credentials {
                    token: Secret::new(t),
                    scheme: self.auth.into(),
                }),
            },
            client: ClientSettings {
                connect_timeout: Duration::from_secs(self.connect_timeout),
                request_timeout: Duration::from_secs(self.timeout),
                retry: Retry {
                    max_retries: self.max_retries,
                    max_wait: Duration::from_secs(self.retry_max_wait),
                    ..Retry::default()
                },
                max_concurrent: self.max_concurrent.max(1),
            },
            render: crate::render::Options {
                max_bytes: self.max_response_bytes.max(1024),
                structured: self.structured_content,
            },
            policy: self.policy(),
        })
    }

    fn policy(&self) -> Policy {
        let patterns = |list: &[String]| -> Vec<Pattern> {
            list.iter()
                .filter(|p| !p.trim().is_empty())
                .map(|p| Pattern::new(p))
                .collect()
        };
        Policy {
            access: if self.read_only || env_flag("GITLAB_READ_ONLY_MODE") {
                Access::ReadOnly
            } else {
                self.access.into()
            },
            tools: self
                .tools
                .iter()
                .map(|t| t.trim().to_string())
                .filter(|t| !t.is_empty())
                .collect(),
            allow: patterns(&self.allow_actions),
            deny: patterns(&self.deny_actions),
            confirmation: Confirmation {
                auto: self.auto_confirm,
                from_model: self.allow_model_confirm,
            },
            allow_quick_actions: self.allow_quick_actions,
        }
    }
}

/// A boolean environment variable: `true`, `1`, `yes` or `on`.
fn env_flag(name: &str) -> bool {
    std::env::var(name).is_ok_and(|v| {
        matches!(
            v.trim().to_ascii_lowercase().as_str(),
            "true" | "1" | "yes" | "on"
        )
    })
}

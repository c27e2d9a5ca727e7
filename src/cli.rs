//! The command line: flags and environment variables into the engine's
//! `Settings` (and, for `serve --http`, the HTTP layer's), and the
//! subcommands.

use std::sync::Arc;
use std::time::Duration;

use clap::builder::{BoolishValueParser, RangedU64ValueParser};
use clap::{Args, Parser, Subcommand, ValueEnum};

use crate::config::{self, ConfigError};
use crate::engine;
use crate::gitlab::{self, AuthScheme, ClientSettings, Credentials, Retry, Target, TlsSettings};
use crate::http::{CallerAuth, HttpSettings};
use crate::policy::{Access, Confirmation, Pattern, Policy};
use crate::secret::Secret;
use crate::signin::{FetchPolicy, Sealer, SigninError, SigninSettings};

/// The smallest answer cap: a cut answer keeps room for its notes and
/// pagination line (render's footers add at most 1 KiB).
const MIN_RESPONSE_BYTES: u64 = 1024;

/// The smallest request body bound: a `tools/call` envelope needs room.
const MIN_BODY_BYTES: u64 = 1024;

/// A whole number of at least `min`: a smaller one (a 0 that would stop
/// every request, or a limit nothing fits in) is refused with clap's error
/// naming the range, rather than raised silently.
fn at_least<T: TryFrom<u64>>(min: u64) -> RangedU64ValueParser<T> {
    RangedU64ValueParser::<T>::new().range(min..)
}

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

/// `gitlab-mcp --version` (and `-V`): the version, the commit it was built
/// from and the target it was built for (`build/version.rs`), so a bug
/// report names exactly what ran.
pub const VERSION: &str = concat!(
    env!("CARGO_PKG_VERSION"),
    " (commit ",
    env!("GITLAB_MCP_GIT_COMMIT"),
    ", ",
    env!("GITLAB_MCP_TARGET"),
    ")"
);

#[derive(Debug, Parser)]
#[command(
    name = "gitlab-mcp",
    version = VERSION,
    about = "The GitLab REST API for AI agents, through a few strict MCP meta-tools"
)]
pub struct Cli {
    #[command(flatten)]
    pub gitlab: GitLabArgs,
    #[command(flatten)]
    pub log: LogArgs,
    #[command(subcommand)]
    pub command: Command,
}

/// Where logs go, and how they look. Never stdout.
#[derive(Debug, Args)]
pub struct LogArgs {
    /// Log lines for people (`text`) or for collectors (`json`, one object per line).
    #[arg(
        long,
        env = "GITLAB_MCP_LOG_FORMAT",
        value_enum,
        default_value = "text",
        global = true
    )]
    pub log_format: LogFormat,
    /// Append logs to this file instead of stderr.
    #[arg(long, env = "GITLAB_MCP_LOG_FILE", value_name = "PATH", global = true)]
    pub log_file: Option<std::path::PathBuf>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum LogFormat {
    Text,
    Json,
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
    /// Without one, requests are anonymous.
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
    /// Run against the embedded sandbox (a stand-in GitLab with a demo project; no account, token or network needed).
    #[arg(long, env = "GITLAB_MCP_SANDBOX", value_parser = BoolishValueParser::new(), global = true)]
    pub sandbox: bool,
    /// A PEM file of certificates to trust besides the system's (a company CA, a self-signed GitLab).
    #[arg(long, env = "GITLAB_CA_CERT", value_name = "PEM", global = true)]
    pub ca_cert: Option<std::path::PathBuf>,
    /// Accept any TLS certificate from GitLab (dangerous; warned about at every start).
    #[arg(long, env = "GITLAB_MCP_TLS_INSECURE", value_parser = BoolishValueParser::new(), global = true)]
    pub tls_insecure: bool,
    /// Seconds allowed to open a connection to GitLab.
    #[arg(
        long,
        env = "GITLAB_CONNECT_TIMEOUT",
        default_value_t = 10,
        value_parser = at_least::<u64>(1),
        global = true
    )]
    pub connect_timeout: u64,
    /// Seconds allowed for one whole GitLab request.
    #[arg(long, env = "GITLAB_TIMEOUT", default_value_t = 30, value_parser = at_least::<u64>(1), global = true)]
    pub timeout: u64,
    /// The most bytes of text one answer carries; longer answers are cut and say how to get the rest.
    #[arg(long, env = "GITLAB_MCP_MAX_RESPONSE_BYTES", default_value_t = crate::render::DEFAULT_MAX_BYTES, value_parser = at_least::<usize>(MIN_RESPONSE_BYTES), global = true)]
    pub max_response_bytes: usize,
    /// Also send results as structuredContent (doubles the payload; lists are wrapped in an object).
    #[arg(long, env = "GITLAB_MCP_STRUCTURED_CONTENT", value_parser = BoolishValueParser::new(), global = true)]
    pub structured_content: bool,

    /// Reads only: every action that changes GitLab is removed and refused.
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
    /// Withhold the text of issues, merge requests, comments and snippets whose author is not a project member with at least this role (guest, planner, reporter, developer, maintainer, owner).
    #[arg(long, env = "GITLAB_MCP_LOCKDOWN", value_name = "ROLE", global = true)]
    pub lockdown: Option<crate::policy::lockdown::Role>,
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
    /// Most GitLab requests in flight at once (default 8 over stdio, 64 over HTTP).
    #[arg(long, env = "GITLAB_MCP_MAX_CONCURRENT", value_parser = at_least::<usize>(1), global = true)]
    pub max_concurrent: Option<usize>,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Serve MCP on stdin/stdout, or with --http over streamable HTTP.
    Serve(Box<ServeArgs>),
    /// Make one tool call and print the result's text.
    /// Exit status: 0 success, 1 the result is an error, 2 usage or configuration error.
    Call {
        /// Tool name, such as gitlab_issue.
        tool: String,
        /// The envelope, such as '{"action": "get", "params": {"project_id": "g/p", "issue_iid": 1}}'.
        json: String,
    },
    /// Reach the configured GitLab and report what works: address, TLS, version, the token's user, scopes and expiry.
    /// Exit status 0 only when everything needed works.
    Check,
    /// A short guided tour against the built-in sandbox: the tool list, a few calls, a mistake and its reply.
    Demo,
    /// Show the tool list: a summary, or with --json exactly what tools/list serves.
    Tools {
        #[arg(long)]
        json: bool,
    },
    /// Print a shell completion script (bash, zsh, fish, elvish, powershell).
    Completions { shell: clap_complete::Shell },
    /// Print the manual page (roff), for `man -l -` or a man directory.
    Man,
    /// Print the whole catalog: every tool, action and parameter.
    Catalog {
        /// As JSON (the default).
        #[arg(long, conflicts_with_all = ["markdown", "surface"])]
        json: bool,
        /// As Markdown, the reference committed as docs/tools.md.
        #[arg(long, conflicts_with = "surface")]
        markdown: bool,
        /// The published surface (names, types, required, enums), one line each, committed as catalog/surface.lock.
        #[arg(long)]
        surface: bool,
    },
}

/// `serve`: stdio by default; `--http ADDR` for a shared server.
#[derive(Debug, Args)]
pub struct ServeArgs {
    /// Serve MCP over streamable HTTP on this address (such as 127.0.0.1:8080) instead of stdio.
    #[arg(long, env = "GITLAB_MCP_HTTP_ADDR", value_name = "ADDR")]
    pub http: Option<String>,
    /// The MCP endpoint's path.
    #[arg(long, env = "GITLAB_MCP_HTTP_PATH", default_value = "/mcp")]
    pub http_path: String,
    /// The server's external base URL as clients reach it (behind a proxy), such as https://mcp.example.com.
    #[arg(long, env = "GITLAB_MCP_PUBLIC_URL")]
    pub public_url: Option<String>,
    /// Host names (or name:port) clients reach the server by, besides the loopback names.
    #[arg(long, env = "GITLAB_MCP_ALLOWED_HOSTS", value_delimiter = ',')]
    pub allowed_hosts: Vec<String>,
    /// Browser origins allowed besides those on an allowed host (such as https://app.example.com).
    #[arg(long, env = "GITLAB_MCP_ALLOWED_ORIGINS", value_delimiter = ',')]
    pub allowed_origins: Vec<String>,
    /// Every request must bring its own GitLab token; the server's token is never used over HTTP.
    #[arg(long, env = "GITLAB_MCP_REQUIRE_CLIENT_TOKEN", value_parser = BoolishValueParser::new())]
    pub require_client_token: bool,
    /// A secret every request must send as `Authorization: Bearer` (GitLab tokens then go in Private-Token).
    #[arg(long, env = "GITLAB_MCP_HTTP_AUTH_TOKEN", hide_env_values = true)]
    pub http_auth_token: Option<String>,
    /// Serve on a non-loopback address without authenticating callers (trusted networks only).
    #[arg(long, env = "GITLAB_MCP_INSECURE_HTTP", value_parser = BoolishValueParser::new())]
    pub insecure_http: bool,
    /// Other GitLab instances a request may name in its X-GitLab-URL header.
    #[arg(long, env = "GITLAB_MCP_ALLOWED_GITLAB_URLS", value_delimiter = ',')]
    pub allowed_gitlab_urls: Vec<String>,
    /// Largest request body, in bytes.
    #[arg(long, env = "GITLAB_MCP_HTTP_MAX_BODY", default_value_t = 4 * 1024 * 1024, value_parser = at_least::<usize>(MIN_BODY_BYTES))]
    pub max_body_bytes: usize,
    /// Most connections open at once (more wait to be accepted); keep it under the process's file-descriptor limit.
    #[arg(long, env = "GITLAB_MCP_HTTP_MAX_CONNECTIONS", default_value_t = 1024, value_parser = at_least::<usize>(1))]
    pub max_connections: usize,
    /// Most seconds a request's header may take to arrive, and an idle kept-alive connection may stay open.
    #[arg(long, env = "GITLAB_MCP_HTTP_HEADER_TIMEOUT", default_value_t = 10, value_parser = at_least::<u64>(1))]
    pub header_timeout: u64,
    /// Most seconds an MCP request's body may take to arrive.
    #[arg(long, env = "GITLAB_MCP_HTTP_BODY_TIMEOUT", default_value_t = 30, value_parser = at_least::<u64>(1))]
    pub body_timeout: u64,
    /// Most MCP requests served at once.
    #[arg(long, env = "GITLAB_MCP_HTTP_MAX_REQUESTS", default_value_t = 256, value_parser = at_least::<usize>(1))]
    pub max_requests: usize,
    /// Most MCP requests served at once for one token.
    #[arg(long, env = "GITLAB_MCP_HTTP_MAX_PER_TOKEN", default_value_t = 32, value_parser = at_least::<usize>(1))]
    pub max_requests_per_token: usize,
    /// Most seconds one tool call may take.
    #[arg(long, env = "GITLAB_MCP_HTTP_CALL_TIMEOUT", default_value_t = 120, value_parser = at_least::<u64>(1))]
    pub call_timeout: u64,
    /// Keep legacy (pre-2026-07-28) sessions in memory, for server-sent elicitation; needs sticky sessions behind a load balancer.
    #[arg(long, env = "GITLAB_MCP_HTTP_STATEFUL", value_parser = BoolishValueParser::new())]
    pub stateful: bool,
    /// Every MCP request through rmcp's service, even the plain tool calls the server answers itself over stdio and stateless HTTP (for comparing the two paths).
    #[arg(long, hide = true, env = "GITLAB_MCP_RMCP_ONLY", value_parser = BoolishValueParser::new())]
    pub rmcp_only: bool,
    /// Most legacy sessions held at once with --stateful (each lives until deleted or idle for 5 minutes).
    #[arg(long, env = "GITLAB_MCP_HTTP_MAX_SESSIONS", default_value_t = 1000, value_parser = at_least::<usize>(1))]
    pub max_sessions: usize,
    /// Seconds the calls in flight may take to finish after SIGTERM.
    #[arg(long, env = "GITLAB_MCP_SHUTDOWN_GRACE", default_value_t = 30)]
    pub shutdown_grace: u64,

    /// Sign in with GitLab: the client id of the OAuth application you registered on GitLab (turns sign-in on).
    #[arg(long, env = "GITLAB_OAUTH_CLIENT_ID")]
    pub oauth_client_id: Option<String>,
    /// The secret of that GitLab application.
    #[arg(long, env = "GITLAB_OAUTH_CLIENT_SECRET", hide_env_values = true)]
    pub oauth_client_secret: Option<String>,
    /// GitLab scopes sign-in asks for (space- or comma-separated): api, or read_api for reads only.
    #[arg(long, env = "GITLAB_OAUTH_SCOPES", default_value = "api")]
    pub oauth_scopes: String,
    /// Secret(s) sealing what sign-in issues, each at least 32 bytes (`openssl rand -hex 32`); comma-separated to rotate, the first seals.
    #[arg(long, env = "GITLAB_MCP_TOKEN_KEY", hide_env_values = true)]
    pub token_key: Option<String>,
    /// Let sign-in fetch client metadata documents from private addresses (your own network).
    #[arg(long, env = "GITLAB_MCP_OAUTH_ALLOW_PRIVATE_CLIENTS", value_parser = BoolishValueParser::new())]
    pub oauth_allow_private_clients: bool,
}

impl ServeArgs {
    /// The HTTP settings, when `--http` was given. `extra_ca_pem` is the CA
    /// bundle also trusted for client metadata documents.
    pub fn http_settings(
        &self,
        extra_ca_pem: Option<Arc<Vec<u8>>>,
    ) -> Result<Option<HttpSettings>, String> {
        let Some(addr) = &self.http else {
            return Ok(None);
        };
        let addr = resolve_addr(addr)?;
        let clean = |list: &[String]| -> Vec<String> {
            list.iter()
                .map(|s| s.trim().to_string())
                .filter(|s| !s.is_empty())
                .collect()
        };
        Ok(Some(HttpSettings {
            addr,
            path: match self.http_path.trim().trim_end_matches('/') {
                "" => "/".to_string(),
                path => path.to_string(),
            },
            public_url: self
                .public_url
                .as_ref()
                .map(|u| u.trim().trim_end_matches('/').to_string())
                .filter(|u| !u.is_empty()),
            allowed_hosts: clean(&self.allowed_hosts),
            allowed_origins: clean(&self.allowed_origins),
            auth: CallerAuth {
                require_client_token: self.require_client_token,
                endpoint_secret: self
                    .http_auth_token
                    .as_ref()
                    .map(|t| t.trim())
                    .filter(|t| !t.is_empty())
                    .map(Secret::new),
            },
            insecure: self.insecure_http,
            allowed_gitlab_urls: clean(&self.allowed_gitlab_urls),
            max_body_bytes: self.max_body_bytes,
            max_connections: self.max_connections,
            header_timeout: Duration::from_secs(self.header_timeout),
            body_timeout: Duration::from_secs(self.body_timeout),
            max_requests: self.max_requests,
            max_requests_per_token: self.max_requests_per_token,
            call_timeout: Duration::from_secs(self.call_timeout),
            stateful: self.stateful,
            rmcp_only: self.rmcp_only,
            max_sessions: self.max_sessions,
            shutdown_grace: Duration::from_secs(self.shutdown_grace),
            signin: self.signin_settings(extra_ca_pem)?,
        }))
    }

    /// Sign-in's settings, when a client id is set.
    fn signin_settings(
        &self,
        extra_ca_pem: Option<Arc<Vec<u8>>>,
    ) -> Result<Option<SigninSettings>, String> {
        let Some(client_id) = self
            .oauth_client_id
            .as_ref()
            .map(|c| c.trim().to_string())
            .filter(|c| !c.is_empty())
        else {
            return Ok(None);
        };
        let secret = self
            .oauth_client_secret
            .as_ref()
            .filter(|s| !s.trim().is_empty())
            .ok_or_else(|| SigninError::NoSecret.to_string())?;
        let keys = self
            .token_key
            .as_ref()
            .filter(|k| !k.trim().is_empty())
            .ok_or_else(|| SigninError::NoKey.to_string())?;
        // The keys are checked now, so a short one stops the start.
        Sealer::new(keys).map_err(|e| e.to_string())?;
        let public_url = self
            .public_url
            .as_ref()
            .map(|u| u.trim().trim_end_matches('/').to_string())
            .ok_or_else(|| SigninError::NoPublicUrl.to_string())?;
        Ok(Some(SigninSettings {
            client_id,
            client_secret: Secret::new(secret.trim()),
            public_url,
            scopes: self
                .oauth_scopes
                .split([',', ' '])
                .filter(|s| !s.is_empty())
                .collect::<Vec<_>>()
                .join(" "),
            token_keys: Secret::new(keys.trim()),
            fetch: FetchPolicy {
                allow_private: self.oauth_allow_private_clients,
                extra_ca_pem: extra_ca_pem.map(|pem| pem.as_ref().clone()),
            },
        }))
    }
}

/// `127.0.0.1:8080`, `[::1]:8080`, `localhost:8080` or `:8080` (all
/// interfaces).
fn resolve_addr(text: &str) -> Result<std::net::SocketAddr, String> {
    use std::net::ToSocketAddrs;
    let text = text.trim();
    let text = if text.starts_with(':') {
        format!("0.0.0.0{text}")
    } else {
        text.to_string()
    };
    text.to_socket_addrs()
        .ok()
        .and_then(|mut addrs| addrs.next())
        .ok_or_else(|| format!("--http: `{text}` is not an address such as 127.0.0.1:8080"))
}

impl GitLabArgs {
    /// The engine's settings: where calls go, how, and what is allowed.
    pub fn settings(&self) -> Result<engine::Settings, ConfigError> {
        let token = self
            .token
            .clone()
            .map(|t| t.trim().to_string())
            .filter(|t| !t.is_empty());
        if let Some(token) = &token {
            config::check_token(token)?;
        }
        Ok(engine::Settings {
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
                max_concurrent: self.max_concurrent.unwrap_or(8),
                tls: TlsSettings {
                    extra_ca_pem: match &self.ca_cert {
                        Some(path) => Some(Arc::new(std::fs::read(path).map_err(|e| {
                            ConfigError::CaCert(path.display().to_string(), e.to_string())
                        })?)),
                        None => None,
                    },
                    skip_verify: self.tls_insecure,
                },
            },
            render: crate::render::Options {
                max_bytes: self.max_response_bytes,
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
            access: if self.read_only {
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
            lockdown: self.lockdown,
        }
    }
}

//! gitlab-mcp: the GitLab REST API for AI agents, through a few strict
//! meta-tools.
//!
//! - `catalog`: every tool, action and parameter, compiled from `catalog/`.
//! - `dispatch`: arguments → validated call, or an error that teaches (pure).
//! - `gitlab`: validated call → HTTP request → GitLab's answer (the only
//!   module that knows reqwest).
//! - `diff`: one file's diff read into hunks and lines (pure), for
//!   `render` and `handlers`.
//! - `render`: GitLab's answer → text for a model, within a size cap.
//! - `policy`: what the operator allows (access, filters, confirmation,
//!   quick actions), applied to the catalog at start-up.
//! - `engine`: one call through all of the above, shared by the MCP server
//!   and the `call` command.
//! - `mcp`: the rmcp glue (the only module that knows rmcp).
//! - `http_url`: every URL the server trusts, read by one parser (`url`).
//! - `cli`, `config`, `tokens`: the command line (into the engine's
//!   `Settings`), what can be wrong in it, and the cl100k token count of
//!   the tool list.

pub mod catalog;
pub mod check;
pub mod cli;
pub mod config;
pub mod demo;
pub mod diff;
pub mod dispatch;
pub mod encoding;
pub mod engine;
pub mod gitlab;
pub mod handlers;
pub mod http;
pub mod http_url;
pub mod json_string;
pub mod mcp;
pub mod metrics;
pub mod migration;
pub mod policy;
pub mod render;
pub mod sandbox;
pub mod secret;
pub mod signin;
pub mod tokens;

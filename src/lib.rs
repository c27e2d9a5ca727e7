//! gitlab-mcp: the GitLab REST API for AI agents, through a few strict
//! meta-tools.
//!
//! - `catalog`: every tool, action and parameter, compiled from `catalog/`.
//! - `dispatch`: arguments → validated call, or an error that teaches (pure).
//! - `gitlab`: validated call → HTTP request → GitLab's answer (the only
//!   module that knows reqwest).
//! - `render`: GitLab's answer → text for a model.
//! - `mcp`: the rmcp glue (the only module that knows rmcp).

pub mod catalog;
pub mod cli;
pub mod config;
pub mod dispatch;
pub mod engine;
pub mod gitlab;
pub mod mcp;
pub mod policy;
pub mod render;
pub mod tokens;

//! The catalog: every tool, action and parameter the server knows, compiled
//! from `catalog/*.toml` by `build.rs`. It is the single source of truth for
//! the tool list, the schemas, the help text and the dispatch table.

mod export;
mod model;

pub use export::catalog_json;

pub use model::*;

mod generated {
    use super::model::*;
    include!(concat!(env!("OUT_DIR"), "/catalog_generated.rs"));
}

/// Every tool, in a stable order.
pub fn tools() -> &'static [ToolSpec] {
    generated::TOOLS
}

pub fn tool(name: &str) -> Option<&'static ToolSpec> {
    tools().iter().find(|t| t.name == name)
}

/// Number of actions across all tools, `help` included.
pub fn action_count() -> usize {
    tools().iter().map(|t| t.actions.len()).sum()
}

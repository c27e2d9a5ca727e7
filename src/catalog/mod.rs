//! The catalog: every tool, action, parameter, resource kind and toolset the
//! server knows, and the words agents use for them, compiled from
//! `catalog/*.toml` by the catalog compiler (`catalog-compiler/`). It is
//! the single source of truth for the tool list, the schemas, the help
//! text, the dispatch table and the rendering of each kind of answer.

mod examples;
mod export;
mod markdown;
mod model;
mod prompts;
mod surface;

pub use examples::example_envelope;
pub use export::catalog_json;
pub use markdown::catalog_markdown;
pub use prompts::{PromptError, render_prompt, tool_references};
pub use surface::{SURFACE_HEADER, catalog_surface};

pub use generated::{Check, GraphqlHandler, Handler, documents};
pub use model::*;

mod generated {
    use super::model::*;
    include!(concat!(env!("OUT_DIR"), "/catalog_generated.rs"));
}

/// The server's own icon (`catalog/icons/server.svg`), as SVG text.
pub fn server_icon() -> &'static str {
    generated::SERVER_ICON
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

/// Every resource kind, by name.
pub fn kinds() -> &'static [&'static KindSpec] {
    generated::KINDS
}

/// Every toolset `--tools` accepts.
pub fn toolsets() -> &'static [ToolsetSpec] {
    generated::TOOLSETS
}

pub fn vocabulary() -> &'static Vocabulary {
    &generated::VOCABULARY
}

/// Every MCP prompt.
pub fn prompts() -> &'static [PromptSpec] {
    generated::PROMPTS
}

/// The web URL shapes agents are handed.
pub fn url_shapes() -> &'static [UrlShape] {
    generated::URL_SHAPES
}

/// The web URL parameter (`url`), which every action with a project
/// parameter takes in place of the parameters the URL holds; `None` for a
/// catalog that declares none.
pub fn web_url() -> Option<&'static ParamSpec> {
    generated::WEB_URL
}

/// GitLab's reference prefixes (`#`, `!`...) and the parameters each may
/// stand for.
pub fn references() -> &'static [(char, &'static [&'static str])] {
    generated::REFERENCES
}

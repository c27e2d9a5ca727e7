//! MCP prompts from the catalog (`catalog/prompts.toml`): listed only when
//! every tool and action their text names is offered by this server.

use std::collections::BTreeMap;

use rmcp::ErrorData;
use rmcp::model::{GetPromptResult, Prompt, PromptArgument, PromptMessage, Role};
use serde_json::{Map, Value};

use crate::catalog::{self, PromptSpec, ToolSpec};

/// The prompts the offered tools can carry out.
pub fn available(tools: &[ToolSpec]) -> Vec<&'static PromptSpec> {
    catalog::prompts()
        .iter()
        .filter(|p| {
            catalog::tool_references(p.text)
                .iter()
                .all(|(tool, action)| {
                    tools
                        .iter()
                        .any(|t| t.name == tool && t.action(action).is_some())
                })
        })
        .collect()
}

pub fn listed(tools: &[ToolSpec]) -> Vec<Prompt> {
    available(tools)
        .into_iter()
        .map(|p| {
            let arguments = p
                .arguments
                .iter()
                .map(|a| {
                    PromptArgument::new(a.name)
                        .with_description(a.description)
                        .with_required(a.required)
                })
                .collect();
            Prompt::new(p.name, Some(p.description), Some(arguments)).with_title(p.title)
        })
        .collect()
}

/// The prompt's text with its arguments, as one user message.
pub fn get(
    tools: &[ToolSpec],
    name: &str,
    arguments: Option<&Map<String, Value>>,
) -> Result<GetPromptResult, ErrorData> {
    let prompt = available(tools)
        .into_iter()
        .find(|p| p.name == name)
        .ok_or_else(|| ErrorData::invalid_params(format!("no prompt `{name}`"), None))?;
    let given: BTreeMap<String, String> = arguments
        .into_iter()
        .flatten()
        .map(|(k, v)| {
            let text = match v {
                Value::String(s) => s.clone(),
                other => other.to_string(),
            };
            (k.clone(), text)
        })
        .collect();
    let text = catalog::render_prompt(prompt, &given)
        .map_err(|e| ErrorData::invalid_params(format!("prompt `{name}`: {e}"), None))?;
    let mut result = GetPromptResult::new(vec![PromptMessage::new_text(Role::User, text)]);
    result.description = Some(prompt.description.to_string());
    Ok(result)
}

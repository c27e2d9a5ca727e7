//! A prompt's text with its arguments: `{name}` becomes the value; a part
//! marked `[name]…[/name]`, or a line starting with `[name] `, is kept only
//! when that argument is given.

use std::collections::BTreeMap;

use super::PromptSpec;

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PromptError {
    #[error("argument `{0}` is required")]
    Missing(&'static str),
    #[error("`{0}` is not an argument of this prompt (arguments: {1})")]
    Unknown(String, String),
}

pub fn render_prompt(
    prompt: &PromptSpec,
    given: &BTreeMap<String, String>,
) -> Result<String, PromptError> {
    let names: Vec<&str> = prompt.arguments.iter().map(|a| a.name).collect();
    if let Some(unknown) = given.keys().find(|k| !names.contains(&k.as_str())) {
        return Err(PromptError::Unknown(unknown.clone(), names.join(", ")));
    }
    let value = |name: &str| given.get(name).map(|v| v.trim()).filter(|v| !v.is_empty());
    if let Some(missing) = prompt
        .arguments
        .iter()
        .find(|a| a.required && value(a.name).is_none())
    {
        return Err(PromptError::Missing(missing.name));
    }
    let mut out = String::new();
    for line in prompt.text.lines() {
        // `[name] rest of the line`
        if let Some(rest) = line.strip_prefix('[')
            && let Some((name, tail)) = rest.split_once("] ")
            && names.contains(&name)
            && !tail.contains(&format!("[/{name}]"))
        {
            if value(name).is_some() {
                out.push_str(&fill(tail, &value));
                out.push('\n');
            }
            continue;
        }
        out.push_str(&fill(&keep_given_parts(line, &names, &value), &value));
        out.push('\n');
    }
    Ok(out.trim().to_string())
}

/// `[name]…[/name]` kept (without the marks) when `name` is given.
fn keep_given_parts<'a>(
    line: &str,
    names: &[&str],
    value: &dyn Fn(&str) -> Option<&'a str>,
) -> String {
    let mut out = line.to_string();
    for name in names {
        let (open, close) = (format!("[{name}]"), format!("[/{name}]"));
        while let Some(start) = out.find(&open) {
            let Some(end) = out[start..].find(&close).map(|e| e + start) else {
                break;
            };
            let inner = out[start + open.len()..end].to_string();
            let replacement = if value(name).is_some() {
                inner
            } else {
                String::new()
            };
            out.replace_range(start..end + close.len(), &replacement);
        }
    }
    out
}

fn fill<'a>(text: &str, value: &dyn Fn(&str) -> Option<&'a str>) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(i) = rest.find('{') {
        out.push_str(&rest[..i]);
        let Some(end) = rest[i..].find('}').map(|e| e + i) else {
            break;
        };
        out.push_str(value(&rest[i + 1..end]).unwrap_or(""));
        rest = &rest[end + 1..];
    }
    out.push_str(rest);
    out
}

/// Every (tool, action) a prompt's text names as `` `gitlab_x` action `y` ``.
pub fn tool_references(text: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut tool: Option<String> = None;
    for (i, part) in text.split('`').enumerate() {
        // Odd parts are inside backticks.
        if i % 2 == 1 {
            if part.starts_with("gitlab_") && !part.contains(' ') {
                tool = Some(part.to_string());
            } else if let Some(t) = &tool
                && text_before_is_action(text, part)
            {
                out.push((t.clone(), part.to_string()));
            }
        }
    }
    out
}

/// Whether `` `part` `` follows the word "action" in `text`.
fn text_before_is_action(text: &str, part: &str) -> bool {
    text.match_indices(&format!("`{part}`"))
        .any(|(i, _)| text[..i].trim_end().ends_with("action"))
}

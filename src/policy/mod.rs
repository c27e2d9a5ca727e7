//! What this server may do, as the operator set it: an access level,
//! enabled tools, action allow and deny patterns, confirmation of
//! destructive actions, quick actions. Held by the server itself, whatever
//! the client does.
//!
//! Filtering happens once, at start-up: `prune` makes a catalog holding only
//! the allowed actions, so the tool list, the schemas, the help, the
//! suggestions and the dispatcher never see the others. `refusal` explains a
//! call to an action that was pruned; `hold` (`hold.rs`) stops a validated
//! call that may not go as it is. A token's scopes narrow the catalog
//! further (`scopes.rs`): one more pruned catalog per `Surface`.

mod hold;
pub mod lockdown;
mod patterns;
pub mod quick_actions;
mod scopes;

use crate::catalog::{self, ActionSpec, Local, ParamSpec, Route, ToolSpec};

pub use hold::Hold;
pub use patterns::Pattern;
pub use scopes::{Scopes, Surface};

/// How much the server may change in GitLab.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Access {
    /// Reads only: every action that writes is removed.
    ReadOnly,
    /// Everything but destructive actions (delete, erase, archive, transfer, unprotect...).
    NoDelete,
    /// Everything the token allows.
    #[default]
    Full,
}

impl Access {
    fn as_str(self) -> &'static str {
        match self {
            Access::ReadOnly => "read-only mode",
            Access::NoDelete => "no-delete mode",
            Access::Full => "full access",
        }
    }
}

/// How a destructive action is confirmed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Confirmation {
    /// Skip confirmation (unattended agents): `--yes`.
    pub auto: bool,
    /// Accept `"confirm": true` from the model itself.
    pub from_model: bool,
}

#[derive(Debug, Clone, Default)]
pub struct Policy {
    pub access: Access,
    /// Only these tools (names with or without `gitlab_`, or toolset names).
    pub tools: Vec<String>,
    /// When not empty, only actions matching one of these.
    pub allow: Vec<Pattern>,
    /// Actions matching one of these are removed.
    pub deny: Vec<Pattern>,
    pub confirmation: Confirmation,
    /// Let text that GitLab runs as quick actions through without an opt-in.
    pub allow_quick_actions: bool,
    /// Withhold what authors below this role in a project wrote.
    pub lockdown: Option<lockdown::Role>,
}

impl Policy {
    /// Whether the tool is enabled by `--tools`/`--toolsets`: by its name,
    /// its name without `gitlab_`, a toolset its catalog file names, or a
    /// toolset name of @zereight/mcp-gitlab (`merge_requests`...).
    fn tool_enabled(&self, tool: &ToolSpec) -> bool {
        if self.tools.is_empty() {
            return true;
        }
        let peer = catalog::vocabulary().peer_toolsets;
        self.tools.iter().any(|wanted| {
            let wanted = wanted.trim();
            wanted == tool.name
                || tool.name.strip_prefix("gitlab_") == Some(wanted)
                || tool.toolsets.contains(&wanted)
                || peer
                    .iter()
                    .any(|(name, tools)| *name == wanted && tools.contains(&tool.name))
        })
    }

    /// Why an action is not available, or `None` when it is.
    pub fn refusal(&self, tool: &ToolSpec, action: &ActionSpec) -> Option<String> {
        if action.route == Route::Local(Local::Help) {
            return None;
        }
        let name = format!("{}.{}", tool.name, action.name);
        if !self.tool_enabled(tool) {
            return Some(format!(
                "the tool `{}` is not enabled on this server",
                tool.name
            ));
        }
        match self.access {
            Access::ReadOnly if !action.read_only => {
                return Some(format!(
                    "`{name}` changes GitLab, and this server is in {}",
                    self.access.as_str()
                ));
            }
            Access::NoDelete if action.destructive => {
                return Some(format!(
                    "`{name}` is destructive, and this server is in {}",
                    self.access.as_str()
                ));
            }
            _ => {}
        }
        // Lockdown screens REST answers by their authors' membership; a
        // GraphQL answer it cannot screen is not given (fail closed).
        if self.lockdown.is_some() && matches!(action.route, Route::Graphql(_)) {
            return Some(format!(
                "`{name}` answers through GraphQL, which lockdown (--lockdown) does not screen"
            ));
        }
        if let Some(p) = self.deny.iter().find(|p| p.matches(&name)) {
            return Some(format!("`{name}` is denied on this server (pattern `{p}`)"));
        }
        if !self.allow.is_empty() && !self.allow.iter().any(|p| p.matches(&name)) {
            return Some(format!("`{name}` is not in this server's allowed actions"));
        }
        None
    }

    /// The catalog with only the allowed actions; tools left with nothing
    /// but `help` are gone. Built once at start-up and kept for the life of
    /// the process, hence `'static`.
    pub fn prune(&self, tools: &'static [ToolSpec]) -> &'static [ToolSpec] {
        self.prune_for(tools, Surface::Full)
    }

    /// The catalog a token with this surface is offered: the allowed
    /// actions its scopes open. Built at most once per surface.
    pub fn prune_for(&self, tools: &'static [ToolSpec], surface: Surface) -> &'static [ToolSpec] {
        if self.is_unrestricted() && surface == Surface::Full {
            return tools;
        }
        let mut out = Vec::new();
        for tool in tools {
            let kept: Vec<&ActionSpec> = tool
                .actions
                .iter()
                .filter(|a| {
                    a.route != Route::Local(Local::Help)
                        && self.refusal(tool, a).is_none()
                        && surface.allows(a)
                })
                .collect();
            if kept.is_empty() {
                continue;
            }
            let names: Vec<&'static str> = kept.iter().map(|a| a.name).collect();
            let mut actions: Vec<ActionSpec> = kept.into_iter().cloned().collect();
            if let Some(help_action) = tool.action("help") {
                actions.push(restrict_help(help_action, &names));
            }
            let actions: &'static [ActionSpec] = Box::leak(actions.into_boxed_slice());
            let example = if example_still_valid(tool.example, &names) {
                tool.example
            } else {
                Box::leak(catalog::example_envelope(&actions[0]).into_boxed_str())
            };
            out.push(ToolSpec {
                example,
                actions,
                ..*tool
            });
        }
        Box::leak(out.into_boxed_slice())
    }

    fn is_unrestricted(&self) -> bool {
        self.access == Access::Full
            && self.lockdown.is_none()
            && self.tools.is_empty()
            && self.allow.is_empty()
            && self.deny.is_empty()
    }
}

/// `help` whose `action` parameter lists only the actions left.
fn restrict_help(help_action: &ActionSpec, names: &[&'static str]) -> ActionSpec {
    let allowed: &'static [&'static str] = Box::leak(names.to_vec().into_boxed_slice());
    let params: Vec<ParamSpec> = help_action
        .params
        .iter()
        .map(|p| ParamSpec {
            allowed,
            ..p.clone()
        })
        .collect();
    ActionSpec {
        params: Box::leak(params.into_boxed_slice()),
        ..help_action.clone()
    }
}

fn example_still_valid(example: &str, names: &[&str]) -> bool {
    serde_json::from_str::<serde_json::Value>(example)
        .ok()
        .and_then(|v| {
            v.get("action")
                .and_then(|a| a.as_str())
                .map(|a| names.contains(&a))
        })
        .unwrap_or(false)
}

//! Calls the policy holds back before anything is sent, and the words that
//! say why: text GitLab would run as quick actions without an opt-in, and a
//! destructive action the user has not confirmed. The engine only matches
//! on the `Hold`; how a confirmation is asked is the MCP layer's business.

use serde_json::Value;

use super::{Policy, quick_actions};
use crate::catalog::Location;
use crate::dispatch::ValidatedCall;

/// Why a call waits, with what the model and the user read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Hold {
    /// Refused outright: the call must change before it is sent.
    Refused(String),
    /// A destructive action waits for the user. `question` is what to ask;
    /// `refusal` is the answer when there is no way to ask.
    Confirmation { question: String, refusal: String },
}

impl Policy {
    /// Whether `call` is held, and why. `confirmed`: the user already
    /// agreed to this very call.
    pub fn hold(&self, call: &ValidatedCall, confirmed: bool) -> Option<Hold> {
        if let Some(refusal) = self.quick_action_refusal(call) {
            return Some(Hold::Refused(refusal));
        }
        if call.action.destructive && !confirmed && !self.confirmed_by_policy(call) {
            return Some(self.confirmation(call));
        }
        None
    }

    /// Text GitLab would run as quick actions needs the operator's or the
    /// call's consent.
    fn quick_action_refusal(&self, call: &ValidatedCall) -> Option<String> {
        if self.allow_quick_actions || call.intent.quick_actions {
            return None;
        }
        let mut found: Vec<String> = Vec::new();
        let mut screen = |at: String, text: Option<&str>| {
            let commands = text.map(quick_actions::find).unwrap_or_default();
            if !commands.is_empty() {
                found.push(format!("`{at}` has {}", commands.join(", ")));
            }
        };
        for arg in &call.args {
            if arg.spec.quick_actions {
                screen(arg.spec.name.to_string(), arg.value.as_str());
            }
            // The texts inside a list of objects (a review's comments).
            let items = arg.value.as_array().map_or(&[][..], Vec::as_slice);
            for field in arg.spec.fields.iter().filter(|f| f.quick_actions) {
                for (index, item) in items.iter().enumerate() {
                    let text = item.get(field.name).and_then(Value::as_str);
                    screen(format!("{}[{index}].{}", arg.spec.name, field.name), text);
                }
            }
        }
        if found.is_empty() {
            return None;
        }
        Some(format!(
            "{} {}: refused, nothing was sent. {}: GitLab runs lines starting with `/` as quick actions (closing, merging, assigning...). \
If these commands are meant, add \"quick_actions\": true beside \"action\"; if not, reword those lines (or put them in a code block).",
            call.tool.name,
            call.action.name,
            found.join("; ")
        ))
    }

    /// The operator confirmed every destructive call (`--yes`), or lets the
    /// model confirm and it did.
    fn confirmed_by_policy(&self, call: &ValidatedCall) -> bool {
        let c = self.confirmation;
        c.auto || (c.from_model && call.intent.confirm)
    }

    fn confirmation(&self, call: &ValidatedCall) -> Hold {
        let target: Vec<String> = call
            .args
            .iter()
            .filter(|a| a.spec.location == Location::Path)
            .map(|a| format!("{} {}", a.spec.name, a.value))
            .collect();
        let question = format!(
            "Allow the AI agent to run {} {} ({})? {} This cannot be undone.",
            call.tool.name,
            call.action.name,
            target.join(", "),
            call.action.summary
        );
        let how = if self.confirmation.from_model {
            "add \"confirm\": true beside \"action\" once the user agreed"
        } else {
            "the operator can run the server with --yes (GITLAB_MCP_AUTO_CONFIRM=true), or allow the model to confirm with --allow-model-confirm"
        };
        let refusal = format!(
            "{} {}: refused, nothing was sent. This action is destructive and needs confirmation, and this client cannot ask the user. To confirm: {how}.",
            call.tool.name, call.action.name
        );
        Hold::Confirmation { question, refusal }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::{Value, json};

    use super::*;
    use crate::catalog;
    use crate::dispatch::{self, ValidatedCall};
    use crate::policy::Confirmation;

    fn call(tool: &str, envelope: Value) -> ValidatedCall {
        let Value::Object(arguments) = envelope else {
            panic!("an envelope is an object")
        };
        let tool = catalog::tool(tool).unwrap();
        dispatch::decode(tool, catalog::tools(), arguments, None).unwrap()
    }

    fn delete_issue(extra: Value) -> ValidatedCall {
        let mut envelope =
            json!({"action": "delete", "params": {"project_id": "g/p", "issue_iid": 7}});
        envelope
            .as_object_mut()
            .unwrap()
            .extend(extra.as_object().unwrap().clone());
        call("gitlab_issue", envelope)
    }

    fn comment(body: &str, extra: Value) -> ValidatedCall {
        let mut envelope = json!({"action": "note_create", "params": {"project_id": "g/p", "issue_iid": 7, "body": body}});
        envelope
            .as_object_mut()
            .unwrap()
            .extend(extra.as_object().unwrap().clone());
        call("gitlab_issue", envelope)
    }

    #[test]
    fn a_destructive_call_asks_the_user_naming_what_it_destroys() {
        let held = Policy::default().hold(&delete_issue(json!({})), false);
        let Some(Hold::Confirmation { question, refusal }) = held else {
            panic!("{held:?}")
        };
        assert_eq!(
            question,
            format!(
                "Allow the AI agent to run gitlab_issue delete (project_id \"g/p\", issue_iid 7)? {} This cannot be undone.",
                catalog::tool("gitlab_issue")
                    .unwrap()
                    .action("delete")
                    .unwrap()
                    .summary
            )
        );
        assert_eq!(
            refusal,
            "gitlab_issue delete: refused, nothing was sent. This action is destructive and needs confirmation, and this client cannot ask the user. To confirm: the operator can run the server with --yes (GITLAB_MCP_AUTO_CONFIRM=true), or allow the model to confirm with --allow-model-confirm."
        );
    }

    #[test]
    fn the_model_confirms_only_when_the_operator_lets_it() {
        let confirmed = delete_issue(json!({"confirm": true}));
        assert!(matches!(
            Policy::default().hold(&confirmed, false),
            Some(Hold::Confirmation { .. })
        ));
        let policy = Policy {
            confirmation: Confirmation {
                auto: false,
                from_model: true,
            },
            ..Policy::default()
        };
        assert_eq!(policy.hold(&confirmed, false), None);
        let Some(Hold::Confirmation { refusal, .. }) = policy.hold(&delete_issue(json!({})), false)
        else {
            panic!("an unconfirmed call is held")
        };
        assert!(
            refusal.ends_with(
                "To confirm: add \"confirm\": true beside \"action\" once the user agreed."
            ),
            "{refusal}"
        );
    }

    #[test]
    fn the_user_or_the_operator_lets_a_destructive_call_through() {
        assert_eq!(Policy::default().hold(&delete_issue(json!({})), true), None);
        let policy = Policy {
            confirmation: Confirmation {
                auto: true,
                from_model: false,
            },
            ..Policy::default()
        };
        assert_eq!(policy.hold(&delete_issue(json!({})), false), None);
    }

    #[test]
    fn quick_actions_are_refused_without_an_opt_in() {
        let held = Policy::default().hold(&comment("LGTM\n/merge\n/close", json!({})), false);
        assert_eq!(
            held,
            Some(Hold::Refused(
                "gitlab_issue note_create: refused, nothing was sent. `body` has /merge, /close: GitLab runs lines starting with `/` as quick actions (closing, merging, assigning...). \
If these commands are meant, add \"quick_actions\": true beside \"action\"; if not, reword those lines (or put them in a code block).".to_string()
            ))
        );
        let opted = comment("/close", json!({"quick_actions": true}));
        assert_eq!(Policy::default().hold(&opted, false), None);
        let policy = Policy {
            allow_quick_actions: true,
            ..Policy::default()
        };
        assert_eq!(policy.hold(&comment("/close", json!({})), false), None);
        assert_eq!(
            Policy::default().hold(&comment("```\n/close\n```", json!({})), false),
            None
        );
    }
}

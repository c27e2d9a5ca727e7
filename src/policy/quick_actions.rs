//! Quick actions: lines of a note or description that GitLab runs as
//! commands (`/merge`, `/close`, `/assign @x`). Text an agent writes, or
//! copies from an issue it read, can run them by accident or by injection.
//! Lines inside fenced code blocks are not run by GitLab and are ignored.

/// GitLab's quick action commands (docs: user/project/quick_actions).
const COMMANDS: &[&str] = &[
    "add_child",
    "add_contacts",
    "add_email",
    "approve",
    "assign",
    "assign_reviewer",
    "award",
    "blocked_by",
    "blocks",
    "cc",
    "checkin_reminder",
    "child_epic",
    "clear_health_status",
    "clear_weight",
    "clone",
    "close",
    "confidential",
    "convert_to_ticket",
    "copy_metadata",
    "create_merge_request",
    "done",
    "draft",
    "due",
    "duplicate",
    "epic",
    "estimate",
    "health_status",
    "iteration",
    "label",
    "link",
    "lock",
    "merge",
    "milestone",
    "move",
    "page",
    "parent_epic",
    "promote",
    "promote_to",
    "promote_to_incident",
    "publish",
    "q",
    "react",
    "ready",
    "rebase",
    "reassign",
    "reassign_reviewer",
    "relabel",
    "relate",
    "remove_child",
    "remove_contacts",
    "remove_due_date",
    "remove_email",
    "remove_epic",
    "remove_estimate",
    "remove_iteration",
    "remove_milestone",
    "remove_parent",
    "remove_parent_epic",
    "remove_time_spent",
    "remove_zoom",
    "reopen",
    "request_review",
    "request_changes",
    "severity",
    "set_parent",
    "shrug",
    "spend",
    "spent",
    "status",
    "submit_review",
    "subscribe",
    "tableflip",
    "target_branch",
    "timeline",
    "title",
    "todo",
    "type",
    "unapprove",
    "unassign",
    "unassign_reviewer",
    "unlabel",
    "unlink",
    "unlock",
    "unrelate",
    "unsubscribe",
    "weight",
    "wip",
    "zoom",
];

/// The quick actions in `text`, in order.
pub fn find(text: &str) -> Vec<String> {
    let mut found = Vec::new();
    let mut in_code = false;
    for line in text.lines() {
        let line = line.trim_start();
        if line.starts_with("```") || line.starts_with("~~~") {
            in_code = !in_code;
            continue;
        }
        if in_code {
            continue;
        }
        let Some(rest) = line.strip_prefix('/') else {
            continue;
        };
        let command: String = rest
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
            .collect::<String>()
            .to_ascii_lowercase();
        if COMMANDS.contains(&command.as_str()) {
            found.push(format!("/{command}"));
        }
    }
    found
}

#[cfg(test)]
mod tests {
    use super::find;

    #[test]
    fn finds_commands_at_line_starts_outside_code() {
        assert_eq!(
            find("Looks good.\n/merge\n  /assign @bob"),
            ["/merge", "/assign"]
        );
        assert!(find("see /usr/bin and http://x/close").is_empty());
        assert!(find("```\n/close\n```").is_empty());
        assert_eq!(find("/CLOSE please"), ["/close"]);
    }
}

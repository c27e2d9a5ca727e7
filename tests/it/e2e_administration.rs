//! Project and group administration end to end, one call per kind of
//! answer these actions return: the exact request the fake received and
//! what the client saw (a token's secret shown once, a mirror's masked
//! credentials, deliveries without their bodies in a list).

use crate::common;

use common::{Harness, Lifecycle};
use serde_json::{Value, json};

/// One call: the tool and its arguments, the request line and JSON body the
/// fake must receive (`Null`: no body), text the answer must hold and text
/// it must not.
struct Case {
    tool: &'static str,
    call: Value,
    line: &'static str,
    body: Value,
    shows: &'static [&'static str],
    hides: &'static [&'static str],
}

fn cases() -> Vec<Case> {
    vec![
        // access_token
        Case {
            tool: "gitlab_project",
            call: json!({"action": "token_create", "params": {
                "project_id": "acme/platform/api", "name": "ci-bot", "scopes": ["read_api", "read_repository"],
                "access_level": 30, "expires_at": "2026-12-31"
            }}),
            line: "POST /api/v4/projects/acme%2Fplatform%2Fapi/access_tokens",
            body: json!({"name": "ci-bot", "scopes": ["read_api", "read_repository"], "access_level": 30, "expires_at": "2026-12-31"}),
            shows: &[
                "\"token\":\"glpat-",
                "\"access_level\":30",
                "\"scopes\":[\"read_api\",\"read_repository\"]",
            ],
            hides: &[],
        },
        // invitation
        Case {
            tool: "gitlab_project",
            call: json!({"action": "invite_list", "params": {"project_id": "acme/platform/api", "query": "carol"}}),
            line: "GET /api/v4/projects/acme%2Fplatform%2Fapi/invitations?query=carol",
            body: Value::Null,
            shows: &[
                "\"invite_email\":\"carol@example.com\"",
                "\"access_level\":30",
            ],
            hides: &[],
        },
        // mirror
        Case {
            tool: "gitlab_project",
            call: json!({"action": "mirror_create", "params": {
                "project_id": 1, "url": "https://bot:s3cret@mirror.acme.example/api.git",
                "enabled": true, "only_protected_branches": true
            }}),
            line: "POST /api/v4/projects/1/remote_mirrors",
            body: json!({"url": "https://bot:s3cret@mirror.acme.example/api.git", "enabled": true, "only_protected_branches": true}),
            shows: &["*****:*****@mirror.acme.example", "\"enabled\":true"],
            hides: &["s3cret"],
        },
        // public_key
        Case {
            tool: "gitlab_project",
            call: json!({"action": "mirror_public_key", "params": {"project_id": 1, "mirror_id": 7}}),
            line: "GET /api/v4/projects/1/remote_mirrors/7/public_key",
            body: Value::Null,
            shows: &["ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIMirrorKey"],
            hides: &[],
        },
        // pages
        Case {
            tool: "gitlab_project",
            call: json!({"action": "pages_get", "params": {"project_id": 1}}),
            line: "GET /api/v4/projects/1/pages",
            body: Value::Null,
            shows: &[
                "\"url\":\"https://api.pages.example.com\"",
                "\"root_directory\":\"public\"",
            ],
            hides: &[],
        },
        // pages_domain: a domain is one path segment, dots and all
        Case {
            tool: "gitlab_project",
            call: json!({"action": "domain_get", "params": {"project_id": 1, "domain": "www.acme.example"}}),
            line: "GET /api/v4/projects/1/pages/domains/www.acme.example",
            body: Value::Null,
            shows: &[
                "gitlab-pages-verification-code=",
                "\"auto_ssl_enabled\":true",
            ],
            hides: &[],
        },
        // export_status
        Case {
            tool: "gitlab_project",
            call: json!({"action": "export_status", "params": {"project_id": 1}}),
            line: "GET /api/v4/projects/1/export",
            body: Value::Null,
            shows: &["\"export_status\":\"finished\""],
            hides: &[],
        },
        // import_status
        Case {
            tool: "gitlab_project",
            call: json!({"action": "import_status", "params": {"project_id": 1}}),
            line: "GET /api/v4/projects/1/import",
            body: Value::Null,
            shows: &[
                "\"import_status\":\"failed\"",
                "Repository could not be cloned",
                "\"relation_name\":\"merge_requests\"",
            ],
            hides: &[],
        },
        // feature_flag_user_list: user_xids is one comma-separated string
        Case {
            tool: "gitlab_project",
            call: json!({"action": "flag_user_list_create", "params": {"project_id": 1, "name": "beta", "user_xids": ["u-1", "u-2"]}}),
            line: "POST /api/v4/projects/1/feature_flags_user_lists",
            body: json!({"name": "beta", "user_xids": "u-1,u-2"}),
            shows: &["\"name\":\"beta\"", "\"user_xids\":\"u-1,u-2\""],
            hides: &[],
        },
        // hook_event: a list keeps the summary fields, not the payloads
        Case {
            tool: "gitlab_project",
            call: json!({"action": "hook_event_list", "params": {"project_id": 1, "hook_id": 3, "status": ["500"]}}),
            line: "GET /api/v4/projects/1/hooks/3/events?status[]=500",
            body: Value::Null,
            shows: &["\"response_status\":\"500\"", "\"trigger\":\"push_hooks\""],
            hides: &["a long response body", "request_headers"],
        },
        // project_statistics
        Case {
            tool: "gitlab_project",
            call: json!({"action": "statistics", "params": {"project_id": 1}}),
            line: "GET /api/v4/projects/1/statistics",
            body: Value::Null,
            shows: &["\"total\":50", "\"date\":\"2026-03-02\""],
            hides: &[],
        },
        // project_storage
        Case {
            tool: "gitlab_project",
            call: json!({"action": "storage", "params": {"project_id": 1}}),
            line: "GET /api/v4/projects/1/storage",
            body: Value::Null,
            shows: &[
                "\"disk_path\":\"@hashed/",
                "\"repository_storage\":\"default\"",
            ],
            hides: &[],
        },
        // storage_move
        Case {
            tool: "gitlab_project",
            call: json!({"action": "storage_move_create", "params": {"project_id": 1, "destination_storage_name": "storage2"}}),
            line: "POST /api/v4/projects/1/repository_storage_moves",
            body: json!({"destination_storage_name": "storage2"}),
            shows: &[
                "\"state\":\"scheduled\"",
                "\"destination_storage_name\":\"storage2\"",
            ],
            hides: &[],
        },
        // custom_attribute
        Case {
            tool: "gitlab_group",
            call: json!({"action": "attribute_set", "params": {"group_id": "acme", "key": "team", "value": "web"}}),
            line: "PUT /api/v4/groups/acme/custom_attributes/team",
            body: json!({"value": "web"}),
            shows: &["\"key\":\"team\"", "\"value\":\"web\""],
            hides: &[],
        },
        // audit_event
        Case {
            tool: "gitlab_group",
            call: json!({"action": "audit_event_list", "params": {"group_id": "acme", "created_after": "2026-03-01T00:00:00Z"}}),
            line: "GET /api/v4/groups/acme/audit_events?created_after=2026-03-01T00%3A00%3A00Z",
            body: Value::Null,
            shows: &[
                "\"event_name\":\"member_created\"",
                "\"target_details\":\"bob\"",
            ],
            hides: &[],
        },
        // membership
        Case {
            tool: "gitlab_group",
            call: json!({"action": "billable_membership_list", "params": {"group_id": "acme", "user_id": 2}}),
            line: "GET /api/v4/groups/acme/billable_members/2/memberships",
            body: Value::Null,
            shows: &[
                "\"source_full_name\":\"acme/platform/api\"",
                "\"integer_value\":30",
            ],
            hides: &[],
        },
    ]
}

#[tokio::test]
async fn each_kind_of_administration_answer_goes_through_exactly() {
    let h = Harness::start(Lifecycle::Initialize).await;
    for case in cases() {
        h.fake.clear_requests();
        let here = format!("{} {}", case.tool, case.call["action"]);
        let text = h.ok(case.tool, case.call.clone()).await;
        let request = h.only_request();
        assert_eq!(request.line(), case.line, "{here}");
        assert_eq!(request.json(), case.body, "{here}");
        for shown in case.shows {
            assert!(text.contains(shown), "{here}: want {shown} in {text}");
        }
        for hidden in case.hides {
            assert!(!text.contains(hidden), "{here}: {hidden} shown in {text}");
        }
    }
    h.stop().await;
}

#[tokio::test]
async fn an_unknown_pages_domain_says_where_the_domains_are_listed() {
    let h = Harness::start(Lifecycle::Discover).await;
    let out = h
        .call(
            "gitlab_project",
            json!({"action": "domain_get", "params": {"project_id": 1, "domain": "old.acme.example"}}),
        )
        .await;
    assert!(out.text.contains("`domain_list`"), "{}", out.text);
    assert_eq!(
        h.only_request().line(),
        "GET /api/v4/projects/1/pages/domains/old.acme.example"
    );
    h.stop().await;
}

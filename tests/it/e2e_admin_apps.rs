//! OAuth applications, migrations by direct transfer, batched background
//! migrations and operations, offline exports and group uploads over stdio, one answer of each kind: the
//! exact request the fake received and what the client saw. Alice's token
//! is the fake's administrator; bob's is an ordinary user.

use crate::common;

use common::{Harness, Lifecycle};
use serde_json::json;

#[tokio::test]
async fn creating_your_oauth_application_answers_its_secret_once() {
    let h = Harness::start(Lifecycle::Initialize).await;
    let text = h
        .ok("gitlab_user", json!({"action": "application_create", "params": {"name": "CI helper", "redirect_uri": "https://tools.example.com/oauth/callback", "scopes": "api read_user", "confidential": false}}))
        .await;
    assert!(
        text.contains("\"secret\":\"gloas-3f1e9a\"")
            && text.contains("\"application_name\":\"CI helper\"")
            // The redirect is the application's own, kept by the compact view.
            && text.contains("\"callback_url\":\"https://tools.example.com/oauth/callback\""),
        "{text}"
    );
    let request = h.only_request();
    assert_eq!(request.line(), "POST /api/v4/user/applications");
    assert_eq!(
        request.json(),
        json!({"name": "CI helper", "redirect_uri": "https://tools.example.com/oauth/callback", "scopes": "api read_user", "confidential": false})
    );
    h.fake.clear_requests();

    let text = h
        .ok("gitlab_user", json!({"action": "application_list"}))
        .await;
    assert!(
        text.contains("\"application_name\":\"Release bot\"") && !text.contains("secret"),
        "{text}"
    );
    assert_eq!(h.only_request().line(), "GET /api/v4/user/applications");
    h.fake.clear_requests();

    let text = h
        .err("gitlab_user", json!({"action": "application_create", "params": {"name": "x", "redirect_uri": "https://x.example", "scopes": "everything"}}))
        .await;
    assert!(text.contains("400") && text.contains("scope"), "{text}");
    h.stop().await;
}

#[tokio::test]
async fn renewing_an_instance_application_secret_answers_the_new_one() {
    let h = Harness::confirming_admin().await;
    let text = h
        .ok(
            "gitlab_instance",
            json!({"action": "application_renew", "params": {"app_id": 1}}),
        )
        .await;
    assert!(text.contains("\"secret\":\"gloas-renewed-7c2d\""), "{text}");
    let request = h.only_request();
    assert_eq!(request.line(), "POST /api/v4/applications/1/renew-secret");
    assert_eq!(request.body, "");
    h.stop().await;

    let h = Harness::start_with(Lifecycle::Initialize, &[("GITLAB_TOKEN", "glpat-bob")]).await;
    let text = h
        .err("gitlab_instance", json!({"action": "application_list"}))
        .await;
    assert!(
        text.contains("403") && text.contains("Only administrators"),
        "{text}"
    );
    assert_eq!(h.only_request().line(), "GET /api/v4/applications");
    h.stop().await;
}

#[tokio::test]
async fn a_direct_transfer_migration_is_started_with_its_source_and_entities() {
    let h = Harness::start(Lifecycle::Initialize).await;
    let params = json!({
        "configuration": {"url": "https://gitlab.example.com", "access_token": "glpat-source"},
        "entities": [{"source_type": "group_entity", "source_full_path": "source/platform", "destination_namespace": "acme", "destination_slug": "platform-copy", "migrate_projects": false}],
    });
    let text = h
        .ok(
            "gitlab_instance",
            json!({"action": "bulk_import_create", "params": params}),
        )
        .await;
    assert!(
        text.contains("\"status\":\"created\"")
            && text.contains("\"id\":3")
            && text.contains("\"source_url\":\"https://gitlab.example.com\""),
        "{text}"
    );
    let request = h.only_request();
    assert_eq!(request.line(), "POST /api/v4/bulk_imports");
    assert_eq!(request.json(), params);
    h.fake.clear_requests();

    let text = h
        .ok(
            "gitlab_instance",
            json!({"action": "bulk_import_list", "params": {"status": "started"}}),
        )
        .await;
    assert!(
        text.contains("\"id\":2") && !text.contains("\"id\":1,"),
        "{text}"
    );
    assert_eq!(
        h.only_request().line(),
        "GET /api/v4/bulk_imports?status=started"
    );
    h.fake.clear_requests();

    // An entity without its required fields never reaches GitLab.
    let text = h
        .err("gitlab_instance", json!({"action": "bulk_import_create", "params": {"configuration": {"url": "https://gitlab.example.com", "access_token": "t"}, "entities": [{"source_type": "group_entity"}]}}))
        .await;
    assert!(text.contains("source_full_path"), "{text}");
    assert!(h.requests().is_empty());
    h.stop().await;
}

#[tokio::test]
async fn a_migrations_entities_and_their_failures_are_listed() {
    let h = Harness::start(Lifecycle::Initialize).await;
    let text = h
        .ok("gitlab_instance", json!({"action": "bulk_import_entity_list", "params": {"import_id": 1, "status": "finished"}}))
        .await;
    assert!(
        text.contains("\"destination_full_path\":\"acme/platform-copy\"")
            && !text.contains("stats"),
        "{text}"
    );
    assert_eq!(
        h.only_request().line(),
        "GET /api/v4/bulk_imports/1/entities?status=finished"
    );
    h.fake.clear_requests();

    let text = h
        .ok(
            "gitlab_instance",
            json!({"action": "bulk_import_failures", "params": {"import_id": 1, "entity_id": 1}}),
        )
        .await;
    assert!(
        text.contains("\"relation\":\"issues\"") && text.contains("Error!"),
        "{text}"
    );
    assert_eq!(
        h.only_request().line(),
        "GET /api/v4/bulk_imports/1/entities/1/failures"
    );
    h.fake.clear_requests();

    let text = h
        .err(
            "gitlab_instance",
            json!({"action": "bulk_import_entity_list", "params": {"import_id": 9}}),
        )
        .await;
    assert!(text.contains("bulk_import_list"), "{text}");
    h.stop().await;
}

#[tokio::test]
async fn a_batched_background_migration_is_listed_and_paused_in_its_database() {
    let h = Harness::confirming_admin().await;
    let text = h
        .ok(
            "gitlab_instance",
            json!({"action": "migration_list", "params": {"database": "ci"}}),
        )
        .await;
    assert!(
        text.contains("\"id\":2") && text.contains("\"status\":\"active\""),
        "{text}"
    );
    assert_eq!(
        h.only_request().line(),
        "GET /api/v4/admin/batched_background_migrations?database=ci"
    );
    h.fake.clear_requests();

    let text = h
        .ok(
            "gitlab_instance",
            json!({"action": "migration_pause", "params": {"migration_id": 2, "database": "ci"}}),
        )
        .await;
    assert!(text.contains("\"status\":\"paused\""), "{text}");
    let request = h.only_request();
    assert_eq!(
        request.line(),
        "PUT /api/v4/admin/batched_background_migrations/2/pause"
    );
    assert_eq!(request.json(), json!({"database": "ci"}));
    h.stop().await;
}

#[tokio::test]
async fn a_batched_background_operation_is_listed_stopped_and_not_restarted_while_active() {
    let h = Harness::confirming_admin().await;
    let text = h
        .ok("gitlab_instance", json!({"action": "operation_list"}))
        .await;
    assert!(
        text.contains("\"id\":\"main:1:42\"") && text.contains("\"partition\":1"),
        "{text}"
    );
    assert_eq!(
        h.only_request().line(),
        "GET /api/v4/admin/batched_background_operations"
    );
    h.fake.clear_requests();

    let text = h
        .ok(
            "gitlab_instance",
            json!({"action": "operation_stop", "params": {"operation_id": 42}}),
        )
        .await;
    assert!(text.contains("\"status\":\"stopped\""), "{text}");
    let request = h.only_request();
    assert_eq!(
        request.line(),
        "PUT /api/v4/admin/batched_background_operations/42/stop"
    );
    assert_eq!(request.json(), serde_json::Value::Null);
    h.fake.clear_requests();

    let text = h
        .err(
            "gitlab_instance",
            json!({"action": "operation_restart", "params": {"operation_id": 42, "database": "main"}}),
        )
        .await;
    assert!(
        text.contains("You can restart only `stopped` operations.")
            && text.contains("Only stopped operations can be restarted."),
        "GitLab's reason and the catalog's hint: {text}"
    );
    assert_eq!(
        h.only_request().line(),
        "PUT /api/v4/admin/batched_background_operations/42/restart"
    );
    h.stop().await;
}

#[tokio::test]
async fn an_offline_export_is_started_with_one_storage_listed_and_read() {
    let h = Harness::start(Lifecycle::Initialize).await;
    let s3 = json!({"aws_access_key_id": "AKIA0", "aws_secret_access_key": "s3cr3t", "region": "eu-west-1"});
    let start = json!({"bucket": "exports", "entities": [{"full_path": "acme/web"}], "aws_s3_configuration": s3});
    let text = h
        .ok(
            "gitlab_instance",
            json!({"action": "export_start", "params": start}),
        )
        .await;
    assert!(text.contains("\"status\":\"created\""), "{text}");
    let request = h.only_request();
    assert_eq!(request.line(), "POST /api/v4/offline_exports");
    assert_eq!(request.json(), start);
    h.fake.clear_requests();

    let text = h
        .err(
            "gitlab_instance",
            json!({"action": "export_start", "params": {"bucket": "exports", "entities": [{"full_path": "acme/web"}]}}),
        )
        .await;
    assert!(text.contains("aws_s3_configuration"), "{text}");
    assert!(
        h.requests().is_empty(),
        "an export with no storage is refused before anything is sent"
    );

    let text = h
        .ok(
            "gitlab_instance",
            json!({"action": "export_list", "params": {"status": "finished"}}),
        )
        .await;
    assert!(
        text.contains("\"source_hostname\":\"https://gitlab.example.com/\""),
        "{text}"
    );
    assert_eq!(
        h.only_request().line(),
        "GET /api/v4/offline_exports?status=finished"
    );
    h.fake.clear_requests();

    let text = h
        .ok(
            "gitlab_instance",
            json!({"action": "export_get", "params": {"export_id": 1}}),
        )
        .await;
    assert!(
        text.contains("\"status\":\"finished\"") && text.contains("\"bucket\":\"exports\""),
        "{text}"
    );
    assert_eq!(h.only_request().line(), "GET /api/v4/offline_exports/1");
    h.stop().await;
}

#[tokio::test]
async fn a_group_upload_sends_the_file_as_multipart() {
    let h = Harness::start(Lifecycle::Initialize).await;
    let text = h
        .ok("gitlab_group", json!({"action": "upload", "params": {"group_id": "acme/platform", "file_name": "plan.md", "content": "# Plan"}}))
        .await;
    assert!(
        text.contains("\"markdown\":\"[plan.md](/uploads/") && text.contains("/-/group/11/"),
        "{text}"
    );
    let request = h.only_request();
    assert_eq!(
        request.line(),
        "POST /api/v4/groups/acme%2Fplatform/uploads"
    );
    assert!(
        request.body.contains("filename=\"plan.md\"")
            && request.body.contains("\r\n\r\n# Plan\r\n"),
        "{}",
        request.body
    );
    h.stop().await;
}

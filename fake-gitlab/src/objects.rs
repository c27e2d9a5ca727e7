//! GitLab's JSON objects, field for field as its API documentation shows
//! them, noise included: `_links`, avatar URLs, nulls, nested users, the
//! deprecated `assignee` beside `assignees`. gitlab-mcp's renderer is
//! measured against these, so they must be as heavy as the real ones.

use serde_json::{Value, json};

use crate::db::{
    Branch, Bridge, Commit, Db, Issue, Job, MergeRequest, Note, Pipeline, Project, Tag, TestSuite,
    generated_log,
};

/// The "basic user" GitLab nests in every object (docs: https://docs.gitlab.com/api/users/).
pub fn user(db: &Db, id: u64) -> Value {
    let u = db.user(id).expect("seeded user");
    json!({
        "id": u.id,
        "username": u.username,
        "public_email": null,
        "name": u.name,
        "state": "active",
        "locked": false,
        "avatar_url": format!("https://secure.gravatar.com/avatar/{}?s=80&d=identicon", crate::db::sha(u.id)),
        "web_url": format!("{}/{}", db.host, u.username),
    })
}

fn api(db: &Db) -> String {
    format!("{}/api/v4", db.host)
}

/// Project (docs: https://docs.gitlab.com/api/projects/, "Get a single project"); `full` adds the
/// fields GitLab only shows to members with the single-project endpoint.
pub fn project(db: &Db, p: &Project, full: bool) -> Value {
    let group = db.group(p.group_id).expect("seeded group");
    let web = format!("{}/{}", db.host, p.path_with_namespace);
    let mut v = json!({
        "id": p.id,
        "description": p.description,
        "name": p.name,
        "name_with_namespace": format!("{} / {}", group.full_path.replace('/', " / "), p.name),
        "path": p.path,
        "path_with_namespace": p.path_with_namespace,
        "created_at": p.created_at,
        "default_branch": p.default_branch,
        "tag_list": [],
        "topics": [],
        "ssh_url_to_repo": format!("git@{}:{}.git", db.host.trim_start_matches("http://"), p.path_with_namespace),
        "http_url_to_repo": format!("{web}.git"),
        "web_url": web,
        "readme_url": format!("{web}/-/blob/main/README.md"),
        "forks_count": 0,
        "avatar_url": null,
        "star_count": p.star_count,
        "last_activity_at": p.last_activity_at,
        "visibility": p.visibility,
        "namespace": {
            "id": group.id,
            "name": group.name,
            "path": group.path,
            "kind": "group",
            "full_path": group.full_path,
            "parent_id": group.parent_id,
            "avatar_url": null,
            "web_url": format!("{}/groups/{}", db.host, group.full_path),
        },
        "container_registry_image_prefix": format!("registry.example.com/{}", p.path_with_namespace),
        "_links": {
            "self": format!("{}/projects/{}", api(db), p.id),
            "issues": format!("{}/projects/{}/issues", api(db), p.id),
            "merge_requests": format!("{}/projects/{}/merge_requests", api(db), p.id),
            "repo_branches": format!("{}/projects/{}/repository/branches", api(db), p.id),
            "labels": format!("{}/projects/{}/labels", api(db), p.id),
            "events": format!("{}/projects/{}/events", api(db), p.id),
            "members": format!("{}/projects/{}/members", api(db), p.id),
            "cluster_agents": format!("{}/projects/{}/cluster_agents", api(db), p.id),
        },
        "packages_enabled": true,
        "empty_repo": false,
        "archived": false,
        "resolve_outdated_diff_discussions": false,
        "container_registry_enabled": true,
        "container_expiration_policy": {
            "cadence": "1d", "enabled": false, "keep_n": 10, "older_than": "90d",
            "name_regex": ".*", "name_regex_keep": null, "next_run_at": "2026-03-01T00:00:00.000Z"
        },
        "repository_object_format": "sha1",
        "issues_enabled": true,
        "merge_requests_enabled": true,
        "wiki_enabled": true,
        "jobs_enabled": true,
        "snippets_enabled": true,
        "can_create_merge_request_in": true,
        "issues_access_level": "enabled",
        "repository_access_level": "enabled",
        "merge_requests_access_level": "enabled",
        "forking_access_level": "enabled",
        "wiki_access_level": "enabled",
        "builds_access_level": "enabled",
        "snippets_access_level": "enabled",
        "pages_access_level": "private",
        "analytics_access_level": "enabled",
        "container_registry_access_level": "enabled",
        "security_and_compliance_access_level": "private",
        "releases_access_level": "enabled",
        "environments_access_level": "enabled",
        "feature_flags_access_level": "enabled",
        "infrastructure_access_level": "enabled",
        "monitor_access_level": "enabled",
        "model_experiments_access_level": "enabled",
        "model_registry_access_level": "enabled",
        "emails_disabled": false,
        "emails_enabled": true,
        "shared_runners_enabled": true,
        "lfs_enabled": true,
        "creator_id": 1,
        "import_status": "none",
        "open_issues_count": p.issues.iter().filter(|i| i.state == "opened").count(),
        "description_html": format!("<p data-sourcepos=\"1:1-1:40\" dir=\"auto\">{}</p>", p.description),
        "updated_at": p.last_activity_at,
        "ci_config_path": null,
        "public_jobs": true,
        "shared_with_groups": [],
        "only_allow_merge_if_pipeline_succeeds": false,
        "allow_merge_on_skipped_pipeline": null,
        "request_access_enabled": true,
        "only_allow_merge_if_all_discussions_are_resolved": false,
        "remove_source_branch_after_merge": true,
        "printing_merge_request_link_enabled": true,
        "merge_method": "merge",
        "squash_option": "default_off",
        "enforce_auth_checks_on_uploads": true,
        "suggestion_commit_message": null,
        "merge_commit_template": null,
        "squash_commit_template": null,
        "issue_branch_template": null,
        "auto_devops_enabled": false,
        "auto_devops_deploy_strategy": "continuous",
        "autoclose_referenced_issues": true,
        "keep_latest_artifact": true,
        "runner_token_expiration_interval": null,
        "external_authorization_classification_label": "",
        "requirements_enabled": false,
        "requirements_access_level": "enabled",
        "security_and_compliance_enabled": true,
        "compliance_frameworks": [],
    });
    if full {
        v["permissions"] = json!({
            "project_access": {"access_level": 30, "notification_level": 3},
            "group_access": null
        });
    }
    v
}

/// Issue (docs: https://docs.gitlab.com/api/issues/, "Single project issue").
pub fn issue(db: &Db, p: &Project, i: &Issue) -> Value {
    let web = format!("{}/{}/-/issues/{}", db.host, p.path_with_namespace, i.iid);
    let links = format!("{}/projects/{}/issues/{}", api(db), p.id, i.iid);
    let assignees: Vec<Value> = i.assignee_ids.iter().map(|id| user(db, *id)).collect();
    let tasks_done = usize::from(i.description.contains("- [x]"));
    json!({
        "id": i.id,
        "iid": i.iid,
        "project_id": p.id,
        "title": i.title,
        "description": i.description,
        "state": i.state,
        "created_at": i.created_at,
        "updated_at": i.updated_at,
        "closed_at": i.closed_at,
        "closed_by": i.closed_by.map(|id| user(db, id)),
        "labels": i.labels,
        "milestone": i.milestone.as_ref().map(|(id, iid, title)| json!({
            "id": id, "iid": iid, "project_id": p.id, "title": title,
            "description": "Second quarter release", "state": "active",
            "created_at": "2026-01-01T00:00:00.000Z", "updated_at": "2026-01-01T00:00:00.000Z",
            "due_date": "2026-06-30", "start_date": "2026-04-01", "expired": false,
            "web_url": format!("{}/{}/-/milestones/{iid}", db.host, p.path_with_namespace),
        })),
        "assignees": assignees,
        "author": user(db, i.author_id),
        "type": i.issue_type.to_uppercase(),
        "assignee": i.assignee_ids.first().map(|id| user(db, *id)),
        "user_notes_count": i.notes.iter().filter(|n| !n.system).count(),
        "merge_requests_count": 0,
        "upvotes": i.iid % 4,
        "downvotes": 0,
        "due_date": i.due_date,
        "confidential": i.confidential,
        "discussion_locked": i.discussion_locked,
        "issue_type": i.issue_type,
        "web_url": web,
        "time_stats": {
            "time_estimate": 0, "total_time_spent": 0,
            "human_time_estimate": null, "human_total_time_spent": null
        },
        "task_completion_status": {"count": 2, "completed_count": tasks_done},
        "weight": null,
        "blocking_issues_count": 0,
        "has_tasks": true,
        "task_status": format!("{tasks_done} of 2 checklist items completed"),
        "_links": {
            "self": links,
            "notes": format!("{links}/notes"),
            "award_emoji": format!("{links}/award_emoji"),
            "project": format!("{}/projects/{}", api(db), p.id),
            "closed_as_duplicate_of": null
        },
        "references": {
            "short": format!("#{}", i.iid),
            "relative": format!("#{}", i.iid),
            "full": format!("{}#{}", p.path_with_namespace, i.iid)
        },
        "severity": "UNKNOWN",
        "moved_to_id": null,
        "imported": false,
        "imported_from": "none",
        "service_desk_reply_to": null,
        "epic_iid": null,
        "epic": null,
        "iteration": null,
        "health_status": null,
    })
}

/// Note (docs: https://docs.gitlab.com/api/notes/): a thread's notes say
/// whether they are resolved, a diff note carries its `position`
/// (docs: https://docs.gitlab.com/api/discussions/).
pub fn note(
    db: &Db,
    n: &Note,
    noteable_type: &str,
    noteable_id: u64,
    noteable_iid: u64,
    project_id: u64,
) -> Value {
    let mut v = json!({
        "id": n.id,
        "type": n.note_type,
        "body": n.body,
        "author": user(db, n.author_id),
        "created_at": n.created_at,
        "updated_at": n.created_at,
        "system": n.system,
        "noteable_id": noteable_id,
        "noteable_type": noteable_type,
        "project_id": project_id,
        "resolvable": n.resolvable,
        "confidential": n.internal,
        "internal": n.internal,
        "imported": false,
        "imported_from": "none",
        "noteable_iid": noteable_iid,
        "commands_changes": {},
    });
    if let Some(position) = &n.position {
        v["commit_id"] = Value::Null;
        v["position"] = position.clone();
    }
    if n.resolvable {
        v["resolved"] = json!(n.resolved);
        v["resolved_by"] = n.resolved_by.map(|id| user(db, id)).unwrap_or(Value::Null);
        v["resolved_at"] = if n.resolved {
            json!(n.created_at)
        } else {
            Value::Null
        };
    }
    v
}

/// Discussions (docs: https://docs.gitlab.com/api/discussions/): the notes
/// grouped by thread, in the order threads started; `individual_note` is
/// true for a plain note that was not started as a thread.
pub fn discussions(
    db: &Db,
    notes: &[Note],
    noteable_type: &str,
    noteable_id: u64,
    iid: u64,
    project_id: u64,
) -> Vec<Value> {
    let mut order: Vec<&str> = Vec::new();
    for n in notes {
        if !order.contains(&n.discussion_id.as_str()) {
            order.push(&n.discussion_id);
        }
    }
    order
        .into_iter()
        .map(|id| {
            let thread: Vec<&Note> = notes.iter().filter(|n| n.discussion_id == id).collect();
            json!({
                "id": id,
                "individual_note": thread.len() == 1 && thread[0].note_type.is_none(),
                "notes": thread
                    .iter()
                    .map(|n| note(db, n, noteable_type, noteable_id, iid, project_id))
                    .collect::<Vec<_>>(),
            })
        })
        .collect()
}

/// Merge request (docs: https://docs.gitlab.com/api/merge_requests/, "Get single MR").
pub fn merge_request(db: &Db, p: &Project, m: &MergeRequest, full: bool) -> Value {
    let web = format!(
        "{}/{}/-/merge_requests/{}",
        db.host, p.path_with_namespace, m.iid
    );
    let mut v = json!({
        "id": m.id,
        "iid": m.iid,
        "project_id": p.id,
        "title": m.title,
        "description": m.description,
        "state": m.state,
        "created_at": m.created_at,
        "updated_at": m.updated_at,
        "merged_by": m.merged_by.map(|id| user(db, id)),
        "merge_user": m.merged_by.map(|id| user(db, id)),
        "merged_at": m.merged_at,
        "closed_by": null,
        "closed_at": null,
        "target_branch": m.target_branch,
        "source_branch": m.source_branch,
        "user_notes_count": m.notes.len(),
        "upvotes": 1,
        "downvotes": 0,
        "author": user(db, m.author_id),
        "assignees": m.assignee_ids.iter().map(|id| user(db, *id)).collect::<Vec<_>>(),
        "assignee": m.assignee_ids.first().map(|id| user(db, *id)),
        "reviewers": m.reviewer_ids.iter().map(|id| user(db, *id)).collect::<Vec<_>>(),
        "source_project_id": p.id,
        "target_project_id": p.id,
        "labels": m.labels,
        "draft": m.draft,
        "imported": false,
        "imported_from": "none",
        "work_in_progress": m.draft,
        "milestone": m.milestone_id
            .and_then(|id| p.milestones.iter().find(|x| x.id == id))
            .map(|x| milestone(db, p, x)),
        "merge_when_pipeline_succeeds": m.auto_merge.is_some(),
        "merge_status": "can_be_merged",
        "detailed_merge_status": match (m.state.as_str(), &m.auto_merge) {
            ("opened", Some(_)) => "ci_still_running",
            ("opened", None) => "mergeable",
            _ => "not_open",
        },
        "merge_after": null,
        "sha": m.sha,
        "merge_commit_sha": m.merge_commit_sha,
        "squash_commit_sha": null,
        "discussion_locked": null,
        "should_remove_source_branch": null,
        "force_remove_source_branch": true,
        "prepared_at": m.created_at,
        "reference": format!("!{}", m.iid),
        "references": {
            "short": format!("!{}", m.iid),
            "relative": format!("!{}", m.iid),
            "full": format!("{}!{}", p.path_with_namespace, m.iid)
        },
        "web_url": web,
        "time_stats": {
            "time_estimate": 0, "total_time_spent": 0,
            "human_time_estimate": null, "human_total_time_spent": null
        },
        "squash": m.squash,
        "squash_on_merge": m.squash,
        "task_completion_status": {"count": 0, "completed_count": 0},
        "has_conflicts": false,
        "blocking_discussions_resolved": !m.notes.iter().any(|n| n.resolvable && !n.resolved),
        "approvals_before_merge": null,
    });
    if full {
        let version = p
            .mr_versions(m)
            .pop()
            .expect("a merge request has a version");
        let head_pipeline = m
            .head_pipeline_id
            .and_then(|id| p.pipelines.iter().find(|pl| pl.id == id));
        let extra = json!({
            "subscribed": true,
            "changes_count": if m.versions.is_empty() { "1".to_string() } else { version.diffs.len().to_string() },
            "latest_build_started_at": "2026-02-21T10:00:00.000Z",
            "latest_build_finished_at": "2026-02-21T10:05:00.000Z",
            "first_deployed_to_production_at": null,
            "pipeline": head_pipeline.map(|pl| pipeline(db, p, pl, false)),
            "head_pipeline": head_pipeline.map(|pl| pipeline(db, p, pl, true)),
            "diff_refs": {"base_sha": version.base_commit_sha, "head_sha": version.head_commit_sha, "start_sha": version.start_commit_sha},
            "merge_error": m.merge_error,
            "first_contribution": false,
            "user": {"can_merge": true},
            "approvals_before_merge": null,
        });
        for (k, val) in extra.as_object().unwrap() {
            v[k] = val.clone();
        }
    }
    v
}

/// Pipeline (docs: https://docs.gitlab.com/api/pipelines/); `full` is the single-pipeline shape.
pub fn pipeline(db: &Db, p: &Project, pl: &Pipeline, full: bool) -> Value {
    let mut v = json!({
        "id": pl.id,
        "iid": pl.iid,
        "project_id": p.id,
        "sha": pl.sha,
        "ref": pl.git_ref,
        "status": pl.status,
        "source": pl.source,
        "created_at": pl.created_at,
        "updated_at": pl.updated_at,
        "web_url": format!("{}/{}/-/pipelines/{}", db.host, p.path_with_namespace, pl.id),
    });
    if full {
        let extra = json!({
            "before_sha": crate::db::sha(5),
            "tag": false,
            "yaml_errors": null,
            "user": user(db, pl.user_id),
            "started_at": pl.created_at,
            "finished_at": if pl.status == "running" { Value::Null } else { json!(pl.updated_at) },
            "committed_at": null,
            "duration": 300,
            "queued_duration": 0.01,
            "coverage": "87.5",
            "detailed_status": {
                "icon": format!("status_{}", pl.status),
                "text": pl.status,
                "label": pl.status,
                "group": pl.status,
                "tooltip": pl.status,
                "has_details": true,
                "details_path": format!("/{}/-/pipelines/{}", p.path_with_namespace, pl.id),
                "illustration": null,
                "favicon": format!("/assets/ci_favicons/favicon_status_{}.png", pl.status)
            },
            "name": null,
            "archived": false,
        });
        for (k, val) in extra.as_object().unwrap() {
            v[k] = val.clone();
        }
    }
    v
}

/// Job (docs: https://docs.gitlab.com/api/jobs/).
pub fn job(db: &Db, p: &Project, j: &Job) -> Value {
    let pl = p
        .pipelines
        .iter()
        .find(|pl| pl.id == j.pipeline_id)
        .expect("job's pipeline");
    let finished = !matches!(
        j.status.as_str(),
        "running" | "pending" | "manual" | "created"
    );
    json!({
        "id": j.id,
        "status": j.status,
        "stage": j.stage,
        "name": j.name,
        "ref": j.git_ref,
        "tag": false,
        "coverage": null,
        "allow_failure": j.allow_failure,
        "created_at": j.created_at,
        "started_at": if j.manual { Value::Null } else { json!(j.created_at) },
        "finished_at": if finished { json!("2026-02-21T10:04:00.000Z") } else { Value::Null },
        "erased_at": null,
        "duration": if finished { json!(240.5) } else { Value::Null },
        "queued_duration": 0.42,
        "user": user(db, j.user_id),
        "commit": commit(db, p, p.commits.first().expect("seeded commit"), false),
        "pipeline": pipeline_basic(db, p, pl),
        "failure_reason": failure_reason(&j.status, j.failure_reason.as_deref()),
        "web_url": format!("{}/{}/-/jobs/{}", db.host, p.path_with_namespace, j.id),
        "project": {"ci_job_token_scope_enabled": false},
        "artifacts": [],
        "artifacts_expire_at": null,
        "archived": false,
        "runner": null,
        "runner_manager": null,
        "tag_list": ["docker"],
    })
}

/// A failed job's reason (`script_failure` unless set); nothing for
/// another status (GitLab exposes it `if: job.failed?`).
fn failure_reason(status: &str, reason: Option<&str>) -> Value {
    if status == "failed" {
        json!(reason.unwrap_or("script_failure"))
    } else {
        Value::Null
    }
}

/// A trigger job (docs: https://docs.gitlab.com/api/pipelines/#list-pipeline-trigger-jobs):
/// the job's basic fields and `downstream_pipeline`, the pipeline it
/// started (of any project), in its basic shape.
pub fn bridge(db: &Db, p: &Project, b: &Bridge) -> Value {
    let pl = p
        .pipelines
        .iter()
        .find(|pl| pl.id == b.pipeline_id)
        .expect("bridge's pipeline");
    let downstream = b.downstream.and_then(|(project_id, pipeline_id)| {
        let project = db.projects.iter().find(|x| x.id == project_id)?;
        let pipeline = project.pipelines.iter().find(|x| x.id == pipeline_id)?;
        Some(pipeline_basic(db, project, pipeline))
    });
    json!({
        "id": b.id,
        "status": b.status,
        "stage": b.stage,
        "name": b.name,
        "ref": pl.git_ref,
        "tag": false,
        "coverage": null,
        "allow_failure": b.allow_failure,
        "created_at": pl.created_at,
        "started_at": pl.created_at,
        "finished_at": pl.updated_at,
        "erased_at": null,
        "duration": 120.0,
        "queued_duration": 0.2,
        "user": user(db, pl.user_id),
        "commit": commit(db, p, p.commits.first().expect("seeded commit"), false),
        "pipeline": pipeline_basic(db, p, pl),
        "failure_reason": failure_reason(&b.status, b.failure_reason.as_deref()),
        "web_url": format!("{}/{}/-/jobs/{}", db.host, p.path_with_namespace, b.id),
        "project": {"ci_job_token_scope_enabled": false},
        "downstream_pipeline": downstream,
    })
}

/// `PipelineBasic`: what a job or bridge says of a pipeline.
fn pipeline_basic(db: &Db, p: &Project, pl: &Pipeline) -> Value {
    json!({
        "id": pl.id, "iid": pl.iid, "project_id": p.id, "ref": pl.git_ref, "sha": pl.sha,
        "status": pl.status, "source": pl.source, "created_at": pl.created_at,
        "updated_at": pl.updated_at,
        "web_url": format!("{}/{}/-/pipelines/{}", db.host, p.path_with_namespace, pl.id)
    })
}

/// A pipeline's test report (docs:
/// https://docs.gitlab.com/api/pipelines/#get-a-pipelines-test-report):
/// counts, and each suite with its cases.
pub fn test_report(pl: &Pipeline) -> Value {
    let suites: Vec<Value> = pl
        .test_suites
        .iter()
        .map(|suite| {
            let mut v = suite_counts(suite);
            v["suite_error"] = Value::Null;
            v["test_cases"] = suite
                .cases
                .iter()
                .map(|c| {
                    json!({
                        "status": c.status, "name": c.name, "classname": c.classname,
                        "file": c.file, "execution_time": c.execution_time,
                        "system_output": c.system_output, "stack_trace": c.stack_trace,
                        "recent_failures": null,
                    })
                })
                .collect();
            v
        })
        .collect();
    let (time, count, success, failed, skipped, error) = totals(pl);
    json!({
        "total_time": time, "total_count": count, "success_count": success,
        "failed_count": failed, "skipped_count": skipped, "error_count": error,
        "test_suites": suites,
    })
}

/// The summary (docs:
/// https://docs.gitlab.com/api/pipelines/#get-a-test-report-summary-for-a-pipeline):
/// `total` and each suite's counts with the jobs that made it, no cases.
pub fn test_report_summary(p: &Project, pl: &Pipeline) -> Value {
    let build_ids: Vec<u64> = p
        .jobs
        .iter()
        .filter(|j| j.pipeline_id == pl.id && j.stage == "test" && !j.retried)
        .map(|j| j.id)
        .collect();
    let suites: Vec<Value> = pl
        .test_suites
        .iter()
        .map(|suite| {
            let mut v = suite_counts(suite);
            v["build_ids"] = json!(build_ids);
            v["suite_error"] = Value::Null;
            v
        })
        .collect();
    let (time, count, success, failed, skipped, error) = totals(pl);
    json!({
        "total": {
            "time": time, "count": count, "success": success, "failed": failed,
            "skipped": skipped, "error": error, "suite_error": null,
        },
        "test_suites": suites,
    })
}

fn count(suite: &TestSuite, status: &str) -> usize {
    suite.cases.iter().filter(|c| c.status == status).count()
}

fn suite_counts(suite: &TestSuite) -> Value {
    let time: f64 = suite.cases.iter().map(|c| c.execution_time).sum();
    json!({
        "name": suite.name,
        "total_time": time,
        "total_count": suite.cases.len(),
        "success_count": count(suite, "success"),
        "failed_count": count(suite, "failed"),
        "skipped_count": count(suite, "skipped"),
        "error_count": count(suite, "error"),
    })
}

/// Time, count, success, failed, skipped, error over every suite.
fn totals(pl: &Pipeline) -> (f64, usize, usize, usize, usize, usize) {
    let suites = &pl.test_suites;
    let sum = |status: &str| suites.iter().map(|s| count(s, status)).sum::<usize>();
    (
        suites
            .iter()
            .flat_map(|s| &s.cases)
            .map(|c| c.execution_time)
            .sum(),
        suites.iter().map(|s| s.cases.len()).sum(),
        sum("success"),
        sum("failed"),
        sum("skipped"),
        sum("error"),
    )
}

/// The whole log as text (a runner trace made whole; the trace route
/// streams those instead).
pub fn job_log(j: &Job) -> String {
    match &j.log {
        crate::db::JobLog::Text(t) => t.clone(),
        crate::db::JobLog::Generated(bytes) => generated_log(*bytes),
        crate::db::JobLog::Runner(trace) => trace.text(),
    }
}

/// Commit (docs: https://docs.gitlab.com/api/commits/); `full` adds stats and status of "Get a single commit".
pub fn commit(db: &Db, p: &Project, c: &Commit, full: bool) -> Value {
    let mut v = json!({
        "id": c.id,
        "short_id": &c.id[..8],
        "created_at": c.date,
        "parent_ids": c.parent_ids,
        "title": c.title,
        "message": c.message,
        "author_name": c.author_name,
        "author_email": c.author_email,
        "authored_date": c.date,
        "committer_name": c.author_name,
        "committer_email": c.author_email,
        "committed_date": c.date,
        "trailers": {},
        "extended_trailers": {},
        "web_url": format!("{}/{}/-/commit/{}", db.host, p.path_with_namespace, c.id),
    });
    if full {
        v["stats"] = json!({"additions": 2, "deletions": 1, "total": 3});
        v["status"] = Value::Null;
        v["project_id"] = json!(p.id);
        v["last_pipeline"] = Value::Null;
    }
    v
}

/// One file of a diff (docs: https://docs.gitlab.com/api/commits/, "Get the diff of a commit").
pub fn diff(old: &str, new: &str, text: &str, new_file: bool, deleted: bool) -> Value {
    json!({
        "diff": text,
        "new_path": new,
        "old_path": old,
        "a_mode": if new_file { "0" } else { "100644" },
        "b_mode": "100644",
        "new_file": new_file,
        "renamed_file": old != new,
        "deleted_file": deleted,
        "generated_file": false,
    })
}

/// Branch (docs: https://docs.gitlab.com/api/branches/).
pub fn branch(db: &Db, p: &Project, b: &Branch) -> Value {
    let c = p
        .commits
        .iter()
        .find(|c| c.id == b.commit_sha)
        .expect("branch commit");
    json!({
        "name": b.name,
        "merged": false,
        "protected": b.protected,
        "default": b.name == p.default_branch,
        "developers_can_push": false,
        "developers_can_merge": false,
        "can_push": true,
        "web_url": format!("{}/{}/-/tree/{}", db.host, p.path_with_namespace, b.name),
        "commit": commit(db, p, c, false),
    })
}

/// Tag (docs: https://docs.gitlab.com/api/tags/).
pub fn tag(db: &Db, p: &Project, t: &Tag) -> Value {
    let c = p
        .commits
        .iter()
        .find(|c| c.id == t.target)
        .expect("tag commit");
    json!({
        "commit": commit(db, p, c, false),
        "release": null,
        "name": t.name,
        "target": t.target,
        "message": t.message,
        "protected": false,
        "created_at": t.message.as_ref().map(|_| "2026-02-12T10:00:00.000Z"),
    })
}

/// File metadata and base64 content (docs: https://docs.gitlab.com/api/repository_files/).
pub fn file(p: &Project, path: &str, git_ref: &str, content: &str) -> Value {
    let name = path.rsplit('/').next().unwrap_or(path);
    let head = &p.commits.first().expect("seeded commit").id;
    json!({
        "file_name": name,
        "file_path": path,
        "size": content.len(),
        "encoding": "base64",
        "content": base64(content.as_bytes()),
        "content_sha256": crate::db::sha(content.len() as u64 + 7).repeat(2)[..64].to_string(),
        "ref": git_ref,
        "blob_id": crate::db::sha(content.len() as u64),
        "commit_id": head,
        "last_commit_id": head,
        "execute_filemode": false,
    })
}

pub fn base64(bytes: &[u8]) -> String {
    const T: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let b = [
            chunk[0],
            *chunk.get(1).unwrap_or(&0),
            *chunk.get(2).unwrap_or(&0),
        ];
        let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        out.push(T[(n >> 18) as usize & 63] as char);
        out.push(T[(n >> 12) as usize & 63] as char);
        out.push(if chunk.len() > 1 {
            T[(n >> 6) as usize & 63] as char
        } else {
            '='
        });
        out.push(if chunk.len() > 2 {
            T[n as usize & 63] as char
        } else {
            '='
        });
    }
    out
}

/// Group (docs: https://docs.gitlab.com/api/groups/, "Get a single group" without `projects`).
pub fn group(db: &Db, g: &crate::db::Group) -> Value {
    json!({
        "id": g.id,
        "web_url": format!("{}/groups/{}", db.host, g.full_path),
        "name": g.name,
        "path": g.path,
        "description": format!("The {} group.", g.name),
        "visibility": "private",
        "share_with_group_lock": false,
        "require_two_factor_authentication": false,
        "two_factor_grace_period": 48,
        "project_creation_level": "developer",
        "auto_devops_enabled": null,
        "subgroup_creation_level": "maintainer",
        "emails_disabled": false,
        "emails_enabled": true,
        "mentions_disabled": null,
        "lfs_enabled": true,
        "math_rendering_limits_enabled": true,
        "lock_math_rendering_limits_enabled": false,
        "default_branch": null,
        "default_branch_protection": 2,
        "default_branch_protection_defaults": {
            "allowed_to_push": [{"access_level": 40}],
            "allow_force_push": false,
            "allowed_to_merge": [{"access_level": 40}]
        },
        "avatar_url": null,
        "request_access_enabled": true,
        "full_name": g.full_path.replace('/', " / "),
        "full_path": g.full_path,
        "created_at": "2025-10-01T08:00:00.000Z",
        "parent_id": g.parent_id,
        "organization_id": 1,
        "shared_runners_setting": "enabled",
        "max_artifacts_size": null,
        "ldap_cn": null,
        "ldap_access": null,
        "marked_for_deletion_on": null,
        "wiki_access_level": "enabled",
        "duo_features_enabled": false,
        "lock_duo_features_enabled": false,
        "archived": false,
    })
}

/// User as `GET /users/:id` shows it (docs: https://docs.gitlab.com/api/users/).
pub fn user_full(db: &Db, id: u64) -> Value {
    let mut v = user(db, id);
    let extra = json!({
        "created_at": "2025-09-01T08:00:00.000Z",
        "bio": "",
        "location": "Lyon",
        "linkedin": "",
        "twitter": "",
        "discord": "",
        "website_url": "",
        "organization": "Acme",
        "job_title": "Engineer",
        "pronouns": null,
        "bot": false,
        "work_information": "Engineer at Acme",
        "followers": 2,
        "following": 1,
        "is_followed": false,
        "local_time": "10:00 AM",
    });
    for (k, val) in extra.as_object().unwrap() {
        v[k] = val.clone();
    }
    v
}

/// Project label (docs: https://docs.gitlab.com/api/labels/).
pub fn label(l: &crate::db::Label, p: &Project) -> Value {
    let open = p
        .issues
        .iter()
        .filter(|i| i.state == "opened" && i.labels.contains(&l.name))
        .count();
    json!({
        "id": l.id,
        "name": l.name,
        "description": l.description,
        "description_html": l.description.as_ref().map(|d| format!("<p>{d}</p>")),
        "text_color": "#FFFFFF",
        "color": l.color,
        "open_issues_count": open,
        "closed_issues_count": 0,
        "open_merge_requests_count": 0,
        "subscribed": false,
        "priority": null,
        "is_project_label": true,
        "archived": false,
    })
}

/// Milestone (docs: https://docs.gitlab.com/api/milestones/).
pub fn milestone(db: &Db, p: &Project, m: &crate::db::Milestone) -> Value {
    json!({
        "id": m.id,
        "iid": m.iid,
        "project_id": p.id,
        "title": m.title,
        "description": m.description,
        "due_date": m.due_date,
        "start_date": "2026-04-01",
        "state": m.state,
        "updated_at": "2026-01-01T00:00:00.000Z",
        "created_at": "2026-01-01T00:00:00.000Z",
        "expired": false,
        "web_url": format!("{}/{}/-/milestones/{}", db.host, p.path_with_namespace, m.iid),
    })
}

/// Release (docs: https://docs.gitlab.com/api/releases/).
pub fn release(db: &Db, p: &Project, r: &crate::db::Release) -> Value {
    let web = format!("{}/{}", db.host, p.path_with_namespace);
    let tag = p.tags.iter().find(|t| t.name == r.tag_name);
    let sources: Vec<Value> = ["zip", "tar.gz", "tar.bz2", "tar"]
        .iter()
        .map(|f| json!({"format": f, "url": format!("{web}/-/archive/{0}/{1}-{0}.{f}", r.tag_name, p.path)}))
        .collect();
    let commit_value = tag
        .and_then(|t| p.commits.iter().find(|c| c.id == t.target))
        .map(|c| commit(db, p, c, false))
        .unwrap_or(Value::Null);
    json!({
        "tag_name": r.tag_name,
        "description": r.description,
        "name": r.name,
        "created_at": r.created_at,
        "released_at": r.created_at,
        "upcoming_release": false,
        "author": user(db, 1),
        "commit": commit_value,
        "milestones": [],
        "commit_path": format!("/{}/-/commit/{}", p.path_with_namespace, tag.map(|t| t.target.as_str()).unwrap_or("")),
        "tag_path": format!("/{}/-/tags/{}", p.path_with_namespace, r.tag_name),
        "assets": {
            "count": 4 + r.links.len(),
            "sources": sources,
            "links": r.links.iter().map(|(id, name, url)| json!({
                "id": id, "name": name, "url": url, "direct_asset_url": url, "link_type": "other"
            })).collect::<Vec<_>>(),
        },
        "evidences": [{
            "sha": crate::db::sha(77),
            "filepath": format!("{web}/-/releases/{}/evidences/1.json", r.tag_name),
            "collected_at": r.created_at,
        }],
        "_links": {
            "closed_issues_url": format!("{web}/-/issues?release_tag={}&scope=all&state=closed", r.tag_name),
            "closed_merge_requests_url": format!("{web}/-/merge_requests?release_tag={}&scope=all&state=closed", r.tag_name),
            "edit_url": format!("{web}/-/releases/{}/edit", r.tag_name),
            "merged_merge_requests_url": format!("{web}/-/merge_requests?release_tag={}&scope=all&state=merged", r.tag_name),
            "opened_issues_url": format!("{web}/-/issues?release_tag={}&scope=all&state=opened", r.tag_name),
            "opened_merge_requests_url": format!("{web}/-/merge_requests?release_tag={}&scope=all&state=opened", r.tag_name),
            "self": format!("{web}/-/releases/{}", r.tag_name),
        },
    })
}

/// CI/CD variable (docs: https://docs.gitlab.com/api/project_level_variables/).
pub fn variable(v: &crate::db::Variable) -> Value {
    json!({
        "variable_type": v.variable_type,
        "key": v.key,
        "value": v.value,
        "hidden": false,
        "protected": v.protected,
        "masked": v.masked,
        "raw": false,
        "environment_scope": v.environment_scope,
        "description": null,
    })
}

/// Environment (docs: https://docs.gitlab.com/api/environments/).
pub fn environment(db: &Db, p: &Project, e: &crate::db::Environment) -> Value {
    json!({
        "id": e.id,
        "name": e.name,
        "slug": format!("{}-{}", e.name.replace('/', "-"), &crate::db::sha(e.id)[..6]),
        "description": null,
        "external_url": e.external_url,
        "state": e.state,
        "tier": if e.name == "production" { "production" } else { "development" },
        "created_at": "2026-01-15T10:00:00.000Z",
        "updated_at": "2026-02-21T10:05:00.000Z",
        "enable_advanced_logs_querying": false,
        "logs_api_path": format!("/{}/-/logs/k8s.json?environment_name={}", p.path_with_namespace, e.name),
        "auto_stop_at": null,
        "kubernetes_namespace": null,
        "flux_resource_path": null,
        "auto_stop_setting": "always",
        "cluster_agent": null,
        "web_url": format!("{}/{}/-/environments/{}", db.host, p.path_with_namespace, e.id),
    })
}

/// Wiki page (docs: https://docs.gitlab.com/api/wikis/); lists leave the content out
/// unless `with_content` is set.
pub fn wiki_page(w: &crate::db::WikiPage, with_content: bool) -> Value {
    let mut v = json!({
        "format": w.format,
        "slug": w.slug,
        "title": w.title,
        "wiki_page_meta_id": 900 + w.slug.len(),
    });
    if with_content {
        v["content"] = json!(w.content);
        v["encoding"] = json!("UTF-8");
    }
    v
}

/// Snippet (docs: https://docs.gitlab.com/api/project_snippets/).
pub fn snippet(db: &Db, p: &Project, s: &crate::db::Snippet) -> Value {
    let web = format!("{}/{}/-/snippets/{}", db.host, p.path_with_namespace, s.id);
    json!({
        "id": s.id,
        "title": s.title,
        "file_name": s.file_name,
        "description": "A snippet used by the support team.",
        "author": user(db, s.author_id),
        "updated_at": "2026-02-01T10:00:00.000Z",
        "created_at": "2026-02-01T10:00:00.000Z",
        "project_id": p.id,
        "web_url": web,
        "raw_url": format!("{web}/raw"),
        "ssh_url_to_repo": format!("git@example.com:{}/snippets/{}.git", p.path_with_namespace, s.id),
        "http_url_to_repo": format!("{}/{}/snippets/{}.git", db.host, p.path_with_namespace, s.id),
        "visibility": s.visibility,
        "imported": false,
        "imported_from": "none",
        "files": [{"path": s.file_name, "raw_url": format!("{web}/raw/main/{}", s.file_name)}],
    })
}

/// Package (docs: https://docs.gitlab.com/api/packages/).
pub fn package(db: &Db, p: &Project, k: &crate::db::Package) -> Value {
    json!({
        "id": k.id,
        "name": k.name,
        "version": k.version,
        "package_type": k.package_type,
        "status": k.status,
        "_links": {
            "web_path": format!("/{}/-/packages/{}", p.path_with_namespace, k.id),
            "delete_api_path": format!("{}/api/v4/projects/{}/packages/{}", db.host, p.id, k.id),
        },
        "created_at": "2026-02-12T10:30:00.000Z",
        "last_downloaded_at": null,
        "pipelines": [],
        "tags": [],
    })
}

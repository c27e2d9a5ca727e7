//! The fake's in-memory data and its seed: a small but realistic GitLab.
//!
//! Seed (ids are stable, tests rely on them):
//! - users: 1 `alice` (a member of every private project but `acme/secret`),
//!   2 `bob`, 3 `carol`;
//! - tokens (see `auth.rs`): `glpat-alice` (scope api), `glpat-alice-read`
//!   (scope read_api), `glpat-alice-files` (scope read_repository),
//!   `glpat-expired` (expired), `oauth-alice` and `oauth-alice-read` (OAuth,
//!   api and read_api, Bearer only);
//! - groups: 10 `acme`, 11 `acme/platform`;
//! - projects: 1 `acme/platform/api` (private, 25 issues, 3 merge requests,
//!   pipelines, jobs, branches with slashes and non-ASCII names, files with
//!   spaces), 2 `acme/website` (public; its pipelines are `ci_seed.rs`'s: a
//!   failed one with a child pipeline and a test report, a running one), 3
//!   `acme/secret` (private, alice is not a member: GitLab answers 404 for it);
//! - links: `api#1` relates to `api#2` and blocks `acme/website#1`;
//! - edition CE (`FakeGitLab::set_edition` for EE); every issue is a work
//!   item of type Issue, none has a parent, the groups have none.

use std::collections::BTreeMap;

pub struct Db {
    pub host: String,
    pub users: Vec<User>,
    pub groups: Vec<Group>,
    pub projects: Vec<Project>,
    /// Branches keep their own files (`Project::branch_files`) and a file
    /// written on a branch is a commit on it, as in a real repository. Off
    /// in the test seed, whose files are the same on every branch.
    pub per_branch_files: bool,
    /// Which GitLab this is: CE or EE (see `work_items.rs`).
    pub edition: Edition,
    /// Links between issues (work items), both APIs': GitLab keeps one
    /// `issue_links` table whatever the issue types.
    pub links: Vec<IssueLink>,
    next_id: u64,
    clock: u64,
}

/// GitLab's edition: Community (the default) or Enterprise with a
/// license; what differs is in `work_items.rs`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Edition {
    #[default]
    Ce,
    Ee,
}

/// One link between two issues, by their global ids; `link_type` as the
/// source sees it (`relates_to`, `blocks`, `is_blocked_by`).
pub struct IssueLink {
    pub id: u64,
    pub source: u64,
    pub target: u64,
    pub link_type: &'static str,
}

#[derive(Clone)]
pub struct User {
    pub id: u64,
    pub username: String,
    pub name: String,
}

pub struct Group {
    pub id: u64,
    pub name: String,
    pub path: String,
    pub full_path: String,
    pub parent_id: Option<u64>,
    /// Group-level work items (epics), the same rows as a project's issues.
    pub work_items: Vec<Issue>,
}

pub struct Project {
    pub id: u64,
    pub name: String,
    pub path: String,
    pub group_id: u64,
    pub path_with_namespace: String,
    pub description: String,
    pub visibility: &'static str,
    pub members: Vec<u64>,
    pub default_branch: String,
    pub created_at: String,
    pub last_activity_at: String,
    pub star_count: u64,
    pub issues: Vec<Issue>,
    pub merge_requests: Vec<MergeRequest>,
    pub pipelines: Vec<Pipeline>,
    pub jobs: Vec<Job>,
    pub bridges: Vec<Bridge>,
    pub branches: Vec<Branch>,
    pub tags: Vec<Tag>,
    pub commits: Vec<Commit>,
    /// Path → content on the default branch (and on every branch unless
    /// `branch_files` has its own).
    pub files: BTreeMap<String, String>,
    /// Branch → its whole file set, for branches whose files differ.
    pub branch_files: BTreeMap<String, BTreeMap<String, String>>,
    pub labels: Vec<Label>,
    pub milestones: Vec<Milestone>,
    pub releases: Vec<Release>,
    pub variables: Vec<Variable>,
    pub environments: Vec<Environment>,
    pub wiki: Vec<WikiPage>,
    pub snippets: Vec<Snippet>,
    pub packages: Vec<Package>,
    /// Markdown uploads: (id, file name, size).
    pub uploads: Vec<(u64, String, usize)>,
}

pub struct Label {
    pub id: u64,
    pub name: String,
    pub color: String,
    pub description: Option<String>,
}

pub struct Milestone {
    pub id: u64,
    pub iid: u64,
    pub title: String,
    pub description: String,
    pub state: String,
    pub due_date: Option<String>,
}

pub struct Release {
    pub tag_name: String,
    pub name: String,
    pub description: String,
    pub created_at: String,
    pub links: Vec<(u64, String, String)>,
}

pub struct Variable {
    pub key: String,
    pub value: String,
    pub variable_type: String,
    pub protected: bool,
    pub masked: bool,
    pub environment_scope: String,
}

pub struct Environment {
    pub id: u64,
    pub name: String,
    pub state: String,
    pub external_url: Option<String>,
}

pub struct WikiPage {
    pub slug: String,
    pub title: String,
    pub content: String,
    pub format: String,
}

pub struct Snippet {
    pub id: u64,
    pub title: String,
    pub file_name: String,
    pub content: String,
    pub visibility: String,
    pub author_id: u64,
}

pub struct Package {
    pub id: u64,
    pub name: String,
    pub version: String,
    pub package_type: String,
    /// `default`, or `hidden` (left out of package lists).
    pub status: String,
    /// A generic package's files: (id, file name, bytes), oldest first.
    pub files: Vec<(u64, String, Vec<u8>)>,
}

#[derive(Clone)]
pub struct Issue {
    pub id: u64,
    pub iid: u64,
    pub title: String,
    pub description: String,
    pub state: String,
    pub labels: Vec<String>,
    pub author_id: u64,
    pub assignee_ids: Vec<u64>,
    pub milestone: Option<(u64, u64, String)>,
    pub confidential: bool,
    pub discussion_locked: Option<bool>,
    pub due_date: Option<String>,
    pub start_date: Option<String>,
    /// The work item type's base type (`issue`, `task`, `epic`...), which
    /// REST shows as `issue_type`.
    pub issue_type: String,
    /// The parent work item's global id (the hierarchy widget).
    pub parent_id: Option<u64>,
    pub created_at: String,
    pub updated_at: String,
    pub closed_at: Option<String>,
    pub closed_by: Option<u64>,
    pub notes: Vec<Note>,
}

#[derive(Clone, Default)]
pub struct Note {
    pub id: u64,
    pub body: String,
    pub author_id: u64,
    pub created_at: String,
    pub system: bool,
    pub internal: bool,
    /// Notes of one thread share it; a plain note has its own.
    pub discussion_id: String,
    /// `null` for a plain note, `DiscussionNote` in a thread, `DiffNote`
    /// on a diff line (docs: https://docs.gitlab.com/api/discussions/).
    pub note_type: Option<&'static str>,
    pub resolvable: bool,
    pub resolved: bool,
    pub resolved_by: Option<u64>,
    /// A diff note's position, as GitLab shows it.
    pub position: Option<serde_json::Value>,
}

pub struct MergeRequest {
    pub id: u64,
    pub iid: u64,
    pub title: String,
    pub description: String,
    pub state: String,
    pub source_branch: String,
    pub target_branch: String,
    pub author_id: u64,
    pub assignee_ids: Vec<u64>,
    pub reviewer_ids: Vec<u64>,
    pub labels: Vec<String>,
    pub draft: bool,
    pub sha: String,
    pub merge_commit_sha: Option<String>,
    pub squash: bool,
    pub created_at: String,
    pub updated_at: String,
    pub merged_at: Option<String>,
    pub merged_by: Option<u64>,
    pub approved_by: Vec<u64>,
    pub notes: Vec<Note>,
    /// Commits of the merge request, newest first, as indexes into `commits`.
    pub commit_shas: Vec<String>,
    /// Diff versions, oldest first: one per push to the source branch
    /// (docs: https://docs.gitlab.com/api/merge_requests/#get-merge-request-diff-versions).
    /// Empty in the test seed, whose one version is derived from `commit_shas`.
    pub versions: Vec<MrVersion>,
    pub milestone_id: Option<u64>,
    pub head_pipeline_id: Option<u64>,
    /// Pending review comments, every author's; only their author sees
    /// them (docs: https://docs.gitlab.com/api/draft_notes/).
    pub draft_notes: Vec<DraftNote>,
    /// Set by `merge` with `auto_merge` while the head pipeline runs.
    pub auto_merge: Option<AutoMerge>,
    /// Why the last merge failed (GitLab's `merge_error`).
    pub merge_error: Option<String>,
}

/// A draft note: a comment that waits for its author to publish it.
#[derive(Clone)]
pub struct DraftNote {
    pub id: u64,
    pub author_id: u64,
    pub note: String,
    /// The position as given, checked only as Grape checks it; GitLab
    /// checks the line when the draft is published.
    pub position: Option<serde_json::Value>,
    pub in_reply_to_discussion_id: Option<String>,
    pub resolve_discussion: bool,
    pub commit_id: Option<String>,
}

/// An auto-merge waiting for the head pipeline. The fake's pipelines do
/// not run, so the pipeline "finishes" after `reads_left` reads of the
/// merge request, and `then` says how.
#[derive(Clone, Debug, PartialEq)]
pub struct AutoMerge {
    pub reads_left: u32,
    pub then: AutoMergeEnd,
    /// Who set it: the merge is theirs (GitLab's `merge_user`).
    pub merge_user: u64,
}

/// How an auto-merge ends once its pipeline finishes.
#[derive(Clone, Debug, PartialEq)]
pub enum AutoMergeEnd {
    /// The pipeline succeeds and the merge request is merged.
    Merged,
    /// The merge is tried and fails: `merge_error` is set and auto-merge
    /// is off (GitLab's `MergeService#handle_merge_error`).
    Fails(String),
}

/// One diff version of a merge request.
#[derive(Clone)]
pub struct MrVersion {
    pub id: u64,
    pub head_commit_sha: String,
    pub base_commit_sha: String,
    pub start_commit_sha: String,
    pub created_at: String,
    /// The version's commits, newest first.
    pub commit_shas: Vec<String>,
    pub diffs: Vec<FileDiff>,
}

/// (old path, new path, unified diff, new file, deleted file).
pub type FileDiff = (String, String, String, bool, bool);

#[derive(Default)]
pub struct Pipeline {
    pub id: u64,
    pub iid: u64,
    pub status: String,
    pub git_ref: String,
    pub sha: String,
    /// `push`, `merge_request_event`...; a child pipeline's is
    /// `parent_pipeline`.
    pub source: String,
    pub user_id: u64,
    pub created_at: String,
    pub updated_at: String,
    /// The parsed JUnit reports of its jobs (docs:
    /// https://docs.gitlab.com/ci/testing/unit_test_reports/), served by
    /// `test_report` and `test_report_summary`.
    pub test_suites: Vec<TestSuite>,
    /// A running pipeline that finishes on its `reads`th read.
    pub finish: Option<Finish>,
}

/// How a running pipeline ends: each read of it finishes one more of its
/// jobs, and the read that brings `reads` to 0 finds it `then`.
#[derive(Debug, Clone)]
pub struct Finish {
    pub reads: u32,
    pub then: String,
}

/// One test suite of a pipeline's report.
#[derive(Debug, Clone, Default)]
pub struct TestSuite {
    pub name: String,
    pub cases: Vec<TestCase>,
}

/// One test case, as GitLab parses it from JUnit XML.
#[derive(Debug, Clone, Default)]
pub struct TestCase {
    /// `success`, `failed`, `skipped` or `error`.
    pub status: String,
    pub name: String,
    pub classname: String,
    pub file: Option<String>,
    pub execution_time: f64,
    pub system_output: Option<String>,
    pub stack_trace: Option<String>,
}

#[derive(Default)]
pub struct Job {
    pub id: u64,
    pub name: String,
    pub stage: String,
    pub status: String,
    pub pipeline_id: u64,
    pub git_ref: String,
    pub user_id: u64,
    pub created_at: String,
    pub manual: bool,
    pub log: JobLog,
    /// Files of the job's artifacts archive: path → content.
    pub artifacts: BTreeMap<String, String>,
    /// An attempt that was retried: GitLab keeps it, and lists it only
    /// with `include_retried` (`Ci::JobsFinder`, `latest` otherwise).
    pub retried: bool,
    pub allow_failure: bool,
    /// Of a failed job; `script_failure` when unset.
    pub failure_reason: Option<String>,
}

impl Job {
    /// A job of `pipeline` (its ref, its creation time, its user), a
    /// manual one when `status` says so; the rest as `Job::default`.
    pub fn of(
        pipeline: &Pipeline,
        id: u64,
        name: &str,
        stage: &str,
        status: &str,
        log: JobLog,
    ) -> Job {
        Job {
            id,
            name: name.into(),
            stage: stage.into(),
            status: status.into(),
            pipeline_id: pipeline.id,
            git_ref: pipeline.git_ref.clone(),
            user_id: pipeline.user_id,
            created_at: pipeline.created_at.clone(),
            manual: status == "manual",
            log,
            ..Job::default()
        }
    }
}

/// A trigger job (`Ci::Bridge`): listed by `.../bridges`, never by
/// `.../jobs`, with the pipeline it started.
pub struct Bridge {
    pub id: u64,
    pub name: String,
    pub stage: String,
    pub status: String,
    pub pipeline_id: u64,
    /// The downstream pipeline: its project's id and its id (a child
    /// pipeline is in the same project, a multi-project one elsewhere).
    pub downstream: Option<(u64, u64)>,
    pub allow_failure: bool,
    pub failure_reason: Option<String>,
}

pub enum JobLog {
    Text(String),
    /// A generated log of about this many bytes, built on request.
    Generated(usize),
    /// A runner trace made line by line as it is served (`traces.rs`).
    Runner(crate::traces::Trace),
}

impl Default for JobLog {
    fn default() -> Self {
        JobLog::Text(String::new())
    }
}

pub struct Branch {
    pub name: String,
    pub commit_sha: String,
    pub protected: bool,
    /// Of a protected branch: whoever may push may also force push.
    pub allow_force_push: bool,
}

pub struct Tag {
    pub name: String,
    pub message: Option<String>,
    pub target: String,
}

pub struct Commit {
    pub id: String,
    pub title: String,
    pub message: String,
    pub author_name: String,
    pub author_email: String,
    pub date: String,
    pub parent_ids: Vec<String>,
    pub diffs: Vec<FileDiff>,
}

/// A deterministic 40-hex-digit SHA for a seed number.
pub fn sha(seed: u64) -> String {
    let mut x = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ 0xD1B5_4A32_D192_ED03;
    let mut out = String::with_capacity(40);
    while out.len() < 40 {
        x ^= x >> 33;
        x = x.wrapping_mul(0xFF51_AFD7_ED55_8CCD);
        x ^= x >> 29;
        out.push_str(&format!("{x:016x}"));
    }
    out.truncate(40);
    out
}

impl Project {
    /// The files at a ref: a branch's own files, or the files of the branch
    /// whose head the ref is, else the default branch's.
    pub fn files_at(&self, git_ref: &str) -> &BTreeMap<String, String> {
        if let Some(files) = self.branch_files.get(git_ref) {
            return files;
        }
        self.branches
            .iter()
            .find(|b| {
                b.commit_sha == git_ref || (git_ref.len() >= 7 && b.commit_sha.starts_with(git_ref))
            })
            .and_then(|b| self.branch_files.get(&b.name))
            .unwrap_or(&self.files)
    }

    /// A merge request's diff versions, oldest first; the test seed's merge
    /// requests have one, derived from their commits.
    pub fn mr_versions(&self, m: &MergeRequest) -> Vec<MrVersion> {
        if !m.versions.is_empty() {
            return m.versions.clone();
        }
        let diffs = m
            .commit_shas
            .iter()
            .filter_map(|s| self.commits.iter().find(|c| &c.id == s))
            .flat_map(|c| c.diffs.iter().cloned())
            .collect();
        vec![MrVersion {
            id: m.id + 100_000,
            head_commit_sha: m.sha.clone(),
            base_commit_sha: sha(4),
            start_commit_sha: sha(4),
            created_at: m.created_at.clone(),
            commit_shas: m.commit_shas.clone(),
            diffs,
        }]
    }

    /// The latest version's diffs: what `diffs` and `changes` answer.
    pub fn mr_diffs(&self, m: &MergeRequest) -> Vec<FileDiff> {
        self.mr_versions(m)
            .pop()
            .map(|v| v.diffs)
            .unwrap_or_default()
    }
}

impl Db {
    pub fn next_id(&mut self) -> u64 {
        self.next_id += 1;
        self.next_id
    }

    /// A timestamp that moves forward with every change.
    pub fn now(&mut self) -> String {
        self.clock += 1;
        let minutes = self.clock;
        format!(
            "2026-03-{:02}T{:02}:{:02}:00.000Z",
            1 + (minutes / 1440) % 28,
            (minutes / 60) % 24,
            minutes % 60
        )
    }

    pub fn user(&self, id: u64) -> Option<&User> {
        self.users.iter().find(|u| u.id == id)
    }

    pub fn group(&self, id: u64) -> Option<&Group> {
        self.groups.iter().find(|g| g.id == id)
    }

    /// A project by numeric id or full path, as GitLab's `:id` takes it.
    pub fn project_index(&self, id_or_path: &str) -> Option<usize> {
        match id_or_path.parse::<u64>() {
            Ok(id) => self.projects.iter().position(|p| p.id == id),
            Err(_) => self
                .projects
                .iter()
                .position(|p| p.path_with_namespace.eq_ignore_ascii_case(id_or_path)),
        }
    }

    /// No data yet: ids handed out from `next_id`, the clock at its start.
    pub(crate) fn empty(host: &str, users: Vec<User>, next_id: u64) -> Db {
        Db {
            host: host.to_string(),
            users,
            groups: Vec::new(),
            projects: Vec::new(),
            per_branch_files: false,
            edition: Edition::Ce,
            links: Vec::new(),
            next_id,
            clock: 0,
        }
    }

    pub fn seed(host: &str) -> Db {
        let mut db = Db {
            host: host.to_string(),
            users: vec![
                User {
                    id: 1,
                    username: "alice".into(),
                    name: "Alice Martin".into(),
                },
                User {
                    id: 2,
                    username: "bob".into(),
                    name: "Bob Okafor".into(),
                },
                User {
                    id: 3,
                    username: "carol".into(),
                    name: "Carol Nguyen".into(),
                },
            ],
            groups: vec![
                Group {
                    id: 10,
                    name: "Acme".into(),
                    path: "acme".into(),
                    full_path: "acme".into(),
                    parent_id: None,
                    work_items: Vec::new(),
                },
                Group {
                    id: 11,
                    name: "Platform".into(),
                    path: "platform".into(),
                    full_path: "acme/platform".into(),
                    parent_id: Some(10),
                    work_items: Vec::new(),
                },
            ],
            projects: Vec::new(),
            per_branch_files: false,
            edition: Edition::Ce,
            links: Vec::new(),
            next_id: 5000,
            clock: 0,
        };
        let api = seed_api_project(&mut db);
        db.projects.push(api);
        let mut website = seed_small_project(
            &mut db,
            2,
            "website",
            10,
            "acme/website",
            "public",
            vec![1, 2],
        );
        crate::ci_seed::seed(&mut website);
        db.projects.push(website);
        let secret =
            seed_small_project(&mut db, 3, "secret", 10, "acme/secret", "private", vec![2]);
        db.projects.push(secret);
        // acme/platform/api#1 relates to #2 and blocks acme/website#1.
        let website_first = db.projects[1].issues[0].id;
        for (id, target, link_type) in [(1, 102, "relates_to"), (2, website_first, "blocks")] {
            db.links.push(IssueLink {
                id,
                source: 101,
                target,
                link_type,
            });
        }
        db
    }
}

pub(crate) fn empty_project(
    id: u64,
    path: &str,
    group_id: u64,
    full: &str,
    visibility: &'static str,
    members: Vec<u64>,
) -> Project {
    Project {
        id,
        name: path.to_string(),
        path: path.to_string(),
        group_id,
        path_with_namespace: full.to_string(),
        description: format!("The {path} project of Acme."),
        visibility,
        members,
        default_branch: "main".into(),
        created_at: "2025-11-02T09:14:00.000Z".into(),
        last_activity_at: "2026-02-27T16:40:00.000Z".into(),
        star_count: id * 3,
        issues: Vec::new(),
        merge_requests: Vec::new(),
        pipelines: Vec::new(),
        jobs: Vec::new(),
        bridges: Vec::new(),
        branches: Vec::new(),
        tags: Vec::new(),
        commits: Vec::new(),
        files: BTreeMap::new(),
        branch_files: BTreeMap::new(),
        labels: Vec::new(),
        milestones: Vec::new(),
        releases: Vec::new(),
        variables: Vec::new(),
        environments: Vec::new(),
        wiki: Vec::new(),
        snippets: Vec::new(),
        packages: Vec::new(),
        uploads: Vec::new(),
    }
}

fn seed_small_project(
    db: &mut Db,
    id: u64,
    path: &str,
    group: u64,
    full: &str,
    vis: &'static str,
    members: Vec<u64>,
) -> Project {
    let mut p = empty_project(id, path, group, full, vis, members);
    let commit = Commit {
        id: sha(id * 100),
        title: "Initial commit".into(),
        message: "Initial commit\n".into(),
        author_name: "Bob Okafor".into(),
        author_email: "bob@example.com".into(),
        date: "2025-11-02T09:14:00.000+00:00".into(),
        parent_ids: vec![],
        diffs: vec![(
            "README.md".into(),
            "README.md".into(),
            "@@ -0,0 +1 @@\n+# Website\n".into(),
            true,
            false,
        )],
    };
    p.branches.push(Branch {
        name: "main".into(),
        commit_sha: commit.id.clone(),
        protected: true,
        allow_force_push: false,
    });
    p.commits.push(commit);
    p.files.insert("README.md".into(), format!("# {path}\n"));
    for iid in 1..=2 {
        let id = db.next_id();
        p.issues.push(issue(
            id,
            iid,
            &format!("{path}: fix the footer links ({iid})"),
            2,
            vec![],
            "2026-01-10T10:00:00.000Z",
        ));
    }
    p
}

fn issue(id: u64, iid: u64, title: &str, author: u64, assignees: Vec<u64>, created: &str) -> Issue {
    Issue {
        id,
        iid,
        title: title.to_string(),
        description: format!(
            "## Summary\n\n{title}.\n\n## Steps to reproduce\n\n1. Open the dashboard\n2. Wait for the refresh\n\n## Expected\n\nNo error.\n\n- [ ] write a test\n- [x] find the cause\n"
        ),
        state: "opened".into(),
        labels: vec![],
        author_id: author,
        assignee_ids: assignees,
        milestone: None,
        confidential: false,
        discussion_locked: None,
        due_date: None,
        start_date: None,
        issue_type: "issue".into(),
        parent_id: None,
        created_at: created.to_string(),
        updated_at: created.to_string(),
        closed_at: None,
        closed_by: None,
        notes: Vec::new(),
    }
}

const ISSUE_TITLES: &[&str] = &[
    "Dashboard crashes when the cache is cold",
    "Add rate limiting to the public API",
    "Document the deployment checklist",
    "Login page shows a blank screen on Safari",
    "Migrate CI to the new runners",
    "Flaky test: OrdersTest#test_refund",
    "Support SSO with Okta",
    "Export reports as CSV",
];

fn seed_api_project(db: &mut Db) -> Project {
    let mut p = empty_project(1, "api", 11, "acme/platform/api", "private", vec![1, 2, 3]);
    p.description = "Acme's public REST API: billing, orders and accounts.".into();

    // Commits: a linear history, newest first.
    let files = [
        "src/main.rs",
        "README.md",
        "docs/getting started.md",
        "src/orders.rs",
        "src/ü.rs",
    ];
    for n in (1..=6u64).rev() {
        let path = files[(n as usize) % files.len()];
        p.commits.push(Commit {
            id: sha(n),
            title: format!("Change {path} ({n})"),
            message: format!("Change {path} ({n})\n\nPart of the orders rework.\n"),
            author_name: if n % 2 == 0 { "Alice Martin".into() } else { "Bob Okafor".into() },
            author_email: if n % 2 == 0 { "alice@example.com".into() } else { "bob@example.com".into() },
            date: format!("2026-02-{:02}T10:{:02}:00.000+01:00", 10 + n, n * 7),
            parent_ids: if n > 1 { vec![sha(n - 1)] } else { vec![] },
            diffs: vec![(
                path.into(),
                path.into(),
                format!("@@ -1,3 +1,4 @@\n line one\n-line two\n+line two, changed in {n}\n+line added in {n}\n line three\n"),
                n == 1,
                false,
            )],
        });
    }
    let head = sha(6);
    for (name, protected) in [
        ("main", true),
        ("develop", false),
        ("feature/orders-v2", false),
        ("feature/ünïcode-naïve", false),
        ("release/1.0", true),
    ] {
        p.branches.push(Branch {
            name: name.into(),
            commit_sha: head.clone(),
            protected,
            allow_force_push: false,
        });
    }
    p.tags.push(Tag {
        name: "v1.0.0".into(),
        message: Some("First release".into()),
        target: sha(3),
    });
    p.tags.push(Tag {
        name: "v1.1.0".into(),
        message: None,
        target: sha(6),
    });
    p.files.insert(
        "README.md".into(),
        "# Acme API\n\nRun `cargo run` and open http://localhost:8080.\n".into(),
    );
    p.files.insert(
        "docs/getting started.md".into(),
        "# Getting started\n\n1. Clone\n2. Build\n3. Run\n".into(),
    );
    p.files.insert(
        "src/main.rs".into(),
        "fn main() {\n    println!(\"Acme API\");\n}\n".into(),
    );
    p.files
        .insert("src/orders.rs".into(), "pub fn refund() {}\n".into());
    p.files
        .insert("src/ü.rs".into(), "// non-ASCII path\n".into());

    // 25 issues: more than one page of 20.
    for iid in 1..=25u64 {
        let id = 100 + iid;
        let title = format!(
            "{} (#{iid})",
            ISSUE_TITLES[(iid as usize) % ISSUE_TITLES.len()]
        );
        let created = format!("2026-01-{:02}T09:{:02}:00.000Z", 1 + iid % 28, iid);
        let mut i = issue(
            id,
            iid,
            &title,
            1 + iid % 3,
            vec![1 + (iid + 1) % 3],
            &created,
        );
        i.labels = match iid % 4 {
            0 => vec!["bug".into(), "priority::high".into()],
            1 => vec!["feature".into()],
            2 => vec!["bug".into()],
            _ => vec![],
        };
        if iid % 5 == 0 {
            i.state = "closed".into();
            i.closed_at = Some(format!("2026-02-{:02}T12:00:00.000Z", 1 + iid % 28));
            i.closed_by = Some(1);
        }
        if iid % 3 == 0 {
            i.milestone = Some((40, 1, "v1.2".into()));
            i.due_date = Some("2026-04-30".into());
        }
        for n in 0..(iid % 3) {
            let note_id = 1000 + iid * 10 + n;
            i.notes.push(Note {
                id: note_id,
                body: format!("I can reproduce this on staging (note {n})."),
                author_id: 1 + n % 3,
                created_at: format!("2026-01-{:02}T11:{:02}:00.000Z", 1 + iid % 28, n),
                system: false,
                internal: false,
                discussion_id: sha(note_id),
                ..Note::default()
            });
        }
        p.issues.push(i);
    }

    for (iid, source, title, state) in [
        (
            1u64,
            "feature/orders-v2",
            "Rework the orders endpoint",
            "opened",
        ),
        (2, "develop", "Draft: Add Okta SSO", "opened"),
        (3, "release/1.0", "Release 1.0", "merged"),
    ] {
        let created = format!("2026-02-{:02}T08:00:00.000Z", 10 + iid);
        p.merge_requests.push(MergeRequest {
            id: 300 + iid,
            iid,
            title: title.into(),
            description: format!("{title}.\n\nCloses #{iid}.\n"),
            state: state.into(),
            source_branch: source.into(),
            target_branch: "main".into(),
            author_id: 1 + iid % 3,
            assignee_ids: vec![1],
            reviewer_ids: vec![2],
            labels: vec!["backend".into()],
            draft: title.starts_with("Draft:"),
            sha: sha(6),
            merge_commit_sha: (state == "merged").then(|| sha(900 + iid)),
            squash: false,
            created_at: created.clone(),
            updated_at: created,
            merged_at: (state == "merged").then(|| "2026-02-20T10:00:00.000Z".to_string()),
            merged_by: (state == "merged").then_some(1),
            approved_by: vec![],
            notes: vec![Note {
                id: 2000 + iid,
                body: "Looks good overall; see the comment on orders.rs.".into(),
                author_id: 2,
                created_at: "2026-02-15T09:30:00.000Z".into(),
                system: false,
                internal: false,
                discussion_id: sha(2000 + iid),
                ..Note::default()
            }],
            commit_shas: vec![sha(6), sha(5)],
            versions: vec![],
            milestone_id: None,
            head_pipeline_id: None,
            draft_notes: vec![],
            auto_merge: None,
            merge_error: None,
        });
    }

    // Pipelines and their jobs; job 102 has a log of about 5 MB.
    for (id, iid, status) in [
        (1001u64, 1u64, "success"),
        (1002, 2, "failed"),
        (1003, 3, "running"),
    ] {
        p.pipelines.push(Pipeline {
            id,
            iid,
            status: status.into(),
            git_ref: "main".into(),
            sha: sha(6),
            source: "push".into(),
            user_id: 1,
            created_at: format!("2026-02-2{iid}T10:00:00.000Z"),
            updated_at: format!("2026-02-2{iid}T10:05:00.000Z"),
            ..Pipeline::default()
        });
    }
    let jobs = [
        (
            101u64,
            "build",
            "build",
            "success",
            1001u64,
            JobLog::Text(build_log()),
        ),
        (
            102,
            "test",
            "test",
            "failed",
            1002,
            JobLog::Generated(5 * 1024 * 1024),
        ),
        (
            103,
            "deploy",
            "deploy",
            "manual",
            1001,
            JobLog::Text(String::new()),
        ),
        (
            104,
            "lint",
            "test",
            "running",
            1003,
            JobLog::Text("Running cargo clippy\n".into()),
        ),
    ];
    for (id, name, stage, status, pipeline_id, log) in jobs {
        p.jobs.push(Job {
            id,
            name: name.into(),
            stage: stage.into(),
            status: status.into(),
            pipeline_id,
            git_ref: "main".into(),
            user_id: 1,
            created_at: "2026-02-21T10:00:00.000Z".into(),
            manual: status == "manual",
            log,
            artifacts: if id == 101 {
                BTreeMap::from([
                    (
                        "coverage/summary.txt".to_string(),
                        "lines: 87.5%\nbranches: 71.0%\n".to_string(),
                    ),
                    (
                        "reports/junit ü.xml".to_string(),
                        "<testsuite tests=\"3\" failures=\"0\"/>\n".to_string(),
                    ),
                ])
            } else {
                BTreeMap::new()
            },
            ..Job::default()
        });
    }
    for (id, name, color) in [
        (501u64, "bug", "#d9534f"),
        (502, "feature", "#428bca"),
        (503, "priority::high", "#ff0000"),
        (504, "backend", "#5cb85c"),
    ] {
        p.labels.push(Label {
            id,
            name: name.into(),
            color: color.into(),
            description: Some(format!("Issues about {name}")),
        });
    }
    p.milestones.push(Milestone {
        id: 40,
        iid: 1,
        title: "v1.2".into(),
        description: "Second quarter release".into(),
        state: "active".into(),
        due_date: Some("2026-06-30".into()),
    });
    p.releases.push(Release {
        tag_name: "v1.0.0".into(),
        name: "Acme API 1.0".into(),
        description: "## Changes\n\n- First stable API\n".into(),
        created_at: "2026-02-12T10:00:00.000Z".into(),
        links: vec![(
            1,
            "Linux binary".into(),
            "https://example.com/acme-api-linux".into(),
        )],
    });
    p.variables.push(Variable {
        key: "DEPLOY_TARGET".into(),
        value: "staging".into(),
        variable_type: "env_var".into(),
        protected: false,
        masked: false,
        environment_scope: "*".into(),
    });
    for (id, name, state) in [
        (61u64, "production", "available"),
        (62, "staging", "available"),
        (63, "review/feature-orders-v2", "stopped"),
    ] {
        p.environments.push(Environment {
            id,
            name: name.into(),
            state: state.into(),
            external_url: Some(format!("https://{}.acme.example", name.replace('/', "-"))),
        });
    }
    p.wiki.push(WikiPage {
        slug: "home".into(),
        title: "home".into(),
        content: "# Acme API wiki\n\nSee [Deploy](deploy/production).\n".into(),
        format: "markdown".into(),
    });
    p.wiki.push(WikiPage {
        slug: "deploy/production".into(),
        title: "production".into(),
        content: "# Deploying to production\n\n1. Tag\n2. Wait for the pipeline\n".into(),
        format: "markdown".into(),
    });
    p.snippets.push(Snippet {
        id: 71,
        title: "Refund script".into(),
        file_name: "refund.sh".into(),
        content: "#!/bin/sh\ncurl -X POST https://api.acme.example/refunds\n".into(),
        visibility: "private".into(),
        author_id: 1,
    });
    p.packages.push(Package {
        id: 81,
        name: "acme-api-client".into(),
        version: "1.0.0".into(),
        package_type: "npm".into(),
        status: "default".into(),
        files: Vec::new(),
    });
    let _ = db;
    p
}

fn build_log() -> String {
    "Running with gitlab-runner 18.2.0\nPreparing the \"docker\" executor\n$ cargo build --release\n   Compiling acme-api v0.1.0\n    Finished release [optimized] target(s) in 42.1s\nJob succeeded\n".to_string()
}

/// The generated log: numbered lines, the last one saying how it ended.
pub fn generated_log(bytes: usize) -> String {
    let mut out = String::with_capacity(bytes + 100);
    let mut n = 0u64;
    while out.len() < bytes {
        n += 1;
        out.push_str(&format!("[{n:07}] test orders::refund_case_{n} ... ok\n"));
    }
    out.push_str("test result: FAILED. 1 failed; see orders::refund_partial\nERROR: Job failed: exit code 101\n");
    out
}

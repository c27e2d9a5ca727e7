//! The sandbox seed: a believable demo GitLab to try gitlab-mcp against
//! without a real instance (`Db::sandbox`, `FakeGitLab::start_sandbox`).
//!
//! - users: 1 `alice` (the token's user, whatever token is sent), 2 `bob`,
//!   3 `carol`;
//! - group 20 `demo`; projects 7 `demo/webshop` (private, all three are
//!   members) and 8 `demo/infra` (public);
//! - `demo/webshop`: a small TypeScript shop. Branches `main` (protected),
//!   `feature/discount-codes`, `feature/redis-carts`, `release/1.3`
//!   (protected); tags `v1.2.0`, `v1.3.0` and release `v1.3.0`; files on
//!   each branch (README.md, package.json, .gitlab-ci.yml, src/*.ts,
//!   test/*.ts); issues #1-#8 with labels, assignees, milestones, notes and
//!   a thread on #1; merge requests !1 (merged), !2 (draft) and !3 "Add
//!   discount codes at checkout" (open, two diff versions, an unresolved
//!   thread on a diff line of src/checkout.ts, a resolved one, approved by
//!   carol, head pipeline failed); pipelines 4101 (main, success), 4102
//!   (!3's branch, failed: job 8806 `test` has a ~3,000-line log ending in
//!   a failing Jest test), 4103 (running) and 4104 (`release/1.3`, failed:
//!   job 8812's Jest failure sits mid-log, `sandbox/release.rs`), the
//!   failed ones with their test reports; a wiki; environments.
//!
//! - `demo/infra`: issue #1 with two tasks, #2 and #3 (work items whose
//!   parent is #1), and a link from #1 to `demo/webshop#8`.
//!
//! The repositories' files are real files under `fake-gitlab/sandbox/`
//! (its README says how they are laid out), read with `include_str!`.
//!
//! Branches keep their own files and every write is a commit
//! (`Db::per_branch_files`); a push to a merge request's source branch adds
//! a diff version, as GitLab does.

use std::collections::BTreeMap;

use serde_json::json;

use crate::db::*;
use crate::diff::unified;

mod release;

pub const PROJECT: &str = "demo/webshop";

/// A file of the demo repository, kept under `fake-gitlab/sandbox/` at
/// `<group>/<project>/<branch>/<path>` (see the README there).
macro_rules! demo_file {
    ($path:literal) => {
        include_str!(concat!("../sandbox/demo/", $path))
    };
}

const README: &str = demo_file!("webshop/main/README.md");
const PACKAGE_JSON: &str = demo_file!("webshop/main/package.json");
const CI: &str = demo_file!("webshop/main/.gitlab-ci.yml");
const CART: &str = demo_file!("webshop/main/src/cart.ts");
const CHECKOUT: &str = demo_file!("webshop/main/src/checkout.ts");
const SERVER: &str = demo_file!("webshop/main/src/server.ts");
const CART_TEST: &str = demo_file!("webshop/main/test/cart.test.ts");
const CHECKOUT_TEST: &str = demo_file!("webshop/main/test/checkout.test.ts");
/// `feature/discount-codes`, first push.
const CHECKOUT_V1: &str = demo_file!("webshop/feature/discount-codes/src/checkout.ts");
const DISCOUNTS_V1: &str = demo_file!("webshop/feature/discount-codes/src/discounts.ts");
const CHECKOUT_TEST_V1: &str = demo_file!("webshop/feature/discount-codes/test/checkout.test.ts");
/// `feature/discount-codes`, second push.
const DISCOUNTS_TEST: &str = demo_file!("webshop/feature/discount-codes/test/discounts.test.ts");
const STORE: &str = demo_file!("webshop/feature/redis-carts/src/store.ts");

/// The files of `main`.
fn main_files() -> BTreeMap<String, String> {
    [
        ("README.md", README),
        ("package.json", PACKAGE_JSON),
        (".gitlab-ci.yml", CI),
        ("src/cart.ts", CART),
        ("src/checkout.ts", CHECKOUT),
        ("src/server.ts", SERVER),
        ("test/cart.test.ts", CART_TEST),
        ("test/checkout.test.ts", CHECKOUT_TEST),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_string(), v.to_string()))
    .collect()
}

/// `feature/discount-codes` after its first push.
fn discount_v1() -> BTreeMap<String, String> {
    let mut f = main_files();
    f.insert("src/checkout.ts".into(), CHECKOUT_V1.into());
    f.insert("src/discounts.ts".into(), DISCOUNTS_V1.into());
    f.insert(
        "src/server.ts".into(),
        SERVER.replace(
            "checkout(cart, `ord_${Date.now()}`)",
            "checkout(cart, `ord_${Date.now()}`, req.body.discountCode)",
        ),
    );
    f.insert("test/checkout.test.ts".into(), CHECKOUT_TEST_V1.into());
    f
}

/// `feature/discount-codes` after its second push.
fn discount_v2() -> BTreeMap<String, String> {
    let mut f = discount_v1();
    f.insert(
        "src/discounts.ts".into(),
        DISCOUNTS_V1.replace(
            "  return DISCOUNTS.find((d) => d.code === code);",
            "  const wanted = code.trim().toUpperCase();\n  return DISCOUNTS.find((d) => d.code === wanted);",
        ),
    );
    f.insert("test/discounts.test.ts".into(), DISCOUNTS_TEST.into());
    f.insert(
        "README.md".into(),
        README.replace(
            "## Test",
            "## Discount codes\n\nPass `discountCode` to `POST /carts/:id/checkout`; codes are\ncase-insensitive (`WELCOME10`, `SPRING25`).\n\n## Test",
        ),
    );
    f
}

fn redis_files() -> BTreeMap<String, String> {
    let mut f = main_files();
    f.insert("src/store.ts".into(), STORE.into());
    f.insert(
        "package.json".into(),
        PACKAGE_JSON.replace(
            "    \"express\": \"^4.21.2\"\n",
            "    \"express\": \"^4.21.2\",\n    \"redis\": \"^4.7.0\"\n",
        ),
    );
    f
}

/// The diff of every file that differs between two file sets, by path.
pub fn diff_files(old: &BTreeMap<String, String>, new: &BTreeMap<String, String>) -> Vec<FileDiff> {
    let mut paths: Vec<&String> = old.keys().chain(new.keys()).collect();
    paths.sort();
    paths.dedup();
    paths
        .into_iter()
        .filter_map(|path| {
            let (a, b) = (old.get(path), new.get(path));
            if a == b {
                return None;
            }
            let text = unified(a.map_or("", |s| s), b.map_or("", |s| s));
            Some((path.clone(), path.clone(), text, a.is_none(), b.is_none()))
        })
        .collect()
}

fn user(id: u64, username: &str, name: &str) -> User {
    User {
        id,
        username: username.into(),
        name: name.into(),
    }
}

struct CommitSpec<'a> {
    seed: u64,
    title: &'a str,
    author: (&'a str, &'a str),
    date: &'a str,
    parent: Option<String>,
}

fn commit(spec: CommitSpec<'_>, diffs: Vec<FileDiff>) -> Commit {
    Commit {
        id: sha(spec.seed),
        title: spec.title.into(),
        message: format!("{}\n", spec.title),
        author_name: spec.author.0.into(),
        author_email: spec.author.1.into(),
        date: spec.date.into(),
        parent_ids: spec.parent.into_iter().collect(),
        diffs,
    }
}

const ALICE: (&str, &str) = ("Alice Martin", "alice@example.com");
const BOB: (&str, &str) = ("Bob Okafor", "bob@example.com");
const CAROL: (&str, &str) = ("Carol Nguyen", "carol@example.com");

impl Db {
    /// The demo seed (see the module documentation).
    pub fn sandbox(host: &str) -> Db {
        let mut db = Db::empty(
            host,
            vec![
                user(1, "alice", "Alice Martin"),
                user(2, "bob", "Bob Okafor"),
                user(3, "carol", "Carol Nguyen"),
            ],
            20_000,
        );
        db.per_branch_files = true;
        db.groups.push(Group {
            id: 20,
            name: "Demo".into(),
            path: "demo".into(),
            full_path: "demo".into(),
            parent_id: None,
            work_items: Vec::new(),
        });
        let webshop = webshop(&mut db);
        db.projects.push(webshop);
        let infra = infra();
        db.projects.push(infra);
        // demo/infra#1 (the replicas) relates to demo/webshop#8 (the
        // checkout rate limit): a link across projects.
        db.links.push(IssueLink {
            id: 3,
            source: 8_001,
            target: 7_008,
            link_type: "relates_to",
        });
        db
    }
}

fn webshop(db: &mut Db) -> Project {
    let mut p = empty_project(7, "webshop", 20, PROJECT, "private", vec![1, 2, 3]);
    p.name = "Webshop".into();
    p.description = "The demo shop's storefront and checkout API.".into();
    p.created_at = "2025-09-15T09:00:00.000Z".into();
    p.last_activity_at = "2026-03-02T16:20:00.000Z".into();

    // History of main, oldest first, each commit's diff computed from the
    // file sets before and after it.
    let main = main_files();
    let empty = BTreeMap::new();
    let mut initial = BTreeMap::new();
    initial.insert("README.md".to_string(), README.to_string());
    initial.insert(
        "package.json".to_string(),
        PACKAGE_JSON.replace("\">=20\"", "\">=18\""),
    );
    let mut cart_and_checkout = main.clone();
    cart_and_checkout.insert(
        "package.json".into(),
        PACKAGE_JSON.replace("\">=20\"", "\">=18\""),
    );
    cart_and_checkout.insert(
        ".gitlab-ci.yml".into(),
        CI.replace("node:20-alpine", "node:18-alpine").replace(
            "\nlint:\n  stage: test\n  script:\n    - npm ci\n    - npm run lint\n",
            "",
        ),
    );
    cart_and_checkout.insert(
        "src/checkout.ts".into(),
        CHECKOUT.replace("= 5000;", "= 7500;"),
    );
    let mut node20 = cart_and_checkout.clone();
    node20.insert("package.json".into(), PACKAGE_JSON.into());
    node20.insert(
        ".gitlab-ci.yml".into(),
        cart_and_checkout[".gitlab-ci.yml"].replace("node:18-alpine", "node:20-alpine"),
    );
    let mut shipping = node20.clone();
    shipping.insert("src/checkout.ts".into(), CHECKOUT.into());
    let states = [
        (
            1u64,
            "Initial commit",
            BOB,
            "2025-09-15T09:00:00.000+02:00",
            &empty,
            &initial,
        ),
        (
            2,
            "Add cart and checkout",
            ALICE,
            "2025-10-02T14:12:00.000+02:00",
            &initial,
            &cart_and_checkout,
        ),
        (
            3,
            "Upgrade to Node 20",
            BOB,
            "2026-01-20T10:30:00.000+01:00",
            &cart_and_checkout,
            &node20,
        ),
        (
            4,
            "Free shipping from 50.00",
            CAROL,
            "2026-02-09T11:05:00.000+01:00",
            &node20,
            &shipping,
        ),
        (
            5,
            "Lint in CI",
            ALICE,
            "2026-02-23T17:40:00.000+01:00",
            &shipping,
            &main,
        ),
    ];
    let seed = |n: u64| 7_000 + n;
    for (n, title, author, date, before, after) in states {
        p.commits.insert(
            0,
            commit(
                CommitSpec {
                    seed: seed(n),
                    title,
                    author,
                    date,
                    parent: (n > 1).then(|| sha(seed(n - 1))),
                },
                diff_files(before, after),
            ),
        );
    }
    let main_head = sha(seed(5));

    // Branch commits.
    let v1 = discount_v1();
    let v2 = discount_v2();
    let redis = redis_files();
    let f1 = commit(
        CommitSpec {
            seed: 7_101,
            title: "Add discount codes at checkout",
            author: ALICE,
            date: "2026-02-27T15:02:00.000+01:00",
            parent: Some(main_head.clone()),
        },
        diff_files(&main, &v1),
    );
    let f2 = commit(
        CommitSpec {
            seed: 7_102,
            title: "Match discount codes case-insensitively",
            author: ALICE,
            date: "2026-03-02T10:48:00.000+01:00",
            parent: Some(f1.id.clone()),
        },
        diff_files(&v1, &v2),
    );
    let r1 = commit(
        CommitSpec {
            seed: 7_201,
            title: "Persist carts in Redis",
            author: BOB,
            date: "2026-02-25T09:15:00.000+01:00",
            parent: Some(main_head.clone()),
        },
        diff_files(&main, &redis),
    );
    let (f1_sha, f2_sha, r1_sha) = (f1.id.clone(), f2.id.clone(), r1.id.clone());
    p.commits.insert(0, r1);
    p.commits.insert(0, f1);
    p.commits.insert(0, f2);
    // Newest first by date, as GitLab lists them.
    p.commits.sort_by(|a, b| b.date[..19].cmp(&a.date[..19]));

    for (name, head, protected) in [
        ("main", main_head.clone(), true),
        ("feature/discount-codes", f2_sha.clone(), false),
        ("feature/redis-carts", r1_sha.clone(), false),
        ("release/1.3", sha(seed(4)), true),
    ] {
        p.branches.push(Branch {
            name: name.into(),
            commit_sha: head,
            protected,
            allow_force_push: false,
        });
    }
    p.files = main.clone();
    p.branch_files
        .insert("feature/discount-codes".into(), v2.clone());
    p.branch_files
        .insert("feature/redis-carts".into(), redis.clone());
    p.branch_files
        .insert("release/1.3".into(), shipping.clone());
    p.tags.push(Tag {
        name: "v1.2.0".into(),
        message: Some("Webshop 1.2".into()),
        target: sha(seed(2)),
    });
    p.tags.push(Tag {
        name: "v1.3.0".into(),
        message: Some("Webshop 1.3: Node 20, free shipping from 50.00".into()),
        target: sha(seed(4)),
    });
    p.releases.push(Release {
        tag_name: "v1.3.0".into(),
        name: "Webshop 1.3".into(),
        description: "## Changes\n\n- Node.js 20 (!1)\n- Free shipping from 50.00\n\n## Upgrade\n\nRun `npm ci` after pulling.\n".into(),
        created_at: "2026-02-10T09:00:00.000Z".into(),
        links: vec![(
            1,
            "Docker image".into(),
            "https://registry.example.com/demo/webshop:1.3.0".into(),
        )],
    });

    for (id, name, color, description) in [
        (701u64, "bug", "#d9534f", "Something does not work"),
        (702, "feature", "#428bca", "New functionality"),
        (703, "frontend", "#f0ad4e", "Storefront and browser"),
        (704, "backend", "#5cb85c", "API and checkout"),
        (705, "documentation", "#7f8c8d", "Docs and runbooks"),
        (706, "priority::high", "#ff0000", "Fix this first"),
        (707, "security", "#8e44ad", "Security relevant"),
    ] {
        p.labels.push(Label {
            id,
            name: name.into(),
            color: color.into(),
            description: Some(description.into()),
        });
    }
    p.milestones.push(Milestone {
        id: 31,
        iid: 1,
        title: "v1.3".into(),
        description: "Node 20 and shipping rules".into(),
        state: "closed".into(),
        due_date: Some("2026-02-10".into()),
    });
    p.milestones.push(Milestone {
        id: 32,
        iid: 2,
        title: "v1.4".into(),
        description: "Discount codes and checkout fixes".into(),
        state: "active".into(),
        due_date: Some("2026-04-15".into()),
    });

    issues(db, &mut p);
    merge_requests(
        db,
        &mut p,
        &main_head,
        [&f1_sha, &f2_sha, &r1_sha],
        (&main, &v1, &v2, &redis),
    );
    pipelines(&mut p, &main_head, &f2_sha, &r1_sha);

    p.wiki.push(WikiPage {
        slug: "home".into(),
        title: "home".into(),
        content: "# Webshop wiki\n\n- [Deployment](deployment)\n- [Checkout outage runbook](runbooks/checkout-outage)\n".into(),
        format: "markdown".into(),
    });
    p.wiki.push(WikiPage {
        slug: "deployment".into(),
        title: "deployment".into(),
        content: "# Deployment\n\n1. Merge to `main`; the pipeline builds and tests.\n2. Play the manual `deploy` job.\n3. Watch https://webshop.example.com/healthz for five minutes.\n\nRoll back by re-running the `deploy` job of the previous pipeline.\n".into(),
        format: "markdown".into(),
    });
    p.wiki.push(WikiPage {
        slug: "runbooks/checkout-outage".into(),
        title: "checkout-outage".into(),
        content: "# Checkout outage\n\n- Check the payment provider's status page.\n- `kubectl -n webshop logs deploy/api | grep checkout`\n- Page the on-call backend engineer.\n".into(),
        format: "markdown".into(),
    });
    for (id, name, state, url) in [
        (
            71u64,
            "production",
            "available",
            "https://webshop.example.com",
        ),
        (
            72,
            "staging",
            "available",
            "https://staging.webshop.example.com",
        ),
    ] {
        p.environments.push(Environment {
            id,
            name: name.into(),
            state: state.into(),
            external_url: Some(url.into()),
        });
    }
    p.variables.push(Variable {
        key: "DEPLOY_HOST".into(),
        value: "webshop.example.com".into(),
        variable_type: "env_var".into(),
        protected: false,
        masked: false,
        environment_scope: "*".into(),
    });
    p.variables.push(Variable {
        key: "PAYMENT_API_KEY".into(),
        value: "sk_demo_not_a_real_key".into(),
        variable_type: "env_var".into(),
        protected: true,
        masked: true,
        environment_scope: "production".into(),
    });
    p.snippets.push(Snippet {
        id: 91,
        title: "Reset a stuck cart".into(),
        file_name: "reset-cart.sh".into(),
        content: "#!/bin/sh\ncurl -X DELETE \"https://webshop.example.com/carts/$1\"\n".into(),
        visibility: "private".into(),
        author_id: 2,
    });
    p
}

fn note(id: u64, author: u64, at: &str, body: &str) -> Note {
    Note {
        id,
        body: body.into(),
        author_id: author,
        created_at: at.into(),
        discussion_id: sha(id),
        ..Note::default()
    }
}

fn system_note(id: u64, author: u64, at: &str, body: &str) -> Note {
    Note {
        system: true,
        ..note(id, author, at, body)
    }
}

/// Notes of one thread: the first note's discussion id for all.
fn thread(mut notes: Vec<Note>, note_type: &'static str, resolvable: bool) -> Vec<Note> {
    let id = notes[0].discussion_id.clone();
    for n in &mut notes {
        n.discussion_id = id.clone();
        n.note_type = Some(note_type);
        n.resolvable = resolvable;
    }
    notes
}

/// iid, title, description, labels, author, assignees, milestone id,
/// closed, created at.
type IssueSpec<'a> = (
    u64,
    &'a str,
    &'a str,
    &'a [&'a str],
    u64,
    &'a [u64],
    Option<u64>,
    bool,
    &'a str,
);

fn issues(db: &mut Db, p: &mut Project) {
    let specs: [IssueSpec<'_>; 8] = [
        (
            1,
            "Checkout button does nothing on Safari 17",
            "## Summary\n\nOn Safari 17.3 (macOS and iOS) clicking **Place order** does nothing: no request is sent.\n\n## Steps to reproduce\n\n1. Add any product to the cart\n2. Open the cart and click **Place order**\n\n## Expected\n\nThe order is placed and the confirmation page opens.\n\n## Notes\n\nChrome and Firefox work. No error in the console.\n",
            &["bug", "frontend", "priority::high"],
            2,
            &[3],
            Some(32),
            false,
            "2026-02-24T08:31:00.000Z",
        ),
        (
            2,
            "Support discount codes at checkout",
            "Marketing wants to hand out codes for the spring campaign.\n\n- [x] `WELCOME10`: 10% off, no minimum\n- [x] `SPRING25`: 25% off from 100.00\n- [ ] show the discount on the confirmation page\n\nFree shipping must be decided on the discounted subtotal.\n",
            &["feature", "backend"],
            3,
            &[1],
            Some(32),
            false,
            "2026-02-18T13:02:00.000Z",
        ),
        (
            3,
            "Cart total off by one cent with three items at 33.33",
            "Three items at 33.33 show a total of 99.98. We sum rounded floats somewhere.\n",
            &["bug", "backend"],
            1,
            &[2],
            Some(31),
            true,
            "2026-01-12T10:15:00.000Z",
        ),
        (
            4,
            "Send an order confirmation email",
            "After checkout, send the customer an email with the order lines and the total.\n",
            &["feature"],
            2,
            &[],
            None,
            false,
            "2026-02-26T09:40:00.000Z",
        ),
        (
            5,
            "Upgrade to Node 20",
            "Node 18 reaches end of life in April 2025. Move CI and `engines` to Node 20.\n",
            &["backend"],
            2,
            &[2],
            Some(31),
            true,
            "2026-01-08T16:00:00.000Z",
        ),
        (
            6,
            "Keep carts across API restarts",
            "Carts live in memory and vanish on every deploy. Store them in Redis with a one-day expiry.\n",
            &["feature", "backend"],
            1,
            &[2],
            Some(32),
            false,
            "2026-02-20T11:22:00.000Z",
        ),
        (
            7,
            "Document the deployment process",
            "The wiki page is out of date since the manual deploy job was added.\n",
            &["documentation"],
            3,
            &[1],
            None,
            false,
            "2026-02-28T14:05:00.000Z",
        ),
        (
            8,
            "Rate limit the checkout endpoint",
            "A script placed 4,000 orders in a minute last night. Limit `POST /carts/:id/checkout` per IP.\n",
            &["security", "backend", "priority::high"],
            1,
            &[1],
            Some(32),
            false,
            "2026-03-01T07:55:00.000Z",
        ),
    ];
    for (iid, title, description, labels, author, assignees, milestone, closed, at) in specs {
        let id = 7_000 + iid;
        let milestone = milestone.and_then(|m| p.milestones.iter().find(|x| x.id == m));
        let mut issue = Issue {
            id,
            iid,
            title: title.into(),
            description: description.into(),
            state: if closed { "closed" } else { "opened" }.into(),
            labels: labels.iter().map(|l| l.to_string()).collect(),
            author_id: author,
            assignee_ids: assignees.to_vec(),
            milestone: milestone.map(|m| (m.id, m.iid, m.title.clone())),
            confidential: iid == 8,
            discussion_locked: None,
            due_date: milestone.and_then(|m| m.due_date.clone()),
            start_date: None,
            issue_type: "issue".into(),
            parent_id: None,
            created_at: at.into(),
            updated_at: at.into(),
            closed_at: closed.then(|| "2026-02-05T12:00:00.000Z".to_string()),
            closed_by: closed.then_some(2),
            notes: Vec::new(),
        };
        let n = 70_000 + iid * 100;
        match iid {
            1 => {
                issue.notes.push(system_note(
                    n,
                    2,
                    "2026-02-24T08:32:00.000Z",
                    "assigned to @carol",
                ));
                issue.notes.extend(thread(
                    vec![
                        note(n + 1, 3, "2026-02-24T10:02:00.000Z", "I can reproduce it on Safari 17.3: the click handler never fires."),
                        note(n + 2, 2, "2026-02-24T10:20:00.000Z", "The button sits outside the `<form>` and uses the `form` attribute; Safari ignores it when the form is in a `<dialog>`."),
                        note(n + 3, 1, "2026-02-24T11:45:00.000Z", "Moving the button into the form fixes it locally. @carol can you confirm on iOS?"),
                    ],
                    "DiscussionNote",
                    false,
                ));
                issue.notes.push(note(
                    n + 4,
                    3,
                    "2026-02-25T09:10:00.000Z",
                    "Confirmed on iOS 17.3 as well.",
                ));
            }
            2 => {
                issue.notes.push(system_note(
                    n,
                    1,
                    "2026-02-27T15:03:00.000Z",
                    "mentioned in merge request !3",
                ));
                issue.notes.push(note(
                    n + 1,
                    3,
                    "2026-02-28T09:00:00.000Z",
                    "Codes should be case-insensitive; customers type them in lowercase.",
                ));
            }
            3 => {
                issue.notes.push(note(
                    n + 1,
                    2,
                    "2026-02-04T16:30:00.000Z",
                    "Fixed by summing integer cents in `Cart.subtotalCents`.",
                ));
                issue
                    .notes
                    .push(system_note(n + 2, 2, "2026-02-05T12:00:00.000Z", "closed"));
            }
            _ => {}
        }
        p.issues.push(issue);
    }
    // #2 relates to #1, #6 to #8 (ids are 7_000 + iid).
    for (id, source, target) in [(1, 7_002, 7_001), (2, 7_006, 7_008)] {
        db.links.push(IssueLink {
            id,
            source,
            target,
            link_type: "relates_to",
        });
    }
}

/// A diff position as GitLab shows it on a diff note: one line, its
/// `line_range` from and to itself.
fn position(
    version: &MrVersion,
    path: &str,
    old_line: Option<u32>,
    new_line: Option<u32>,
) -> serde_json::Value {
    let diff = &version
        .diffs
        .iter()
        .find(|d| d.1 == path)
        .expect("file in the diff")
        .2;
    let line = crate::diff::find_line(diff, old_line, new_line).expect("line in the diff");
    let end = json!({
        "line_code": line.line_code(path),
        "type": if old_line.is_none() { json!("new") } else if new_line.is_none() { json!("old") } else { serde_json::Value::Null },
        "old_line": old_line,
        "new_line": new_line,
    });
    json!({
        "base_sha": version.base_commit_sha,
        "start_sha": version.start_commit_sha,
        "head_sha": version.head_commit_sha,
        "old_path": path,
        "new_path": path,
        "position_type": "text",
        "old_line": old_line,
        "new_line": new_line,
        "line_range": {"start": end.clone(), "end": end},
    })
}

/// The 1-based number of the line of `text` that equals `line` (trimmed).
fn line_of(text: &str, line: &str) -> u32 {
    text.lines()
        .position(|l| l.trim() == line)
        .map(|i| i as u32 + 1)
        .expect("the seeded line exists")
}

type Files<'a> = &'a BTreeMap<String, String>;

fn merge_requests(
    db: &mut Db,
    p: &mut Project,
    main_head: &str,
    [f1, f2, r1]: [&String; 3],
    (main, v1, v2, redis): (Files<'_>, Files<'_>, Files<'_>, Files<'_>),
) {
    let version =
        |id: u64, base: &str, head: &str, commits: Vec<String>, at: &str, diffs: Vec<FileDiff>| {
            MrVersion {
                id,
                head_commit_sha: head.into(),
                base_commit_sha: base.into(),
                start_commit_sha: base.into(),
                created_at: at.into(),
                commit_shas: commits,
                diffs,
            }
        };
    let node18 = p
        .commits
        .iter()
        .find(|c| c.title == "Add cart and checkout")
        .map(|c| c.id.clone())
        .unwrap();
    let node20 = p
        .commits
        .iter()
        .find(|c| c.title == "Upgrade to Node 20")
        .unwrap();
    let node20_sha = node20.id.clone();
    let node20_diffs = node20.diffs.clone();

    let mut mrs = vec![
        MergeRequest {
            id: 7_301,
            iid: 1,
            title: "Upgrade to Node 20".into(),
            description: "Moves CI and `engines` to Node 20.\n\nCloses #5.\n".into(),
            state: "merged".into(),
            source_branch: "chore/node-20".into(),
            target_branch: "main".into(),
            author_id: 2,
            assignee_ids: vec![2],
            reviewer_ids: vec![1],
            labels: vec!["backend".into()],
            draft: false,
            sha: node20_sha.clone(),
            merge_commit_sha: Some(node20_sha.clone()),
            squash: true,
            created_at: "2026-01-19T09:00:00.000Z".into(),
            updated_at: "2026-01-20T09:31:00.000Z".into(),
            merged_at: Some("2026-01-20T09:31:00.000Z".into()),
            merged_by: Some(1),
            approved_by: vec![1],
            notes: vec![note(73_001, 1, "2026-01-20T09:25:00.000Z", "LGTM, thanks!")],
            commit_shas: vec![node20_sha.clone()],
            versions: vec![version(7_401, &node18, &node20_sha, vec![node20_sha.clone()], "2026-01-19T09:00:00.000Z", node20_diffs)],
            milestone_id: Some(31),
            head_pipeline_id: None,
            draft_notes: vec![],
            auto_merge: None,
            merge_error: None,
        },
        MergeRequest {
            id: 7_302,
            iid: 2,
            title: "Draft: Persist carts in Redis".into(),
            description: "Stores carts in Redis with a one-day expiry.\n\nStill to do: wire `loadCart`/`saveCart` into the server.\n\nCloses #6.\n".into(),
            state: "opened".into(),
            source_branch: "feature/redis-carts".into(),
            target_branch: "main".into(),
            author_id: 2,
            assignee_ids: vec![2],
            reviewer_ids: vec![],
            labels: vec!["feature".into(), "backend".into()],
            draft: true,
            sha: r1.clone(),
            merge_commit_sha: None,
            squash: false,
            created_at: "2026-02-25T09:20:00.000Z".into(),
            updated_at: "2026-02-25T09:20:00.000Z".into(),
            merged_at: None,
            merged_by: None,
            approved_by: vec![],
            notes: vec![],
            commit_shas: vec![r1.clone()],
            versions: vec![version(7_411, main_head, r1, vec![r1.clone()], "2026-02-25T09:20:00.000Z", diff_files(main, redis))],
            milestone_id: Some(32),
            head_pipeline_id: Some(4103),
            draft_notes: vec![],
            auto_merge: None,
            merge_error: None,
        },
    ];

    let v1_version = version(
        7_421,
        main_head,
        f1,
        vec![f1.clone()],
        "2026-02-27T14:03:00.000Z",
        diff_files(main, v1),
    );
    let v2_version = version(
        7_422,
        main_head,
        f2,
        vec![f2.clone(), f1.clone()],
        "2026-03-02T09:49:00.000Z",
        diff_files(main, v2),
    );
    // The unresolved thread: on the unchanged line that decides shipping
    // (both line numbers, as GitLab needs for a context line).
    let shipping_line = "const shippingCents = shippingFor(subtotalCents);";
    let old_line = line_of(&main["src/checkout.ts"], shipping_line);
    let new_line = line_of(&v2["src/checkout.ts"], shipping_line);
    let mut shipping_thread = thread(
        vec![
            note(
                73_301,
                2,
                "2026-03-02T11:10:00.000Z",
                "Free shipping is still decided on the subtotal before the discount, so a 52.00 cart with WELCOME10 ships for free. That is the failing `applies free shipping after the discount` test in the pipeline.\n\n```suggestion:-0+0\n  const shippingCents = shippingFor(subtotalCents - off);\n```",
            ),
            note(
                73_302,
                1,
                "2026-03-02T11:32:00.000Z",
                "Right, #2 says so too. I'll fix it and add the case to the tests.",
            ),
        ],
        "DiffNote",
        true,
    );
    for n in &mut shipping_thread {
        n.position = Some(position(
            &v2_version,
            "src/checkout.ts",
            Some(old_line),
            Some(new_line),
        ));
    }
    // The resolved thread: on an added line of the first version.
    let find_line = "return DISCOUNTS.find((d) => d.code === code);";
    let added = line_of(&v1["src/discounts.ts"], find_line);
    let mut case_thread = thread(
        vec![
            note(
                73_311,
                3,
                "2026-02-28T09:05:00.000Z",
                "Customers will type `welcome10`. Can we match codes case-insensitively?",
            ),
            note(
                73_312,
                1,
                "2026-03-02T09:50:00.000Z",
                "Done in the second push: codes are trimmed and upper-cased.",
            ),
        ],
        "DiffNote",
        true,
    );
    for n in &mut case_thread {
        n.position = Some(position(&v1_version, "src/discounts.ts", None, Some(added)));
        n.resolved = true;
        n.resolved_by = Some(1);
    }
    let mut notes = vec![
        note(
            73_300,
            1,
            "2026-02-27T15:05:00.000Z",
            "@bob @carol ready for review. Codes are hard-coded for now; an admin UI comes later.",
        ),
        system_note(
            73_305,
            1,
            "2026-03-02T09:49:00.000Z",
            &format!(
                "added 1 commit\n\n<ul><li>{} - Match discount codes case-insensitively</li></ul>",
                &f2[..8]
            ),
        ),
        system_note(
            73_306,
            3,
            "2026-03-02T10:15:00.000Z",
            "approved this merge request",
        ),
    ];
    notes.splice(1..1, case_thread);
    notes.extend(shipping_thread);
    mrs.push(MergeRequest {
        id: 7_303,
        iid: 3,
        title: "Add discount codes at checkout".into(),
        description: "Adds `WELCOME10` and `SPRING25` and takes the discount off the order total.\n\n- `src/discounts.ts`: the codes and the discount arithmetic\n- `checkout()` takes an optional `discountCode`\n- tests for both\n\nCloses #2.\n".into(),
        state: "opened".into(),
        source_branch: "feature/discount-codes".into(),
        target_branch: "main".into(),
        author_id: 1,
        assignee_ids: vec![1],
        reviewer_ids: vec![2, 3],
        labels: vec!["feature".into(), "backend".into()],
        draft: false,
        sha: f2.clone(),
        merge_commit_sha: None,
        squash: false,
        created_at: "2026-02-27T14:03:00.000Z".into(),
        updated_at: "2026-03-02T11:32:00.000Z".into(),
        merged_at: None,
        merged_by: None,
        approved_by: vec![3],
        notes,
        commit_shas: vec![f2.clone(), f1.clone()],
        versions: vec![v1_version, v2_version],
        milestone_id: Some(32),
        head_pipeline_id: Some(4102),
        draft_notes: vec![],
        auto_merge: None,
        merge_error: None,
    });
    p.merge_requests = mrs;
    let _ = db;
}

fn pipelines(p: &mut Project, main_head: &str, f2: &str, r1: &str) {
    for (id, iid, status, git_ref, sha, at, source) in [
        (
            4101u64,
            41u64,
            "success",
            "main",
            main_head,
            "2026-02-23T16:41:00.000Z",
            "push",
        ),
        (
            4102,
            42,
            "failed",
            "feature/discount-codes",
            f2,
            "2026-03-02T09:49:00.000Z",
            "merge_request_event",
        ),
        (
            4103,
            43,
            "running",
            "feature/redis-carts",
            r1,
            "2026-03-02T16:10:00.000Z",
            "push",
        ),
    ] {
        p.pipelines.push(Pipeline {
            id,
            iid,
            status: status.into(),
            git_ref: git_ref.into(),
            sha: sha.into(),
            source: source.into(),
            user_id: if git_ref == "feature/redis-carts" {
                2
            } else {
                1
            },
            created_at: at.into(),
            updated_at: at.into(),
            ..Pipeline::default()
        });
    }
    let junit_failed = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"jest tests\" tests=\"2412\" failures=\"1\" errors=\"0\" time=\"41.87\">\n  <testsuite name=\"checkout\" tests=\"5\" failures=\"1\" time=\"0.41\">\n    <testcase classname=\"checkout applies free shipping after the discount\" name=\"checkout applies free shipping after the discount\" time=\"0.004\">\n      <failure>Error: expect(received).toBe(expected) // Object.is equality\n\nExpected: 495\nReceived: 0</failure>\n    </testcase>\n  </testsuite>\n</testsuites>\n".to_string();
    let jobs: [(u64, &str, &str, &str, u64, JobLog); 10] = [
        (
            8801,
            "build",
            "build",
            "success",
            4101,
            JobLog::Text(build_log("main", main_head)),
        ),
        (
            8802,
            "test",
            "test",
            "success",
            4101,
            JobLog::Text(test_log("main", main_head, false)),
        ),
        (
            8803,
            "lint",
            "test",
            "success",
            4101,
            JobLog::Text(lint_log("main", main_head)),
        ),
        (
            8804,
            "deploy",
            "deploy",
            "manual",
            4101,
            JobLog::Text(String::new()),
        ),
        (
            8805,
            "build",
            "build",
            "success",
            4102,
            JobLog::Text(build_log("feature/discount-codes", f2)),
        ),
        (
            8806,
            "test",
            "test",
            "failed",
            4102,
            JobLog::Text(test_log("feature/discount-codes", f2, true)),
        ),
        (
            8807,
            "lint",
            "test",
            "success",
            4102,
            JobLog::Text(lint_log("feature/discount-codes", f2)),
        ),
        (
            8808,
            "build",
            "build",
            "success",
            4103,
            JobLog::Text(build_log("feature/redis-carts", r1)),
        ),
        (
            8809,
            "test",
            "test",
            "running",
            4103,
            JobLog::Text(running_log("feature/redis-carts", r1)),
        ),
        (
            8810,
            "lint",
            "test",
            "pending",
            4103,
            JobLog::Text(String::new()),
        ),
    ];
    for (id, name, stage, status, pipeline_id, log) in jobs {
        let pipeline = p.pipelines.iter().find(|x| x.id == pipeline_id).unwrap();
        let job = Job {
            user_id: 1,
            artifacts: match id {
                8806 => BTreeMap::from([("junit.xml".to_string(), junit_failed.clone())]),
                8801 | 8805 => BTreeMap::from([(
                    "dist/server.js".to_string(),
                    "\"use strict\";\n// compiled by tsc\n".to_string(),
                )]),
                _ => BTreeMap::new(),
            },
            ..Job::of(pipeline, id, name, stage, status, log)
        };
        p.jobs.push(job);
    }
    if let Some(mr_pipeline) = p.pipelines.iter_mut().find(|x| x.id == 4102) {
        mr_pipeline.test_suites = checkout_suite();
    }
    release::seed(p);
}

/// Job 8806's JUnit report as GitLab parsed it: the checkout suite, one
/// case failed.
fn checkout_suite() -> Vec<TestSuite> {
    let case = |status: &str, name: &str, message: Option<&str>| TestCase {
        status: status.into(),
        name: format!("checkout {name}"),
        classname: format!("checkout {name}"),
        execution_time: 0.002,
        system_output: message.map(str::to_string),
        ..TestCase::default()
    };
    vec![TestSuite {
        name: "checkout".into(),
        cases: vec![
            case(
                "success",
                "charges shipping below the free shipping threshold",
                None,
            ),
            case("success", "ships for free from 50.00", None),
            case("success", "refuses an empty cart", None),
            case("success", "takes the discount off the total", None),
            case(
                "failed",
                "applies free shipping after the discount",
                Some(
                    "Error: expect(received).toBe(expected) // Object.is equality\n\nExpected: 495\nReceived: 0",
                ),
            ),
        ],
    }]
}

/// The runner's preamble, as GitLab job logs start (sections and all).
fn preamble(out: &mut String, job: &str, git_ref: &str, sha: &str) {
    let t = 1_772_443_740u64;
    out.push_str("\u{1b}[0KRunning with gitlab-runner 18.6.2 (b1c2d3e4)\u{1b}[0;m\n");
    out.push_str("\u{1b}[0K  on demo-runner-2 t3_xYz12, system ID: s_0123456789ab\u{1b}[0;m\n");
    out.push_str(&format!("section_start:{t}:prepare_executor\r\u{1b}[0K\u{1b}[0K\u{1b}[36;1mPreparing the \"docker\" executor\u{1b}[0;m\u{1b}[0;m\n"));
    out.push_str("\u{1b}[0KUsing Docker executor with image node:20-alpine ...\u{1b}[0;m\n");
    out.push_str("\u{1b}[0KPulling docker image node:20-alpine ...\u{1b}[0;m\n");
    out.push_str("\u{1b}[0KUsing docker image sha256:5f4e3d2c1b0a for node:20-alpine with digest node@sha256:9a8b7c6d ...\u{1b}[0;m\n");
    out.push_str(&format!(
        "section_end:{}:prepare_executor\r\u{1b}[0K\n",
        t + 4
    ));
    out.push_str(&format!("section_start:{}:get_sources\r\u{1b}[0K\u{1b}[0K\u{1b}[36;1mGetting source from Git repository\u{1b}[0;m\u{1b}[0;m\n", t + 4));
    out.push_str("\u{1b}[32;1mFetching changes with git depth set to 20...\u{1b}[0;m\n");
    out.push_str("Initialized empty Git repository in /builds/demo/webshop/.git/\n");
    out.push_str(&format!(
        "\u{1b}[32;1mChecking out {} as detached HEAD (ref is {git_ref})...\u{1b}[0;m\n",
        &sha[..8]
    ));
    out.push_str("\u{1b}[32;1mSkipping Git submodules setup\u{1b}[0;m\n");
    out.push_str(&format!("section_end:{}:get_sources\r\u{1b}[0K\n", t + 6));
    out.push_str(&format!("section_start:{}:restore_cache\r\u{1b}[0K\u{1b}[0K\u{1b}[36;1mRestoring cache\u{1b}[0;m\u{1b}[0;m\n", t + 6));
    out.push_str("\u{1b}[32;1mChecking cache for 0_package-lock-8f3e2a1b-protected...\u{1b}[0;m\n");
    out.push_str("Successfully extracted cache\n");
    out.push_str(&format!("section_end:{}:restore_cache\r\u{1b}[0K\n", t + 9));
    out.push_str(&format!("section_start:{}:step_script\r\u{1b}[0K\u{1b}[0K\u{1b}[36;1mExecuting \"step_script\" stage of the job script\u{1b}[0;m\u{1b}[0;m\n", t + 9));
    out.push_str("\u{1b}[32;1m$ npm ci\u{1b}[0;m\n");
    out.push_str(
        "npm warn deprecated inflight@1.0.6: This module is not supported, and leaks memory.\n",
    );
    out.push_str(
        "npm warn deprecated glob@7.2.3: Glob versions prior to v9 are no longer supported\n",
    );
    out.push_str("\nadded 412 packages, and audited 413 packages in 7s\n\n63 packages are looking for funding\n  run `npm fund` for details\n\nfound 0 vulnerabilities\n");
    let _ = job;
}

/// A suite's name and its 11 groups of `CASES`, each case passing; with
/// `failing`, the group and the case that fail (`✕`) after the group's
/// passing ones.
fn suite_cases(out: &mut String, name: &str, total: &mut u32, failing: Option<(usize, &str)>) {
    out.push_str(&format!("  {name}\n"));
    for group in 0..11 {
        out.push_str(&format!("    case group {}\n", group + 1));
        for (c, case) in CASES.iter().enumerate() {
            *total += 1;
            out.push_str(&format!(
                "      \u{1b}[32m✓\u{1b}[39m {case} #{} ({} ms)\n",
                group * CASES.len() + c + 1,
                1 + (*total * 7) % 23
            ));
        }
        if let Some((failing_group, case)) = failing
            && failing_group == group
        {
            *total += 1;
            out.push_str(&format!("      \u{1b}[31m✕\u{1b}[39m {case} (4 ms)\n"));
        }
    }
}

/// The end of a job's script, and the runner's sections after it; a
/// failed job (`failed`: its id) uploads its JUnit report.
fn ending(out: &mut String, failed: Option<u64>) {
    let t = 1_772_443_840u64;
    out.push_str(&format!("section_end:{t}:step_script\r\u{1b}[0K\n"));
    if let Some(job) = failed {
        out.push_str(&format!("section_start:{t}:upload_artifacts_on_failure\r\u{1b}[0K\u{1b}[0K\u{1b}[36;1mUploading artifacts for failed job\u{1b}[0;m\u{1b}[0;m\n"));
        out.push_str("\u{1b}[32;1mUploading artifacts...\u{1b}[0;m\njunit.xml: found 1 matching artifact files and directories\u{1b}[0;m \n");
        out.push_str(&format!("\u{1b}[32;1mUploading artifacts as \"junit\" to coordinator... 201 Created\u{1b}[0;m  id\u{1b}[0;m={job} responseStatus\u{1b}[0;m=201 Created\n"));
        out.push_str(&format!(
            "section_end:{}:upload_artifacts_on_failure\r\u{1b}[0K\n",
            t + 2
        ));
        out.push_str(&format!("section_start:{}:cleanup_file_variables\r\u{1b}[0K\u{1b}[0K\u{1b}[36;1mCleaning up project directory and file based variables\u{1b}[0;m\u{1b}[0;m\n", t + 2));
        out.push_str(&format!(
            "section_end:{}:cleanup_file_variables\r\u{1b}[0K\n",
            t + 3
        ));
        out.push_str("\u{1b}[31;1mERROR: Job failed: exit code 1\n\u{1b}[0;m\n");
    } else {
        out.push_str(&format!("section_start:{t}:cleanup_file_variables\r\u{1b}[0K\u{1b}[0K\u{1b}[36;1mCleaning up project directory and file based variables\u{1b}[0;m\u{1b}[0;m\n"));
        out.push_str(&format!(
            "section_end:{}:cleanup_file_variables\r\u{1b}[0K\n",
            t + 1
        ));
        out.push_str("\u{1b}[32;1mJob succeeded\u{1b}[0;m\n");
    }
}

fn build_log(git_ref: &str, sha: &str) -> String {
    let mut out = String::new();
    preamble(&mut out, "build", git_ref, sha);
    out.push_str("\u{1b}[32;1m$ npm run build\u{1b}[0;m\n\n> webshop@1.3.0 build\n> tsc -p .\n\n");
    ending(&mut out, None);
    out
}

fn lint_log(git_ref: &str, sha: &str) -> String {
    let mut out = String::new();
    preamble(&mut out, "lint", git_ref, sha);
    out.push_str(
        "\u{1b}[32;1m$ npm run lint\u{1b}[0;m\n\n> webshop@1.3.0 lint\n> eslint src test\n\n",
    );
    ending(&mut out, None);
    out
}

fn running_log(git_ref: &str, sha: &str) -> String {
    let mut out = String::new();
    preamble(&mut out, "test", git_ref, sha);
    out.push_str("\u{1b}[32;1m$ npm test -- --ci --reporters=default --reporters=jest-junit\u{1b}[0;m\n\n> webshop@1.3.0 test\n> jest --ci --reporters=default --reporters=jest-junit\n\n");
    out
}

/// Suites of the generated test run: (file, describe, test names).
const SUITES: &[(&str, &str)] = &[
    ("test/catalog/search.test.ts", "catalog search"),
    ("test/catalog/filters.test.ts", "catalog filters"),
    ("test/catalog/sorting.test.ts", "catalog sorting"),
    ("test/pricing/currency.test.ts", "currency formatting"),
    ("test/pricing/tax.test.ts", "tax rules"),
    ("test/pricing/rounding.test.ts", "rounding"),
    ("test/accounts/signup.test.ts", "signup"),
    ("test/accounts/login.test.ts", "login"),
    ("test/accounts/password-reset.test.ts", "password reset"),
    ("test/orders/history.test.ts", "order history"),
    ("test/orders/refunds.test.ts", "refunds"),
    ("test/orders/invoices.test.ts", "invoices"),
    ("test/inventory/stock.test.ts", "stock levels"),
    ("test/inventory/reservations.test.ts", "reservations"),
    ("test/shipping/carriers.test.ts", "carriers"),
    ("test/shipping/zones.test.ts", "shipping zones"),
    ("test/api/routes.test.ts", "API routes"),
    ("test/api/validation.test.ts", "request validation"),
];

const CASES: &[&str] = &[
    "accepts a valid request",
    "rejects a missing field",
    "rejects an unknown field",
    "keeps the order of results",
    "handles an empty list",
    "handles unicode names",
    "paginates past the first page",
    "is stable across calls",
    "rounds half to even",
    "respects the locale",
    "caches the second lookup",
    "expires the cache after an hour",
];

/// A Jest run of ~2,400 tests, verbose, one line each; with `fail`, the
/// discount test fails and its report comes near the end.
fn test_log(git_ref: &str, sha: &str, fail: bool) -> String {
    let mut out = String::new();
    preamble(&mut out, "test", git_ref, sha);
    out.push_str("\u{1b}[32;1m$ npm test -- --ci --reporters=default --reporters=jest-junit\u{1b}[0;m\n\n> webshop@1.3.0 test\n> jest --ci --reporters=default --reporters=jest-junit\n\n");
    let mut total = 0u32;
    for (s, (file, name)) in SUITES.iter().enumerate() {
        out.push_str(&format!(
            "\u{1b}[32m PASS \u{1b}[39m {file} ({}.{:02} s)\n",
            1 + s % 3,
            (s * 37) % 100
        ));
        suite_cases(&mut out, name, &mut total, None);
    }
    out.push_str(" \u{1b}[32m PASS \u{1b}[39m test/cart.test.ts\n  Cart\n    \u{1b}[32m✓\u{1b}[39m adds up the subtotal (2 ms)\n    \u{1b}[32m✓\u{1b}[39m merges lines of the same product (1 ms)\n");
    total += 2;
    if fail {
        out.push_str(" \u{1b}[32m PASS \u{1b}[39m test/discounts.test.ts\n  discounts\n    \u{1b}[32m✓\u{1b}[39m finds codes whatever their case (1 ms)\n    \u{1b}[32m✓\u{1b}[39m needs the minimum subtotal\n");
        out.push_str(" \u{1b}[31m FAIL \u{1b}[39m test/checkout.test.ts\n  checkout\n    \u{1b}[32m✓\u{1b}[39m charges shipping below the free shipping threshold (2 ms)\n    \u{1b}[32m✓\u{1b}[39m ships for free from 50.00\n    \u{1b}[32m✓\u{1b}[39m refuses an empty cart (4 ms)\n    \u{1b}[32m✓\u{1b}[39m takes the discount off the total (1 ms)\n    \u{1b}[31m✕\u{1b}[39m applies free shipping after the discount (3 ms)\n\n");
        out.push_str("\u{1b}[1m\u{1b}[31m  ● checkout › applies free shipping after the discount\u{1b}[39m\u{1b}[22m\n\n");
        out.push_str("    \u{1b}[2mexpect(\u{1b}[22m\u{1b}[31mreceived\u{1b}[39m\u{1b}[2m).\u{1b}[22mtoBe\u{1b}[2m(\u{1b}[22m\u{1b}[32mexpected\u{1b}[39m\u{1b}[2m) // Object.is equality\u{1b}[22m\n\n");
        out.push_str(
            "    Expected: \u{1b}[32m495\u{1b}[39m\n    Received: \u{1b}[31m0\u{1b}[39m\n\n",
        );
        out.push_str("    \u{1b}[0m \u{1b}[90m 27 |\u{1b}[39m   it(\u{1b}[32m\"applies free shipping after the discount\"\u{1b}[39m\u{1b}[33m,\u{1b}[39m () \u{1b}[33m=>\u{1b}[39m {\n     \u{1b}[90m 28 |\u{1b}[39m     \u{1b}[36mconst\u{1b}[39m order \u{1b}[33m=\u{1b}[39m checkout(cartWith(\u{1b}[35m5200\u{1b}[39m)\u{1b}[33m,\u{1b}[39m \u{1b}[32m\"ord_5\"\u{1b}[39m\u{1b}[33m,\u{1b}[39m \u{1b}[32m\"WELCOME10\"\u{1b}[39m)\u{1b}[33m;\u{1b}[39m\n    \u{1b}[31m\u{1b}[1m>\u{1b}[22m\u{1b}[39m\u{1b}[90m 29 |\u{1b}[39m     expect(order\u{1b}[33m.\u{1b}[39mshippingCents)\u{1b}[33m.\u{1b}[39mtoBe(\u{1b}[35m495\u{1b}[39m)\u{1b}[33m;\u{1b}[39m\n     \u{1b}[90m    |\u{1b}[39m                                 \u{1b}[31m\u{1b}[1m^\u{1b}[22m\u{1b}[39m\n     \u{1b}[90m 30 |\u{1b}[39m   })\u{1b}[33m;\u{1b}[39m\n     \u{1b}[90m 31 |\u{1b}[39m })\u{1b}[33m;\u{1b}[39m\u{1b}[0m\n\n");
        out.push_str("      \u{1b}[2mat Object.toBe (\u{1b}[22mtest/checkout.test.ts\u{1b}[2m:29:33)\u{1b}[22m\n\n");
        total += 7;
        out.push_str(&format!("\u{1b}[1mTest Suites: \u{1b}[22m\u{1b}[1m\u{1b}[31m1 failed\u{1b}[39m\u{1b}[22m, \u{1b}[1m\u{1b}[32m{} passed\u{1b}[39m\u{1b}[22m, {} total\n", SUITES.len() + 2, SUITES.len() + 3));
        out.push_str(&format!("\u{1b}[1mTests:       \u{1b}[22m\u{1b}[1m\u{1b}[31m1 failed\u{1b}[39m\u{1b}[22m, \u{1b}[1m\u{1b}[32m{} passed\u{1b}[39m\u{1b}[22m, {total} total\n", total - 1));
    } else {
        out.push_str(" \u{1b}[32m PASS \u{1b}[39m test/checkout.test.ts\n  checkout\n    \u{1b}[32m✓\u{1b}[39m charges shipping below the free shipping threshold (2 ms)\n    \u{1b}[32m✓\u{1b}[39m ships for free from 50.00\n    \u{1b}[32m✓\u{1b}[39m refuses an empty cart (4 ms)\n\n");
        total += 3;
        out.push_str(&format!("\u{1b}[1mTest Suites: \u{1b}[22m\u{1b}[1m\u{1b}[32m{} passed\u{1b}[39m\u{1b}[22m, {} total\n", SUITES.len() + 2, SUITES.len() + 2));
        out.push_str(&format!("\u{1b}[1mTests:       \u{1b}[22m\u{1b}[1m\u{1b}[32m{total} passed\u{1b}[39m\u{1b}[22m, {total} total\n"));
    }
    out.push_str("\u{1b}[1mSnapshots:   \u{1b}[22m0 total\n\u{1b}[1mTime:\u{1b}[22m        41.87 s\n\u{1b}[2mRan all test suites\u{1b}[22m\u{1b}[2m.\u{1b}[22m\n");
    ending(&mut out, fail.then_some(8806));
    out
}

fn infra() -> Project {
    let mut p = empty_project(8, "infra", 20, "demo/infra", "public", vec![1, 2]);
    p.name = "Infra".into();
    p.description = "Terraform for the demo shop's cloud resources.".into();
    p.files.insert(
        "README.md".into(),
        demo_file!("infra/main/README.md").into(),
    );
    p.files
        .insert("main.tf".into(), demo_file!("infra/main/main.tf").into());
    let c = Commit {
        id: sha(8_001),
        title: "Initial Terraform".into(),
        message: "Initial Terraform\n".into(),
        author_name: BOB.0.into(),
        author_email: BOB.1.into(),
        date: "2025-11-03T10:00:00.000+01:00".into(),
        parent_ids: vec![],
        diffs: diff_files(&BTreeMap::new(), &p.files),
    };
    p.branches.push(Branch {
        name: "main".into(),
        commit_sha: c.id.clone(),
        protected: true,
        allow_force_push: false,
    });
    p.commits.push(c);
    // #1 and its two tasks (work items of type Task, children of #1),
    // bob's so that alice's own lists stay as the demo shows them.
    for (iid, issue_type, title, description, parent_id, due_date) in [
        (
            1,
            "issue",
            "Scale the API to four replicas for the spring campaign",
            "Expected traffic is twice last year's.\n",
            None,
            Some("2026-03-20"),
        ),
        (
            2,
            "task",
            "Raise the replica count in main.tf to four",
            "Change `replicas = 3` in the webshop module and run `terraform plan`.\n",
            Some(8_001),
            Some("2026-03-13"),
        ),
        (
            3,
            "task",
            "Load-test checkout at twice last year's traffic",
            "Run the k6 checkout scenario against staging before the campaign.\n",
            Some(8_001),
            Some("2026-03-18"),
        ),
    ] {
        let at = format!("2026-02-27T1{iid}:00:00.000Z");
        p.issues.push(Issue {
            id: 8_000 + iid,
            iid,
            title: title.into(),
            description: description.into(),
            state: "opened".into(),
            labels: vec![],
            author_id: 2,
            assignee_ids: vec![2],
            milestone: None,
            confidential: false,
            discussion_locked: None,
            due_date: due_date.map(str::to_string),
            start_date: None,
            issue_type: issue_type.into(),
            parent_id,
            created_at: at.clone(),
            updated_at: at,
            closed_at: None,
            closed_by: None,
            notes: vec![],
        });
    }
    p
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::routes::discussions::check_position;

    #[test]
    fn every_seeded_diff_note_is_on_a_line_of_its_version() {
        let db = Db::sandbox("http://sandbox");
        let p = &db.projects[0];
        let mut checked = 0;
        for m in &p.merge_requests {
            for n in m.notes.iter().filter(|n| n.position.is_some()) {
                let pos = n.position.as_ref().unwrap();
                assert_eq!(check_position(p, m, pos).ok().as_ref(), Some(pos), "{pos}");
                checked += 1;
            }
        }
        assert_eq!(checked, 4);
    }

    #[test]
    fn the_release_pipelines_failure_sits_in_the_middle_of_its_log() {
        let db = Db::sandbox("http://sandbox");
        let job = db.projects[0].jobs.iter().find(|j| j.id == 8812).unwrap();
        let JobLog::Text(log) = &job.log else {
            panic!()
        };
        let lines: Vec<&str> = log.lines().collect();
        let failure = lines
            .iter()
            .position(|l| l.contains("● refunds › case group 3 › refunds the shipping"))
            .unwrap();
        assert!(lines.len() > 2_500, "{}", lines.len());
        assert!(
            failure > 1_000 && lines.len() - failure > 1_000,
            "{failure} of {}",
            lines.len()
        );
        assert!(
            !lines[lines.len() - 100..]
                .iter()
                .any(|l| l.contains("refunds"))
        );
        let pipeline = db.projects[0]
            .pipelines
            .iter()
            .find(|p| p.id == 4104)
            .unwrap();
        let failed: Vec<&str> = pipeline
            .test_suites
            .iter()
            .flat_map(|s| &s.cases)
            .filter(|c| c.status == "failed")
            .map(|c| c.name.as_str())
            .collect();
        assert_eq!(
            failed,
            ["refunds case group 3 refunds the shipping when the whole order is returned"]
        );
    }

    #[test]
    fn the_failed_job_log_is_long_and_ends_with_the_failure() {
        let db = Db::sandbox("http://sandbox");
        let job = db.projects[0].jobs.iter().find(|j| j.id == 8806).unwrap();
        let JobLog::Text(log) = &job.log else {
            panic!()
        };
        let lines: Vec<&str> = log.lines().collect();
        assert!(lines.len() > 2000, "{}", lines.len());
        let failure = lines
            .iter()
            .rposition(|l| l.contains("checkout › applies free shipping after the discount"))
            .unwrap();
        assert!(lines.len() - failure < 40);
        assert!(log.ends_with("\u{1b}[31;1mERROR: Job failed: exit code 1\n\u{1b}[0;m\n"));
    }
}

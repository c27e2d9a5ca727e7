//! Work items as GitLab models them, on the fake's data: a work item is an
//! issue row (a project's `issues`, or a group's `work_items` for epics)
//! with a type and an optional parent, so REST issues and GraphQL work
//! items are the same rows with the same iids.
//!
//! What the edition changes (`Edition`):
//! - the types a namespace has (`WorkItemKind::available`): CE has Issue,
//!   Incident, Task and Ticket; EE adds Objective, Key Result, Requirement
//!   and Test Case, and Epic in groups (licensed types:
//!   ee/app/models/ee/work_items/type.rb);
//! - `blocks` / `is_blocked_by` links (licensed `blocked_work_items`:
//!   "Blocked work items are not available for the current subscription
//!   tier", spec/services/work_items/related_work_item_links/create_service_spec.rb);
//! - several assignees (CE keeps the first one: `allows_multiple_assignees?`
//!   is EE's).
//!
//! Type ids are the fake's own (101...), deliberately not GitLab.com's
//! (1...): type ids differ between installations and must be read.

use crate::auth::Auth;
use crate::db::{Db, Edition, Issue};

/// A work item type: its base type (`issue`, `key_result`...), its name
/// (`Key Result`) and the fake's id for `gid://gitlab/WorkItems::Type/<id>`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WorkItemKind {
    pub base: &'static str,
    pub name: &'static str,
    pub id: u64,
    /// Licensed: EE only.
    paid: bool,
    /// Lives in groups only (epics).
    group_level: bool,
}

const fn kind(base: &'static str, name: &'static str, id: u64, paid: bool) -> WorkItemKind {
    WorkItemKind {
        base,
        name,
        id,
        paid,
        group_level: false,
    }
}

/// Every type GitLab knows (app/models/work_items/type.rb `BASE_TYPES`),
/// numbered in an order of the fake's own.
pub const KINDS: [WorkItemKind; 9] = [
    kind("task", "Task", 101, false),
    kind("issue", "Issue", 102, false),
    kind("ticket", "Ticket", 103, false),
    kind("incident", "Incident", 104, false),
    WorkItemKind {
        base: "epic",
        name: "Epic",
        id: 105,
        paid: true,
        group_level: true,
    },
    kind("objective", "Objective", 106, true),
    kind("key_result", "Key Result", 107, true),
    kind("requirement", "Requirement", 108, true),
    kind("test_case", "Test Case", 109, true),
];

/// Which parent types a child type accepts, as GitLab seeds them
/// (lib/gitlab/database_importers/work_items/hierarchy_restrictions_importer.rb).
const HIERARCHY: [(&str, &str); 7] = [
    ("objective", "objective"),
    ("objective", "key_result"),
    ("issue", "task"),
    ("incident", "task"),
    ("epic", "epic"),
    ("epic", "issue"),
    ("ticket", "task"),
];

impl WorkItemKind {
    pub fn by_base(base: &str) -> Option<WorkItemKind> {
        KINDS.iter().copied().find(|k| k.base == base)
    }

    pub fn by_id(id: u64) -> Option<WorkItemKind> {
        KINDS.iter().copied().find(|k| k.id == id)
    }

    /// The types a namespace lists in `workItemTypes`, sorted by name as
    /// GitLab sorts them.
    pub fn available(edition: Edition, in_group: bool) -> Vec<WorkItemKind> {
        let mut kinds: Vec<WorkItemKind> = KINDS
            .iter()
            .copied()
            .filter(|k| edition == Edition::Ee || !k.paid)
            .filter(|k| in_group || !k.group_level)
            .collect();
        kinds.sort_by_key(|k| k.name);
        kinds
    }

    /// Whether a work item of this type can be created in the namespace:
    /// a listed type, and in a group only a group-level one.
    pub fn creatable(self, edition: Edition, in_group: bool) -> bool {
        Self::available(edition, in_group).contains(&self) && self.group_level == in_group
    }

    /// Whether `parent` may have a child of this type.
    pub fn accepts_parent(self, parent: WorkItemKind) -> bool {
        HIERARCHY.contains(&(parent.base, self.base))
    }
}

/// Where a work item lives: a project or a group, by index.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Owner {
    Project(usize),
    Group(usize),
}

/// A work item's place: its owner and its index there.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ItemRef {
    pub owner: Owner,
    pub index: usize,
}

impl Db {
    /// A namespace by full path: a project's, else a group's.
    pub fn namespace(&self, full_path: &str) -> Option<Owner> {
        self.project_index(full_path)
            .filter(|_| full_path.parse::<u64>().is_err())
            .map(Owner::Project)
            .or_else(|| {
                self.groups
                    .iter()
                    .position(|g| g.full_path.eq_ignore_ascii_case(full_path))
                    .map(Owner::Group)
            })
    }

    pub fn items_of(&self, owner: Owner) -> &Vec<Issue> {
        match owner {
            Owner::Project(p) => &self.projects[p].issues,
            Owner::Group(g) => &self.groups[g].work_items,
        }
    }

    pub fn items_of_mut(&mut self, owner: Owner) -> &mut Vec<Issue> {
        match owner {
            Owner::Project(p) => &mut self.projects[p].issues,
            Owner::Group(g) => &mut self.groups[g].work_items,
        }
    }

    /// Every namespace that holds work items: projects, then groups.
    fn owners(&self) -> impl Iterator<Item = Owner> + use<> {
        let projects = (0..self.projects.len()).map(Owner::Project);
        projects.chain((0..self.groups.len()).map(Owner::Group))
    }

    /// A work item by global id, wherever it lives.
    pub fn work_item(&self, id: u64) -> Option<ItemRef> {
        self.owners().find_map(|owner| {
            self.items_of(owner)
                .iter()
                .position(|i| i.id == id)
                .map(|index| ItemRef { owner, index })
        })
    }

    pub fn item(&self, at: ItemRef) -> &Issue {
        &self.items_of(at.owner)[at.index]
    }

    pub fn item_mut(&mut self, at: ItemRef) -> &mut Issue {
        &mut self.items_of_mut(at.owner)[at.index]
    }

    /// The next iid of a namespace: work items and issues share one
    /// sequence, as they are one table.
    pub fn next_iid(&self, owner: Owner) -> u64 {
        self.items_of(owner)
            .iter()
            .map(|i| i.iid)
            .max()
            .unwrap_or(0)
            + 1
    }

    /// The namespace's full path (`acme/platform/api`, `acme`).
    pub fn full_path(&self, owner: Owner) -> &str {
        match owner {
            Owner::Project(p) => &self.projects[p].path_with_namespace,
            Owner::Group(g) => &self.groups[g].full_path,
        }
    }

    /// A member of the project, or of a project in the group.
    pub fn is_member(&self, owner: Owner, user_id: u64) -> bool {
        match owner {
            Owner::Project(p) => self.projects[p].members.contains(&user_id),
            Owner::Group(g) => {
                let prefix = format!("{}/", self.groups[g].full_path);
                self.projects.iter().any(|p| {
                    p.path_with_namespace.starts_with(&prefix) && p.members.contains(&user_id)
                })
            }
        }
    }

    /// Whoever may see the project (public, or a member); groups are
    /// public in the fake.
    pub fn can_read(&self, owner: Owner, auth: Option<Auth>) -> bool {
        match owner {
            Owner::Project(p) => {
                self.projects[p].visibility == "public"
                    || auth.is_some_and(|a| self.is_member(owner, a.user_id))
            }
            Owner::Group(_) => true,
        }
    }

    /// A readable item; a confidential one only for members, its author
    /// and its assignees (docs: https://docs.gitlab.com/user/project/issues/confidential_issues/).
    pub fn can_read_item(&self, at: ItemRef, auth: Option<Auth>) -> bool {
        let item = self.item(at);
        self.can_read(at.owner, auth)
            && (!item.confidential
                || auth.is_some_and(|a| {
                    self.is_member(at.owner, a.user_id)
                        || item.author_id == a.user_id
                        || item.assignee_ids.contains(&a.user_id)
                }))
    }

    /// A member with a token that may write (`api` scope).
    pub fn can_write(&self, owner: Owner, auth: Option<Auth>) -> bool {
        auth.is_some_and(|a| a.can_write && self.is_member(owner, a.user_id))
    }

    /// The work item's web address: issues (and incidents, test cases,
    /// tickets, requirements) under `/-/issues/`, epics under the group's
    /// `/-/epics/`, other types under `/-/work_items/`
    /// (lib/gitlab/url_builder.rb).
    pub fn work_item_url(&self, at: ItemRef) -> String {
        let item = self.item(at);
        let path = self.full_path(at.owner);
        match (at.owner, item.issue_type.as_str()) {
            (Owner::Group(_), _) => format!("{}/groups/{path}/-/epics/{}", self.host, item.iid),
            (_, "task" | "objective" | "key_result") => {
                format!("{}/{path}/-/work_items/{}", self.host, item.iid)
            }
            _ => format!("{}/{path}/-/issues/{}", self.host, item.iid),
        }
    }

    /// The work item's short reference: `#iid`, `&iid` for epics.
    pub fn reference(&self, at: ItemRef) -> String {
        let item = self.item(at);
        match at.owner {
            Owner::Group(_) => format!("&{}", item.iid),
            Owner::Project(_) => format!("#{}", item.iid),
        }
    }

    /// Items whose parent is `id`, oldest first.
    pub fn children(&self, id: u64) -> Vec<ItemRef> {
        let mut found: Vec<ItemRef> = Vec::new();
        for owner in self.owners() {
            for (index, item) in self.items_of(owner).iter().enumerate() {
                if item.parent_id == Some(id) {
                    found.push(ItemRef { owner, index });
                }
            }
        }
        found.sort_by(|a, b| {
            let (a, b) = (self.item(*a), self.item(*b));
            (&a.created_at, a.id).cmp(&(&b.created_at, b.id))
        });
        found
    }

    /// Why `child` cannot take `parent` as its parent, in GitLab's words
    /// (app/models/work_items/parent_link.rb validations, prefixed by
    /// "#<iid> cannot be added: " as WorkItems::ParentLinks services do);
    /// `None` when it can.
    pub fn parent_refusal(
        &self,
        child: &Issue,
        child_ref: &str,
        parent: ItemRef,
    ) -> Option<String> {
        let parent_item = self.item(parent);
        let kind = |i: &Issue| WorkItemKind::by_base(&i.issue_type);
        let problem = if parent_item.id == child.id {
            Some("is not allowed to point to itself")
        } else if !matches!((kind(child), kind(parent_item)), (Some(c), Some(p)) if c.accepts_parent(p))
        {
            Some("is not allowed to add this type of parent")
        } else if self.ancestors(parent_item.id).contains(&child.id) {
            Some("is already present in ancestors")
        } else {
            None
        };
        problem.map(|p| format!("{child_ref} cannot be added: {p}"))
    }

    /// The ids of an item's parent, its parent, and so on.
    fn ancestors(&self, id: u64) -> Vec<u64> {
        let mut out = Vec::new();
        let mut at = self.work_item(id);
        while let Some(parent) = at.and_then(|r| self.item(r).parent_id) {
            if out.contains(&parent) {
                break;
            }
            out.push(parent);
            at = self.work_item(parent);
        }
        out
    }

    /// The items linked to `id`, each with the link type as `id` sees it
    /// (a link is stored once; its target sees `blocks` as
    /// `is_blocked_by`), in the order the links were made.
    pub fn linked(&self, id: u64) -> Vec<(u64, &'static str)> {
        self.links
            .iter()
            .filter_map(|l| {
                if l.source == id {
                    Some((l.target, l.link_type))
                } else if l.target == id {
                    Some((l.source, inverse(l.link_type)))
                } else {
                    None
                }
            })
            .collect()
    }

    /// Remove an item and what hangs on it: its links, and its children's
    /// parent (they stay, without one).
    pub fn remove_work_item(&mut self, at: ItemRef) {
        let id = self.item(at).id;
        self.items_of_mut(at.owner).remove(at.index);
        self.links.retain(|l| l.source != id && l.target != id);
        for owner in self.owners() {
            for item in self.items_of_mut(owner) {
                if item.parent_id == Some(id) {
                    item.parent_id = None;
                }
            }
        }
    }
}

/// The link type the other end sees.
pub fn inverse(link_type: &'static str) -> &'static str {
    match link_type {
        "blocks" => "is_blocked_by",
        "is_blocked_by" => "blocks",
        other => other,
    }
}

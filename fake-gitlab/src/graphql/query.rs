//! The query root and the namespaces under it: `namespace`, `project` and
//! `group` by full path (null for what the caller may not see, as GitLab
//! answers a private project to a stranger), and `users` by username.

use async_graphql::{Context, ID, Object, Result};

use super::context::{caller, read};
use super::enums::{IssuableState, IssueType, LabelSearchFieldList};
use super::objects::{
    Label, LabelConnection, UserCore, UserCoreConnection, WorkItem, WorkItemConnection,
    WorkItemType, WorkItemTypeConnection, nodes,
};
use crate::auth::Auth;
use crate::db::Db;
use crate::work_items::{ItemRef, Owner, WorkItemKind};

pub struct Query;

#[Object(name = "Query")]
impl Query {
    async fn group(&self, ctx: &Context<'_>, full_path: ID) -> Option<Group> {
        match visible_namespace(ctx, &full_path)? {
            Owner::Group(g) => Some(Group(g)),
            Owner::Project(_) => None,
        }
    }

    /// A project's path is its project namespace's.
    async fn namespace(&self, ctx: &Context<'_>, full_path: ID) -> Option<Namespace> {
        visible_namespace(ctx, &full_path).map(Namespace)
    }

    async fn project(&self, ctx: &Context<'_>, full_path: ID) -> Option<Project> {
        match visible_namespace(ctx, &full_path)? {
            Owner::Project(p) => Some(Project(p)),
            Owner::Group(_) => None,
        }
    }

    /// Anyone may look users up, by username, in id order.
    async fn users(
        &self,
        ctx: &Context<'_>,
        usernames: Option<Vec<String>>,
    ) -> Option<UserCoreConnection> {
        let users = read(ctx, |db| {
            db.users
                .iter()
                .filter(|u| {
                    usernames
                        .as_ref()
                        .is_none_or(|names| names.contains(&u.username))
                })
                .filter_map(|u| UserCore::load(db, u.id))
                .collect()
        });
        Some(UserCoreConnection {
            nodes: nodes(users),
        })
    }
}

fn visible_namespace(ctx: &Context<'_>, full_path: &str) -> Option<Owner> {
    read(ctx, |db| {
        db.namespace(full_path)
            .filter(|o| db.can_read(*o, caller(ctx)))
    })
}

pub struct Namespace(pub Owner);

#[Object(name = "Namespace")]
impl Namespace {
    async fn work_item(&self, ctx: &Context<'_>, iid: String) -> Option<WorkItem> {
        read(ctx, |db| {
            let index = db
                .items_of(self.0)
                .iter()
                .position(|i| i.iid.to_string() == iid)?;
            let at = ItemRef {
                owner: self.0,
                index,
            };
            db.can_read_item(at, caller(ctx))
                .then(|| WorkItem::load(db, at))
        })
    }

    /// The edition's types for this kind of namespace
    /// (`WorkItemKind::available`).
    async fn work_item_types(&self, ctx: &Context<'_>) -> Option<WorkItemTypeConnection> {
        let in_group = matches!(self.0, Owner::Group(_));
        let kinds = read(ctx, |db| WorkItemKind::available(db.edition, in_group));
        Some(WorkItemTypeConnection {
            nodes: nodes(kinds.into_iter().map(WorkItemType).collect()),
        })
    }
}

pub struct Project(pub usize);

#[Object(name = "Project")]
impl Project {
    async fn labels(
        &self,
        ctx: &Context<'_>,
        include_ancestor_groups: Option<bool>,
        search_in: Vec<LabelSearchFieldList>,
        title: Option<String>,
    ) -> Option<LabelConnection> {
        let _ = (include_ancestor_groups, search_in);
        Some(labels(ctx, Owner::Project(self.0), title))
    }

    #[allow(clippy::too_many_arguments)]
    async fn work_items(
        &self,
        ctx: &Context<'_>,
        after: Option<String>,
        assignee_usernames: Option<Vec<String>>,
        author_username: Option<String>,
        first: Option<i32>,
        iids: Option<Vec<String>>,
        label_name: Option<Vec<String>>,
        search: Option<String>,
        state: Option<IssuableState>,
        types: Option<Vec<IssueType>>,
    ) -> Result<Option<WorkItemConnection>> {
        let filter = Filter {
            assignee_usernames,
            author_username,
            iids,
            label_name,
            search,
            state,
            types,
        };
        let items = read(ctx, |db| {
            filter.apply(db, &[Owner::Project(self.0)], caller(ctx))
        });
        WorkItemConnection::page(items, false, first, after.as_deref()).map(Some)
    }
}

pub struct Group(pub usize);

#[Object(name = "Group")]
impl Group {
    /// The fake's groups define no labels.
    async fn labels(
        &self,
        ctx: &Context<'_>,
        include_ancestor_groups: Option<bool>,
        search_in: Vec<LabelSearchFieldList>,
        title: Option<String>,
    ) -> Option<LabelConnection> {
        let _ = (include_ancestor_groups, search_in);
        Some(labels(ctx, Owner::Group(self.0), title))
    }

    /// The group's own work items, and with `includeDescendants` those of
    /// its subgroups and their projects.
    #[allow(clippy::too_many_arguments)]
    async fn work_items(
        &self,
        ctx: &Context<'_>,
        after: Option<String>,
        assignee_usernames: Option<Vec<String>>,
        author_username: Option<String>,
        first: Option<i32>,
        iids: Option<Vec<String>>,
        include_descendants: Option<bool>,
        label_name: Option<Vec<String>>,
        search: Option<String>,
        state: Option<IssuableState>,
        types: Option<Vec<IssueType>>,
    ) -> Result<Option<WorkItemConnection>> {
        let filter = Filter {
            assignee_usernames,
            author_username,
            iids,
            label_name,
            search,
            state,
            types,
        };
        let items = read(ctx, |db| {
            let mut owners = vec![Owner::Group(self.0)];
            if include_descendants == Some(true) {
                owners.extend(descendants(db, self.0));
            }
            filter.apply(db, &owners, caller(ctx))
        });
        WorkItemConnection::page(items, false, first, after.as_deref()).map(Some)
    }
}

/// The subgroups and projects under a group.
fn descendants(db: &Db, group: usize) -> Vec<Owner> {
    let prefix = format!("{}/", db.groups[group].full_path);
    let groups = db
        .groups
        .iter()
        .enumerate()
        .filter(|(_, g)| g.full_path.starts_with(&prefix))
        .map(|(i, _)| Owner::Group(i));
    let projects = db
        .projects
        .iter()
        .enumerate()
        .filter(|(_, p)| p.path_with_namespace.starts_with(&prefix))
        .map(|(i, _)| Owner::Project(i));
    groups.chain(projects).collect()
}

/// A namespace's labels, by exact title when one is given.
fn labels(ctx: &Context<'_>, owner: Owner, title: Option<String>) -> LabelConnection {
    let found: Vec<Label> = read(ctx, |db| {
        Label::of(db, owner)
            .into_iter()
            .filter(|l| title.as_ref().is_none_or(|t| &l.title == t))
            .collect()
    });
    LabelConnection {
        nodes: nodes(found),
    }
}

/// The work item list filters, as GitLab's WorkItemsFinder applies them:
/// all given labels and assignees must be on an item; `search` looks in
/// titles and descriptions; `state` `opened`, `closed` or `all` (`locked`
/// matches nothing: the fake locks no work item).
struct Filter {
    assignee_usernames: Option<Vec<String>>,
    author_username: Option<String>,
    iids: Option<Vec<String>>,
    label_name: Option<Vec<String>>,
    search: Option<String>,
    state: Option<IssuableState>,
    types: Option<Vec<IssueType>>,
}

impl Filter {
    fn apply(&self, db: &Db, owners: &[Owner], auth: Option<Auth>) -> Vec<WorkItem> {
        let username = |id: u64| db.user(id).map(|u| u.username.as_str());
        let search = self.search.as_ref().map(|s| s.to_lowercase());
        let mut found = Vec::new();
        for &owner in owners.iter().filter(|o| db.can_read(**o, auth)) {
            for (index, item) in db.items_of(owner).iter().enumerate() {
                let at = ItemRef { owner, index };
                let keep = db.can_read_item(at, auth)
                    && match self.state {
                        None | Some(IssuableState::All) => true,
                        Some(IssuableState::Opened) => item.state == "opened",
                        Some(IssuableState::Closed) => item.state == "closed",
                        Some(IssuableState::Locked) => false,
                    }
                    && self
                        .types
                        .as_ref()
                        .is_none_or(|t| t.iter().any(|t| t.base() == item.issue_type))
                    && self
                        .iids
                        .as_ref()
                        .is_none_or(|iids| iids.contains(&item.iid.to_string()))
                    && self
                        .label_name
                        .as_ref()
                        .is_none_or(|names| names.iter().all(|n| item.labels.contains(n)))
                    && self.assignee_usernames.as_ref().is_none_or(|names| {
                        names
                            .iter()
                            .all(|n| item.assignee_ids.iter().any(|id| username(*id) == Some(n)))
                    })
                    && self
                        .author_username
                        .as_ref()
                        .is_none_or(|n| username(item.author_id) == Some(n))
                    && search.as_ref().is_none_or(|s| {
                        item.title.to_lowercase().contains(s)
                            || item.description.to_lowercase().contains(s)
                    });
                if keep {
                    found.push(WorkItem::load(db, at));
                }
            }
        }
        found
    }
}

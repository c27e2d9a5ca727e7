//! The object types of GitLab's schema that the fake serves, with GitLab's
//! names, field types and nullability (doc/api/graphql/reference; the
//! subset is catalog/graphql/gitlab_schema.graphql, and a test holds this
//! file to it). A work item is read once into a `WorkItem` (a copy of its
//! row); what it points to (users, labels, children, links) is looked up
//! when asked for, and what the caller may not see is left out, as GitLab
//! filters by permission.

use async_graphql::{Context, Interface, Object, Result, SimpleObject};

use super::context::{caller, read};
use super::cursor::{Key, PageInfo, paginate};
use super::enums::{WorkItemState, WorkItemWidgetType};
use super::ids::{
    Date, DiscussionId, LabelId, NoteId, Time, UserId, WorkItemId, WorkItemsTypeId, gid,
};
use crate::db::{Db, Issue};
use crate::work_items::{ItemRef, KINDS, Owner, WorkItemKind};

/// A nullable list of nullable nodes, as GitLab's connections declare them.
pub fn nodes<T>(items: Vec<T>) -> Option<Vec<Option<T>>> {
    Some(items.into_iter().map(Some).collect())
}

/// A work item as read at one moment.
#[derive(Clone)]
pub struct WorkItem {
    pub item: Issue,
    pub at: ItemRef,
    url: String,
}

impl WorkItem {
    pub fn load(db: &Db, at: ItemRef) -> WorkItem {
        WorkItem {
            item: db.item(at).clone(),
            at,
            url: db.work_item_url(at),
        }
    }

    /// The work item with this global id, if the caller may see it.
    pub fn visible(db: &Db, id: u64, auth: Option<crate::auth::Auth>) -> Option<WorkItem> {
        db.work_item(id)
            .filter(|at| db.can_read_item(*at, auth))
            .map(|at| Self::load(db, at))
    }

    /// Where it sorts in lists and pages.
    pub fn key(&self) -> Key {
        (self.item.created_at.clone(), self.item.id)
    }

    /// Its type; REST only writes known base types.
    fn kind(&self) -> WorkItemKind {
        WorkItemKind::by_base(&self.item.issue_type).unwrap_or(KINDS[1])
    }
}

#[Object(name = "WorkItem")]
impl WorkItem {
    async fn author(&self, ctx: &Context<'_>) -> Option<UserCore> {
        read(ctx, |db| UserCore::load(db, self.item.author_id))
    }

    async fn closed_at(&self) -> Option<Time> {
        self.item.closed_at.clone().map(Time)
    }

    async fn confidential(&self) -> bool {
        self.item.confidential
    }

    async fn created_at(&self) -> Time {
        Time(self.item.created_at.clone())
    }

    /// `null` when it has none, as GitLab's nil description.
    async fn description(&self) -> Option<&str> {
        Some(self.item.description.as_str()).filter(|d| !d.is_empty())
    }

    async fn id(&self) -> WorkItemId {
        WorkItemId::new(self.item.id)
    }

    async fn iid(&self) -> String {
        self.item.iid.to_string()
    }

    async fn state(&self) -> WorkItemState {
        if self.item.state == "closed" {
            WorkItemState::Closed
        } else {
            WorkItemState::Open
        }
    }

    async fn title(&self) -> &str {
        &self.item.title
    }

    async fn updated_at(&self) -> Time {
        Time(self.item.updated_at.clone())
    }

    async fn web_url(&self) -> Option<&str> {
        Some(&self.url)
    }

    /// Every type has these widgets in the fake.
    async fn widgets(&self) -> Option<Vec<WorkItemWidget>> {
        let w = || self.clone();
        Some(vec![
            WorkItemWidget::Assignees(WorkItemWidgetAssignees(w())),
            WorkItemWidget::Labels(WorkItemWidgetLabels(w())),
            WorkItemWidget::Milestone(WorkItemWidgetMilestone(w())),
            WorkItemWidget::Hierarchy(WorkItemWidgetHierarchy(w())),
            WorkItemWidget::StartAndDueDate(WorkItemWidgetStartAndDueDate(w())),
            WorkItemWidget::LinkedItems(WorkItemWidgetLinkedItems(w())),
            WorkItemWidget::Notes(WorkItemWidgetNotes(w())),
        ])
    }

    async fn work_item_type(&self) -> WorkItemType {
        WorkItemType(self.kind())
    }
}

pub struct WorkItemType(pub WorkItemKind);

#[Object(name = "WorkItemType")]
impl WorkItemType {
    async fn id(&self) -> WorkItemsTypeId {
        WorkItemsTypeId::new(self.0.id)
    }

    async fn name(&self) -> &str {
        self.0.name
    }
}

#[derive(SimpleObject)]
#[graphql(name = "WorkItemTypeConnection")]
pub struct WorkItemTypeConnection {
    pub nodes: Option<Vec<Option<WorkItemType>>>,
}

#[derive(SimpleObject)]
#[graphql(name = "WorkItemConnection")]
pub struct WorkItemConnection {
    pub count: i32,
    pub nodes: Option<Vec<Option<WorkItem>>>,
    pub page_info: PageInfo,
}

impl WorkItemConnection {
    /// A page of `items`, newest first unless `oldest_first`.
    pub fn page(
        mut items: Vec<WorkItem>,
        oldest_first: bool,
        first: Option<i32>,
        after: Option<&str>,
    ) -> Result<WorkItemConnection> {
        items.sort_by_key(WorkItem::key);
        if !oldest_first {
            items.reverse();
        }
        let keyed = items.into_iter().map(|w| (w.key(), w)).collect();
        let page = paginate(keyed, !oldest_first, first, after)?;
        Ok(WorkItemConnection {
            count: page.count as i32,
            nodes: nodes(page.nodes),
            page_info: page.info,
        })
    }
}

#[derive(Interface)]
#[graphql(
    name = "WorkItemWidget",
    field(
        name = "type",
        method = "widget_type",
        ty = "Option<WorkItemWidgetType>"
    )
)]
pub enum WorkItemWidget {
    Assignees(WorkItemWidgetAssignees),
    Hierarchy(WorkItemWidgetHierarchy),
    Labels(WorkItemWidgetLabels),
    LinkedItems(WorkItemWidgetLinkedItems),
    Milestone(WorkItemWidgetMilestone),
    Notes(WorkItemWidgetNotes),
    StartAndDueDate(WorkItemWidgetStartAndDueDate),
}

pub struct WorkItemWidgetAssignees(WorkItem);

#[Object(name = "WorkItemWidgetAssignees")]
impl WorkItemWidgetAssignees {
    async fn assignees(&self, ctx: &Context<'_>) -> Option<UserCoreConnection> {
        let users = read(ctx, |db| {
            self.0
                .item
                .assignee_ids
                .iter()
                .filter_map(|id| UserCore::load(db, *id))
                .collect()
        });
        Some(UserCoreConnection {
            nodes: nodes(users),
        })
    }

    #[graphql(name = "type")]
    async fn widget_type(&self) -> Option<WorkItemWidgetType> {
        Some(WorkItemWidgetType::Assignees)
    }
}

pub struct WorkItemWidgetHierarchy(WorkItem);

#[Object(name = "WorkItemWidgetHierarchy")]
impl WorkItemWidgetHierarchy {
    /// Oldest first, as GitLab orders children it has not been told to
    /// reorder.
    async fn children(
        &self,
        ctx: &Context<'_>,
        after: Option<String>,
        first: Option<i32>,
    ) -> Result<Option<WorkItemConnection>> {
        let children = self.visible_children(ctx);
        WorkItemConnection::page(children, true, first, after.as_deref()).map(Some)
    }

    async fn has_children(&self, ctx: &Context<'_>) -> bool {
        !self.visible_children(ctx).is_empty()
    }

    async fn parent(&self, ctx: &Context<'_>) -> Option<WorkItem> {
        let parent = self.0.item.parent_id?;
        read(ctx, |db| WorkItem::visible(db, parent, caller(ctx)))
    }

    #[graphql(name = "type")]
    async fn widget_type(&self) -> Option<WorkItemWidgetType> {
        Some(WorkItemWidgetType::Hierarchy)
    }
}

impl WorkItemWidgetHierarchy {
    fn visible_children(&self, ctx: &Context<'_>) -> Vec<WorkItem> {
        read(ctx, |db| {
            db.children(self.0.item.id)
                .into_iter()
                .filter(|at| db.can_read_item(*at, caller(ctx)))
                .map(|at| WorkItem::load(db, at))
                .collect()
        })
    }
}

pub struct WorkItemWidgetLabels(WorkItem);

#[Object(name = "WorkItemWidgetLabels")]
impl WorkItemWidgetLabels {
    /// The item's labels that its project defines (the fake stores names).
    async fn labels(&self, ctx: &Context<'_>) -> Option<LabelConnection> {
        let labels = read(ctx, |db| {
            let defined = Label::of(db, self.0.at.owner);
            self.0
                .item
                .labels
                .iter()
                .filter_map(|name| defined.iter().find(|l| &l.title == name).cloned())
                .collect()
        });
        Some(LabelConnection {
            nodes: nodes(labels),
        })
    }

    #[graphql(name = "type")]
    async fn widget_type(&self) -> Option<WorkItemWidgetType> {
        Some(WorkItemWidgetType::Labels)
    }
}

pub struct WorkItemWidgetLinkedItems(WorkItem);

#[Object(name = "WorkItemWidgetLinkedItems")]
impl WorkItemWidgetLinkedItems {
    /// Both directions of every link, in the order they were made.
    async fn linked_items(
        &self,
        ctx: &Context<'_>,
        first: Option<i32>,
    ) -> Result<Option<LinkedWorkItemTypeConnection>> {
        let linked: Vec<(Key, LinkedWorkItemType)> = read(ctx, |db| {
            db.linked(self.0.item.id)
                .into_iter()
                .enumerate()
                .filter_map(|(n, (id, link_type))| {
                    let item = WorkItem::visible(db, id, caller(ctx))?;
                    let key = (String::new(), n as u64 + 1);
                    Some((
                        key,
                        LinkedWorkItemType {
                            link_type,
                            item: Some(item),
                        },
                    ))
                })
                .collect()
        });
        let page = paginate(linked, false, first, None)?;
        Ok(Some(LinkedWorkItemTypeConnection {
            nodes: nodes(page.nodes),
        }))
    }

    #[graphql(name = "type")]
    async fn widget_type(&self) -> Option<WorkItemWidgetType> {
        Some(WorkItemWidgetType::LinkedItems)
    }
}

pub struct WorkItemWidgetMilestone(WorkItem);

#[Object(name = "WorkItemWidgetMilestone")]
impl WorkItemWidgetMilestone {
    async fn milestone(&self, ctx: &Context<'_>) -> Option<Milestone> {
        let (id, _, title) = self.0.item.milestone.clone()?;
        let due_date = read(ctx, |db| match self.0.at.owner {
            Owner::Project(p) => db.projects[p]
                .milestones
                .iter()
                .find(|m| m.id == id)
                .and_then(|m| m.due_date.clone()),
            Owner::Group(_) => None,
        });
        Some(Milestone {
            due_date: due_date.map(|d| Time(format!("{d}T00:00:00Z"))),
            id: async_graphql::ID(gid("Milestone", id)),
            title,
        })
    }

    #[graphql(name = "type")]
    async fn widget_type(&self) -> Option<WorkItemWidgetType> {
        Some(WorkItemWidgetType::Milestone)
    }
}

pub struct WorkItemWidgetNotes(WorkItem);

#[Object(name = "WorkItemWidgetNotes")]
impl WorkItemWidgetNotes {
    /// Threads oldest first; a note outside a thread is a thread of one.
    async fn discussions(
        &self,
        after: Option<String>,
        first: Option<i32>,
    ) -> Result<Option<DiscussionConnection>> {
        let threads: Vec<(Key, Discussion)> = Discussion::all(&self.0)
            .into_iter()
            .map(|d| {
                let first = &d.notes[0];
                ((first.created_at.clone(), first.id), d)
            })
            .collect();
        let page = paginate(threads, false, first, after.as_deref())?;
        Ok(Some(DiscussionConnection {
            nodes: nodes(page.nodes),
            page_info: page.info,
        }))
    }

    #[graphql(name = "type")]
    async fn widget_type(&self) -> Option<WorkItemWidgetType> {
        Some(WorkItemWidgetType::Notes)
    }
}

pub struct WorkItemWidgetStartAndDueDate(WorkItem);

#[Object(name = "WorkItemWidgetStartAndDueDate")]
impl WorkItemWidgetStartAndDueDate {
    async fn due_date(&self) -> Option<Date> {
        self.0.item.due_date.clone().map(Date)
    }

    async fn start_date(&self) -> Option<Date> {
        self.0.item.start_date.clone().map(Date)
    }

    #[graphql(name = "type")]
    async fn widget_type(&self) -> Option<WorkItemWidgetType> {
        Some(WorkItemWidgetType::StartAndDueDate)
    }
}

#[derive(SimpleObject)]
#[graphql(name = "LinkedWorkItemType")]
pub struct LinkedWorkItemType {
    pub link_type: &'static str,
    #[graphql(name = "workItem")]
    pub item: Option<WorkItem>,
}

#[derive(SimpleObject)]
#[graphql(name = "LinkedWorkItemTypeConnection")]
pub struct LinkedWorkItemTypeConnection {
    pub nodes: Option<Vec<Option<LinkedWorkItemType>>>,
}

/// A label: project labels are `ProjectLabel`s (the fake's groups have
/// none).
#[derive(Clone)]
pub struct Label {
    pub id: u64,
    pub title: String,
}

impl Label {
    /// The labels a work item's namespace defines.
    pub fn of(db: &Db, owner: Owner) -> Vec<Label> {
        match owner {
            Owner::Project(p) => db.projects[p]
                .labels
                .iter()
                .map(|l| Label {
                    id: l.id,
                    title: l.name.clone(),
                })
                .collect(),
            Owner::Group(_) => Vec::new(),
        }
    }
}

#[Object(name = "Label")]
impl Label {
    async fn id(&self) -> LabelId {
        LabelId::of("ProjectLabel", self.id)
    }

    async fn title(&self) -> &str {
        &self.title
    }
}

#[derive(SimpleObject)]
#[graphql(name = "LabelConnection")]
pub struct LabelConnection {
    pub nodes: Option<Vec<Option<Label>>>,
}

#[derive(SimpleObject)]
#[graphql(name = "Milestone")]
pub struct Milestone {
    pub due_date: Option<Time>,
    pub id: async_graphql::ID,
    pub title: String,
}

#[derive(SimpleObject, Clone)]
#[graphql(name = "UserCore")]
pub struct UserCore {
    pub id: UserId,
    pub username: String,
}

impl UserCore {
    pub fn load(db: &Db, id: u64) -> Option<UserCore> {
        db.user(id).map(|u| UserCore {
            id: UserId::new(u.id),
            username: u.username.clone(),
        })
    }
}

#[derive(SimpleObject)]
#[graphql(name = "UserCoreConnection")]
pub struct UserCoreConnection {
    pub nodes: Option<Vec<Option<UserCore>>>,
}

/// A thread: the notes that share a `discussion_id`, in order.
#[derive(Clone)]
pub struct Discussion {
    pub id: String,
    pub notes: Vec<crate::db::Note>,
    /// The work item's address, for the notes' URLs.
    url: String,
}

impl Discussion {
    /// A work item's threads, in the order of their first notes.
    pub fn all(item: &WorkItem) -> Vec<Discussion> {
        let mut threads: Vec<Discussion> = Vec::new();
        for note in &item.item.notes {
            match threads.iter_mut().find(|d| d.id == note.discussion_id) {
                Some(d) => d.notes.push(note.clone()),
                None => threads.push(Discussion {
                    id: note.discussion_id.clone(),
                    notes: vec![note.clone()],
                    url: item.url.clone(),
                }),
            }
        }
        threads
    }
}

#[Object(name = "Discussion")]
impl Discussion {
    async fn id(&self) -> DiscussionId {
        DiscussionId::new(&self.id)
    }

    async fn notes(&self) -> NoteConnection {
        let notes = self
            .notes
            .iter()
            .map(|n| Note {
                note: n.clone(),
                thread: self.clone(),
            })
            .collect();
        NoteConnection {
            nodes: nodes(notes),
        }
    }
}

#[derive(SimpleObject)]
#[graphql(name = "DiscussionConnection")]
pub struct DiscussionConnection {
    pub nodes: Option<Vec<Option<Discussion>>>,
    pub page_info: PageInfo,
}

pub struct Note {
    pub note: crate::db::Note,
    pub thread: Discussion,
}

#[Object(name = "Note")]
impl Note {
    async fn author(&self, ctx: &Context<'_>) -> Option<UserCore> {
        read(ctx, |db| UserCore::load(db, self.note.author_id))
    }

    async fn body(&self) -> &str {
        &self.note.body
    }

    async fn created_at(&self) -> Time {
        Time(self.note.created_at.clone())
    }

    async fn discussion(&self) -> Option<Discussion> {
        Some(self.thread.clone())
    }

    async fn id(&self) -> NoteId {
        NoteId::new(self.note.id)
    }

    async fn internal(&self) -> Option<bool> {
        Some(self.note.internal)
    }

    async fn system(&self) -> bool {
        self.note.system
    }

    /// The note's anchor on the work item's page.
    async fn url(&self) -> Option<String> {
        Some(format!("{}#note_{}", self.thread.url, self.note.id))
    }
}

#[derive(SimpleObject)]
#[graphql(name = "NoteConnection")]
pub struct NoteConnection {
    pub nodes: Option<Vec<Option<Note>>>,
}

//! The mutation root: work items created, updated and deleted, children
//! added, links made and removed, notes written, each changing the fake's
//! state as GitLab would. GitLab answers in two ways, and so does the
//! fake: what the caller cannot reach (a missing id, no permission, a
//! `read_api` token, an unlicensed type) is a top-level error with a
//! `null` payload; what GitLab's services refuse (a blank title, a parent
//! of the wrong type) is in the payload's `errors`, and nothing changes.

use async_graphql::{Context, Error, MaybeUndefined, Object, Result, SimpleObject};

use super::context::{caller, not_available, write};
use super::enums::{WorkItemRelatedLinkType, WorkItemStateEvent};
use super::ids::{Date, LabelId, MilestoneId, UserId, WorkItemId};
use super::inputs::{
    CreateNoteInput, WorkItemAddLinkedItemsInput, WorkItemCreateInput, WorkItemDeleteInput,
    WorkItemRemoveLinkedItemsInput, WorkItemUpdateInput,
};
use super::objects::{Discussion, Label, Note, WorkItem};
use crate::auth::Auth;
use crate::db::{Db, Edition, Issue, IssueLink, sha};
use crate::work_items::{ItemRef, Owner, WorkItemKind};

/// GitLab links at most 10 items at once (doc/api/graphql/reference:
/// `workItemsIds`), refused by graphql-ruby's length validation.
const MAX_LINKED: usize = 10;

pub struct Mutation;

#[Object(name = "Mutation")]
impl Mutation {
    async fn create_note(
        &self,
        ctx: &Context<'_>,
        input: CreateNoteInput,
    ) -> Result<Option<CreateNotePayload>> {
        let auth = writer(ctx)?;
        write(ctx, |db| create_note(db, auth, input)).map(Some)
    }

    async fn work_item_add_linked_items(
        &self,
        ctx: &Context<'_>,
        input: WorkItemAddLinkedItemsInput,
    ) -> Result<Option<WorkItemAddLinkedItemsPayload>> {
        if input.work_items_ids.len() > MAX_LINKED {
            return Err(Error::new(format!(
                "workItemsIds is too long (maximum is {MAX_LINKED})"
            )));
        }
        let auth = writer(ctx)?;
        write(ctx, |db| link(db, auth, input)).map(Some)
    }

    async fn work_item_create(
        &self,
        ctx: &Context<'_>,
        input: WorkItemCreateInput,
    ) -> Result<Option<WorkItemCreatePayload>> {
        let auth = writer(ctx)?;
        write(ctx, |db| create(db, auth, input)).map(Some)
    }

    /// Only owners delete work items; the fake's owner is alice, as on
    /// REST (docs: https://docs.gitlab.com/user/project/issues/managing_issues/#delete-an-issue).
    async fn work_item_delete(
        &self,
        ctx: &Context<'_>,
        input: WorkItemDeleteInput,
    ) -> Result<Option<WorkItemDeletePayload>> {
        let auth = writer(ctx)?;
        write(ctx, |db| {
            let at = writable(db, &input.id, auth)?;
            if auth.user_id != 1 {
                return Err(not_available());
            }
            db.remove_work_item(at);
            Ok(Some(WorkItemDeletePayload { errors: Vec::new() }))
        })
    }

    async fn work_item_remove_linked_items(
        &self,
        ctx: &Context<'_>,
        input: WorkItemRemoveLinkedItemsInput,
    ) -> Result<Option<WorkItemRemoveLinkedItemsPayload>> {
        if input.work_items_ids.len() > MAX_LINKED {
            return Err(Error::new(format!(
                "workItemsIds is too long (maximum is {MAX_LINKED})"
            )));
        }
        let auth = writer(ctx)?;
        write(ctx, |db| unlink(db, auth, input)).map(Some)
    }

    async fn work_item_update(
        &self,
        ctx: &Context<'_>,
        input: WorkItemUpdateInput,
    ) -> Result<Option<WorkItemUpdatePayload>> {
        let auth = writer(ctx)?;
        write(ctx, |db| update(db, auth, input)).map(Some)
    }
}

#[derive(SimpleObject)]
#[graphql(name = "CreateNotePayload")]
pub struct CreateNotePayload {
    errors: Vec<String>,
    note: Option<Note>,
}

#[derive(SimpleObject)]
#[graphql(name = "WorkItemAddLinkedItemsPayload")]
pub struct WorkItemAddLinkedItemsPayload {
    errors: Vec<String>,
    message: Option<String>,
    work_item: Option<WorkItem>,
}

#[derive(SimpleObject)]
#[graphql(name = "WorkItemCreatePayload")]
pub struct WorkItemCreatePayload {
    errors: Vec<String>,
    work_item: Option<WorkItem>,
}

#[derive(SimpleObject)]
#[graphql(name = "WorkItemDeletePayload")]
pub struct WorkItemDeletePayload {
    errors: Vec<String>,
}

#[derive(SimpleObject)]
#[graphql(name = "WorkItemRemoveLinkedItemsPayload")]
pub struct WorkItemRemoveLinkedItemsPayload {
    errors: Vec<String>,
    message: Option<String>,
    work_item: Option<WorkItem>,
}

#[derive(SimpleObject)]
#[graphql(name = "WorkItemUpdatePayload")]
pub struct WorkItemUpdatePayload {
    errors: Vec<String>,
    work_item: Option<WorkItem>,
}

/// A caller whose token may write; anonymous callers and `read_api`
/// tokens are refused like a missing object (GitLab's scope validator,
/// lib/gitlab/auth/scope_validator.rb, hides mutations from `read_api`).
fn writer(ctx: &Context<'_>) -> Result<Auth> {
    caller(ctx)
        .filter(|a| a.can_write)
        .ok_or_else(not_available)
}

/// A work item the caller may see.
fn readable(db: &Db, id: &WorkItemId, auth: Auth) -> Result<ItemRef> {
    id.number()
        .and_then(|n| db.work_item(n))
        .filter(|at| db.can_read_item(*at, Some(auth)))
        .ok_or_else(not_available)
}

/// A work item the caller may change.
fn writable(db: &Db, id: &WorkItemId, auth: Auth) -> Result<ItemRef> {
    readable(db, id, auth).and_then(|at| {
        if db.can_write(at.owner, Some(auth)) {
            Ok(at)
        } else {
            Err(not_available())
        }
    })
}

/// Label ids to the names the fake stores; ids the namespace does not
/// define are ignored, as GitLab's LabelsFinder leaves them out.
fn label_names(db: &Db, owner: Owner, ids: &[LabelId]) -> Vec<String> {
    let defined = Label::of(db, owner);
    ids.iter()
        .filter_map(|id| id.number())
        .filter_map(|n| defined.iter().find(|l| l.id == n))
        .map(|l| l.title.clone())
        .collect()
}

/// Users that exist; CE keeps only the first, as issues there have one
/// assignee (app/services/issuable_base_service.rb: `allows_multiple_assignees?`
/// is a paid feature).
fn assignees(db: &Db, ids: &[UserId]) -> Vec<u64> {
    let found = ids
        .iter()
        .filter_map(|id| id.number())
        .filter(|n| db.user(*n).is_some());
    match db.edition {
        Edition::Ce => found.take(1).collect(),
        Edition::Ee => found.collect(),
    }
}

/// A project milestone as the issue stores it; other ids are ignored.
fn milestone(db: &Db, owner: Owner, id: &MilestoneId) -> Option<(u64, u64, String)> {
    let Owner::Project(p) = owner else {
        return None;
    };
    db.projects[p]
        .milestones
        .iter()
        .find(|m| Some(m.id) == id.number())
        .map(|m| (m.id, m.iid, m.title.clone()))
}

fn date(value: &MaybeUndefined<Date>) -> Option<Option<String>> {
    match value {
        MaybeUndefined::Undefined => None,
        MaybeUndefined::Null => Some(None),
        MaybeUndefined::Value(d) => Some(Some(d.0.clone())),
    }
}

/// A model validation failure (Rails' full message).
fn refused<T>(message: impl Into<String>, payload: impl FnOnce(Vec<String>) -> T) -> Result<T> {
    Ok(payload(vec![message.into()]))
}

fn create(db: &mut Db, auth: Auth, input: WorkItemCreateInput) -> Result<WorkItemCreatePayload> {
    let failed = |errors| WorkItemCreatePayload {
        errors,
        work_item: None,
    };
    // No path, or one the caller cannot write to: GitLab's authorized_find!.
    let owner = input
        .namespace_path
        .as_deref()
        .and_then(|p| db.namespace(p))
        .filter(|o| db.can_write(*o, Some(auth)))
        .ok_or_else(not_available)?;
    let in_group = matches!(owner, Owner::Group(_));
    // A type the namespace does not have is refused like an unlicensed
    // feature (spec/requests/api/graphql/mutations/work_items/create_spec.rb).
    let kind = input
        .work_item_type_id
        .number()
        .and_then(WorkItemKind::by_id)
        .filter(|k| k.creatable(db.edition, in_group))
        .ok_or_else(not_available)?;
    let parent = match input.hierarchy_widget.and_then(|h| h.parent_id) {
        Some(id) => Some(readable(db, &id, auth)?),
        None => None,
    };
    let title = input.title.trim().to_string();
    if title.is_empty() {
        return refused("Title can't be blank", failed);
    }
    let iid = db.next_iid(owner);
    let now = db.now();
    let dates = input.start_and_due_date_widget;
    let mut item = Issue {
        id: 0,
        iid,
        title,
        description: input
            .description_widget
            .map(|d| d.description)
            .unwrap_or_default(),
        state: "opened".into(),
        labels: input
            .labels_widget
            .map(|l| label_names(db, owner, &l.label_ids))
            .unwrap_or_default(),
        author_id: auth.user_id,
        assignee_ids: input
            .assignees_widget
            .map(|a| assignees(db, &a.assignee_ids))
            .unwrap_or_default(),
        milestone: input
            .milestone_widget
            .and_then(|m| m.milestone_id.take())
            .and_then(|id| milestone(db, owner, &id)),
        confidential: input.confidential.unwrap_or(false),
        discussion_locked: None,
        due_date: dates.as_ref().and_then(|d| date(&d.due_date)).flatten(),
        start_date: dates.as_ref().and_then(|d| date(&d.start_date)).flatten(),
        issue_type: kind.base.to_string(),
        parent_id: None,
        created_at: now.clone(),
        updated_at: now,
        closed_at: None,
        closed_by: None,
        notes: Vec::new(),
    };
    let reference = if in_group {
        format!("&{iid}")
    } else {
        format!("#{iid}")
    };
    if let Some(parent) = parent {
        if let Some(why) = db.parent_refusal(&item, &reference, parent) {
            return refused(why, failed);
        }
        item.parent_id = Some(db.item(parent).id);
    }
    item.id = db.next_id();
    db.items_of_mut(owner).push(item);
    let at = ItemRef {
        owner,
        index: db.items_of(owner).len() - 1,
    };
    Ok(WorkItemCreatePayload {
        errors: Vec::new(),
        work_item: Some(WorkItem::load(db, at)),
    })
}

fn update(db: &mut Db, auth: Auth, input: WorkItemUpdateInput) -> Result<WorkItemUpdatePayload> {
    let failed = |errors| WorkItemUpdatePayload {
        errors,
        work_item: None,
    };
    let at = writable(db, &input.id, auth)?;
    let me = db.item(at).clone();
    if input.title.as_ref().is_some_and(|t| t.trim().is_empty()) {
        return refused("Title can't be blank", failed);
    }
    // Check the hierarchy first: GitLab's update runs in a transaction, so
    // a refused parent or child changes nothing.
    let mut refusals = Vec::new();
    let mut parent: Option<Option<u64>> = None;
    let mut children = Vec::new();
    if let Some(h) = &input.hierarchy_widget {
        match &h.parent_id {
            MaybeUndefined::Undefined => {}
            MaybeUndefined::Null => parent = Some(None),
            MaybeUndefined::Value(id) => {
                let p = readable(db, id, auth)?;
                match db.parent_refusal(&me, &db.reference(at), p) {
                    Some(why) => refusals.push(why),
                    None => parent = Some(Some(db.item(p).id)),
                }
            }
        }
        for id in h.children_ids.iter().flatten() {
            children.push(readable(db, id, auth)?);
        }
        for child in &children {
            if let Some(why) = db.parent_refusal(db.item(*child), &db.reference(*child), at) {
                refusals.push(why);
            }
        }
        // spec/services/work_items/widgets/hierarchy_service/update_service_spec.rb
        if refusals.is_empty()
            && !children.is_empty()
            && children
                .iter()
                .all(|c| db.item(*c).parent_id == Some(me.id))
        {
            refusals.push("Work item(s) already assigned".into());
        }
    }
    if !refusals.is_empty() {
        // One message, the children's joined (WorkItems::ParentLinks::CreateService).
        return refused(refusals.join(". "), failed);
    }
    let add = input
        .labels_widget
        .as_ref()
        .and_then(|l| l.add_label_ids.as_deref())
        .map(|ids| label_names(db, at.owner, ids))
        .unwrap_or_default();
    let remove = input
        .labels_widget
        .as_ref()
        .and_then(|l| l.remove_label_ids.as_deref())
        .map(|ids| label_names(db, at.owner, ids))
        .unwrap_or_default();
    let assigned = input
        .assignees_widget
        .as_ref()
        .map(|a| assignees(db, &a.assignee_ids));
    let new_milestone = input
        .milestone_widget
        .as_ref()
        .map(|m| match &m.milestone_id {
            MaybeUndefined::Value(id) => milestone(db, at.owner, id),
            _ => None,
        });
    for child in &children {
        db.item_mut(*child).parent_id = Some(me.id);
    }
    let now = db.now();
    let item = db.item_mut(at);
    if let Some(title) = input.title {
        item.title = title.trim().to_string();
    }
    if let Some(d) = input.description_widget {
        item.description = d.description;
    }
    if let Some(c) = input.confidential {
        item.confidential = c;
    }
    for label in add {
        if !item.labels.contains(&label) {
            item.labels.push(label);
        }
    }
    item.labels.retain(|l| !remove.contains(l));
    if let Some(ids) = assigned {
        item.assignee_ids = ids;
    }
    if let Some(m) = new_milestone {
        item.milestone = m;
    }
    if let Some(dates) = &input.start_and_due_date_widget {
        if let Some(d) = date(&dates.start_date) {
            item.start_date = d;
        }
        if let Some(d) = date(&dates.due_date) {
            item.due_date = d;
        }
    }
    if let Some(p) = parent {
        item.parent_id = p;
    }
    match input.state_event {
        Some(WorkItemStateEvent::Close) if item.state != "closed" => {
            item.state = "closed".into();
            item.closed_at = Some(now.clone());
            item.closed_by = Some(auth.user_id);
        }
        Some(WorkItemStateEvent::Reopen) if item.state == "closed" => {
            item.state = "opened".into();
            item.closed_at = None;
            item.closed_by = None;
        }
        _ => {}
    }
    item.updated_at = now;
    Ok(WorkItemUpdatePayload {
        errors: Vec::new(),
        work_item: Some(WorkItem::load(db, at)),
    })
}

/// Rails' `Array#to_sentence`: `1`, `1 and 2`, `1, 2, and 3`.
fn to_sentence(ids: &[u64]) -> String {
    let words: Vec<String> = ids.iter().map(u64::to_string).collect();
    match words.as_slice() {
        [] => String::new(),
        [one] => one.clone(),
        [a, b] => format!("{a} and {b}"),
        [rest @ .., last] => format!("{}, and {last}", rest.join(", ")),
    }
}

/// app/services/work_items/related_work_item_links/create_service.rb:
/// targets the caller cannot see are left out, links that exist are not
/// made twice, and the message names the linked ids.
fn link(
    db: &mut Db,
    auth: Auth,
    input: WorkItemAddLinkedItemsInput,
) -> Result<WorkItemAddLinkedItemsPayload> {
    let failed = |errors| WorkItemAddLinkedItemsPayload {
        errors,
        message: None,
        work_item: None,
    };
    let at = writable(db, &input.id, auth)?;
    let link_type = input.link_type.unwrap_or(WorkItemRelatedLinkType::Related);
    if link_type != WorkItemRelatedLinkType::Related && db.edition == Edition::Ce {
        return refused(
            "Blocked work items are not available for the current subscription tier",
            failed,
        );
    }
    let source = db.item(at).id;
    let mut targets: Vec<u64> = Vec::new();
    for id in &input.work_items_ids {
        let found = id
            .number()
            .and_then(|n| db.work_item(n))
            .filter(|t| db.can_read_item(*t, Some(auth)))
            .map(|t| db.item(t).id)
            .filter(|t| *t != source && !targets.contains(t));
        targets.extend(found);
    }
    if targets.is_empty() {
        return refused(
            "No matching work item found. Make sure you are adding a valid ID and you have access to the item.",
            failed,
        );
    }
    let existing: Vec<u64> = db.linked(source).into_iter().map(|(id, _)| id).collect();
    targets.retain(|t| !existing.contains(t));
    if targets.is_empty() {
        return refused("Work item(s) already assigned", failed);
    }
    for &target in &targets {
        let id = db.next_id();
        db.links.push(IssueLink {
            id,
            source,
            target,
            link_type: link_type.stored(),
        });
    }
    Ok(WorkItemAddLinkedItemsPayload {
        errors: Vec::new(),
        message: Some(format!(
            "Successfully linked ID(s): {}.",
            to_sentence(&targets)
        )),
        work_item: Some(WorkItem::load(db, at)),
    })
}

/// app/services/work_items/related_work_item_links/destroy_service.rb: the
/// message names what was unlinked and what could not be.
fn unlink(
    db: &mut Db,
    auth: Auth,
    input: WorkItemRemoveLinkedItemsInput,
) -> Result<WorkItemRemoveLinkedItemsPayload> {
    let at = writable(db, &input.id, auth)?;
    let failed = |errors| WorkItemRemoveLinkedItemsPayload {
        errors,
        message: None,
        work_item: None,
    };
    if input.work_items_ids.is_empty() {
        return refused("No work item IDs provided.", failed);
    }
    let source = db.item(at).id;
    let (mut removed, mut forbidden, mut not_linked) = (Vec::new(), Vec::new(), Vec::new());
    for n in input.work_items_ids.iter().filter_map(|id| id.number()) {
        let visible = db
            .work_item(n)
            .is_some_and(|t| db.can_read_item(t, Some(auth)));
        let before = db.links.len();
        if visible {
            db.links.retain(|l| {
                !((l.source == source && l.target == n) || (l.source == n && l.target == source))
            });
        }
        match (visible, db.links.len() < before) {
            (true, true) => removed.push(n),
            (false, _) => forbidden.push(n),
            (true, false) => not_linked.push(n),
        }
    }
    let mut problems = Vec::new();
    if !forbidden.is_empty() {
        problems.push(format!(
            "{} could not be removed due to insufficient permissions",
            to_sentence(&forbidden)
        ));
    }
    if !not_linked.is_empty() {
        problems.push(format!(
            "{} could not be removed due to not being linked",
            to_sentence(&not_linked)
        ));
    }
    let problems =
        (!problems.is_empty()).then(|| format!("IDs with errors: {}.", problems.join(", ")));
    if removed.is_empty() {
        return refused(problems.unwrap_or_default(), failed);
    }
    let done = format!("Successfully unlinked IDs: {}.", to_sentence(&removed));
    Ok(WorkItemRemoveLinkedItemsPayload {
        errors: Vec::new(),
        message: Some(match problems {
            Some(p) => format!("{done} {p}"),
            None => done,
        }),
        work_item: Some(WorkItem::load(db, at)),
    })
}

/// A comment on a work item, or a reply in one of its threads (which
/// makes the thread's notes `DiscussionNote`s, as on REST).
fn create_note(db: &mut Db, auth: Auth, input: CreateNoteInput) -> Result<CreateNotePayload> {
    let id = input
        .noteable_id
        .number()
        .map(WorkItemId::new)
        .ok_or_else(not_available)?;
    let at = writable(db, &id, auth)?;
    if input.body.trim().is_empty() {
        return refused("Note can't be blank", |errors| CreateNotePayload {
            errors,
            note: None,
        });
    }
    let discussion = match &input.discussion_id {
        Some(d) => {
            let exists = db.item(at).notes.iter().any(|n| n.discussion_id == d.id);
            if !exists {
                return Err(not_available());
            }
            Some(d.id.clone())
        }
        None => None,
    };
    let note_id = db.next_id();
    let now = db.now();
    let notes = &mut db.item_mut(at).notes;
    let thread = match discussion {
        Some(thread) => {
            for n in notes.iter_mut().filter(|n| n.discussion_id == thread) {
                n.note_type.get_or_insert("DiscussionNote");
            }
            thread
        }
        None => sha(note_id),
    };
    notes.push(crate::db::Note {
        id: note_id,
        body: input.body,
        author_id: auth.user_id,
        created_at: now,
        internal: input.internal.unwrap_or(false),
        note_type: input.discussion_id.as_ref().map(|_| "DiscussionNote"),
        discussion_id: thread.clone(),
        ..crate::db::Note::default()
    });
    let item = WorkItem::load(db, at);
    let thread = Discussion::all(&item)
        .into_iter()
        .find(|d| d.id == thread)
        .expect("the note just written");
    let note = thread.notes.last().cloned().expect("the note just written");
    Ok(CreateNotePayload {
        errors: Vec::new(),
        note: Some(Note { note, thread }),
    })
}

#[cfg(test)]
mod tests {
    use super::to_sentence;

    #[test]
    fn ids_read_as_rails_writes_sentences() {
        assert_eq!(to_sentence(&[7]), "7");
        assert_eq!(to_sentence(&[7, 8]), "7 and 8");
        assert_eq!(to_sentence(&[7, 8, 9]), "7, 8, and 9");
    }
}

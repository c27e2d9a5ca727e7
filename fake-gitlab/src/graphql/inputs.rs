//! The mutations' input types, with GitLab's names; a field that can be
//! cleared with an explicit `null` is a `MaybeUndefined`.

use async_graphql::{ID, InputObject, MaybeUndefined};

use super::enums::{WorkItemRelatedLinkType, WorkItemStateEvent};
use super::ids::{
    Date, DiscussionId, LabelId, MilestoneId, NoteableId, UserId, WorkItemId, WorkItemsTypeId,
};

#[derive(InputObject)]
#[graphql(name = "CreateNoteInput")]
pub struct CreateNoteInput {
    pub body: String,
    pub discussion_id: Option<DiscussionId>,
    pub internal: Option<bool>,
    pub noteable_id: NoteableId,
}

#[derive(InputObject)]
#[graphql(name = "WorkItemAddLinkedItemsInput")]
pub struct WorkItemAddLinkedItemsInput {
    pub id: WorkItemId,
    pub link_type: Option<WorkItemRelatedLinkType>,
    pub work_items_ids: Vec<WorkItemId>,
}

#[derive(InputObject)]
#[graphql(name = "WorkItemCreateInput")]
pub struct WorkItemCreateInput {
    pub assignees_widget: Option<WorkItemWidgetAssigneesInput>,
    pub confidential: Option<bool>,
    pub description_widget: Option<WorkItemWidgetDescriptionInput>,
    pub hierarchy_widget: Option<WorkItemWidgetHierarchyCreateInput>,
    pub labels_widget: Option<WorkItemWidgetLabelsCreateInput>,
    pub milestone_widget: Option<WorkItemWidgetMilestoneInput>,
    pub namespace_path: Option<ID>,
    pub start_and_due_date_widget: Option<WorkItemWidgetStartAndDueDateUpdateInput>,
    pub title: String,
    pub work_item_type_id: WorkItemsTypeId,
}

#[derive(InputObject)]
#[graphql(name = "WorkItemDeleteInput")]
pub struct WorkItemDeleteInput {
    pub id: WorkItemId,
}

#[derive(InputObject)]
#[graphql(name = "WorkItemRemoveLinkedItemsInput")]
pub struct WorkItemRemoveLinkedItemsInput {
    pub id: WorkItemId,
    pub work_items_ids: Vec<WorkItemId>,
}

#[derive(InputObject)]
#[graphql(name = "WorkItemUpdateInput")]
pub struct WorkItemUpdateInput {
    pub assignees_widget: Option<WorkItemWidgetAssigneesInput>,
    pub confidential: Option<bool>,
    pub description_widget: Option<WorkItemWidgetDescriptionInput>,
    pub hierarchy_widget: Option<WorkItemWidgetHierarchyUpdateInput>,
    pub id: WorkItemId,
    pub labels_widget: Option<WorkItemWidgetLabelsUpdateInput>,
    pub milestone_widget: Option<WorkItemWidgetMilestoneInput>,
    pub start_and_due_date_widget: Option<WorkItemWidgetStartAndDueDateUpdateInput>,
    pub state_event: Option<WorkItemStateEvent>,
    pub title: Option<String>,
}

#[derive(InputObject)]
#[graphql(name = "WorkItemWidgetAssigneesInput")]
pub struct WorkItemWidgetAssigneesInput {
    pub assignee_ids: Vec<UserId>,
}

#[derive(InputObject)]
#[graphql(name = "WorkItemWidgetDescriptionInput")]
pub struct WorkItemWidgetDescriptionInput {
    pub description: String,
}

#[derive(InputObject)]
#[graphql(name = "WorkItemWidgetHierarchyCreateInput")]
pub struct WorkItemWidgetHierarchyCreateInput {
    pub parent_id: Option<WorkItemId>,
}

#[derive(InputObject)]
#[graphql(name = "WorkItemWidgetHierarchyUpdateInput")]
pub struct WorkItemWidgetHierarchyUpdateInput {
    pub children_ids: Option<Vec<WorkItemId>>,
    /// `null` removes the parent.
    pub parent_id: MaybeUndefined<WorkItemId>,
}

#[derive(InputObject)]
#[graphql(name = "WorkItemWidgetLabelsCreateInput")]
pub struct WorkItemWidgetLabelsCreateInput {
    pub label_ids: Vec<LabelId>,
}

#[derive(InputObject)]
#[graphql(name = "WorkItemWidgetLabelsUpdateInput")]
pub struct WorkItemWidgetLabelsUpdateInput {
    pub add_label_ids: Option<Vec<LabelId>>,
    pub remove_label_ids: Option<Vec<LabelId>>,
}

#[derive(InputObject)]
#[graphql(name = "WorkItemWidgetMilestoneInput")]
pub struct WorkItemWidgetMilestoneInput {
    /// `null` removes the milestone.
    pub milestone_id: MaybeUndefined<MilestoneId>,
}

#[derive(InputObject)]
#[graphql(name = "WorkItemWidgetStartAndDueDateUpdateInput")]
pub struct WorkItemWidgetStartAndDueDateUpdateInput {
    /// `null` clears the date.
    pub due_date: MaybeUndefined<Date>,
    pub start_date: MaybeUndefined<Date>,
}

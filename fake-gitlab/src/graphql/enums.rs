//! The enums of GitLab's schema that the fake serves, with all of GitLab's
//! values and names (doc/api/graphql/reference, "Enumeration types").

use async_graphql::Enum;

#[derive(Enum, Copy, Clone, Debug, PartialEq, Eq)]
#[graphql(name = "IssuableState", rename_items = "lowercase")]
pub enum IssuableState {
    All,
    Closed,
    Locked,
    Opened,
}

#[derive(Enum, Copy, Clone, Debug, PartialEq, Eq)]
#[graphql(name = "IssueType")]
pub enum IssueType {
    Epic,
    Incident,
    Issue,
    KeyResult,
    Objective,
    Requirement,
    Task,
    TestCase,
    Ticket,
}

impl IssueType {
    /// The base type it names (`key_result`).
    pub fn base(self) -> &'static str {
        match self {
            IssueType::Epic => "epic",
            IssueType::Incident => "incident",
            IssueType::Issue => "issue",
            IssueType::KeyResult => "key_result",
            IssueType::Objective => "objective",
            IssueType::Requirement => "requirement",
            IssueType::Task => "task",
            IssueType::TestCase => "test_case",
            IssueType::Ticket => "ticket",
        }
    }
}

#[derive(Enum, Copy, Clone, Debug, PartialEq, Eq)]
#[graphql(name = "LabelSearchFieldList")]
pub enum LabelSearchFieldList {
    Description,
    Title,
}

#[derive(Enum, Copy, Clone, Debug, PartialEq, Eq)]
#[graphql(name = "WorkItemRelatedLinkType")]
pub enum WorkItemRelatedLinkType {
    BlockedBy,
    Blocks,
    Related,
}

impl WorkItemRelatedLinkType {
    /// How GitLab stores and shows it (`LinkedWorkItemType.linkType`).
    pub fn stored(self) -> &'static str {
        match self {
            WorkItemRelatedLinkType::BlockedBy => "is_blocked_by",
            WorkItemRelatedLinkType::Blocks => "blocks",
            WorkItemRelatedLinkType::Related => "relates_to",
        }
    }
}

#[derive(Enum, Copy, Clone, Debug, PartialEq, Eq)]
#[graphql(name = "WorkItemState")]
pub enum WorkItemState {
    Closed,
    Open,
}

#[derive(Enum, Copy, Clone, Debug, PartialEq, Eq)]
#[graphql(name = "WorkItemStateEvent")]
pub enum WorkItemStateEvent {
    Close,
    Reopen,
}

#[derive(Enum, Copy, Clone, Debug, PartialEq, Eq)]
#[graphql(name = "WorkItemWidgetType")]
pub enum WorkItemWidgetType {
    Assignees,
    AwardEmoji,
    Color,
    CrmContacts,
    CurrentUserTodos,
    CustomFields,
    Description,
    Designs,
    Development,
    EmailParticipants,
    ErrorTracking,
    HealthStatus,
    Hierarchy,
    Iteration,
    Labels,
    LinkedItems,
    LinkedResources,
    Milestone,
    Notes,
    Notifications,
    Participants,
    Progress,
    RequirementLegacy,
    StartAndDueDate,
    Status,
    TestReports,
    TimeTracking,
    VerificationStatus,
    Vulnerabilities,
    Weight,
}

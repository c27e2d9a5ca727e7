//! The catalog's file formats, as serde reads them. Every struct denies
//! unknown keys and every closed set of words is an enum, so a misspelled
//! key or value is a TOML error with its line and column instead of being
//! ignored.

use std::collections::BTreeMap;

use serde::Deserialize;

/// `catalog/_shared.toml`: parameters many actions share, bundles of them,
/// and the toolsets tool files may name.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SharedFile {
    pub params: BTreeMap<String, ParamDef>,
    #[serde(default)]
    pub bundles: BTreeMap<String, Vec<String>>,
    pub toolsets: BTreeMap<String, String>,
}

/// `catalog/gitlab_<noun>.toml`: one meta-tool.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ToolFile {
    pub name: String,
    pub title: String,
    pub toolsets: Vec<String>,
    pub summary: String,
    pub example: String,
    /// The tool's icon: the stem of an SVG file of `catalog/icons/`.
    pub icon: String,
    /// The actions the tool description shows with their required
    /// parameters, main ones first: the calls agents make most.
    #[serde(default)]
    pub featured: Vec<String>,
    /// Parameters several actions of this file share, by `use`; found
    /// before `_shared.toml`'s.
    #[serde(default)]
    pub params: BTreeMap<String, ParamDef>,
    pub actions: Vec<ActionDef>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ActionDef {
    pub name: String,
    pub summary: String,
    /// `"GET /projects/{project_id}/issues"`; an action has this or `graphql`.
    pub http: Option<String>,
    /// A stored GraphQL document, `catalog/graphql/<name>.graphql`, or
    /// `"$query"`: the document is the call's `query` parameter.
    pub graphql: Option<String>,
    /// How a GraphQL action's parameters become its document's variables:
    /// a variable (or a path into an input object, `input.title`) and
    /// where its value comes from.
    #[serde(default)]
    pub variables: BTreeMap<String, VariableDef>,
    /// Where in a GraphQL answer's `data` the asked object is
    /// (`namespace.workItem`); with several, the first that is not null.
    #[serde(default)]
    pub answer: Vec<String>,
    /// A file of `src/handlers/` (of `src/handlers/graphql/actions/` for a
    /// GraphQL action) that builds the request or reads the answer.
    pub handler: Option<String>,
    pub read_only: Option<bool>,
    pub destructive: Option<bool>,
    pub idempotent: Option<bool>,
    pub returns: String,
    #[serde(default, rename = "use")]
    pub uses: Vec<String>,
    #[serde(default)]
    pub params: Vec<NamedParamDef>,
    #[serde(default)]
    pub hints: BTreeMap<String, String>,
    /// Values always sent, such as `state_event = "close"` for `close`.
    #[serde(default)]
    pub fixed: BTreeMap<String, toml::Value>,
    /// A file of `src/dispatch/checks/`: a rule across parameters.
    pub check: Option<String>,
    /// Groups of parameters of which at least one must be given.
    #[serde(default)]
    pub one_of: Vec<Vec<String>>,
    /// The action can take long (an export, a wait): a client that declared
    /// the tasks extension gets it as a task.
    #[serde(default)]
    pub long_running: bool,
}

#[derive(Deserialize, Clone)]
#[serde(deny_unknown_fields)]
pub struct NamedParamDef {
    pub name: String,
    #[serde(flatten)]
    pub def: ParamDef,
}

#[derive(Deserialize, Clone)]
#[serde(deny_unknown_fields)]
pub struct ParamDef {
    #[serde(rename = "type")]
    pub ty: ParamType,
    /// Unset for a placeholder of the template (the path) and for the
    /// method's default (the query of GET and DELETE, else the body).
    #[serde(rename = "in")]
    pub location: Option<Location>,
    /// Unset for a placeholder, which is always required.
    pub required: Option<bool>,
    #[serde(default, rename = "enum")]
    pub allowed: Vec<String>,
    pub default: Option<toml::Value>,
    pub format: Option<String>,
    /// Bounds of an integer, as GitLab documents them.
    pub minimum: Option<i64>,
    pub maximum: Option<i64>,
    pub items: Option<ParamType>,
    pub style: Option<ArrayStyle>,
    /// The fields of each object in an array of objects.
    #[serde(default)]
    pub fields: Vec<FieldDef>,
    /// GitLab runs `/command` lines of this text as quick actions.
    #[serde(default)]
    pub quick_actions: bool,
    /// GitLab still accepts the parameter but documents it as deprecated.
    #[serde(default)]
    pub deprecated: bool,
    /// The current parameter of the same action that replaces it.
    pub replaced_by: Option<String>,
    /// The part the parameter plays beyond its value, which dispatch reads
    /// (a web URL fills the `project` parameter...).
    pub role: Option<Role>,
    pub doc: String,
}

/// The part a parameter plays, whatever its name (the runtime's `Role`
/// variants).
#[derive(Deserialize, Clone, Copy, Debug, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum Role {
    /// The project a web URL or reference names.
    Project,
    /// The group a group's web URL names.
    Group,
    /// The note a `#note_123` anchor names.
    Note,
    /// A GraphQL connection's cursor (`after`): the server follows the
    /// pages into it for `max_items`.
    Cursor,
    /// A web URL or reference standing for the parameters it holds,
    /// accepted by every action with a `project` parameter; declared once,
    /// in `_shared.toml`, and used by no action.
    WebUrl,
}

/// One field of the objects in an array parameter.
#[derive(Deserialize, Clone)]
#[serde(deny_unknown_fields)]
pub struct FieldDef {
    pub name: String,
    #[serde(rename = "type")]
    pub ty: ParamType,
    #[serde(default)]
    pub required: bool,
    #[serde(default, rename = "enum")]
    pub allowed: Vec<String>,
    /// GitLab runs `/command` lines of this text as quick actions.
    #[serde(default)]
    pub quick_actions: bool,
    pub doc: String,
}

/// JSON Schema's types only: there is no `date`, `datetime` or `int` (a
/// date is a string with a `format`). The names are the runtime's
/// `ParamType` variants.
#[derive(Deserialize, Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
#[serde(rename_all = "lowercase")]
pub enum ParamType {
    String,
    Integer,
    Number,
    Boolean,
    Array,
    Object,
}

/// Where a parameter is sent (the runtime's `Location` variants).
#[derive(Deserialize, Clone, Copy, Debug, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum Location {
    Path,
    Query,
    Body,
}

/// How an array is written (the runtime's `ArrayStyle` variants).
#[derive(Deserialize, Clone, Copy, Debug, Default, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum ArrayStyle {
    #[default]
    Brackets,
    Csv,
    Segments,
}

/// Where a GraphQL variable's value comes from: a parameter's name, or a
/// table saying how the parameter is turned into the value.
#[derive(Deserialize, Clone)]
#[serde(untagged)]
pub enum VariableDef {
    Param(String),
    Fed(FedDef),
}

#[derive(Deserialize, Clone)]
#[serde(deny_unknown_fields)]
pub struct FedDef {
    /// The parameter; none for `resolve = "namespace"`, which reads the
    /// action's project or group parameter.
    pub param: Option<String>,
    /// Names turned into GitLab's IDs by asking GitLab.
    pub resolve: Option<Resolver>,
    /// The parameter's allowed values as GraphQL's enum values.
    #[serde(default)]
    pub values: BTreeMap<String, String>,
    /// The model of a global ID built from the value:
    /// `gid://gitlab/<gid>/<value>`.
    pub gid: Option<String>,
}

/// What the server asks GitLab to turn a name into an ID (the runtime's
/// `Resolver` variants).
#[derive(Deserialize, Clone, Copy, Debug, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum Resolver {
    /// The project or group parameter as a full path (a numeric id is
    /// looked up).
    Namespace,
    /// A type name (`task`) as the namespace's work item type ID.
    WorkItemType,
    /// Label titles as label IDs.
    LabelIds,
    /// Usernames as user IDs.
    UserIds,
    /// A work item's iid as its global ID.
    WorkItemId,
    /// Work items' iids as their global IDs.
    WorkItemIds,
}

/// `catalog/kinds.toml`: every resource kind an action may return.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct KindsFile {
    pub defaults: KindDefaults,
    pub kinds: BTreeMap<String, KindDef>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct KindDefaults {
    pub long_text: Vec<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct KindDef {
    #[serde(default)]
    pub summary: Vec<String>,
    pub long_text: Option<Vec<String>>,
    /// `"self"`, or the field holding the diffs.
    pub diffs: Option<String>,
    /// The fields GitLab documents for the kind.
    #[serde(default)]
    pub fields: Vec<String>,
}

/// `catalog/vocabulary.toml`: the words agents use.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct VocabularyFile {
    pub param_synonyms: BTreeMap<String, Vec<String>>,
    pub action_words: BTreeMap<String, String>,
    /// A whole action name agents guess, and the actions it may mean, best
    /// first: the first one a tool has is suggested.
    pub action_synonyms: BTreeMap<String, Vec<String>>,
    pub envelope_aliases: EnvelopeAliases,
    pub examples: Examples,
    /// A peer server's toolset names, and the tools they are here.
    pub peer_toolsets: BTreeMap<String, Vec<String>>,
    /// A peer server's tool names, and the `tool.action` they are here.
    pub peer_tools: BTreeMap<String, String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EnvelopeAliases {
    pub params: Vec<String>,
    pub action: Vec<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Examples {
    pub by_name: BTreeMap<String, toml::Value>,
    pub by_format: BTreeMap<String, toml::Value>,
    pub by_type: BTreeMap<ParamType, toml::Value>,
}

/// `catalog/prompts.toml`: MCP prompts.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PromptsFile {
    pub prompts: Vec<PromptDef>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PromptDef {
    pub name: String,
    pub title: String,
    pub description: String,
    #[serde(default)]
    pub arguments: Vec<PromptArgDef>,
    pub text: String,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PromptArgDef {
    pub name: String,
    pub description: String,
    #[serde(default)]
    pub required: bool,
}

/// `catalog/urls.toml`: web URL shapes and reference prefixes.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct UrlsFile {
    pub shapes: Vec<UrlShapeDef>,
    pub references: BTreeMap<String, Vec<String>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct UrlShapeDef {
    pub path: String,
    pub what: String,
    pub served_by: String,
}

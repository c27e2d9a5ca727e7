//! The catalog's types. The catalog compiler (`catalog-compiler/`, run by
//! `build/main.rs`) turns the TOML files in `catalog/` into `static` values
//! of these types, so loading the catalog costs nothing at start-up: it is
//! already in the binary's read-only data. It also writes the enums
//! `Handler` and `Check` of the names the catalog uses.

use super::{Check, GraphqlHandler, Handler};

/// One meta-tool, such as `gitlab_issue`.
#[derive(Debug)]
pub struct ToolSpec {
    pub name: &'static str,
    /// Short human title, also used as the MCP annotation title.
    pub title: &'static str,
    /// First line of the tool description: what the tool does.
    pub summary: &'static str,
    /// A minimal valid envelope, shown on the description's second line.
    pub example: &'static str,
    /// The actions the description shows with their required parameters,
    /// main ones first (a pruned tool shows those it still has).
    pub featured: &'static [&'static str],
    /// The toolsets (`core`, `ci`...) the tool belongs to, for `--tools`.
    pub toolsets: &'static [&'static str],
    /// The tool's icon for clients (not the model): the SVG text of the
    /// file of `catalog/icons/` its catalog file names.
    pub icon: &'static str,
    pub actions: &'static [ActionSpec],
}

/// A named group of tools (`catalog/_shared.toml` `[toolsets]`).
#[derive(Debug)]
pub struct ToolsetSpec {
    pub name: &'static str,
    pub doc: &'static str,
}

/// A resource kind (`catalog/kinds.toml`): how answers of that kind read.
#[derive(Debug, PartialEq, Eq)]
pub struct KindSpec {
    pub name: &'static str,
    /// The fields a list keeps of each item; empty keeps every field that
    /// survives the generic rules.
    pub summary: &'static [&'static str],
    /// Free-text fields people write: excerpted in lists.
    pub long_text: &'static [&'static str],
    pub diffs: Diffs,
    /// The fields GitLab documents; empty when not listed.
    pub fields: &'static [&'static str],
}

/// Whether answers of a kind carry diffs that `file` can pick from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Diffs {
    None,
    /// Each item is one file's diff.
    Itself,
    /// The object holds its diffs in this field (compare's `diffs`).
    InField(&'static str),
}

/// A web URL shape (`catalog/urls.toml`): what follows `<project>/-/`.
#[derive(Debug)]
pub struct UrlShape {
    /// `issues/{issue_iid}/...`
    pub path: &'static str,
    /// "an issue", for errors.
    pub what: &'static str,
    /// The tool and action that read it.
    pub tool: &'static str,
    pub action: &'static str,
}

/// An MCP prompt (`catalog/prompts.toml`): a workflow written with this
/// catalog's tools and actions.
#[derive(Debug)]
pub struct PromptSpec {
    pub name: &'static str,
    pub title: &'static str,
    pub description: &'static str,
    pub arguments: &'static [PromptArg],
    /// `{argument}` placeholders; `[argument]` marks what needs it.
    pub text: &'static str,
}

#[derive(Debug)]
pub struct PromptArg {
    pub name: &'static str,
    pub description: &'static str,
    pub required: bool,
}

/// The words agents use (`catalog/vocabulary.toml`).
#[derive(Debug)]
pub struct Vocabulary {
    /// A name agents give a parameter, and what it usually means, best first.
    pub param_synonyms: &'static [(&'static str, &'static [&'static str])],
    /// A word of a guessed action name, and the catalog's word for it.
    pub action_words: &'static [(&'static str, &'static str)],
    /// A whole action name agents guess, and the actions it may mean, best
    /// first (`comment` -> `note_create`).
    pub action_synonyms: &'static [(&'static str, &'static [&'static str])],
    /// Names agents give the envelope's `params` and `action` keys.
    pub params_aliases: &'static [&'static str],
    pub action_aliases: &'static [&'static str],
    /// Example values (JSON text) by parameter name, string format and type.
    pub examples_by_name: &'static [(&'static str, &'static str)],
    pub examples_by_format: &'static [(&'static str, &'static str)],
    pub examples_by_type: &'static [(ParamType, &'static str)],
    /// A peer server's toolset names, and the tools they are here.
    pub peer_toolsets: &'static [(&'static str, &'static [&'static str])],
    /// A peer server's tool names, and the tool and action they are here.
    pub peer_tools: &'static [(&'static str, &'static str, &'static str)],
}

/// One action of a tool: usually one GitLab REST endpoint.
#[derive(Debug, Clone)]
pub struct ActionSpec {
    pub name: &'static str,
    pub summary: &'static str,
    /// How the action is carried out: a REST call, or answered locally.
    pub route: Route,
    pub read_only: bool,
    pub destructive: bool,
    pub idempotent: bool,
    /// It can take long (an export, a wait): run as a task for a client
    /// that declared the tasks extension.
    pub long_running: bool,
    pub params: &'static [ParamSpec],
    /// Advice shown with a GitLab error of the given HTTP status.
    pub hints: &'static [(u16, &'static str)],
    /// What GitLab answers with, for pagination and rendering.
    pub returns: Returns,
    /// Values always sent with the request, not chosen by the caller.
    pub fixed: &'static [FixedParam],
    /// A rule across parameters the catalog cannot state, carried out in
    /// `src/dispatch/checks/<name>.rs`.
    pub check: Option<Check>,
    /// Rust that builds the request, reads the answer or carries out the
    /// whole action, in `src/handlers/<name>.rs`.
    pub handler: Option<Handler>,
    /// Groups of parameters of which at least one must be given (a project
    /// is created with a `name` or a `path`).
    pub one_of: &'static [&'static [&'static str]],
}

/// A constant parameter, such as `state_event=close` for an issue's `close`.
#[derive(Debug)]
pub struct FixedParam {
    pub name: &'static str,
    /// The value as JSON text.
    pub json: &'static str,
    pub location: Location,
}

/// How an action is carried out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Route {
    /// A GitLab REST endpoint.
    Rest(RestRoute),
    /// A GraphQL operation on GitLab's `/api/graphql`.
    Graphql(GraphqlRoute),
    /// Answered by the server itself, without a request.
    Local(Local),
}

/// A GraphQL action: its document (stored, or the caller's), how its
/// parameters become the document's variables, and where the asked object
/// is in the answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct GraphqlRoute {
    pub operation: Operation,
    /// `None`: the caller's document, its `query` parameter (with
    /// `variables` and `operation_name`), refused unless it is a read.
    pub document: Option<&'static StoredDocument>,
    /// Rust that carries out the action, in
    /// `src/handlers/graphql/actions/<name>.rs`.
    pub handler: Option<GraphqlHandler>,
    pub variables: &'static [VariableSpec],
    /// Paths in `data` to the asked object; with several, the first that
    /// is not null (`project.workItems`, `group.workItems`).
    pub answer: &'static [&'static [&'static str]],
}

impl GraphqlRoute {
    /// The parameters of the caller's document (`document: None`).
    pub const QUERY: &'static str = "query";
    pub const VARIABLES: &'static str = "variables";
    pub const OPERATION_NAME: &'static str = "operation_name";

    /// `GraphQL query namespace`, `GraphQL mutation workItemCreate`: what
    /// help shows where a REST action shows its method and path.
    pub fn describe(&self) -> String {
        match self.document {
            Some(document) => format!(
                "GraphQL {} {}",
                self.operation.as_str(),
                document.root_fields.join(", ")
            ),
            None => format!(
                "GraphQL {} (the `{}` parameter)",
                self.operation.as_str(),
                Self::QUERY
            ),
        }
    }
}

/// What a GraphQL operation does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Operation {
    /// A read: repeatable, and all that read-only mode allows.
    Query,
    /// A write: never repeated.
    Mutation,
}

impl Operation {
    pub fn as_str(self) -> &'static str {
        match self {
            Operation::Query => "query",
            Operation::Mutation => "mutation",
        }
    }
}

/// A GraphQL document of `catalog/graphql/`, as sent (its header comment
/// left out).
#[derive(Debug, PartialEq, Eq)]
pub struct StoredDocument {
    /// Its file's stem: `work_item_get`.
    pub name: &'static str,
    pub operation: Operation,
    pub operation_name: Option<&'static str>,
    /// The operation's top-level fields: `namespace`, `workItemCreate`.
    pub root_fields: &'static [&'static str],
    pub text: &'static str,
}

/// One variable of a document, or a field of one (`input.title`), and the
/// parameter its value comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct VariableSpec {
    pub path: &'static [&'static str],
    /// An index into `ActionSpec::params`; `None` for the namespace.
    pub param: Option<usize>,
    pub feed: Feed,
}

/// How a parameter becomes a variable's value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Feed {
    /// As given.
    Value,
    /// An integer as a string (`iid: String!`).
    Text,
    /// An allowed value as GraphQL's enum value: (given, sent).
    Values(&'static [(&'static str, &'static str)]),
    /// `gid://gitlab/<model>/<value>`.
    GlobalId(&'static str),
    /// Names turned into IDs by asking GitLab first.
    Resolve(Resolver),
}

/// What the server asks GitLab before a GraphQL action, to turn what an
/// agent knows (names, iids) into what GitLab's mutations take (IDs).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Resolver {
    /// The project or group parameter as a full path.
    Namespace,
    /// A type name as the namespace's work item type ID.
    WorkItemType,
    LabelIds,
    UserIds,
    WorkItemId,
    WorkItemIds,
}

impl Resolver {
    /// The catalog's name for it (`resolve = "label_ids"`).
    pub fn as_str(self) -> &'static str {
        match self {
            Resolver::Namespace => "namespace",
            Resolver::WorkItemType => "work_item_type",
            Resolver::LabelIds => "label_ids",
            Resolver::UserIds => "user_ids",
            Resolver::WorkItemId => "work_item_id",
            Resolver::WorkItemIds => "work_item_ids",
        }
    }
}

/// A REST endpoint: method and the path template split at its placeholders.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RestRoute {
    pub method: Method,
    /// The template as GitLab documents it, e.g. `/projects/{project_id}/issues`.
    pub template: &'static str,
    /// The same template, pre-split: literal text and placeholders
    /// (indexes into `ActionSpec::params`).
    pub parts: &'static [PathPart],
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PathPart {
    Literal(&'static str),
    Param(usize),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Method {
    Get,
    Post,
    Put,
    Patch,
    Delete,
}

impl Method {
    pub fn as_str(self) -> &'static str {
        match self {
            Method::Get => "GET",
            Method::Post => "POST",
            Method::Put => "PUT",
            Method::Patch => "PATCH",
            Method::Delete => "DELETE",
        }
    }
}

/// Actions the server answers itself.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Local {
    /// Describe the tool's actions and their parameters.
    Help,
}

/// The shape of a successful answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Returns {
    /// One JSON object describing a resource of this kind.
    One(&'static KindSpec),
    /// A paginated JSON array of resources of this kind.
    List(&'static KindSpec),
    /// Plain text: a raw file (shown from its start) or a log (shown from
    /// its end) when it is longer than a response may be.
    Text(TextStart),
    /// No body (204) or a body not worth showing.
    Nothing,
}

/// Which end of a long text is shown by default.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TextStart {
    Head,
    /// Logs: the end is where the failure is.
    Tail,
}

/// One parameter of an action.
#[derive(Debug, Clone)]
pub struct ParamSpec {
    pub name: &'static str,
    pub ty: ParamType,
    pub location: Location,
    pub required: bool,
    /// Allowed values, empty when any value of the type is allowed.
    pub allowed: &'static [&'static str],
    /// GitLab's default, as JSON text, for documentation only: an absent
    /// parameter is not sent and GitLab applies its own default.
    pub default: Option<&'static str>,
    /// JSON Schema `format` of a string, such as `date-time` or `date`.
    pub format: Option<&'static str>,
    /// Bounds of an integer (a path id or iid is at least 1).
    pub minimum: Option<i64>,
    pub maximum: Option<i64>,
    /// Element type of an array.
    pub items: Option<ParamType>,
    /// How an array is sent in a query or body.
    pub style: ArrayStyle,
    /// For an array of objects: the fields each object may have.
    pub fields: &'static [FieldSpec],
    /// GitLab runs lines of this text that start with `/` as quick actions.
    pub quick_actions: bool,
    /// GitLab still accepts it but documents it as deprecated: the answer
    /// says so, naming `replaced_by` when there is a current parameter.
    pub deprecated: bool,
    pub replaced_by: Option<&'static str>,
    /// The part it plays, which dispatch reads instead of its name.
    pub role: Option<Role>,
    pub doc: &'static str,
}

/// The part a parameter plays beyond its value (`role` in the catalog).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    /// The project a web URL or a reference names (`project_id`).
    Project,
    /// The group a group's web URL names (`group_id`).
    Group,
    /// The note a `#note_123` anchor names (`note_id`).
    Note,
    /// The page of a GraphQL list (`after`): `max_items` follows the
    /// cursors through it.
    Cursor,
    /// A web URL or reference in place of the parameters it holds (`url`):
    /// one parameter of `_shared.toml`, taken by every action with a
    /// `Project` parameter (`catalog::web_url`).
    WebUrl,
}

/// A field of the objects in an array parameter (`actions[].file_path`).
#[derive(Debug)]
pub struct FieldSpec {
    pub name: &'static str,
    pub ty: ParamType,
    pub required: bool,
    pub allowed: &'static [&'static str],
    /// GitLab runs lines of this text that start with `/` as quick actions.
    pub quick_actions: bool,
    pub doc: &'static str,
}

/// Standard JSON Schema types only.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ParamType {
    String,
    Integer,
    Number,
    Boolean,
    Array,
    Object,
}

impl ParamType {
    pub fn as_str(self) -> &'static str {
        match self {
            ParamType::String => "string",
            ParamType::Integer => "integer",
            ParamType::Number => "number",
            ParamType::Boolean => "boolean",
            ParamType::Array => "array",
            ParamType::Object => "object",
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Location {
    Path,
    Query,
    Body,
}

impl Location {
    pub fn as_str(self) -> &'static str {
        match self {
            Location::Path => "path",
            Location::Query => "query",
            Location::Body => "body",
        }
    }
}

/// How GitLab expects a list.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ArrayStyle {
    /// `key[]=a&key[]=b` in a query, a JSON array in a body.
    Brackets,
    /// `a,b` as one string, in a query or a body (labels and similar).
    Csv,
    /// A path parameter that is itself a path (`dir/file.txt` in GitLab's
    /// `*artifact_path`): one encoded segment per `/`-separated part.
    Segments,
}

impl ActionSpec {
    pub fn param(&self, name: &str) -> Option<&'static ParamSpec> {
        self.params.iter().find(|p| p.name == name)
    }

    /// The parameter playing `role`, if the action has one.
    pub fn param_with(&self, role: Role) -> Option<&'static ParamSpec> {
        self.params.iter().find(|p| p.role == Some(role))
    }

    pub fn hint(&self, status: u16) -> Option<&'static str> {
        self.hints
            .iter()
            .find(|(s, _)| *s == status)
            .map(|(_, h)| *h)
    }

    /// True when the action can change something in GitLab.
    pub fn mutates(&self) -> bool {
        !self.read_only
    }

    pub fn method(&self) -> Option<Method> {
        self.rest().map(|r| r.method)
    }

    pub fn template(&self) -> Option<&'static str> {
        self.rest().map(|r| r.template)
    }

    pub fn rest(&self) -> Option<&RestRoute> {
        match &self.route {
            Route::Rest(rest) => Some(rest),
            Route::Graphql(_) | Route::Local(_) => None,
        }
    }

    pub fn graphql(&self) -> Option<&GraphqlRoute> {
        match &self.route {
            Route::Graphql(graphql) => Some(graphql),
            Route::Rest(_) | Route::Local(_) => None,
        }
    }

    /// The kind of resource the answer holds, if it is JSON.
    pub fn kind(&self) -> Option<&'static KindSpec> {
        match self.returns {
            Returns::One(kind) | Returns::List(kind) => Some(kind),
            Returns::Text(_) | Returns::Nothing => None,
        }
    }

    /// Whether the answer carries diffs that `file` can pick from.
    pub fn shows_diffs(&self) -> bool {
        self.kind().is_some_and(|k| k.diffs != Diffs::None)
    }
}

impl ToolSpec {
    pub fn action(&self, name: &str) -> Option<&'static ActionSpec> {
        self.actions.iter().find(|a| a.name == name)
    }

    /// The tool is read-only when every action is.
    pub fn read_only(&self) -> bool {
        self.actions.iter().all(|a| a.read_only)
    }

    pub fn destructive(&self) -> bool {
        self.actions.iter().any(|a| a.destructive)
    }

    /// Idempotent when every action that writes is idempotent.
    pub fn idempotent(&self) -> bool {
        self.actions.iter().all(|a| a.read_only || a.idempotent)
    }
}

//! The endpoints, by resource, and what they share: the request context,
//! visibility and permission checks as GitLab applies them.

mod accounts;
mod admin_apps;
mod administration;
mod approvals;
mod ci;
mod ci_settings;
mod content;
mod content_admin;
pub mod discussions;
mod draft_notes;
mod groups_users;
mod instance;
mod issues;
mod job_logs;
mod merge_requests;
mod oauth;
mod pipeline_reports;
mod pipelines;
mod projects;
pub mod repository;
mod repository_stats;
mod timeline;

use axum::Router;
use axum::body::to_bytes;
use axum::extract::{FromRequest, Request};
use axum::response::Response;
use serde_json::Value;

use crate::App;
use crate::auth::{Auth, insufficient_scope};
use crate::db::Db;
use crate::http;

pub type Reply = Result<Response, Response>;

pub fn routes() -> Router<App> {
    Router::new()
        .merge(projects::routes())
        .merge(issues::routes())
        .merge(job_logs::routes())
        .merge(pipeline_reports::routes())
        .merge(merge_requests::routes())
        .merge(discussions::routes(discussions::Kind::Issue))
        .merge(discussions::routes(discussions::Kind::MergeRequest))
        .merge(draft_notes::routes())
        .merge(pipelines::routes())
        .merge(repository::routes())
        .merge(ci::routes())
        .merge(ci_settings::routes())
        .merge(repository_stats::routes())
        .merge(content_admin::routes())
        .merge(content::routes())
        .merge(groups_users::routes())
        .merge(approvals::routes())
        .merge(timeline::routes())
        .merge(administration::routes())
        .merge(oauth::routes())
        .merge(instance::routes())
        .merge(accounts::routes())
        .merge(admin_apps::routes())
        .route("/documents/{name}", axum::routing::get(document))
}

/// What a handler needs from the request besides its path parameters.
pub struct Ctx {
    pub auth: Option<Auth>,
    pub query: Vec<(String, String)>,
    pub body: Value,
    /// `http://host/api/v4/...` of this request, for `Link` headers.
    pub url: String,
}

impl FromRequest<App> for Ctx {
    type Rejection = Response;

    async fn from_request(request: Request, state: &App) -> Result<Self, Response> {
        let auth = request
            .extensions()
            .get::<Option<Auth>>()
            .copied()
            .flatten();
        let query = http::parse_query(request.uri().query().unwrap_or_default());
        let url = format!("{}{}", crate::lock(&state.db).host, request.uri().path());
        let bytes = to_bytes(request.into_body(), usize::MAX)
            .await
            .unwrap_or_default();
        let body = if bytes.iter().all(u8::is_ascii_whitespace) {
            Value::Null
        } else {
            // Grape answers malformed JSON with a 400 (docs: https://docs.gitlab.com/api/rest/troubleshooting/#status-codes).
            serde_json::from_slice(&bytes)
                .map_err(|_| http::message(400, "400 Bad request - Invalid JSON"))?
        };
        Ok(Ctx {
            auth,
            query,
            body,
            url,
        })
    }
}

impl Ctx {
    /// A parameter from the JSON body or the query string: Grape merges both.
    pub fn param(&self, name: &str) -> Option<String> {
        if let Some(v) = self.body.get(name) {
            return match v {
                Value::Null => None,
                Value::String(s) => Some(s.clone()),
                Value::Array(items) => Some(items.iter().map(text).collect::<Vec<_>>().join(",")),
                other => Some(other.to_string()),
            };
        }
        self.query
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.clone())
    }

    /// A list: `name[]=a&name[]=b`, a JSON array, or a comma-separated string.
    pub fn list(&self, name: &str) -> Option<Vec<String>> {
        if let Some(Value::Array(items)) = self.body.get(name) {
            return Some(items.iter().map(text).collect());
        }
        let bracketed = format!("{name}[]");
        let values: Vec<String> = self
            .query
            .iter()
            .filter(|(k, _)| *k == bracketed)
            .map(|(_, v)| v.clone())
            .collect();
        if !values.is_empty() {
            return Some(values);
        }
        self.param(name).map(|s| {
            s.split(',')
                .map(|p| p.trim().to_string())
                .filter(|p| !p.is_empty())
                .collect()
        })
    }

    pub fn flag(&self, name: &str) -> Option<bool> {
        self.param(name).map(|v| v == "true" || v == "1")
    }

    pub fn number(&self, name: &str) -> Result<Option<u64>, Response> {
        match self.param(name) {
            None => Ok(None),
            Some(v) => v
                .parse()
                .map(Some)
                .map_err(|_| http::message(400, &format!("{name} is invalid"))),
        }
    }

    /// Grape's `requires`: `{"error":"title is missing"}` (docs:
    /// https://docs.gitlab.com/api/rest/troubleshooting/#status-codes).
    pub fn require(&self, name: &str) -> Result<String, Response> {
        self.param(name)
            .filter(|v| !v.is_empty())
            .ok_or_else(|| http::missing(name))
    }

    /// Grape's `values:` check: `{"error":"state does not have a valid value"}`.
    pub fn one_of(&self, name: &str, allowed: &[&str]) -> Result<Option<String>, Response> {
        match self.param(name) {
            Some(v) if !allowed.contains(&v.as_str()) => Err(http::invalid_value(name)),
            other => Ok(other),
        }
    }
}

fn text(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// The project at `id` (numeric or full path) if the caller may see it.
/// A private project the caller is not a member of is a 404, never a 403
/// (docs: "If a user is not a member of a private project, a GET request on
/// that project results in a 404").
pub fn visible(db: &Db, id: &str, ctx: &Ctx) -> Result<usize, Response> {
    let not_found = || http::not_found("Project");
    let index = db.project_index(id).ok_or_else(not_found)?;
    let p = &db.projects[index];
    let member = ctx.auth.is_some_and(|a| p.members.contains(&a.user_id));
    if p.visibility == "public" || member {
        Ok(index)
    } else {
        Err(not_found())
    }
}

/// Visible, and the caller may write: anonymous is 401, a `read_api`
/// token is 403 `insufficient_scope`, a non-member is 403.
pub fn writable(db: &Db, id: &str, ctx: &Ctx) -> Result<usize, Response> {
    let index = visible(db, id, ctx)?;
    let Some(auth) = ctx.auth else {
        return Err(http::unauthorized());
    };
    if !auth.can_write {
        return Err(insufficient_scope());
    }
    if !db.projects[index].members.contains(&auth.user_id) {
        return Err(http::forbidden());
    }
    Ok(index)
}

/// A new comment from the request: `body` required (Grape's `requires`),
/// `internal` optional (docs: https://docs.gitlab.com/api/notes/). The caller is a writer.
pub fn new_note(db: &mut Db, ctx: &Ctx) -> Result<crate::db::Note, Response> {
    let body = ctx.require("body")?;
    let author = ctx.auth.expect("writable has a user").user_id;
    let internal = ctx.flag("internal").unwrap_or(false);
    Ok(plain_note(db, author, body, internal))
}

/// A comment that is not part of a thread.
pub fn plain_note(db: &mut Db, author_id: u64, body: String, internal: bool) -> crate::db::Note {
    let id = db.next_id();
    crate::db::Note {
        id,
        body,
        author_id,
        created_at: db.now(),
        system: false,
        internal,
        discussion_id: crate::db::sha(id),
        ..crate::db::Note::default()
    }
}

/// What a note belongs to, as GitLab shows it: type, id, iid, project.
pub struct Noteable {
    pub kind: &'static str,
    pub id: u64,
    pub iid: u64,
    pub project_id: u64,
}

impl Noteable {
    pub fn issue(project: &crate::db::Project, issue: &crate::db::Issue) -> Self {
        Noteable {
            kind: "Issue",
            id: issue.id,
            iid: issue.iid,
            project_id: project.id,
        }
    }

    pub fn merge_request(project: &crate::db::Project, mr: &crate::db::MergeRequest) -> Self {
        Noteable {
            kind: "MergeRequest",
            id: mr.id,
            iid: mr.iid,
            project_id: project.id,
        }
    }

    /// One note as GitLab shows it.
    pub fn render(&self, db: &Db, note: &crate::db::Note) -> serde_json::Value {
        crate::objects::note(db, note, self.kind, self.id, self.iid, self.project_id)
    }
}

/// A page of notes, newest first unless `sort=asc` (docs: https://docs.gitlab.com/api/notes/, with
/// `sort` and `order_by` checked as Grape checks them).
pub fn notes_page(db: &Db, notes: &[crate::db::Note], on: &Noteable, ctx: &Ctx) -> Reply {
    ctx.one_of("sort", &["asc", "desc"])?;
    ctx.one_of("order_by", &["created_at", "updated_at"])?;
    let mut notes: Vec<&crate::db::Note> = notes.iter().collect();
    if ctx.param("sort").as_deref() != Some("asc") {
        notes.reverse();
    }
    let items = notes.iter().map(|n| on.render(db, n)).collect();
    Ok(http::paginate(items, &ctx.query, &ctx.url))
}

/// Parse a numeric path segment; GitLab's router answers 404 otherwise.
pub fn id(segment: &str) -> Result<u64, Response> {
    segment.parse().map_err(|_| http::no_route())
}

/// A document a test put on this host (`FakeGitLab::serve_document`).
async fn document(
    axum::extract::State(app): axum::extract::State<crate::App>,
    axum::extract::Path(name): axum::extract::Path<String>,
) -> axum::response::Response {
    use axum::response::IntoResponse;
    match crate::lock(&app.documents).get(&name) {
        Some(body) => (
            [(axum::http::header::CONTENT_TYPE, "application/json")],
            body.clone(),
        )
            .into_response(),
        None => crate::http::no_route(),
    }
}

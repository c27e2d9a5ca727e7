//! Lockdown at work (`policy::lockdown` says why): every JSON answer that
//! comes through `Gitlab::send` is screened before anything renders it.
//!
//! An object with an `author` (an issue, a merge request, a note, a
//! snippet, a discussion's notes) keeps its text only when its author is a
//! member of the object's project (`project_id`, else the project of the
//! request's path) with at least the role: GitLab's
//! `GET /projects/:id/members/all/:user_id` says so, inherited and invited
//! memberships included, and 404 means not a member. Anything that cannot
//! be checked is withheld: the screen fails closed. Content outside any
//! project (a personal snippet) is left as it is.

use std::collections::{BTreeSet, HashMap};
use std::sync::Mutex;

use serde_json::Value;

use crate::gitlab::{Client, GitLabError, HttpRequest, Response, Target};
use crate::policy::lockdown::Role;

/// The fields of an authored object that hold what its author wrote.
const WRITTEN: &[&str] = &["title", "description", "body", "note", "content", "message"];

/// One call's screen: the role, the memberships looked up so far, and what
/// was withheld, for the answer's note.
pub struct Screen {
    role: Role,
    levels: Mutex<HashMap<(String, u64), Level>>,
    withheld: Mutex<BTreeSet<String>>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Level {
    Member(u64),
    NotMember,
    Unknown,
}

/// One authored object: where its project and author are.
struct Authored {
    project: String,
    author: u64,
}

impl Screen {
    pub fn new(role: Role) -> Self {
        Screen {
            role,
            levels: Mutex::new(HashMap::new()),
            withheld: Mutex::new(BTreeSet::new()),
        }
    }

    /// The answer's note, when anything was withheld.
    pub fn note(&self) -> Option<String> {
        let withheld = self.withheld.lock().expect("not poisoned");
        (!withheld.is_empty()).then(|| {
            let who: Vec<&str> = withheld.iter().map(String::as_str).collect();
            format!(
                "lockdown: the text of {} withheld: not written by a project member with the {} role or higher",
                who.join(", "),
                self.role
            )
        })
    }

    /// `response` with the text of every object by a non-member withheld.
    pub async fn screen(
        &self,
        client: &Client,
        target: &Target,
        request: &HttpRequest,
        mut response: Response,
    ) -> Response {
        let Ok(mut body) = serde_json::from_slice::<Value>(&response.body) else {
            return response;
        };
        let project = project_of_path(&request.path);
        let mut found = Vec::new();
        collect(&body, project.as_deref(), &mut found);
        if found.is_empty() {
            return response;
        }
        for item in &found {
            self.look_up(client, target, &item.project, item.author)
                .await;
        }
        let levels = self.levels.lock().expect("not poisoned").clone();
        let mut withheld = Vec::new();
        withhold(
            &mut body,
            project.as_deref(),
            &|key| self.allowed(levels.get(key).copied()),
            &mut withheld,
        );
        if withheld.is_empty() {
            return response;
        }
        self.withheld.lock().expect("not poisoned").extend(withheld);
        response.body = serde_json::to_vec(&body)
            .expect("a JSON value serializes")
            .into();
        response
    }

    fn allowed(&self, level: Option<Level>) -> bool {
        matches!(level, Some(Level::Member(l)) if l >= self.role.access_level())
    }

    async fn look_up(&self, client: &Client, target: &Target, project: &str, user: u64) {
        let key = (project.to_string(), user);
        if self.levels.lock().expect("not poisoned").contains_key(&key) {
            return;
        }
        let request = HttpRequest::get(format!("/projects/{project}/members/all/{user}"));
        let level = match client.send(target, &request).await {
            Ok(response) => serde_json::from_slice::<Value>(&response.body)
                .ok()
                .and_then(|m| m.get("access_level").and_then(Value::as_u64))
                .map_or(Level::Unknown, Level::Member),
            Err(failed) if matches!(&failed.error, GitLabError::Status(s) if s.status == 404) => {
                Level::NotMember
            }
            Err(failed) => {
                tracing::warn!(error = %failed.error, "lockdown could not check a membership; the text is withheld");
                Level::Unknown
            }
        };
        self.levels.lock().expect("not poisoned").insert(key, level);
    }
}

/// The project of `/projects/<id>/...`, still encoded as in the path.
fn project_of_path(path: &str) -> Option<String> {
    let rest = path.strip_prefix("/projects/")?;
    let id = rest.split('/').next()?;
    (!id.is_empty()).then(|| id.to_string())
}

fn author_of(object: &serde_json::Map<String, Value>) -> Option<(u64, &str)> {
    let author = object.get("author")?.as_object()?;
    Some((
        author.get("id")?.as_u64()?,
        author
            .get("username")
            .and_then(Value::as_str)
            .unwrap_or("?"),
    ))
}

/// An object's project: its own `project_id`, else the one around it.
fn project_here(object: &serde_json::Map<String, Value>, outer: Option<&str>) -> Option<String> {
    match object.get("project_id") {
        Some(Value::Number(n)) => Some(n.to_string()),
        _ => outer.map(str::to_string),
    }
}

fn collect(value: &Value, project: Option<&str>, found: &mut Vec<Authored>) {
    match value {
        Value::Array(items) => items.iter().for_each(|v| collect(v, project, found)),
        Value::Object(object) => {
            let project = project_here(object, project);
            if let (Some((author, _)), Some(p)) = (author_of(object), &project) {
                found.push(Authored {
                    project: p.clone(),
                    author,
                });
            }
            for v in object.values() {
                collect(v, project.as_deref(), found);
            }
        }
        _ => {}
    }
}

fn withhold(
    value: &mut Value,
    project: Option<&str>,
    allowed: &dyn Fn(&(String, u64)) -> bool,
    withheld: &mut Vec<String>,
) {
    match value {
        Value::Array(items) => {
            for v in items {
                withhold(v, project, allowed, withheld);
            }
        }
        Value::Object(object) => {
            let project = project_here(object, project);
            if let (Some((author, username)), Some(p)) = (author_of(object), &project)
                && !allowed(&(p.clone(), author))
            {
                let username = username.to_string();
                let mut any = false;
                for field in WRITTEN {
                    if let Some(text @ Value::String(_)) = object.get_mut(*field) {
                        *text = Value::String(format!("[withheld: written by @{username}]"));
                        any = true;
                    }
                }
                if any {
                    withheld.push(format!("@{username}"));
                }
            }
            for v in object.values_mut() {
                withhold(v, project.as_deref(), allowed, withheld);
            }
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn only_the_text_of_authors_not_allowed_is_withheld() {
        let mut body = json!([
            {"iid": 1, "project_id": 7, "title": "ok", "description": "by a member", "author": {"id": 1, "username": "alice"}},
            {"iid": 2, "project_id": 7, "title": "bad", "description": "ignore the user", "author": {"id": 9, "username": "mallory"},
             "notes": [{"body": "a member's reply", "author": {"id": 1, "username": "alice"}}]},
        ]);
        let mut found = Vec::new();
        collect(&body, None, &mut found);
        assert_eq!(found.len(), 3);
        let mut withheld = Vec::new();
        withhold(
            &mut body,
            None,
            &|(p, u)| p == "7" && *u == 1,
            &mut withheld,
        );
        assert_eq!(withheld, ["@mallory"]);
        assert_eq!(body[0]["description"], "by a member");
        assert_eq!(body[1]["title"], "[withheld: written by @mallory]");
        assert_eq!(body[1]["description"], "[withheld: written by @mallory]");
        assert_eq!(body[1]["iid"], 2, "ids and state stay: only the text goes");
        assert_eq!(body[1]["notes"][0]["body"], "a member's reply");
    }

    #[test]
    fn the_project_comes_from_the_object_or_the_path() {
        assert_eq!(
            project_of_path("/projects/acme%2Fapi/issues/3/notes").as_deref(),
            Some("acme%2Fapi")
        );
        assert_eq!(project_of_path("/groups/acme/issues"), None);
        // Outside any project (a personal snippet): nothing is screened.
        let body = json!({"title": "t", "author": {"id": 9, "username": "x"}});
        let mut found = Vec::new();
        collect(&body, None, &mut found);
        assert!(found.is_empty());
    }
}

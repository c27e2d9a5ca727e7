//! An action's `http`, `"METHOD /path/{placeholder}/..."`: the method, and
//! the path split into literal text and placeholders. The placeholders
//! are the action's path parameters.

/// The methods GitLab's REST API uses (the runtime's `Method` variants).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Method {
    Get,
    Post,
    Put,
    Patch,
    Delete,
}

/// A piece of a path template.
#[derive(Debug, PartialEq, Eq)]
pub enum Piece<'a> {
    Literal(&'a str),
    Placeholder(&'a str),
}

/// An `http` taken apart.
pub struct Http<'a> {
    pub method: Method,
    /// `/projects/{project_id}/issues`
    pub template: &'a str,
    pub pieces: Vec<Piece<'a>>,
}

impl Http<'_> {
    /// What an `http` that cannot be read is checked against: no
    /// placeholder.
    pub fn unreadable() -> Http<'static> {
        Http {
            method: Method::Get,
            template: "",
            pieces: Vec::new(),
        }
    }

    /// What a GraphQL action's parameters are placed by: no placeholder,
    /// and the body of a POST (they are sent as variables).
    pub fn graphql() -> Http<'static> {
        Http {
            method: Method::Post,
            template: "",
            pieces: Vec::new(),
        }
    }

    pub fn placeholders(&self) -> impl Iterator<Item = &str> {
        self.pieces.iter().filter_map(|piece| match piece {
            Piece::Placeholder(name) => Some(*name),
            Piece::Literal(_) => None,
        })
    }

    pub fn has_placeholder(&self, name: &str) -> bool {
        self.placeholders().any(|p| p == name)
    }
}

/// `http` taken apart, or what is wrong with it.
pub fn parse(http: &str) -> Result<Http<'_>, String> {
    let Some((method, template)) = http.split_once(' ') else {
        return Err(format!("`{http}` is not \"METHOD /path\""));
    };
    let method = match method {
        "GET" => Method::Get,
        "POST" => Method::Post,
        "PUT" => Method::Put,
        "PATCH" => Method::Patch,
        "DELETE" => Method::Delete,
        other => {
            return Err(format!(
                "unsupported HTTP method {other} (GET, POST, PUT, PATCH or DELETE)"
            ));
        }
    };
    let mut pieces = Vec::new();
    let mut rest = template;
    while let Some(open) = rest.find('{') {
        let Some(close) = rest[open..].find('}').map(|c| c + open) else {
            return Err(format!("unclosed placeholder in {template}"));
        };
        if open > 0 {
            pieces.push(Piece::Literal(&rest[..open]));
        }
        pieces.push(Piece::Placeholder(&rest[open + 1..close]));
        rest = &rest[close + 1..];
    }
    if !rest.is_empty() {
        pieces.push(Piece::Literal(rest));
    }
    Ok(Http {
        method,
        template,
        pieces,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_template_splits_at_its_placeholders() {
        let http = parse("GET /projects/{project_id}/issues/{issue_iid}").unwrap();
        assert_eq!(http.method, Method::Get);
        assert_eq!(
            http.pieces,
            [
                Piece::Literal("/projects/"),
                Piece::Placeholder("project_id"),
                Piece::Literal("/issues/"),
                Piece::Placeholder("issue_iid"),
            ]
        );
    }

    #[test]
    fn a_malformed_http_is_refused_with_the_reason() {
        assert_eq!(
            parse("/projects").err().unwrap(),
            "`/projects` is not \"METHOD /path\""
        );
        assert_eq!(
            parse("HEAD /projects").err().unwrap(),
            "unsupported HTTP method HEAD (GET, POST, PUT, PATCH or DELETE)"
        );
        assert_eq!(
            parse("GET /projects/{id").err().unwrap(),
            "unclosed placeholder in /projects/{id"
        );
    }
}

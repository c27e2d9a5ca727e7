//! GitLab's global IDs (`gid://gitlab/<Model>/<id>`) and the scalars of its
//! schema that carry them, one per model. Each accepts only its model's
//! IDs (and its subclasses', as `LabelID` takes `ProjectLabel` and
//! `GroupLabel`), and refuses others with graphql-ruby's words
//! (app/graphql/types/global_id_type.rb): `"x" is not a valid Global ID`,
//! `"gid://gitlab/User/1" does not represent an instance of WorkItem`.

use async_graphql::{InputValueError, InputValueResult, Scalar, ScalarType, Value};

/// `gid://gitlab/<model>/<id>`.
pub fn gid(model: &str, id: impl std::fmt::Display) -> String {
    format!("gid://gitlab/{model}/{id}")
}

/// The model and id of a global ID.
fn split(text: &str) -> Option<(&str, &str)> {
    let rest = text.strip_prefix("gid://gitlab/")?;
    let (model, id) = rest.rsplit_once('/')?;
    (!model.is_empty() && !id.is_empty()).then_some((model, id))
}

/// Parse `value` as a global ID of one of `models` (the first is the one
/// named in the refusal).
fn parse(value: &Value, models: &[&str]) -> Result<(String, String), String> {
    let Value::String(text) = value else {
        return Err(format!("{value} is not a valid Global ID"));
    };
    let (model, id) = split(text).ok_or_else(|| format!("\"{text}\" is not a valid Global ID"))?;
    if !models.contains(&model) {
        return Err(format!(
            "\"{text}\" does not represent an instance of {}",
            models[0]
        ));
    }
    Ok((model.to_string(), id.to_string()))
}

macro_rules! global_id {
    ($(#[$doc:meta])* $ty:ident, $name:literal, [$($model:literal),+]) => {
        $(#[$doc])*
        #[derive(Debug, Clone, PartialEq, Eq)]
        pub struct $ty {
            pub model: String,
            pub id: String,
        }

        // Each scalar gets the same constructors; not all are used.
        #[allow(dead_code)]
        impl $ty {
            /// The ID of the scalar's (first) model.
            pub fn new(id: impl std::fmt::Display) -> Self {
                Self::of([$($model),+][0], id)
            }

            pub fn of(model: &str, id: impl std::fmt::Display) -> Self {
                $ty { model: model.to_string(), id: id.to_string() }
            }

            /// The id as a number (the fake's ids are).
            pub fn number(&self) -> Option<u64> {
                self.id.parse().ok()
            }
        }

        #[Scalar(name = $name)]
        impl ScalarType for $ty {
            fn parse(value: Value) -> InputValueResult<Self> {
                parse(&value, &[$($model),+])
                    .map(|(model, id)| $ty { model, id })
                    .map_err(InputValueError::custom)
            }

            fn to_value(&self) -> Value {
                Value::String(gid(&self.model, &self.id))
            }
        }
    };
}

global_id!(WorkItemId, "WorkItemID", ["WorkItem"]);
global_id!(WorkItemsTypeId, "WorkItemsTypeID", ["WorkItems::Type"]);
global_id!(UserId, "UserID", ["User"]);
global_id!(LabelId, "LabelID", ["Label", "ProjectLabel", "GroupLabel"]);
global_id!(MilestoneId, "MilestoneID", ["Milestone"]);
global_id!(NoteId, "NoteID", ["Note", "DiscussionNote", "DiffNote"]);
global_id!(
    /// A thread's id: the notes' shared 40-hex `discussion_id`.
    DiscussionId,
    "DiscussionID",
    ["Discussion"]
);
global_id!(
    /// What a note is on; work items and issues are the same rows.
    NoteableId,
    "NoteableID",
    ["WorkItem", "Issue"]
);

macro_rules! text_scalar {
    ($(#[$doc:meta])* $ty:ident, $name:literal) => {
        $(#[$doc])*
        #[derive(Debug, Clone, PartialEq, Eq)]
        pub struct $ty(pub String);

        #[Scalar(name = $name)]
        impl ScalarType for $ty {
            fn parse(value: Value) -> InputValueResult<Self> {
                match value {
                    Value::String(s) => Ok($ty(s)),
                    other => Err(InputValueError::expected_type(other)),
                }
            }

            fn to_value(&self) -> Value {
                Value::String(self.0.clone())
            }
        }
    };
}

text_scalar!(
    /// An ISO 8601 timestamp.
    Time,
    "Time"
);
text_scalar!(
    /// An ISO 8601 date (`2026-03-20`).
    Date,
    "Date"
);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_global_id_of_another_model_is_refused_in_graphql_rubys_words() {
        let user = Value::String("gid://gitlab/User/1".into());
        assert_eq!(
            parse(&user, &["WorkItem"]),
            Err("\"gid://gitlab/User/1\" does not represent an instance of WorkItem".into())
        );
        let junk = Value::String("42".into());
        assert_eq!(
            parse(&junk, &["WorkItem"]),
            Err("\"42\" is not a valid Global ID".into())
        );
        let label = Value::String("gid://gitlab/ProjectLabel/501".into());
        assert_eq!(
            parse(&label, &["Label", "ProjectLabel", "GroupLabel"]),
            Ok(("ProjectLabel".into(), "501".into()))
        );
    }
}

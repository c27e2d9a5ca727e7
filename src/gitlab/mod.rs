//! Talking to GitLab: the request a validated call becomes (`request`,
//! pure), where it goes and as whom (`target`), sending it (`client`, the
//! only user of reqwest), and what came back (`response`, `error`); and
//! what GitLab says a token may do (`token_scopes`).

pub mod client;
pub mod error;
pub mod graphql;
pub mod oauth;
pub mod request;
pub mod response;
pub mod target;
pub mod token_scopes;

pub use client::{BodyStream, Client, ClientSettings, Failed, MAX_BODY, Retry, TlsSettings};
pub use error::{GitLabError, GraphqlError, GraphqlFailure, NetworkKind, StatusError};
pub use request::{Body, Endpoint, HttpRequest};
pub use response::{Pagination, Response};
pub use target::{AuthScheme, Credentials, Target, UrlError, api_root};
pub use token_scopes::{ScopesUnknown, TokenFacts, token_scopes};

//! Talking to GitLab: the request a validated call becomes (`request`, pure),
//! sending it (`client`, the only user of reqwest), and what came back
//! (`response`, `error`).

pub mod client;
pub mod error;
pub mod request;
pub mod response;

pub use client::{Client, Failed};
pub use error::{GitLabError, NetworkKind, StatusError};
pub use request::{Body, HttpRequest, plan};
pub use response::{Pagination, Response};

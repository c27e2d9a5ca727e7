//! The fake GitLab's own tests, in one binary.

mod ci;
mod draft_notes;
mod faults;
mod graphql;
mod oauth;
mod positions;
mod sandbox;
mod tls;

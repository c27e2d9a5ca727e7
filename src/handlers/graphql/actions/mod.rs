//! GraphQL actions that need Rust beyond the catalog's document and
//! variables: one file each, named by `handler = "<name>"` on a GraphQL
//! action. The build turns the names into `catalog::GraphqlHandler`, which
//! `handlers::graphql::run` matches exhaustively.

pub mod schema;

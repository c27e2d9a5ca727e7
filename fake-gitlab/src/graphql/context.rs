//! What every resolver reads from the request: the fake's state, who is
//! calling, and GitLab's answer when something is missing or forbidden.

use async_graphql::{Context, Error};

use crate::auth::Auth;
use crate::db::Db;
use crate::{App, lock};

/// GitLab's top-level error for an object that is missing or that the
/// caller may not see or change: the same words either way, so nothing
/// leaks (app/graphql/mutations/base_mutation.rb,
/// Gitlab::Graphql::Authorize::AuthorizeResource::RESOURCE_ACCESS_ERROR).
pub const NOT_AVAILABLE: &str = "The resource that you are attempting to access does not exist or you don't have permission to perform this action";

/// Who sent the request (`None`: anonymous).
#[derive(Clone, Copy)]
pub struct Caller(pub Option<Auth>);

pub fn not_available() -> Error {
    Error::new(NOT_AVAILABLE)
}

pub fn caller(ctx: &Context<'_>) -> Option<Auth> {
    ctx.data_unchecked::<Caller>().0
}

/// Read the fake's data; the lock is never held across an await.
pub fn read<T>(ctx: &Context<'_>, f: impl FnOnce(&Db) -> T) -> T {
    f(&lock(&ctx.data_unchecked::<App>().db))
}

/// Change the fake's data.
pub fn write<T>(ctx: &Context<'_>, f: impl FnOnce(&mut Db) -> T) -> T {
    f(&mut lock(&ctx.data_unchecked::<App>().db))
}

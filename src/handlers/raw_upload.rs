//! `raw_upload`: a generic package file
//! (https://docs.gitlab.com/user/packages/generic_packages/) is the whole
//! request body, not a JSON field: `content` and `encoding` (text or
//! base64) become the raw bytes; bad base64 is refused before anything is
//! sent.

use serde_json::Value;

use super::upload::content_bytes;
use crate::catalog::RestRoute;
use crate::dispatch::ValidatedCall;
use crate::gitlab::{Body, HttpRequest, request};

/// The catalog's request with the file's bytes as its body.
pub fn request(call: &ValidatedCall, route: &RestRoute) -> Result<HttpRequest, String> {
    let mut request = request::build(call, route);
    let mut fields = match request.body.take() {
        Some(Body::Json(Value::Object(fields))) => fields,
        _ => Default::default(),
    };
    request.body = Some(Body::Raw(content_bytes(&mut fields)?));
    Ok(request)
}

//! `upload`: a Markdown upload (https://docs.gitlab.com/api/project_markdown_uploads/)
//! sends the file as `multipart/form-data`, built from `file_name`,
//! `content` and `encoding` (text or base64); bad base64 is refused before
//! anything is sent.

use serde_json::{Map, Value};

use crate::catalog::RestRoute;
use crate::dispatch::ValidatedCall;
use crate::encoding::decode_base64;
use crate::gitlab::{Body, HttpRequest, request};

/// The catalog's request with a multipart file as its body.
pub fn request(call: &ValidatedCall, route: &RestRoute) -> Result<HttpRequest, String> {
    let mut request = request::build(call, route);
    let mut fields = match request.body.take() {
        Some(Body::Json(Value::Object(fields))) => fields,
        _ => Default::default(),
    };
    let bytes = content_bytes(&mut fields)?;
    request.body = Some(Body::File {
        field: "file",
        file_name: take_text(&mut fields, "file_name"),
        bytes,
    });
    Ok(request)
}

/// The bytes `content` holds, read as `encoding` says (text or base64).
pub(super) fn content_bytes(fields: &mut Map<String, Value>) -> Result<Vec<u8>, String> {
    let content = take_text(fields, "content");
    match take_text(fields, "encoding").as_str() {
        "base64" => decode_base64(&content).ok_or_else(|| {
            "`content` is not valid base64 (with `encoding: base64`); send text with `encoding: text`".to_string()
        }),
        _ => Ok(content.into_bytes()),
    }
}

fn take_text(fields: &mut Map<String, Value>, name: &str) -> String {
    match fields.remove(name) {
        Some(Value::String(s)) => s,
        _ => String::new(),
    }
}

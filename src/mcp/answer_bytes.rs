//! The bytes of an answer the server writes itself (`stdio_direct.rs`,
//! `direct_call.rs`): serde_json's, with a tool result's text written by
//! `json_string`.
//!
//! An answer's text is GitLab's JSON again, a quote every few bytes, and
//! serde_json's escaping of it was the largest cost of writing the answer
//! (BENCHMARKS.md). The message is serialized with that text taken out
//! (an empty string), and the text is written where the empty string is.
//! Only a place that cannot be anything else is used: a `"text":""` that
//! occurs exactly once (a JSON string cannot hold an unescaped quote, so
//! each occurrence is a key and its value); any other answer is
//! serde_json's alone. The tests compare both ways byte for byte.

use rmcp::model::{ContentBlock, JsonRpcMessage, ServerJsonRpcMessage, ServerResult};

use crate::json_string;

const EMPTY_TEXT: &[u8] = br#""text":"""#;

/// `message` as JSON, without a line break.
pub fn answer_bytes(mut message: ServerJsonRpcMessage) -> Vec<u8> {
    let Some(text) = take_text(&mut message) else {
        return serde_json::to_vec(&message).expect("an rmcp message serializes");
    };
    let frame = serde_json::to_vec(&message).expect("an rmcp message serializes");
    // The only place: the first is the last.
    let first = memchr::memmem::find(&frame, EMPTY_TEXT);
    let Some(at) = first.filter(|_| first == memchr::memmem::rfind(&frame, EMPTY_TEXT)) else {
        put_text(&mut message, text);
        return serde_json::to_vec(&message).expect("an rmcp message serializes");
    };
    // The value's two quotes are where `json_string` writes its own.
    let value = at + EMPTY_TEXT.len() - 2;
    let mut out = Vec::with_capacity(frame.len() + text.len() + text.len() / 4 + 16);
    out.extend_from_slice(&frame[..value]);
    json_string::write(&mut out, &text);
    out.extend_from_slice(&frame[value + 2..]);
    out
}

/// The text of a tool result with one text block, taken out.
fn take_text(message: &mut ServerJsonRpcMessage) -> Option<String> {
    match text_of(message)? {
        text if text.is_empty() => None,
        text => Some(std::mem::take(text)),
    }
}

fn put_text(message: &mut ServerJsonRpcMessage, text: String) {
    if let Some(place) = text_of(message) {
        *place = text;
    }
}

fn text_of(message: &mut ServerJsonRpcMessage) -> Option<&mut String> {
    let JsonRpcMessage::Response(response) = message else {
        return None;
    };
    let ServerResult::CallToolResult(result) = &mut response.result else {
        return None;
    };
    match result.content.as_mut_slice() {
        [ContentBlock::Text(block)] => Some(&mut block.text),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use rmcp::model::{CallToolResult, ErrorData, RequestId, TextContent};
    use serde_json::json;

    use super::*;

    fn same(message: ServerJsonRpcMessage) {
        let expected = serde_json::to_vec(&message).unwrap();
        assert_eq!(
            String::from_utf8(answer_bytes(message)).unwrap(),
            String::from_utf8(expected).unwrap()
        );
    }

    fn answer(id: RequestId, result: CallToolResult) -> ServerJsonRpcMessage {
        ServerJsonRpcMessage::response(ServerResult::CallToolResult(result), id)
    }

    #[test]
    fn writes_what_serde_json_writes() {
        let issue = include_str!("../../benches/data/issue.json");
        let texts = [
            issue.to_string(),
            format!("⟦\n{issue}\n⟧\n[page 1 of 3]"),
            "\"text\":\"\" inside the text, and \\ \u{1} \u{2028}".to_string(),
            String::new(),
        ];
        for (i, text) in texts.iter().enumerate() {
            let ids = [
                RequestId::Number(i as i64),
                RequestId::String("\"text\":\"\"".into()),
            ];
            for id in ids {
                let block = || vec![ContentBlock::text(text.clone())];
                same(answer(id.clone(), CallToolResult::success(block())));
                same(answer(id.clone(), CallToolResult::error(block())));
                let mut legacy = ServerResult::CallToolResult(CallToolResult::success(block()));
                legacy.strip_result_type_for_legacy_peer();
                same(ServerJsonRpcMessage::response(legacy, id.clone()));
                // Where the text's place is not the only one: serde's alone.
                let mut structured = CallToolResult::success(block());
                structured.structured_content = Some(json!({"text": ""}));
                same(answer(id.clone(), structured));
                let mut annotated = TextContent::new(text.clone());
                annotated.meta = Some(Default::default());
                same(answer(
                    id.clone(),
                    CallToolResult::success(vec![ContentBlock::Text(annotated)]),
                ));
                same(answer(
                    id.clone(),
                    CallToolResult::success(vec![
                        ContentBlock::text("a"),
                        ContentBlock::text(text),
                    ]),
                ));
                same(ServerJsonRpcMessage::error(
                    ErrorData::invalid_params(text.clone(), None),
                    Some(id),
                ));
            }
        }
    }
}

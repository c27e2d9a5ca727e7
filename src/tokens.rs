//! Counting cl100k tokens, the unit the context budget is measured in.

/// The number of cl100k tokens of `text`, when built with `token-count`.
#[cfg(feature = "token-count")]
pub fn cl100k(text: &str) -> Option<usize> {
    let bpe = tiktoken_rs::cl100k_base().ok()?;
    Some(bpe.encode_with_special_tokens(text).len())
}

#[cfg(not(feature = "token-count"))]
pub fn cl100k(_text: &str) -> Option<usize> {
    None
}

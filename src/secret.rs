//! A secret value (a token, a client secret, a key) whose `Debug` never
//! shows it. A leaf: it depends on nothing of this crate.

use std::fmt;

#[derive(Clone, PartialEq, Eq)]
pub struct Secret(String);

impl Secret {
    pub fn new(value: impl Into<String>) -> Self {
        Secret(value.into())
    }

    /// The only way to read the value: where it must be sent or checked.
    pub fn expose(&self) -> &str {
        &self.0
    }
}

impl fmt::Debug for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Secret(***)")
    }
}

#[cfg(test)]
mod tests {
    use super::Secret;

    #[test]
    fn secret_is_never_printed() {
        let s = Secret::new("glpat-abc");
        assert!(!format!("{s:?}").contains("glpat"));
    }
}

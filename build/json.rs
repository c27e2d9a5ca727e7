//! TOML values of the catalog (`default`, `fixed`, examples) as JSON text.
//!
//! Shared with `tests/it/build_json.rs` through `#[path]`, so the escaping is
//! tested: the text is embedded in the generated code and parsed with
//! serde_json at run time, so it must be JSON, never Rust's `Debug` form
//! (`"\u{1b}"` is not JSON).

/// The JSON text of a scalar or an array of scalars; tables and dates are
/// refused, since no catalog value needs them.
pub fn toml_to_json(value: &toml::Value) -> Result<String, String> {
    check(value)?;
    serde_json::to_string(value).map_err(|e| e.to_string())
}

fn check(value: &toml::Value) -> Result<(), String> {
    match value {
        toml::Value::String(_)
        | toml::Value::Integer(_)
        | toml::Value::Float(_)
        | toml::Value::Boolean(_) => Ok(()),
        toml::Value::Array(items) => items.iter().try_for_each(check),
        toml::Value::Datetime(d) => Err(format!("a date ({d}) must be written as a string")),
        toml::Value::Table(_) => Err("a table is not a value a parameter can have".into()),
    }
}

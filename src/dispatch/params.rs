//! The second stage: an action's parameters against its `ParamSpec`s.
//!
//! As strict as `deny_unknown_fields`, but every problem is collected: each
//! unknown key (with the name it probably meant), each missing required
//! parameter, each wrong type and each value outside an enum.

use serde_json::{Map, Number, Value};

use super::error::{ItemProblem, ParamProblem};
use super::{Arg, suggest, web_url};
use crate::catalog::{ActionSpec, ArrayStyle, FieldSpec, Location, ParamSpec, ParamType};
use crate::encoding::scalar_text;

pub fn validate(
    action: &'static ActionSpec,
    given: Map<String, Value>,
) -> Result<Vec<Arg>, Vec<ParamProblem>> {
    let mut problems = Vec::new();
    let mut slots: Vec<Option<Value>> = Vec::new();
    slots.resize_with(action.params.len(), || None);
    // The names given, for suggestions: only copied when one is unknown.
    let known = |key: &str| action.params.iter().any(|p| p.name == key);
    let given_names: Vec<String> = if given.keys().all(|key| known(key)) {
        Vec::new()
    } else {
        given.keys().cloned().collect()
    };

    for (key, value) in given {
        let Some(index) = action.params.iter().position(|p| p.name == key) else {
            let envelope_key = super::ENVELOPE_KEYS
                .iter()
                .any(|k| *k == key && !matches!(*k, "action" | "params"));
            problems.push(if envelope_key {
                ParamProblem::BesideAction { key }
            } else {
                ParamProblem::Unknown {
                    suggestion: suggest::suggest_param(&key, action, &given_names),
                    key,
                }
            });
            continue;
        };
        // Agents often fill optional parameters with null: that is "not
        // given", and a required one is then reported missing below.
        if value.is_null() {
            continue;
        }
        let spec = &action.params[index];
        // `#42` where an issue iid is expected: GitLab's own reference.
        let value = match (&spec.ty, &value) {
            (ParamType::Integer, Value::String(text)) => {
                match web_url::reference_number(spec.name, text) {
                    Some(n) => Value::from(n),
                    None => value,
                }
            }
            _ => value,
        };
        let checked = coerce(spec, value).and_then(|value| match check_value(spec, &value) {
            Some(problem) => Err(problem),
            None => Ok(value),
        });
        match checked {
            Ok(value) if spec.fields.is_empty() => slots[index] = Some(value),
            Ok(value) => match check_items(spec, value) {
                Ok(value) => slots[index] = Some(value),
                Err(item_problems) => problems.extend(item_problems),
            },
            Err(problem) => problems.push(problem),
        }
    }

    for (spec, slot) in action.params.iter().zip(&slots) {
        let given_but_invalid = problems.iter().any(|p| p.param() == Some(spec.name));
        if spec.required && slot.is_none() && !given_but_invalid {
            problems.push(ParamProblem::Missing { name: spec.name });
        }
    }
    for group in action.one_of {
        let any_given = action
            .params
            .iter()
            .zip(&slots)
            .any(|(spec, slot)| slot.is_some() && group.contains(&spec.name));
        if !any_given
            && !problems
                .iter()
                .any(|p| p.param().is_some_and(|n| group.contains(&n)))
        {
            problems.push(ParamProblem::OneOf { names: group });
        }
    }

    if !problems.is_empty() {
        return Err(problems);
    }
    Ok(action
        .params
        .iter()
        .zip(slots)
        .filter_map(|(spec, slot)| slot.map(|value| Arg { spec, value }))
        .collect())
}

/// Apply the unambiguous coercions, or say which type was expected.
fn coerce(spec: &'static ParamSpec, value: Value) -> Result<Value, ParamProblem> {
    let wrong = |value: &Value| ParamProblem::WrongType {
        name: spec.name,
        expected: expected_type(spec),
        got: describe(value),
    };
    match (spec.ty, value) {
        (ParamType::Array, Value::Array(items)) => {
            let item_ty = spec.items.unwrap_or(ParamType::String);
            let mut out = Vec::with_capacity(items.len());
            for item in items {
                match coerce_scalar(item_ty, item) {
                    Ok(v) => out.push(v),
                    Err(item) => return Err(wrong(&item)),
                }
            }
            Ok(Value::Array(out))
        }
        // A comma-separated string, or a single value, where a list is taken.
        (ParamType::Array, Value::String(text)) => {
            let item_ty = spec.items.unwrap_or(ParamType::String);
            let mut out = Vec::new();
            for part in text.split(',').map(str::trim).filter(|p| !p.is_empty()) {
                match coerce_scalar(item_ty, Value::String(part.to_string())) {
                    Ok(v) => out.push(v),
                    Err(_) => return Err(wrong(&Value::String(text.clone()))),
                }
            }
            Ok(Value::Array(out))
        }
        (ParamType::Array, scalar @ Value::Number(_)) => {
            let item_ty = spec.items.unwrap_or(ParamType::String);
            coerce_scalar(item_ty, scalar)
                .map(|v| Value::Array(vec![v]))
                .map_err(|v| wrong(&v))
        }
        (ParamType::Object, Value::Object(map)) => Ok(Value::Object(map)),
        (ParamType::Object, Value::String(text)) => match serde_json::from_str::<Value>(&text) {
            Ok(Value::Object(map)) => Ok(Value::Object(map)),
            _ => Err(wrong(&Value::String(text))),
        },
        (ty, value) => coerce_scalar(ty, value).map_err(|v| wrong(&v)),
    }
}

/// Coerce one scalar; on failure hand the value back for the message.
fn coerce_scalar(ty: ParamType, value: Value) -> Result<Value, Value> {
    match (ty, value) {
        (ParamType::String, Value::String(s)) => Ok(Value::String(s)),
        // A number where text is expected (`"project_id": 42`) is its digits.
        (ParamType::String, Value::Number(n)) => Ok(Value::String(n.to_string())),
        (ParamType::Integer, Value::Number(n)) => integer(&n).ok_or(Value::Number(n)),
        (ParamType::Integer, Value::String(s)) => match s.trim().parse::<i64>() {
            Ok(i) => Ok(Value::Number(i.into())),
            Err(_) => Err(Value::String(s)),
        },
        (ParamType::Number, Value::Number(n)) => Ok(Value::Number(n)),
        (ParamType::Number, Value::String(s)) => {
            match s.trim().parse::<f64>().ok().and_then(Number::from_f64) {
                Some(n) => Ok(Value::Number(n)),
                None => Err(Value::String(s)),
            }
        }
        (ParamType::Boolean, Value::Bool(b)) => Ok(Value::Bool(b)),
        (ParamType::Boolean, Value::String(s)) => match s.trim().to_ascii_lowercase().as_str() {
            "true" => Ok(Value::Bool(true)),
            "false" => Ok(Value::Bool(false)),
            _ => Err(Value::String(s)),
        },
        (ParamType::Object, Value::Object(m)) => Ok(Value::Object(m)),
        (_, other) => Err(other),
    }
}

/// `42`, `42.0` and `4.2e1` are the integer 42; `4.5` is not an integer.
fn integer(n: &Number) -> Option<Value> {
    if n.is_i64() || n.is_u64() {
        return Some(Value::Number(n.clone()));
    }
    let f = n.as_f64()?;
    (f.fract() == 0.0 && f.abs() < 9.0e15).then(|| Value::Number((f as i64).into()))
}

/// Checks on a well-typed value: enums, and path segments that could change
/// which endpoint is called.
fn check_value(spec: &'static ParamSpec, value: &Value) -> Option<ParamProblem> {
    if !spec.allowed.is_empty() {
        let values: Vec<&Value> = match value {
            Value::Array(items) => items.iter().collect(),
            other => vec![other],
        };
        for v in values {
            let text = scalar_text(v);
            if !spec.allowed.contains(&text.as_ref()) {
                return Some(ParamProblem::NotAllowed {
                    name: spec.name,
                    closest: closest_allowed(&text, spec.allowed),
                    allowed: spec.allowed,
                    value: text.into_owned(),
                });
            }
        }
    }
    if let (Some(format), Value::String(text)) = (spec.format, value)
        && let Some(expected) = format_problem(format, text)
    {
        return Some(ParamProblem::Format {
            name: spec.name,
            value: text.clone(),
            expected,
        });
    }
    if let Some(n) = value.as_i64() {
        let below = spec.minimum.is_some_and(|min| n < min);
        let above = spec.maximum.is_some_and(|max| n > max);
        if below || above {
            return Some(ParamProblem::OutOfRange {
                name: spec.name,
                value: n,
                minimum: spec.minimum,
                maximum: spec.maximum,
            });
        }
    }
    if spec.location == Location::Path {
        let text = scalar_text(value).into_owned();
        // A `segments` value becomes one segment per `/`-separated part, so
        // each part obeys the rule a whole value obeys otherwise.
        let parts: Vec<&str> = match spec.style {
            ArrayStyle::Segments => text.split('/').collect(),
            _ => vec![text.as_str()],
        };
        let reason = parts.iter().find_map(|part| match *part {
            "" if parts.len() > 1 => Some("it has an empty path segment"),
            "" => Some("it is empty"),
            "." | ".." => Some("`.` and `..` are not names GitLab can have here"),
            _ => None,
        });
        if let Some(reason) = reason {
            return Some(ParamProblem::BadPathValue {
                name: spec.name,
                value: text,
                reason,
            });
        }
    }
    None
}

/// Each object of an array parameter against the catalog's `fields`: every
/// problem, named with its index (`actions[1].file_path`).
fn check_items(spec: &'static ParamSpec, value: Value) -> Result<Value, Vec<ParamProblem>> {
    let Value::Array(items) = value else {
        return Ok(value);
    };
    let mut problems = Vec::new();
    let mut out = Vec::with_capacity(items.len());
    for (index, item) in items.into_iter().enumerate() {
        let problem = |field: Option<&str>, problem: ItemProblem| ParamProblem::Item {
            param: spec.name,
            index,
            field: field.map(str::to_string),
            problem,
        };
        let Value::Object(map) = item else {
            problems.push(problem(None, ItemProblem::NotAnObject));
            continue;
        };
        let mut checked = Map::new();
        for (key, field_value) in map {
            let Some(field) = spec.fields.iter().find(|f| f.name == key) else {
                let accepted: Vec<&'static str> = spec.fields.iter().map(|f| f.name).collect();
                let suggestion = suggest::suggest_among(&key, &accepted);
                problems.push(problem(
                    Some(&key),
                    ItemProblem::UnknownField {
                        suggestion,
                        accepted,
                    },
                ));
                continue;
            };
            if field_value.is_null() {
                continue;
            }
            match check_field(field, field_value) {
                Ok(v) => {
                    checked.insert(key, v);
                }
                Err(p) => problems.push(problem(Some(&key), p)),
            }
        }
        for field in spec.fields.iter().filter(|f| f.required) {
            if !checked.contains_key(field.name)
                && !problems
                    .iter()
                    .any(|p| p.is_about_field(spec.name, index, field.name))
            {
                problems.push(problem(Some(field.name), ItemProblem::Missing));
            }
        }
        out.push(Value::Object(checked));
    }
    if problems.is_empty() {
        Ok(Value::Array(out))
    } else {
        Err(problems)
    }
}

/// One field of an array element: its type and its allowed values.
fn check_field(field: &'static FieldSpec, value: Value) -> Result<Value, ItemProblem> {
    let v = coerce_scalar(field.ty, value).map_err(|got| ItemProblem::WrongType {
        expected: field.ty.as_str(),
        got: describe(&got),
    })?;
    let text = scalar_text(&v);
    if !field.allowed.is_empty() && !field.allowed.contains(&text.as_ref()) {
        return Err(ItemProblem::NotAllowed {
            closest: closest_allowed(&text, field.allowed),
            value: text.into_owned(),
            allowed: field.allowed,
        });
    }
    Ok(v)
}

/// What a string of this format should look like, when it does not.
fn format_problem(format: &str, text: &str) -> Option<&'static str> {
    match format {
        "date" if !is_date(text) => Some("a date, YYYY-MM-DD (such as 2026-01-31)"),
        "date-time" if !is_date_time(text) => {
            Some("an ISO 8601 time, such as 2026-01-31T12:00:00Z (or a date, YYYY-MM-DD)")
        }
        _ => None,
    }
}

/// `YYYY-MM-DD` with a real month and day.
fn is_date(text: &str) -> bool {
    let b = text.as_bytes();
    if b.len() != 10 || b[4] != b'-' || b[7] != b'-' {
        return false;
    }
    let digits = |r: std::ops::Range<usize>| {
        text.get(r)
            .filter(|s| s.bytes().all(|c| c.is_ascii_digit()))
            .and_then(|s| s.parse::<u32>().ok())
    };
    match (digits(0..4), digits(5..7), digits(8..10)) {
        (Some(_), Some(m), Some(d)) => (1..=12).contains(&m) && (1..=31).contains(&d),
        _ => false,
    }
}

/// ISO 8601 as GitLab reads it: a date, optionally `T` (or a space) and
/// `HH:MM[:SS[.fraction]]` and a zone (`Z`, `+HH:MM`, `+HHMM`).
fn is_date_time(text: &str) -> bool {
    // `get`: a character may straddle byte 10 (found by fuzzing).
    let (Some(date), Some(rest)) = (text.get(..10), text.get(10..)) else {
        return false;
    };
    if !is_date(date) {
        return false;
    }
    if rest.is_empty() {
        return true;
    }
    let Some(time) = rest.strip_prefix(['T', 't', ' ']) else {
        return false;
    };
    let zone_at = time.find(['Z', 'z', '+', '-']).unwrap_or(time.len());
    let (clock, zone) = time.split_at(zone_at);
    let clock_ok = {
        let (hms, fraction) = clock.split_once('.').unwrap_or((clock, "0"));
        let parts: Vec<&str> = hms.split(':').collect();
        (2..=3).contains(&parts.len())
            && parts
                .iter()
                .all(|p| p.len() == 2 && p.bytes().all(|c| c.is_ascii_digit()))
            && parts[0] < "24"
            && parts[1] < "60"
            && !fraction.is_empty()
            && fraction.bytes().all(|c| c.is_ascii_digit())
    };
    let zone_ok = match zone {
        "" | "Z" | "z" => true,
        z => {
            let digits: String = z[1..].chars().filter(|c| *c != ':').collect();
            digits.len() == 4 && digits.bytes().all(|c| c.is_ascii_digit())
        }
    };
    clock_ok && zone_ok
}

fn closest_allowed(given: &str, allowed: &'static [&'static str]) -> Option<&'static str> {
    if let Some(exact) = allowed.iter().find(|a| a.eq_ignore_ascii_case(given)) {
        return Some(exact);
    }
    let lower = given.to_ascii_lowercase();
    suggest::closest(given, allowed.iter().copied())
        .or_else(|| {
            // `open` for `opened`, `updated` for `updated_at`: a prefix is a
            // strong hint too.
            allowed
                .iter()
                .copied()
                .find(|a| !lower.is_empty() && a.starts_with(&lower))
        })
        .or_else(|| {
            // `failure` for `failed`: the same stem of four letters or more,
            // when only one value has it.
            let stem = |a: &str| {
                a.bytes()
                    .zip(lower.bytes())
                    .take_while(|(x, y)| x == y)
                    .count()
            };
            let mut close = allowed.iter().copied().filter(|a| stem(a) >= 4);
            match (close.next(), close.next()) {
                (Some(only), None) => Some(only),
                _ => None,
            }
        })
}

fn expected_type(spec: &ParamSpec) -> String {
    match (spec.ty, spec.items) {
        (ParamType::Array, Some(items)) => format!(
            "a list of {}s (or one comma-separated string)",
            items.as_str()
        ),
        (ParamType::Integer, _) => "an integer".into(),
        (ParamType::Object, _) => "an object".into(),
        (ty, _) => format!("a {}", ty.as_str()),
    }
}

/// A short description of a JSON value for an error message.
fn describe(value: &Value) -> String {
    let text = value.to_string();
    let short = if text.chars().count() > 40 {
        format!("{}…", text.chars().take(40).collect::<String>())
    } else {
        text
    };
    format!("{} {short}", json_kind(value))
}

pub fn json_kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(n) if n.is_f64() => "number",
        Value::Number(_) => "integer",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

#[cfg(test)]
mod tests {
    use super::{is_date, is_date_time};

    #[test]
    fn a_character_across_the_tenth_byte_is_no_date_time_and_no_panic() {
        // Found by the `request` fuzz target: `&text[..10]` panicked.
        assert!(!is_date_time("2024-01-0é1T00:00:00Z"));
        assert!(!is_date_time("2024-01-é"));
    }

    #[test]
    fn dates_and_times_as_gitlab_reads_them() {
        for ok in ["2026-01-31", "2026-12-01"] {
            assert!(is_date(ok), "{ok}");
        }
        for bad in ["next friday", "2026-13-01", "2026-1-31", "31/01/2026", ""] {
            assert!(!is_date(bad), "{bad}");
        }
        for ok in [
            "2026-01-31",
            "2026-01-31T12:00:00Z",
            "2026-01-31T12:00Z",
            "2026-01-31T12:00:00.123+02:00",
            "2026-01-31 12:00:00-0500",
        ] {
            assert!(is_date_time(ok), "{ok}");
        }
        for bad in [
            "yesterday",
            "2026-01-31T25:00:00Z",
            "2026-01-31T12",
            "2026-01-31T12:00:00+2",
        ] {
            assert!(!is_date_time(bad), "{bad}");
        }
    }
}

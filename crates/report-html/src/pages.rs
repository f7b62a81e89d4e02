//! The page of each command, from the command's JSON report (the format its `--format json`
//! prints, documented on its docs page) and the charts the command drew for it.

mod check;
mod compare;
mod rules;
mod run;
mod trace;

pub use check::check;
pub use compare::compare;
pub use rules::{RuleRow, rules};
pub use run::run;
pub use trace::{Finding, trace};

use serde_json::Value;

/// `value[key]` as text: a string as it is, `null` or absent as empty, else its JSON.
pub(crate) fn text(value: &Value, key: &str) -> String {
    match value.get(key) {
        None | Some(Value::Null) => String::new(),
        Some(Value::String(s)) => s.clone(),
        Some(other) => other.to_string(),
    }
}

/// `value[key]` as a list (empty when absent).
pub(crate) fn list<'a>(value: &'a Value, key: &str) -> &'a [Value] {
    value
        .get(key)
        .and_then(Value::as_array)
        .map_or(&[], Vec::as_slice)
}

//! Small JSON helpers shared by rules and readers: parsing without a fixed recursion limit (but
//! with a bounded depth), JSON-pointer escaping, and the kind of a value for messages.

use super::error::InputError;
use serde_json::Value;

/// The deepest nesting of arrays and objects the linter reads. Parsing, validating and
/// dropping a value recurse once per level; the CLI runs the linter on a stack sized for this
/// (16 MiB: the validator's frames made 10 000 levels need a gigabyte).
pub const MAX_DEPTH: usize = 1_000;

/// Escapes one JSON-pointer reference token (RFC 6901).
pub fn escape(token: &str) -> String {
    token.replace('~', "~0").replace('/', "~1")
}

/// "an object", "a string", ... for messages.
pub fn kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// Parses one JSON value without serde_json's fixed recursion limit of 128 levels (deep
/// schemas are valid JSON); [`depth`] has bounded the nesting before.
pub fn value(text: &str) -> Result<Value, serde_json::Error> {
    let mut deserializer = serde_json::Deserializer::from_str(text);
    deserializer.disable_recursion_limit();
    let value = serde::Deserialize::deserialize(&mut deserializer)?;
    deserializer.end()?;
    Ok(value)
}

/// Refuses text that nests arrays and objects deeper than [`MAX_DEPTH`], at the place where
/// it does.
pub fn depth(name: &str, text: &str) -> Result<(), InputError> {
    let (mut level, mut in_string, mut escaped) = (0usize, false, false);
    let (mut line, mut column) = (1usize, 0usize);
    for c in text.chars() {
        column += 1;
        match c {
            '\n' => (line, column) = (line + 1, 0),
            _ if in_string => (in_string, escaped) = (escaped || c != '"', !escaped && c == '\\'),
            '"' => in_string = true,
            '{' | '[' => level += 1,
            '}' | ']' => level = level.saturating_sub(1),
            _ => {}
        }
        if level > MAX_DEPTH {
            let message = format!("arrays and objects nest deeper than {MAX_DEPTH} levels");
            return Err(InputError::new(format!("{name}:{line}:{column}"), message)
                .with_help("no tool schema needs that depth; it is refused rather than read"));
        }
    }
    Ok(())
}

//! Lint inputs read from files: a `tools/list` result (bare or inside a JSON-RPC response), a
//! JSON array of tools, or a recorded session (JSON lines of JSON-RPC messages, optionally
//! wrapped in an object with a `message` field). Each becomes a [`ToolSet`].

use super::error::{InputError, SHAPES, json_error};
use super::json::{depth, kind, value};
use super::toolset::{Era, ToolSet};
use serde_json::Value;

/// Reads a lint input from the text of file `name` (a UTF-8 byte-order mark is skipped).
pub fn parse(name: &str, text: &str) -> Result<ToolSet, InputError> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    if text.trim().is_empty() {
        return Err(InputError::new(name, "the file is empty").with_help(SHAPES));
    }
    depth(name, text)?;
    match value(text) {
        Ok(value) => from_document(name, &value),
        Err(error) if looks_like_json_lines(text) && error.line() > 1 => {
            super::session::parse(name, text)
        }
        Err(error) => Err(json_error(name, &error)),
    }
}

/// Whether the first non-empty line is a complete JSON value on its own.
fn looks_like_json_lines(text: &str) -> bool {
    let first = text.lines().find(|line| !line.trim().is_empty());
    first.is_some_and(|line| serde_json::from_str::<Value>(line).is_ok())
}

fn from_document(name: &str, value: &Value) -> Result<ToolSet, InputError> {
    let (base, tools) = match value {
        Value::Array(tools) => ("", tools),
        Value::Object(map) => match (
            map.get("tools"),
            map.get("result").and_then(|r| r.get("tools")),
        ) {
            (Some(Value::Array(tools)), _) => ("/tools", tools),
            (None, Some(Value::Array(tools))) => ("/result/tools", tools),
            (Some(_), _) => return Err(shape_error(name, "/tools", "`tools` is not an array")),
            (None, Some(_)) => {
                return Err(shape_error(
                    name,
                    "/result/tools",
                    "`tools` is not an array",
                ));
            }
            (None, None) => return Err(shape_error(name, "", "the object has no `tools` array")),
        },
        other => {
            return Err(shape_error(
                name,
                "",
                &format!("the document is {}", kind(other)),
            ));
        }
    };
    let mut set = ToolSet::from_values(name, name, base, tools);
    if let Some(version) = value
        .pointer("/result/_meta/io.modelcontextprotocol~1protocolVersion")
        .and_then(Value::as_str)
    {
        set.protocol_version = Some(version.into());
    }
    if value.pointer("/result/resultType").is_some() || value.get("resultType").is_some() {
        set.era = Some(Era::Modern);
    }
    Ok(set)
}

fn shape_error(name: &str, pointer: &str, what: &str) -> InputError {
    let at = if pointer.is_empty() {
        String::new()
    } else {
        format!(" (at {pointer})")
    };
    InputError::new(name, format!("wrong shape: {what}{at}")).with_help(SHAPES)
}

//! Lint inputs read from files: a `tools/list` result (bare or inside a JSON-RPC response), a
//! JSON array of tools, or a recorded session (JSON lines of JSON-RPC messages, optionally
//! wrapped in an object with a `message` field). Each becomes a [`ToolSet`].

use super::context::Finding;
use serde_json::Value;
use std::fmt;

/// The protocol era a listing came from, when known.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Era {
    /// 2025-11-25 and earlier: `initialize` handshake, stateful.
    Legacy,
    /// 2026-07-28 and later: `server/discover`, stateless.
    Modern,
}

impl Era {
    pub fn as_str(self) -> &'static str {
        match self {
            Era::Legacy => "legacy",
            Era::Modern => "modern",
        }
    }
}

/// One tool definition and where it came from.
#[derive(Clone, Debug)]
pub struct Tool {
    /// Position in the listing.
    pub index: usize,
    pub name: Option<String>,
    pub value: Value,
    /// The document findings point into (a file name, or `file:LINE` for a session line).
    pub document: String,
    /// The JSON pointer of this tool inside `document`.
    pub base: String,
}

/// A `tools/call` seen in a recorded session, with its result.
#[derive(Clone, Debug)]
pub struct RecordedCall {
    pub tool: String,
    pub result: Value,
    /// Where the result is: document and pointer of the `result` object.
    pub document: String,
    pub pointer: String,
}

/// Everything the linter checks.
#[derive(Clone, Debug, Default)]
pub struct ToolSet {
    /// What was linted, for the report header: a file name or a server command/URL.
    pub origin: String,
    /// The document that whole-listing findings point into.
    pub document: String,
    pub era: Option<Era>,
    pub protocol_version: Option<String>,
    pub tools: Vec<Tool>,
    pub calls: Vec<RecordedCall>,
    /// Findings made while reading the input (stdout noise, cursor loops).
    pub findings: Vec<Finding>,
}

impl ToolSet {
    /// A set from a JSON array of tool values at `base` (such as `/tools`) in `document`.
    pub fn from_values(origin: &str, document: &str, base: &str, tools: &[Value]) -> ToolSet {
        let mut set = ToolSet {
            origin: origin.into(),
            document: document.into(),
            ..ToolSet::default()
        };
        set.push_tools(document, base, tools);
        set
    }

    pub fn push_tools(&mut self, document: &str, base: &str, tools: &[Value]) {
        for (offset, value) in tools.iter().enumerate() {
            let index = self.tools.len();
            let name = value.get("name").and_then(Value::as_str).map(str::to_owned);
            let base = format!("{base}/{offset}");
            self.tools.push(Tool {
                index,
                name,
                value: value.clone(),
                document: document.into(),
                base,
            });
        }
    }
}

/// Why an input could not be read. Rendered by the CLI; exit status 2.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InputError {
    /// `FILE`, `FILE:LINE:COL`, or a server description.
    pub place: String,
    pub message: String,
    pub help: Option<String>,
}

impl InputError {
    pub fn new(place: impl Into<String>, message: impl Into<String>) -> InputError {
        InputError {
            place: place.into(),
            message: message.into(),
            help: None,
        }
    }

    pub fn with_help(mut self, help: impl Into<String>) -> InputError {
        self.help = Some(help.into());
        self
    }
}

impl fmt::Display for InputError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.place, self.message)
    }
}

const SHAPES: &str = "expected a tools/list result ({\"tools\": [...]}), a JSON-RPC response carrying one, a JSON array of tools, or a recorded session (JSON lines)";

/// Reads a lint input from the text of file `name`.
pub fn parse(name: &str, text: &str) -> Result<ToolSet, InputError> {
    if text.trim().is_empty() {
        return Err(InputError::new(name, "the file is empty").with_help(SHAPES));
    }
    match serde_json::from_str::<Value>(text) {
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

pub fn json_error(name: &str, error: &serde_json::Error) -> InputError {
    // serde_json counts the column of an error at the start of a line as 0.
    let place = format!("{name}:{}:{}", error.line(), error.column().max(1));
    InputError::new(place, format!("not valid JSON: {error}")).with_help(SHAPES)
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

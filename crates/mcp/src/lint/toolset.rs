//! What the linter checks: a [`ToolSet`] of tool definitions (each with the document and JSON
//! pointer it came from), the recorded calls of a session, and findings made while reading.

use super::finding::Finding;
use serde_json::Value;

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

//! What the first run learned of the server, for the runs after it: its era and version,
//! what it declared, and what it lists (tools with their schemas and annotations, resources,
//! prompts). Learned from answers the walk waited for, so it is the same for a given server
//! whatever its timing.

use crate::walk::Walk;
use serde_json::Value;

/// The lists a server may declare: method, capability, key of the items.
pub const LISTS: [(&str, &str, &str); 4] = [
    ("tools/list", "tools", "tools"),
    ("resources/list", "resources", "resources"),
    ("resources/templates/list", "resources", "resourceTemplates"),
    ("prompts/list", "prompts", "prompts"),
];

/// What the first run learned.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Knowledge {
    pub modern: bool,
    pub version: String,
    /// `serverInfo.name`, when the server gave one.
    pub server: Option<String>,
    pub capabilities: Value,
    pub tools: Vec<Value>,
    pub resources: Vec<Value>,
    pub prompts: Vec<Value>,
    /// The server answered `server/discover` with an error: a legacy client may probe first.
    pub refuses_discover: bool,
}

impl Knowledge {
    /// Whether the server declared capability `name`.
    pub fn declared(&self, name: &str) -> bool {
        self.capabilities
            .get(name)
            .is_some_and(|v| !v.is_null() && *v != Value::Bool(false))
    }

    /// The list methods the server declared.
    pub fn lists(&self) -> Vec<&'static str> {
        LISTS
            .iter()
            .filter(|(_, cap, _)| self.declared(cap))
            .map(|(method, _, _)| *method)
            .collect()
    }

    /// The tools the client may call: read-only ones, or all with `--allow-writes`; in the
    /// modern era none whose `x-mcp-header` annotations are invalid (T9: an HTTP client must
    /// drop such a tool, and the tester calls the same tools over either transport).
    pub fn callable(&self, allow_writes: bool) -> Vec<&Value> {
        self.tools
            .iter()
            .filter(|t| allow_writes || read_only(t))
            .filter(|t| !self.modern || !headers_invalid(t))
            .filter(|t| task_support(t) != "required")
            .collect()
    }

    /// The tools the client may call with a task (T8: the server declared
    /// `tasks.requests.tools.call` and the tool's `execution.taskSupport` is `optional` or
    /// `required`; a `required` one is called with a task only), under the same guard
    /// against writes.
    pub fn task_callable(&self, allow_writes: bool) -> Vec<&Value> {
        let declared = self.capabilities.pointer("/tasks/requests/tools/call");
        if self.modern || declared.is_none_or(Value::is_null) {
            return Vec::new();
        }
        self.tools
            .iter()
            .filter(|t| allow_writes || read_only(t))
            .filter(|t| matches!(task_support(t), "optional" | "required"))
            .collect()
    }

    /// The tools left uncalled because they may write, by name.
    pub fn withheld(&self, allow_writes: bool) -> Vec<String> {
        if allow_writes {
            return Vec::new();
        }
        self.tools
            .iter()
            .filter(|t| !read_only(t))
            .filter_map(|t| t.get("name").and_then(Value::as_str).map(String::from))
            .collect()
    }

    /// Learns from the first run's walk.
    pub fn learn(
        &mut self,
        walk: &Walk,
        tools: Vec<Value>,
        resources: Vec<Value>,
        prompts: Vec<Value>,
    ) {
        self.capabilities = walk.capabilities.clone();
        self.tools = tools;
        self.resources = resources;
        self.prompts = prompts;
        let opened = walk
            .result_of("initialize")
            .or_else(|| walk.result_of("server/discover"));
        let name = opened.and_then(|r| {
            r.pointer("/serverInfo/name")
                .or_else(|| r.pointer("/_meta/io.modelcontextprotocol~1serverInfo/name"))
        });
        self.server = name.and_then(Value::as_str).map(String::from);
        if let Some(v) = opened
            .and_then(|r| r.get("protocolVersion"))
            .and_then(Value::as_str)
        {
            self.version = v.to_string();
        }
    }
}

/// A tool the server marks read-only and not destructive (hints absent mean the worst: a
/// tool may write unless it says it does not).
fn read_only(tool: &Value) -> bool {
    let hint = |k: &str| {
        tool.pointer(&format!("/annotations/{k}"))
            .and_then(Value::as_bool)
    };
    hint("readOnlyHint") == Some(true) && hint("destructiveHint") != Some(true)
}

/// A tool's `execution.taskSupport` (absent: `forbidden`).
fn task_support(tool: &Value) -> &str {
    let support = tool
        .pointer("/execution/taskSupport")
        .and_then(Value::as_str);
    support.unwrap_or("forbidden")
}

/// Whether a tool's `x-mcp-header` annotations are invalid (T9).
fn headers_invalid(tool: &Value) -> bool {
    let schema = tool.get("inputSchema").unwrap_or(&Value::Null);
    agentpi_mcp::headers::invalid(schema).is_some()
}

#[cfg(test)]
mod tests {
    use super::Knowledge;
    use serde_json::json;

    /// A modern client drops a tool whose `x-mcp-header` annotation is invalid (T9).
    #[test]
    fn a_tool_with_an_invalid_header_annotation_is_not_called_in_the_modern_era() {
        let tool = |name: &str, kind: &str| {
            json!({"name": name, "annotations": {"readOnlyHint": true},
                "inputSchema": {"type": "object",
                    "properties": {"p": {"type": kind, "x-mcp-header": "P"}}}})
        };
        let mut know = Knowledge {
            tools: vec![tool("good", "string"), tool("bad", "number")],
            ..Knowledge::default()
        };
        let names = |k: &Knowledge| -> Vec<String> {
            k.callable(false)
                .iter()
                .map(|t| t["name"].to_string())
                .collect()
        };
        assert_eq!(names(&know), ["\"good\"", "\"bad\""]);
        know.modern = true;
        assert_eq!(names(&know), ["\"good\""]);
    }
}

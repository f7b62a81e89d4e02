//! `--profile openai`: OA01 name pattern, OA02 at most 128 tools, OA03 explicit hints, OA04
//! arrays without `items`, OA05 combinators at the schema root, OA06 descriptions over 1,024
//! characters.

use super::simple_name;
use crate::lint::context::{Context, label};
use crate::lint::schema;
use crate::lint::toolset::Tool;
use serde_json::Value;

const MAX_TOOLS: usize = 128;
const MAX_DESCRIPTION: usize = 1024;

/// OA02: the listing as a whole.
pub fn count(cx: &mut Context) {
    let tools = cx.set.tools.len();
    if tools > MAX_TOOLS {
        let message = format!(
            "the server lists {tools} tools; OpenAI accepts at most {MAX_TOOLS} per request"
        );
        cx.server("OA02", "", message);
    }
}

pub fn check(cx: &mut Context, tool: &Tool) {
    let name = tool.name.as_deref().unwrap_or("");
    if !simple_name(name, 64) {
        let message = format!("tool name {name:?} does not match OpenAI's ^[a-zA-Z0-9_-]{{1,64}}$");
        cx.tool("OA01", tool, "/name", message);
    }
    hints(cx, tool);
    description(cx, tool);
    if let Some(input) = tool.value.get("inputSchema").filter(|s| s.is_object()) {
        root(cx, tool, input);
        arrays(cx, tool, input);
    }
}

/// OA03: the hints OpenAI's app submission asks for. `destructiveHint` is meaningless on a
/// read-only tool (the specification says so), so it is not asked for there.
fn hints(cx: &mut Context, tool: &Tool) {
    let hint = |name: &str| tool.value.get("annotations").and_then(|a| a.get(name));
    let read_only = hint("readOnlyHint").and_then(Value::as_bool) == Some(true);
    let mut wanted = vec!["readOnlyHint", "openWorldHint"];
    if !read_only {
        wanted.insert(1, "destructiveHint");
    }
    let missing: Vec<&str> = wanted.into_iter().filter(|h| hint(h).is_none()).collect();
    if !missing.is_empty() {
        let message = format!(
            "tool {}: {} not set explicitly; OpenAI's app submission asks for explicit hints",
            label(tool),
            missing.join(", ")
        );
        cx.tool("OA03", tool, "/annotations", message);
    }
}

/// OA06: OpenAI's limit on `function.description`.
fn description(cx: &mut Context, tool: &Tool) {
    let Some(text) = tool.value.get("description").and_then(Value::as_str) else {
        return;
    };
    let length = text.chars().count();
    if length > MAX_DESCRIPTION {
        let message = format!(
            "tool {}: the description is {length} characters; OpenAI refuses descriptions over {MAX_DESCRIPTION}",
            label(tool)
        );
        cx.tool("OA06", tool, "/description", message);
    }
}

/// OA05: what OpenAI refuses at the top level of the parameters schema.
fn root(cx: &mut Context, tool: &Tool, input: &Value) {
    for keyword in ["oneOf", "anyOf", "allOf", "enum", "not"] {
        if input.get(keyword).is_some() {
            let message = format!(
                "tool {}: inputSchema has `{keyword}` at the root, which OpenAI refuses",
                label(tool)
            );
            cx.tool("OA05", tool, &format!("/inputSchema/{keyword}"), message);
        }
    }
}

/// OA04: every array schema must say what its items are.
fn arrays(cx: &mut Context, tool: &Tool, input: &Value) {
    let mut found = Vec::new();
    schema::walk(input, "/inputSchema", &mut |pointer, sub| {
        let array = match sub.get("type") {
            Some(Value::String(t)) => t == "array",
            Some(Value::Array(types)) => types.iter().any(|t| t == "array"),
            _ => false,
        };
        if array && sub.get("items").is_none() && sub.get("prefixItems").is_none() {
            found.push(pointer.to_string());
        }
    });
    for pointer in found {
        let message = format!(
            "tool {}: an array schema without `items`, which OpenAI refuses (\"array schema missing items\")",
            label(tool)
        );
        cx.tool("OA04", tool, &pointer, message);
    }
}

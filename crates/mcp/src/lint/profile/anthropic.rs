//! `--profile anthropic`: AN01 name pattern, AN02 combinators at the schema root, AN03 schemas
//! that are not valid JSON Schema 2020-12.

use super::simple_name;
use crate::lint::context::{Context, label};
use crate::lint::toolset::Tool;
use serde_json::Value;

pub fn check(cx: &mut Context, tool: &Tool) {
    let name = tool.name.as_deref().unwrap_or("");
    if !simple_name(name, 128) {
        let message =
            format!("tool name {name:?} does not match Anthropic's ^[a-zA-Z0-9_-]{{1,128}}$");
        cx.tool("AN01", tool, "/name", message);
    }
    let Some(input) = tool.value.get("inputSchema").filter(|s| s.is_object()) else {
        return;
    };
    for keyword in ["oneOf", "anyOf", "allOf"] {
        if input.get(keyword).is_some() {
            let message = format!(
                "tool {}: inputSchema has `{keyword}` at the root, which Anthropic's API rejects",
                label(tool)
            );
            cx.tool("AN02", tool, &format!("/inputSchema/{keyword}"), message);
        }
    }
    dialect(cx, tool, input);
}

/// AN03: Anthropic validates `input_schema` as 2020-12 whatever `$schema` says.
fn dialect(cx: &mut Context, tool: &Tool, input: &Value) {
    if let Err(error) = jsonschema::draft202012::meta::validate(input) {
        let message = format!(
            "tool {}: inputSchema is not valid JSON Schema 2020-12, which Anthropic requires: {error}",
            label(tool)
        );
        let pointer = format!("/inputSchema{}", error.instance_path());
        cx.tool("AN03", tool, &pointer, message);
    }
}

//! Provider profiles: what OpenAI, Gemini and Anthropic reject in tool definitions beyond the
//! MCP specification (name patterns and lengths, tool counts, schema keywords).

use super::context::{label, Context};
use super::input::Tool;
use super::schema;
use serde_json::Value;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Profile {
    OpenAi,
    Gemini,
    Anthropic,
}

impl Profile {
    pub fn parse(text: &str) -> Option<Profile> {
        Some(match text {
            "openai" => Profile::OpenAi,
            "gemini" => Profile::Gemini,
            "anthropic" => Profile::Anthropic,
            _ => return None,
        })
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Profile::OpenAi => "openai",
            Profile::Gemini => "gemini",
            Profile::Anthropic => "anthropic",
        }
    }
}

pub fn check(cx: &mut Context, profile: Profile) {
    let set = cx.set;
    if profile == Profile::OpenAi && set.tools.len() > 128 {
        cx.server("OA02", "", format!("the server lists {} tools; OpenAI accepts at most 128 per request", set.tools.len()));
    }
    for tool in set.tools.iter().filter(|t| t.name.is_some()) {
        match profile {
            Profile::OpenAi => openai(cx, tool),
            Profile::Gemini => gemini(cx, tool),
            Profile::Anthropic => anthropic(cx, tool),
        }
    }
}

fn simple_name(name: &str) -> bool {
    (1..=64).contains(&name.chars().count()) && name.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-'))
}

fn openai(cx: &mut Context, tool: &Tool) {
    let name = tool.name.as_deref().unwrap_or("");
    if !simple_name(name) {
        cx.tool("OA01", tool, "/name", format!("tool name {name:?} does not match OpenAI's ^[a-zA-Z0-9_-]{{1,64}}$"));
    }
    let missing: Vec<&str> = ["readOnlyHint", "destructiveHint", "openWorldHint"]
        .into_iter()
        .filter(|hint| tool.value.get("annotations").and_then(|a| a.get(*hint)).is_none())
        .collect();
    if !missing.is_empty() {
        let message = format!("tool {}: {} not set explicitly; OpenAI's app review asks for explicit hints", label(tool), missing.join(", "));
        cx.tool("OA03", tool, "/annotations", message);
    }
}

fn anthropic(cx: &mut Context, tool: &Tool) {
    let name = tool.name.as_deref().unwrap_or("");
    if !simple_name(name) {
        cx.tool("AN01", tool, "/name", format!("tool name {name:?} does not match Anthropic's ^[a-zA-Z0-9_-]{{1,64}}$"));
    }
    let Some(input) = tool.value.get("inputSchema") else { return };
    for keyword in ["oneOf", "anyOf", "allOf"] {
        if input.get(keyword).is_some() {
            let message = format!("tool {}: inputSchema has `{keyword}` at the root, which Anthropic's API rejects", label(tool));
            cx.tool("AN02", tool, &format!("/inputSchema/{keyword}"), message);
        }
    }
}

const GEMINI_REJECTS: &[&str] = &["$schema", "$ref", "$defs", "definitions", "additionalProperties"];

fn gemini(cx: &mut Context, tool: &Tool) {
    let name = tool.name.as_deref().unwrap_or("");
    let starts = name.chars().next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_');
    let chars = name.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | ':' | '-'));
    if !(starts && chars && name.chars().count() <= 64) {
        let message = format!("tool name {name:?} breaks Gemini's rule: start with a letter or `_`, then [a-zA-Z0-9_.:-], at most 64 characters");
        cx.tool("GE04", tool, "/name", message);
    }
    let Some(input) = tool.value.get("inputSchema").filter(|s| s.is_object()) else { return };
    let mut found: Vec<(&str, String, String)> = Vec::new();
    schema::walk(input, "/inputSchema", &mut |pointer, sub| gemini_schema(pointer, sub, &mut found));
    for (code, pointer, what) in found {
        cx.tool(code, tool, &pointer, format!("tool {}: {what}", label(tool)));
    }
}

fn gemini_schema(pointer: &str, schema: &Value, found: &mut Vec<(&'static str, String, String)>) {
    let Some(map) = schema.as_object() else { return };
    for keyword in GEMINI_REJECTS.iter().filter(|k| map.contains_key(**k)) {
        let escaped = super::context::escape(keyword);
        found.push(("GE01", format!("{pointer}/{escaped}"), format!("Gemini rejects the `{keyword}` keyword")));
    }
    let typed = map.get("type").and_then(Value::as_str);
    if map.contains_key("properties") && typed.is_some_and(|t| t != "object") {
        found.push(("GE02", format!("{pointer}/properties"), format!("`properties` on a schema of type {}", typed.unwrap_or(""))));
    }
    if map.get("items").is_some_and(|items| items.get("anyOf").is_some()) {
        found.push(("GE03", format!("{pointer}/items/anyOf"), "Gemini rejects `anyOf` inside `items`".to_string()));
    }
}

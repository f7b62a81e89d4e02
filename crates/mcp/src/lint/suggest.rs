//! `agentpi lint --suggest`: an MCP+ block per tool inferred from what the tool already says
//! (annotations, name verbs, description, enumerated failure phrases), for the author to review.

use super::mcp_plus::{SideEffects, KEY, VERSION};
use super::input::ToolSet;
use super::tokens::summary;
use super::words::{name_words, stem};
use serde_json::{json, Map, Value};

/// `{tool name: {"_meta": {KEY: block}}}` for every named tool, in listing order.
pub fn suggest(set: &ToolSet) -> Value {
    let mut out = Map::new();
    for tool in &set.tools {
        let Some(name) = tool.name.as_deref() else { continue };
        out.insert(name.to_string(), json!({ "_meta": { KEY: block(&tool.value, name) } }));
    }
    Value::Object(out)
}

fn block(tool: &Value, name: &str) -> Value {
    let effects = side_effects(tool, name);
    let mut summary = summary(tool);
    if summary.chars().count() > 120 {
        summary = summary.chars().take(117).collect::<String>() + "...";
    }
    json!({
        "version": VERSION,
        "side_effects": effects.as_str(),
        "requires_approval": effects.needs_approval(),
        "summary": summary,
        "failure_modes": failure_modes(tool, effects),
        "dependencies": [],
    })
}

fn hint(tool: &Value, name: &str) -> Option<bool> {
    tool.get("annotations")?.get(name)?.as_bool()
}

/// Annotations first (paper §6.3), then the verbs of the name.
fn side_effects(tool: &Value, name: &str) -> SideEffects {
    match (hint(tool, "readOnlyHint"), hint(tool, "destructiveHint")) {
        (Some(true), _) => return SideEffects::Read,
        (Some(false), Some(false)) => return SideEffects::Write,
        (Some(false), _) | (None, Some(true)) => return SideEffects::Delete,
        _ => {}
    }
    let words = name_words(name);
    let has = |verbs: &[&str]| words.iter().any(|w| verbs.contains(&stem(w)));
    if has(&["delet", "remov", "drop", "destroy", "purg", "eras"]) {
        SideEffects::Delete
    } else if has(&["get", "list", "read", "search", "find", "fetch", "query", "show", "describ", "view", "lookup", "verify"]) {
        SideEffects::Read
    } else {
        SideEffects::Write
    }
}

fn failure_modes(tool: &Value, effects: SideEffects) -> Value {
    let mut modes = vec![json!({ "error": "invalid_arguments", "recovery": "user_prompt" })];
    if hint(tool, "openWorldHint") != Some(false) {
        let safe = effects == SideEffects::Read || hint(tool, "idempotentHint") == Some(true);
        modes.push(json!({ "error": "unavailable", "recovery": if safe { "retry" } else { "abort" } }));
    }
    if effects.needs_approval() {
        modes.push(json!({ "error": "approval_denied", "recovery": "abort" }));
    }
    Value::Array(modes)
}

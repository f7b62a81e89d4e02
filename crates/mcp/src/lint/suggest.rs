//! `agentpi lint --suggest`: an MCP+ block per tool inferred from what the tool already says
//! (annotations, name verbs, description, enumerated failure phrases), for the author to review.

use super::mcp_plus::{KEY, SideEffects, VERSION};
use super::tokens::summary;
use super::toolset::ToolSet;
use super::words::{name_words, stem};
use serde_json::{Map, Value, json};

/// `{tool name: {"_meta": {KEY: block}}}` for every named tool, in listing order.
pub fn suggest(set: &ToolSet) -> Value {
    let mut out = Map::new();
    for tool in &set.tools {
        let Some(name) = tool.name.as_deref() else {
            continue;
        };
        out.insert(
            name.to_string(),
            json!({ "_meta": { KEY: block(&tool.value, name) } }),
        );
    }
    Value::Object(out)
}

fn block(tool: &Value, name: &str) -> Value {
    let effects = side_effects(tool, name);
    let summary = short_summary(tool, name);
    json!({
        "version": VERSION,
        "side_effects": effects.as_str(),
        "requires_approval": effects.needs_approval(),
        "summary": summary,
        "failure_modes": failure_modes(tool, effects),
        "dependencies": [],
    })
}

/// The first sentence, cut to 120 characters and kept shorter than the description (P4); the
/// name's words when there is no description.
fn short_summary(tool: &Value, name: &str) -> String {
    let description = tool
        .get("description")
        .and_then(Value::as_str)
        .unwrap_or("")
        .trim();
    let mut text = summary(tool);
    if text.is_empty() {
        return name_words(name).join(" ");
    }
    if text.chars().count() > 120 {
        text = cut_at_word(&text, 117) + "...";
    }
    let length = description.chars().count();
    if text.chars().count() >= length {
        text = text.trim_end_matches('.').to_string();
    }
    if text.chars().count() >= length
        && let Some((head, _)) = text.rsplit_once(' ')
    {
        text = head.to_string();
    }
    text
}

/// At most `max` characters of `text`, ending at a word boundary (without trailing commas and
/// the like), so that a shortened summary never stops inside a word.
fn cut_at_word(text: &str, max: usize) -> String {
    let head: String = text.chars().take(max + 1).collect();
    let cut = match head.rsplit_once(char::is_whitespace) {
        Some((before, _)) if head.chars().count() > max => before,
        _ => head.as_str(),
    };
    cut.trim_end_matches([',', ';', ':', ' ', '-', '('])
        .to_string()
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
    } else if has(&[
        "get", "list", "read", "search", "find", "fetch", "query", "show", "describ", "view",
        "lookup", "verify",
    ]) {
        SideEffects::Read
    } else {
        SideEffects::Write
    }
}

fn failure_modes(tool: &Value, effects: SideEffects) -> Value {
    let mut modes = vec![json!({ "error": "invalid_arguments", "recovery": "user_prompt" })];
    if hint(tool, "openWorldHint") != Some(false) {
        let safe = effects == SideEffects::Read || hint(tool, "idempotentHint") == Some(true);
        modes.push(
            json!({ "error": "unavailable", "recovery": if safe { "retry" } else { "abort" } }),
        );
    }
    if effects.needs_approval() {
        modes.push(json!({ "error": "approval_denied", "recovery": "abort" }));
    }
    Value::Array(modes)
}

#[cfg(test)]
mod tests {
    use super::cut_at_word;

    #[test]
    fn long_summaries_are_cut_between_words() {
        assert_eq!(
            cut_at_word("Reads the file, then more", 16),
            "Reads the file"
        );
        assert_eq!(cut_at_word("short", 16), "short");
    }
}

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

/// The first sentence, kept under 120 characters and shorter than the description (P4), cut
/// where a phrase ends: at a clause boundary (`,` `;` `:` ` - ` ` (`) when there is one, else
/// after a word, dropping the small words that would leave the phrase hanging ("of the").
/// The name's words when there is no description.
fn short_summary(tool: &Value, name: &str) -> String {
    let description = tool
        .get("description")
        .and_then(Value::as_str)
        .unwrap_or("")
        .trim();
    let text = summary(tool);
    if text.is_empty() {
        return name_words(name).join(" ");
    }
    let mut text = text.as_str();
    if text.chars().count() > 120 {
        return cut(text, 117);
    }
    let length = description.chars().count();
    if text.chars().count() >= length {
        text = text.trim_end_matches('.');
    }
    if text.chars().count() >= length {
        return cut(text, length.saturating_sub(1).max(1));
    }
    text.to_string()
}

/// Words that do not end a phrase.
const HANGING: &[&str] = &[
    "a", "an", "the", "of", "for", "to", "in", "on", "at", "by", "with", "from", "and", "or",
    "but", "as", "into", "that", "which", "its", "their", "this", "your", "is", "are",
];

/// `text` cut to fewer than `limit` characters where a phrase ends: the last clause boundary
/// in the second half, else the last whole word (then `...` marks the cut), without hanging
/// words. The first word is kept whatever its length.
fn cut(text: &str, limit: usize) -> String {
    let head: String = text.chars().take(limit).collect();
    let clause = [", ", "; ", ": ", " - ", " ("]
        .iter()
        .filter_map(|b| head.rfind(b))
        .max()
        .filter(|&at| at >= head.len() / 2);
    if let Some(at) = clause {
        return head[..at].to_string();
    }
    let mut words: Vec<&str> = head.split_whitespace().collect();
    if head.len() < text.len() && !text[head.len()..].starts_with(char::is_whitespace) {
        words.pop();
    }
    while words.len() > 1 && HANGING.contains(&words[words.len() - 1].to_lowercase().as_str()) {
        words.pop();
    }
    let words = if words.is_empty() {
        vec![text.split_whitespace().next().unwrap_or("")]
    } else {
        words
    };
    let joined = words.join(" ");
    match text.chars().count() > 120 {
        true => joined.trim_end_matches([',', ';', ':']).to_string() + "...",
        false => joined,
    }
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
    use super::*;
    use serde_json::json;

    fn short(description: &str) -> String {
        short_summary(&json!({ "description": description }), "tool")
    }

    #[test]
    fn summaries_end_where_a_phrase_ends() {
        // The whole first sentence when it is short and the description says more.
        assert_eq!(short("Get a balance. Needs an account."), "Get a balance.");
        // One sentence: shorter than the description by a word, never ending on "of the".
        assert_eq!(
            short("Returns the current eta value of the cache"),
            "Returns the current eta value"
        );
        assert_eq!(short("Send email"), "Send");
        // Long: at the last clause boundary, else after a word with `...`.
        let long = "Reads a file, handling many encodings and reporting detailed errors for \
                    files that cannot be read, and it works only inside the directories the \
                    server was started with.";
        assert_eq!(
            short(long),
            "Reads a file, handling many encodings and reporting detailed errors for files that cannot be read"
        );
        let words = "Checks whether a transfer of the given amount is allowed for the given \
                     balance and returns an authorization token for the account holder today.";
        assert_eq!(
            short(words),
            "Checks whether a transfer of the given amount is allowed for the given balance and returns an authorization token..."
        );
    }
}

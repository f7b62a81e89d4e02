//! P105, heuristic: values listed in prose but not in an `enum`. A list is two or more
//! single-word values, quoted (`'fast' or 'safe'`) or after "one of" / "possible values" /
//! "allowed values" (`one of red, green or blue`, `must be one of: daily, weekly, monthly`), in
//! the parameter's description or in a sentence of the tool's description that names the
//! parameter. Not lists: sentences that give examples ("e.g.", "such as", "for example",
//! "like"), code (fenced blocks, JSON objects: their keys are not values), and sentences that
//! quote data rather than names (`'Data!$B$2:$B$100'`, `'/path/to/file.png'`): quoted examples
//! of what a value looks like.

use super::Facts;
use crate::lint::context::{Context, label};
use crate::lint::words::prose_sentences;
use serde_json::Value;

const EXAMPLES: &[&str] = &[
    "e.g",
    "for example",
    "for instance",
    "such as",
    "like ",
    "i.e",
];
const TRIGGERS: &[&str] = &[
    "one of",
    "possible values",
    "allowed values",
    "valid values",
    "supported values",
    "accepted values",
    "valid options",
    "options are",
];

pub fn check(
    cx: &mut Context,
    facts: &Facts,
    pointer: &str,
    name: &str,
    property: &Value,
    text: &str,
) {
    let constrained = ["enum", "const", "oneOf", "anyOf", "$ref"]
        .iter()
        .any(|k| property.get(*k).is_some());
    let typed = property.get("type").and_then(Value::as_str);
    if constrained || !matches!(typed, None | Some("string")) {
        return;
    }
    let (values, place) = match listed(text, name) {
        Some(values) => (values, "lists values in prose"),
        None => match in_tool_description(facts, name) {
            Some(values) => (values, "has values listed in the tool description"),
            None => return,
        },
    };
    let message = format!(
        "tool {}: parameter `{name}` {place} ({}) but its schema has no `enum`",
        label(facts.tool),
        values.join(", ")
    );
    cx.tool("P105", facts.tool, pointer, message);
}

/// Values listed in a sentence of the tool's description that names parameter `name`.
fn in_tool_description(facts: &Facts, name: &str) -> Option<Vec<String>> {
    let description = facts.description?;
    prose_sentences(description)
        .into_iter()
        .filter(|sentence| names(sentence, name))
        .find_map(|sentence| listed(sentence, name))
}

/// Whether `sentence` contains `name` as a whole word.
fn names(sentence: &str, name: &str) -> bool {
    sentence
        .split(|c: char| !(c.is_alphanumeric() || c == '_'))
        .any(|word| word == name)
}

/// The values a text lists, from its first sentence that lists any, for parameter `name`.
pub fn listed(text: &str, name: &str) -> Option<Vec<String>> {
    prose_sentences(text).into_iter().find_map(|sentence| {
        let lower = sentence.to_lowercase();
        if EXAMPLES.iter().any(|e| lower.contains(e)) || holds_json(sentence) {
            return None;
        }
        quoted_list(sentence, &lower, name).or_else(|| unquoted_list(sentence, &lower))
    })
}

/// Whether `sentence` holds a JSON object: a `{` and a quoted key followed by `:`
/// (`{"id":"sig1","type":"image"}`), whose keys and strings are an example call, not values.
fn holds_json(sentence: &str) -> bool {
    let Some(open) = sentence.find('{') else {
        return false;
    };
    let rest = &sentence[open..];
    rest.match_indices('"')
        .any(|(at, _)| rest[at + 1..].trim_start().starts_with(':'))
}

/// Two or more distinct short quoted tokens ('a', "b" or `c`) joined by "or", commas or "one
/// of", all of them names: a sentence that also quotes data (a cell reference, a path, a
/// formula) quotes examples of values, not the values there are. The parameter's own name,
/// quoted as code ("Pass `path` ..., or omit `path`"), is not one of its values.
fn quoted_list(sentence: &str, lower: &str, name: &str) -> Option<Vec<String>> {
    let found = quoted(sentence);
    let joined = lower.contains(" or ") || lower.contains(',') || lower.contains("one of");
    if !joined || !found.iter().all(|value| is_name(value)) {
        return None;
    }
    let mut values: Vec<String> = Vec::new();
    for value in found {
        if value != name && !values.contains(&value) {
            values.push(value);
        }
    }
    (values.len() >= 2).then_some(values)
}

/// Whether a quoted token looks like an enumeration value: it starts with a letter or digit
/// and holds only letters, digits and `_-.:/+` (`local`, `text/plain`, `2025-06-18`).
fn is_name(value: &str) -> bool {
    value.starts_with(|c: char| c.is_alphanumeric())
        && value
            .chars()
            .all(|c| c.is_alphanumeric() || "_-.:/+".contains(c))
}

/// Short quoted tokens in `text`: 'a', "b" or `c`.
fn quoted(text: &str) -> Vec<String> {
    let mut found = Vec::new();
    for quote in ['\'', '"', '`'] {
        let parts: Vec<&str> = text.split(quote).collect();
        for inner in parts
            .iter()
            .skip(1)
            .step_by(2)
            .take(parts.len().saturating_sub(1) / 2)
        {
            if !inner.is_empty() && inner.len() <= 30 && !inner.contains(' ') {
                found.push(inner.to_string());
            }
        }
    }
    found
}

/// `text` without a leading `word` (a whole word, or punctuation).
fn strip_word<'t>(text: &'t str, word: &str) -> &'t str {
    match text.strip_prefix(word) {
        Some(rest) if !rest.starts_with(char::is_alphanumeric) => rest,
        _ => text,
    }
}

/// The list after a trigger phrase: every item one word, two items or more.
fn unquoted_list(sentence: &str, lower: &str) -> Option<Vec<String>> {
    let (start, trigger) = TRIGGERS
        .iter()
        .filter_map(|t| lower.find(t).map(|at| (at, *t)))
        .min()?;
    let mut rest = sentence[start + trigger.len()..].trim_start();
    for filler in ["the following", ":", "are", "is", ":"] {
        rest = strip_word(rest, filler).trim_start();
    }
    let end = rest.find(['(', ')', '[']).unwrap_or(rest.len());
    let items: Vec<String> = rest[..end]
        .split(',')
        .flat_map(|part| part.split(" or "))
        .flat_map(|part| part.split(" and "))
        .flat_map(|part| part.split(['/', '|']))
        .map(|item| {
            item.trim()
                .trim_start_matches("or ")
                .trim_start_matches("and ")
                .trim_matches(|c: char| "'\"`.;:!?".contains(c))
                .to_string()
        })
        .filter(|item| !item.is_empty())
        .collect();
    let words = items.iter().all(|item| {
        item.len() <= 30
            && item
                .chars()
                .all(|c| c.is_alphanumeric() || "_-.+:".contains(c))
    });
    (items.len() >= 2 && words).then_some(items)
}

#[cfg(test)]
mod tests {
    use super::listed;

    fn list(text: &str) -> Option<Vec<String>> {
        listed(text, "")
    }

    #[test]
    fn quoted_and_unquoted_lists() {
        assert_eq!(list("Either 'fast' or 'safe'").unwrap(), ["fast", "safe"]);
        assert_eq!(
            list("one of red, green or blue").unwrap(),
            ["red", "green", "blue"]
        );
        assert_eq!(
            list("The period. It must be one of: daily, weekly, monthly.").unwrap(),
            ["daily", "weekly", "monthly"]
        );
        assert_eq!(
            list("Priority: one of low, normal or high").unwrap(),
            ["low", "normal", "high"]
        );
    }

    #[test]
    fn prose_that_is_not_a_list() {
        assert_eq!(list("one of the most useful tools"), None);
        assert_eq!(list("a file or a directory"), None);
        assert_eq!(list("e.g. 'json' or 'text'"), None);
        assert_eq!(list("one of the files in the directory, or none"), None);
        assert_eq!(list("Name of the branch"), None);
    }

    /// server-pdf's `interact`: the keys of a JSON example are not values.
    #[test]
    fn code_is_not_a_list() {
        assert_eq!(list(r#"{"viewUUID":"…","commands":["#), None);
        assert_eq!(list(r#"Example: {"mode": "fast", "page": "all"}"#), None);
        assert_eq!(list("Go.\n```\nmode: 'fast' or 'safe'\n```"), None);
    }

    /// server-pdf's `interact`: "Pass `path` (...) for a new location, or omit `path`".
    #[test]
    fn the_parameter_itself_is_not_a_value() {
        let save = "Pass `path` (absolute path or file://) for a new location, or omit `path` to overwrite the original.";
        assert_eq!(listed(save, "path"), None);
        assert_eq!(listed("Either 'fast' or 'fast'.", "mode"), None);
        assert_eq!(
            listed("Set `mode` to 'fast' or 'safe'.", "mode").unwrap(),
            ["fast", "safe"]
        );
    }

    /// excel-mcp-server's `set_defined_name`: quoted examples of data, not a closed set.
    #[test]
    fn quoted_data_is_not_a_list() {
        assert_eq!(
            list("Range with sheet, 'Data!$B$2:$B$100', or a constant, '0.075'."),
            None
        );
        assert_eq!(
            list("One of 'text/plain' or 'application/json'.").unwrap(),
            ["text/plain", "application/json"]
        );
    }
}

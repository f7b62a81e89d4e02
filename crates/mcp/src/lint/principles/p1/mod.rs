//! P1, semantic completeness, as a documented heuristic: a description that says more than the
//! name, every parameter described, enumerations where the prose lists values ([`values`]),
//! formats for dates, units for quantities and integers for counts ([`formats`]), and
//! deprecated tools that are still listed.

mod formats;
mod values;

use super::Facts;
use crate::lint::context::{Context, label};
use crate::lint::schema;
use crate::lint::words::{first_sentence, is_stopword, name_words, prose_words, stem};
use serde_json::Value;

pub fn check(cx: &mut Context, facts: &Facts) {
    description(cx, facts);
    deprecated(cx, facts);
    if let Some(input) = facts
        .tool
        .value
        .get("inputSchema")
        .filter(|s| s.is_object())
    {
        schema::properties(input, "/inputSchema", &mut |pointer, name, property| {
            parameter(cx, facts, pointer, name, property);
        });
    }
}

fn description(cx: &mut Context, facts: &Facts) {
    let tool = facts.tool;
    let text = facts.description.map(str::trim).unwrap_or("");
    if text.is_empty() {
        cx.tool(
            "P101",
            tool,
            "/description",
            format!(
                "tool {} has no description; a model cannot tell when to call it",
                label(tool)
            ),
        );
        return;
    }
    let words = prose_words(text);
    if restates(facts.name(), &words) {
        cx.tool(
            "P102",
            tool,
            "/description",
            format!(
                "tool {}: the description {text:?} only restates the name",
                label(tool)
            ),
        );
    } else if words.len() < 5 {
        cx.tool(
            "P103",
            tool,
            "/description",
            format!(
                "tool {}: the description has {} words; say what it returns and when to use it",
                label(tool),
                words.len()
            ),
        );
    }
}

/// Whether every meaningful word of the description is (a form of) a word of the name.
fn restates(name: &str, words: &[String]) -> bool {
    let name: Vec<String> = name_words(name)
        .iter()
        .map(|w| stem(w).to_string())
        .collect();
    words
        .iter()
        .filter(|w| !is_stopword(w))
        .all(|w| name.iter().any(|n| n == stem(w)))
}

fn parameter(cx: &mut Context, facts: &Facts, pointer: &str, name: &str, property: &Value) {
    if !property.is_object() || property.get("$ref").is_some() {
        return;
    }
    let text = property
        .get("description")
        .and_then(Value::as_str)
        .map(str::trim)
        .unwrap_or("");
    if text.is_empty() {
        cx.tool(
            "P104",
            facts.tool,
            pointer,
            format!(
                "tool {}: parameter `{name}` has no description",
                label(facts.tool)
            ),
        );
    }
    values::check(cx, facts, pointer, name, property, text);
    formats::check(cx, facts, pointer, name, property, text);
}

/// P108: a tool that calls itself deprecated (in its title or the first sentence of its
/// description) but is still listed, so models keep choosing it.
fn deprecated(cx: &mut Context, facts: &Facts) {
    let value = &facts.tool.value;
    let title = value
        .get("title")
        .or_else(|| value.pointer("/annotations/title"))
        .and_then(Value::as_str);
    let first = facts.description.map(first_sentence);
    let says = |text: &str| prose_words(text).iter().any(|w| w == "deprecated");
    let (pointer, text) = match (title, first) {
        (Some(title), _) if says(title) => ("/title", title),
        (_, Some(first)) if says(first) => ("/description", first),
        _ => match facts.description.filter(|d| says(d)) {
            Some(description) => ("/description", description),
            None => return,
        },
    };
    let pointer = if title.is_some() && pointer == "/title" && value.get("title").is_none() {
        "/annotations/title"
    } else {
        pointer
    };
    let shown: String = text.chars().take(80).collect();
    let message = format!(
        "tool {} says it is deprecated ({shown:?}) but is still listed; models still see and choose it",
        label(facts.tool)
    );
    cx.tool("P108", facts.tool, pointer, message);
}

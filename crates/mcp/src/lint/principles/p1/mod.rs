//! P1, semantic completeness, as a documented heuristic: a description that says more than the
//! name, every parameter described, enumerations where the prose lists values ([`values`]),
//! formats for dates, units for quantities and integers for counts ([`formats`]), and
//! deprecated tools that are still listed.

mod formats;
mod values;

use super::Facts;
use crate::lint::context::{Context, label};
use crate::lint::schema;
use crate::lint::words::{is_stopword, name_words, prose_words, stem};
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
    } else if words.len() < 5 && !parameters_described(facts) {
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

/// Whether every top-level parameter has a description: a short tool description is then
/// made up for by its parameters (P103 is about the tool as a whole).
fn parameters_described(facts: &Facts) -> bool {
    let properties = facts
        .tool
        .value
        .pointer("/inputSchema/properties")
        .and_then(Value::as_object);
    properties.is_none_or(|map| {
        map.values().all(|p| {
            p.get("description")
                .and_then(Value::as_str)
                .is_some_and(|d| !d.trim().is_empty())
        })
    })
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
    let top = pointer
        .rsplit_once("/properties/")
        .is_some_and(|(head, _)| head == "/inputSchema");
    let named = top && named_in_tool(facts, name);
    if text.is_empty() && !described_container(property) && !named {
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

/// Whether the tool's description names the parameter: every word of its name appears in it
/// (stemmed), as `task_id` in "Delete a task by its id". Top-level parameters only.
fn named_in_tool(facts: &Facts, name: &str) -> bool {
    let Some(description) = facts.description else {
        return false;
    };
    let words: Vec<String> = prose_words(description)
        .iter()
        .map(|w| stem(w).to_string())
        .collect();
    let name = name_words(name);
    !name.is_empty() && name.iter().all(|w| words.iter().any(|d| d == stem(w)))
}

/// Whether `property` is an object, or an array of objects, whose own properties all have
/// descriptions: the container's fields carry its meaning, so it needs no description itself.
fn described_container(property: &Value) -> bool {
    let object = match property.get("items") {
        Some(items) => items,
        None => property,
    };
    let Some(fields) = object.get("properties").and_then(Value::as_object) else {
        return false;
    };
    !fields.is_empty()
        && fields.values().all(|field| {
            field
                .get("description")
                .and_then(Value::as_str)
                .is_some_and(|d| !d.trim().is_empty())
        })
}

/// P108: a tool that calls itself deprecated (in its title or description) but is still listed
/// and does not say what replaces it. One that names its replacement ("Use read_text_file
/// instead") is kept on purpose for old clients and is left alone.
fn deprecated(cx: &mut Context, facts: &Facts) {
    let Some((pointer, text)) = deprecation(facts) else {
        return;
    };
    if names_replacement(cx, facts) {
        return;
    }
    let shown: String = text.chars().take(80).collect();
    let message = format!(
        "tool {} says it is deprecated ({shown:?}) but is still listed and names no replacement; models still choose it",
        label(facts.tool)
    );
    cx.tool("P108", facts.tool, pointer, message);
}

/// Where the tool says it is deprecated: the field's pointer and its text.
fn deprecation<'a>(facts: &Facts<'a>) -> Option<(&'static str, &'a str)> {
    let value = &facts.tool.value;
    let places = [
        ("/title", value.get("title")),
        ("/annotations/title", value.pointer("/annotations/title")),
        ("/description", value.get("description")),
    ];
    let says = |text: &str| prose_words(text).iter().any(|w| w == "deprecated");
    places
        .into_iter()
        .filter_map(|(pointer, text)| Some((pointer, text?.as_str()?)))
        .find(|(_, text)| says(text))
}

/// Whether the description points to a replacement: another listed tool, or "instead".
fn names_replacement(cx: &Context, facts: &Facts) -> bool {
    let description = facts.description.unwrap_or("");
    let other_tool = cx
        .set
        .tools
        .iter()
        .filter_map(|t| t.name.as_deref())
        .any(|other| other != facts.name() && description.contains(other));
    other_tool || description.to_lowercase().contains("instead")
}

//! P1, semantic completeness, as a documented heuristic: a description that says more than the
//! name, every parameter described, enumerations where the prose lists values, and formats and
//! units for dates and quantities.

use super::Facts;
use crate::lint::context::{label, Context};
use crate::lint::schema;
use crate::lint::words::{is_stopword, name_words, prose_words, stem};
use serde_json::Value;

pub fn check(cx: &mut Context, facts: &Facts) {
    description(cx, facts);
    if let Some(input) = facts.tool.value.get("inputSchema").filter(|s| s.is_object()) {
        schema::properties(input, "/inputSchema", &mut |pointer, name, property| {
            parameter(cx, facts, pointer, name, property);
        });
    }
}

fn description(cx: &mut Context, facts: &Facts) {
    let tool = facts.tool;
    let text = facts.description.map(str::trim).unwrap_or("");
    if text.is_empty() {
        cx.tool("P101", tool, "/description", format!("tool {} has no description; a model cannot tell when to call it", label(tool)));
        return;
    }
    let words = prose_words(text);
    if restates(facts.name(), &words) {
        cx.tool("P102", tool, "/description", format!("tool {}: the description {text:?} only restates the name", label(tool)));
    } else if words.len() < 5 {
        cx.tool("P103", tool, "/description", format!("tool {}: the description has {} words; say what it returns and when to use it", label(tool), words.len()));
    }
}

/// Whether every meaningful word of the description is (a form of) a word of the name.
fn restates(name: &str, words: &[String]) -> bool {
    let name: Vec<String> = name_words(name).iter().map(|w| stem(w).to_string()).collect();
    words.iter().filter(|w| !is_stopword(w)).all(|w| name.iter().any(|n| n == stem(w)))
}

fn parameter(cx: &mut Context, facts: &Facts, pointer: &str, name: &str, property: &Value) {
    if !property.is_object() || property.get("$ref").is_some() {
        return;
    }
    let text = property.get("description").and_then(Value::as_str).map(str::trim).unwrap_or("");
    if text.is_empty() {
        cx.tool("P104", facts.tool, pointer, format!("tool {}: parameter `{name}` has no description", label(facts.tool)));
    }
    enum_in_prose(cx, facts, pointer, name, property, text);
    format_or_unit(cx, facts, pointer, name, property, text);
}

fn enum_in_prose(cx: &mut Context, facts: &Facts, pointer: &str, name: &str, property: &Value, text: &str) {
    let constrained = ["enum", "const", "oneOf", "anyOf"].iter().any(|k| property.get(*k).is_some());
    let typed = property.get("type").and_then(Value::as_str);
    if constrained || !matches!(typed, None | Some("string")) {
        return;
    }
    let lower = text.to_lowercase();
    let examples = ["e.g", "for example", "such as", "like "].iter().any(|e| lower.contains(e));
    let listed = quoted(text).len() >= 2 && (lower.contains(" or ") || lower.contains(',') || lower.contains("one of"));
    if listed && !examples {
        let values = quoted(text).join(", ");
        let message = format!("tool {}: parameter `{name}` lists values in prose ({values}) but its schema has no `enum`", label(facts.tool));
        cx.tool("P105", facts.tool, pointer, message);
    }
}

/// Short quoted tokens in `text`: 'a', "b" or `c`.
fn quoted(text: &str) -> Vec<&str> {
    let mut found = Vec::new();
    for quote in ['\'', '"', '`'] {
        let parts: Vec<&str> = text.split(quote).collect();
        for inner in parts.iter().skip(1).step_by(2).take(parts.len().saturating_sub(1) / 2) {
            if !inner.is_empty() && inner.len() <= 30 && !inner.contains(' ') {
                found.push(*inner);
            }
        }
    }
    found
}

const DATE_WORDS: &[&str] = &["date", "time", "timestamp", "datetime", "deadline", "at", "since", "until"];
const DATE_HINTS: &[&str] = &["iso", "rfc", "yyyy", "format", "unix", "epoch"];
const QUANTITY_WORDS: &[&str] = &["duration", "timeout", "delay", "interval", "ttl", "size", "amount", "price", "cost", "fee", "balance", "weight", "distance", "age", "temperature"];
const UNITS: &[&str] = &[
    "ms", "millis", "millisecond", "milliseconds", "second", "seconds", "secs", "sec", "minute", "minutes", "mins",
    "hour", "hours", "day", "days", "byte", "bytes", "kb", "mb", "gb", "cent", "cents", "usd", "eur", "chf",
    "currency", "dollar", "dollars", "euro", "euros", "franc", "francs", "percent", "pct", "pixel", "pixels",
    "px", "meter", "meters", "metres", "km", "kg", "kilogram", "kilograms", "celsius", "fahrenheit",
];

fn format_or_unit(cx: &mut Context, facts: &Facts, pointer: &str, name: &str, property: &Value, text: &str) {
    let words = name_words(name);
    let typed = property.get("type").and_then(Value::as_str);
    let described: Vec<String> = prose_words(text);
    let problem = if typed == Some("string") && words.iter().any(|w| DATE_WORDS.contains(&w.as_str())) {
        let stated = property.get("format").is_some() || described.iter().any(|w| DATE_HINTS.contains(&w.as_str()));
        (!stated).then_some("is a date or time but states no format (add `format: date-time` or name the format)")
    } else if matches!(typed, Some("number" | "integer")) && words.iter().any(|w| QUANTITY_WORDS.contains(&w.as_str())) {
        let stated = words.iter().chain(&described).any(|w| UNITS.contains(&w.as_str())) || text.contains('%');
        (!stated).then_some("is a quantity but states no unit (say it in the name or the description)")
    } else {
        None
    };
    if let Some(problem) = problem {
        cx.tool("P106", facts.tool, pointer, format!("tool {}: parameter `{name}` {problem}", label(facts.tool)));
    }
}

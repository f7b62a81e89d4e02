//! P106 and P107, heuristics on what a parameter's values are: a date or time (by its name, or
//! by its description naming one: "the start date") with neither a schema `format`/`pattern`
//! nor a format named in prose ("ISO 8601", "YYYY-MM-DD", "HH:MM"); a quantity (duration,
//! size, price...) whose name and description name no unit; a `number` whose values are counts
//! ("number of", `limit`, `max_results`), which should be an `integer`. A name says "time" with
//! `at` only after another word (`created_at`; a bare `at` is as often a place), and a
//! description that opens on a place ("Top-left cell.") overrides what the name suggests.

use super::Facts;
use crate::lint::context::{Context, label};
use crate::lint::words::{name_words, prose_words};
use serde_json::Value;

const DATE_WORDS: &[&str] = &[
    "date",
    "time",
    "timestamp",
    "datetime",
    "deadline",
    "since",
    "until",
];
/// Nouns that make a parameter a place rather than a time when its description opens on one
/// ("Top-left cell.", "Index at which to insert").
const PLACE_NOUNS: &[&str] = &[
    "cell",
    "cells",
    "position",
    "index",
    "offset",
    "row",
    "column",
    "line",
    "coordinate",
    "coordinates",
    "location",
    "anchor",
];
/// Words of a description that name a date format in prose.
const DATE_HINTS: &[&str] = &[
    "iso", "rfc", "yyyy", "mm", "dd", "hh", "format", "unix", "epoch",
];
/// Nouns that make a parameter a date or time when its description is about one ("the start
/// date", "a timestamp").
const DATE_NOUNS: &[&str] = &["date", "datetime", "timestamp", "deadline"];
/// Name words and description openings that make a number a count of things.
const COUNT_WORDS: &[&str] = &[
    "count", "limit", "offset", "page", "index", "num", "steps", "retries", "attempts", "results",
    "lines", "rows", "entries", "items",
];
const COUNT_PHRASES: &[&str] = &[
    "number of",
    "how many",
    "first n ",
    "last n ",
    "n lines",
    "n items",
];
/// Words that make a number legitimately fractional.
const FRACTIONAL: &[&str] = &[
    "fraction",
    "ratio",
    "percent",
    "percentage",
    "decimal",
    "seconds",
    "ms",
    "probability",
    "score",
    "weight",
    "temperature",
];
const QUANTITY_WORDS: &[&str] = &[
    "duration",
    "timeout",
    "delay",
    "interval",
    "ttl",
    "size",
    "amount",
    "price",
    "cost",
    "fee",
    "balance",
    "weight",
    "distance",
    "age",
    "temperature",
];
const UNITS: &[&str] = &[
    "ms",
    "millis",
    "millisecond",
    "milliseconds",
    "second",
    "seconds",
    "secs",
    "sec",
    "minute",
    "minutes",
    "mins",
    "hour",
    "hours",
    "day",
    "days",
    "byte",
    "bytes",
    "kb",
    "mb",
    "gb",
    "cent",
    "cents",
    "usd",
    "eur",
    "chf",
    "currency",
    "dollar",
    "dollars",
    "euro",
    "euros",
    "franc",
    "francs",
    "percent",
    "pct",
    "pixel",
    "pixels",
    "px",
    "meter",
    "meters",
    "metres",
    "km",
    "kg",
    "kilogram",
    "kilograms",
    "celsius",
    "fahrenheit",
];

pub fn check(
    cx: &mut Context,
    facts: &Facts,
    pointer: &str,
    name: &str,
    property: &Value,
    text: &str,
) {
    let words = name_words(name);
    let described = prose_words(text);
    let typed = property.get("type").and_then(Value::as_str);
    let problem = if matches!(typed, None | Some("string")) && is_date(&words, &described) {
        date(property, &described)
    } else if matches!(typed, Some("number" | "integer")) {
        quantity(&words, &described, text)
    } else {
        None
    };
    if let Some(problem) = problem {
        let message = format!("tool {}: parameter `{name}` {problem}", label(facts.tool));
        cx.tool("P106", facts.tool, pointer, message);
    }
    if typed == Some("number") && is_count(&words, &described, text) {
        let message = format!(
            "tool {}: parameter `{name}` counts things but is typed `number`, which admits 2.5; use `integer`",
            label(facts.tool)
        );
        cx.tool("P107", facts.tool, pointer, message);
    }
}

fn is_date(words: &[String], described: &[String]) -> bool {
    // `created_at`, `send_at`: `at` after another word; a bare `at` names a place as often.
    let at = words.len() > 1 && words.last().is_some_and(|w| w == "at");
    let named = at || words.iter().any(|w| DATE_WORDS.contains(&w.as_str()));
    // "the start date", "a timestamp": the description's head noun is a date; "Top-left
    // cell.": it is a place, whatever the name says.
    let head = |nouns: &[&str]| {
        described
            .iter()
            .take(6)
            .any(|w| nouns.contains(&w.as_str()))
    };
    head(DATE_NOUNS) || (named && !head(PLACE_NOUNS))
}

fn date(property: &Value, described: &[String]) -> Option<&'static str> {
    let stated = property.get("format").is_some()
        || property.get("pattern").is_some()
        || described.iter().any(|w| DATE_HINTS.contains(&w.as_str()));
    (!stated).then_some(
        "is a date or time but states no format (add `format: date-time` or name the format)",
    )
}

fn quantity(words: &[String], described: &[String], text: &str) -> Option<&'static str> {
    if !words.iter().any(|w| QUANTITY_WORDS.contains(&w.as_str())) {
        return None;
    }
    let stated = words
        .iter()
        .chain(described)
        .any(|w| UNITS.contains(&w.as_str()))
        || text.contains('%');
    (!stated).then_some("is a quantity but states no unit (say it in the name or the description)")
}

fn is_count(words: &[String], described: &[String], text: &str) -> bool {
    let lower = format!("{} ", text.to_lowercase());
    let fractional = described
        .iter()
        .chain(words)
        .any(|w| FRACTIONAL.contains(&w.as_str()) || UNITS.contains(&w.as_str()));
    let named = words.iter().any(|w| COUNT_WORDS.contains(&w.as_str()));
    let phrased = COUNT_PHRASES.iter().any(|p| lower.contains(p));
    !fractional && (named || phrased)
}

#[cfg(test)]
mod tests {
    use super::is_date;
    use crate::lint::words::{name_words, prose_words};

    fn date(name: &str, description: &str) -> bool {
        is_date(&name_words(name), &prose_words(description))
    }

    #[test]
    fn names_and_descriptions_of_dates() {
        assert!(date("send_at", "When to send it."));
        assert!(date("created_at", ""));
        assert!(date("since", "Only commits after it."));
        assert!(date("start", "The start date of the report"));
    }

    /// excel-mcp-server's `at` ("Top-left cell.", 7 tools): a place, not a time.
    #[test]
    fn places_are_not_dates() {
        assert!(!date("at", "Top-left cell."));
        assert!(!date("at", ""));
        assert!(!date("insert_at", "Index at which to insert the row."));
        assert!(!date("at", "Top-left destination cell."));
    }
}

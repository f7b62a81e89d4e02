//! `--profile gemini`: function declarations are parsed into Gemini's `Schema`, an OpenAPI 3.0
//! subset. GE01 keywords outside it, GE02 `properties` on non-objects, GE03 `anyOf` in `items`,
//! GE04 name rules, GE05 string formats other than `enum` and `date-time`, GE06 type arrays.

use crate::lint::context::{Context, label};
use crate::lint::json::escape;
use crate::lint::schema;
use crate::lint::toolset::Tool;
use serde_json::{Map, Value};

/// The fields of Gemini's `Schema` object; any other keyword fails the whole request.
const KNOWN: &[&str] = &[
    "type",
    "format",
    "title",
    "description",
    "nullable",
    "enum",
    "items",
    "minItems",
    "maxItems",
    "properties",
    "required",
    "minProperties",
    "maxProperties",
    "minLength",
    "maxLength",
    "pattern",
    "minimum",
    "maximum",
    "anyOf",
    "propertyOrdering",
    "default",
    "example",
];

/// String formats Gemini accepts.
const FORMATS: &[&str] = &["enum", "date-time"];

type Found = Vec<(&'static str, String, String)>;

pub fn check(cx: &mut Context, tool: &Tool) {
    name(cx, tool);
    let Some(input) = tool.value.get("inputSchema").filter(|s| s.is_object()) else {
        return;
    };
    let mut found: Found = Vec::new();
    schema::walk(input, "/inputSchema", &mut |pointer, sub| {
        // Below a refused keyword (inside `$defs`, `additionalProperties`, ...) one finding
        // for the keyword is enough.
        if !found
            .iter()
            .any(|(code, at, _)| *code == "GE01" && pointer.starts_with(at.as_str()))
        {
            keywords(pointer, sub, &mut found);
        }
    });
    for (code, pointer, what) in found {
        cx.tool(
            code,
            tool,
            &pointer,
            format!("tool {}: {what}", label(tool)),
        );
    }
}

fn name(cx: &mut Context, tool: &Tool) {
    let name = tool.name.as_deref().unwrap_or("");
    let starts = name
        .chars()
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_');
    let chars = name
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '-'));
    if !(starts && chars && name.chars().count() <= 64) {
        let message = format!(
            "tool name {name:?} breaks Gemini's rule: start with a letter or `_`, then [a-zA-Z0-9_.-], at most 64 characters"
        );
        cx.tool("GE04", tool, "/name", message);
    }
}

fn keywords(pointer: &str, schema: &Value, found: &mut Found) {
    let Some(map) = schema.as_object() else {
        return;
    };
    for keyword in map.keys().filter(|k| !KNOWN.contains(&k.as_str())) {
        found.push((
            "GE01",
            format!("{pointer}/{}", escape(keyword)),
            format!("Gemini rejects the `{keyword}` keyword"),
        ));
    }
    types(pointer, map, found);
    if map
        .get("items")
        .is_some_and(|items| items.get("anyOf").is_some())
    {
        found.push((
            "GE03",
            format!("{pointer}/items/anyOf"),
            "Gemini rejects `anyOf` inside `items`".to_string(),
        ));
    }
}

/// GE02, GE05, GE06: what the schema's `type` allows.
fn types(pointer: &str, map: &Map<String, Value>, found: &mut Found) {
    let typed = match map.get("type") {
        Some(Value::Array(_)) => {
            found.push((
                "GE06",
                format!("{pointer}/type"),
                "Gemini rejects a list of types (`type` must be one string)".to_string(),
            ));
            return;
        }
        Some(Value::String(t)) => t.as_str(),
        _ => return,
    };
    if map.contains_key("properties") && typed != "object" {
        found.push((
            "GE02",
            format!("{pointer}/properties"),
            format!("`properties` on a schema of type {typed}"),
        ));
    }
    let format = map.get("format").and_then(Value::as_str);
    if let Some(format) = format.filter(|f| typed == "string" && !FORMATS.contains(f)) {
        found.push((
            "GE05",
            format!("{pointer}/format"),
            format!("Gemini accepts only `enum` and `date-time` as string formats, not {format:?}"),
        ));
    }
}

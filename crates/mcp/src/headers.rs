//! `x-mcp-header` (2026-07-28): an `inputSchema` property annotated with a header name is
//! mirrored into an `Mcp-Param-{Name}` header of each call over Streamable HTTP. Which
//! annotations are valid (catalogue rule T9): the linter reports the others, and the tester,
//! as an HTTP client must, calls no tool that has one.

use serde_json::{Map, Value};

/// The annotation's keyword.
pub const KEY: &str = "x-mcp-header";

/// JSON Schema 2020-12 applicators holding one subschema.
const SINGLE: [&str; 11] = [
    "items",
    "contains",
    "unevaluatedItems",
    "additionalProperties",
    "propertyNames",
    "unevaluatedProperties",
    "not",
    "if",
    "then",
    "else",
    "contentSchema",
];
/// ... a list of subschemas.
const LIST: [&str; 4] = ["allOf", "anyOf", "oneOf", "prefixItems"];
/// ... a map of subschemas.
const MAP: [&str; 4] = [
    "patternProperties",
    "dependentSchemas",
    "$defs",
    "definitions",
];

/// The chain of `properties` keys from the root to a schema position; `None` off that chain.
type Path = Option<Vec<String>>;

/// Every schema position of `root` in document order, with its chain of `properties` keys
/// from the root (`None` once another applicator was crossed: not statically reachable).
/// Only applicators are entered, never instance data (`default`, `enum`, ...) nor `$ref`.
fn positions(root: &Value) -> Vec<(Path, &Map<String, Value>)> {
    let mut out = Vec::new();
    // An explicit stack: a deeply nested schema does not grow the call stack.
    let mut stack = vec![(Some(Vec::new()), root)];
    while let Some((path, node)) = stack.pop() {
        let Value::Object(schema) = node else {
            continue;
        };
        out.push((path.clone(), schema));
        let mut below = Vec::new();
        for (keyword, value) in schema {
            below.extend(subschemas(keyword, value, path.as_ref()));
        }
        stack.extend(below.into_iter().rev());
    }
    out
}

/// The subschemas under `keyword`, each with its path (see [`positions`]).
fn subschemas<'a>(
    keyword: &str,
    value: &'a Value,
    path: Option<&Vec<String>>,
) -> Vec<(Path, &'a Value)> {
    match (keyword, value) {
        ("properties", Value::Object(props)) => props
            .iter()
            .map(|(name, sub)| {
                (
                    path.map(|p| [p.as_slice(), std::slice::from_ref(name)].concat()),
                    sub,
                )
            })
            .collect(),
        (k, v) if SINGLE.contains(&k) => vec![(None, v)],
        (k, Value::Array(subs)) if LIST.contains(&k) => subs.iter().map(|s| (None, s)).collect(),
        (k, Value::Object(subs)) if MAP.contains(&k) => subs.values().map(|s| (None, s)).collect(),
        _ => Vec::new(),
    }
}

/// `(header name, property path)` of every annotation a client mirrors into a header: a
/// string on a property reached by `properties` keys alone (what [`invalid`] checks).
pub fn mirrored(input_schema: &Value) -> Vec<(String, Vec<String>)> {
    let reachable = positions(input_schema)
        .into_iter()
        .filter_map(|(path, schema)| {
            let name = schema.get(KEY)?.as_str()?;
            path.filter(|p| !p.is_empty())
                .map(|p| (name.to_string(), p))
        });
    reachable.collect()
}

/// Why the `x-mcp-header` annotations of `input_schema` are invalid, if one is: not on a
/// property reachable by `properties` keys alone, not a non-empty RFC 9110 token, on a
/// property whose `type` is not `string`, `integer` or `boolean`, or the same name as another
/// (case-insensitively).
pub fn invalid(input_schema: &Value) -> Option<String> {
    let mut seen: Vec<(String, String)> = Vec::new();
    for (path, schema) in positions(input_schema) {
        let Some(header) = schema.get(KEY) else {
            continue;
        };
        let Some(path) = path.filter(|p| !p.is_empty()) else {
            return Some(format!(
                "{KEY} at a schema position not reachable by `properties` alone"
            ));
        };
        let at = path.join(".");
        let Some(name) = header.as_str() else {
            return Some(format!("property `{at}`: {KEY} is not a string"));
        };
        if !is_token(name) {
            return Some(format!(
                "property `{at}`: {KEY} {name:?} is not an RFC 9110 token"
            ));
        }
        match schema.get("type").and_then(Value::as_str) {
            Some("string" | "integer" | "boolean") => {}
            other => {
                let got = other.map_or("no single type".to_string(), |t| format!("type {t:?}"));
                return Some(format!(
                    "property `{at}`: {KEY} only goes on a string, integer or boolean property ({got})"
                ));
            }
        }
        let lower = name.to_ascii_lowercase();
        if let Some((_, first)) = seen.iter().find(|(n, _)| *n == lower) {
            return Some(format!(
                "property `{at}`: {KEY} {name:?} repeats the one of property `{first}`"
            ));
        }
        seen.push((lower, at));
    }
    None
}

/// An RFC 9110 token: one or more of the visible characters a field name may hold.
fn is_token(name: &str) -> bool {
    !name.is_empty()
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b))
}

#[cfg(test)]
mod tests {
    use super::invalid;
    use serde_json::json;

    #[test]
    fn annotations_are_held_to_t9() {
        let on = |prop: serde_json::Value| json!({"type": "object", "properties": {"p": prop}});
        assert_eq!(invalid(&json!({"type": "object"})), None);
        assert_eq!(
            invalid(&on(json!({"type": "string", "x-mcp-header": "Region"}))),
            None
        );
        let nested = json!({"type": "object", "properties": {"a": {"type": "object",
            "properties": {"b": {"type": "boolean", "x-mcp-header": "B"}}}}});
        assert_eq!(invalid(&nested), None);
        let cases = [
            (
                on(json!({"type": "number", "x-mcp-header": "N"})),
                "type \"number\"",
            ),
            (on(json!({"x-mcp-header": "N"})), "no single type"),
            (
                on(json!({"type": "string", "x-mcp-header": "a b"})),
                "not an RFC 9110 token",
            ),
            (
                on(json!({"type": "string", "x-mcp-header": ""})),
                "not an RFC 9110 token",
            ),
            (
                on(json!({"type": "string", "x-mcp-header": 3})),
                "is not a string",
            ),
            (
                json!({"type": "array", "items": {"type": "string", "x-mcp-header": "I"}}),
                "not reachable",
            ),
            (
                json!({"type": "object", "x-mcp-header": "Root"}),
                "not reachable",
            ),
            (
                json!({"type": "object", "properties": {
                    "a": {"type": "string", "x-mcp-header": "Dup"},
                    "b": {"type": "string", "x-mcp-header": "dup"}}}),
                "repeats the one of property `a`",
            ),
        ];
        for (schema, why) in cases {
            let found = invalid(&schema).unwrap_or_default();
            assert!(found.contains(why), "{schema}: {found}");
        }
    }

    /// The headers mirrored are those on properties reached by `properties` alone.
    #[test]
    fn mirrored_annotations_are_the_reachable_ones() {
        let schema = json!({"type": "object", "x-mcp-header": "Root", "properties": {
            "a": {"type": "object", "properties": {"b": {"type": "string", "x-mcp-header": "B"}}},
            "c": {"type": "array", "items": {"type": "string", "x-mcp-header": "I"}},
            "d": {"type": "integer", "x-mcp-header": "D"}}});
        let found = super::mirrored(&schema);
        let expected = [("B", vec!["a", "b"]), ("D", vec!["d"])];
        let expected: Vec<(String, Vec<String>)> = expected
            .into_iter()
            .map(|(h, p)| (h.to_string(), p.into_iter().map(String::from).collect()))
            .collect();
        assert_eq!(found, expected);
    }
}

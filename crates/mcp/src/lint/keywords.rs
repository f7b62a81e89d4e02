//! Keyword-level specification rules inside `inputSchema` and `outputSchema`: T206 `required`
//! names a property the schema does not describe; T207 a keyword that is a near miss of a JSON
//! Schema keyword (`minimun`, `requried`), which validators silently ignore as an annotation.

use super::context::{Context, label};
use super::json::escape;
use super::schema;
use super::toolset::Tool;
use serde_json::{Map, Value};

/// Keywords of JSON Schema drafts 4 to 2020-12, plus the OpenAPI and provider extensions tool
/// schemas carry (`nullable`, `example`, `propertyOrdering`).
const KNOWN: &[&str] = &[
    "$schema",
    "$id",
    "id",
    "$ref",
    "$defs",
    "definitions",
    "$comment",
    "$anchor",
    "$dynamicRef",
    "$dynamicAnchor",
    "$recursiveRef",
    "$recursiveAnchor",
    "$vocabulary",
    "type",
    "enum",
    "const",
    "format",
    "title",
    "description",
    "default",
    "examples",
    "example",
    "deprecated",
    "readOnly",
    "writeOnly",
    "nullable",
    "properties",
    "patternProperties",
    "additionalProperties",
    "required",
    "propertyNames",
    "minProperties",
    "maxProperties",
    "dependentRequired",
    "dependentSchemas",
    "dependencies",
    "unevaluatedProperties",
    "items",
    "prefixItems",
    "additionalItems",
    "unevaluatedItems",
    "contains",
    "minContains",
    "maxContains",
    "minItems",
    "maxItems",
    "uniqueItems",
    "minLength",
    "maxLength",
    "pattern",
    "minimum",
    "maximum",
    "exclusiveMinimum",
    "exclusiveMaximum",
    "multipleOf",
    "allOf",
    "anyOf",
    "oneOf",
    "not",
    "if",
    "then",
    "else",
    "contentEncoding",
    "contentMediaType",
    "contentSchema",
    "propertyOrdering",
];

pub fn check(cx: &mut Context, tool: &Tool, field: &str) {
    let Some(root) = tool.value.get(field).filter(|s| s.is_object()) else {
        return;
    };
    if root.get("$vocabulary").is_some() {
        return; // a custom vocabulary may define any keyword
    }
    let mut found: Vec<(&'static str, String, String)> = Vec::new();
    schema::walk(root, &format!("/{field}"), &mut |pointer, sub| {
        if let Some(map) = sub.as_object() {
            if !branch(pointer) {
                required(pointer, map, &mut found);
            }
            misspelled(pointer, map, &mut found);
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

/// Whether the subschema at `pointer` is a branch of a combinator (`anyOf/1`, `not`, `then`):
/// its `required` refers to the properties of the schema around it.
fn branch(pointer: &str) -> bool {
    let mut segments = pointer.rsplit('/');
    let last = segments.next().unwrap_or("");
    let parent = segments.next().unwrap_or("");
    matches!(last, "not" | "if" | "then" | "else")
        || matches!(parent, "anyOf" | "oneOf" | "allOf" | "dependentSchemas")
}

/// T206: names in `required` that `properties` does not describe. Schemas that may describe
/// properties elsewhere (pattern properties, combinators, references) are left alone.
fn required(
    pointer: &str,
    map: &Map<String, Value>,
    found: &mut Vec<(&'static str, String, String)>,
) {
    let Some(names) = map.get("required").and_then(Value::as_array) else {
        return;
    };
    let elsewhere = [
        "patternProperties",
        "allOf",
        "anyOf",
        "oneOf",
        "$ref",
        "if",
        "dependentSchemas",
    ];
    if elsewhere.iter().any(|k| map.contains_key(*k)) {
        return;
    }
    let described = map.get("properties").and_then(Value::as_object);
    for (index, name) in names
        .iter()
        .enumerate()
        .filter_map(|(i, n)| Some((i, n.as_str()?)))
    {
        if described.is_some_and(|p| p.contains_key(name)) {
            continue;
        }
        let closed = map.get("additionalProperties") == Some(&Value::Bool(false));
        let consequence = if closed {
            "and additionalProperties is false, so no call can satisfy the schema"
        } else {
            "so a model cannot know what to send"
        };
        found.push((
            "T206",
            format!("{pointer}/required/{index}"),
            format!(
                "`required` names `{name}`, which `properties` does not describe, {consequence}"
            ),
        ));
    }
}

/// T207: keys that are not keywords but one or two edits away from one.
fn misspelled(
    pointer: &str,
    map: &Map<String, Value>,
    found: &mut Vec<(&'static str, String, String)>,
) {
    for key in map
        .keys()
        .filter(|k| !KNOWN.contains(&k.as_str()) && !k.starts_with("x-"))
    {
        if let Some(keyword) = near_miss(key) {
            found.push((
                "T207",
                format!("{pointer}/{}", escape(key)),
                format!("`{key}` is not a JSON Schema keyword (did you mean `{keyword}`?); validators ignore it"),
            ));
        }
    }
}

/// The keyword `key` most likely misspells: same letters in another case, or within one edit
/// (two for keywords of seven letters or more).
fn near_miss(key: &str) -> Option<&'static str> {
    if key.chars().count() < 4 {
        return None;
    }
    KNOWN.iter().copied().find(|keyword| {
        let allowed = if keyword.len() >= 7 { 2 } else { 1 };
        keyword.eq_ignore_ascii_case(key) || distance(key, keyword) <= allowed
    })
}

/// Edit distance with adjacent transpositions (optimal string alignment).
fn distance(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    let mut rows = vec![vec![0usize; b.len() + 1]; a.len() + 1];
    for (i, row) in rows.iter_mut().enumerate() {
        row[0] = i;
    }
    for (j, cell) in rows[0].iter_mut().enumerate() {
        *cell = j;
    }
    for i in 1..=a.len() {
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            let mut best = (rows[i - 1][j] + 1)
                .min(rows[i][j - 1] + 1)
                .min(rows[i - 1][j - 1] + cost);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                best = best.min(rows[i - 2][j - 2] + 1);
            }
            rows[i][j] = best;
        }
    }
    rows[a.len()][b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn near_misses_of_keywords() {
        assert_eq!(near_miss("minimun"), Some("minimum"));
        assert_eq!(near_miss("requried"), Some("required"));
        assert_eq!(near_miss("MaxLength"), Some("maxLength"));
        assert_eq!(
            near_miss("additionalProperites"),
            Some("additionalProperties")
        );
        assert_eq!(near_miss("color"), None);
        assert_eq!(near_miss("url"), None);
    }
}

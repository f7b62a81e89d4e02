//! JSON Schema helpers: the dialect a schema declares, validation against its meta-schema, and a
//! walk over every subschema with its JSON pointer (for keyword-level rules).

use serde_json::Value;

/// The outcome of checking one schema against its dialect.
pub enum Validity {
    Valid,
    /// `$schema` names a dialect we cannot check against; the URI.
    UnknownDialect(String),
    /// Valid against its meta-schema, but `$ref`s (pointer, URI) point at the network, which
    /// clients must not fetch; the schema was not compiled.
    RemoteRefs(Vec<(String, String)>),
    /// Invalid: the pointer inside the schema and the reason.
    Invalid(String, String),
    /// Valid against its meta-schema, but compiling it would copy this many JSON values (the
    /// validator keeps a copy of every `not` subschema, so nested `not`s cost the square of
    /// their depth); it was not compiled.
    TooCostly(usize),
}

/// The most JSON values compiling one schema may copy (a few hundred MB at most).
const COMPILE_BUDGET: usize = 2_000_000;

const DIALECTS: &[&str] = &[
    "json-schema.org/draft-04/schema",
    "json-schema.org/draft-06/schema",
    "json-schema.org/draft-07/schema",
    "json-schema.org/draft/2019-09/schema",
    "json-schema.org/draft/2020-12/schema",
];

fn known_dialect(uri: &str) -> bool {
    let rest = uri
        .strip_prefix("https://")
        .or_else(|| uri.strip_prefix("http://"))
        .unwrap_or("");
    DIALECTS.contains(&rest.trim_end_matches('#'))
}

/// Checks `schema` against the meta-schema of its dialect (2020-12 when `$schema` is absent, as
/// MCP 2025-11-25 prescribes), then compiles it to catch bad regexes and unresolvable `$ref`s.
pub fn validate(schema: &Value) -> Validity {
    if let Some(dialect) = schema.get("$schema") {
        match dialect.as_str() {
            Some(uri) if known_dialect(uri) => {}
            Some(uri) => return Validity::UnknownDialect(uri.into()),
            None => {
                return Validity::Invalid("/$schema".into(), "`$schema` is not a string".into());
            }
        }
    }
    let checked = if schema.get("$schema").is_some() {
        jsonschema::meta::validate(schema)
            .map_err(|e| (e.instance_path().to_string(), e.to_string()))
    } else {
        jsonschema::draft202012::meta::validate(schema)
            .map_err(|e| (e.instance_path().to_string(), e.to_string()))
    };
    if let Err((pointer, reason)) = checked {
        return Validity::Invalid(pointer, reason);
    }
    let remote = remote_refs(schema);
    if !remote.is_empty() {
        return Validity::RemoteRefs(remote);
    }
    let cost = copies(schema).1;
    if cost > COMPILE_BUDGET {
        return Validity::TooCostly(cost);
    }
    match compile(schema) {
        Ok(_) => Validity::Valid,
        Err(reason) => Validity::Invalid(String::new(), reason),
    }
}

/// The number of JSON values in `value`, and how many of them compiling it copies: the whole
/// subschema of every `not` (see [`Validity::TooCostly`]).
fn copies(value: &Value) -> (usize, usize) {
    let children: Vec<(&String, &Value)> = match value {
        Value::Object(map) => map.iter().collect(),
        Value::Array(items) => {
            return items
                .iter()
                .map(copies)
                .fold((1, 0), |(n, c), (m, d)| (n + m, c.saturating_add(d)));
        }
        _ => return (1, 0),
    };
    children.into_iter().fold((1, 0), |(n, c), (key, child)| {
        let (size, cost) = copies(child);
        let copied = if key == "not" { size } else { 0 };
        (n + size, c.saturating_add(cost).saturating_add(copied))
    })
}

/// Every `$ref` to an `http(s)://` URI, with the pointer of its `$ref` keyword.
fn remote_refs(schema: &Value) -> Vec<(String, String)> {
    let mut found = Vec::new();
    walk(schema, "", &mut |pointer, sub| {
        let uri = sub.get("$ref").and_then(Value::as_str).unwrap_or("");
        if uri.starts_with("http://") || uri.starts_with("https://") {
            found.push((format!("{pointer}/$ref"), uri.to_string()));
        }
    });
    found
}

/// Compiles a schema for validating instances (no network access: remote `$ref`s fail).
pub fn compile(schema: &Value) -> Result<jsonschema::Validator, String> {
    let mut options = jsonschema::options();
    if schema.get("$schema").is_none() {
        options = options.with_draft(jsonschema::Draft::Draft202012);
    }
    options.build(schema).map_err(|e| e.to_string())
}

/// Keywords whose value is one subschema.
const ONE: &[&str] = &[
    "items",
    "additionalProperties",
    "not",
    "if",
    "then",
    "else",
    "contains",
    "propertyNames",
    "unevaluatedItems",
    "unevaluatedProperties",
    "additionalItems",
];
/// Keywords whose value is an array of subschemas.
const MANY: &[&str] = &["anyOf", "oneOf", "allOf", "prefixItems"];
/// Keywords whose value maps names to subschemas.
const MAP: &[&str] = &[
    "properties",
    "patternProperties",
    "$defs",
    "definitions",
    "dependentSchemas",
];

/// Calls `visit(pointer, schema)` for `schema` and every subschema below it, depth first, in
/// document order. Pointers start with `base`. One buffer holds the pointer, so memory stays
/// linear in the depth of the schema.
pub fn walk(schema: &Value, base: &str, visit: &mut dyn FnMut(&str, &Value)) {
    let mut pointer = base.to_string();
    walk_in(schema, &mut pointer, visit);
}

type Visit<'v> = dyn FnMut(&str, &Value) + 'v;

fn walk_in(schema: &Value, pointer: &mut String, visit: &mut Visit) {
    visit(pointer, schema);
    let Some(object) = schema.as_object() else {
        return;
    };
    for (keyword, value) in object {
        let keyword = keyword.as_str();
        let children: Vec<(String, &Value)> = if ONE.contains(&keyword) {
            match value {
                Value::Array(items) if keyword == "items" => indexed(items),
                _ => vec![(String::new(), value)],
            }
        } else if MANY.contains(&keyword) {
            indexed(value.as_array().map_or(&[][..], Vec::as_slice))
        } else if MAP.contains(&keyword)
            && let Some(map) = value.as_object()
        {
            map.iter()
                .map(|(name, sub)| (format!("/{}", super::json::escape(name)), sub))
                .collect()
        } else {
            continue;
        };
        let length = pointer.len();
        pointer.push('/');
        pointer.push_str(&super::json::escape(keyword));
        for (suffix, child) in children {
            let here = pointer.len();
            pointer.push_str(&suffix);
            walk_in(child, pointer, visit);
            pointer.truncate(here);
        }
        pointer.truncate(length);
    }
}

/// `("/0", first), ("/1", second), ...`
fn indexed(items: &[Value]) -> Vec<(String, &Value)> {
    items
        .iter()
        .enumerate()
        .map(|(i, item)| (format!("/{i}"), item))
        .collect()
}

/// Calls `visit(pointer, name, schema)` for every named property: those of `schema` and, below
/// them, of nested objects and array items (the parameters a model must fill in).
pub fn properties(schema: &Value, pointer: &str, visit: &mut dyn FnMut(&str, &str, &Value)) {
    if let Some(map) = schema.get("properties").and_then(Value::as_object) {
        for (name, sub) in map {
            let here = format!("{pointer}/properties/{}", super::json::escape(name));
            visit(&here, name, sub);
            properties(sub, &here, visit);
        }
    }
    if let Some(items) = schema.get("items").filter(|i| i.is_object()) {
        properties(items, &format!("{pointer}/items"), visit);
    }
}

//! Tool arguments from a tool's `inputSchema`: a valid object (small values, so that a
//! `duration` or a `count` stays short), and invalid ones (a required property left out, a
//! property of the wrong type, a property the schema forbids), each checked against the
//! schema with the `jsonschema` crate so that "valid" and "invalid" are the schema's word,
//! not the generator's.

use crate::rng::Rng;
use serde_json::{Map, Value, json};

/// How deep nested objects and arrays are filled in.
const DEPTH: usize = 4;

/// A valid arguments object for `schema`, or `None` when the generator cannot find one
/// (patterns, exotic combinations): such a tool is called with its invalid arguments only.
pub fn valid(schema: &Value, rng: &mut Rng) -> Option<Value> {
    let validator = jsonschema::validator_for(schema).ok()?;
    // A few tries: optional properties are drawn at random.
    (0..4)
        .map(|_| object(schema, rng, DEPTH))
        .find(|v| validator.is_valid(v))
}

/// An invalid arguments object for `schema` (still a JSON object, so that the call itself is
/// well formed), with what makes it invalid; `None` when the schema accepts anything.
pub fn invalid(schema: &Value, rng: &mut Rng) -> Option<(Value, String)> {
    let validator = jsonschema::validator_for(schema).ok()?;
    let base = object(schema, rng, DEPTH);
    let mut ways = breakages(schema, &base);
    rng.shuffle(&mut ways);
    ways.into_iter().find(|(v, _)| !validator.is_valid(v))
}

/// Every way to break `base` that the schema names: drop a required property, give a typed
/// property a value of another type, add a property the schema forbids.
fn breakages(schema: &Value, base: &Value) -> Vec<(Value, String)> {
    let mut out = Vec::new();
    let Some(fields) = base.as_object() else {
        return out;
    };
    let required = schema.get("required").and_then(Value::as_array);
    for name in required.into_iter().flatten().filter_map(Value::as_str) {
        let mut broken = fields.clone();
        broken.shift_remove(name);
        out.push((Value::Object(broken), format!("required `{name}` left out")));
    }
    let props = schema.get("properties").and_then(Value::as_object);
    for (name, prop) in props.into_iter().flatten() {
        if let Some(wrong) = wrong_type(prop) {
            let mut broken = fields.clone();
            broken.insert(name.clone(), wrong);
            out.push((Value::Object(broken), format!("`{name}` of the wrong type")));
        }
    }
    if schema.get("additionalProperties") == Some(&Value::Bool(false)) {
        let mut broken = fields.clone();
        broken.insert("agentpi_unexpected".into(), json!(true));
        out.push((
            Value::Object(broken),
            "a property the schema forbids".into(),
        ));
    }
    out
}

/// A value of a type the property does not allow.
fn wrong_type(prop: &Value) -> Option<Value> {
    let types = type_names(prop);
    let candidates = [
        ("string", json!("agentpi-not-a-number")),
        ("integer", json!(12345)),
        ("boolean", json!("agentpi-not-a-boolean")),
        ("object", json!(7)),
        ("array", json!({"agentpi": "not-an-array"})),
    ];
    if types.is_empty() {
        return None;
    }
    candidates
        .into_iter()
        .find(|(t, v)| !types.iter().any(|have| accepts(have, t, v)))
        .map(|(_, v)| v)
}

/// Whether declared type `have` accepts `value` (of JSON type `t`).
fn accepts(have: &str, t: &str, value: &Value) -> bool {
    have == t || (have == "number" && value.is_number()) || (have == "integer" && t == "number")
}

fn type_names(schema: &Value) -> Vec<String> {
    match schema.get("type") {
        Some(Value::String(t)) => vec![t.clone()],
        Some(Value::Array(ts)) => ts
            .iter()
            .filter_map(Value::as_str)
            .map(String::from)
            .collect(),
        _ => Vec::new(),
    }
}

/// An object with every required property and, at random, some optional ones.
fn object(schema: &Value, rng: &mut Rng, depth: usize) -> Value {
    let mut out = Map::new();
    let required: Vec<&str> = schema
        .get("required")
        .and_then(Value::as_array)
        .map(|r| r.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let props = schema.get("properties").and_then(Value::as_object);
    for (name, prop) in props.into_iter().flatten() {
        if required.contains(&name.as_str()) || rng.chance(40) {
            out.insert(name.clone(), value(prop, rng, depth.saturating_sub(1)));
        }
    }
    Value::Object(out)
}

/// A small value of the schema's type.
fn value(schema: &Value, rng: &mut Rng, depth: usize) -> Value {
    if let Some(choices) = schema.get("enum").and_then(Value::as_array) {
        return rng.pick(choices).cloned().unwrap_or(Value::Null);
    }
    if let Some(constant) = schema.get("const") {
        return constant.clone();
    }
    for key in ["anyOf", "oneOf"] {
        if let Some(branches) = schema.get(key).and_then(Value::as_array) {
            return rng
                .pick(branches)
                .map_or(Value::Null, |b| value(b, rng, depth));
        }
    }
    let types = type_names(schema);
    let t = types
        .iter()
        .find(|t| *t != "null")
        .map_or("string", String::as_str);
    match t {
        "integer" | "number" => json!(number(schema, rng)),
        "boolean" => json!(rng.chance(50)),
        "array" => array(schema, rng, depth),
        "object" if depth > 0 => object(schema, rng, depth),
        "object" => json!({}),
        "null" => Value::Null,
        _ => string(schema),
    }
}

/// A small integer within the schema's bounds: the least allowed, or a little above it.
fn number(schema: &Value, rng: &mut Rng) -> i64 {
    let bound = |k: &str| schema.get(k).and_then(Value::as_f64);
    let lo = bound("minimum")
        .or(bound("exclusiveMinimum").map(|m| m.floor() + 1.0))
        .unwrap_or(0.0)
        .ceil() as i64;
    let hi = bound("maximum")
        .or(bound("exclusiveMaximum").map(|m| m.ceil() - 1.0))
        .map_or(lo + 3, |h| h.floor() as i64);
    let span = (hi - lo).clamp(0, 3) as usize;
    lo + rng.below(span + 1) as i64
}

fn array(schema: &Value, rng: &mut Rng, depth: usize) -> Value {
    let min = schema.get("minItems").and_then(Value::as_u64).unwrap_or(0) as usize;
    let max = schema
        .get("maxItems")
        .and_then(Value::as_u64)
        .map_or(min + 2, |m| m as usize);
    let n = min + rng.below(max.saturating_sub(min).min(2) + 1);
    let items = schema.get("items").cloned().unwrap_or(json!({}));
    if depth == 0 {
        return json!([]);
    }
    Value::Array((0..n).map(|_| value(&items, rng, depth - 1)).collect())
}

fn string(schema: &Value) -> Value {
    let text = match schema.get("format").and_then(Value::as_str) {
        Some("uri" | "uri-reference" | "iri") => "file:///agentpi-test",
        Some("date-time") => "2026-01-01T00:00:00Z",
        Some("date") => "2026-01-01",
        Some("email") => "agentpi@example.com",
        _ => "agentpi",
    };
    let min = schema.get("minLength").and_then(Value::as_u64).unwrap_or(0) as usize;
    let mut s = text.to_string();
    while s.len() < min {
        s.push('x');
    }
    if let Some(max) = schema.get("maxLength").and_then(Value::as_u64) {
        s.truncate(max as usize);
    }
    json!(s)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn valid_and_invalid_by_the_schema() {
        let schema = json!({"type": "object", "properties": {
            "duration": {"type": "number", "minimum": 1, "default": 10},
            "mode": {"type": "string", "enum": ["a", "b"]},
            "flag": {"type": "boolean"}},
            "required": ["duration"], "additionalProperties": false});
        let mut rng = Rng::new(3);
        let v = valid(&schema, &mut rng).unwrap();
        let d = v["duration"].as_i64().unwrap();
        assert!((1..=4).contains(&d), "{v}");
        let (bad, why) = invalid(&schema, &mut rng).unwrap();
        let validator = jsonschema::validator_for(&schema).unwrap();
        assert!(!validator.is_valid(&bad), "{bad} {why}");
    }

    #[test]
    fn a_schema_that_takes_anything_has_no_invalid_object() {
        let mut rng = Rng::new(1);
        assert!(invalid(&json!({"type": "object"}), &mut rng).is_none());
        assert_eq!(valid(&json!({"type": "object"}), &mut rng), Some(json!({})));
    }
}

//! How long a tool call asks to take. The arguments that set a duration are found by their
//! names and descriptions (`duration`, `seconds`, `delay`, `sleep`, `wait`, `timeout`,
//! `latency`; in milliseconds when a word of the name is `ms` or `millis`, or the description
//! says milliseconds), and those that count steps by `steps`. The walk sets them to make a
//! call slow or quick (`timed`), within the schema's ranges; the facts of a run read them back
//! (`asked`) to tell whether a cancelled call would still have been running past the race
//! window, so that C3 and C4 are passed only when a late answer could have been seen.

use serde_json::{Value, json};

/// What a duration-like argument counts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Unit {
    Seconds,
    Millis,
    Steps,
}

/// The words of a property name: split at anything not alphanumeric and at camelCase humps,
/// lowercased (`delayMs` is `delay ms`, `sleep_seconds` is `sleep seconds`).
fn words(name: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut word = String::new();
    let mut prev_lower = false;
    for c in name.chars() {
        if !c.is_alphanumeric() {
            out.extend((!word.is_empty()).then(|| std::mem::take(&mut word)));
            prev_lower = false;
            continue;
        }
        if c.is_uppercase() && prev_lower {
            out.push(std::mem::take(&mut word));
        }
        prev_lower = c.is_lowercase() || c.is_ascii_digit();
        word.extend(c.to_lowercase());
    }
    out.extend((!word.is_empty()).then_some(word));
    out
}

const TIME_WORDS: [&str; 11] = [
    "duration", "seconds", "second", "secs", "sec", "delay", "sleep", "wait", "timeout", "latency",
    "ms",
];
const MILLI_WORDS: [&str; 4] = ["ms", "millis", "milliseconds", "msec"];

/// The unit of property `name` (with its schema `prop`), if it sets how long a call takes.
pub fn unit(name: &str, prop: &Value) -> Option<Unit> {
    let words = words(name);
    let has = |set: &[&str]| words.iter().any(|w| set.contains(&w.as_str()));
    let described = prop
        .get("description")
        .and_then(Value::as_str)
        .unwrap_or("")
        .to_lowercase();
    if has(&["steps"]) {
        return Some(Unit::Steps);
    }
    if !has(&TIME_WORDS) && !has(&MILLI_WORDS) {
        return None;
    }
    if has(&MILLI_WORDS) || described.contains("millisecond") {
        Some(Unit::Millis)
    } else {
        Some(Unit::Seconds)
    }
}

fn properties(schema: &Value) -> impl Iterator<Item = (&String, &Value)> {
    let props = schema.get("properties").and_then(Value::as_object);
    props.into_iter().flatten()
}

/// Whether the tool's schema has an argument that sets how long it takes.
pub fn has_duration(schema: &Value) -> bool {
    properties(schema)
        .any(|(name, prop)| matches!(unit(name, prop), Some(Unit::Seconds | Unit::Millis)))
}

/// `args` with each duration-like property set so that the call takes about `slow` seconds
/// (or the longest the schema allows below that), and step-like ones to 4; or all of them to
/// 0 (else the least the schema allows) when not slow. A value the schema rejects is not set.
pub fn timed(schema: &Value, args: Value, slow: Option<f64>) -> Value {
    let Ok(validator) = jsonschema::validator_for(schema) else {
        return args;
    };
    let mut out = args;
    for (name, prop) in properties(schema) {
        let Some(unit) = unit(name, prop) else {
            continue;
        };
        for value in candidates(unit, prop, slow) {
            let mut tried = out.clone();
            tried[name.as_str()] = value;
            if validator.is_valid(&tried) {
                out = tried;
                break;
            }
        }
    }
    out
}

/// The values to try for a property of `unit`, best first.
fn candidates(unit: Unit, prop: &Value, slow: Option<f64>) -> Vec<Value> {
    let bound = |k: &str| prop.get(k).and_then(Value::as_f64);
    let scale = if unit == Unit::Millis { 1000.0 } else { 1.0 };
    let mut out = match (unit, slow) {
        (Unit::Steps, Some(_)) => vec![json!(4)],
        (_, Some(s)) => {
            let want = s * scale;
            let whole = json!(want.round().max(1.0) as i64);
            let mut v = if want.fract() == 0.0 {
                vec![whole]
            } else {
                vec![json!(want), whole]
            };
            if let Some(max) = bound("maximum").filter(|m| *m < want) {
                v.push(json!(max));
                v.push(json!(max.floor() as i64));
            }
            v
        }
        (_, None) => vec![json!(0)],
    };
    if let Some(min) = bound("minimum").or(bound("exclusiveMinimum")) {
        out.push(json!(min.ceil() as i64));
    }
    out
}

/// How long a call with `args` asks to take by its duration-like arguments, in seconds (the
/// longest of them), given its tool's `schema`; `None` when it sets none.
pub fn asked(schema: &Value, args: &Value) -> Option<f64> {
    let mut longest: Option<f64> = None;
    for (name, prop) in properties(schema) {
        let seconds = match (unit(name, prop), args.get(name).and_then(Value::as_f64)) {
            (Some(Unit::Seconds), Some(v)) => v,
            (Some(Unit::Millis), Some(v)) => v / 1000.0,
            _ => continue,
        };
        longest = Some(longest.map_or(seconds, |l| l.max(seconds)));
    }
    longest
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn units_come_from_names_and_descriptions() {
        let none = json!({});
        assert_eq!(unit("ms", &none), Some(Unit::Millis));
        assert_eq!(unit("delayMs", &none), Some(Unit::Millis));
        assert_eq!(unit("sleep_seconds", &none), Some(Unit::Seconds));
        assert_eq!(unit("duration", &none), Some(Unit::Seconds));
        assert_eq!(unit("steps", &none), Some(Unit::Steps));
        assert_eq!(unit("items", &none), None);
        assert_eq!(unit("message", &none), None);
        let described = json!({"description": "how long to wait, in milliseconds"});
        assert_eq!(unit("wait", &described), Some(Unit::Millis));
    }

    /// The issue's `slow_echo(text, ms)`: the slow call asks for a second in milliseconds,
    /// and the facts read a second back; a maximum below that is kept to.
    #[test]
    fn a_slow_call_sets_milliseconds_within_the_schema() {
        let schema = json!({"type": "object", "properties": {
            "text": {"type": "string"}, "ms": {"type": "integer", "minimum": 0}},
            "required": ["text"]});
        let args = timed(&schema, json!({"text": "a", "ms": 3}), Some(1.0));
        assert_eq!(args["ms"], 1000);
        assert_eq!(asked(&schema, &args), Some(1.0));
        let quick = timed(&schema, json!({"text": "a"}), None);
        assert_eq!(asked(&schema, &quick), Some(0.0));
        let capped = json!({"type": "object", "properties": {
            "ms": {"type": "integer", "maximum": 300}}});
        let args = timed(&capped, json!({}), Some(1.0));
        assert_eq!(asked(&capped, &args), Some(0.3));
    }
}

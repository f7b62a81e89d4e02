//! The JSON arguments of a call: the binding's `args`, with templates filled in from the
//! model's request values and from earlier results. In a string, `"$1"` alone is the first
//! request value as JSON (a number, a boolean, a constructor's name, an array for a tuple),
//! `${1}` is its text, `${fetch_a}` the text of the last `ok` result of extern `fetch_a`, and
//! `$$` a dollar sign. Without `args`, the request values fill the tool's input properties in
//! the order its schema lists them.

use serde_json::{Map, Value};
use std::collections::BTreeMap;

/// The text of each extern's last `ok` result, by channel name.
pub type Results = BTreeMap<String, String>;

/// A request value of the model: as JSON, and as text.
#[derive(Clone, Debug, PartialEq)]
pub struct Arg {
    pub json: Value,
    pub text: String,
}

/// One piece of a template string.
#[derive(Debug, PartialEq)]
enum Piece<'a> {
    Text(&'a str),
    /// `${k}`: request value `k` (1-based), as text.
    Value(usize),
    /// `${name}`: the last result of an extern.
    Result(&'a str),
}

/// Splits a template string; an error says what is wrong with it.
fn pieces(s: &str) -> Result<Vec<Piece<'_>>, String> {
    let mut out = Vec::new();
    let mut rest = s;
    while let Some(at) = rest.find('$') {
        if at > 0 {
            out.push(Piece::Text(&rest[..at]));
        }
        let after = &rest[at + 1..];
        if let Some(tail) = after.strip_prefix('$') {
            out.push(Piece::Text("$"));
            rest = tail;
        } else if let Some(inner) = after.strip_prefix('{') {
            let end = inner
                .find('}')
                .ok_or_else(|| format!("`{s}`: `${{` without `}}`"))?;
            let name = &inner[..end];
            out.push(match name.parse::<usize>() {
                Ok(k) => Piece::Value(k),
                Err(_) => Piece::Result(name),
            });
            rest = &inner[end + 1..];
        } else {
            return Err(format!(
                "`{s}`: a `$` starts `$N` (alone), `${{N}}`, `${{extern}}` or `$$`"
            ));
        }
    }
    if !rest.is_empty() {
        out.push(Piece::Text(rest));
    }
    Ok(out)
}

/// `"$k"` alone: request value `k`.
fn whole_value(s: &str) -> Option<usize> {
    s.strip_prefix('$')?.parse().ok()
}

/// Checks the templates of a binding's arguments before anything runs: `values` request
/// values exist, and `externs` are the names `${name}` may use.
pub fn check(args: &Value, values: usize, externs: &[&str]) -> Result<(), String> {
    let index = |k: usize| match (1..=values).contains(&k) {
        true => Ok(()),
        false => Err(format!("`${k}`: the call has {values} request value(s)")),
    };
    match args {
        Value::String(s) => {
            if let Some(k) = whole_value(s) {
                return index(k);
            }
            for piece in pieces(s)? {
                match piece {
                    Piece::Value(k) => index(k)?,
                    Piece::Result(name) if !externs.contains(&name) => {
                        return Err(format!(
                            "`${{{name}}}`: no extern channel `{name}` (results are named by the channel that got them)"
                        ));
                    }
                    _ => {}
                }
            }
            Ok(())
        }
        Value::Array(items) => items.iter().try_for_each(|v| check(v, values, externs)),
        Value::Object(map) => map.values().try_for_each(|v| check(v, values, externs)),
        _ => Ok(()),
    }
}

/// The arguments of one call. `order` is the tool's input properties in schema order (used
/// when there is no `args`). Missing results fill in as empty text.
pub fn build(args: Option<&Value>, values: &[Arg], results: &Results, order: &[String]) -> Value {
    match args {
        Some(template) => fill(template, values, results),
        None => {
            let pairs = order
                .iter()
                .zip(values)
                .map(|(k, v)| (k.clone(), v.json.clone()));
            Value::Object(pairs.collect::<Map<String, Value>>())
        }
    }
}

fn fill(template: &Value, values: &[Arg], results: &Results) -> Value {
    match template {
        Value::String(s) => {
            if let Some(k) = whole_value(s) {
                return values.get(k - 1).map_or(Value::Null, |v| v.json.clone());
            }
            let Ok(pieces) = pieces(s) else {
                return template.clone();
            };
            let text: String = pieces
                .iter()
                .map(|p| match p {
                    Piece::Text(t) => t.to_string(),
                    Piece::Value(k) => values
                        .get(k - 1)
                        .map(|v| v.text.clone())
                        .unwrap_or_default(),
                    Piece::Result(name) => results.get(*name).cloned().unwrap_or_default(),
                })
                .collect();
            Value::String(text)
        }
        Value::Array(items) => {
            Value::Array(items.iter().map(|v| fill(v, values, results)).collect())
        }
        Value::Object(map) => Value::Object(
            map.iter()
                .map(|(k, v)| (k.clone(), fill(v, values, results)))
                .collect(),
        ),
        other => other.clone(),
    }
}

/// The text of a result for later templates: its text contents joined by newlines, or else
/// its structured content as JSON.
pub fn result_text(result: &Value) -> String {
    let texts: Vec<&str> = result
        .get("content")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|c| c.get("text").and_then(Value::as_str))
        .collect();
    if texts.is_empty() {
        return result
            .get("structuredContent")
            .map(Value::to_string)
            .unwrap_or_default();
    }
    texts.join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn arg(json: Value, text: &str) -> Arg {
        Arg {
            json,
            text: text.into(),
        }
    }

    #[test]
    fn templates_fill_values_results_and_dollars() {
        let values = [arg(json!(3), "3"), arg(json!("add"), "add")];
        let results = Results::from([("fetch_a".to_string(), "A".to_string())]);
        let template = json!({"n": "$1", "op": "$2", "text": "${fetch_a}+${fetch_b} costs $$${1}", "list": ["$2", 7]});
        assert_eq!(check(&template, 2, &["fetch_a", "fetch_b"]), Ok(()));
        let got = build(Some(&template), &values, &results, &[]);
        assert_eq!(
            got,
            json!({"n": 3, "op": "add", "text": "A+ costs $3", "list": ["add", 7]})
        );
    }

    #[test]
    fn without_args_values_follow_the_schema_order() {
        let values = [arg(json!(1), "1"), arg(json!(true), "true")];
        let order = ["a".to_string(), "b".to_string(), "c".to_string()];
        assert_eq!(
            build(None, &values, &Results::new(), &order),
            json!({"a": 1, "b": true})
        );
        assert_eq!(build(None, &[], &Results::new(), &order), json!({}));
    }

    #[test]
    fn bad_templates_are_explained() {
        assert!(
            check(&json!("$3"), 2, &[])
                .unwrap_err()
                .contains("2 request value")
        );
        assert!(
            check(&json!(["${nope}"]), 0, &["a"])
                .unwrap_err()
                .contains("no extern channel `nope`")
        );
        assert!(
            check(&json!({"k": "cost $ 5"}), 0, &[])
                .unwrap_err()
                .contains("`$$`")
        );
        assert!(
            check(&json!("${open"), 0, &[])
                .unwrap_err()
                .contains("without")
        );
    }

    #[test]
    fn result_text_prefers_text_contents() {
        let r = json!({"content": [{"type": "text", "text": "a"}, {"type": "image"}, {"type": "text", "text": "b"}]});
        assert_eq!(result_text(&r), "a\nb");
        assert_eq!(
            result_text(&json!({"content": [], "structuredContent": {"x": 1}})),
            "{\"x\":1}"
        );
    }
}

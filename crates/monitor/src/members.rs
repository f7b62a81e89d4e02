//! A message's top level read member by member: only the members the envelope checks read
//! (`jsonrpc`, `id`, `method`, `params`, `result`, `error`) are kept, and `jsonrpc` only as
//! whether it is `"2.0"`, so a message costs no ordered map, no key strings and no copy of
//! its version. Parsing a `Value` whole and taking it apart found the same: every member is
//! still parsed as a `Value` would parse it (the same errors for the same bytes: a number
//! out of range, a lone surrogate, the nesting limit), a repeated member's last value wins
//! as in a map, and the members a message is rebuilt from (`Message::to_value`) are these.

use serde::Deserialize;
use serde::de::{self, DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::Value;
use std::fmt;

/// The top level of a message.
// Read once and taken apart at once: boxing the members would be an allocation a message,
// what this module is here to save.
#[allow(clippy::large_enum_variant)]
#[derive(Debug, PartialEq)]
pub enum Top {
    Object(Members),
    Array,
    /// A string, number, boolean or null.
    Other,
}

/// The members of a top-level object the envelope reads (the last of each name).
#[derive(Debug, Default, PartialEq)]
pub struct Members {
    /// Whether it has a `jsonrpc` member, and whether that is `"2.0"`.
    pub jsonrpc: Option<bool>,
    pub id: Option<Value>,
    pub method: Option<Value>,
    pub params: Option<Value>,
    pub result: Option<Value>,
    pub error: Option<Value>,
}

/// Reads `text` (one JSON value and nothing after it but white space), or `None` when it is
/// not JSON (where `serde_json::from_str::<Value>` fails). (`flat::top` scans a flat
/// message without serde first.)
pub fn read(text: &str) -> Option<Top> {
    let mut de = serde_json::Deserializer::from_str(text);
    let top = de.deserialize_any(TopVisitor).ok()?;
    de.end().ok()?;
    Some(top)
}

struct TopVisitor;

impl<'de> Visitor<'de> for TopVisitor {
    type Value = Top;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a JSON value")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Top, A::Error> {
        let mut members = Members::default();
        while let Some(name) = map.next_key::<Name>()? {
            let slot = match name {
                Name::Jsonrpc => {
                    members.jsonrpc = Some(map.next_value_seed(IsTwo)?);
                    continue;
                }
                Name::Id => &mut members.id,
                Name::Method => &mut members.method,
                Name::Params => &mut members.params,
                Name::Result => &mut members.result,
                Name::Error => &mut members.error,
                Name::Other => {
                    // Parsed as a `Value` is, for the same errors; then dropped.
                    map.next_value::<Value>()?;
                    continue;
                }
            };
            *slot = Some(map.next_value()?);
        }
        Ok(Top::Object(members))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Top, A::Error> {
        while seq.next_element::<Value>()?.is_some() {}
        Ok(Top::Array)
    }

    fn visit_bool<E>(self, _: bool) -> Result<Top, E> {
        Ok(Top::Other)
    }
    fn visit_i64<E>(self, _: i64) -> Result<Top, E> {
        Ok(Top::Other)
    }
    fn visit_u64<E>(self, _: u64) -> Result<Top, E> {
        Ok(Top::Other)
    }
    fn visit_f64<E>(self, _: f64) -> Result<Top, E> {
        Ok(Top::Other)
    }
    fn visit_str<E>(self, _: &str) -> Result<Top, E> {
        Ok(Top::Other)
    }
    fn visit_unit<E>(self) -> Result<Top, E> {
        Ok(Top::Other)
    }
}

/// A member's name, as far as the envelope cares (escaped names read as their text).
#[derive(Deserialize)]
#[serde(field_identifier, rename_all = "lowercase")]
enum Name {
    Jsonrpc,
    Id,
    Method,
    Params,
    Result,
    Error,
    #[serde(other)]
    Other,
}

/// Whether a value is the string `"2.0"`; any other value is parsed whole as a `Value` is.
struct IsTwo;

impl<'de> DeserializeSeed<'de> for IsTwo {
    type Value = bool;

    fn deserialize<D: Deserializer<'de>>(self, de: D) -> Result<bool, D::Error> {
        de.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for IsTwo {
    type Value = bool;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a JSON value")
    }

    fn visit_str<E>(self, v: &str) -> Result<bool, E> {
        Ok(v == "2.0")
    }
    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<bool, A::Error> {
        Value::deserialize(de::value::MapAccessDeserializer::new(map))?;
        Ok(false)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<bool, A::Error> {
        Value::deserialize(de::value::SeqAccessDeserializer::new(seq))?;
        Ok(false)
    }
    fn visit_bool<E>(self, _: bool) -> Result<bool, E> {
        Ok(false)
    }
    fn visit_i64<E>(self, _: i64) -> Result<bool, E> {
        Ok(false)
    }
    fn visit_u64<E>(self, _: u64) -> Result<bool, E> {
        Ok(false)
    }
    fn visit_f64<E>(self, _: f64) -> Result<bool, E> {
        Ok(false)
    }
    fn visit_unit<E>(self) -> Result<bool, E> {
        Ok(false)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What `read` finds is what parsing a `Value` and taking it apart finds, on the
    /// edges: repeated members, other members that are not JSON a `Value` takes, nesting.
    #[test]
    fn reads_what_a_value_holds() {
        let deep = format!("{{\"x\": {}1{}}}", "[".repeat(200), "]".repeat(200));
        let cases = [
            r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#,
            r#"{"jsonrpc":"2.0","jsonrpc":"1.0","id":1,"id":"a","method":"p"}"#,
            r#"{"jsonrpc":{"a":[1,2]},"id":null,"result":{}}"#,
            r#"{"jsonrpc":"2.0","x":1e400,"id":1,"result":{}}"#,
            r#"{"jsonrpc":"2\u002e0","x":"\ud800","id":1}"#,
            r#"{"jsonrpc":"2.0"} x"#,
            r#"[{"jsonrpc":"2.0"}, 1e400]"#,
            r#"[1, 2]"#,
            r#""2.0""#,
            r#"{"j\u0073onrpc":"2.0","method":"m"}"#,
            &deep,
        ];
        for text in cases {
            let whole: Option<Value> = serde_json::from_str(text).ok();
            let read = read(text);
            match (whole, read) {
                (None, None) => {}
                (Some(Value::Object(obj)), Some(Top::Object(m))) => {
                    let two = obj.get("jsonrpc").map(|v| v.as_str() == Some("2.0"));
                    assert_eq!(m.jsonrpc, two, "{text}");
                    for (name, slot) in [
                        ("id", &m.id),
                        ("method", &m.method),
                        ("params", &m.params),
                        ("result", &m.result),
                        ("error", &m.error),
                    ] {
                        assert_eq!(obj.get(name), slot.as_ref(), "{text}: {name}");
                    }
                }
                (Some(Value::Array(_)), Some(Top::Array)) => {}
                (Some(v), Some(Top::Other)) if !v.is_object() && !v.is_array() => {}
                (whole, read) => panic!(
                    "{text}: a Value {whole:?}, read {}",
                    read.map_or("nothing", |_| "something else")
                ),
            }
        }
    }
}

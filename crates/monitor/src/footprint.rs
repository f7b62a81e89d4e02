//! What an event occupies in memory, by its parts: its bytes and each field as `serde_json`
//! holds it (an order-preserving map: a slot of key and value per field, a hash index entry,
//! each string's bytes on the heap). An estimate from the sizes of the types, without the
//! allocator's rounding, made to bound a queue of events by what they hold rather than by
//! their bytes alone: an `http` event has no bytes, and its headers are most of it.

use crate::trace::Event;
use serde_json::{Map, Value};
use std::mem::size_of;

/// What one field of a map takes beyond its key and value: its index entry and hash.
const SLOT: usize = 2 * size_of::<usize>();

/// The bytes `event` occupies: itself, its bytes and its fields.
pub fn of_event(event: &Event) -> usize {
    size_of::<Event>() + event.raw.capacity() + of_map(&event.fields)
}

fn of_map(map: &Map<String, Value>) -> usize {
    map.iter()
        .map(|(key, value)| SLOT + size_of::<String>() + key.capacity() + of_value(value))
        .sum()
}

/// The bytes of `value`: its own slot and what it holds on the heap.
fn of_value(value: &Value) -> usize {
    let heap = match value {
        Value::String(text) => text.capacity(),
        Value::Array(items) => items.iter().map(of_value).sum(),
        Value::Object(map) => of_map(map),
        Value::Null | Value::Bool(_) | Value::Number(_) => 0,
    };
    size_of::<Value>() + heap
}

#[cfg(test)]
mod tests {
    use super::of_event;
    use crate::trace::parse;

    /// An `http` event weighs its headers, though it has no bytes of its own; a message
    /// weighs at least its bytes.
    #[test]
    fn headers_and_bytes_count() {
        let lines = br#"{"dir":"event","event":"http","status":200,"headers":[["content-type","application/json"],["mcp-session-id","abc"]],"exchange":3}
{"dir":"c2s","raw":"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}","exchange":3}"#;
        let events = parse(lines).unwrap();
        let (http, message) = (of_event(&events[0]), of_event(&events[1]));
        assert!(http > 16 + 5 * 2 + 3 + 6 + 4 * 32, "{http}");
        assert!(message >= events[1].raw.len() + 32, "{message}");
    }
}

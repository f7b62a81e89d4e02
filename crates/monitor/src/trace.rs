//! The trace: JSON Lines, one event per line (`../shared/MONITOR.md`): `t` (seconds since the
//! monitor started), `dir` (`c2s`, `s2c`, `stderr`, `event`), `raw` (one message's bytes, or
//! `raw_b64` when they are not UTF-8). A line holding a JSON-RPC message itself with a `dir`
//! is an event too, so a file of plain messages is a valid trace.

use crate::base64;
use serde::Deserialize;
use serde_json::{Map, Number, Value, json};

/// Which way an event went.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Dir {
    C2s,
    S2c,
    Stderr,
    Event,
}

impl Dir {
    pub fn as_str(self) -> &'static str {
        match self {
            Dir::C2s => "c2s",
            Dir::S2c => "s2c",
            Dir::Stderr => "stderr",
            Dir::Event => "event",
        }
    }

    fn parse(text: &str) -> Option<Dir> {
        Some(match text {
            "c2s" => Dir::C2s,
            "s2c" => Dir::S2c,
            "stderr" => Dir::Stderr,
            "event" => Dir::Event,
            _ => return None,
        })
    }

    /// The other message direction (`c2s` for `s2c` and the reverse).
    pub fn other(self) -> Dir {
        match self {
            Dir::C2s => Dir::S2c,
            Dir::S2c => Dir::C2s,
            d => d,
        }
    }
}

/// One event of a trace.
#[derive(Clone, Debug, PartialEq)]
pub struct Event {
    pub t: Option<f64>,
    pub dir: Dir,
    /// The bytes of a message or a stderr line (empty for `event`).
    pub raw: Vec<u8>,
    /// For `dir: event`: the whole line's other fields (`event`, `code`, `side`, ...); for a
    /// message: the fields besides `t`, `dir` and `raw` (over HTTP: `exchange`, `sse_id`).
    pub fields: Map<String, Value>,
}

impl Event {
    pub fn message(t: f64, dir: Dir, raw: &[u8]) -> Event {
        Event {
            t: Some(t),
            dir,
            raw: raw.to_vec(),
            fields: Map::new(),
        }
    }

    /// A process or stream event: `kind` is `spawn`, `exit`, `signal`, `eof`, ...
    pub fn process(t: f64, kind: &str, fields: Map<String, Value>) -> Event {
        let mut all = Map::new();
        all.insert("event".into(), json!(kind));
        all.extend(fields);
        Event {
            t: Some(t),
            dir: Dir::Event,
            raw: Vec::new(),
            fields: all,
        }
    }

    /// Field `name` of the line. A message of the recorder's layout has none besides `t`,
    /// `dir` and `raw`, and the checker asks each message for its exchange, kind and the like
    /// several times: an empty map answers without the map's look-up (a call, for `Map`).
    fn field(&self, name: &str) -> Option<&Value> {
        if self.fields.is_empty() {
            return None;
        }
        self.fields.get(name)
    }

    pub fn is_message(&self) -> bool {
        matches!(self.dir, Dir::C2s | Dir::S2c)
    }

    /// The HTTP exchange (request and response) the event belongs to, for a trace recorded
    /// by `agentpi monitor --listen`.
    pub fn exchange(&self) -> Option<u64> {
        self.field("exchange").and_then(Value::as_u64)
    }

    /// The client connection a request body came on (`connection`, written by `agentpi
    /// monitor --listen` since it tells modern clients apart; absent in older records).
    pub fn connection(&self) -> Option<u64> {
        self.field("connection").and_then(Value::as_u64)
    }

    /// Whether this is the `aborted` event of a response the client stopped reading
    /// (`closed_by: client`): the client closed the request's HTTP stream.
    pub fn client_closed(&self) -> bool {
        self.kind() == Some("aborted")
            && self.field("closed_by").and_then(Value::as_str) == Some("client")
    }

    /// Whether the message reached its receiver: `false` for what a server sent on an HTTP
    /// stream after the client closed it, which the proxy read on but could not relay
    /// (`"relayed": false`).
    pub fn relayed(&self) -> bool {
        self.field("relayed").and_then(Value::as_bool) != Some(false)
    }

    /// The `event` name of a `dir: event` line (`http`, `exit`, ...).
    pub fn kind(&self) -> Option<&str> {
        if self.dir != Dir::Event {
            return None;
        }
        self.field("event").and_then(Value::as_str)
    }

    /// The event as one line of JSON (without the newline).
    pub fn to_line(&self) -> String {
        let mut line = Map::new();
        if let Some(t) = self.t {
            line.insert("t".into(), json!((t * 1e6).round() / 1e6));
        }
        line.insert("dir".into(), json!(self.dir.as_str()));
        if self.dir == Dir::Event {
            line.extend(self.fields.clone());
        } else {
            match std::str::from_utf8(&self.raw) {
                Ok(text) => line.insert("raw".into(), json!(text)),
                Err(_) => line.insert("raw_b64".into(), json!(base64::encode(&self.raw))),
            };
            line.extend(self.fields.clone());
        }
        Value::Object(line).to_string()
    }
}

/// Why a trace cannot be read: the 1-based line and what is wrong there.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TraceError {
    pub line: usize,
    pub why: String,
}

/// Reads a whole trace. Blank lines are skipped.
pub fn parse(bytes: &[u8]) -> Result<Vec<Event>, TraceError> {
    let mut events = Vec::new();
    for (i, line) in bytes.split(|&b| b == b'\n').enumerate() {
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        if line.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        let fail = |why: String| TraceError { line: i + 1, why };
        events.push(parse_line(line).map_err(fail)?);
    }
    Ok(events)
}

fn parse_line(line: &[u8]) -> Result<Event, String> {
    match plain_line(line) {
        Some(event) => Ok(event),
        None => parse_value_line(line),
    }
}

/// The layout `agentpi monitor --record` writes for every message of a stdio session: `t`,
/// `dir` and `raw`, nothing else. Read into these fields alone instead of a map of `Value`s
/// (hashing each name, then taking each out of the map again: half the instructions of a
/// `trace check` of a flood went there).
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Plain<'a> {
    t: Number,
    dir: &'a str,
    raw: String,
}

/// A line of the [`Plain`] layout as [`parse_value_line`] reads it; `None` for any other
/// line (another field, a field twice, `t` not a number, `dir` an `event` or unknown, `dir`
/// with an escape, anything serde finds wrong), which that reads, or finds wrong, itself.
fn plain_line(line: &[u8]) -> Option<Event> {
    // Serde reads a struct from an array too (`[1, "c2s", "x"]`): no event.
    let json_space = |b: &&u8| matches!(b, b' ' | b'\t' | b'\n' | b'\r');
    if line.iter().find(|b| !json_space(b)) != Some(&b'{') {
        return None;
    }
    let plain: Plain = serde_json::from_slice(line).ok()?;
    let dir = Dir::parse(plain.dir).filter(|&d| d != Dir::Event)?;
    Some(Event {
        t: plain.t.as_f64(),
        dir,
        raw: plain.raw.into_bytes(),
        fields: Map::new(),
    })
}

/// Any line, read as a JSON object whose known fields are taken out.
fn parse_value_line(line: &[u8]) -> Result<Event, String> {
    let value: Value =
        serde_json::from_slice(line).map_err(|e| format!("not a JSON object: {e}"))?;
    let Value::Object(mut obj) = value else {
        return Err("not a JSON object".into());
    };
    let dir = match obj.shift_remove("dir") {
        Some(Value::String(d)) => Dir::parse(&d)
            .ok_or_else(|| format!("`dir` is `{d}`, not c2s, s2c, stderr or event"))?,
        Some(_) => return Err("`dir` is not a string".into()),
        None => return Err("no `dir` field".into()),
    };
    let t = match obj.shift_remove("t") {
        None => None,
        Some(Value::Number(n)) => n.as_f64(),
        Some(_) => return Err("`t` is not a number".into()),
    };
    if dir == Dir::Event {
        if !obj.get("event").is_some_and(Value::is_string) {
            return Err("an `event` line without an `event` name".into());
        }
        return Ok(Event {
            t,
            dir,
            raw: Vec::new(),
            fields: obj,
        });
    }
    let plain = !obj.contains_key("raw") && !obj.contains_key("raw_b64");
    let raw = raw_bytes(&mut obj)?;
    // A plain JSON-RPC line is all message; a `raw` line may carry fields of its transport.
    let fields = if plain { Map::new() } else { obj };
    Ok(Event {
        t,
        dir,
        raw,
        fields,
    })
}

/// `raw`, `raw_b64`, or the line itself as a JSON-RPC message (a plain message with a `dir`).
fn raw_bytes(obj: &mut Map<String, Value>) -> Result<Vec<u8>, String> {
    match (obj.shift_remove("raw"), obj.shift_remove("raw_b64")) {
        (Some(Value::String(s)), None) => Ok(s.into_bytes()),
        (None, Some(Value::String(s))) => {
            base64::decode(&s).ok_or_else(|| "`raw_b64` is not base64".to_string())
        }
        (Some(_), Some(_)) => Err("both `raw` and `raw_b64`".into()),
        (Some(_), None) | (None, Some(_)) => Err("`raw` is not a string".into()),
        (None, None) if obj.contains_key("jsonrpc") => {
            Ok(Value::Object(std::mem::take(obj)).to_string().into_bytes())
        }
        (None, None) => Err("no `raw`, `raw_b64` or JSON-RPC message".into()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_round_trip_including_invalid_utf8() {
        let events = vec![
            Event::message(0.5, Dir::C2s, b"{\"jsonrpc\":\"2.0\"}"),
            Event::message(0.25, Dir::S2c, b"\xff banner"),
            Event {
                fields: Map::from_iter([("exchange".into(), json!(3))]),
                ..Event::message(0.75, Dir::S2c, b"{}")
            },
            Event::process(1.0, "exit", Map::from_iter([("code".into(), json!(0))])),
        ];
        let text: String = events.iter().map(|e| e.to_line() + "\n").collect();
        assert_eq!(parse(text.as_bytes()).unwrap(), events);
    }

    /// A line of the recorder's layout is read as the full parse reads it; every other line
    /// (or one serde would read otherwise) is left to the full parse.
    #[test]
    fn plain_lines_are_read_as_the_full_parse_reads_them() {
        let lines: &[(&str, bool)] = &[
            (r#"{"t": 0.5, "dir": "c2s", "raw": "{\"id\": 1}"}"#, true),
            (r#"{"raw":"x","dir":"s2c","t":3}"#, true),
            (
                r#" {"t":1e-05,"dir":"stderr","raw":"\u00e9\n\ud83d\ude00"} "#,
                true,
            ),
            (r#"{"t":-0.0,"dir":"c2s","raw":""}"#, true),
            (
                r#"{"t":12345678901234567890123,"dir":"c2s","raw":"a"}"#,
                true,
            ),
            (r#"{"t":null,"dir":"c2s","raw":"a"}"#, false),
            (r#"{"t":"1","dir":"c2s","raw":"a"}"#, false),
            (r#"{"dir":"c2s","raw":"a"}"#, false),
            (r#"{"t":1,"dir":"c2s","raw":"a","exchange":3}"#, false),
            (r#"{"t":1,"dir":"c2s","raw":"a","raw":"b"}"#, false),
            (r#"{"t":1,"t":2,"dir":"c2s","raw":"a"}"#, false),
            (r#"{"t":1,"dir":"event","raw":"a"}"#, false),
            (r#"{"t":1,"dir":"up","raw":"a"}"#, false),
            (r#"{"t":1,"dir":"c\u0032s","raw":"a"}"#, false),
            (r#"{"t":1,"dir":"c2s","raw":null}"#, false),
            (r#"{"t":1,"dir":"c2s","raw_b64":"YQ=="}"#, false),
            (r#"{"t":1,"dir":"c2s","raw":"a"} x"#, false),
            (r#"{"t":1,"dir":"c2s","raw":"a""#, false),
            (r#"[1]"#, false),
            (r#"[1, "c2s", "a"]"#, false),
            (r#"{"t":1,"r\u0061w":"a","dir":"s2c"}"#, true),
        ];
        for &(line, plain) in lines {
            let full = parse_value_line(line.as_bytes());
            assert_eq!(parse_line(line.as_bytes()), full, "{line}");
            let fast = plain_line(line.as_bytes());
            assert_eq!(fast.is_some(), plain, "{line}");
            if let Some(event) = fast {
                assert_eq!(Ok(event), full, "{line}");
            }
        }
    }

    #[test]
    fn plain_messages_and_errors_with_lines() {
        let text = b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\",\"dir\":\"c2s\"}\n\n{\"dir\":\"up\"}\n";
        let error = parse(text).unwrap_err();
        assert_eq!(error.line, 3);
        assert!(error.why.contains("`up`"), "{}", error.why);
        let events = parse(&text[..52]).unwrap();
        assert_eq!(
            events[0].raw,
            b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}"
        );
        assert_eq!(events[0].t, None);
    }
}

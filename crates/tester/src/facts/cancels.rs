//! Whether a run's cancellations could have shown a late answer (C3, C4, C5): "passed" only
//! when a server that ignored the cancellation would have been caught. The monitor takes a
//! response within the race window after the cancellation for a crossing
//! (`agentpi_monitor::crossing::RACE_WINDOW`), so a call whose answer was due inside that
//! window proves nothing either way, nor does one due after the trace ended.
//!
//! A cancellation counts when its call was in flight and ordered at the server (over HTTP
//! its exchange had its status line before the cancellation), and its answer came past the
//! window (the monitor judges it) or, had the server ignored the cancellation, would have:
//! the call asked to take that long by its duration-like arguments (`slow::asked`, against
//! the tool's listed `inputSchema`), or a call of the same tool with the same arguments that
//! was not cancelled took that long in the same run; and the trace went on past that time.

use crate::slow;
use agentpi_monitor::crossing::RACE_WINDOW;
use agentpi_monitor::{Dir, Event};
use serde_json::Value;
use std::collections::{HashMap, HashSet};

/// A client request of the trace.
struct Call {
    index: usize,
    t: f64,
    method: String,
    params: Value,
    exchange: Option<u64>,
}

/// A cancellation: of which request (id as JSON text), at which event and time.
struct Cancel {
    of: String,
    index: usize,
    t: f64,
}

fn parse(e: &Event) -> Option<Value> {
    e.is_message()
        .then(|| serde_json::from_slice(&e.raw).ok())
        .flatten()
}

/// Whether some cancellation of the trace could have shown a late answer.
pub fn past_window(events: &[Event], modern: bool) -> bool {
    let calls = calls(events);
    let answers = answers(events);
    let cancels = cancels(events, &calls, modern);
    let schemas = schemas(events, &calls, &answers);
    let end = events.iter().filter_map(|e| e.t).fold(0.0, f64::max);
    let headed = headed(events);
    cancels.iter().any(|c| {
        let Some(call) = calls.get(&c.of) else {
            return false;
        };
        let answer = answers.get(&c.of);
        if call.index > c.index || answer.is_some_and(|(i, _)| *i < c.index) {
            return false;
        }
        // Over HTTP a cancellation sent before the request's exchange had its status line
        // is unordered at the server: any answer is a crossing.
        if call
            .exchange
            .is_some_and(|k| headed.get(&k).is_none_or(|i| *i > c.index))
        {
            return false;
        }
        if answer.is_some_and(|(_, t)| *t > c.t + RACE_WINDOW) {
            return true;
        }
        let due = expected(call, &c.of, &calls, &answers, &cancels, &schemas);
        due.is_some_and(|d| call.t + d > c.t + RACE_WINDOW && call.t + d < end)
    })
}

/// How long `call` would have taken: what its arguments ask for, or the longest that a call of
/// the same tool with the same arguments took in the trace, answered with no cancellation.
fn expected(
    call: &Call,
    key: &str,
    calls: &HashMap<String, Call>,
    answers: &HashMap<String, (usize, f64)>,
    cancels: &[Cancel],
    schemas: &HashMap<String, Value>,
) -> Option<f64> {
    if call.method != "tools/call" {
        return None;
    }
    let tool = call.params.get("name").and_then(Value::as_str)?;
    let args = call.params.get("arguments").cloned().unwrap_or(Value::Null);
    let asked = schemas.get(tool).and_then(|s| slow::asked(s, &args));
    let cancelled: HashSet<&str> = cancels.iter().map(|c| c.of.as_str()).collect();
    let measured = calls
        .iter()
        .filter(|(k, c)| {
            k.as_str() != key
                && !cancelled.contains(k.as_str())
                && c.params.get("name") == call.params.get("name")
                && c.params.get("arguments") == call.params.get("arguments")
        })
        .filter_map(|(k, c)| answers.get(k).map(|(_, t)| t - c.t))
        .fold(None, |m: Option<f64>, d| Some(m.map_or(d, |m| m.max(d))));
    match (asked, measured) {
        (Some(a), Some(m)) => Some(a.max(m)),
        (a, m) => a.or(m),
    }
}

/// The client's requests by id (as JSON text).
fn calls(events: &[Event]) -> HashMap<String, Call> {
    let mut out = HashMap::new();
    for (index, e) in events.iter().enumerate().filter(|(_, e)| e.dir == Dir::C2s) {
        let Some(m) = parse(e) else { continue };
        let (Some(method), Some(id)) = (m.get("method").and_then(Value::as_str), m.get("id"))
        else {
            continue;
        };
        if id.is_null() {
            continue;
        }
        out.entry(id.to_string()).or_insert(Call {
            index,
            t: e.t.unwrap_or(0.0),
            method: method.to_string(),
            params: m.get("params").cloned().unwrap_or(Value::Null),
            exchange: e.exchange(),
        });
    }
    out
}

/// The first response to each request id: its event and time.
fn answers(events: &[Event]) -> HashMap<String, (usize, f64)> {
    let mut out = HashMap::new();
    for (i, e) in events.iter().enumerate().filter(|(_, e)| e.dir == Dir::S2c) {
        let Some(m) = parse(e).filter(|m| m.get("method").is_none()) else {
            continue;
        };
        if let Some(id) = m.get("id").filter(|id| !id.is_null()) {
            out.entry(id.to_string()).or_insert((i, e.t.unwrap_or(0.0)));
        }
    }
    out
}

/// The client's cancellations: `notifications/cancelled`, and over modern Streamable HTTP the
/// close of a request's stream.
fn cancels(events: &[Event], calls: &HashMap<String, Call>, modern: bool) -> Vec<Cancel> {
    let by_exchange: HashMap<u64, &String> = calls
        .iter()
        .filter_map(|(k, c)| c.exchange.map(|x| (x, k)))
        .collect();
    let mut out = Vec::new();
    for (index, e) in events.iter().enumerate() {
        let t = e.t.unwrap_or(0.0);
        if e.client_closed() && modern {
            let of = e.exchange().and_then(|k| by_exchange.get(&k));
            out.extend(of.map(|of| Cancel {
                of: (*of).clone(),
                index,
                t,
            }));
            continue;
        }
        let Some(m) = parse(e).filter(|_| e.dir == Dir::C2s) else {
            continue;
        };
        if m.get("method").and_then(Value::as_str) == Some("notifications/cancelled")
            && let Some(of) = m.pointer("/params/requestId")
        {
            out.push(Cancel {
                of: of.to_string(),
                index,
                t,
            });
        }
    }
    out
}

/// The input schemas of the tools listed in the trace, by name.
fn schemas(
    events: &[Event],
    calls: &HashMap<String, Call>,
    answers: &HashMap<String, (usize, f64)>,
) -> HashMap<String, Value> {
    let mut out = HashMap::new();
    for (key, _) in calls.iter().filter(|(_, c)| c.method == "tools/list") {
        let Some(m) = answers.get(key).and_then(|(i, _)| parse(&events[*i])) else {
            continue;
        };
        let tools = m.pointer("/result/tools").and_then(Value::as_array);
        for tool in tools.into_iter().flatten() {
            if let (Some(name), Some(schema)) = (tool["name"].as_str(), tool.get("inputSchema")) {
                out.insert(name.to_string(), schema.clone());
            }
        }
    }
    out
}

/// The event at which each HTTP exchange got its status line.
fn headed(events: &[Event]) -> HashMap<u64, usize> {
    let mut out = HashMap::new();
    for (i, e) in events.iter().enumerate() {
        if let (Some("http"), Some(k)) = (e.kind(), e.exchange()) {
            out.entry(k).or_insert(i);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const LIST: &str = r#"{"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"slow_echo","inputSchema":{"type":"object","properties":{"text":{"type":"string"},"ms":{"type":"integer"}}}}]}}"#;

    /// A trace: the listing, a call of slow_echo with `ms`, its cancellation 0.01 s later,
    /// and, when `answered_at` is given, the answer then; it ends at 3 s.
    fn trace(ms: u64, answered_at: Option<f64>) -> Vec<Event> {
        let call = format!(
            r#"{{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{{"name":"slow_echo","arguments":{{"text":"a","ms":{ms}}}}}}}"#
        );
        let cancel =
            r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":2}}"#;
        let mut rows = vec![
            serde_json::json!({"t": 0.0, "dir": "c2s", "raw": r#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#}),
            serde_json::json!({"t": 0.1, "dir": "s2c", "raw": LIST}),
            serde_json::json!({"t": 0.2, "dir": "c2s", "raw": call}),
            serde_json::json!({"t": 0.21, "dir": "c2s", "raw": cancel}),
        ];
        if let Some(t) = answered_at {
            let answer = r#"{"jsonrpc":"2.0","id":2,"result":{"content":[]}}"#;
            rows.push(serde_json::json!({"t": t, "dir": "s2c", "raw": answer}));
        }
        rows.push(serde_json::json!({"t": 3.0, "dir": "event", "event": "exit", "code": 0}));
        let text: String = rows.iter().map(|r| r.to_string() + "\n").collect();
        agentpi_monitor::trace::parse(text.as_bytes()).unwrap()
    }

    /// The issue's slow_echo: with `ms = 3` the answer was due inside the race window, so
    /// nothing could have shown a late answer; with `ms = 1000` it could, whether the server
    /// then answered (late: the monitor fails it) or stayed silent (it honoured the
    /// cancellation).
    #[test]
    fn only_a_call_due_past_the_window_exercises_a_cancellation() {
        assert!(!past_window(&trace(3, Some(0.203)), false));
        assert!(!past_window(&trace(3, None), false));
        assert!(past_window(&trace(1000, None), false));
        assert!(past_window(&trace(1000, Some(1.2)), false));
        // Due after the trace ended: a late answer could not have been seen.
        assert!(!past_window(&trace(5000, None), false));
    }
}

//! `PerSession` without processes: two legacy client sessions share one modern server, and a
//! server's log line (a notification with no progress token, not a list change) goes to the
//! session whose call's stream it came on (`--upstream`, `Engine::server_on_stream`), with
//! that call; without a stream to tell (stdio), to the one call in flight that opted in to
//! log lines (`logging/setLevel`: `…/logLevel` in its `_meta`, M9) when there is exactly one,
//! else to the one session that could own it (the only one whose calls opted in, or the only
//! session), else nowhere (noted: a guess could leak one client's line to another). The real
//! peers are in crates/cli/tests/bridge_http_sessions.rs.

use agentpi_bridge::engine::{Engine, To, Written};
use agentpi_bridge::model::model;
use agentpi_bridge::per_session::PerSession;
use agentpi_bridge::side::Side;
use serde_json::{Value, json};
use std::time::Instant;

const INIT: &str = r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#;
const INITIALIZED: &str = r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#;
const CALL: &str =
    r#"{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"say","arguments":{}}}"#;
const SET_LEVEL: &str =
    r#"{"jsonrpc":"2.0","id":1,"method":"logging/setLevel","params":{"level":"info"}}"#;
const LOG: &str =
    r#"{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"hi"}}"#;

/// The server's answer to the bridge's `server/discover` of id `id`.
fn discovered(id: &Value) -> String {
    json!({"jsonrpc": "2.0", "id": id, "result": {"resultType": "complete",
        "supportedVersions": ["2026-07-28"], "capabilities": {"tools": {}, "logging": {}},
        "_meta": {"io.modelcontextprotocol/serverInfo": {"name": "srv", "version": "9"}}}})
    .to_string()
}

/// What the bridge wrote to the server since the last time: each request's id and method.
fn to_server(written: &[Written]) -> Vec<(Value, String)> {
    let sent = written.iter().filter(|w| w.to == To::Server);
    let parsed = sent.map(|w| serde_json::from_slice::<Value>(&w.bytes).unwrap());
    let request = |m: Value| Some((m.get("id")?.clone(), m["method"].as_str()?.to_string()));
    parsed.filter_map(request).collect()
}

/// A session `name` opened (its `initialize` answered from the server's discover) and a call
/// of it sent: the bridge's id of that call; `level`: the session set a log level first.
fn session_with_call(bridge: &mut PerSession, name: &str) -> Value {
    session_logging(bridge, name, false)
}

fn session_logging(bridge: &mut PerSession, name: &str, level: bool) -> Value {
    bridge.session_client(name, INIT.as_bytes());
    let sent = to_server(&bridge.take_routed());
    let (discover, _) = sent.iter().find(|(_, m)| m == "server/discover").unwrap();
    bridge.server(discovered(discover).as_bytes());
    bridge.session_client(name, INITIALIZED.as_bytes());
    if level {
        bridge.session_client(name, SET_LEVEL.as_bytes());
    }
    bridge.session_client(name, CALL.as_bytes());
    let sent = to_server(&bridge.take_routed());
    let (call, _) = sent.iter().find(|(_, m)| m == "tools/call").unwrap();
    call.clone()
}

/// Where a log line of the server went: each client line's session and call.
fn log_went(written: &[Written]) -> Vec<(Option<String>, Option<Value>)> {
    let to_client = written.iter().filter(|w| w.to == To::Client);
    let logs = to_client.filter(|w| w.bytes == LOG.as_bytes());
    logs.map(|w| (w.session.clone(), w.call.clone())).collect()
}

#[test]
fn a_log_line_goes_to_the_session_of_its_stream() {
    let model = model().unwrap();
    let now = Instant::now();
    let (legacy, modern) = Side::pair(None, now).unwrap();
    let mut bridge = PerSession::new(model, legacy, modern);
    let _older = session_with_call(&mut bridge, "A");
    let newer = session_with_call(&mut bridge, "B");
    // On the stream of B's call: B's, with the call (its stream on the listening side).
    bridge.server_on_stream(LOG.as_bytes(), &newer);
    let went = log_went(&bridge.take_routed());
    assert_eq!(went, [(Some("B".to_string()), Some(json!(5)))]);
    assert_eq!(bridge.notes(), [] as [String; 0]);
    // No stream to tell (stdio), and no call opted in: either session could own it, so
    // neither gets it (before, the oldest session did).
    bridge.server(LOG.as_bytes());
    let went = log_went(&bridge.take_routed());
    assert_eq!(went, []);
    assert_eq!(bridge.notes(), [NOBODY.replace("{n}", "0")]);
}

const NOBODY: &str = "dropped a log line that names no request: {n} of 2 sessions have calls \
                      that opted in, so no one session could own it";

fn bridge() -> PerSession {
    let model = model().unwrap();
    let now = Instant::now();
    let (legacy, modern) = Side::pair(None, now).unwrap();
    PerSession::new(model, legacy, modern)
}

/// Over stdio a log line names no call, but only a request that opted in may get one (M9):
/// with one such call in flight (the newer session's), the line is its, with the call;
/// with two of two sessions (both set a level), nothing tells them apart, and the line is
/// dropped with a note (docs/bridge.md: what cannot be carried); with two calls of one
/// session, or one session alone, the line is that session's (its process gives it to its
/// first call in flight that takes it).
#[test]
fn a_log_line_over_stdio_goes_to_the_one_call_that_opted_in() {
    let mut bridge = bridge();
    session_logging(&mut bridge, "A", false);
    session_logging(&mut bridge, "B", true);
    bridge.server(LOG.as_bytes());
    let went = log_went(&bridge.take_routed());
    assert_eq!(went, [(Some("B".to_string()), Some(json!(5)))]);
    let mut bridge = self::bridge();
    session_logging(&mut bridge, "A", true);
    session_logging(&mut bridge, "B", true);
    bridge.server(LOG.as_bytes());
    let went = log_went(&bridge.take_routed());
    assert_eq!(went, []);
    assert_eq!(bridge.notes(), [NOBODY.replace("{n}", "2")]);
    // Two calls of A that opted in, one of B that did not: A's, with its first call.
    let mut bridge = self::bridge();
    let first = session_logging(&mut bridge, "A", true);
    session_logging(&mut bridge, "B", false);
    bridge.session_client("A", CALL.replace("\"id\":5", "\"id\":6").as_bytes());
    bridge.take_routed();
    bridge.server(LOG.as_bytes());
    let went = log_went(&bridge.take_routed());
    assert_eq!(went, [(Some("A".to_string()), Some(json!(5)))], "{first}");
    // One session alone, whose call did not opt in: it is the only one that could own it.
    let mut bridge = self::bridge();
    session_logging(&mut bridge, "A", false);
    bridge.server(LOG.as_bytes());
    let went = log_went(&bridge.take_routed());
    assert_eq!(went, [(Some("A".to_string()), Some(json!(5)))]);
    assert_eq!(bridge.notes(), [] as [String; 0]);
}

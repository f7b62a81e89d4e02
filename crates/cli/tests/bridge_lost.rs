//! The lost legacy session stepped as the model's `lost` (docs/bridge.md, "Faults"): a Python
//! SDK 1.x server on Streamable HTTP restarted on its port while calls are held for the modern
//! client's retry. The held calls' streams break with the server, which the bridge reads as
//! the loss (or a 404 tells it first). One new session serves every copy that meets the loss;
//! a call that met the 404 is sent again in it; a call held in the lost session gets its
//! `gone` when its retry comes (`TLLost`). A server that never comes back ends the
//! re-opening with the model's `down`.

use crate::bridge_http::{META, PATIENCE, Step, Wait, bridge_to, drive, fastmcp1, report};
use crate::monitor::{peer, scratch};
use crate::support::{Server, listening_on_any_port, repo};
use serde_json::{Value, json};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// What the modern client is told of a call lost with its session.
const LOST: &str = "agentpi bridge: the legacy server lost the session while this call was \
                    held (HTTP 404, or its stream broke): it cannot be resumed";

/// `_meta` of a client that declared elicitation (so the bridge holds the call for it).
pub(crate) fn meta() -> String {
    META.replace(
        r#"clientCapabilities":{}"#,
        r#"clientCapabilities":{"elicitation":{}}"#,
    )
}

/// The legacy Python SDK 1.x server on Streamable HTTP (`tests/bridge/legacy_http_server.py`)
/// listening on `port` (0: any free one), the port it got and its URL.
pub(crate) fn legacy_http(port: u16) -> (Server, u16, String) {
    let child = fastmcp1(Some(port)).stderr(Stdio::null()).spawn().unwrap();
    let (server, port) = listening_on_any_port(child);
    (server, port, mcp_url(port))
}

/// The MCP endpoint of a server on loopback at `port`.
pub(crate) fn mcp_url(port: u16) -> String {
    format!("http://127.0.0.1:{port}/mcp")
}

/// The modern client's `server/discover` (id 1), with the `_meta` its calls carry.
pub(crate) fn discover() -> &'static str {
    leak(format!(
        r#"{{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{{{}}}}}"#,
        meta()
    ))
}

pub(crate) fn leak(s: String) -> &'static str {
    Box::leak(s.into_boxed_str())
}

pub(crate) fn call(id: i64, tool: &str, arguments: &str) -> &'static str {
    let meta = meta();
    leak(format!(
        r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"{tool}","arguments":{arguments},{meta}}}}}"#
    ))
}

/// The retry of the call held as `agentpi-bridge-held-{held}` (which asked `question`), with
/// the user's answer.
pub(crate) fn retry(id: i64, held: u32, tool: &str, question: &str) -> &'static str {
    let meta = meta();
    let state = format!("agentpi-bridge-held-{held}");
    leak(format!(
        r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"{tool}","arguments":{{"question":"{question}"}},"requestState":"{state}","inputResponses":{{"{state}":{{"action":"accept","content":{{"answer":"yes"}}}}}},{meta}}}}}"#
    ))
}

pub(crate) fn answer(seen: &[Value], id: i64) -> &Value {
    let found = seen.iter().find(|m| m["id"] == json!(id));
    found.unwrap_or_else(|| panic!("no answer to {id}: {seen:?}"))
}

#[test]
fn calls_held_in_a_lost_session_get_gone_and_one_new_session_serves_the_rest() {
    let dir = scratch("bridge-lost-held");
    let (server, port, url) = legacy_http(0);
    let mut server: Option<Server> = Some(server);
    let discover = discover();
    // Two tools that ask: the modern side's monitor pairs a retry with the last
    // `input_required` of the same tool, whatever its `requestState`.
    let ask = |q: &str| leak(format!(r#"{{"question":"{q}"}}"#));
    let steps = [
        Step::Send(discover, Wait::Id(1)),
        // Two calls held for their retries (the server's elicitation pending in each).
        Step::Send(call(2, "ask", ask("one?")), Wait::Id(2)),
        Step::Send(call(3, "confirm", ask("two?")), Wait::Id(3)),
        Step::Restart,
        // The held calls' streams broke (or the new call meets the 404): one new session, the
        // call sent in it, and the two held calls lost with the old one (`TLWaitRetry` takes
        // `lost`).
        Step::Send(call(4, "add", r#"{"a":2,"b":3}"#), Wait::Id(4)),
        Step::Send(retry(5, 1, "ask", "one?"), Wait::Id(5)),
        Step::Send(retry(6, 2, "confirm", "two?"), Wait::Id(6)),
        // A call held in the new session; the server restarts again: its stream breaks (or,
        // had the bridge not read that first, the retry's answer to the server's elicitation
        // would meet the 404: `TLAnswered`); its retry gets `gone` either way.
        Step::Send(call(7, "ask", ask("three?")), Wait::Id(7)),
        Step::Restart,
        Step::Send(retry(8, 3, "ask", "three?"), Wait::Id(8)),
        // The session opened for it serves the next call.
        Step::Send(call(9, "add", r#"{"a":1,"b":1}"#), Wait::Id(9)),
    ];
    let (seen, status, stderr) = drive(&bridge_to("legacy", &url, &dir), &steps, || {
        drop(server.take());
        server = Some(legacy_http(port).0);
    });
    assert_eq!(status, Some(0), "{stderr}");
    for id in [2, 3, 7] {
        let result = &answer(&seen, id)["result"];
        assert_eq!(result["resultType"], json!("input_required"), "{seen:?}");
    }
    for (id, sum) in [(4, 5), (9, 2)] {
        let result = &answer(&seen, id)["result"];
        assert_eq!(
            result["structuredContent"]["result"],
            json!(sum),
            "{seen:?}"
        );
    }
    for id in [5, 6, 8] {
        assert_eq!(
            answer(&seen, id)["error"]["message"],
            json!(LOST),
            "{seen:?}"
        );
    }
    // Two losses, each opened again once. The held calls' streams break with the server: read
    // as the loss (the process's `lost`), unless a 404 told it first (the server's death
    // races the bridge's next request), so which of the two notes each loss is not pinned;
    // either way no broken stream is an error of its own, and no answer is dropped.
    let report = report(&dir);
    let notes = report["transport"]["notes"].as_array().unwrap();
    let lost = |n: &&Value| {
        let text = n.as_str().unwrap();
        text.starts_with("the legacy server lost the session (")
            && text.ends_with("): initialize again")
    };
    assert_eq!(notes.iter().filter(lost).count(), 2, "{report}");
    assert_eq!(notes.len(), 2, "{report}");
    assert_eq!(report["bridge"]["notes"], json!([]), "{report}");
    assert_eq!(report["modern"]["violations"], json!([]), "{report}");
    // The legacy side: the Python SDK 1.x answers a 404 (if the bridge met one before the
    // break) with a JSON-RPC error whose id is "server-error", a response to no request (J6,
    // the server's fault, as in bridge_http.rs); nothing else.
    let rules: Vec<&Value> = report["legacy"]["violations"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| &v["rule"])
        .collect();
    assert!(rules.len() <= 2, "{report}");
    assert!(rules.iter().all(|r| **r == json!("J6")), "{report}");
    let record = std::fs::read_to_string(dir.join("rec/legacy.jsonl")).unwrap();
    let inits = record.matches(r#"\"method\":\"initialize\""#).count();
    assert_eq!(inits, 3, "{record}");
    let sessions = report["legacy"]["sessions"].as_array().unwrap();
    assert_eq!(sessions.len(), 3, "{report}");
    assert_eq!(sessions[2]["violations"], json!([]), "{report}");
}

/// How many `initialize` requests the bridge's record of the legacy side holds so far.
fn initializes(record: &Path) -> usize {
    let text = std::fs::read_to_string(record).unwrap_or_default();
    text.matches(r#"\"method\":\"initialize\""#).count()
}

/// Waits, within `PATIENCE`, for the record to show a second `initialize`: the bridge has
/// opened a new session after the held call's stream broke.
fn second_session(record: &Path) {
    let started = Instant::now();
    while initializes(record) < 2 {
        assert!(
            started.elapsed() < PATIENCE,
            "no new session after the held call's stream broke: {}",
            std::fs::read_to_string(record).unwrap_or_default()
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// A held call's stream breaks when the server restarts: the bridge reads that as the loss
/// of the session at once (the model's `lost` in `TLWaitRetry`), without waiting for a 404,
/// and opens a new session before the client sends anything more (waited for in the
/// record). The retry then gets `gone` and the next call is served in the new session; the
/// lost session is never posted to again (no 404 at all), and no answer is dropped.
#[test]
fn a_held_calls_broken_stream_is_the_loss_of_the_session() {
    let dir = scratch("bridge-lost-broken");
    let record = dir.join("rec/legacy.jsonl");
    let (server, port, url) = legacy_http(0);
    let mut server: Option<Server> = Some(server);
    let discover = discover();
    let steps = [
        Step::Send(discover, Wait::Id(1)),
        Step::Send(call(2, "ask", r#"{"question":"one?"}"#), Wait::Id(2)),
        Step::Restart,
        Step::Send(retry(3, 1, "ask", "one?"), Wait::Id(3)),
        Step::Send(call(4, "add", r#"{"a":2,"b":3}"#), Wait::Id(4)),
    ];
    let (seen, status, stderr) = drive(&bridge_to("legacy", &url, &dir), &steps, || {
        drop(server.take());
        server = Some(legacy_http(port).0);
        // The bridge opens the new session on the break alone: nothing else tells it.
        second_session(&record);
    });
    assert_eq!(status, Some(0), "{stderr}");
    let held = &answer(&seen, 2)["result"];
    assert_eq!(held["resultType"], json!("input_required"), "{seen:?}");
    assert_eq!(
        answer(&seen, 3)["error"]["message"],
        json!(LOST),
        "{seen:?}"
    );
    let sum = &answer(&seen, 4)["result"]["structuredContent"]["result"];
    assert_eq!(sum, &json!(5), "{seen:?}");
    let report = report(&dir);
    let broke = "the legacy server lost the session (a held call's stream broke): initialize again";
    assert_eq!(report["transport"]["notes"], json!([broke]), "{report}");
    assert_eq!(report["bridge"]["notes"], json!([]), "{report}");
    assert_eq!(report["modern"]["violations"], json!([]), "{report}");
    let sessions = report["legacy"]["sessions"].as_array().unwrap();
    assert_eq!(sessions.len(), 2, "{report}");
    for session in sessions {
        assert_eq!(session["violations"], json!([]), "{report}");
    }
    let text = std::fs::read_to_string(&record).unwrap();
    assert_eq!(initializes(&record), 2, "{text}");
    assert!(!text.contains(r#""status":404"#), "{text}");
}

/// A held call's stream that ends normally, without its answer (a server that keeps its
/// events ends it for the client to resume, the 2025-11-25 polling), is not the loss of the
/// session, and the bridge resumes it (a GET with `Last-Event-ID`): the modern client's retry
/// brings the answer to the held call, whose result comes on the resumed stream; the next
/// call is answered in the same session. (Before, the stream was not resumed: the end was an
/// error the held copy dropped, and the retry got no answer.)
#[test]
fn a_held_calls_stream_that_ends_normally_is_resumed() {
    let dir = scratch("bridge-lost-ended");
    let mut polling = Command::new(peer(".venv-mcp1/bin/python"));
    polling
        .arg(repo().join("tests/bridge/polling_server.py"))
        .arg("0");
    let (_server, port) = listening_on_any_port(polling.stderr(Stdio::null()).spawn().unwrap());
    let url = mcp_url(port);
    let discover = discover();
    let steps = [
        Step::Send(discover, Wait::Id(1)),
        Step::Send(call(2, "ask", r#"{"question":"one?"}"#), Wait::Id(2)),
        Step::Send(call(3, "end_ask", "{}"), Wait::Id(3)),
        Step::Send(retry(4, 1, "ask", "one?"), Wait::Id(4)),
        Step::Send(call(5, "add", r#"{"a":2,"b":3}"#), Wait::Id(5)),
    ];
    let (seen, status, stderr) = drive(&bridge_to("legacy", &url, &dir), &steps, || {});
    assert_eq!(status, Some(0), "{stderr}");
    let held = &answer(&seen, 2)["result"];
    assert_eq!(held["resultType"], json!("input_required"), "{seen:?}");
    let ended = &answer(&seen, 3)["result"]["content"][0]["text"];
    assert_eq!(ended, &json!("ended 1"), "{seen:?}");
    let asked = &answer(&seen, 4)["result"]["content"][0]["text"];
    assert_eq!(asked, &json!("accept: yes"), "{seen:?}");
    let sum = &answer(&seen, 5)["result"]["structuredContent"]["result"];
    assert_eq!(sum, &json!(5), "{seen:?}");
    let report = report(&dir);
    assert_eq!(report["transport"]["notes"], json!([]), "{report}");
    assert_eq!(report["bridge"]["notes"], json!([]), "{report}");
    assert_eq!(report["legacy"]["violations"], json!([]), "{report}");
    assert_eq!(report["modern"]["violations"], json!([]), "{report}");
    // One session: the end was no loss.
    assert_eq!(initializes(&dir.join("rec/legacy.jsonl")), 1, "{report}");
    // The resumption is in the record: the GET with `Last-Event-ID`, answered with a stream,
    // an exchange of its own that carries the held call's answer.
    let record = std::fs::read_to_string(dir.join("rec/legacy.jsonl")).unwrap();
    let events: Vec<Value> = (record.lines().map(|l| serde_json::from_str(l).unwrap())).collect();
    let get = events
        .iter()
        .find(|e| e["event"] == "http" && e["method"] == "GET");
    let get = get.unwrap_or_else(|| panic!("no GET recorded: {record}"));
    assert_eq!(get["status"], json!(200), "{record}");
    assert!(
        get["request_headers"].to_string().contains("last-event-id"),
        "{record}"
    );
    let on_get = |e: &&Value| e["dir"] == "s2c" && e["exchange"] == get["exchange"];
    assert!(
        events
            .iter()
            .any(|e| on_get(&e) && e["raw"].as_str().unwrap().contains("accept: yes")),
        "{record}"
    );
}

/// The legacy server goes away while a call is held and never comes back: the held call's
/// stream breaks, the bridge re-opens the session, and its `initialize` finds no server for
/// the re-opening's minute (`RECONNECT`): the model's `down` in the re-opening (`TLReopen`).
/// The retry and the new call that waited for it each get an error, the bridge ends (the
/// server went away: status 1) with nothing noted, and neither side's monitor finds anything.
/// (About a minute: the re-opening's patience.)
#[test]
fn a_server_that_never_comes_back_ends_the_re_opening() {
    let dir = scratch("bridge-lost-never");
    let record = dir.join("rec/legacy.jsonl");
    let (server, _, url) = legacy_http(0);
    let mut server: Option<Server> = Some(server);
    let discover = discover();
    let steps = [
        Step::Send(discover, Wait::Id(1)),
        Step::Send(call(2, "ask", r#"{"question":"one?"}"#), Wait::Id(2)),
        Step::Restart,
        Step::Send(retry(3, 1, "ask", "one?"), Wait::None),
        Step::Send(call(4, "add", r#"{"a":2,"b":3}"#), Wait::Id(4)),
    ];
    let (seen, status, stderr) = drive(&bridge_to("legacy", &url, &dir), &steps, || {
        drop(server.take());
        // The bridge starts re-opening on the break alone.
        second_session(&record);
    });
    assert_eq!(status, Some(1), "{stderr}");
    let held = &answer(&seen, 2)["result"];
    assert_eq!(held["resultType"], json!("input_required"), "{seen:?}");
    for id in [3, 4] {
        assert!(answer(&seen, id)["error"].is_object(), "{seen:?}");
    }
    let report = report(&dir);
    assert_eq!(report["bridge"]["notes"], json!([]), "{report}");
    assert_eq!(report["modern"]["violations"], json!([]), "{report}");
    assert_eq!(report["legacy"]["violations"], json!([]), "{report}");
}

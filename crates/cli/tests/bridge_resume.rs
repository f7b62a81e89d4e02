//! A request's stream the legacy server ends before its answer and then refuses to resume
//! (`agentpi bridge --to legacy --upstream URL`, docs/bridge.md "Faults"): the bridge asks once
//! (a GET with `Last-Event-ID`), records the GET and its refusal on the legacy side, gives the
//! modern client an error for that request and goes on. The server is scripted
//! (tests/bridge/unresumable_server.py): no SDK server refuses a resumption it offered.

use crate::bridge_http::{Step, Wait, bridge_to, drive, report};
use crate::bridge_lost::{answer, call, discover, mcp_url};
use crate::monitor::{peer, scratch};
use crate::support::{listening_on_any_port, repo};
use serde_json::{Value, json};
use std::process::{Command, Stdio};

/// The GETs of the legacy side's record: each one's status and `Last-Event-ID`.
fn gets(record: &str) -> Vec<(u64, String)> {
    let events = record
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap());
    let get = events.filter(|e| e["event"] == "http" && e["method"] == "GET");
    get.map(|e| {
        let asked = e["request_headers"].as_array().cloned().unwrap_or_default();
        let last = asked.iter().find(|h| h[0] == "last-event-id");
        let last = last.and_then(|h| h[1].as_str()).unwrap_or("").to_string();
        (e["status"].as_u64().unwrap(), last)
    })
    .collect()
}

/// How many `initialize`s the bridge sent the legacy server.
fn initializes(record: &str) -> usize {
    record.matches(r#"\"method\":\"initialize\""#).count()
}

/// The call whose stream ends (`drop`) gets an error naming the refusal; the next call is
/// answered; the bridge ends cleanly when its client does. Returns the report and the legacy
/// side's record.
fn refused(status: u16) -> (Value, String) {
    let dir = scratch(&format!("bridge-resume-refused-{status}"));
    let mut server = Command::new(peer(".venv-mcp1/bin/python"));
    server
        .arg(repo().join("tests/bridge/unresumable_server.py"))
        .args([status.to_string(), "0".to_string()]);
    let (_server, port) = listening_on_any_port(server.stderr(Stdio::null()).spawn().unwrap());
    let steps = [
        Step::Send(discover(), Wait::Id(1)),
        Step::Send(call(2, "drop", "{}"), Wait::Id(2)),
        Step::Send(call(3, "add", r#"{"a":2,"b":3}"#), Wait::Id(3)),
    ];
    let (seen, code, stderr) = drive(&bridge_to("legacy", &mcp_url(port), &dir), &steps, || {});
    assert_eq!(code, Some(0), "{stderr}");
    let error = answer(&seen, 2)["error"]["message"]
        .as_str()
        .unwrap_or_default();
    let refusal = format!("refused to resume it (HTTP {status})");
    assert!(error.contains(&refusal), "{seen:?}");
    let sum = &answer(&seen, 3)["result"]["content"][0]["text"];
    assert_eq!(sum, &json!("5"), "{seen:?}");
    let report = report(&dir);
    assert_eq!(report["legacy"]["violations"], json!([]), "{report}");
    assert_eq!(report["modern"]["violations"], json!([]), "{report}");
    let record = std::fs::read_to_string(dir.join("rec/legacy.jsonl")).unwrap();
    assert_eq!(
        gets(&record),
        [(u64::from(status), "drop-1".to_string())],
        "{record}"
    );
    (report, record)
}

/// 400: the session stands; the next call goes in it.
#[test]
fn a_stream_whose_resumption_is_refused_with_400_gets_an_error_and_the_bridge_goes_on() {
    let (report, record) = refused(400);
    assert_eq!(initializes(&record), 1, "{record}");
    let notes = report["transport"]["notes"].to_string();
    assert!(
        notes.contains("refused to resume it (HTTP 400)"),
        "{report}"
    );
}

/// 404: the session is gone with the stream. The bridge does not send the call again (it may
/// have run), and opens a new session before anything else: the next call is answered in it,
/// and the old session is never used again (the legacy monitor's H4 would say so).
#[test]
fn a_stream_whose_resumption_is_refused_with_404_gets_an_error_and_a_new_session() {
    let (report, record) = refused(404);
    assert_eq!(initializes(&record), 2, "{record}");
    let calls = record.matches(r#"\"name\":\"drop\""#).count();
    assert_eq!(calls, 1, "{record}");
    let notes = report["transport"]["notes"].to_string();
    assert!(
        notes.contains("HTTP 404 to a stream's resumption"),
        "{report}"
    );
}

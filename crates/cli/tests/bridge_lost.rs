//! The lost legacy session (HTTP 404) stepped as the model's `lost` (docs/bridge.md,
//! "Faults"): a Python SDK 1.x server on Streamable HTTP restarted on its port while calls
//! are held for the modern client's retry. One new session serves every copy that meets the
//! loss; a call that met the 404 is sent again in it; a call held in the lost session gets
//! its `gone` when its retry comes, whether the retry finds it already lost (`TLLost`) or is
//! the message that meets the 404 (`TLAnswered`).

use crate::bridge_http::{META, Step, Wait, bridge_to, drive, fastmcp1, report};
use crate::monitor::scratch;
use crate::support::{Server, listening_on_any_port};
use serde_json::{Value, json};
use std::process::Stdio;

/// What the modern client is told of a call lost with its session.
const LOST: &str = "agentpi bridge: the legacy server lost the session (HTTP 404) while this \
                    call was held: it cannot be resumed";

/// `_meta` of a client that declared elicitation (so the bridge holds the call for it).
fn meta() -> String {
    META.replace(
        r#"clientCapabilities":{}"#,
        r#"clientCapabilities":{"elicitation":{}}"#,
    )
}

fn leak(s: String) -> &'static str {
    Box::leak(s.into_boxed_str())
}

fn call(id: i64, tool: &str, arguments: &str) -> &'static str {
    let meta = meta();
    leak(format!(
        r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"{tool}","arguments":{arguments},{meta}}}}}"#
    ))
}

/// The retry of the call held as `agentpi-bridge-held-{held}` (which asked `question`), with
/// the user's answer.
fn retry(id: i64, held: u32, tool: &str, question: &str) -> &'static str {
    let meta = meta();
    let state = format!("agentpi-bridge-held-{held}");
    leak(format!(
        r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"{tool}","arguments":{{"question":"{question}"}},"requestState":"{state}","inputResponses":{{"{state}":{{"action":"accept","content":{{"answer":"yes"}}}}}},{meta}}}}}"#
    ))
}

fn answer(seen: &[Value], id: i64) -> &Value {
    let found = seen.iter().find(|m| m["id"] == json!(id));
    found.unwrap_or_else(|| panic!("no answer to {id}: {seen:?}"))
}

#[test]
fn calls_held_in_a_lost_session_get_gone_and_one_new_session_serves_the_rest() {
    let dir = scratch("bridge-lost-held");
    let spawn = |port: u16| fastmcp1(Some(port)).stderr(Stdio::null()).spawn().unwrap();
    let (server, port) = listening_on_any_port(spawn(0));
    let mut server: Option<Server> = Some(server);
    let url = format!("http://127.0.0.1:{port}/mcp");
    let discover = leak(format!(
        r#"{{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{{{}}}}}"#,
        meta()
    ));
    // Two tools that ask: the modern side's monitor pairs a retry with the last
    // `input_required` of the same tool, whatever its `requestState`.
    let ask = |q: &str| leak(format!(r#"{{"question":"{q}"}}"#));
    let steps = [
        Step::Send(discover, Wait::Id(1)),
        // Two calls held for their retries (the server's elicitation pending in each).
        Step::Send(call(2, "ask", ask("one?")), Wait::Id(2)),
        Step::Send(call(3, "confirm", ask("two?")), Wait::Id(3)),
        Step::Restart,
        // A new call meets the 404: one new session, the call sent again in it, and the
        // two held calls lost with the old one (`TLWaitRetry` takes `lost`).
        Step::Send(call(4, "add", r#"{"a":2,"b":3}"#), Wait::Id(4)),
        Step::Send(retry(5, 1, "ask", "one?"), Wait::Id(5)),
        Step::Send(retry(6, 2, "confirm", "two?"), Wait::Id(6)),
        // A call held in the new session; the server restarts again and the retry's answer
        // to the server's elicitation is what meets the 404 (`TLAnswered`).
        Step::Send(call(7, "ask", ask("three?")), Wait::Id(7)),
        Step::Restart,
        Step::Send(retry(8, 3, "ask", "three?"), Wait::Id(8)),
        // The session opened for it serves the next call.
        Step::Send(call(9, "add", r#"{"a":1,"b":1}"#), Wait::Id(9)),
    ];
    let (seen, status, stderr) = drive(&bridge_to("legacy", &url, &dir), &steps, || {
        drop(server.take());
        server = Some(listening_on_any_port(spawn(port)).0);
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
    // Two losses, each opened again once. The held calls' streams broke with the server
    // (the transport's error for each is the model's `res(Call, false)`, which a held copy
    // does not take: dropped and noted).
    let lost = "the legacy server lost the session (HTTP 404): initialize again";
    let broke = "agentpi bridge: the upstream answered `tools/call` with HTTP 0 and no JSON-RPC \
                 response";
    let report = report(&dir);
    // Each held stream's break and each loss is noted once; a break and the next 404 race
    // (the server's death against the bridge's next request), so the order is not pinned.
    let count = |text: &str| {
        let notes = report["transport"]["notes"].as_array().unwrap();
        notes.iter().filter(|n| n.as_str() == Some(text)).count()
    };
    assert_eq!((count(broke), count(lost)), (3, 2), "{report}");
    assert_eq!(
        report["transport"]["notes"].as_array().unwrap().len(),
        5,
        "{report}"
    );
    let dropped = |id: i64| format!("dropped the server's answer to {id}: not expected");
    // The two held streams of the first session break together; which one the transport
    // reads first is the scheduler's choice, so the notes are compared as a set.
    let mut notes: Vec<String> = report["bridge"]["notes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| n.as_str().unwrap().to_owned())
        .collect();
    notes.sort();
    assert_eq!(notes, [dropped(2), dropped(3), dropped(7)], "{report}");
    assert_eq!(report["modern"]["violations"], json!([]), "{report}");
    // The legacy side: the Python SDK 1.x answers each 404 with a JSON-RPC error whose id is
    // "server-error", a response to no request (J6, the server's fault, as in bridge_http.rs).
    let rules: Vec<&Value> = report["legacy"]["violations"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| &v["rule"])
        .collect();
    assert_eq!(rules, [&json!("J6"), &json!("J6")], "{report}");
    let record = std::fs::read_to_string(dir.join("rec/legacy.jsonl")).unwrap();
    let inits = record.matches(r#"\"method\":\"initialize\""#).count();
    assert_eq!(inits, 3, "{record}");
    let sessions = report["legacy"]["sessions"].as_array().unwrap();
    assert_eq!(sessions.len(), 3, "{report}");
    assert_eq!(sessions[2]["violations"], json!([]), "{report}");
}

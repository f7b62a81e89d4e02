//! The listens a modern server ends, opened again by a listening bridge (`agentpi bridge --to
//! modern --listen`, docs/bridge.md "Subscriptions"; the model's `SubEndBridged` and
//! `ListsEndBridged`): each legacy client session has its own process and its own listens,
//! so each re-opens its own. Two scripted legacy sessions over Streamable HTTP, the Python SDK
//! 2.x server of tests/bridge/subscribing_server.py on stdio behind the bridge.

use crate::bridge_http::{Bridge, on_stdio, raw_session, report, with_bridge};
use crate::bridge_http_sessions::{read_until_has, session_with_stream};
use crate::bridge_run::trace_check;
use crate::monitor::peer;
use crate::support::repo;
use serde_json::{Value, json};

const UPDATED: &str = "notifications/resources/updated";
const CHANGED: &str = "notifications/tools/list_changed";

fn subscribe(id: i64) -> String {
    json!({"jsonrpc": "2.0", "id": id, "method": "resources/subscribe",
           "params": {"uri": "memo://note"}})
    .to_string()
}

fn call(id: i64, name: &str, arguments: Value) -> String {
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
           "params": {"name": name, "arguments": arguments}})
    .to_string()
}

/// Session A subscribes to the note and gets its update; B calls `hang_up`, which ends every
/// listen the server has (A's resource listen and both sessions' list-changes listens) and
/// answers once as many are open again: `re-opened 3` says each session re-opened its own. A
/// later write still reaches A (its resource listen is open again), and a list change reaches
/// both sessions (each its own list-changes listen). No finding on any side, both traces
/// clean, and the bridge's notes say each listen was ended by the server and opened again.
#[test]
fn each_legacy_session_opens_again_the_listens_the_server_ended() {
    let run = |bridge: &Bridge| {
        let address = bridge.address();
        let (a, mut a_stream) = session_with_stream(address);
        let (b, mut b_stream) = session_with_stream(address);
        let subscribed = raw_session(address, "POST", Some(&a), &subscribe(2));
        assert!(subscribed.contains(r#""id":2,"result":{}"#), "{subscribed}");
        let wrote = raw_session(
            address,
            "POST",
            Some(&a),
            &call(3, "write", json!({"text": "one"})),
        );
        assert!(wrote.contains("written"), "{wrote}");
        read_until_has(&mut a_stream, UPDATED);
        // Both list-changes listens acknowledged before they are ended: a change reaches each.
        let mut id = 10;
        let mut seen = (String::new(), String::new());
        while !(seen.0.contains(CHANGED) && seen.1.contains(CHANGED)) {
            assert!(id < 40, "no list change on both streams: {seen:?}");
            let grown = raw_session(address, "POST", Some(&b), &call(id, "grow", json!({})));
            assert!(grown.contains("grown"), "{grown}");
            seen.0.push_str(&read_some(&mut a_stream));
            seen.1.push_str(&read_some(&mut b_stream));
            id += 1;
        }
        let hung = raw_session(address, "POST", Some(&b), &call(50, "hang_up", json!({})));
        assert!(hung.contains("re-opened 3"), "{hung}");
        let wrote = raw_session(
            address,
            "POST",
            Some(&b),
            &call(51, "write", json!({"text": "two"})),
        );
        assert!(wrote.contains("written"), "{wrote}");
        let got = read_until_has(&mut a_stream, UPDATED);
        assert!(got.contains(UPDATED), "{got}");
        let grown = raw_session(address, "POST", Some(&a), &call(52, "grow", json!({})));
        assert!(grown.contains("grown"), "{grown}");
        read_until_has(&mut a_stream, CHANGED);
        read_until_has(&mut b_stream, CHANGED);
    };
    let server = [
        peer(".venv/bin/python"),
        repo()
            .join("tests/bridge/subscribing_server.py")
            .display()
            .to_string(),
    ];
    let ((), _, dir) = with_bridge("listen-reopen", "modern", &on_stdio(&server), run);
    let report = report(&dir);
    for session in report["legacy"]["sessions"].as_array().unwrap() {
        assert_eq!(session["violations"], json!([]), "{report}");
    }
    assert_eq!(report["modern"]["violations"], json!([]), "{report}");
    for side in ["legacy", "modern"] {
        let (clean, text) = trace_check(&dir.join(format!("rec/{side}.jsonl")));
        assert!(clean, "{side}: {text}");
    }
    let mut notes: Vec<String> = (report["bridge"]["notes"].as_array().unwrap().iter())
        .map(|n| n.as_str().unwrap().split(" (").next().unwrap().to_string())
        .collect();
    notes.sort();
    assert_eq!(
        notes,
        [
            "the listen of memo://note: ended by the server: opened again",
            "the server ended the list-changes listen: opened again",
            "the server ended the list-changes listen: opened again",
        ],
        "{report}"
    );
}

/// What `stream` gives within half a second (at most one read).
fn read_some(stream: &mut std::net::TcpStream) -> String {
    use std::io::Read;
    let mut buf = [0u8; 8192];
    stream
        .set_read_timeout(Some(std::time::Duration::from_millis(500)))
        .unwrap();
    let text = match stream.read(&mut buf) {
        Ok(n) => String::from_utf8_lossy(&buf[..n]).into_owned(),
        Err(_) => String::new(),
    };
    stream
        .set_read_timeout(Some(crate::bridge_http::PATIENCE))
        .unwrap();
    text
}

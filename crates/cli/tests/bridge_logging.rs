//! `agentpi bridge --to modern` declares `logging` to the legacy client exactly when the
//! modern server's `server/discover` does (the model's `logs`, TMServe's `l`): with it,
//! `logging/setLevel` is taken (its level rides each later request's `_meta`) and log lines
//! are relayed; without it, `logging/setLevel` gets -32601, as from a legacy server without
//! `logging`, and a log line the server sends all the same is dropped and noted, so that the
//! legacy side's monitor never finds X6 in the bridge's name. The server is the Python SDK
//! 2.x server of tests/bridge/log_server.py (`--undeclared`: no `logging`), the client a
//! scripted legacy client on the bridge's stdio; every read is bounded.

use crate::bridge_http::PATIENCE;
use crate::cases::each_in_parallel;
use crate::monitor::{agentpi, peer, scratch};
use crate::support::{Server, repo};
use serde_json::{Value, json};
use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};
use std::sync::mpsc::{Receiver, channel};
use std::time::{Duration, Instant};

struct Case {
    name: &'static str,
    /// The server declares no `logging` (`log_server.py --undeclared`).
    undeclared: bool,
    /// The client's requests after the handshake, each awaited before the next.
    requests: &'static [&'static str],
    /// Everything the client reads after the `initialize` answer, in order.
    reads: &'static [&'static str],
    /// Whether the `initialize` answer declares `logging`.
    declares: bool,
    /// The findings of each side: (rule, direction).
    legacy: &'static [(&'static str, &'static str)],
    modern: &'static [(&'static str, &'static str)],
    notes: &'static [&'static str],
}

const SET_LEVEL: &str =
    r#"{"jsonrpc":"2.0","id":1,"method":"logging/setLevel","params":{"level":"info"}}"#;
const SAY: &str = r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"say","arguments":{"text":"hi"}}}"#;
const BLURT: &str = r#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"blurt","arguments":{"text":"ho"}}}"#;
const SAID: &str = r#"{"id":2,"jsonrpc":"2.0","result":{"content":[{"text":"hi","type":"text"}],"isError":false,"structuredContent":{"result":"hi"}}}"#;
const BLURTED: &str = r#"{"id":3,"jsonrpc":"2.0","result":{"content":[{"text":"ho","type":"text"}],"isError":false,"structuredContent":{"result":"ho"}}}"#;

const CASES: &[Case] = &[
    // The server declares `logging`: so does the bridge, the level is set, every line relayed.
    Case {
        name: "declared",
        undeclared: false,
        requests: &[SET_LEVEL, SAY, BLURT],
        reads: &[
            r#"{"id":1,"jsonrpc":"2.0","result":{}}"#,
            r#"{"jsonrpc":"2.0","method":"notifications/message","params":{"data":"hi 1","level":"info"}}"#,
            r#"{"jsonrpc":"2.0","method":"notifications/message","params":{"data":"hi 2","level":"info"}}"#,
            SAID,
            r#"{"jsonrpc":"2.0","method":"notifications/message","params":{"data":"ho","level":"info"}}"#,
            BLURTED,
        ],
        declares: true,
        legacy: &[],
        modern: &[],
        notes: &[],
    },
    // No `logging`, and a client that keeps to what the server declared (no setLevel): no
    // level reaches the server, which sends no line; both sides clean.
    Case {
        name: "undeclared",
        undeclared: true,
        requests: &[SAY],
        reads: &[SAID],
        declares: false,
        legacy: &[],
        modern: &[],
        notes: &[],
    },
    // No `logging`, and a client that sets the level all the same (its own X6) and a server
    // that logs all the same (its own M9): the setLevel refused, the line dropped and noted;
    // each side's monitor reports its peer, never the bridge.
    Case {
        name: "undeclared-both-break-it",
        undeclared: true,
        requests: &[SET_LEVEL, SAY, BLURT],
        reads: &[
            r#"{"error":{"code":-32601,"message":"agentpi bridge: the server does not declare `logging` (server/discover)"},"id":1,"jsonrpc":"2.0"}"#,
            SAID,
            BLURTED,
        ],
        declares: false,
        legacy: &[("X6", "c2s")],
        modern: &[("M9", "s2c")],
        notes: &["dropped a notifications/message: the server did not declare logging"],
    },
];

const INIT: &str = r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"script","version":"1"}}}"#;
const INITIALIZED: &str = r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#;

/// The next message the bridge writes, or a failure naming what was awaited.
fn next(lines: &Receiver<String>, what: &str) -> Value {
    let text = (lines.recv_timeout(PATIENCE)).unwrap_or_else(|_| panic!("no answer to {what}"));
    serde_json::from_str(&text).unwrap()
}

/// Messages up to and with the answer to `id`.
fn until(lines: &Receiver<String>, id: i64, seen: &mut Vec<Value>) {
    loop {
        let message = next(lines, &format!("request {id}"));
        let done = message["id"] == json!(id);
        seen.push(message);
        if done {
            return;
        }
    }
}

fn check(case: &Case) {
    let dir = scratch(&format!("bridge-logging-{}", case.name));
    let script = repo().join("tests/bridge/log_server.py");
    let mut command = Command::new(agentpi());
    command.args(["bridge", "--to", "modern", "--record"]);
    command
        .arg(dir.join("rec"))
        .arg("--report")
        .arg(dir.join("report.json"));
    command.arg("--").arg(peer(".venv/bin/python")).arg(script);
    if case.undeclared {
        command.arg("--undeclared");
    }
    let child = (command.stdin(Stdio::piped()).stdout(Stdio::piped()))
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut bridge = Server(child);
    let mut stdin = bridge.0.stdin.take().unwrap();
    let stdout = BufReader::new(bridge.0.stdout.take().unwrap());
    let (tx, lines) = channel();
    std::thread::spawn(move || {
        for line in stdout.lines().map_while(Result::ok) {
            let _ = tx.send(line);
        }
    });
    writeln!(stdin, "{INIT}").unwrap();
    let init = next(&lines, "initialize");
    let declared = init.pointer("/result/capabilities/logging").is_some();
    assert_eq!(declared, case.declares, "{}: {init}", case.name);
    writeln!(stdin, "{INITIALIZED}").unwrap();
    let mut seen = Vec::new();
    for request in case.requests {
        writeln!(stdin, "{request}").unwrap();
        let id: Value = serde_json::from_str(request).unwrap();
        until(&lines, id["id"].as_i64().unwrap(), &mut seen);
    }
    drop(stdin);
    ended(&mut bridge, case.name);
    let reads: Vec<Value> = (case.reads.iter())
        .map(|r| serde_json::from_str(r).unwrap())
        .collect();
    assert_eq!(seen, reads, "{}", case.name);
    let text = std::fs::read_to_string(dir.join("report.json")).unwrap();
    let report: Value = serde_json::from_str(&text).unwrap();
    for (side, want) in [("legacy", case.legacy), ("modern", case.modern)] {
        let found: Vec<(String, String)> = (report[side]["violations"].as_array().unwrap())
            .iter()
            .map(|v| {
                (
                    v["rule"].as_str().unwrap().into(),
                    v["dir"].as_str().unwrap().into(),
                )
            })
            .collect();
        let want: Vec<(String, String)> = want
            .iter()
            .map(|(r, d)| (r.to_string(), d.to_string()))
            .collect();
        assert_eq!(found, want, "{} {side}: {report}", case.name);
    }
    assert_eq!(
        report["bridge"]["notes"],
        json!(case.notes),
        "{}",
        case.name
    );
}

/// The bridge ends once its client's input has (its report written), within `PATIENCE`.
pub(crate) fn ended(bridge: &mut Server, name: &str) {
    let started = Instant::now();
    while bridge.0.try_wait().unwrap().is_none() {
        assert!(
            started.elapsed() < PATIENCE,
            "{name}: the bridge did not end"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn logging_is_declared_and_carried_only_as_the_modern_server_declares_it() {
    each_in_parallel(CASES, check);
}

//! `agentpi bridge --to modern` with real peers. A legacy client, the Python SDK 1.x's
//! `ClientSession` or the TypeScript SDK 1.x's `Client` (tests/bridge/legacy_client.*), runs
//! the same session against the dual-era Python SDK 2.x server directly and through the
//! bridge in front of the same server, which then serves 2026-07-28 only (its era is fixed by
//! the first message, the bridge's `server/discover`). Each case holds the answers equal, no
//! finding on either side's report, and each side's recorded trace clean under `agentpi
//! trace check`. The faults are driven by a scripted client against a server that crashes.

use crate::bridge_http::{SESSION, output_within};
use crate::cases::each_in_parallel;
use crate::monitor::{agentpi, peer, scratch};
use crate::support::repo;
use serde_json::{Value, json};
use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Command, Stdio};

/// A client, its scenario, and the server both sessions use.
struct Case {
    name: &'static str,
    client: &'static str,
    scenario: &'static str,
    /// What the bridge notes it dropped, and why.
    notes: &'static [&'static str],
}

const CASES: &[Case] = &[
    Case {
        name: "python-all",
        client: "py",
        scenario: "all",
        notes: &[],
    },
    Case {
        name: "python-concurrent",
        client: "py",
        scenario: "concurrent",
        notes: &[],
    },
    // The client cancels `confirm` while the bridge's elicitation for it is pending, and its
    // answer to the elicitation crosses the cancel (the SDK 1.x reads nothing while its
    // callback runs): the bridge withdraws the elicitation (`notifications/cancelled` to the
    // client, the model's `cancel(r)`), drops the crossing answer, retries nothing; the
    // session goes on. (The bridge's ids are one counter for both sides: 1 the discover, 2
    // the list-changes listen, 3 the call, 4 the elicitation.)
    Case {
        name: "python-cancel-mid-elicitation",
        client: "py",
        scenario: "cancel",
        notes: &["dropped the answer to 4: it crossed its withdrawal"],
    },
    Case {
        name: "typescript-all",
        client: "ts",
        scenario: "all",
        notes: &[],
    },
];

pub(crate) fn sdk_server() -> Vec<String> {
    let script = repo().join("tests/tester/sdk_server.py");
    vec![peer(".venv/bin/python"), script.display().to_string()]
}

/// The client's command line, with `server` as the server it starts.
pub(crate) fn client(kind: &str, scenario: &str, server: &[String]) -> Command {
    let mut command = match kind {
        "py" => {
            let mut c = Command::new(peer(".venv-mcp1/bin/python"));
            c.arg(repo().join("tests/bridge/legacy_client.py"));
            c
        }
        _ => {
            let mut c = Command::new("node");
            c.arg(repo().join("tests/bridge/legacy_client.mjs"));
            c
        }
    };
    command.arg(scenario).args(server);
    command
}

/// The client's answers (its standard output), asserting it ended well.
pub(crate) fn answers(mut command: Command) -> String {
    let out = output_within(&mut command, SESSION);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "the client failed: {stderr}");
    String::from_utf8(out.stdout).unwrap()
}

pub(crate) fn bridge_then(server: &[String], dir: &Path) -> Vec<String> {
    let mut line = vec![
        agentpi().to_string(),
        "bridge".into(),
        "--to".into(),
        "modern".into(),
        "--record".into(),
        dir.join("rec").display().to_string(),
        "--report".into(),
        dir.join("report.json").display().to_string(),
        "--".into(),
    ];
    line.extend(server.iter().cloned());
    line
}

/// `agentpi trace check` of one side's record: whether it found nothing, and what it says.
pub(crate) fn trace_check(path: &Path) -> (bool, String) {
    let out = Command::new(agentpi())
        .args(["trace", "check"])
        .arg(path)
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout).to_string();
    (out.status.success(), text)
}

fn check(case: &Case) {
    let direct = answers(client(case.client, case.scenario, &sdk_server()));
    let dir = scratch(&format!("bridge-{}", case.name));
    let bridged = answers(client(
        case.client,
        case.scenario,
        &bridge_then(&sdk_server(), &dir),
    ));
    assert_eq!(bridged, direct, "{}: the answers differ", case.name);
    let report: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("report.json")).unwrap()).unwrap();
    for (side, era) in [("legacy", "2025-11-25"), ("modern", "2026-07-28")] {
        assert_eq!(
            report[side]["protocol_version"], era,
            "{}: {report}",
            case.name
        );
        assert_eq!(
            report[side]["violations"],
            json!([]),
            "{}: {report}",
            case.name
        );
        let (clean, text) = trace_check(&dir.join("rec").join(format!("{side}.jsonl")));
        assert!(clean, "{}: {text}", case.name);
        assert!(
            text.contains(" 0 violations, 0 open requests"),
            "{}: {text}",
            case.name
        );
    }
    assert_eq!(
        report["bridge"]["notes"],
        json!(case.notes),
        "{}: {report}",
        case.name
    );
}

#[test]
fn legacy_clients_reach_a_modern_server_through_the_bridge() {
    each_in_parallel(CASES, check);
}

/// A scripted legacy client: each line is sent; a request's answer is awaited before the
/// next line when `wait` says so. Returns the lines the bridge wrote, its status and stderr.
struct Script {
    name: &'static str,
    server: &'static str,
    /// (message, wait for the answer to this id)
    lines: &'static [(&'static str, Option<i64>)],
    /// Close the input after the lines (the client goes away) rather than wait for the end.
    status: i32,
    /// The ids that get an error, and a piece of each error's message.
    errors: &'static [(i64, &'static str)],
    stderr: &'static str,
    /// The rules `trace check` finds broken on the legacy side (by the scripted client).
    legacy_rules: &'static [&'static str],
    /// A message the bridge must have sent the server (a piece of its line in the record).
    to_server: &'static str,
}

const INIT: &str = r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"script","version":"1"}}}"#;
const INITIALIZED: &str = r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#;

const SCRIPTS: &[Script] = &[
    // The server crashes with two calls in flight: each gets an error, the bridge exits 1.
    Script {
        name: "crash",
        server: "crash",
        lines: &[
            (INIT, Some(0)),
            (INITIALIZED, None),
            (
                r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"slow","arguments":{"seconds":5}}}"#,
                None,
            ),
            (
                r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"crash","arguments":{}}}"#,
                Some(2),
            ),
        ],
        status: 1,
        errors: &[
            (1, "the server exited (status 3)"),
            (2, "the server exited (status 3)"),
        ],
        stderr: "the server exited (status 3) with 2 request(s) in flight",
        legacy_rules: &[],
        to_server: "",
    },
    // The client goes away: the bridge closes the server and exits 0.
    Script {
        name: "client-gone",
        server: "sdk",
        lines: &[(INIT, Some(0)), (INITIALIZED, None)],
        status: 0,
        errors: &[],
        stderr: "findings: legacy side 0, modern side 0",
        legacy_rules: &[],
        to_server: "",
    },
    // A request before `initialize` is one no transition of ToModern takes: an error to the
    // client, never a guess; the legacy side's monitor reports the client (L1, and T1: no
    // `tools` capability declared yet), the modern side saw nothing.
    Script {
        name: "refused",
        server: "sdk",
        lines: &[(r#"{"jsonrpc":"2.0","id":7,"method":"tools/list"}"#, Some(7))],
        status: 0,
        errors: &[(7, "no transition of mcp/bridge's ToModern takes it")],
        stderr: "findings: legacy side 2, modern side 0",
        legacy_rules: &["L1", "T1"],
        to_server: "",
    },
    // The client cancels a call in flight: the bridge cancels the modern request (on stdio
    // `notifications/cancelled` with the modern id: the discover is 1, the call 2), and the
    // client gets nothing for it; a ping after shows the session goes on.
    Script {
        name: "cancel",
        server: "sdk",
        lines: &[
            (INIT, Some(0)),
            (INITIALIZED, None),
            (
                r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"slow","arguments":{"seconds":5}}}"#,
                None,
            ),
            (
                r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}"#,
                None,
            ),
            (r#"{"jsonrpc":"2.0","id":2,"method":"ping"}"#, Some(2)),
        ],
        status: 0,
        errors: &[],
        stderr: "findings: legacy side 0, modern side 0",
        legacy_rules: &[],
        to_server: r#"\"method\":\"notifications/cancelled\",\"params\":{\"requestId\":2"#,
    },
];

fn run_script(script: &Script) {
    let server = match script.server {
        "crash" => vec![
            peer(".venv/bin/python"),
            repo()
                .join("tests/bridge/crash_server.py")
                .display()
                .to_string(),
        ],
        _ => sdk_server(),
    };
    let dir = scratch(&format!("bridge-{}", script.name));
    let line = bridge_then(&server, &dir);
    let mut child = Command::new(&line[0])
        .args(&line[1..])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let mut stdout = BufReader::new(child.stdout.take().unwrap());
    let mut seen: Vec<Value> = Vec::new();
    for (message, wait) in script.lines {
        writeln!(stdin, "{message}").unwrap();
        stdin.flush().unwrap();
        while let Some(id) = wait {
            let mut text = String::new();
            if stdout.read_line(&mut text).unwrap() == 0 {
                break;
            }
            let got: Value = serde_json::from_str(&text).unwrap();
            let done = got["id"] == json!(id);
            seen.push(got);
            if done {
                break;
            }
        }
    }
    drop(stdin);
    for text in stdout.lines() {
        seen.push(serde_json::from_str(&text.unwrap()).unwrap());
    }
    let out = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(
        out.status.code(),
        Some(script.status),
        "{}: {stderr}",
        script.name
    );
    assert!(stderr.contains(script.stderr), "{}: {stderr}", script.name);
    let errors: Vec<(i64, String)> = seen
        .iter()
        .filter(|m| m.get("error").is_some())
        .map(|m| (m["id"].as_i64().unwrap(), m["error"]["message"].to_string()))
        .collect();
    assert_eq!(
        errors.len(),
        script.errors.len(),
        "{}: {seen:?}",
        script.name
    );
    for ((id, text), (want_id, want)) in errors.iter().zip(script.errors) {
        assert_eq!(id, want_id, "{}: {seen:?}", script.name);
        assert!(text.contains(want), "{}: {text}", script.name);
    }
    let (clean, text) = trace_check(&dir.join("rec/modern.jsonl"));
    assert!(clean, "{}: {text}", script.name);
    let (clean, text) = trace_check(&dir.join("rec/legacy.jsonl"));
    assert_eq!(
        clean,
        script.legacy_rules.is_empty(),
        "{}: {text}",
        script.name
    );
    let modern = std::fs::read_to_string(dir.join("rec/modern.jsonl")).unwrap();
    assert!(
        modern.contains(script.to_server),
        "{}: {modern}",
        script.name
    );
    let answered: Vec<&Value> = seen.iter().filter(|m| m["id"] == json!(1)).collect();
    if script.name == "cancel" {
        assert_eq!(answered, Vec::<&Value>::new(), "an answer after the cancel");
    }
    for rule in script.legacy_rules {
        assert!(
            text.contains(&format!(": {rule} MUST")),
            "{}: {text}",
            script.name
        );
    }
}

#[test]
fn faults_end_every_request_in_flight() {
    each_in_parallel(SCRIPTS, run_script);
}

/// X1 with real peers: the Python SDK 1.x client declares no capability, and the SDK 2.x
/// server of tests/bridge/rude_server.py asks it for elicitation, sampling and roots all the
/// same (breaking M11; the SDK's own `Resolve` would answer -32021). The bridge never carries
/// them: the elicitation is declined in the retry (the tool says what came back), sampling
/// and roots end their calls with an error; `insist` twice, so two rounds of one tool; `add`
/// after shows the session goes on. The legacy side is clean; the modern side's monitor
/// reports the server (M11, one per undeclared round), not the bridge.
#[test]
fn a_legacy_client_is_never_asked_what_it_did_not_declare() {
    let script = repo().join("tests/bridge/rude_server.py");
    let server = vec![peer(".venv/bin/python"), script.display().to_string()];
    let dir = scratch("bridge-undeclared");
    let bridged = answers(client("py", "undeclared", &bridge_then(&server, &dir)));
    let expected = [
        r#"{"version": "2025-11-25"}"#,
        r#"{"insist": {"content": [{"text": "consent: {'action': 'decline'}", "type": "text"}], "isError": false, "structuredContent": {"result": "consent: {'action': 'decline'}"}}}"#,
        r#"{"ponder": {"error": "agentpi bridge: the server asks for sampling/createMessage, which this client did not declare at initialize (X1): not carried"}}"#,
        r#"{"wander": {"error": "agentpi bridge: the server asks for roots/list, which this client did not declare at initialize (X1): not carried"}}"#,
        r#"{"insist": {"content": [{"text": "consent: {'action': 'decline'}", "type": "text"}], "isError": false, "structuredContent": {"result": "consent: {'action': 'decline'}"}}}"#,
        r#"{"add": {"content": [{"text": "5", "type": "text"}], "isError": false, "structuredContent": {"result": 5}}}"#,
    ];
    assert_eq!(bridged.lines().collect::<Vec<_>>(), expected, "{bridged}");
    let report: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("report.json")).unwrap()).unwrap();
    let rules = |side: &str| -> Vec<String> {
        let found = report[side]["violations"].as_array().unwrap();
        found
            .iter()
            .map(|v| v["rule"].as_str().unwrap().to_string())
            .collect()
    };
    assert_eq!(rules("legacy"), Vec::<String>::new(), "{report}");
    assert_eq!(rules("modern"), ["M11"; 4], "{report}");
    let (clean, text) = trace_check(&dir.join("rec").join("legacy.jsonl"));
    assert!(clean, "{text}");
    let (_, text) = trace_check(&dir.join("rec").join("modern.jsonl"));
    assert!(text.contains(" 4 violations, 0 open requests"), "{text}");
    let declined = "the client did not declare (X1): declined in the retry";
    let ended = "the client did not declare (X1): the call ends with an error";
    let notes = [
        format!("the server asked for elicitation/create {declined}"),
        format!("the server asked for sampling/createMessage {ended}"),
        format!("the server asked for roots/list {ended}"),
        format!("the server asked for elicitation/create {declined}"),
    ];
    assert_eq!(report["bridge"]["notes"], json!(notes), "{report}");
}

//! `agentpi bridge --to legacy` with real peers. The modern client is the Python SDK 2.x's
//! `Client` (tests/bridge/modern_client.py): in mode `auto` through the bridge (its
//! `server/discover` probe is answered, so it speaks 2026-07-28), and in mode `legacy` with
//! the same legacy server directly (2025-11-25), the reference for the answers. Legacy
//! servers: server-everything (its elicitation and sampling tools), server-filesystem,
//! server-memory. Each case holds the answers equal, no finding on either side's report,
//! each side's trace clean under `agentpi trace check`, and the bridge's notes as pinned.
//! The faults: a legacy server that crashes with two calls in flight, and a retry that never
//! comes in time (the held call cancelled).

use crate::bridge_http::{SESSION, output_within};
use crate::cases::each_in_parallel;
use crate::monitor::{agentpi, peer, scratch};
use crate::support::repo;
use serde_json::{Value, json};
use std::path::Path;
use std::process::Command;
use std::time::Duration;

/// A legacy server and the client's scenario for it.
struct Case {
    name: &'static str,
    scenario: &'static str,
    /// What the bridge notes it did not carry (server notifications), in order.
    notes: &'static [&'static str],
}

pub(crate) const LIST_CHANGED: &str =
    "`notifications/tools/list_changed` from the server is not carried";

const CASES: &[Case] = &[
    // server-everything registers its elicitation and sampling tools once the client's
    // capabilities are known and says so, four times; a modern client would hear of list
    // changes through `subscriptions/listen`, which is not carried.
    Case {
        name: "everything",
        scenario: "everything",
        notes: &[LIST_CHANGED, LIST_CHANGED, LIST_CHANGED, LIST_CHANGED],
    },
    Case {
        name: "filesystem",
        scenario: "filesystem",
        notes: &[],
    },
    Case {
        name: "memory",
        scenario: "memory",
        notes: &[],
    },
];

/// The legacy server of a case, its files in `dir` (a directory to serve, a memory file).
fn server(name: &str, dir: &Path) -> Vec<String> {
    let bin = |b: &str| peer(&format!("node_modules/.bin/{b}"));
    match name {
        "everything" => vec![bin("mcp-server-everything")],
        "filesystem" => {
            let root = dir.join("root");
            std::fs::create_dir_all(&root).unwrap();
            std::fs::write(root.join("a.txt"), "one line\n").unwrap();
            vec![bin("mcp-server-filesystem"), root.display().to_string()]
        }
        "memory" => vec![bin("mcp-server-memory")],
        _ => vec![
            peer(".venv-mcp1/bin/python"),
            repo()
                .join("tests/bridge/crash_server.py")
                .display()
                .to_string(),
        ],
    }
}

/// The client in `mode` running `scenario` against `command`; its output and status.
pub(crate) fn client(
    mode: &str,
    scenario: &str,
    command: &[String],
    memory: &Path,
) -> (String, bool) {
    client_within(mode, scenario, command, memory, SESSION)
}

/// `client`, which must end within `limit` (else it is killed and the test fails).
pub(crate) fn client_within(
    mode: &str,
    scenario: &str,
    command: &[String],
    memory: &Path,
    limit: Duration,
) -> (String, bool) {
    let mut client = Command::new(peer(".venv/bin/python"));
    client
        .arg(repo().join("tests/bridge/modern_client.py"))
        .args([mode, scenario, "--"])
        .args(command)
        .env("MEMORY_FILE_PATH", memory);
    let out = output_within(&mut client, limit);
    let stdout = String::from_utf8(out.stdout).unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "the client failed: {stdout}{stderr}");
    (stdout, out.status.success())
}

fn bridge_then(server: &[String], dir: &Path, extra: &[&str]) -> Vec<String> {
    let mut line = vec![agentpi().to_string(), "bridge".into(), "--to".into()];
    line.push("legacy".into());
    line.extend(extra.iter().map(|s| s.to_string()));
    for (flag, path) in [("--record", "rec"), ("--report", "report.json")] {
        line.push(flag.into());
        line.push(dir.join(path).display().to_string());
    }
    line.push("--".into());
    line.extend(server.iter().cloned());
    line
}

/// The answers without the last line (the era, which differs by design), and the era.
pub(crate) fn split_era(out: &str) -> (String, String) {
    let mut lines: Vec<&str> = out.lines().collect();
    let era = lines.pop().unwrap_or_default().to_string();
    (lines.join("\n"), era)
}

fn trace_check(path: &Path) -> (bool, String) {
    let out = Command::new(agentpi())
        .args(["trace", "check"])
        .arg(path)
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout).to_string();
    (out.status.success(), text)
}

fn report(dir: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(dir.join("report.json")).unwrap()).unwrap()
}

/// Both sides clean: the era each speaks, no finding, the trace clean.
fn clean_sides(name: &str, dir: &Path) {
    let report = report(dir);
    for (side, era) in [("legacy", "2025-11-25"), ("modern", "2026-07-28")] {
        assert_eq!(report[side]["protocol_version"], era, "{name}: {report}");
        assert_eq!(report[side]["violations"], json!([]), "{name}: {report}");
        let (clean, text) = trace_check(&dir.join("rec").join(format!("{side}.jsonl")));
        assert!(clean, "{name} {side}: {text}");
    }
}

fn check(case: &Case) {
    let dir = scratch(&format!("bridge-legacy-{}", case.name));
    let server = server(case.name, &dir);
    let (direct, _) = client("legacy", case.scenario, &server, &dir.join("direct.json"));
    let line = bridge_then(&server, &dir, &[]);
    let (bridged, _) = client("auto", case.scenario, &line, &dir.join("bridged.json"));
    let (direct, direct_era) = split_era(&direct);
    let (bridged, bridged_era) = split_era(&bridged);
    assert_eq!(direct_era, r#"{"era": "2025-11-25"}"#, "{}", case.name);
    assert_eq!(bridged_era, r#"{"era": "2026-07-28"}"#, "{}", case.name);
    assert_eq!(bridged, direct, "{}: the answers differ", case.name);
    clean_sides(case.name, &dir);
    let notes = &report(&dir)["bridge"]["notes"];
    assert_eq!(notes, &json!(case.notes), "{}", case.name);
}

#[test]
fn a_modern_client_reaches_legacy_servers_through_the_bridge() {
    each_in_parallel(CASES, check);
}

/// The server crashes with two calls in flight (one sent, one waiting in the bridge for the
/// legacy session's turn: the client declares elicitation): each gets the bridge's error.
#[test]
fn a_crash_mid_call_answers_every_request_in_flight() {
    let dir = scratch("bridge-legacy-crash");
    let line = bridge_then(&server("crash", &dir), &dir, &[]);
    let (out, _) = client("auto", "crash", &line, &dir.join("m.json"));
    let got: Value = serde_json::from_str(out.lines().next().unwrap()).unwrap();
    for call in ["slow", "crash"] {
        let text = got[call].as_str().unwrap();
        assert!(
            text.contains("the server exited (status 3) with 2 request(s) in flight"),
            "{call}: {out}"
        );
    }
    let (clean, text) = trace_check(&dir.join("rec/modern.jsonl"));
    assert!(clean, "{text}");
}

/// The retry never comes in time: the held legacy call is cancelled after `--retry-timeout`,
/// and the late retry gets an error (its `requestState` names nothing any more).
#[test]
fn a_retry_that_never_comes_cancels_the_held_call() {
    let dir = scratch("bridge-legacy-timeout");
    let server = server("everything", &dir);
    let line = bridge_then(&server, &dir, &["--retry-timeout", "1"]);
    let (out, _) = client("auto", "timeout", &line, &dir.join("m.json"));
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(
        lines,
        [
            r#"{"first": "input_required"}"#,
            r#"{"late": "error"}"#,
            r#"{"era": "2026-07-28"}"#
        ],
        "{out}"
    );
    let legacy = std::fs::read_to_string(dir.join("rec/legacy.jsonl")).unwrap();
    assert!(
        legacy.contains(r#"\"method\":\"notifications/cancelled\""#),
        "{legacy}"
    );
    let notes = report(&dir)["bridge"]["notes"].to_string();
    assert!(notes.contains("timed out: cancelled"), "{notes}");
    clean_sides("timeout", &dir);
}

//! `agentpi bridge --upstream URL` and `--listen HOST:PORT` (each alone, and both at once) with
//! real peers over Streamable HTTP on loopback. Each
//! pairing runs a client's session against the server directly (stdio, the server's era or
//! the dual-era server's legacy one) and through the bridge in front of the same server
//! listening on HTTP: the answers are equal, both sides' reports have no finding, and both
//! recorded traces pass `agentpi trace check`. The faults are driven by a scripted client:
//! a legacy HTTP server restarted in the middle of the session (its 404 for the lost session
//! makes the bridge open a new one, and nothing is lost), an upstream nobody listens on, and
//! a legacy cancel that closes the modern request's stream. The listening side's guard refuses
//! a DNS-rebinding request (403) and a non-loopback address without `--allow-remote`.

use crate::bridge_legacy;
use crate::bridge_run;
use crate::cases::each_in_parallel;
use crate::monitor::{agentpi, peer, scratch};
use crate::support::{Server, free_port, listening_on_any_port, repo};
use serde_json::{Value, json};
use std::io::{BufRead, BufReader, ErrorKind, Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError, channel};
use std::time::{Duration, Instant};

/// How long a test waits for one thing (a message, an answer, a bridge's end) before it
/// fails: generous, since it only ends a test that fails anyway, on a loaded machine.
pub(crate) const PATIENCE: Duration = Duration::from_secs(120);

/// How long a client's whole session may take (a test's client process ends within it).
pub(crate) const SESSION: Duration = Duration::from_secs(600);

/// A connection to a listening bridge whose reads and writes give up after `PATIENCE`.
pub(crate) fn connect(address: &str) -> TcpStream {
    let stream = TcpStream::connect(address).unwrap();
    stream.set_read_timeout(Some(PATIENCE)).unwrap();
    stream.set_write_timeout(Some(PATIENCE)).unwrap();
    stream
}

/// The head of an HTTP answer on `stream` (up to its blank line), lowercased; panics when it
/// does not come.
pub(crate) fn read_head(stream: &mut TcpStream) -> String {
    let mut head = Vec::new();
    let mut byte = [0u8; 1];
    while !head.ends_with(b"\r\n\r\n") {
        match stream.read(&mut byte) {
            Ok(1) => head.push(byte[0]),
            got => panic!(
                "no whole head ({got:?}): {}",
                String::from_utf8_lossy(&head)
            ),
        }
    }
    String::from_utf8_lossy(&head).to_ascii_lowercase()
}

/// A pairing: the bridge's direction, the server (run on HTTP behind it, on stdio for the
/// reference), the client and its scenario.
struct Case {
    name: &'static str,
    /// The side over HTTP: `upstream` (the server, on HTTP behind the bridge), `listen`
    /// (the client, which reaches the bridge at its URL; the server on stdio behind it), or
    /// `both` (the client reaches the bridge at its URL, the server on HTTP behind it).
    side: &'static str,
    to: &'static str,
    server: &'static str,
    /// `py`, `ts` (legacy clients) or `modern` (the Python SDK 2.x client).
    client: &'static str,
    scenario: &'static str,
}

const CASES: &[Case] = &[
    // A legacy client reaches a modern HTTP server (what mcp-remote users need): the Python
    // SDK 2.x server, which serves 2026-07-28 to the bridge's `_meta` requests.
    Case {
        name: "modern-sdk-python-all",
        side: "upstream",
        to: "modern",
        server: "sdk",
        client: "py",
        scenario: "all",
    },
    Case {
        name: "modern-sdk-python-concurrent",
        side: "upstream",
        to: "modern",
        server: "sdk",
        client: "py",
        scenario: "concurrent",
    },
    Case {
        name: "modern-sdk-typescript-all",
        side: "upstream",
        to: "modern",
        server: "sdk",
        client: "ts",
        scenario: "all",
    },
    // A modern client reaches legacy HTTP servers: server-everything (elicitation and
    // sampling in the middle of a call, on the call's SSE stream) and the Python SDK 1.x.
    Case {
        name: "legacy-everything",
        side: "upstream",
        to: "legacy",
        server: "everything",
        client: "modern",
        scenario: "everything",
    },
    Case {
        name: "legacy-fastmcp1",
        side: "upstream",
        to: "legacy",
        server: "fastmcp1",
        client: "modern",
        scenario: "adder",
    },
    // The client side over HTTP: legacy clients to the modern server on stdio (a legacy
    // session with its `Mcp-Session-Id`), the modern client to server-everything on stdio.
    Case {
        name: "listen-modern-sdk-python-all",
        side: "listen",
        to: "modern",
        server: "sdk",
        client: "py",
        scenario: "all",
    },
    Case {
        name: "listen-modern-sdk-python-concurrent",
        side: "listen",
        to: "modern",
        server: "sdk",
        client: "py",
        scenario: "concurrent",
    },
    Case {
        name: "listen-modern-sdk-typescript-all",
        side: "listen",
        to: "modern",
        server: "sdk",
        client: "ts",
        scenario: "all",
    },
    Case {
        name: "listen-legacy-everything",
        side: "listen",
        to: "legacy",
        server: "everything",
        client: "modern",
        scenario: "everything",
    },
    // Both sides over HTTP: `--listen` with `--upstream`, each direction.
    Case {
        name: "both-modern-sdk-python-all",
        side: "both",
        to: "modern",
        server: "sdk",
        client: "py",
        scenario: "all",
    },
    Case {
        name: "both-legacy-everything",
        side: "both",
        to: "legacy",
        server: "everything",
        client: "modern",
        scenario: "everything",
    },
];

pub(crate) fn fastmcp1(port: Option<u16>) -> Command {
    let mut c = Command::new(peer(".venv-mcp1/bin/python"));
    c.arg(repo().join("tests/bridge/legacy_http_server.py"));
    c.args(port.map(|p| p.to_string()));
    c
}

/// server-everything on Streamable HTTP (`PORT=0`).
fn everything() -> (Server, u16) {
    let child = Command::new(peer("node_modules/.bin/mcp-server-everything"))
        .arg("streamableHttp")
        .env("PORT", "0")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    listening_on_any_port(child)
}

/// The server of a case listening on HTTP, and its URL.
fn listening(server: &str) -> (Server, String) {
    let (server, port) = match server {
        "everything" => everything(),
        "sdk" => {
            let mut c = Command::new(peer(".venv/bin/python"));
            c.arg(repo().join("tests/tester/sdk_server.py"));
            c.args(["--http", "0"]);
            listening_on_any_port(c.stderr(Stdio::null()).spawn().unwrap())
        }
        _ => listening_on_any_port(fastmcp1(Some(0)).stderr(Stdio::null()).spawn().unwrap()),
    };
    (server, format!("http://127.0.0.1:{port}/mcp"))
}

/// The same server on stdio: the reference.
pub(crate) fn direct(server: &str) -> Vec<String> {
    match server {
        "everything" => vec![peer("node_modules/.bin/mcp-server-everything")],
        "sdk" => bridge_run::sdk_server(),
        _ => {
            let c = fastmcp1(None);
            let mut line = vec![c.get_program().to_string_lossy().into_owned()];
            line.extend(c.get_args().map(|a| a.to_string_lossy().into_owned()));
            line
        }
    }
}

/// `agentpi bridge --to TO --record DIR/rec --report DIR/report.json`.
fn bridge_line(to: &str, dir: &Path) -> Vec<String> {
    let mut line = vec![
        agentpi().to_string(),
        "bridge".into(),
        "--to".into(),
        to.into(),
    ];
    for (flag, path) in [("--record", "rec"), ("--report", "report.json")] {
        line.push(flag.into());
        line.push(dir.join(path).display().to_string());
    }
    line
}

pub(crate) fn bridge_to(to: &str, url: &str, dir: &Path) -> Vec<String> {
    let mut line = bridge_line(to, dir);
    line.extend(["--upstream".to_string(), url.to_string()]);
    line
}

/// The client's answers with `command` as its server; `bridged` tells the mode of the
/// modern client (auto through the bridge, legacy directly) and drops its era line.
fn answers(case: &Case, command: &[String], dir: &Path, bridged: bool) -> String {
    if case.client != "modern" {
        return bridge_run::answers(bridge_run::client(case.client, case.scenario, command));
    }
    let mode = if bridged { "auto" } else { "legacy" };
    let memory = dir.join(format!("{mode}.json"));
    let (out, _) = bridge_legacy::client(mode, case.scenario, command, &memory);
    let (answers, era) = bridge_legacy::split_era(&out);
    let want = if bridged { "2026-07-28" } else { "2025-11-25" };
    assert_eq!(era, format!(r#"{{"era": "{want}"}}"#), "{}", case.name);
    answers
}

pub(crate) fn report(dir: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(dir.join("report.json")).unwrap()).unwrap()
}

/// Both sides: the era each speaks, no finding, each trace clean under `trace check`.
fn clean_sides(name: &str, dir: &Path) -> Value {
    let report = report(dir);
    for (side, era) in [("legacy", "2025-11-25"), ("modern", "2026-07-28")] {
        assert_eq!(report[side]["protocol_version"], era, "{name}: {report}");
        assert_eq!(report[side]["violations"], json!([]), "{name}: {report}");
        let (clean, text) = bridge_run::trace_check(&dir.join("rec").join(format!("{side}.jsonl")));
        assert!(clean, "{name} {side}: {text}");
        assert!(
            text.contains(" 0 violations, 0 open requests"),
            "{name} {side}: {text}"
        );
    }
    report
}

/// A bridge listening on HTTP, the URL it serves, and its standard error (read by a thread,
/// line by line).
pub(crate) struct Bridge {
    child: Server,
    pub(crate) url: String,
    stderr: Receiver<String>,
}

impl Bridge {
    /// The listening address, `HOST:PORT`.
    pub(crate) fn address(&self) -> &str {
        self.url
            .trim_start_matches("http://")
            .trim_end_matches("/mcp")
    }

    /// `agentpi bridge --to TO --listen 127.0.0.1:0 ... MORE`, once it listens.
    fn listen(to: &str, dir: &Path, more: &[String]) -> Bridge {
        let mut line = bridge_line(to, dir);
        line.extend(["--listen".to_string(), "127.0.0.1:0".to_string()]);
        line.extend(more.iter().cloned());
        let mut child = Command::new(&line[0])
            .args(&line[1..])
            .stdin(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let stderr = lines(child.stderr.take().unwrap());
        let child = Server(child);
        let mut said = String::new();
        let url = loop {
            let banner = (stderr.recv_timeout(PATIENCE))
                .unwrap_or_else(|e| panic!("no banner ({e:?}): {said}"));
            if let Some(at) = banner.find("listening on ") {
                break banner[at + "listening on ".len()..].trim().to_string();
            }
            said.push_str(&banner);
        };
        Bridge { child, url, stderr }
    }

    /// SIGTERM, then the exit status and the rest of its standard error.
    pub(crate) fn stop(mut self) -> (Option<i32>, String) {
        let pid = self.child.0.id().to_string();
        let killed = Command::new("kill").args(["-TERM", &pid]).status().unwrap();
        assert!(killed.success());
        let mut rest = String::new();
        loop {
            match self.stderr.recv_timeout(PATIENCE) {
                Ok(line) => rest.push_str(&line),
                Err(RecvTimeoutError::Disconnected) => break,
                Err(RecvTimeoutError::Timeout) => panic!("the bridge did not end: {rest}"),
            }
        }
        (exit_status(&mut self.child.0), rest)
    }
}

/// Each line `from` gives (with its newline), through a channel, read by a thread of its own.
pub(crate) fn lines(from: impl Read + Send + 'static) -> Receiver<String> {
    let (tx, rx) = channel();
    std::thread::spawn(move || {
        let mut from = BufReader::new(from);
        loop {
            let mut line = String::new();
            match from.read_line(&mut line) {
                Ok(0) | Err(_) => break,
                Ok(_) if tx.send(line).is_err() => break,
                Ok(_) => {}
            }
        }
    });
    rx
}

/// What `command` writes and how it ends, as `Command::output` (standard input closed), but
/// the command must end within `limit` (a client's whole session): else it is killed and
/// the test fails, rather than wait for ever.
pub(crate) fn output_within(command: &mut Command, limit: Duration) -> Output {
    let mut child = (command.stdin(Stdio::null()))
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let (stdout, stderr) = (drain(child.stdout.take()), drain(child.stderr.take()));
    let mut child = Server(child);
    let started = Instant::now();
    let status = loop {
        if let Some(status) = child.0.try_wait().unwrap() {
            break status;
        }
        assert!(
            started.elapsed() < limit,
            "{command:?} did not end in {limit:?}"
        );
        std::thread::sleep(Duration::from_millis(20));
    };
    // A process the command started may still hold its pipes: bounded too.
    let take = |rx: Receiver<Vec<u8>>| rx.recv_timeout(PATIENCE).expect("a pipe left open");
    Output {
        status,
        stdout: take(stdout),
        stderr: take(stderr),
    }
}

/// All that `from` gives, read by a thread of its own, sent once it ends.
fn drain(from: Option<impl Read + Send + 'static>) -> Receiver<Vec<u8>> {
    let (tx, rx) = channel();
    std::thread::spawn(move || {
        let mut all = Vec::new();
        if let Some(mut from) = from {
            let _ = from.read_to_end(&mut all);
        }
        let _ = tx.send(all);
    });
    rx
}

/// The exit status of `child`, which must end within `PATIENCE`.
fn exit_status(child: &mut std::process::Child) -> Option<i32> {
    let started = Instant::now();
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            return status.code();
        }
        assert!(started.elapsed() < PATIENCE, "the child did not end");
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// The command line of `server` on stdio behind a bridge: `-- CMD ARGS...`.
pub(crate) fn on_stdio(server: &[String]) -> Vec<String> {
    let mut line = vec!["--".to_string()];
    line.extend(server.iter().cloned());
    line
}

/// A run of `body` against a bridge `--to TO --listen 127.0.0.1:0 MORE...` (its record and
/// report in the scratch directory `bridge-http-NAME`), which must then stop cleanly
/// (SIGTERM, exit 0): what `body` gave, the bridge's standard error and the directory.
pub(crate) fn with_bridge<T>(
    name: &str,
    to: &str,
    more: &[String],
    body: impl FnOnce(&Bridge) -> T,
) -> (T, String, PathBuf) {
    let dir = scratch(&format!("bridge-http-{name}"));
    let bridge = Bridge::listen(to, &dir, more);
    let value = body(&bridge);
    let (status, stderr) = bridge.stop();
    assert_eq!(status, Some(0), "{name}: {stderr}");
    (value, stderr, dir)
}

/// The answers through the bridge: in front of the server on HTTP (`upstream`), listening
/// with the server on stdio behind it (`listen`), or listening in front of the server on
/// HTTP (`both`).
fn through(case: &Case, dir: &Path) -> String {
    if case.side == "upstream" {
        let (_server, url) = listening(case.server);
        return answers(case, &bridge_to(case.to, &url, dir), dir, true);
    }
    let mut _upstream = None;
    let server = if case.side == "both" {
        let (server, url) = listening(case.server);
        _upstream = Some(server);
        vec!["--upstream".to_string(), url]
    } else {
        let mut line = vec!["--".to_string()];
        line.extend(direct(case.server));
        line
    };
    let bridge = Bridge::listen(case.to, dir, &server);
    let bridged = answers(case, std::slice::from_ref(&bridge.url), dir, true);
    let (status, stderr) = bridge.stop();
    assert_eq!(status, Some(0), "{}: {stderr}", case.name);
    bridged
}

fn check(case: &Case) {
    let dir = scratch(&format!("bridge-http-{}", case.name));
    let reference = answers(case, &direct(case.server), &dir, false);
    let bridged = through(case, &dir);
    assert_eq!(bridged, reference, "{}: the answers differ", case.name);
    let report = clean_sides(case.name, &dir);
    assert_eq!(
        report["bridge"]["notes"],
        json!(notes(case)),
        "{}: {report}",
        case.name
    );
    assert_eq!(
        report["transport"]["notes"],
        json!([]),
        "{}: {report}",
        case.name
    );
    // Over HTTP every message is its own exchange, with the era's headers: a modern
    // request's `Mcp-Method` (and `Mcp-Name`), a legacy session's `Mcp-Session-Id`.
    let http_sides: &[&str] = match (case.side, case.to) {
        ("both", _) => &["modern", "legacy"],
        ("upstream", "modern") | ("listen", "legacy") => &["modern"],
        _ => &["legacy"],
    };
    for http_side in http_sides {
        let record = std::fs::read_to_string(dir.join("rec").join(format!("{http_side}.jsonl")));
        let header = match *http_side {
            "modern" => r#"["mcp-method","tools/call"]"#,
            _ => r#"["mcp-session-id","#,
        };
        assert!(record.unwrap().contains(header), "{}: {header}", case.name);
    }
}

/// What the bridge notes it did not carry: server-everything's list changes on stdio.
fn notes(case: &Case) -> Vec<&'static str> {
    match (case.side, case.server) {
        ("listen", "everything") => vec![bridge_legacy::LIST_CHANGED; 4],
        _ => Vec::new(),
    }
}

#[test]
fn clients_reach_http_servers_of_the_other_era_through_the_bridge() {
    each_in_parallel(CASES, check);
}

/// One step of a scripted client: a message to send (and what to wait for before the next
/// step), or the server restarted on its port.
pub(crate) enum Step {
    Send(&'static str, Wait),
    Restart,
}

pub(crate) enum Wait {
    None,
    Id(i64),
    Method(&'static str),
    /// The end of the output.
    End,
}

/// A scripted client through the bridge `line`: the messages it got, the bridge's status
/// and its stderr. `restart` starts the server again.
pub(crate) fn drive(
    line: &[String],
    steps: &[Step],
    mut restart: impl FnMut(),
) -> (Vec<Value>, Option<i32>, String) {
    let mut child = Command::new(&line[0])
        .args(&line[1..])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let stdout = lines(child.stdout.take().unwrap());
    let stderr = lines(child.stderr.take().unwrap());
    let mut child = Server(child);
    let mut seen: Vec<Value> = Vec::new();
    for step in steps {
        let wait = match step {
            Step::Restart => {
                restart();
                continue;
            }
            Step::Send(message, wait) => {
                writeln!(stdin, "{message}").unwrap();
                stdin.flush().unwrap();
                wait
            }
        };
        if !matches!(wait, Wait::None) {
            read_until(&stdout, wait, &mut seen);
        }
    }
    drop(stdin);
    read_until(&stdout, &Wait::End, &mut seen);
    let mut text = String::new();
    read_all(&stderr, &mut text);
    (seen, exit_status(&mut child.0), text)
}

/// Everything `from` gives until it ends, which must be within `PATIENCE` of each line.
fn read_all(from: &Receiver<String>, into: &mut String) {
    loop {
        match from.recv_timeout(PATIENCE) {
            Ok(line) => into.push_str(&line),
            Err(RecvTimeoutError::Disconnected) => return,
            Err(RecvTimeoutError::Timeout) => panic!("no end after: {into}"),
        }
    }
}

/// Reads what the bridge writes into `seen` until `wait` is met (or the output ends); each
/// line must come within `PATIENCE`.
fn read_until(stdout: &Receiver<String>, wait: &Wait, seen: &mut Vec<Value>) {
    loop {
        let text = match stdout.recv_timeout(PATIENCE) {
            Ok(text) => text,
            Err(RecvTimeoutError::Disconnected) => return,
            Err(RecvTimeoutError::Timeout) => panic!("waited in vain; got {seen:?}"),
        };
        let got: Value = serde_json::from_str(&text).unwrap();
        let done = match wait {
            Wait::Id(id) => got["id"] == json!(id),
            Wait::Method(m) => got["method"] == json!(m),
            Wait::None => true,
            Wait::End => false,
        };
        seen.push(got);
        if done {
            return;
        }
    }
}

pub(crate) const META: &str = r#""_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"script","version":"1"}}"#;

/// The legacy session is lost when the server restarts: the next call gets a 404, the
/// bridge opens a new session (initialize again), sends the call in it and answers the
/// client; it says so, and both sides stay clean.
#[test]
fn a_lost_legacy_session_is_opened_again() {
    let dir = scratch("bridge-http-lost-session");
    let (server, port) =
        listening_on_any_port(fastmcp1(Some(0)).stderr(Stdio::null()).spawn().unwrap());
    let mut server = Some(server);
    let url = format!("http://127.0.0.1:{port}/mcp");
    let discover =
        format!(r#"{{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{{{META}}}}}"#);
    let call = |id: i64| {
        format!(
            r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"add","arguments":{{"a":2,"b":3}},{META}}}}}"#
        )
    };
    let (first, second) = (call(2), call(3));
    let leak = |s: String| -> &'static str { Box::leak(s.into_boxed_str()) };
    let steps = [
        Step::Send(leak(discover), Wait::Id(1)),
        Step::Send(leak(first), Wait::Id(2)),
        Step::Restart,
        Step::Send(leak(second), Wait::Id(3)),
    ];
    let (seen, status, stderr) = drive(&bridge_to("legacy", &url, &dir), &steps, || {
        drop(server.take());
        let child = fastmcp1(Some(port)).stderr(Stdio::null()).spawn().unwrap();
        server = Some(listening_on_any_port(child).0);
    });
    assert_eq!(status, Some(0), "{stderr}");
    for id in [2, 3] {
        let answer = seen.iter().find(|m| m["id"] == json!(id)).unwrap();
        assert_eq!(
            answer["result"]["structuredContent"]["result"],
            json!(5),
            "{seen:?}"
        );
    }
    let note = "the legacy server lost the session (HTTP 404): initialize again";
    assert!(stderr.contains(note), "{stderr}");
    let report = report(&dir);
    assert_eq!(report["transport"]["notes"], json!([note]), "{report}");
    assert_eq!(report["modern"]["violations"], json!([]), "{report}");
    let (clean, text) = bridge_run::trace_check(&dir.join("rec/modern.jsonl"));
    assert!(clean, "{text}");
    // The legacy side: two sessions. The lost one holds the server's own fault: the Python
    // SDK 1.x answers the 404 with a JSON-RPC error whose id is "server-error", a response
    // to no request (J6); and the call that got the 404 stays open there (the monitor does
    // not take an HTTP 404 as the end of a request). The new session is clean.
    let legacy = &report["legacy"];
    let rules: Vec<&Value> = legacy["violations"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| &v["rule"])
        .collect();
    assert_eq!(rules, [&json!("J6")], "{report}");
    assert!(
        legacy["violations"][0]["raw"]
            .as_str()
            .unwrap()
            .contains("server-error")
    );
    assert_eq!(legacy["open_requests"][0]["id"], json!(3), "{report}");
    let sessions = legacy["sessions"].as_array().unwrap();
    assert_eq!(sessions.len(), 2, "{report}");
    assert_eq!(sessions[1]["violations"], json!([]), "{report}");
    assert_eq!(sessions[1]["open_requests"], json!([]), "{report}");
    let record = std::fs::read_to_string(dir.join("rec/legacy.jsonl")).unwrap();
    let inits = record.matches(r#"\"method\":\"initialize\""#).count();
    assert_eq!(inits, 2, "{record}");
    assert!(record.contains(r#""status":404"#), "{record}");
    // At the end the bridge ends the new session, as a client should.
    let deleted = r#""event":"http","method":"DELETE","path":"/mcp","status":200"#;
    assert!(record.contains(deleted), "{record}");
}

const INIT: &str = r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"script","version":"1"}}}"#;
const INITIALIZED: &str = r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#;

/// An upstream nobody listens on: the client's `initialize` gets an error saying so, the
/// bridge exits 1.
#[test]
fn an_unreachable_upstream_is_a_clear_error() {
    let dir = scratch("bridge-http-unreachable");
    let url = format!("http://127.0.0.1:{}/mcp", free_port());
    let steps = [Step::Send(INIT, Wait::Id(0))];
    let (seen, status, stderr) = drive(&bridge_to("modern", &url, &dir), &steps, || {});
    assert_eq!(status, Some(1), "{stderr}");
    assert!(
        stderr.contains(&format!("the upstream {url} cannot be reached")),
        "{stderr}"
    );
    assert_eq!(seen.len(), 1, "{seen:?}");
    let error = seen[0]["error"]["message"].as_str().unwrap_or_default();
    assert!(error.contains("cannot be reached"), "{seen:?}");
}

/// A legacy client's cancel of a call in flight closes the modern request's stream (no
/// `notifications/cancelled` is posted); the client gets nothing for the call, the session
/// goes on, and the modern side's monitor reads the close as the cancellation.
#[test]
fn a_legacy_cancel_closes_the_modern_stream() {
    let dir = scratch("bridge-http-cancel");
    let (_server, url) = listening("sdk");
    let steps = [
        Step::Send(INIT, Wait::Id(0)),
        Step::Send(INITIALIZED, Wait::None),
        Step::Send(
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"slow","arguments":{"seconds":5},"_meta":{"progressToken":"p"}}}"#,
            Wait::Method("notifications/progress"),
        ),
        Step::Send(
            r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}"#,
            Wait::None,
        ),
        Step::Send(r#"{"jsonrpc":"2.0","id":2,"method":"ping"}"#, Wait::Id(2)),
    ];
    let (seen, status, stderr) = drive(&bridge_to("modern", &url, &dir), &steps, || {});
    assert_eq!(status, Some(0), "{stderr}");
    assert!(seen.iter().all(|m| m["id"] != json!(1)), "{seen:?}");
    clean_sides("cancel", &dir);
    let record = std::fs::read_to_string(dir.join("rec/modern.jsonl")).unwrap();
    assert!(record.contains(r#""closed_by":"client""#), "{record}");
    assert!(!record.contains("notifications/cancelled"), "{record}");
}

/// The listening side follows the listening monitor's safety rules (http-proxy's `Guard`): a
/// request naming another host (DNS rebinding) or a foreign `Origin` is answered 403 and
/// never reaches the bridge's process; the refusal is recorded and noted. A non-loopback
/// address needs `--allow-remote`.
#[test]
fn the_listening_side_refuses_rebinding() {
    let refuse = |bridge: &Bridge| {
        let address = bridge.address();
        let body = INIT;
        for (host, origin) in [
            ("evil.example".to_string(), None),
            (address.to_string(), Some("http://evil.example")),
        ] {
            let mut stream = connect(address);
            let origin = origin.map_or(String::new(), |o| format!("Origin: {o}\r\n"));
            write!(
                stream,
                "POST /mcp HTTP/1.1\r\nHost: {host}\r\n{origin}Content-Type: application/json\r\n\
                 Accept: application/json, text/event-stream\r\nContent-Length: {}\r\n\
                 Connection: close\r\n\r\n{body}",
                body.len()
            )
            .unwrap();
            let mut answer = String::new();
            stream.read_to_string(&mut answer).unwrap();
            assert!(answer.starts_with("HTTP/1.1 403"), "{host}: {answer}");
        }
    };
    let ((), stderr, dir) = with_bridge("rebinding", "modern", &on_stdio(&direct("sdk")), refuse);
    assert_eq!(
        stderr.matches("note: refused POST /mcp").count(),
        2,
        "{stderr}"
    );
    let record = std::fs::read_to_string(dir.join("rec/legacy.jsonl")).unwrap();
    assert_eq!(
        record.matches(r#""event":"refused""#).count(),
        2,
        "{record}"
    );
    assert!(!record.contains(r#""dir":"c2s""#), "{record}");
    let out = Command::new(agentpi())
        .args(["bridge", "--to", "modern", "--listen", "0.0.0.0:0", "--"])
        .args(direct("sdk"))
        .stdin(Stdio::null())
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("give --allow-remote"), "{stderr}");
}

/// The rmcp server example (crates/cli/examples/rmcp_server.rs), built with the tests.
fn rmcp_server() -> String {
    crate::support::example("rmcp_server")
}

/// rmcp 3.11 speaks 2026-07-28 (`server/discover`, no `initialize`): a scripted legacy
/// client reaches it through `--to modern`, on stdio and over HTTP (`--upstream`), and gets
/// its answers. FIXME(rmcp): its modern results carry no `io.modelcontextprotocol/serverInfo`
/// in `_meta` (M2, the server's fault), pinned here: one finding per result after discover.
#[test]
fn a_legacy_client_reaches_rmcp_through_the_bridge() {
    let steps = [
        Step::Send(INIT, Wait::Id(0)),
        Step::Send(INITIALIZED, Wait::None),
        Step::Send(
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#,
            Wait::Id(1),
        ),
        Step::Send(
            r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"add","arguments":{"a":2,"b":3}}}"#,
            Wait::Id(2),
        ),
    ];
    for over in ["stdio", "http"] {
        let dir = scratch(&format!("bridge-http-rmcp-{over}"));
        let (_server, line) = match over {
            "stdio" => {
                let mut line = bridge_line("modern", &dir);
                line.extend(["--".to_string(), rmcp_server()]);
                (None, line)
            }
            _ => {
                let child = Command::new(rmcp_server())
                    .args(["--http", "0"])
                    .stderr(Stdio::null())
                    .spawn()
                    .unwrap();
                let (server, port) = listening_on_any_port(child);
                let url = format!("http://127.0.0.1:{port}/mcp");
                (Some(server), bridge_to("modern", &url, &dir))
            }
        };
        let (seen, status, stderr) = drive(&line, &steps, || {});
        assert_eq!(status, Some(0), "{over}: {stderr}");
        assert_eq!(
            seen[0]["result"]["protocolVersion"],
            json!("2025-11-25"),
            "{over}"
        );
        assert_eq!(
            seen[0]["result"]["serverInfo"]["name"],
            json!("agentpi-rmcp-fixture"),
            "{over}"
        );
        assert_eq!(
            seen[2]["result"]["content"][0]["text"],
            json!("5"),
            "{over}: {seen:?}"
        );
        let report = report(&dir);
        assert_eq!(
            report["legacy"]["violations"],
            json!([]),
            "{over}: {report}"
        );
        assert_eq!(
            report["modern"]["protocol_version"],
            json!("2026-07-28"),
            "{over}"
        );
        let rules: Vec<&Value> = report["modern"]["violations"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| &v["rule"])
            .collect();
        assert_eq!(rules, [&json!("M2"), &json!("M2")], "{over}: {report}");
    }
}

/// A tool's `x-mcp-header` argument goes with the modern call as its `Mcp-Param-*` header, as
/// the listing that crossed the bridge declares it: the Python SDK 2.x server's `weather`
/// (on the third page of its listing) takes `city` as `Mcp-Param-City`, checks it against
/// the body, and answers; a value that is not plain ASCII goes base64-encoded.
#[test]
fn a_modern_call_carries_its_param_headers() {
    let dir = scratch("bridge-http-param-headers");
    let (_server, url) = listening("sdk");
    let steps = [
        Step::Send(INIT, Wait::Id(0)),
        Step::Send(INITIALIZED, Wait::None),
        Step::Send(
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#,
            Wait::Id(1),
        ),
        Step::Send(
            r#"{"jsonrpc":"2.0","id":2,"method":"tools/list","params":{"cursor":"2"}}"#,
            Wait::Id(2),
        ),
        Step::Send(
            r#"{"jsonrpc":"2.0","id":3,"method":"tools/list","params":{"cursor":"4"}}"#,
            Wait::Id(3),
        ),
        Step::Send(
            r#"{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"weather","arguments":{"city":"Zürich"}}}"#,
            Wait::Id(4),
        ),
    ];
    let (seen, status, stderr) = drive(&bridge_to("modern", &url, &dir), &steps, || {});
    assert_eq!(status, Some(0), "{stderr}");
    let answer = seen.iter().find(|m| m["id"] == json!(4)).unwrap();
    let text = answer["result"]["content"][0]["text"]
        .as_str()
        .unwrap_or_default();
    let weather: Value = serde_json::from_str(text).unwrap_or_default();
    assert_eq!(
        weather,
        json!({"city": "Zürich", "celsius": 21}),
        "{seen:?}"
    );
    clean_sides("param-headers", &dir);
    let record = std::fs::read_to_string(dir.join("rec/modern.jsonl")).unwrap();
    let header = r#"["mcp-param-city","=?base64?WsO8cmljaA==?="]"#;
    assert!(record.contains(header), "{record}");
}

/// A raw POST of `body` to a listening bridge at `address` (`Connection: close`), with the
/// modern headers `Mcp-Method` and, when given, `Mcp-Name`; with `whole`, the whole answer,
/// else only its head (and the connection is then closed).
fn raw_post(address: &str, body: &str, whole: bool) -> String {
    let message: Value = serde_json::from_str(body).unwrap();
    let mut extra = format!("Mcp-Method: {}\r\n", message["method"].as_str().unwrap());
    if let Some(name) = message["params"]["name"].as_str() {
        extra.push_str(&format!("Mcp-Name: {name}\r\n"));
    }
    use std::io::Read;
    let mut stream = connect(address);
    write!(
        stream,
        "POST /mcp HTTP/1.1\r\nHost: {address}\r\nContent-Type: application/json\r\n\
         Accept: application/json, text/event-stream\r\nMcp-Protocol-Version: 2026-07-28\r\n\
         {extra}Content-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    )
    .unwrap();
    let mut answer = Vec::new();
    let mut byte = [0u8; 1];
    while whole || !answer.ends_with(b"\r\n\r\n") {
        match stream.read(&mut byte) {
            Ok(1) => answer.push(byte[0]),
            _ => break,
        }
    }
    String::from_utf8_lossy(&answer).into_owned()
}

/// A modern HTTP client that closes a call's stream cancels the call (the modern era's
/// cancellation): the bridge cancels the legacy call (`notifications/cancelled` to the
/// server), the client gets nothing for it, and the session goes on; no finding on either
/// side.
#[test]
fn a_modern_client_closing_its_stream_cancels_the_call() {
    let request = |id: i64, method: &str, params: &str| {
        format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"{method}","params":{{{params}{META}}}}}"#)
    };
    let run = |bridge: &Bridge| {
        let address = bridge.address();
        let discover = raw_post(address, &request(1, "server/discover", ""), true);
        assert!(discover.contains("supportedVersions"), "{discover}");
        let slow =
            r#""name":"trigger-long-running-operation","arguments":{"duration":5,"steps":5},"#;
        let head = raw_post(address, &request(2, "tools/call", slow), false);
        assert!(head.starts_with("HTTP/1.1 200"), "{head}");
        let echo = r#""name":"echo","arguments":{"message":"after"},"#;
        let after = raw_post(address, &request(3, "tools/call", echo), true);
        assert!(after.contains("Echo: after"), "{after}");
    };
    let server = on_stdio(&direct("everything"));
    let ((), _, dir) = with_bridge("stream-closed", "legacy", &server, run);
    clean_sides("stream-closed", &dir);
    let legacy = std::fs::read_to_string(dir.join("rec/legacy.jsonl")).unwrap();
    assert!(legacy.contains("notifications/cancelled"), "{legacy}");
    let modern = std::fs::read_to_string(dir.join("rec/modern.jsonl")).unwrap();
    assert!(modern.contains(r#""closed_by":"client""#), "{modern}");
}

/// A raw `method` (POST or DELETE) of `body` to a listening bridge at `address`, carrying
/// `session`'s id when given: the whole answer.
pub(crate) fn raw_session(
    address: &str,
    method: &str,
    session: Option<&str>,
    body: &str,
) -> String {
    let mut stream = connect(address);
    let carried = session.map_or(String::new(), |s| format!("Mcp-Session-Id: {s}\r\n"));
    write!(
        stream,
        "{method} /mcp HTTP/1.1\r\nHost: {address}\r\nContent-Type: application/json\r\n\
         Accept: application/json, text/event-stream\r\nMcp-Protocol-Version: 2025-11-25\r\n\
         {carried}Content-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    )
    .unwrap();
    let mut answer = String::new();
    if let Err(e) = stream.read_to_string(&mut answer) {
        // A reset ends an answer as well as a close; only a timeout means it never came.
        let late = matches!(e.kind(), ErrorKind::WouldBlock | ErrorKind::TimedOut);
        assert!(!late, "{method} {body}: no answer in time: {answer}");
    }
    answer
}

/// The `Mcp-Session-Id`s a listening bridge gave its legacy clients, in its record.
fn sessions_given(record: &str) -> Vec<String> {
    let mut given = Vec::new();
    for line in record.lines() {
        let event: Value = serde_json::from_str(line).unwrap();
        let headers = event["headers"].as_array().cloned().unwrap_or_default();
        for pair in headers {
            if pair[0] == "mcp-session-id" && event["method"] == "POST" {
                given.push(pair[1].as_str().unwrap().to_string());
            }
        }
    }
    given.sort();
    given.dedup();
    given
}

/// The sessions a record shows ended by a DELETE answered 200.
fn deleted_sessions(record: &str) -> Vec<String> {
    let mut ended = Vec::new();
    for line in record.lines() {
        let event: Value = serde_json::from_str(line).unwrap();
        if event["method"] != "DELETE" || event["status"] != 200 {
            continue;
        }
        let headers = event["request_headers"]
            .as_array()
            .cloned()
            .unwrap_or_default();
        let id = headers.iter().find(|p| p[0] == "mcp-session-id");
        ended.extend(id.and_then(|p| p[1].as_str()).map(str::to_string));
    }
    ended
}

/// Each client's answers with `server` as what it reaches, the clients run at once.
fn at_once(clients: &[(&str, &str)], server: &[String]) -> Vec<String> {
    std::thread::scope(|scope| {
        let runs: Vec<_> = (clients.iter())
            .map(|(kind, scenario)| {
                let command = bridge_run::client(kind, scenario, server);
                scope.spawn(move || bridge_run::answers(command))
            })
            .collect();
        runs.into_iter().map(|r| r.join().unwrap()).collect()
    })
}

/// Several legacy clients at once on one listening bridge, one session each (each its own
/// `ToModern`, all sharing the modern server on stdio): each gets the answers it gets from
/// the server directly; the legacy side's monitor judges each session apart and finds
/// nothing in any, the modern side nothing; each Python client's DELETE ends its session
/// (200; the TypeScript SDK 1.x client closes without one).
#[test]
fn several_legacy_clients_share_a_listening_bridge() {
    let clients = [("py", "all"), ("py", "concurrent"), ("ts", "all")];
    let direct = direct("sdk");
    let reference = at_once(&clients, &direct);
    let run = |bridge: &Bridge| at_once(&clients, std::slice::from_ref(&bridge.url));
    let (bridged, _, dir) = with_bridge("sessions", "modern", &on_stdio(&direct), run);
    assert_eq!(bridged, reference, "the answers differ");
    let report = report(&dir);
    assert_eq!(report["bridge"]["notes"], json!([]), "{report}");
    assert_eq!(report["transport"]["notes"], json!([]), "{report}");
    // Two sessions' `think` or `confirm` rounds interleave on the one modern wire: each retry
    // is paired with the result whose `requestState` it echoes (M12), so none is reported.
    assert_eq!(report["modern"]["violations"], json!([]), "{report}");
    let (clean, text) = bridge_run::trace_check(&dir.join("rec/modern.jsonl"));
    assert!(clean, "{text}");
    let sessions = report["legacy"]["sessions"].as_array().unwrap();
    assert_eq!(sessions.len(), clients.len(), "{report}");
    for session in sessions {
        assert_eq!(session["protocol_version"], "2025-11-25", "{report}");
        assert_eq!(session["violations"], json!([]), "{report}");
        assert_eq!(session["open_requests"], json!([]), "{report}");
    }
    let (clean, text) = bridge_run::trace_check(&dir.join("rec/legacy.jsonl"));
    assert!(
        clean && text.contains(" 0 violations, 0 open requests"),
        "{text}"
    );
    let record = std::fs::read_to_string(dir.join("rec/legacy.jsonl")).unwrap();
    assert_eq!(sessions_given(&record).len(), clients.len(), "{record}");
    assert_eq!(deleted_sessions(&record).len(), 2, "{record}");
    // Each of the bridge's requests to a client goes on the stream of the call it asks for
    // (the spec's related request), also with several calls open (`concurrent`, which calls
    // `confirm` twice at once: four `confirm` asks in all).
    assert_eq!(
        asked_on(&record),
        [("confirm", 4), ("think", 3)],
        "{record}"
    );
}

/// Several modern clients at once on one `--to legacy --listen` bridge in front of
/// server-everything on stdio: the Python SDK 2.x client, one running `everything` (its
/// elicitation and sampling rounds) and two running `calls` (echo, get-sum, a prompt), which
/// share the bridge's one legacy session, each request known by an id of the bridge's own.
/// Each gets the answers it gets from the server directly (legacy mode), in the modern era;
/// no finding on either side. All three at once: on stdio a server's elicitation names no
/// call, and the bridge sends a call that could be asked only when no other is open (the
/// legacy session's turn, "Which call asks" in docs/bridge.md; these clients declare
/// elicitation and sampling, so their calls take turns). Before the turn the server's
/// elicitation went to the first call in flight whose copy took it, and a `calls` client's
/// call took it (and its client hung) in one run of three, so the asking client ran first,
/// alone. A client through the bridge gets `PATIENCE`, not a whole `SESSION`: a bridge that
/// stops answering one of them (it happened in development) fails the test in two minutes,
/// not ten.
#[test]
fn several_modern_clients_share_a_listening_bridge() {
    let scenarios = ["everything", "calls", "calls"];
    let files = scratch("bridge-http-modern-clients-files");
    let server = direct("everything");
    let reference: Vec<String> = (scenarios.iter())
        .map(|s| {
            let (out, _) = bridge_legacy::client("legacy", s, &server, &files.join("m.json"));
            bridge_legacy::split_era(&out).0
        })
        .collect();
    let run = |bridge: &Bridge| {
        let url = std::slice::from_ref(&bridge.url);
        let memory = files.join("m.json");
        let memory = memory.as_path();
        let through = |s: &str| bridge_legacy::client_within("auto", s, url, memory, PATIENCE).0;
        std::thread::scope(|scope| {
            let runs: Vec<_> = (scenarios.iter())
                .map(|s| scope.spawn(move || through(s)))
                .collect();
            runs.into_iter()
                .map(|r| r.join().unwrap())
                .collect::<Vec<_>>()
        })
    };
    let (outs, _, dir) = with_bridge("modern-clients", "legacy", &on_stdio(&server), run);
    for (out, want) in outs.iter().zip(&reference) {
        let (answers, era) = bridge_legacy::split_era(out);
        assert_eq!(era, r#"{"era": "2026-07-28"}"#, "{out}");
        assert_eq!(&answers, want, "the answers differ");
    }
    let report = clean_sides("modern-clients", &dir);
    assert_eq!(report["transport"]["notes"], json!([]), "{report}");
}

/// For each tool, how many of the bridge's requests to the client went on the stream of a
/// call of that tool: `confirm` elicits, `think` samples; any other stream counts as "".
fn asked_on(record: &str) -> Vec<(&'static str, usize)> {
    let events: Vec<Value> = record
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let message = |e: &Value| -> Value {
        serde_json::from_str(e["raw"].as_str().unwrap_or("null")).unwrap_or_default()
    };
    let mut tools = std::collections::HashMap::new();
    for event in events.iter().filter(|e| e["dir"] == "c2s") {
        let call = message(event);
        if call["method"] == "tools/call" {
            tools.insert(event["exchange"].clone(), call["params"]["name"].clone());
        }
    }
    let mut counts = std::collections::BTreeMap::new();
    for event in events.iter().filter(|e| e["dir"] == "s2c") {
        let asked = message(event);
        let want = match asked["method"].as_str() {
            Some("elicitation/create") => "confirm",
            Some("sampling/createMessage") => "think",
            _ => continue,
        };
        let on = tools.get(&event["exchange"]).and_then(Value::as_str);
        *counts
            .entry(if on == Some(want) { want } else { "" })
            .or_insert(0) += 1;
    }
    counts.into_iter().collect()
}

/// The legacy spec's session rules on the listening side, with a scripted client: an
/// `initialize` without a session's id opens one (its id on the answer); a GET with it opens
/// the session's stream (200, SSE); a DELETE with it ends the session and its GET stream
/// (200); after that, and for an id never given, a POST, GET or DELETE gets 404, and one
/// without an id (but `initialize`) 400.
#[test]
fn a_deleted_or_unknown_legacy_session_gets_404() {
    let ping = r#"{"jsonrpc":"2.0","id":2,"method":"ping"}"#;
    let run = |bridge: &Bridge| {
        let address = bridge.address();
        let (opened, session) = open_session(address);
        // Its GET stream, open until the session ends: the head now, the rest after the DELETE.
        let mut stream = get_stream(address, &session);
        let head = read_head(&mut stream);
        assert!(head.starts_with("http/1.1 200"), "{head}");
        assert!(head.contains("content-type: text/event-stream"), "{head}");
        let session = session.as_str();
        let steps = [
            ("GET", None, "", "400"),
            ("GET", Some("no-such-session"), "", "404"),
            ("POST", Some(session), ping, "200"),
            ("POST", None, ping, "400"),
            ("POST", Some("no-such-session"), ping, "404"),
            ("DELETE", Some(session), "", "200"),
            ("POST", Some(session), ping, "404"),
            ("DELETE", Some(session), "", "404"),
            ("DELETE", None, "", "400"),
            ("GET", Some(session), "", "404"),
        ];
        let got: Vec<String> = (steps.iter())
            .map(|(method, carried, body, _)| status(&raw_session(address, method, *carried, body)))
            .collect();
        let want: Vec<&str> = steps.iter().map(|s| s.3).collect();
        assert_eq!(got, want);
        // The DELETE ended the GET stream.
        let mut rest = String::new();
        stream.read_to_string(&mut rest).unwrap();
        assert!(opened.contains("2025-11-25"), "{opened}");
        session.to_string()
    };
    let server = on_stdio(&direct("sdk"));
    let (session, _, dir) = with_bridge("session-rules", "modern", &server, run);
    let record = std::fs::read_to_string(dir.join("rec/legacy.jsonl")).unwrap();
    assert_eq!(deleted_sessions(&record), [session], "{record}");
}

pub(crate) const INIT_SCRIPT: &str = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"script","version":"1"}}}"#;

/// A scripted legacy client's `initialize` without a session's id: the whole answer and the
/// session it opened (its `Mcp-Session-Id`); panics without one.
pub(crate) fn open_session(address: &str) -> (String, String) {
    let opened = raw_session(address, "POST", None, INIT_SCRIPT);
    let session = opened
        .lines()
        .find_map(|l| {
            l.to_ascii_lowercase()
                .strip_prefix("mcp-session-id: ")
                .map(|s| s.trim().to_string())
        })
        .unwrap_or_else(|| panic!("no session: {opened}"));
    (opened, session)
}

/// A GET of `session`'s stream, sent (its answer left to read).
pub(crate) fn get_stream(address: &str, session: &str) -> TcpStream {
    let mut stream = connect(address);
    write!(
        stream,
        "GET /mcp HTTP/1.1\r\nHost: {address}\r\nAccept: text/event-stream\r\n\
         Mcp-Protocol-Version: 2025-11-25\r\nMcp-Session-Id: {session}\r\n\
         Connection: close\r\n\r\n"
    )
    .unwrap();
    stream
}

/// The status of an answer: `HTTP/1.1 200 OK` gives `200`.
pub(crate) fn status(answer: &str) -> String {
    answer.split_whitespace().nth(1).unwrap_or("").to_string()
}

/// Two modern clients use the same request id at once (they have no session to keep their
/// ids apart): each gets its own answer on its own stream. The bridge knows each request by
/// an id of its own and gives the client's back with the answer; no finding on either side.
#[test]
fn modern_clients_may_use_the_same_id_at_once() {
    let request = |method: &str, params: &str| {
        format!(r#"{{"jsonrpc":"2.0","id":2,"method":"{method}","params":{{{params}{META}}}}}"#)
    };
    let run = |bridge: &Bridge| {
        let address = bridge.address();
        let slow =
            r#""name":"trigger-long-running-operation","arguments":{"duration":3,"steps":1},"#;
        let slow = request("tools/call", slow);
        // The first client's call, in flight: its head read, its stream kept open.
        let mut first = connect(address);
        write!(
            first,
            "POST /mcp HTTP/1.1\r\nHost: {address}\r\nContent-Type: application/json\r\n\
             Accept: application/json, text/event-stream\r\nMcp-Protocol-Version: 2026-07-28\r\n\
             Mcp-Method: tools/call\r\nMcp-Name: trigger-long-running-operation\r\n\
             Content-Length: {}\r\nConnection: close\r\n\r\n{slow}",
            slow.len()
        )
        .unwrap();
        read_head(&mut first);
        // The second client's call with the same id, answered while the first is in flight.
        let echo = request(
            "tools/call",
            r#""name":"echo","arguments":{"message":"second"},"#,
        );
        let second = raw_post(address, &echo, true);
        let mut rest = String::new();
        first.read_to_string(&mut rest).unwrap();
        // A modern client has no GET stream (and no session to DELETE).
        let get = raw_session(address, "GET", None, "");
        (second, rest, get)
    };
    let server = on_stdio(&direct("everything"));
    let ((second, rest, get), _, dir) = with_bridge("same-id", "legacy", &server, run);
    assert!(get.starts_with("HTTP/1.1 405"), "{get}");
    assert!(second.contains("Echo: second"), "{second}");
    assert!(second.contains(r#""id":2"#), "{second}");
    assert!(!rest.contains("Echo"), "{rest}");
    assert!(rest.contains("Long running operation completed"), "{rest}");
    assert!(rest.contains(r#""id":2"#), "{rest}");
    clean_sides("same-id", &dir);
}

//! `agentpi monitor --listen --upstream --record --report`: the Python SDK's client drives the
//! real server-everything through the monitor binary, which is stopped by SIGTERM; the trace
//! holds every message and exchange in the format of docs/monitor.md, and the checks find
//! nothing. A broken peer per HTTP rule (tests/monitor/http_peer.py, a server;
//! tests/monitor/http_client.py, a client) is caught by that rule and no other, live on
//! standard error and in the report, which equals `agentpi trace check` of the record.
//! Real clients that share one listener (TypeScript and Python SDKs, both eras) are judged
//! each in its own session.

use crate::cases::each_in_parallel;
use crate::support::{Server, everything, listening_on_any_port, repo};
use serde_json::Value;
use std::io::{BufRead, BufReader, Read};
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// A running monitor, the URL it serves, and the rest of its standard error.
pub(crate) struct Monitor {
    child: Server,
    pub(crate) url: String,
    stderr: BufReader<std::process::ChildStderr>,
}

impl Monitor {
    /// SIGTERM, then the exit status and what it wrote to standard error after its banner.
    pub(crate) fn stop(self) -> (Option<i32>, String) {
        let killed = Command::new("kill")
            .args(["-TERM", &self.child.0.id().to_string()])
            .status()
            .unwrap();
        assert!(killed.success());
        self.wait()
    }

    /// The exit status and what it wrote to standard error after its banner.
    fn wait(mut self) -> (Option<i32>, String) {
        let mut rest = String::new();
        self.stderr.read_to_string(&mut rest).unwrap();
        (self.child.0.wait().unwrap().code(), rest)
    }
}

/// Starts the monitor in front of `upstream`, recording to `dir/record.jsonl` and reporting
/// to `dir/report.json`.
fn monitor(upstream: u16, dir: &Path) -> Monitor {
    monitor_with(upstream, dir, &[])
}

/// [`monitor`] with more arguments.
pub(crate) fn monitor_with(upstream: u16, dir: &Path, more: &[&str]) -> Monitor {
    let mut child = Command::new(env!("CARGO_BIN_EXE_agentpi"))
        // A generous --drain: the pinned findings must not depend on the load.
        .args([
            "monitor",
            "--drain",
            "300",
            "--listen",
            "127.0.0.1:0",
            "--upstream",
        ])
        .arg(format!("http://127.0.0.1:{upstream}/mcp"))
        .arg("--record")
        .arg(dir.join("record.jsonl"))
        .arg("--report")
        .arg(dir.join("report.json"))
        .args(more)
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stderr = BufReader::new(child.stderr.take().unwrap());
    let mut banner = String::new();
    stderr.read_line(&mut banner).unwrap();
    let url = banner
        .split_whitespace()
        .find(|word| word.contains("://127.0.0.1:") && word.ends_with(','))
        .unwrap_or_else(|| panic!("no address in {banner:?}"))
        .trim_end_matches(',')
        .to_string();
    Monitor {
        child: Server(child),
        url,
        stderr,
    }
}

/// A fresh scratch directory for one run's record and report.
pub(crate) fn scratch(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join("monitor-http")
        .join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

pub(crate) fn rules(report: &Value) -> Vec<String> {
    report["violations"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v["rule"].as_str().unwrap().to_string())
        .collect()
}

/// Stops the monitor and returns its report, after checking that it exited 0, that its
/// standard error had one line per violation, and that `trace check` on the record gives
/// the same report.
pub(crate) fn finish(monitor: Monitor, dir: &Path) -> Value {
    ended(monitor.stop(), 0, dir)
}

/// The report of a monitor that ended with `(status, stderr)`, held to `expected` status,
/// its standard error and `trace check` (see [`finish`]).
pub(crate) fn ended((status, stderr): (Option<i32>, String), expected: i32, dir: &Path) -> Value {
    assert_eq!(status, Some(expected), "{stderr}");
    let live: Value =
        serde_json::from_slice(&std::fs::read(dir.join("report.json")).unwrap()).unwrap();
    let lines: Vec<String> = stderr
        .lines()
        .filter(|l| l.contains(" at message "))
        .filter_map(|l| l.strip_prefix("agentpi monitor: "))
        .filter_map(|l| l.split_whitespace().next())
        .map(String::from)
        .collect();
    assert_eq!(lines, rules(&live), "{stderr}");
    let offline = Command::new(env!("CARGO_BIN_EXE_agentpi"))
        .args(["trace", "check", "--format", "json"])
        .arg(dir.join("record.jsonl"))
        .output()
        .unwrap();
    let offline: Value = serde_json::from_slice(&offline.stdout).unwrap();
    assert_eq!(live, offline, "live and offline reports differ");
    live
}

/// A peer script of tests/monitor: `http_peer.py MODE`, which prints its port first.
pub(crate) fn peer(mode: &str) -> (Server, u16) {
    let mut child = Command::new("python3")
        .arg(repo().join("tests/monitor/http_peer.py"))
        .arg(mode)
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    let port = line
        .trim()
        .parse()
        .unwrap_or_else(|_| panic!("no port: {line:?}"));
    (Server(child), port)
}

/// `http_client.py URL CLIENT` against `http_peer.py SERVER` through the monitor: the report.
fn check(client: &str, server: &str) -> Value {
    let (_server, port) = peer(server);
    let dir = scratch(&format!("{client}-{server}"));
    let monitor = monitor(port, &dir);
    let run = Command::new("python3")
        .arg(repo().join("tests/monitor/http_client.py"))
        .arg(&monitor.url)
        .arg(client)
        .output()
        .unwrap();
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    finish(monitor, &dir)
}

/// Each broken peer is caught by its rule and no other; the conforming pair by none.
#[test]
fn broken_http_peers_are_caught_by_their_rule() {
    let cases: &[(&str, &str, &[&str])] = &[
        ("good", "good", &[]),
        ("after_delete", "good", &[]),
        ("no_accept", "good", &["H1"]),
        ("good", "notification_200", &["H2"]),
        ("good", "request_text", &["H3"]),
        ("good", "bad_session_id", &["H4"]),
        ("no_session", "good", &["H4"]),
        ("after_delete", "alive_after_delete", &["H4"]),
        ("no_version", "good", &["H5"]),
        ("bad_version", "good", &["H5"]),
        ("good", "get_json", &["H6"]),
        ("good", "response_on_get", &["H6"]),
        ("modern", "good", &[]),
        ("modern_no_method", "good", &["H8"]),
        ("modern_no_param", "good", &["H8"]),
        ("modern_no_meta", "good", &["M1"]),
        ("modern_no_meta", "modern_lenient", &["M1", "H9"]),
        ("modern", "modern_status", &["H9"]),
        ("modern", "modern_get_sse", &["H10"]),
        ("modern", "modern_after_response", &["H10", "M14"]),
        ("modern", "modern_request", &["H10"]),
        ("modern_cancel", "good", &["C5"]),
        // Closing the call's stream is its cancellation: the call is not left open. The
        // monitor reads on what the server still sends for it (the upstream half-closed):
        // an answer a second later is C4; a server that reads the close sends none.
        ("modern_close", "modern_slow", &["C4"]),
        ("modern_close", "modern_slow_honours_close", &[]),
        // J4 holds the id of a request in flight only: closing its stream ends it, so the
        // id may name a new request at once; the old one's late answer, on its own stream,
        // is no answer of the new one (C4, not J6). An id reused while the call is in
        // flight comes on a second connection, as a second client's would: a modern
        // client is known by its connection, so it is not reported (docs/monitor.md,
        // *Sessions*; on one connection it is: `http_j4_id_reused_in_flight_one_connection`).
        ("modern_reuse_in_flight", "modern_slow_honours_close", &[]),
        ("modern_reuse_after_close", "modern_slow_honours_close", &[]),
        ("modern_reuse_after_close", "modern_slow", &["C4"]),
        ("modern", "modern_listen_unrequested", &["M13"]),
        ("modern", "modern_listen_log", &["M14"]),
        ("modern", "modern_listen_unmarked", &["M13"]),
    ];
    each_in_parallel(cases, |(client, server, expected)| {
        let report = check(client, server);
        let name = format!("{client} against {server}");
        assert_eq!(rules(&report), *expected, "{name}: {report:#}");
        let era = if client.starts_with("modern") {
            "modern"
        } else {
            "legacy"
        };
        assert_eq!(report["era"], era, "{name}");
        if *client == "modern_close" {
            assert_eq!(
                report["open_requests"],
                serde_json::json!([]),
                "{name}: {report:#}"
            );
        }
    });
}

#[test]
fn python_client_through_the_monitor_is_recorded_and_clean() {
    let (_server, port) = everything();
    let dir = scratch("sdk-everything");
    let monitor = monitor(port, &dir);
    let client = Command::new(repo().join("tests/peers/.venv/bin/python"))
        .arg(repo().join("crates/http-proxy/tests/client.py"))
        .arg(&monitor.url)
        .output()
        .unwrap();
    assert!(
        client.status.success(),
        "{}",
        String::from_utf8_lossy(&client.stderr)
    );
    let report = finish(monitor, &dir);
    assert_eq!(rules(&report), Vec::<String>::new(), "{report:#}");
    assert_eq!(report["era"], "legacy");
    assert_eq!(report["open_requests"], Value::Array(vec![]), "{report:#}");
    let trace: Vec<Value> = std::fs::read_to_string(dir.join("record.jsonl"))
        .unwrap()
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect();
    let methods: Vec<Value> = trace
        .iter()
        .filter(|e| e["dir"] == "c2s")
        .filter_map(|e| e["raw"].as_str())
        .map(|raw| serde_json::from_str::<Value>(raw).unwrap()["method"].clone())
        .collect();
    let expected = [
        "initialize",
        "notifications/initialized",
        "tools/list",
        "tools/call",
    ];
    assert_eq!(methods, expected);
    // Notifications the server sends on its own (`tools/list_changed` on the GET stream, when
    // the stream is open in time) come and go with timing; responses and progress do not.
    let s2c: Vec<Value> = trace
        .iter()
        .filter(|e| e["dir"] == "s2c")
        .map(|e| serde_json::from_str(e["raw"].as_str().unwrap()).unwrap())
        .collect();
    let responses = s2c.iter().filter(|m| m.get("id").is_some()).count();
    let progress = s2c
        .iter()
        .filter(|m| m["method"] == "notifications/progress")
        .count();
    assert_eq!((responses, progress), (3, 3), "{s2c:?}");
    let verbs: Vec<&str> = trace
        .iter()
        .filter(|e| e["event"] == "http")
        .filter_map(|e| e["method"].as_str())
        .collect();
    for verb in ["POST", "GET", "DELETE"] {
        assert!(verbs.contains(&verb), "{verbs:?}");
    }
    assert!(trace.iter().all(|e| e["t"].as_f64().is_some()));
}

/// A real client through the monitor at `url`: `ts` (the TypeScript SDK's `Client`,
/// legacy), `auto` or `legacy` (the Python SDK's `Client` in that mode), `auto-slow` (the
/// same that also calls `slow` for 3 s). Returns what it printed.
fn client(kind: &str, url: &str) -> String {
    let run = match kind {
        "ts" => Command::new("node")
            .arg(repo().join("tests/monitor/ts_http_client.mjs"))
            .arg(url)
            .output(),
        mode => Command::new(repo().join("tests/peers/.venv/bin/python"))
            .arg(repo().join("tests/monitor/sdk_http_client.py"))
            .arg(url)
            .args(mode.split('-'))
            .output(),
    }
    .unwrap();
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert!(run.status.success(), "{kind}: {stderr}");
    String::from_utf8_lossy(&run.stdout).into_owned()
}

/// The Python SDK's dual-era server on Streamable HTTP (`tests/tester/sdk_server.py`).
fn sdk_server() -> (Server, u16) {
    let child = Command::new(repo().join("tests/peers/.venv/bin/python"))
        .arg(repo().join("tests/tester/sdk_server.py"))
        .args(["--http", "0"])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    listening_on_any_port(child)
}

/// The era of each session of a report, in the order they began.
fn sessions(report: &Value) -> Vec<String> {
    report["sessions"]
        .as_array()
        .map(|all| {
            all.iter()
                .map(|s| s["era"].as_str().unwrap().to_string())
                .collect()
        })
        .unwrap_or_default()
}

/// Real clients one after the other through one listener: each is judged in its own
/// session (request ids, `initialize`, era), so conforming clients and servers give no
/// finding at all. Before, the second TypeScript client's `initialize` was J3 and L9; a
/// modern client after a legacy one broke H5 on every request (the other way round: M1, M2,
/// H8, H9, J10, M10); and the Python 2.x client's `server/discover`, refused by a
/// TypeScript server with HTTP 400 and an error whose id is null, was J6 and left open.
#[test]
fn real_clients_share_a_listener() {
    let cases: &[(&str, &[&str], &[&str])] = &[
        // Two legacy clients, then the Python client's probe refused with 400 before it
        // falls back to `initialize`: the probe is in `stateless` (era unknown).
        (
            "everything",
            &["ts", "ts", "auto"],
            &["legacy", "legacy", "unknown", "legacy"],
        ),
        // A legacy and a modern client against a dual-era server, both ways round.
        ("sdk", &["ts", "auto"], &["legacy", "modern"]),
        ("sdk", &["auto", "ts"], &["modern", "legacy"]),
        // Three at once: their messages interleave on the listener.
        (
            "everything",
            &["ts", "ts", "legacy", "together"],
            &["legacy", "legacy", "legacy"],
        ),
        // Two modern clients at once, each with a 3 s call in flight under the same id as
        // the other's: told apart by their connections (before, J4 for the second's call).
        // Both are in `stateless`, the one session (the report lists sessions when several).
        ("sdk", &["auto-slow", "auto-slow", "together"], &[]),
    ];
    each_in_parallel(cases, |(server, clients, eras)| {
        let (_server, port) = match *server {
            "everything" => everything(),
            _ => sdk_server(),
        };
        let dir = scratch(&format!("shared-{server}-{}", clients.join("-")));
        let monitor = monitor(port, &dir);
        let (together, kinds) = match clients.split_last() {
            Some((&"together", kinds)) => (true, kinds),
            _ => (false, *clients),
        };
        std::thread::scope(|scope| {
            for kind in kinds {
                let run = scope.spawn(|| client(kind, &monitor.url));
                if !together {
                    run.join().unwrap();
                }
            }
        });
        let report = finish(monitor, &dir);
        let name = format!("{clients:?} against {server}");
        assert_eq!(rules(&report), Vec::<String>::new(), "{name}: {report:#}");
        assert_eq!(
            report["open_requests"],
            Value::Array(vec![]),
            "{name}: {report:#}"
        );
        if clients.contains(&"auto-slow") {
            let record = std::fs::read_to_string(dir.join("record.jsonl")).unwrap();
            assert!(
                same_id_at_once(&record),
                "{name}: the calls did not overlap"
            );
        }
        let mut found = sessions(&report);
        if together {
            // Sessions are listed in the order they began: the race's.
            found.sort();
        }
        assert_eq!(found, *eras, "{name}: {report:#}");
    });
}

/// Whether two requests of a record with the same id were in flight at the same time, on
/// different client connections (from the request's line to its exchange's last line).
fn same_id_at_once(record: &str) -> bool {
    let events: Vec<Value> = record
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let mut spans = Vec::new();
    for (i, e) in events.iter().enumerate() {
        let body: Value = serde_json::from_str(e["raw"].as_str().unwrap_or("null")).unwrap();
        if e["dir"] != "c2s" || body["method"].is_null() || body["id"].is_null() {
            continue;
        }
        let x = &e["exchange"];
        let end = events.iter().rposition(|f| &f["exchange"] == x).unwrap();
        spans.push((body["id"].clone(), e["connection"].clone(), i, end));
    }
    spans.iter().any(|(id, c, start, end)| {
        spans
            .iter()
            .any(|(id2, c2, s2, _)| id == id2 && c != c2 && start < s2 && s2 < end)
    })
}

/// When the upstream is gone (a connection to it fails after it has answered), the monitor
/// answers 502, ends with status 1 and writes its report.
#[test]
fn the_monitor_ends_with_a_report_when_the_upstream_is_gone() {
    use std::io::Write;
    let (server, port) = peer("good");
    let dir = scratch("upstream-gone");
    let monitor = monitor(port, &dir);
    let run = Command::new("python3")
        .arg(repo().join("tests/monitor/http_client.py"))
        .args([&monitor.url, "good"])
        .output()
        .unwrap();
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    drop(server);
    let address = monitor.url["http://".len()..].split('/').next().unwrap();
    let mut stream = std::net::TcpStream::connect(address).unwrap();
    stream
        .write_all(b"POST /mcp HTTP/1.1\r\nHost: localhost\r\nContent-Length: 0\r\n\r\n")
        .unwrap();
    let mut status_line = String::new();
    BufReader::new(&stream).read_line(&mut status_line).unwrap();
    assert!(status_line.starts_with("HTTP/1.1 502"), "{status_line}");
    drop(stream);
    let report = ended(monitor.wait(), 1, &dir);
    assert_eq!(rules(&report), Vec::<String>::new(), "{report:#}");
    assert_eq!(report["messages"], 6, "{report:#}");
}

/// A monitor that cannot start says why on standard error and exits with status 2.
pub(crate) fn check_refused(args: &[&str], expected: &str) -> String {
    let output = Command::new(env!("CARGO_BIN_EXE_agentpi"))
        .arg("monitor")
        .args(args)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr).to_string();
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains(expected), "{expected:?} not in {stderr}");
    stderr
}

#[test]
fn bad_arguments_are_refused() {
    let up = ["--upstream", "http://127.0.0.1:9/mcp"];
    check_refused(&["--listen", "nowhere", up[0], up[1]], "give HOST:PORT");
    let https = [
        "--listen",
        "127.0.0.1:0",
        "--upstream",
        "https://127.0.0.1:9/mcp",
    ];
    // The upstream is at fault, not the listening address (issue 30's nit).
    let said = check_refused(&https, "only http:// upstreams");
    assert!(!said.contains("cannot listen"), "{said}");
    check_refused(
        &["--listen", "127.0.0.1:0", "--upstream", "not a url"],
        "--upstream",
    );
    let record = ["--record", "/nonexistent/dir/trace.jsonl"];
    check_refused(
        &[
            "--listen",
            "127.0.0.1:0",
            up[0],
            up[1],
            record[0],
            record[1],
        ],
        "cannot write",
    );
    let busy = TcpListener::bind("127.0.0.1:0").unwrap();
    let taken = busy.local_addr().unwrap().to_string();
    check_refused(&["--listen", &taken, up[0], up[1]], "cannot listen on");
}

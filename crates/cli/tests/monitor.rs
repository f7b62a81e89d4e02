//! `agentpi monitor` and `agentpi trace check` with real peers: the Python `mcp` SDK's client
//! driving the npm reference servers, a scripted client against small broken servers (one per
//! rule family, tests/monitor/peer.py), byte fidelity and faults. Every live report is held
//! to `agentpi trace check` on its own record: the same findings offline as live.

use crate::cases::each_in_parallel;
use crate::support::repo;
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

pub(crate) fn agentpi() -> &'static str {
    env!("CARGO_BIN_EXE_agentpi")
}

/// A peer installed by scripts/install-peers.sh, or a failing test saying how to install it.
pub(crate) fn peer(path: &str) -> String {
    let full = repo().join("tests/peers").join(path);
    assert!(
        full.exists(),
        "{} is missing: run `bash scripts/install-peers.sh` first",
        full.display()
    );
    full.display().to_string()
}

fn script(name: &str) -> String {
    repo()
        .join("tests/monitor")
        .join(name)
        .display()
        .to_string()
}

/// A fresh scratch directory for one test's record and report.
pub(crate) fn scratch(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join("monitor")
        .join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn rules(report: &Value) -> Vec<String> {
    report["violations"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v["rule"].as_str().unwrap().to_string())
        .collect()
}

/// Runs `client` (whose last arguments are the monitor and the server), then returns the
/// live report, after checking that `trace check` on the record finds the same.
fn check(
    name: &str,
    client: &[String],
    monitor_then_server: &dyn Fn(&str, &str) -> Vec<String>,
) -> Value {
    let dir = scratch(name);
    let record = dir.join("trace.jsonl").display().to_string();
    let report = dir.join("report.json").display().to_string();
    let mut args = client.to_vec();
    args.extend(monitor_then_server(&record, &report));
    let out = Command::new(&args[0]).args(&args[1..]).output().unwrap();
    assert!(
        out.status.success(),
        "{name}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    // A record may hold secrets: it and the report are created readable by their owner only.
    for file in [&record, &report] {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(file).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o600, "{name}: {file}");
    }
    let live: Value = serde_json::from_slice(&std::fs::read(&report).unwrap()).unwrap();
    let offline = Command::new(agentpi())
        .args(["trace", "check", "--format", "json", &record])
        .output()
        .unwrap();
    let offline: Value = serde_json::from_slice(&offline.stdout).unwrap();
    assert_eq!(live, offline, "{name}: live and offline reports differ");
    live
}

fn monitored(server: Vec<String>) -> impl Fn(&str, &str) -> Vec<String> {
    move |record, report| {
        // A generous --drain: on a loaded machine the checker (at nice 10) may still be behind
        // when the session ends, and the pinned findings must not depend on the load.
        let mut args = vec![
            agentpi().to_string(),
            "monitor".into(),
            "--drain".into(),
            "300".into(),
            "--record".into(),
            record.into(),
            "--report".into(),
            report.into(),
            "--".into(),
        ];
        args.extend(server.iter().cloned());
        args
    }
}

/// Each broken server is caught by its rule and no other; the conforming one by none.
#[test]
fn broken_peers_are_caught_by_their_rule() {
    let cases: &[(&str, &[&str])] = &[
        ("good", &[]),
        ("banner", &["S2"]),
        ("answer_after_cancel", &["C3"]),
        ("answer_twice", &["J6"]),
        ("progress_after_result", &["P4"]),
        ("unknown_token", &["P2"]),
        ("undeclared_list_changed", &["T6"]),
        ("batch", &["J8"]),
        ("early_notification", &["L8"]),
        ("undeclared_sampling", &["X1"]),
        ("progress_backwards", &["P3"]),
        ("cursor_loop", &["G3"]),
        ("bad_meta", &["J12"]),
        ("unknown_tool_error", &["T5"]),
        ("url_elicitation_error", &["X5"]),
        ("unsubscribed_update", &["X2"]),
    ];
    each_in_parallel(cases, |(mode, expected)| {
        let client = vec![
            "python3".to_string(),
            script("script_client.py"),
            script("session.jsonl"),
            "--".into(),
        ];
        let server = vec!["python3".into(), script("peer.py"), mode.to_string()];
        let report = check(mode, &client, &monitored(server));
        assert_eq!(rules(&report), *expected, "{mode}: {report:#}");
        assert_eq!(report["era"], "legacy", "{mode}");
    });
}

/// A client that declares sampling with tools and runs a tool call as a task: a server that
/// serves both as the specification says is clean; one whose sampling request mixes text into
/// the tool results breaks X4, one whose `tasks/result` does not name its task breaks X7.
#[test]
fn task_and_sampling_peers_are_caught_by_their_rule() {
    let dir = scratch("tasks_script");
    let lines = [
        r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{"sampling":{"tools":{}}},"clientInfo":{"name":"script","version":"1"}}}"#,
        r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
        r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{},"task":{"ttl":60000}}}"#,
        r#"{"jsonrpc":"2.0","id":2,"method":"tasks/result","params":{"taskId":"t1"}}"#,
    ];
    let script_file = dir.join("client.jsonl");
    std::fs::write(&script_file, lines.join("\n") + "\n").unwrap();
    let cases: &[(&str, &[&str])] = &[
        ("tasks_and_sampling", &[]),
        ("sampling_unpaired", &["X4"]),
        ("task_result_unrelated", &["X7"]),
    ];
    each_in_parallel(cases, |(mode, expected)| {
        let client = vec![
            "python3".to_string(),
            script("script_client.py"),
            script_file.display().to_string(),
            "--".into(),
        ];
        let server = vec!["python3".into(), script("peer.py"), mode.to_string()];
        let report = check(&format!("tasks_{mode}"), &client, &monitored(server));
        assert_eq!(rules(&report), *expected, "{mode}: {report:#}");
    });
}

/// A client that skips `initialize` breaks L1 (and, asking for tools nobody declared, T1).
#[test]
fn a_client_without_initialize_breaks_l1() {
    let dir = scratch("no_initialize_script");
    let lines = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\"}\n";
    let script_file = dir.join("client.jsonl");
    std::fs::write(&script_file, lines).unwrap();
    let client = vec![
        "python3".to_string(),
        script("script_client.py"),
        script_file.display().to_string(),
        "--".into(),
    ];
    let server = vec!["python3".into(), script("peer.py"), "good".into()];
    let report = check("no_initialize", &client, &monitored(server));
    assert_eq!(rules(&report), ["L1", "T1"], "{report:#}");
}

/// A client that reuses a request id (after its first use was answered) breaks J3.
#[test]
fn a_client_reusing_an_id_breaks_j3() {
    let dir = scratch("reuse_script");
    let mut lines = std::fs::read_to_string(script("session.jsonl")).unwrap();
    lines.push_str("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\n");
    let script_file = dir.join("client.jsonl");
    std::fs::write(&script_file, lines).unwrap();
    let client = vec![
        "python3".to_string(),
        script("script_client.py"),
        script_file.display().to_string(),
        "--".into(),
    ];
    let server = vec!["python3".into(), script("peer.py"), "good".into()];
    let report = check("reuse", &client, &monitored(server));
    assert_eq!(rules(&report), ["J3"], "{report:#}");
}

/// The children of process `pid` (from `/proc`, every thread's list).
fn children(pid: u32) -> Vec<u32> {
    let Ok(tasks) = std::fs::read_dir(format!("/proc/{pid}/task")) else {
        return Vec::new();
    };
    let lists = tasks.filter_map(|t| std::fs::read_to_string(t.ok()?.path().join("children")).ok());
    let mut found: Vec<u32> = lists
        .flat_map(|l| {
            l.split_whitespace()
                .filter_map(|p| p.parse().ok())
                .collect::<Vec<_>>()
        })
        .collect();
    found.sort_unstable();
    found
}

/// Waits (up to a minute, a bound against a hang only) until a child of `pid` sleeps in a
/// write to a full pipe, as the kernel's `wchan` says (`pipe_write`, `anon_pipe_write`).
fn wait_for_a_child_blocked_on_its_pipe(pid: u32) -> bool {
    let started = std::time::Instant::now();
    while started.elapsed() < std::time::Duration::from_secs(60) {
        let blocked = children(pid).into_iter().any(|c| {
            std::fs::read_to_string(format!("/proc/{c}/wchan"))
                .is_ok_and(|w| w.contains("pipe_write"))
        });
        if blocked {
            return true;
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    false
}

/// A client that stops reading for a while: the server comes to block on its full pipe (the
/// relay passes the client's back-pressure on instead of buffering the 10 MB message), and
/// every byte arrives, unchanged, once the client reads again.
#[test]
fn a_client_that_stops_reading_gets_every_byte_later() {
    use std::io::{Read, Write};
    let dir = scratch("backpressure");
    let input = std::fs::read(script("session.jsonl")).unwrap();
    let input = &input[..=input.iter().position(|&b| b == b'\n').unwrap()];
    let server = vec!["python3".to_string(), script("peer.py"), "bytes".into()];
    let direct = run(&server, input);
    let cmd = through_monitor(&dir, &server);
    let mut child = Command::new(&cmd[0])
        .args(&cmd[1..])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    stdin.write_all(input).unwrap();
    drop(stdin);
    // Not reading: the 10 MB message fills the pipes, the relay waits on the client, and the
    // server waits on the relay.
    assert!(
        wait_for_a_child_blocked_on_its_pipe(child.id()),
        "the server never blocked on its pipe: the monitor buffers what the client does not read"
    );
    let mut received = Vec::new();
    child
        .stdout
        .take()
        .unwrap()
        .read_to_end(&mut received)
        .unwrap();
    assert_eq!(child.wait().unwrap().code(), Some(0));
    assert!(direct.stdout == received, "the relayed bytes differ");
}

/// The Python SDK's clients against real servers: clean sessions in both eras. `sdk_client.py`
/// is the legacy `ClientSession`; `sdk_modern_client.py` the high-level `Client`, which probes
/// with `server/discover` and falls back to `initialize` on a legacy server.
#[test]
fn sdk_clients_and_real_servers_are_clean() {
    let python = peer(".venv/bin/python");
    let files = scratch("files_root");
    let npm = |name: &str| {
        peer(&format!(
            "node_modules/@modelcontextprotocol/server-{name}/dist/index.js"
        ))
    };
    let modern = repo()
        .join("crates/cli/tests/lint/servers/modern_py.py")
        .display()
        .to_string();
    let cases: Vec<(&str, &str, Vec<String>, &str)> = vec![
        (
            "everything",
            "sdk_client.py",
            vec!["node".into(), npm("everything"), "stdio".into()],
            "legacy",
        ),
        (
            "memory",
            "sdk_client.py",
            vec!["node".into(), npm("memory")],
            "legacy",
        ),
        (
            "filesystem",
            "sdk_client.py",
            vec![
                "node".into(),
                npm("filesystem"),
                files.display().to_string(),
            ],
            "legacy",
        ),
        (
            "fallback",
            "sdk_modern_client.py",
            vec!["node".into(), npm("everything"), "stdio".into()],
            "legacy",
        ),
        (
            "modern",
            "sdk_modern_client.py",
            vec![python.clone(), modern],
            "modern",
        ),
    ];
    each_in_parallel(&cases, |(name, client, server, era)| {
        let client = vec![python.clone(), script(client), agentpi().to_string()];
        let sdk_args = |record: &str, report: &str| {
            let mut args = vec![record.to_string(), report.to_string(), "--".into()];
            args.extend(server.iter().cloned());
            args
        };
        let report = check(name, &client, &sdk_args);
        assert_eq!(rules(&report), Vec::<String>::new(), "{name}: {report:#}");
        assert_eq!(report["era"], *era, "{name}");
        assert_eq!(report["open_requests"], Value::Array(vec![]), "{name}");
        assert!(
            report["messages"].as_u64().unwrap() >= 6,
            "{name}: {report}"
        );
    });
}

/// Runs `cmd` with `input` on its stdin.
fn run(cmd: &[String], input: &[u8]) -> Output {
    use std::io::Write;
    let mut child = Command::new(&cmd[0])
        .args(&cmd[1..])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let input = input.to_vec();
    let writer = std::thread::spawn(move || {
        let _ = stdin.write_all(&input);
    });
    let out = child.wait_with_output().unwrap();
    writer.join().unwrap();
    out
}

fn through_monitor(dir: &Path, server: &[String]) -> Vec<String> {
    // A generous --drain, as in `monitored`: the findings must not depend on the load.
    let mut cmd = vec![
        agentpi().to_string(),
        "monitor".into(),
        "--drain".into(),
        "300".into(),
        "--record".into(),
        dir.join("trace.jsonl").display().to_string(),
        "--report".into(),
        dir.join("report.json").display().to_string(),
        "--".into(),
    ];
    cmd.extend(server.iter().cloned());
    cmd
}

fn report_of(dir: &Path) -> Value {
    serde_json::from_slice(&std::fs::read(dir.join("report.json")).unwrap()).unwrap()
}

/// What the client reads through the monitor is what the server wrote, byte for byte: a
/// banner, invalid UTF-8, a 10 MB message, a message split across writes.
#[test]
fn bytes_are_relayed_unchanged() {
    let dir = scratch("bytes");
    // One request: a client that waits for nothing sends nothing more.
    let input = std::fs::read(script("session.jsonl")).unwrap();
    let input = &input[..=input.iter().position(|&b| b == b'\n').unwrap()];
    let server = vec!["python3".to_string(), script("peer.py"), "bytes".into()];
    let direct = run(&server, input);
    let via = run(&through_monitor(&dir, &server), input);
    assert!(direct.stdout.len() > 10_000_000);
    assert!(direct.stdout == via.stdout, "the relayed bytes differ");
    assert_eq!(via.status.code(), Some(0));
    let trace = std::fs::read_to_string(dir.join("trace.jsonl")).unwrap();
    assert!(
        trace.contains("\"raw_b64\""),
        "invalid UTF-8 is recorded as raw_b64"
    );
    let report = report_of(&dir);
    // The banner, the invalid UTF-8 line, and two log messages sent before the server
    // declared `logging` (in its initialize result).
    assert_eq!(rules(&report), ["S2", "J1", "X6", "X6"], "{report:#}");
}

/// A server that crashes mid-message, or is killed by a signal: the monitor exits with its
/// status and still writes the report; the cut-off message is in the record.
#[test]
fn server_faults_end_in_a_report() {
    let input = std::fs::read(script("session.jsonl")).unwrap();
    for (mode, status) in [("crash", 3), ("signal", 128 + 9)] {
        let dir = scratch(mode);
        let server = vec!["python3".to_string(), script("peer.py"), mode.into()];
        let out = run(&through_monitor(&dir, &server), &input);
        assert_eq!(out.status.code(), Some(status), "{mode}");
        let report = report_of(&dir);
        assert_eq!(report["era"], "legacy", "{mode}");
        let trace = std::fs::read_to_string(dir.join("trace.jsonl")).unwrap();
        let exit = if mode == "crash" {
            "\"code\":3"
        } else {
            "\"signal\":9"
        };
        let ended = trace
            .lines()
            .any(|l| l.contains("\"event\":\"exit\"") && l.contains(exit));
        assert!(ended, "{mode}: {trace}");
    }
}

/// A server that hangs, and SIGTERM to the monitor: the signal is passed on, the monitor
/// exits as the server did (143) and its report lists the request left open.
#[test]
fn sigterm_to_the_monitor_ends_a_hung_session_with_a_report() {
    use std::io::Write;
    let dir = scratch("hang");
    let server = vec!["python3".to_string(), script("peer.py"), "hang".into()];
    let cmd = through_monitor(&dir, &server);
    let mut child = Command::new(&cmd[0])
        .args(&cmd[1..])
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let first = std::fs::read_to_string(script("session.jsonl")).unwrap();
    stdin
        .write_all(first.lines().next().unwrap().as_bytes())
        .unwrap();
    stdin.write_all(b"\n").unwrap();
    // Wait until the request crossed the monitor (it is recorded before it is passed on);
    // the bound only keeps a monitor that never records it from hanging the test.
    let record = dir.join("trace.jsonl");
    let started = std::time::Instant::now();
    while !std::fs::read_to_string(&record).is_ok_and(|t| t.contains("initialize")) {
        assert!(
            started.elapsed() < std::time::Duration::from_secs(60),
            "the request never reached the recording"
        );
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    let killed = Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status();
    assert!(killed.unwrap().success());
    assert_eq!(child.wait().unwrap().code(), Some(128 + 15));
    let report = report_of(&dir);
    assert_eq!(
        report["open_requests"][0]["method"], "initialize",
        "{report:#}"
    );
    // The client signalled the server with its stdin still open: L11, a SHOULD.
    assert_eq!(rules(&report), ["L11"], "{report:#}");
    drop(stdin);
}

/// A server flooding stderr: every stderr byte is passed through, the session still works.
#[test]
fn stderr_is_passed_through() {
    let dir = scratch("stderr");
    let input = std::fs::read(script("session.jsonl")).unwrap();
    let server = vec![
        "python3".to_string(),
        script("peer.py"),
        "stderr_flood".into(),
    ];
    let out = run(&through_monitor(&dir, &server), &input);
    let logs = out
        .stderr
        .windows(9)
        .filter(|w| *w == b"log line\n")
        .count();
    // The monitor's own lines (here: the findings of a client that does not wait for the
    // initialize result) never split one of the server's.
    assert_eq!(logs, 450_000);
    assert!(rules(&report_of(&dir)).contains(&"L7".to_string()));
}

/// A client that closes at once: the server sees end of input, exits, and the report says
/// nothing was exchanged.
#[test]
fn a_client_closing_early_ends_the_session() {
    let dir = scratch("early");
    let server = vec!["python3".to_string(), script("peer.py"), "good".into()];
    let out = run(&through_monitor(&dir, &server), b"");
    assert_eq!(out.status.code(), Some(0));
    let report = report_of(&dir);
    assert_eq!(report["era"], "unknown");
    assert_eq!(report["messages"], 0);
}

/// `trace check` exits 2 on a file it cannot read, naming the line.
#[test]
fn unreadable_traces_name_their_line() {
    let dir = scratch("unreadable");
    let file = dir.join("t.jsonl");
    std::fs::write(&file, "{\"dir\":\"c2s\",\"raw\":\"{}\"}\nnot json\n").unwrap();
    let out = Command::new(agentpi())
        .args(["trace", "check"])
        .arg(&file)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("t.jsonl:2: not a JSON object"), "{err}");
}

/// `trace check A B ...` checks each trace alone and then the traces together (M7, M8): the
/// text gives each trace's summary and one line per finding across them, naming both
/// traces; the JSON gives each trace's report with its `file` and the `across` findings; a
/// finding across the traces alone makes the exit status 1. A trace that cannot be read
/// still exits 2.
#[test]
fn several_traces_of_one_server_are_judged_together() {
    let across = repo().join("crates/monitor/tests/traces/across");
    let file = |name: &str| across.join(format!("{name}.jsonl")).display().to_string();
    let check = |names: &[&str], json: bool| {
        let mut cmd = Command::new(agentpi());
        cmd.args(["trace", "check"]);
        if json {
            cmd.args(["--format", "json"]);
        }
        cmd.args(names.iter().map(|n| file(n))).output().unwrap()
    };
    let clean = check(&["modern_good", "modern_good2"], false);
    assert_eq!(clean.status.code(), Some(0));
    let text = String::from_utf8_lossy(&clean.stdout);
    assert!(
        text.ends_with("across: 2 traces, 0 violations in them, 0 violations across them\n"),
        "{text}"
    );
    let listed = check(
        &["modern_good", "modern_reordered", "modern_other_tools"],
        false,
    );
    assert_eq!(listed.status.code(), Some(1));
    let text = String::from_utf8_lossy(&listed.stdout);
    let lines: Vec<&str> = text.lines().filter(|l| l.contains(" M8 ")).collect();
    assert_eq!(lines.len(), 2, "{text}");
    assert!(
        lines[0].contains("modern_reordered.jsonl: message 4 (s2c): M8 SHOULD"),
        "{text}"
    );
    assert!(
        lines[1].contains("(against ") && lines[1].contains("modern_good.jsonl message 4"),
        "{text}"
    );
    let json = check(&["modern_context", "modern_context2"], true);
    assert_eq!(json.status.code(), Some(1));
    let report: Value = serde_json::from_slice(&json.stdout).unwrap();
    assert_eq!(report["traces"][1]["file"], file("modern_context2"));
    assert_eq!(report["traces"][1]["violations"], Value::Array(vec![]));
    let rules: Vec<&str> = report["across"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["rule"].as_str().unwrap())
        .collect();
    assert_eq!(rules, ["M7", "M7"], "{report:#}");
    assert_eq!(
        report["across"][1]["against"]["file"],
        file("modern_context")
    );
    let missing = check(&["modern_good", "no_such_trace"], false);
    assert_eq!(missing.status.code(), Some(2));
}

/// `trace check` of a recording of two clients through one HTTP listener names the session
/// of each finding, in the text (the finding, its chart, a summary per session) and the
/// JSON; the chart shows that session's messages alone (the other client's tool call is not
/// in it).
#[test]
fn a_trace_of_two_sessions_names_them() {
    let file = repo().join("crates/monitor/tests/traces/http_sessions_h4_in_one_of_two.jsonl");
    let text = Command::new(agentpi())
        .args(["trace", "check"])
        .arg(&file)
        .output()
        .unwrap();
    assert_eq!(text.status.code(), Some(1));
    let text = String::from_utf8_lossy(&text.stdout);
    let second = "c1fe9599-7c13-4b53-af3d-ab39605deaec";
    assert!(
        text.contains(&format!("session {second}: message 19 (event): H4 MUST")),
        "{text}"
    );
    let chart: Vec<&str> = text
        .lines()
        .skip_while(|l| *l != format!("  session {second}:"))
        .take_while(|l| l.starts_with("  "))
        .collect();
    assert!(chart.iter().any(|l| l.contains("initialize #1")), "{text}");
    assert!(!chart.iter().any(|l| l.contains("tools/call")), "{text}");
    assert!(
        text.ends_with("2 sessions, 12 messages, 1 violation, 0 open requests\n"),
        "{text}"
    );
    let json = Command::new(agentpi())
        .args(["trace", "check", "--format", "json"])
        .arg(&file)
        .output()
        .unwrap();
    let report: Value = serde_json::from_slice(&json.stdout).unwrap();
    assert_eq!(report["violations"][0]["session"], second);
    let sessions: Vec<&Value> = report["sessions"].as_array().unwrap().iter().collect();
    assert_eq!(sessions.len(), 2);
    assert_eq!(sessions[1]["violations"][0]["rule"], "H4");
    assert_eq!(sessions[0]["violations"], Value::Array(vec![]));
}

/// `trace check` on every bundled trace of crates/monitor/tests/traces: a trace whose name
/// says it breaks a rule exits 1, a `clean` one 0 (the names are checked against the
/// findings in crates/monitor/tests/traces.rs; here, the exit status that scripts read).
#[test]
fn bundled_traces_exit_as_their_names_say() {
    let dir = repo().join("crates/monitor/tests/traces");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "jsonl"))
        .collect();
    files.sort();
    each_in_parallel(&files, |file| {
        let name = file.file_stem().unwrap().to_string_lossy().to_string();
        let clean = name.split('_').any(|w| w == "clean");
        let out = Command::new(agentpi())
            .args(["trace", "check"])
            .arg(file)
            .output()
            .unwrap();
        let expected = if clean { 0 } else { 1 };
        assert_eq!(
            out.status.code(),
            Some(expected),
            "{name}: {}",
            String::from_utf8_lossy(&out.stdout)
        );
    });
}

/// `monitor --drain SECONDS` takes a number of seconds from 0 to 86400: anything else is a
/// clear error naming the value, exit status 2, before any server is started; a good value
/// is taken (the server `true` ends at once, and the session with it).
#[test]
fn the_drain_must_be_a_number_of_seconds() {
    let check = |value: &str, good: bool| {
        let out = Command::new(agentpi())
            .args(["monitor", &format!("--drain={value}"), "--", "true"])
            .stdin(Stdio::null())
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        let said = format!("`{value}` is not a number of seconds from 0 to 86400");
        match good {
            true => assert!(
                !err.contains(&said) && out.status.code() != Some(2),
                "{err}"
            ),
            false => {
                assert_eq!(out.status.code(), Some(2), "--drain {value}: {err}");
                assert!(err.contains(&said), "--drain {value}: {err}");
                assert!(err.contains("--drain"), "--drain {value}: {err}");
            }
        }
    };
    for bad in ["abc", "", "-1", "86401", "inf", "NaN", "1e9", "2s"] {
        check(bad, false);
    }
    for good in ["0", "0.5", "300", "86400"] {
        check(good, true);
    }
}

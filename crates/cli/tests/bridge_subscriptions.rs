//! `resources/subscribe` and list changes through `subscriptions/listen` (`agentpi bridge
//! --to modern`, docs/bridge.md "Subscriptions"). The model's part: seen by the legacy
//! client it refines a legacy server's subscriptions (traces, failures, failures-
//! divergences), and a bridge that relays an update that crossed the unsubscribe is caught by
//! its check and by the trace refinement, one that does not end the listen by a deadlock. The
//! runtime's: a scripted legacy client subscribes
//! through the bridge to the Python SDK 2.x server of tests/bridge/subscribing_server.py, on
//! stdio and over HTTP (`--upstream`): the `initialize` answer declares what the server
//! offers, the subscribe is answered once its listen is acknowledged, a change of the
//! resource and of the tool list reaches the client, an unsubscribe ends the listen and its
//! updates; no finding on either side's monitor (M13 on the modern one, X2 on the legacy
//! one), both traces clean. Every read gives up after `PATIENCE`.

use crate::bridge_http::{Bridge, PATIENCE, lines, on_stdio, raw_session, report, with_bridge};
use crate::bridge_http_sessions::{read_until_has, session_with_stream};
use crate::bridge_run::trace_check;
use crate::models::agentpi as run_agentpi;
use crate::monitor::{agentpi, peer, scratch};
use crate::support::{Server, listening_on_any_port, repo};
use serde_json::{Value, json};
use std::io::Write;
use std::path::Path;
use std::process::{ChildStdin, Command, Stdio};
use std::sync::mpsc::Receiver;

const MODEL: &str = "mcp/bridge";

/// Whether `agentpi compare SPEC IMPL --equiv EQUIV`, the modern wire hidden, refines.
fn refines(spec: &str, implementation: &str, equiv: &str) -> bool {
    let args = [
        "compare",
        spec,
        implementation,
        "--equiv",
        equiv,
        "--hide",
        "mc2s",
        "--hide",
        "ms2c",
    ];
    let (status, stdout, stderr) = run_agentpi(&args);
    assert!(matches!(status, 0 | 1), "{args:?}: {stdout}{stderr}");
    status == 0
}

/// Seen by the legacy client, the bridge's subscriptions are a legacy server's: in traces,
/// failures and failures-divergences, with a server whose update may cross the cancel, and
/// with servers that end their listens (the bridge opens them again, then gives up).
#[test]
fn the_subscription_part_refines_a_legacy_session() {
    let spec = format!("{MODEL}:SubDirect");
    let systems = [
        "SubBridged",
        "SubCrossBridged",
        "SubEndBridged",
        "ListsEndBridged",
    ];
    for system in systems {
        let implementation = format!("{MODEL}:{system}");
        for equiv in ["trace", "failures", "fd"] {
            assert!(refines(&spec, &implementation, equiv), "{system} {equiv}");
        }
    }
}

/// A mistake written into the subscription part: the checks it violates, and whether
/// `SubBridged`, `SubCrossBridged` and `SubEndBridged` still refine `SubDirect` in traces.
struct Mistake {
    name: &'static str,
    from: &'static str,
    to: &'static str,
    violated: &'static [&'static str],
    refines: [bool; 3],
}

const MISTAKES: &[Mistake] = &[
    Mistake {
        name: "relays the update that crossed the unsubscribe",
        from: "  + ms2c?sub(=Watch, _) . TMRes\n",
        to: "  + ms2c?sub(=Watch, k) . ls2c!note(k) . TMRes\n",
        violated: &[
            "SubCrossBridged: ltl [] (lc2s(req(_, unsubscribe)) -> X ((not ls2c(note(updated))) W ls2c(res(Sub, true))))",
            "SubEndBridged: ltl [] (lc2s(req(_, unsubscribe)) -> X ((not ls2c(note(updated))) W ls2c(res(Sub, true))))",
        ],
        refines: [true, false, false],
    },
    Mistake {
        name: "answers the unsubscribe without ending the listen",
        from: "  + lc2s?req(u, unsubscribe) . mc2s!cancel(Watch) . ls2c!res(u, true) . TMRes\n",
        to: "  + lc2s?req(u, unsubscribe) . ls2c!res(u, true) . TMRes\n",
        violated: &[
            "SubBridged: deadlock free",
            "SubCrossBridged: deadlock free",
            "SubCrossBridged: ltl [] (lc2s(req(i, _)) -> X <> ls2c(res(i, _)))",
            "SubEndBridged: deadlock free",
            "SubEndBridged: ltl [] (lc2s(req(i, _)) -> X <> ls2c(res(i, _)))",
            "ListsEndBridged: deadlock free",
        ],
        refines: [true, true, true],
    },
    Mistake {
        name: "re-opens the listen and forgets it when the client unsubscribes meanwhile",
        from: "    ms2c?ack(=Watch) . mc2s!cancel(Watch) . ls2c!res(u, true) . TMRes\n",
        to: "    ms2c?ack(=Watch) . ls2c!res(u, true) . TMRes\n",
        violated: &[
            "SubEndBridged: deadlock free",
            "SubEndBridged: ltl [] (lc2s(req(i, _)) -> X <> ls2c(res(i, _)))",
        ],
        refines: [true, true, true],
    },
];

/// Each mistake is caught by the checks, the refinement, or both, as the table says.
#[test]
fn every_mistake_in_the_subscriptions_is_caught() {
    let text = std::fs::read_to_string(repo().join("models/mcp/bridge.pi")).unwrap();
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("bridge_subscriptions");
    std::fs::create_dir_all(&dir).unwrap();
    for (i, mistake) in MISTAKES.iter().enumerate() {
        assert_eq!(text.matches(mistake.from).count(), 1, "{}", mistake.name);
        let path = dir.join(format!("mistake_{i}.pi"));
        std::fs::write(&path, text.replace(mistake.from, mistake.to)).unwrap();
        let path = path.to_str().unwrap();
        let (status, stdout, stderr) = run_agentpi(&["check", path, "--format", "json"]);
        assert_eq!(status, 1, "{}: {stdout}{stderr}", mistake.name);
        let report: Value = serde_json::from_str(&stdout).unwrap();
        let text = |v: &Value| v.as_str().unwrap().to_string();
        let broken: Vec<String> = (report["checks"].as_array().unwrap().iter())
            .filter(|c| c["verdict"] != "holds")
            .map(|c| format!("{}: {}", text(&c["system"]), text(&c["property"])))
            .collect();
        assert_eq!(broken, mistake.violated, "{}", mistake.name);
        let spec = format!("{path}:SubDirect");
        let found = ["SubBridged", "SubCrossBridged", "SubEndBridged"]
            .map(|system| refines(&spec, &format!("{path}:{system}"), "trace"));
        assert_eq!(found, mistake.refines, "{}", mistake.name);
    }
}

/// The server: the Python SDK 2.x, on stdio or listening on HTTP.
fn server(http: bool) -> Command {
    let mut c = Command::new(peer(".venv/bin/python"));
    c.arg(repo().join("tests/bridge/subscribing_server.py"));
    if http {
        c.args(["--http", "0"]);
    }
    c
}

/// A scripted legacy client on the bridge's standard input and output.
struct Client {
    input: ChildStdin,
    output: Receiver<String>,
    /// Every message read so far.
    seen: Vec<Value>,
}

impl Client {
    fn send(&mut self, message: &str) {
        writeln!(self.input, "{message}").expect("the bridge reads its client");
    }

    /// Reads until `done` holds for what was seen since `from`; panics after `PATIENCE`
    /// without a message.
    fn until(&mut self, from: usize, done: impl Fn(&[Value]) -> bool) {
        while !done(&self.seen[from..]) {
            let line = (self.output.recv_timeout(PATIENCE))
                .unwrap_or_else(|_| panic!("the bridge went silent: {:?}", &self.seen[from..]));
            self.seen.push(serde_json::from_str(&line).unwrap());
        }
    }

    /// Sends request `id` and reads until its answer and a message with each method of
    /// `also` came; returns the answer.
    fn ask(&mut self, id: i64, message: &str, also: &[&str]) -> Value {
        let from = self.seen.len();
        self.send(message);
        let has = |seen: &[Value], m: &str| seen.iter().any(|v| v["method"] == m);
        self.until(from, |seen| {
            seen.iter().any(|v| v["id"] == id) && also.iter().all(|m| has(seen, m))
        });
        let answer = self.seen[from..].iter().find(|v| v["id"] == id).unwrap();
        answer.clone()
    }

    fn count(&self, method: &str) -> usize {
        self.seen.iter().filter(|v| v["method"] == method).count()
    }
}

const INIT: &str = r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"script","version":"1"}}}"#;
const INITIALIZED: &str = r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#;
const UPDATED: &str = "notifications/resources/updated";
const CHANGED: &str = "notifications/tools/list_changed";

fn subscribe(id: i64, method: &str) -> String {
    json!({"jsonrpc": "2.0", "id": id, "method": method, "params": {"uri": "memo://note"}})
        .to_string()
}

fn call(id: i64, name: &str, arguments: Value) -> String {
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
           "params": {"name": name, "arguments": arguments}})
    .to_string()
}

/// The session: subscribed, the note written (its update comes), the tool list grown (its
/// change comes: `grow` is called until it does, since the list-changes listen the bridge
/// opened at `notifications/initialized` may be acknowledged after the first call),
/// unsubscribed, the note written again (no update), subscribed again and written (one
/// update more): two updates in all.
fn session(client: &mut Client) {
    let init = client.ask(0, INIT, &[]);
    let capabilities = &init["result"]["capabilities"];
    assert_eq!(
        capabilities["resources"]["subscribe"],
        json!(true),
        "{init}"
    );
    assert_eq!(capabilities["tools"]["listChanged"], json!(true), "{init}");
    client.send(INITIALIZED);
    let subscribed = client.ask(1, &subscribe(1, "resources/subscribe"), &[]);
    assert_eq!(subscribed["result"], json!({}), "{subscribed}");
    client.ask(2, &call(2, "write", json!({"text": "one"})), &[UPDATED]);
    let mut id = 10;
    while client.count(CHANGED) == 0 {
        assert!(id < 40, "no list change came: {:?}", client.seen);
        client.ask(id, &call(id, "grow", json!({})), &[]);
        id += 1;
    }
    let unsubscribed = client.ask(3, &subscribe(3, "resources/unsubscribe"), &[]);
    assert_eq!(unsubscribed["result"], json!({}), "{unsubscribed}");
    client.ask(4, &call(4, "write", json!({"text": "two"})), &[]);
    client.ask(5, &subscribe(5, "resources/subscribe"), &[]);
    let from = client.seen.len();
    client.ask(6, &call(6, "write", json!({"text": "three"})), &[UPDATED]);
    assert_eq!(client.count(UPDATED), 2, "{:?}", client.seen);
    let update = client.seen[from..].iter().find(|v| v["method"] == UPDATED);
    assert_eq!(
        update,
        Some(&json!({"jsonrpc": "2.0", "method": UPDATED, "params": {"uri": "memo://note"}})),
        "relayed without the listen's subscriptionId"
    );
}

/// Runs the session through `agentpi bridge --to modern` with `upstream` (the server's
/// command line on stdio, or its URL), then ends it (the client's input closed).
fn through_bridge(name: &str, upstream: &[String]) -> std::path::PathBuf {
    through_bridge_with(name, upstream, session)
}

/// Runs `session` through `agentpi bridge --to modern` with `upstream`, then ends it.
fn through_bridge_with(
    name: &str,
    upstream: &[String],
    session: fn(&mut Client),
) -> std::path::PathBuf {
    let dir = scratch(&format!("bridge-subscriptions-{name}"));
    let mut line: Vec<String> = ["bridge", "--to", "modern", "--record"]
        .map(str::to_string)
        .into();
    line.push(dir.join("rec").display().to_string());
    line.push("--report".into());
    line.push(dir.join("report.json").display().to_string());
    line.extend(upstream.iter().cloned());
    let mut bridge = Server(
        Command::new(agentpi())
            .args(&line)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap(),
    );
    let mut client = Client {
        input: bridge.0.stdin.take().unwrap(),
        output: lines(bridge.0.stdout.take().unwrap()),
        seen: Vec::new(),
    };
    session(&mut client);
    drop(client);
    let started = std::time::Instant::now();
    while bridge.0.try_wait().unwrap().is_none() {
        assert!(started.elapsed() < PATIENCE, "the bridge did not end");
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    dir
}

/// Both sides clean: no finding, nothing left open, each trace clean under `trace check`, and
/// the resource's first listen ended by the bridge.
fn clean(dir: &Path, ended: &str) {
    let report: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("report.json")).unwrap()).unwrap();
    for side in ["legacy", "modern"] {
        assert_eq!(report[side]["violations"], json!([]), "{report}");
        let (ok, text) = trace_check(&dir.join(format!("rec/{side}.jsonl")));
        // The bridge's listens still open when its client went are cancelled.
        assert!(
            ok && text.contains(" 0 violations, 0 open requests"),
            "{text}"
        );
    }
    assert_eq!(report["bridge"]["notes"], json!([]), "{report}");
    let record = std::fs::read_to_string(dir.join("rec/modern.jsonl")).unwrap();
    let listens = (record.lines())
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .filter(|e| e["dir"] == "c2s")
        .filter_map(|e| serde_json::from_str::<Value>(e["raw"].as_str()?).ok())
        .filter(|m| m["method"] == "subscriptions/listen");
    // The list changes', the resource's, and the resource's again.
    assert_eq!(listens.count(), 3, "{record}");
    assert!(record.contains(ended), "{record}");
}

#[test]
fn a_subscription_goes_through_the_bridge_on_stdio() {
    let command = server(false);
    let mut line = vec![
        "--".to_string(),
        command.get_program().to_string_lossy().into(),
    ];
    line.extend(command.get_args().map(|a| a.to_string_lossy().into_owned()));
    let dir = through_bridge("stdio", &line);
    // The resource's first listen is the bridge's third request (after the discover and the
    // list-changes listen): the unsubscribe cancels it.
    clean(
        &dir,
        r#"\"method\":\"notifications/cancelled\",\"params\":{\"requestId\":3"#,
    );
}

#[test]
fn a_subscription_goes_through_the_bridge_over_http() {
    let (_server, port) = listening_on_any_port(
        server(true)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap(),
    );
    let url = format!("http://127.0.0.1:{port}/mcp");
    let dir = through_bridge("http", &["--upstream".to_string(), url]);
    // Over HTTP the unsubscribe closes the listen's stream (nothing is posted).
    clean(&dir, r#""closed_by":"client""#);
    // Each stream the bridge closed is recorded once (it was twice: when the bridge closed
    // it, and again when the task reading it saw the close).
    let record = std::fs::read_to_string(dir.join("rec/modern.jsonl")).unwrap();
    let mut aborted = std::collections::BTreeMap::<String, usize>::new();
    for event in record
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
    {
        if event["event"] == "aborted" {
            *aborted.entry(event["exchange"].to_string()).or_default() += 1;
        }
    }
    assert!(!aborted.is_empty(), "{record}");
    assert!(aborted.values().all(|&n| n == 1), "{aborted:?}\n{record}");
}

/// A listening bridge (`--listen`, the server on stdio behind it): each legacy session has its
/// own listens, and a listen's notification goes to the session that opened it, on its GET
/// stream. Session B subscribes; A (the oldest, where a notification no session owns would
/// go) writes the note: the update comes on B's stream only (A's stream gets the list change
/// of A's `grow` that follows, with no update before it: on stdio the server's messages come
/// in order); each session gets the list change on its own list-changes listen. No finding on any side; nothing left open once the bridge stops.
#[test]
fn each_legacy_session_gets_its_own_subscriptions() {
    each_session_its_own(false);
}

/// The same with the server on HTTP behind the listening bridge (`--listen` and
/// `--upstream`): each listen is a POST of its own, its notifications on its stream, and the
/// session is known by the request (the stream's). Across the server's streams nothing is
/// in order, so an update wrongly sent to A could come after A's list change: weaker there.
#[test]
fn each_legacy_session_gets_its_own_subscriptions_over_http_both_sides() {
    each_session_its_own(true);
}

fn each_session_its_own(http: bool) {
    let run = |bridge: &Bridge| {
        let address = bridge.address();
        let (a, mut a_stream) = session_with_stream(address);
        let (b, mut b_stream) = session_with_stream(address);
        let subscribed = raw_session(
            address,
            "POST",
            Some(&b),
            &subscribe(5, "resources/subscribe"),
        );
        assert!(subscribed.contains(r#""id":5,"result":{}"#), "{subscribed}");
        let wrote = raw_session(
            address,
            "POST",
            Some(&a),
            &call(6, "write", json!({"text": "x"})),
        );
        assert!(wrote.contains("written"), "{wrote}");
        read_until_has(&mut b_stream, UPDATED);
        let mut id = 10;
        // Everything A's stream gave, until the list change of one of A's `grow`s.
        let mut seen = String::new();
        while !seen.contains(CHANGED) {
            assert!(id < 40, "no list change on A's stream: {seen}");
            // The list-changes listens may be acknowledged after the first `grow`.
            let grown = raw_session(address, "POST", Some(&a), &call(id, "grow", json!({})));
            assert!(grown.contains("grown"), "{grown}");
            seen.push_str(&read_some(&mut a_stream));
            id += 1;
        }
        assert!(!seen.contains(UPDATED), "{seen}");
        read_until_has(&mut b_stream, CHANGED);
    };
    let mut _upstream = None;
    let more = if http {
        let (server, port) = listening_on_any_port(
            server(true)
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .spawn()
                .unwrap(),
        );
        _upstream = Some(server);
        vec![
            "--upstream".to_string(),
            format!("http://127.0.0.1:{port}/mcp"),
        ]
    } else {
        let command = server(false);
        let mut line = vec![command.get_program().to_string_lossy().into_owned()];
        line.extend(command.get_args().map(|a| a.to_string_lossy().into_owned()));
        on_stdio(&line)
    };
    let name = if http {
        "subscriptions-both"
    } else {
        "subscriptions"
    };
    let ((), _, dir) = with_bridge(name, "modern", &more, run);
    let report = report(&dir);
    for session in report["legacy"]["sessions"].as_array().unwrap() {
        assert_eq!(session["violations"], json!([]), "{report}");
    }
    assert_eq!(report["modern"]["violations"], json!([]), "{report}");
    assert_eq!(report["modern"]["open_requests"], json!([]), "{report}");
    assert_eq!(report["bridge"]["notes"], json!([]), "{report}");
}

/// What `stream` gives within a short while (at least one read, bounded by `PATIENCE`):
/// the events that came so far.
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
    stream.set_read_timeout(Some(PATIENCE)).unwrap();
    text
}

/// The session of a server that ends its listens once (`hang_up`: the SDK's
/// `ListenHandler.close`, each listen's final result): subscribed, written (an update), the
/// listens ended; the bridge opens both again (`TMWatching`, `TMListsOn`), and the server
/// answers `hang_up` once they are open: the next write's update and the next list change
/// come through. On main's binary the listens were not opened again: `hang_up` answered
/// `not re-opened` and no update came.
fn hung_up_session(client: &mut Client) {
    client.ask(0, INIT, &[]);
    client.send(INITIALIZED);
    let subscribed = client.ask(1, &subscribe(1, "resources/subscribe"), &[]);
    assert_eq!(subscribed["result"], json!({}), "{subscribed}");
    client.ask(2, &call(2, "write", json!({"text": "one"})), &[UPDATED]);
    let hung = client.ask(3, &call(3, "hang_up", json!({})), &[]);
    let text = &hung["result"]["content"][0]["text"];
    assert_eq!(text, &json!("re-opened 2"), "{hung}");
    client.ask(4, &call(4, "write", json!({"text": "two"})), &[UPDATED]);
    assert_eq!(client.count(UPDATED), 2, "{:?}", client.seen);
    client.ask(5, &call(5, "grow", json!({})), &[CHANGED]);
}

/// Both sides clean, both traces clean, and the bridge's notes: each listen ended once and
/// opened again.
fn clean_after_hang_up(dir: &Path) {
    let report: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("report.json")).unwrap()).unwrap();
    for side in ["legacy", "modern"] {
        assert_eq!(report[side]["violations"], json!([]), "{report}");
        let (ok, text) = trace_check(&dir.join(format!("rec/{side}.jsonl")));
        assert!(
            ok && text.contains(" 0 violations, 0 open requests"),
            "{text}"
        );
    }
    let notes: Vec<String> = (report["bridge"]["notes"].as_array().unwrap().iter())
        .map(|n| n.as_str().unwrap().split(" (").next().unwrap().to_string())
        .collect::<std::collections::BTreeSet<_>>()
        .into_iter()
        .collect();
    assert_eq!(
        notes,
        [
            "the listen of memo://note: ended by the server: opened again",
            "the server ended the list-changes listen: opened again",
        ],
        "{report}"
    );
}

#[test]
fn a_listen_the_server_ends_is_opened_again_on_stdio() {
    let command = server(false);
    let mut line = vec![
        "--".to_string(),
        command.get_program().to_string_lossy().into(),
    ];
    line.extend(command.get_args().map(|a| a.to_string_lossy().into_owned()));
    let dir = through_bridge_with("hang-up-stdio", &line, hung_up_session);
    clean_after_hang_up(&dir);
}

#[test]
fn a_listen_the_server_ends_is_opened_again_over_http() {
    let (_server, port) = listening_on_any_port(
        server(true)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap(),
    );
    let url = format!("http://127.0.0.1:{port}/mcp");
    let dir = through_bridge_with(
        "hang-up-http",
        &["--upstream".to_string(), url],
        hung_up_session,
    );
    clean_after_hang_up(&dir);
}

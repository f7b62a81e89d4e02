//! Progress through `agentpi bridge` with real servers (the model's `prog`: `TMProgress`,
//! `TLProgress`), both directions on stdio, a scripted client on the bridge's stdio and a
//! Python SDK server behind it (tests/bridge/progress_server.py). The client's progress tokens
//! are its own in every round: `--to modern`, the progress of a call whose body runs in the
//! retry after an `input_required` round comes under the legacy client's token; `--to
//! legacy`, the legacy server's progress of a call held across a round goes to the modern
//! request that carries it then (the call's, then its retry's, each under its own token).
//! A legacy server's log lines of a call go to the modern request that opted in (`TLLog`).
//! Both monitors find nothing and the bridge notes nothing. Every read is bounded.

use crate::bridge_http::{Bridge, PATIENCE, connect, on_stdio, report, with_bridge};
use crate::bridge_logging::ended;
use crate::cases::each_in_parallel;
use crate::monitor::{agentpi, peer, scratch};
use crate::support::{Server, listening_on_any_port, repo};
use serde_json::{Value, json};
use std::io::{BufRead, BufReader, Read, Write};
use std::process::{ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, channel};

/// What the scripted client does.
enum Step {
    /// Writes the line.
    Send(&'static str),
    /// Reads up to the answer to request `id` (as JSON).
    Await(&'static str),
    /// Answers the bridge's last request to it (an elicitation) with this result.
    Answer(&'static str),
    /// A modern client's retry of the last `input_required` answer: id, progress token; it
    /// accepts every input request.
    Retry(&'static str, &'static str),
}

struct Case {
    name: &'static str,
    /// `--to` and the server's era (`progress_server.py modern|legacy`, its interpreter).
    to: &'static str,
    server: (&'static str, &'static str),
    steps: &'static [Step],
    /// Every message read, summed up, in order.
    reads: &'static [&'static str],
}

const LEGACY_INIT: &str = r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{"elicitation":{}},"clientInfo":{"name":"script","version":"1"}}}"#;
const INITIALIZED: &str = r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#;
const LEGACY_COUNT: &str = r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"count","arguments":{},"_meta":{"progressToken":"t1"}}}"#;
const LEGACY_COUNT_AFTER: &str = r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"count_after","arguments":{},"_meta":{"progressToken":"t2"}}}"#;
const META: &str = r#""io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"elicitation":{}},"io.modelcontextprotocol/clientInfo":{"name":"script","version":"1"}"#;
const DISCOVER: &str = r#"{"jsonrpc":"2.0","id":"d","method":"server/discover","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"elicitation":{}},"io.modelcontextprotocol/clientInfo":{"name":"script","version":"1"}}}}"#;
const MODERN_COUNT: &str = r#"{"jsonrpc":"2.0","id":"c1","method":"tools/call","params":{"name":"count","arguments":{},"_meta":{"progressToken":"m1","io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"elicitation":{}},"io.modelcontextprotocol/clientInfo":{"name":"script","version":"1"}}}}"#;
const MODERN_SAY: &str = r#"{"jsonrpc":"2.0","id":"s1","method":"tools/call","params":{"name":"say","arguments":{"text":"hi"},"_meta":{"io.modelcontextprotocol/logLevel":"info","io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"elicitation":{}},"io.modelcontextprotocol/clientInfo":{"name":"script","version":"1"}}}}"#;
const MODERN_COUNT_AFTER: &str = r#"{"jsonrpc":"2.0","id":"c2","method":"tools/call","params":{"name":"count_after","arguments":{},"_meta":{"progressToken":"m2","io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"elicitation":{}},"io.modelcontextprotocol/clientInfo":{"name":"script","version":"1"}}}}"#;

const CASES: &[Case] = &[
    Case {
        name: "to-modern",
        to: "modern",
        server: (".venv/bin/python", "modern"),
        steps: &[
            Step::Send(LEGACY_INIT),
            Step::Await("0"),
            Step::Send(INITIALIZED),
            Step::Send(LEGACY_COUNT),
            Step::Await("1"),
            // `count_after`'s body, and so its progress, runs in the bridge's retry, a modern
            // request of its own: its progress still names the legacy client's token.
            Step::Send(LEGACY_COUNT_AFTER),
            Step::Answer(r#"{"action":"accept","content":{"agree":true}}"#),
            Step::Await("2"),
        ],
        reads: &[
            "answer 0",
            "progress t1 1",
            "progress t1 2",
            "answer 1",
            "ask elicitation/create",
            "progress t2 1",
            "progress t2 2",
            "answer 2",
        ],
    },
    Case {
        name: "to-legacy",
        to: "legacy",
        server: (".venv-mcp1/bin/python", "legacy"),
        steps: &[
            Step::Send(DISCOVER),
            Step::Await(r#""d""#),
            Step::Send(MODERN_COUNT),
            Step::Await(r#""c1""#),
            // The legacy call reports progress, asks (held for the retry), then reports twice
            // more: the first to the call (`m2`), the others to the retry (`m3`).
            Step::Send(MODERN_COUNT_AFTER),
            Step::Await(r#""c2""#),
            Step::Retry("c3", "m3"),
            Step::Await(r#""c3""#),
        ],
        reads: &[
            "answer d",
            "progress m1 1",
            "progress m1 2",
            "answer c1",
            "progress m2 1",
            "input_required c2",
            "progress m3 2",
            "progress m3 3",
            "answer c3",
        ],
    },
    // A legacy server's log lines of a call (`TLLog`), to the modern request that opted in
    // (`logLevel` in its `_meta`); `discover` keeps the server's `logging`.
    Case {
        name: "to-legacy-log",
        to: "legacy",
        server: (".venv-mcp1/bin/python", "legacy"),
        steps: &[
            Step::Send(DISCOVER),
            Step::Await(r#""d""#),
            Step::Send(MODERN_SAY),
            Step::Await(r#""s1""#),
        ],
        reads: &["answer d", "log hi 1", "log hi 2", "answer s1"],
    },
];

/// A message the client read, summed up: a progress by its token and count, a request by its
/// method, an answer by its id (and `input_required`).
fn sum(message: &Value) -> String {
    if message["method"] == "notifications/progress" {
        let token = &message["params"]["progressToken"];
        let token = token.as_str().map_or(token.to_string(), str::to_string);
        let count = message["params"]["progress"].as_f64().unwrap_or(-1.0);
        return format!("progress {token} {count}");
    }
    if message["method"] == "notifications/message" {
        return format!("log {}", message["params"]["data"].as_str().unwrap_or(""));
    }
    if let Some(method) = message["method"].as_str() {
        return format!("ask {method}");
    }
    let id = &message["id"];
    let id = id.as_str().map_or(id.to_string(), str::to_string);
    match message
        .pointer("/result/resultType")
        .and_then(Value::as_str)
    {
        Some("input_required") => format!("input_required {id}"),
        _ => format!("answer {id}"),
    }
}

/// The client's end of the bridge: what it read (whole), and its input.
struct Client {
    stdin: ChildStdin,
    lines: Receiver<String>,
    read: Vec<Value>,
}

impl Client {
    fn send(&mut self, line: &str) {
        writeln!(self.stdin, "{line}").unwrap();
    }

    fn next(&mut self, what: &str) -> Value {
        let text = (self.lines.recv_timeout(PATIENCE))
            .unwrap_or_else(|_| panic!("nothing more came while awaiting {what}"));
        let message: Value = serde_json::from_str(&text).unwrap();
        self.read.push(message.clone());
        message
    }

    fn step(&mut self, step: &Step) {
        match step {
            Step::Send(line) => self.send(line),
            Step::Await(id) => {
                let id: Value = serde_json::from_str(id).unwrap();
                while self.next(&format!("the answer to {id}"))["id"] != id {}
            }
            Step::Answer(result) => loop {
                let message = self.next("a request of the bridge");
                if message.get("method").is_some() && message.get("id").is_some() {
                    let result: Value = serde_json::from_str(result).unwrap();
                    let reply = json!({"jsonrpc": "2.0", "id": message["id"], "result": result});
                    return self.send(&reply.to_string());
                }
            },
            Step::Retry(id, token) => self.retry(id, token),
        }
    }

    /// The retry of the last `input_required` answer, every input request accepted.
    fn retry(&mut self, id: &str, token: &str) {
        let asked = (self.read.iter().rev())
            .find_map(|m| {
                m.get("result")
                    .filter(|r| r["resultType"] == "input_required")
            })
            .expect("an input_required answer")
            .clone();
        let keys = asked["inputRequests"].as_object().expect("input requests");
        let accept = json!({"action": "accept", "content": {"agree": true}});
        let answers: serde_json::Map<String, Value> =
            keys.keys().map(|k| (k.clone(), accept.clone())).collect();
        let meta: Value = serde_json::from_str(&format!("{{{META}}}")).unwrap();
        let mut meta = meta.as_object().unwrap().clone();
        meta.insert("progressToken".into(), json!(token));
        let params = json!({"name": "count_after", "arguments": {}, "inputResponses": answers,
                            "requestState": asked["requestState"], "_meta": meta});
        let retry = json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": params});
        self.send(&retry.to_string());
    }
}

fn check(case: &Case) {
    let server = [
        "--".to_string(),
        peer(case.server.0),
        repo()
            .join("tests/bridge/progress_server.py")
            .display()
            .to_string(),
        case.server.1.to_string(),
    ];
    check_with(case, &server, case.name);
}

/// The case with the bridge's server side `server` (`-- CMD...` or `--upstream URL`).
fn check_with(case: &Case, server: &[String], name: &str) {
    let dir = scratch(&format!("bridge-progress-{name}"));
    let mut command = Command::new(agentpi());
    command.args(["bridge", "--to", case.to, "--record"]);
    (command.arg(dir.join("rec")).arg("--report")).arg(dir.join("report.json"));
    command.args(server);
    let child = (command.stdin(Stdio::piped()).stdout(Stdio::piped()))
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut bridge = Server(child);
    let stdout = BufReader::new(bridge.0.stdout.take().unwrap());
    let (tx, lines) = channel();
    std::thread::spawn(move || {
        for line in stdout.lines().map_while(Result::ok) {
            let _ = tx.send(line);
        }
    });
    let stdin = bridge.0.stdin.take().unwrap();
    let mut client = Client {
        stdin,
        lines,
        read: Vec::new(),
    };
    for step in case.steps {
        client.step(step);
    }
    drop(client.stdin);
    ended(&mut bridge, case.name);
    let read: Vec<String> = client.read.iter().map(sum).collect();
    assert_eq!(read, case.reads, "{}: {:?}", case.name, client.read);
    let text = std::fs::read_to_string(dir.join("report.json")).unwrap();
    let report: Value = serde_json::from_str(&text).unwrap();
    for side in [
        case.to,
        if case.to == "modern" {
            "legacy"
        } else {
            "modern"
        },
    ] {
        let found = &report[side]["violations"];
        assert_eq!(found, &json!([]), "{} {side}: {report}", case.name);
    }
    assert_eq!(report["bridge"]["notes"], json!([]), "{}", case.name);
}

#[test]
fn progress_keeps_the_clients_tokens_in_every_round() {
    each_in_parallel(CASES, check);
}

/// `--to modern --upstream`: the same session as `to-modern` with the server on HTTP, where
/// each modern request has its own SSE stream and the server's progress comes on it.
#[test]
fn progress_keeps_the_clients_tokens_over_upstream() {
    let mut c = Command::new(peer(".venv/bin/python"));
    c.arg(repo().join("tests/bridge/progress_server.py"));
    c.args(["modern", "--http", "0"]);
    let child = c
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let (_server, port) = listening_on_any_port(child);
    let upstream = [
        "--upstream".to_string(),
        format!("http://127.0.0.1:{port}/mcp"),
    ];
    let case = CASES.iter().find(|c| c.name == "to-modern").unwrap();
    check_with(case, &upstream, "to-modern-upstream");
}

/// A modern client's `count` POSTed to a listening `--to legacy` bridge, with progress token
/// `p` and id `c1`: the answer's SSE stream, as text.
fn post_count(address: &str) -> String {
    let body = r#"{"jsonrpc":"2.0","id":"c1","method":"tools/call","params":{"name":"count","arguments":{},"_meta":{"progressToken":"p","io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"script","version":"1"}}}}"#;
    let mut stream = connect(address);
    write!(
        stream,
        "POST /mcp HTTP/1.1\r\nHost: {address}\r\nContent-Type: application/json\r\n\
         Accept: application/json, text/event-stream\r\nMcp-Protocol-Version: 2026-07-28\r\n\
         Mcp-Method: tools/call\r\nMcp-Name: count\r\nContent-Length: {}\r\n\
         Connection: close\r\n\r\n{body}",
        body.len()
    )
    .unwrap();
    let mut answer = String::new();
    let _ = stream.read_to_string(&mut answer);
    answer
}

/// Two modern clients at once through `--to legacy --listen`, each calling `count` with the
/// same id and the same progress token: on the one legacy session each call has a token of
/// the bridge's own, so each client gets its own two progress notifications (under its `p`)
/// on its own request's stream, then its answer; nothing noted. (Before, the legacy server's
/// progress was not carried.)
#[test]
fn each_modern_client_gets_its_own_progress_over_listen() {
    let server = [
        peer(".venv-mcp1/bin/python"),
        repo()
            .join("tests/bridge/progress_server.py")
            .display()
            .to_string(),
        "legacy".to_string(),
    ];
    let run = |bridge: &Bridge| {
        let address = bridge.address();
        std::thread::scope(|scope| {
            let posts: Vec<_> = (0..2)
                .map(|_| scope.spawn(|| post_count(address)))
                .collect();
            let answers = posts.into_iter().map(|p| p.join().unwrap());
            answers.collect::<Vec<String>>()
        })
    };
    let (answers, _, dir) = with_bridge("progress-listen", "legacy", &on_stdio(&server), run);
    for answer in &answers {
        let data = answer.lines().filter_map(|l| l.strip_prefix("data: "));
        let read: Vec<Value> = data.filter_map(|d| serde_json::from_str(d).ok()).collect();
        let summed: Vec<String> = read.iter().map(sum).collect();
        assert_eq!(
            summed,
            ["progress p 1", "progress p 2", "answer c1"],
            "{answer}"
        );
    }
    let report = report(&dir);
    assert_eq!(report["legacy"]["violations"], json!([]), "{report}");
    assert_eq!(report["modern"]["violations"], json!([]), "{report}");
    assert_eq!(report["bridge"]["notes"], json!([]), "{report}");
}

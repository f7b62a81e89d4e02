//! `--to legacy --listen` in front of a legacy server on stdio, two modern clients at once:
//! which call the server's elicitation is for. On stdio the server's request names no call;
//! the bridge sends a call that could be asked only when no other call is open (the legacy
//! session's turn, `TLTurn` of `mcp/bridge`), so the server's question reaches the client
//! whose call it is for. The server (Python SDK 1.x, tests/bridge/asking_server.py) asks the
//! second of two open calls' question first: a bridge that gives it to the first call held
//! open (as the bridge did) shows client A the question for B, and B's answer names A.

use crate::bridge_http::{Bridge, PATIENCE, lines, on_stdio, report, with_bridge};
use crate::monitor::peer;
use crate::support::{Server, repo};
use serde_json::{Value, json};
use std::io::Write;
use std::process::{ChildStdin, Command, Stdio};
use std::sync::mpsc::Receiver;

/// A modern client (tests/bridge/asking_client.py), connected and waiting for its `go`.
struct Asker {
    _child: Server,
    stdin: ChildStdin,
    stdout: Receiver<String>,
}

impl Asker {
    /// The client `name` on the bridge at `url`, once it says it is ready.
    fn ready(url: &str, name: &str) -> Asker {
        let mut child = Command::new(peer(".venv/bin/python"))
            .arg(repo().join("tests/bridge/asking_client.py"))
            .args([url, name])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .unwrap();
        let stdin = child.stdin.take().unwrap();
        let stdout = lines(child.stdout.take().unwrap());
        let said = stdout
            .recv_timeout(PATIENCE)
            .expect("the client is not ready");
        assert_eq!(said.trim(), "ready", "{name}");
        Asker {
            _child: Server(child),
            stdin,
            stdout,
        }
    }

    fn go(&mut self) {
        writeln!(self.stdin, "go").unwrap();
    }

    /// What it was asked, the call's answer and its era.
    fn answer(self) -> Value {
        let line = self.stdout.recv_timeout(PATIENCE).expect("no answer");
        serde_json::from_str(&line).unwrap()
    }
}

/// Clients A and B call `ask` at once: each is asked its own question, once, and its call's
/// answer names it; both sides' monitors find nothing and the bridge notes nothing. (On the
/// bridge that gave the server's request to the first call held open, A was asked both
/// questions and B none: B's answer named A.)
#[test]
fn each_client_is_asked_its_own_question() {
    let script = repo().join("tests/bridge/asking_server.py");
    let server = [peer(".venv-mcp1/bin/python"), script.display().to_string()];
    let run = |bridge: &Bridge| {
        let mut askers = ["A", "B"].map(|name| Asker::ready(&bridge.url, name));
        askers.iter_mut().for_each(Asker::go);
        askers.map(Asker::answer)
    };
    let (answers, _, dir) = with_bridge("turn", "legacy", &on_stdio(&server), run);
    for (got, name) in answers.iter().zip(["A", "B"]) {
        let want = json!({
            "asked": [format!("a question for {name}")],
            "answer": format!("{name}'s question, answered by {name}"),
            "era": "2026-07-28",
        });
        assert_eq!(got, &want, "{answers:?}");
    }
    let report = report(&dir);
    assert_eq!(report["bridge"]["notes"], json!([]), "{report}");
    assert_eq!(report["modern"]["violations"], json!([]), "{report}");
    assert_eq!(report["legacy"]["violations"], json!([]), "{report}");
}

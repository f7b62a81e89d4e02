//! The server driven in-process over `lsp-server`'s memory connection, as a client would:
//! each case opens a model of `tests/cases/`, asks its questions, and the whole conversation's
//! answers (diagnostics first) are an insta snapshot. Positions are written as a piece of
//! the file with `$` at the cursor, so that the cases read like the models.

use agentpi_lsp::Connection;
use lsp_server::{Message, Notification, Request, RequestId};
use serde_json::{Value, json};
use std::path::{Path, PathBuf};

/// A question to the server about the opened document.
enum Ask {
    Hover(&'static str),
    Definition(&'static str),
    References(&'static str),
    Symbols,
    Completion(&'static str),
    Rename(&'static str, &'static str),
    Tokens,
    /// `agentpi/bundled`: the text of a bundled model, by its URI.
    Bundled(&'static str),
    /// The code lenses, as `LINE: title`.
    Lenses,
    /// Runs the lens of the line of the needle, and reports the diagnostics published when
    /// its check is done.
    Run(&'static str),
    /// Replaces the document's text and reports the diagnostics published for it.
    Change(&'static str),
}

/// Reads files from disk, and one "bundled" model (`lib_bundled`), as the binary's loader
/// does with its bundled models.
struct TestLoader;

impl agentpi_ir::Loader for TestLoader {
    fn read(&self, name: &str, importer: Option<&str>) -> Result<(String, String), String> {
        let dir = importer.and_then(|i| Path::new(i).parent());
        let path = dir.map_or(PathBuf::from(name), |d| d.join(name));
        if let Ok(text) = std::fs::read_to_string(&path) {
            return Ok((path.display().to_string(), text));
        }
        match name {
            "lib_bundled" => Ok((
                "<bundled>/lib_bundled.pi".into(),
                "// A bundled library.\nchan bundled_chan\n".into(),
            )),
            _ => Err("no such file".into()),
        }
    }
}

fn cases() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/cases")
}

/// Opens `file` in a fresh server, asks each of `asks`, and snapshots the answers.
fn check(file: &str, asks: &[Ask]) {
    let (mut session, served) = started(json!({"capabilities": {}}));
    let (uri, mut text) = session.open(file);
    let mut answers = vec![json!({"diagnostics": session.diagnostics()})];
    for ask in asks {
        answers.push(session.ask(ask, &uri, &mut text));
    }
    session.end(served);
    let shown = serde_json::to_string_pretty(&compact(json!(answers))).unwrap();
    let shown = shown.replace(&format!("{}/", cases().display()), "$CASES/");
    let name = file.trim_end_matches(".pi");
    insta::assert_snapshot!(name, shown);
}

struct Session {
    client: Connection,
    next: i32,
    /// Log lines that came while the client waited for a response, in their order: a run's
    /// log line may come before the answer to a request sent after its cancellation. Other
    /// messages that come before a response (diagnostics of an earlier state) are dropped.
    held: std::collections::VecDeque<Message>,
}

/// How long the client waits for any one message: a hang fails the test instead of the CI run.
const PATIENCE: std::time::Duration = std::time::Duration::from_secs(300);

/// The thread serving a session: how `agentpi_lsp::serve` ended.
type Served = std::thread::JoinHandle<Result<(), String>>;

/// A fresh server, and a client that has initialized it with `initialize`'s `params`.
fn started(params: Value) -> (Session, Served) {
    let (server, client) = Connection::memory();
    let served = std::thread::spawn(move || agentpi_lsp::serve(&server, &TestLoader));
    let mut session = Session {
        client,
        next: 0,
        held: Default::default(),
    };
    session.request("initialize", params);
    session.notify("initialized", json!({}));
    (session, served)
}

impl Session {
    /// Opens `file` of `tests/cases/`: its URI and text.
    fn open(&mut self, file: &str) -> (lsp_types::Url, String) {
        let path = cases().join(file);
        let text = std::fs::read_to_string(&path).unwrap();
        let uri = lsp_types::Url::from_file_path(&path).unwrap();
        self.notify(
            "textDocument/didOpen",
            json!({"textDocument": {"uri": uri, "languageId": "agentpi", "version": 1, "text": text}}),
        );
        (uri, text)
    }

    /// Runs the check of `line` (its lens's command), which the server says it started.
    fn run_check(&mut self, uri: &lsp_types::Url, line: &Value) {
        let params = json!({"command": "agentpi.runCheck", "arguments": [uri, line]});
        let started = self.request("workspace/executeCommand", params);
        assert_eq!(started, json!(true));
    }

    /// Shuts the server down, which must end well.
    fn end(mut self, served: Served) {
        self.request("shutdown", Value::Null);
        self.notify("exit", Value::Null);
        served.join().unwrap().unwrap();
    }

    fn request(&mut self, method: &str, params: Value) -> Value {
        self.next += 1;
        let id = RequestId::from(self.next);
        let request = Request::new(id.clone(), method.to_string(), params);
        self.client.sender.send(Message::Request(request)).unwrap();
        loop {
            match self.received() {
                Message::Response(r) if r.id == id => {
                    return match r.error {
                        Some(e) => json!({"error": e.message}),
                        None => r.result.unwrap_or(Value::Null),
                    };
                }
                Message::Notification(n) if n.method == "window/logMessage" => {
                    self.held.push_back(Message::Notification(n));
                }
                _ => {}
            }
        }
    }

    /// The next message from the server, fresh (not one held back).
    fn received(&mut self) -> Message {
        match self.client.receiver.recv_timeout(PATIENCE) {
            Ok(message) => message,
            Err(e) => panic!("no message from the server in {PATIENCE:?}: {e}"),
        }
    }

    /// The next message from the server: first those held back while waiting for a response.
    fn next_message(&mut self) -> Message {
        self.held.pop_front().unwrap_or_else(|| self.received())
    }

    /// The parameters of the next notification `method`, skipping other messages.
    fn notification(&mut self, method: &str) -> Value {
        loop {
            if let Message::Notification(n) = self.next_message()
                && n.method == method
            {
                return n.params;
            }
        }
    }

    fn notify(&mut self, method: &str, params: Value) {
        let notification = Notification::new(method.to_string(), params);
        self.client
            .sender
            .send(Message::Notification(notification))
            .unwrap();
    }

    /// The next diagnostics published.
    fn diagnostics(&mut self) -> Value {
        self.notification("textDocument/publishDiagnostics")["diagnostics"].clone()
    }

    fn ask(&mut self, ask: &Ask, uri: &lsp_types::Url, text: &mut String) -> Value {
        let document = json!({"uri": uri});
        let at = |needle: &str| json!({"textDocument": document, "position": cursor(text, needle)});
        let (what, answer) = match ask {
            Ask::Hover(n) => (
                format!("hover {n}"),
                self.request("textDocument/hover", at(n)),
            ),
            Ask::Definition(n) => (
                format!("definition {n}"),
                self.request("textDocument/definition", at(n)),
            ),
            Ask::References(n) => {
                let mut params = at(n);
                params["context"] = json!({"includeDeclaration": true});
                (
                    format!("references {n}"),
                    self.request("textDocument/references", params),
                )
            }
            Ask::Symbols => (
                "symbols".into(),
                self.request(
                    "textDocument/documentSymbol",
                    json!({"textDocument": document}),
                ),
            ),
            Ask::Completion(n) => {
                let answer = self.request("textDocument/completion", at(n));
                let labels: Vec<Value> = answer
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|i| {
                        json!(format!(
                            "{} ({})",
                            i["label"].as_str().unwrap(),
                            i["detail"].as_str().unwrap_or("keyword")
                        ))
                    })
                    .filter(|l| !l.as_str().unwrap().ends_with("(keyword)"))
                    .collect();
                (format!("completion {n}"), json!(labels))
            }
            Ask::Rename(n, new) => {
                let mut params = at(n);
                params["newName"] = json!(new);
                (
                    format!("rename {n} to {new}"),
                    self.request("textDocument/rename", params),
                )
            }
            Ask::Tokens => {
                let params = json!({"textDocument": document});
                let answer = self.request("textDocument/semanticTokens/full", params);
                ("semantic tokens".into(), decode(text, &answer["data"]))
            }
            Ask::Bundled(uri) => (
                format!("bundled {uri}"),
                self.request("agentpi/bundled", json!({"uri": uri})),
            ),
            Ask::Lenses => {
                let params = json!({"textDocument": document});
                let answer = self.request("textDocument/codeLens", params);
                let lenses = answer.as_array().unwrap().iter().map(|l| {
                    let line = &l["range"]["start"]["line"];
                    json!(format!(
                        "{line}: {}",
                        l["command"]["title"].as_str().unwrap()
                    ))
                });
                ("code lenses".into(), json!(lenses.collect::<Vec<_>>()))
            }
            Ask::Run(n) => {
                self.run_check(uri, &cursor(text, n)["line"]);
                (format!("run {n}"), self.diagnostics())
            }
            Ask::Change(new) => {
                *text = new.to_string();
                self.notify(
                    "textDocument/didChange",
                    json!({"textDocument": {"uri": uri, "version": 2}, "contentChanges": [{"text": new}]}),
                );
                (format!("change to {new:?}"), self.diagnostics())
            }
        };
        json!({"ask": what, "answer": answer})
    }
}

/// Semantic tokens decoded: `LINE:COL text type [modifiers]` (the server's legend).
fn decode(text: &str, data: &Value) -> Value {
    const TYPES: &[&str] = &[
        "keyword",
        "type",
        "enumMember",
        "variable",
        "parameter",
        "function",
        "event",
        "property",
        "number",
        "string",
        "comment",
        "class",
    ];
    let numbers: Vec<u64> = data
        .as_array()
        .unwrap()
        .iter()
        .map(|n| n.as_u64().unwrap())
        .collect();
    let lines: Vec<&str> = text.lines().collect();
    let (mut line, mut col) = (0, 0);
    let mut shown = Vec::new();
    for t in numbers.chunks(5) {
        line += t[0] as usize;
        col = if t[0] == 0 {
            col + t[1] as usize
        } else {
            t[1] as usize
        };
        let units: Vec<u16> = lines[line].encode_utf16().collect();
        let word = String::from_utf16_lossy(&units[col..col + t[2] as usize]);
        let mut modifiers = String::new();
        if t[4] & 1 != 0 {
            modifiers += " declaration";
        }
        if t[4] & 2 != 0 {
            modifiers += " readonly";
        }
        shown.push(json!(format!(
            "{line}:{col} {word} {}{modifiers}",
            TYPES[t[3] as usize]
        )));
    }
    json!(shown)
}

/// Ranges written `LINE:COL-LINE:COL` (0-based, UTF-16 columns, as on the wire), so that
/// a snapshot reads as the model does.
fn compact(value: Value) -> Value {
    match value {
        Value::Object(map) if map.contains_key("start") && map.contains_key("end") => {
            let at = |p: &Value| format!("{}:{}", p["line"], p["character"]);
            json!(format!("{}-{}", at(&map["start"]), at(&map["end"])))
        }
        Value::Object(map) => {
            Value::Object(map.into_iter().map(|(k, v)| (k, compact(v))).collect())
        }
        Value::Array(items) => Value::Array(items.into_iter().map(compact).collect()),
        other => other,
    }
}

/// The position of `$` in `needle` (written with it) in `text` (without it), in UTF-16.
fn cursor(text: &str, needle: &str) -> Value {
    let bar = needle
        .find('$')
        .expect("a needle marks its cursor with `$`");
    let plain = needle.replace('$', "");
    let start = text
        .find(&plain)
        .unwrap_or_else(|| panic!("`{plain}` is not in the text"));
    let before = &text[..start + bar];
    let line = before.matches('\n').count();
    let column = before[before.rfind('\n').map_or(0, |i| i + 1)..]
        .encode_utf16()
        .count();
    json!({"line": line, "character": column})
}

#[test]
fn mistakes_get_the_clis_diagnostics_at_exact_utf16_ranges() {
    check(
        "mistakes.pi",
        &[
            Ask::Hover("ping?$x"),
            Ask::Change("chan ping\nsystem S = ping! | ping?\ncheck S: deadlock free\n"),
            Ask::Change("system S = ping!\n/* never closed"),
        ],
    );
}

#[test]
fn names_hover_navigate_and_rename() {
    check(
        "navigate.pi",
        &[
            Ask::Hover("proc P$hil"),
            Ask::Hover("take[$i]!"),
            Ask::Hover("box?$m"),
            Ask::Hover("data($j) =>"),
            Ask::Hover("chan ta$ke"),
            Ask::Hover("const $N"),
            Ask::Hover("| Sender | He$lper"),
            Ask::Hover("import \"li$b.pi\""),
            Ask::Definition("Phil($j)"),
            Ask::Definition("shared$!j"),
            Ask::Definition("import \"li$b.pi\""),
            Ask::Definition("check Ta$ble: dead"),
            Ask::References("type I$d"),
            Ask::References("event e$at"),
            Ask::References("proc Sen$der"),
            Ask::Symbols,
            Ask::Completion("shared!$j"),
            Ask::Rename("proc Ph$il", "Philosopher"),
            Ask::Rename("proc Ph$il", "phil"),
            Ask::Rename("box?$m", "msg"),
            Ask::Tokens,
        ],
    );
}

#[test]
fn imported_and_bundled_models_are_navigable_and_their_mistakes_shown_at_the_import() {
    check(
        "imports.pi",
        &[
            Ask::Hover("= bundled$_chan!"),
            Ask::Definition("= bundled$_chan!"),
            Ask::Definition("import \"lib_b$undled\""),
            Ask::Rename("= bundled$_chan!", "other"),
            Ask::Bundled("agentpi-bundled:/lib_bundled.pi"),
            Ask::Bundled("file:///etc/passwd"),
        ],
    );
}

#[test]
fn code_lenses_run_checks_and_show_verdicts_and_counterexamples() {
    check(
        "checks.pi",
        &[
            Ask::Lenses,
            Ask::Run("check St$uck"),
            Ask::Run("check Fine: $reachable"),
            Ask::Lenses,
            Ask::Change("chan a\nsystem Fine = a! | a?\ncheck Fine: deadlock free\n"),
            Ask::Lenses,
        ],
    );
}

#[test]
fn a_client_that_goes_away_without_shutdown_is_an_error() {
    let (session, served) = started(json!({"capabilities": {}}));
    drop(session);
    let error = served.join().unwrap().unwrap_err();
    assert_eq!(error, "the client went away without `shutdown`");
}

/// Runs the check of `unbounded.pi` under a budget of `max_states`, does `then` while it
/// runs, and returns the server's log of how the run ended.
fn unbounded_run(max_states: u64, then: impl FnOnce(&mut Session, &lsp_types::Url)) -> String {
    let init = json!({"capabilities": {}, "initializationOptions": {"maxStates": max_states}});
    let (mut session, served) = started(init);
    let (uri, text) = session.open("unbounded.pi");
    session.run_check(&uri, &cursor(&text, "$check S")["line"]);
    then(&mut session, &uri);
    let logged = session.notification("window/logMessage")["message"]
        .as_str()
        .unwrap()
        .to_string();
    session.end(served);
    logged.replace(&format!("{}/", cases().display()), "$CASES/")
}

#[test]
fn an_unbounded_check_left_alone_runs_to_its_budget() {
    let logged = unbounded_run(300, |_, _| ());
    assert_eq!(
        logged,
        "agentpi check $CASES/unbounded.pi:5: ? unknown · --max-states 300 reached"
    );
}

#[test]
fn an_edit_during_a_check_cancels_its_exploration() {
    // A budget the test could not wait for: only the cancellation ends the run in time.
    let logged = unbounded_run(1_000_000_000, |session, uri| {
        let text = std::fs::read_to_string(cases().join("unbounded.pi")).unwrap();
        session.notify(
            "textDocument/didChange",
            json!({"textDocument": {"uri": uri, "version": 2}, "contentChanges": [{"text": text + "\n"}]}),
        );
    });
    assert!(
        logged.starts_with("agentpi check $CASES/unbounded.pi:5: ⊘ cancelled · "),
        "{logged}"
    );
}

#[test]
fn clicking_a_running_lens_cancels_its_exploration() {
    let logged = unbounded_run(1_000_000_000, |session, uri| {
        let params = json!({"command": "agentpi.runCheck", "arguments": [uri, 4]});
        assert_eq!(
            session.request("workspace/executeCommand", params),
            json!(false)
        );
        let lenses = session.request(
            "textDocument/codeLens",
            json!({"textDocument": {"uri": uri}}),
        );
        assert_eq!(
            lenses[0]["command"]["title"],
            json!("⊘ cancelled (click to run again)")
        );
    });
    assert!(
        logged.starts_with("agentpi check $CASES/unbounded.pi:5: ⊘ cancelled · "),
        "{logged}"
    );
}

#[test]
fn a_violations_lens_opens_its_chart_page_in_the_clients_browser() {
    let (mut session, served) = started(json!({"capabilities": {}}));
    let (uri, text) = session.open("chart.pi");
    session.diagnostics();
    session.run_check(&uri, &cursor(&text, "$check Chain")["line"]);
    let violation = session.diagnostics();
    assert_eq!(
        violation[0]["source"],
        json!("agentpi check"),
        "{violation}"
    );
    let lenses = session.request(
        "textDocument/codeLens",
        json!({"textDocument": {"uri": uri}}),
    );
    let open = &lenses[1]["command"];
    assert_eq!(open["command"], json!("agentpi.openChart"), "{lenses}");
    // The server asks the client to show the page before it answers the command.
    session.next += 1;
    let id = RequestId::from(session.next);
    let request = Request::new(id.clone(), "workspace/executeCommand".into(), open.clone());
    session
        .client
        .sender
        .send(Message::Request(request))
        .unwrap();
    let show = match session.next_message() {
        Message::Request(r) if r.method == "window/showDocument" => r.params,
        other => panic!("{other:?}"),
    };
    let answered = match session.next_message() {
        Message::Response(r) if r.id == id => r.result.unwrap(),
        other => panic!("{other:?}"),
    };
    assert_eq!(show["external"], json!(true));
    assert_eq!(show["uri"], answered);
    let page_uri: lsp_types::Url = serde_json::from_value(answered).unwrap();
    let page_path = page_uri.to_file_path().unwrap();
    let page = std::fs::read_to_string(&page_path).unwrap();
    std::fs::remove_dir_all(page_path.parent().unwrap()).unwrap();
    session.end(served);
    // The chart of `agentpi check --format html`: every step, as an arrow and in the list.
    let steps = ["a", "b", "c"];
    for (i, label) in steps.iter().enumerate() {
        assert!(
            page.contains(&format!("data-step=\"{i}\"><title>{}. {label} (", i + 1)),
            "{page}"
        );
        assert!(page.contains(&format!("<li data-step=\"{i}\"")), "{page}");
    }
    assert!(
        !page.contains(&format!("data-step=\"{}\"", steps.len())),
        "{page}"
    );
    assert!(page.contains("deadlock"), "{page}");
    // Who is stuck where, as under the chart of `agentpi check` (`agentpi-check-report`): the
    // left side waits to send its last `a`, the right side to receive its last `b`.
    for note in ["waits a!", "waits b?"] {
        assert!(page.contains(note), "{note}: {page}");
    }
}

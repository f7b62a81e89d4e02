//! The connection of one run to the server under test: raw client messages out, each server
//! message in with the time it arrived. Over stdio this is `agentpi_mcp`'s child-process
//! transport read line by line; over Streamable HTTP each client message is its own POST on
//! a thread of its own (so requests overlap), and each response head becomes an `http` event
//! of the trace, as `agentpi monitor --listen` records them, so the HTTP rules are checked.

use agentpi_mcp::transport::ClientError;
use agentpi_mcp::transport::http::{self, Http};
use agentpi_mcp::transport::stdio::{Output, Stdio};
use serde_json::{Map, Value, json};
use std::io::Read;
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, Sender};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// What the server sent next.
#[derive(Debug)]
pub enum Incoming {
    /// One message's bytes, when it arrived, and the fields its transport adds to the trace.
    Message {
        raw: Vec<u8>,
        at: Instant,
        fields: Map<String, Value>,
    },
    /// A transport event for the trace (`http`: a response head), with its fields.
    Event {
        kind: String,
        at: Instant,
        fields: Map<String, Value>,
    },
    /// The server closed its output (or the process ended).
    Closed,
    /// Nothing arrived within the wait.
    Quiet,
}

/// How a server ended: its exit (`code` or `signal`), and whether the tester had to kill it.
#[derive(Clone, Debug, PartialEq)]
pub struct Ending {
    pub fields: Map<String, Value>,
    pub killed: bool,
}

/// A connection to a server under test.
pub trait Conn {
    /// Sends one client message as it is; returns the fields its transport adds to the trace
    /// line (over HTTP the exchange), or `None` when the server is gone.
    fn send(&mut self, raw: &[u8]) -> Option<Map<String, Value>>;
    /// [`Conn::send`], for a request given up after `within`: over Streamable HTTP its
    /// exchange is closed then (how a modern client cancels a request there, C5).
    fn send_within(&mut self, raw: &[u8], within: Duration) -> Option<Map<String, Value>> {
        let _ = within;
        self.send(raw)
    }
    /// [`Conn::send`] with an `Origin` header (the H7 probe: a foreign one); stdio has no
    /// headers, so there it is a plain send.
    fn send_from(&mut self, raw: &[u8], origin: &str) -> Option<Map<String, Value>> {
        let _ = origin;
        self.send(raw)
    }
    /// The next thing the server sent, waiting at most `wait`.
    fn recv(&mut self, wait: Duration) -> Incoming;
    /// Ends the client's input (stdio: closes the server's stdin).
    fn close_input(&mut self);
    /// Waits up to `grace` for the server to end, then ends it; `None` when there is no
    /// process to end (HTTP).
    fn finish(&mut self, grace: Duration) -> Option<Ending>;
    /// The server's last stderr lines, to explain a failure to start.
    fn stderr(&self) -> Vec<String> {
        Vec::new()
    }
}

/// How to reach the server under test.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Target {
    /// A command started afresh for every run, spoken to on stdio.
    Command(Vec<String>),
    /// A Streamable HTTP server already running: every run is a new session of it.
    Url(String),
}

impl Target {
    /// A short name for reports: the program's file name and its first argument's.
    pub fn name(&self) -> String {
        match self {
            Target::Command(argv) => argv
                .iter()
                .take(3)
                .map(|a| a.rsplit('/').next().unwrap_or(a))
                .collect::<Vec<_>>()
                .join(" "),
            Target::Url(url) => url.clone(),
        }
    }

    pub fn is_http(&self) -> bool {
        matches!(self, Target::Url(_))
    }

    /// Starts (or reaches) the server for one run; `timeout` bounds an HTTP exchange.
    pub fn connect(&self, timeout: Duration) -> Result<Box<dyn Conn>, ClientError> {
        match self {
            Target::Url(url) => Ok(Box::new(HttpConn::new(url, timeout)?)),
            Target::Command(argv) => {
                let (program, args) = argv.split_first().ok_or(ClientError::Spawn {
                    command: String::new(),
                    reason: "no command given".into(),
                })?;
                Ok(Box::new(StdioConn(Stdio::spawn(program, args)?)))
            }
        }
    }

    /// The `spawn` event's fields.
    pub fn spawn_fields(&self) -> Map<String, Value> {
        match self {
            Target::Command(argv) => Map::from_iter([("command".into(), json!(argv))]),
            Target::Url(url) => Map::from_iter([("url".into(), json!(url))]),
        }
    }
}

struct StdioConn(Stdio);

impl Conn for StdioConn {
    fn send(&mut self, raw: &[u8]) -> Option<Map<String, Value>> {
        self.0.write_line(raw).then(Map::new)
    }

    fn recv(&mut self, wait: Duration) -> Incoming {
        match self.0.read_output(wait) {
            Output::Line(raw, at) => Incoming::Message {
                raw,
                at,
                fields: Map::new(),
            },
            Output::Closed => Incoming::Closed,
            Output::Quiet => Incoming::Quiet,
        }
    }

    fn close_input(&mut self) {
        self.0.close_input();
    }

    fn finish(&mut self, grace: Duration) -> Option<Ending> {
        let (status, killed) = match self.0.exit_within(grace) {
            Some(status) => (Some(status), false),
            None => (self.0.kill(), true),
        };
        let fields = status.map(exit_fields).unwrap_or_default();
        Some(Ending { fields, killed })
    }

    fn stderr(&self) -> Vec<String> {
        self.0.stderr_lines()
    }
}

/// `{"code": N}` or `{"signal": S}`, as the monitor records an exit.
fn exit_fields(status: std::process::ExitStatus) -> Map<String, Value> {
    use std::os::unix::process::ExitStatusExt;
    match (status.code(), status.signal()) {
        (Some(code), _) => Map::from_iter([("code".into(), json!(code))]),
        (None, Some(sig)) => Map::from_iter([("signal".into(), json!(sig))]),
        (None, None) => Map::new(),
    }
}

/// A session of a Streamable HTTP server.
struct HttpConn {
    http: Http,
    timeout: Duration,
    sender: Sender<Incoming>,
    incoming: Receiver<Incoming>,
    next_exchange: u64,
    /// The session id the server gave, and the negotiated version (legacy).
    session: Arc<Mutex<Option<String>>>,
    version: Arc<Mutex<Option<String>>>,
}

impl HttpConn {
    fn new(url: &str, timeout: Duration) -> Result<HttpConn, ClientError> {
        let (sender, incoming) = mpsc::channel();
        Ok(HttpConn {
            http: Http::new(url)?,
            timeout,
            sender,
            incoming,
            next_exchange: 0,
            session: Arc::default(),
            version: Arc::default(),
        })
    }

    /// The headers of a client message: what the transport asks of a client (Accept, the
    /// session, the protocol version; modern: Mcp-Method and Mcp-Name).
    fn headers(&self, raw: &[u8]) -> Vec<(String, String)> {
        let message: Value = serde_json::from_slice(raw).unwrap_or(Value::Null);
        let mut out = vec![
            ("content-type".to_string(), "application/json".to_string()),
            (
                "accept".to_string(),
                "application/json, text/event-stream".to_string(),
            ),
        ];
        if let Some(session) = self.session.lock().ok().and_then(|s| s.clone()) {
            out.push(("mcp-session-id".into(), session));
        }
        let modern = message
            .pointer("/params/_meta/io.modelcontextprotocol~1protocolVersion")
            .and_then(Value::as_str);
        let legacy = self.version.lock().ok().and_then(|v| v.clone());
        if let Some(version) = modern.map(String::from).or(legacy) {
            out.push(("mcp-protocol-version".into(), version));
        }
        if modern.is_some() {
            out.extend(routing(&message));
        }
        out
    }

    /// How long a POST's exchange may last: past the run's own deadline (so that the run
    /// judges the silence first), then the client gives up on it.
    fn exchange_bound(&self) -> Duration {
        self.timeout + Duration::from_secs(5)
    }

    fn exchange_fields(&self, k: u64) -> Map<String, Value> {
        Map::from_iter([("exchange".into(), json!(k))])
    }

    /// POSTs one client message (with `origin` as its `Origin` header, if given) on a thread
    /// of its own; the exchange's fields.
    fn post(
        &mut self,
        raw: &[u8],
        origin: Option<&str>,
        timeout: Duration,
    ) -> Option<Map<String, Value>> {
        let k = self.next_exchange;
        self.next_exchange += 1;
        let mut headers = self.headers(raw);
        if let Some(origin) = origin {
            headers.push(("origin".into(), origin.to_string()));
        }
        let shared = Shared {
            http: self.http.clone(),
            sender: self.sender.clone(),
            session: self.session.clone(),
            version: self.version.clone(),
        };
        let body = raw.to_vec();
        std::thread::spawn(move || exchange(&shared, k, "POST", &body, &headers, timeout));
        Some(self.exchange_fields(k))
    }
}

/// Modern routing headers: `Mcp-Method`, and `Mcp-Name` for the methods that name a thing.
fn routing(message: &Value) -> Vec<(String, String)> {
    let Some(method) = message.get("method").and_then(Value::as_str) else {
        return Vec::new();
    };
    let mut out = vec![("mcp-method".to_string(), method.to_string())];
    let key = match method {
        "tools/call" | "prompts/get" => "name",
        "resources/read" => "uri",
        _ => return out,
    };
    if let Some(name) = message
        .pointer(&format!("/params/{key}"))
        .and_then(Value::as_str)
    {
        out.push(("mcp-name".into(), name.to_string()));
    }
    out
}

/// What a thread of one exchange shares with the connection.
struct Shared {
    http: Http,
    sender: Sender<Incoming>,
    session: Arc<Mutex<Option<String>>>,
    version: Arc<Mutex<Option<String>>>,
}

impl Conn for HttpConn {
    fn send(&mut self, raw: &[u8]) -> Option<Map<String, Value>> {
        self.send_within(raw, self.exchange_bound())
    }

    fn send_within(&mut self, raw: &[u8], timeout: Duration) -> Option<Map<String, Value>> {
        self.post(raw, None, timeout)
    }

    fn send_from(&mut self, raw: &[u8], origin: &str) -> Option<Map<String, Value>> {
        self.post(raw, Some(origin), self.exchange_bound())
    }

    fn recv(&mut self, wait: Duration) -> Incoming {
        match self.incoming.recv_timeout(wait) {
            Ok(incoming) => incoming,
            Err(RecvTimeoutError::Timeout) => Incoming::Quiet,
            Err(RecvTimeoutError::Disconnected) => Incoming::Closed,
        }
    }

    /// Ends a legacy session with a DELETE (the client's SHOULD); a modern one has none.
    fn close_input(&mut self) {
        let Some(session) = self.session.lock().ok().and_then(|s| s.clone()) else {
            return;
        };
        let k = self.next_exchange;
        self.next_exchange += 1;
        let shared = Shared {
            http: self.http.clone(),
            sender: self.sender.clone(),
            session: self.session.clone(),
            version: self.version.clone(),
        };
        let mut headers = vec![("mcp-session-id".to_string(), session)];
        if let Some(version) = self.version.lock().ok().and_then(|v| v.clone()) {
            headers.push(("mcp-protocol-version".into(), version));
        }
        exchange(&shared, k, "DELETE", &[], &headers, self.timeout);
    }

    fn finish(&mut self, _grace: Duration) -> Option<Ending> {
        None
    }
}

/// One HTTP exchange: its head as an `http` event, then each message of its body (a JSON
/// body, or each SSE event's data); a failure as an `aborted` event (and, when the server
/// cannot be reached at all, the end of the connection).
fn exchange(
    shared: &Shared,
    k: u64,
    method: &str,
    body: &[u8],
    headers: &[(String, String)],
    timeout: Duration,
) {
    let reply = match shared.http.raw(method, body, headers, timeout) {
        Ok(reply) => reply,
        Err(e) => {
            let reason = e.to_string();
            let mut fields = Map::from_iter([
                ("side".into(), json!("server")),
                ("reason".into(), json!(reason)),
                ("exchange".into(), json!(k)),
            ]);
            if reason == "timed out" {
                // The client gave up and closed the exchange, as `agentpi monitor --listen`
                // records a client's close: in the modern era the request's cancellation.
                fields.insert("closed_by".into(), json!("client"));
            }
            let _ = shared.sender.send(Incoming::Event {
                kind: "aborted".into(),
                at: Instant::now(),
                fields,
            });
            if reason != "timed out" {
                let _ = shared.sender.send(Incoming::Closed);
            }
            return;
        }
    };
    head(shared, k, method, &reply);
    let sse =
        header(&reply.headers, "content-type").is_some_and(|t| t.starts_with("text/event-stream"));
    let mut body = reply.body;
    if sse {
        while let Ok(Some((id, data))) = http::next_event(&mut body) {
            if data.trim().is_empty() {
                // An event with an id and no data primes the stream (for resumption).
                continue;
            }
            let mut fields = Map::from_iter([("exchange".into(), json!(k))]);
            if let Some(id) = id {
                fields.insert("sse_id".into(), json!(id));
            }
            message(shared, data.into_bytes(), fields);
        }
    } else {
        let mut bytes = Vec::new();
        let read = body.read_to_end(&mut bytes).is_ok();
        // An error status may come with any body: only JSON there is a message (the spec
        // allows a JSON-RPC error; uvicorn's 403 says "Invalid Origin header" in plain text).
        let text = reply.status >= 400 && serde_json::from_slice::<Value>(&bytes).is_err();
        if read && !text && !bytes.iter().all(u8::is_ascii_whitespace) {
            message(
                shared,
                bytes,
                Map::from_iter([("exchange".into(), json!(k))]),
            );
        }
    }
}

fn header<'a>(headers: &'a [(String, String)], name: &str) -> Option<&'a str> {
    headers
        .iter()
        .find(|(k, _)| k.eq_ignore_ascii_case(name))
        .map(|(_, v)| v.as_str())
}

/// The `http` event of a response head; a successful one's session id is kept.
fn head(shared: &Shared, k: u64, method: &str, reply: &http::RawReply) {
    if reply.status < 300
        && let Some(id) = header(&reply.headers, "mcp-session-id")
        && let Ok(mut session) = shared.session.lock()
    {
        *session = Some(id.to_string());
    }
    let pairs =
        |h: &[(String, String)]| -> Value { h.iter().map(|(k, v)| json!([k, v])).collect() };
    let fields = Map::from_iter([
        ("method".into(), json!(method)),
        ("path".into(), json!(shared.http.path())),
        ("status".into(), json!(reply.status)),
        ("headers".into(), pairs(&reply.headers)),
        ("request_headers".into(), pairs(&reply.request_headers)),
        ("exchange".into(), json!(k)),
    ]);
    let _ = shared.sender.send(Incoming::Event {
        kind: "http".into(),
        at: Instant::now(),
        fields,
    });
}

/// A server message; an initialize result's version is the one later requests name.
fn message(shared: &Shared, raw: Vec<u8>, fields: Map<String, Value>) {
    let parsed: Option<Value> = serde_json::from_slice(&raw).ok();
    let version = parsed
        .as_ref()
        .and_then(|m| m.pointer("/result/protocolVersion"))
        .and_then(Value::as_str);
    if let (Some(v), Ok(mut negotiated)) = (version, shared.version.lock()) {
        *negotiated = Some(v.to_string());
    }
    let _ = shared.sender.send(Incoming::Message {
        raw,
        at: Instant::now(),
        fields,
    });
}

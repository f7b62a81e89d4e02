//! The connection of one run to the server under test: raw client messages out, each server
//! message in with the time it arrived. Over stdio this is `agentpi_mcp`'s child-process
//! transport read line by line; over Streamable HTTP each client message is its own POST on
//! a thread of its own (so requests overlap), and each response head becomes an `http` event
//! of the trace, as `agentpi monitor --listen` records them, so the HTTP rules are checked.
//! An `http://` exchange has a connection of its own (`wire`), so that the client can close
//! one request's stream: the modern cancellation. A Streamable HTTP server the tester starts
//! itself (`serve`) belongs to the run's connection, which stops it at the run's end.

use crate::serve::Served;
use crate::wire::{self, Endpoint, Reply};
use agentpi_mcp::transport::ClientError;
use agentpi_mcp::transport::http::{self, Http};
use agentpi_mcp::transport::stdio::{Output, Stdio};
use agentpi_monitor::http::encode_header_value;
use serde_json::{Map, Value, json};
use std::collections::HashMap;
use std::io::{BufRead, Read};
use std::net::{Shutdown, TcpStream};
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
    /// [`Conn::send`] with more HTTP headers (`Origin` for the H7 probe, `Mcp-Param-*`);
    /// stdio has no headers, so there it is a plain send.
    fn send_headed(
        &mut self,
        raw: &[u8],
        extra: &[(String, String)],
    ) -> Option<Map<String, Value>> {
        let _ = extra;
        self.send(raw)
    }
    /// Closes HTTP exchange `k` while it is in flight (how a modern client cancels its
    /// request there, C5; a legacy one drops it, C6), recording an `aborted` event with
    /// `closed_by: client` and `reason` then; whether there was an open exchange to close
    /// (stdio has none).
    fn abort(&mut self, k: u64, reason: &str) -> bool {
        let _ = (k, reason);
        false
    }
    /// Resumes a dropped SSE stream (legacy Streamable HTTP): a GET with `Last-Event-ID:
    /// last`, whose events come as any exchange's do; the exchange's fields, `None` where
    /// there is no such thing (stdio).
    fn resume(&mut self, last: &str) -> Option<Map<String, Value>> {
        let _ = last;
        None
    }
    /// The next thing the server sent, waiting at most `wait`.
    fn recv(&mut self, wait: Duration) -> Incoming;
    /// Ends the client's input (stdio: closes the server's stdin).
    fn close_input(&mut self);
    /// Waits up to `grace` for the server to end, then ends it; `None` when there is no
    /// process to end (an HTTP server the user runs).
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
    /// A Streamable HTTP server at `url` that `command` starts: started afresh for every
    /// run, as a stdio server is, and stopped at its end.
    Served { url: String, command: Vec<String> },
}

impl Target {
    /// The server a command line names: `--url` alone (a server the user runs), a command
    /// alone (stdio), or both (a Streamable HTTP server the command starts).
    pub fn of(url: Option<&str>, command: &[String]) -> Target {
        match url {
            Some(url) if command.is_empty() => Target::Url(url.to_string()),
            Some(url) => Target::Served {
                url: url.to_string(),
                command: command.to_vec(),
            },
            None => Target::Command(command.to_vec()),
        }
    }

    /// A short name for reports: the program's file name and its first argument's.
    pub fn name(&self) -> String {
        match self {
            Target::Command(argv) => argv
                .iter()
                .take(3)
                .map(|a| a.rsplit('/').next().unwrap_or(a))
                .collect::<Vec<_>>()
                .join(" "),
            Target::Url(url) | Target::Served { url, .. } => url.clone(),
        }
    }

    pub fn is_http(&self) -> bool {
        matches!(self, Target::Url(_) | Target::Served { .. })
    }

    /// Starts (or reaches) the server for one run; `timeout` bounds an HTTP exchange.
    pub fn connect(&self, timeout: Duration) -> Result<Box<dyn Conn>, ClientError> {
        match self {
            Target::Url(url) => Ok(Box::new(HttpConn::new(url, timeout)?)),
            Target::Served { url, command } => {
                // Its own errors name the URL, the command and its last output.
                let served = Served::start(command, url, timeout)
                    .map_err(|reason| ClientError::Io { reason })?;
                let mut conn = HttpConn::new(url, timeout)?;
                conn.server = Some(served);
                Ok(Box::new(conn))
            }
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
            Target::Served { url, command } => Map::from_iter([
                ("url".into(), json!(url)),
                ("command".into(), json!(command)),
            ]),
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
        Some(Ending::of(status, killed))
    }

    fn stderr(&self) -> Vec<String> {
        self.0.stderr_lines()
    }
}

impl Ending {
    /// The ending of a process with this exit status (if it could be read).
    fn of(status: Option<std::process::ExitStatus>, killed: bool) -> Ending {
        let fields = status.map(exit_fields).unwrap_or_default();
        Ending { fields, killed }
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

/// The `reason` of the `aborted` event of a close the client chose (a cancellation over
/// modern Streamable HTTP), which a replay repeats; a close at the exchange's bound says
/// "timed out".
pub const CLOSE_REASON: &str = "the client closed the request's stream to cancel it";

/// The `reason` of the `aborted` event of a stream the client dropped in the legacy era,
/// where a close is no cancellation (C6: the server should go on, and the client may resume
/// the stream with `Last-Event-ID`).
pub const DROP_REASON: &str = "the client dropped the request's stream (no cancellation)";

/// The `reason` of an exchange the client gave up on at its bound.
const TIMED_OUT: &str = "timed out";

/// An exchange in flight: its socket (on the bare HTTP/1.1 path, so that it can be shut
/// down), and whether the client closed it (after which nothing of it is recorded).
#[derive(Default)]
struct Open {
    stream: Option<TcpStream>,
    closed: bool,
}

/// The exchanges in flight, by number. Every event of an exchange is sent under this lock,
/// so an `aborted` sent by a close comes after all that was sent before it and before none
/// that follows.
type Exchanges = Arc<Mutex<HashMap<u64, Open>>>;

/// A session of a Streamable HTTP server.
struct HttpConn {
    http: Http,
    /// The URL, when it is `http://`: exchanges go through [`wire`] (each can be closed).
    wire: Option<Endpoint>,
    timeout: Duration,
    sender: Sender<Incoming>,
    incoming: Receiver<Incoming>,
    next_exchange: u64,
    /// The session id the server gave, and the negotiated version (legacy).
    session: Arc<Mutex<Option<String>>>,
    version: Arc<Mutex<Option<String>>>,
    open: Exchanges,
    /// The server's process, when the tester started it for this run.
    server: Option<Served>,
}

impl HttpConn {
    fn new(url: &str, timeout: Duration) -> Result<HttpConn, ClientError> {
        let (sender, incoming) = mpsc::channel();
        Ok(HttpConn {
            http: Http::new(url)?,
            wire: Endpoint::parse(url),
            timeout,
            sender,
            incoming,
            next_exchange: 0,
            session: Arc::default(),
            version: Arc::default(),
            open: Arc::default(),
            server: None,
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

    fn shared(&self) -> Shared {
        Shared {
            http: self.http.clone(),
            wire: self.wire.clone(),
            sender: self.sender.clone(),
            session: self.session.clone(),
            version: self.version.clone(),
            open: self.open.clone(),
        }
    }

    /// POSTs one client message (with the `extra` headers after the transport's): written
    /// before this returns (on the bare path), so that a close right after finds the request
    /// sent; the response is read on a thread of its own. The exchange's fields.
    fn post(
        &mut self,
        raw: &[u8],
        extra: &[(String, String)],
        timeout: Duration,
    ) -> Option<Map<String, Value>> {
        let k = self.next_exchange;
        self.next_exchange += 1;
        let mut headers = self.headers(raw);
        headers.extend_from_slice(extra);
        let shared = self.shared();
        let deadline = Instant::now() + timeout;
        if let Some(begun) = begin(&shared, k, "POST", raw, &headers, deadline) {
            let reader = Reader {
                shared,
                k,
                method: "POST",
                headers,
                deadline,
            };
            reader.start(begun, self.shared());
        }
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
        out.push(("mcp-name".into(), encode_header_value(name)));
    }
    out
}

/// What reads one exchange's answer, on a thread of its own.
struct Reader {
    shared: Shared,
    k: u64,
    method: &'static str,
    headers: Vec<(String, String)>,
    deadline: Instant,
}

impl Reader {
    /// Reads the answer begun as `begun` on a new thread. When the system starts no thread
    /// (too many, no address space left), the exchange fails with that reason through
    /// `also` (the same connection's): the tester's environment, said as such, not a server
    /// that never answered, and no panic.
    fn start(self, begun: Begun, also: Shared) {
        let k = self.k;
        let spawned = std::thread::Builder::new().spawn(move || {
            let r = self;
            finish(&r.shared, r.k, r.method, begun, &r.headers, r.deadline);
        });
        if let Err(e) = spawned {
            failed(
                &also,
                k,
                &format!("cannot start a thread to read the answer: {e}"),
            );
        }
    }
}

/// What a thread of one exchange shares with the connection.
struct Shared {
    http: Http,
    wire: Option<Endpoint>,
    sender: Sender<Incoming>,
    session: Arc<Mutex<Option<String>>>,
    version: Arc<Mutex<Option<String>>>,
    open: Exchanges,
}

impl Shared {
    /// Sends what exchange `k` brought, unless the client closed it: what the server sent
    /// after the close never reached the client.
    fn emit(&self, k: u64, incoming: Incoming) {
        let Ok(open) = self.open.lock() else {
            return;
        };
        if !open.get(&k).is_some_and(|o| o.closed) {
            let _ = self.sender.send(incoming);
        }
    }

    /// Exchange `k` is over: a close now has nothing to close.
    fn done(&self, k: u64) {
        if let Ok(mut open) = self.open.lock() {
            open.remove(&k);
        }
    }
}

impl Conn for HttpConn {
    fn send(&mut self, raw: &[u8]) -> Option<Map<String, Value>> {
        self.send_within(raw, self.exchange_bound())
    }

    fn send_within(&mut self, raw: &[u8], timeout: Duration) -> Option<Map<String, Value>> {
        self.post(raw, &[], timeout)
    }

    fn send_headed(
        &mut self,
        raw: &[u8],
        extra: &[(String, String)],
    ) -> Option<Map<String, Value>> {
        self.post(raw, extra, self.exchange_bound())
    }

    /// Shuts the exchange's connection down (which also wakes its reader) and records the
    /// `aborted` event then, under the lock every event of the exchange is sent under.
    fn abort(&mut self, k: u64, reason: &str) -> bool {
        let Ok(mut open) = self.open.lock() else {
            return false;
        };
        let Some(entry) = open.get_mut(&k).filter(|o| !o.closed) else {
            return false;
        };
        let Some(stream) = &entry.stream else {
            // An https exchange: reqwest's connection cannot be closed alone.
            return false;
        };
        entry.closed = true;
        let _ = stream.shutdown(Shutdown::Both);
        let _ = self.sender.send(aborted(k, reason, true));
        true
    }

    /// A GET of the session's stream from `last` on, read on a thread of its own as a POST's
    /// response is.
    fn resume(&mut self, last: &str) -> Option<Map<String, Value>> {
        let k = self.next_exchange;
        self.next_exchange += 1;
        let mut headers = vec![("accept".to_string(), "text/event-stream".to_string())];
        headers.push(("last-event-id".into(), last.to_string()));
        if let Some(session) = self.session.lock().ok().and_then(|s| s.clone()) {
            headers.push(("mcp-session-id".into(), session));
        }
        if let Some(version) = self.version.lock().ok().and_then(|v| v.clone()) {
            headers.push(("mcp-protocol-version".into(), version));
        }
        let shared = self.shared();
        let deadline = Instant::now() + self.exchange_bound();
        if let Some(begun) = begin(&shared, k, "GET", &[], &headers, deadline) {
            let reader = Reader {
                shared,
                k,
                method: "GET",
                headers,
                deadline,
            };
            reader.start(begun, self.shared());
        }
        Some(self.exchange_fields(k))
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
        let shared = self.shared();
        let mut headers = vec![("mcp-session-id".to_string(), session)];
        if let Some(version) = self.version.lock().ok().and_then(|v| v.clone()) {
            headers.push(("mcp-protocol-version".into(), version));
        }
        let deadline = Instant::now() + self.timeout;
        if let Some(begun) = begin(&shared, k, "DELETE", &[], &headers, deadline) {
            finish(&shared, k, "DELETE", begun, &headers, deadline);
        }
    }

    /// Stops the server the tester started for this run (nothing to do for one the user
    /// runs): it does not end when its client is done, so it gets SIGTERM at once.
    fn finish(&mut self, grace: Duration) -> Option<Ending> {
        let stopped = self.server.as_mut()?.stop(grace);
        Some(Ending::of(stopped.status, stopped.killed))
    }

    fn stderr(&self) -> Vec<String> {
        self.server.as_ref().map(Served::tail).unwrap_or_default()
    }
}

/// An `aborted` event of exchange `k`; `by_client`: the client closed it.
fn aborted(k: u64, reason: &str, by_client: bool) -> Incoming {
    let mut fields = Map::from_iter([
        ("side".into(), json!("server")),
        ("reason".into(), json!(reason)),
        ("exchange".into(), json!(k)),
    ]);
    if by_client {
        // As `agentpi monitor --listen` records a client's close: in the modern era the
        // request's cancellation.
        fields.insert("closed_by".into(), json!("client"));
    }
    Incoming::Event {
        kind: "aborted".into(),
        at: Instant::now(),
        fields,
    }
}

/// A request sent, its response still to read.
enum Begun {
    /// On the bare path: the connection, the request written.
    Wire(TcpStream),
    /// Through reqwest (https), which sends and reads in one call: the body to send.
    Reqwest(Vec<u8>),
}

/// Starts exchange `k`: on the bare path connects and writes the request, and registers the
/// exchange so that it can be closed; a failure is recorded (and then `None`).
fn begin(
    shared: &Shared,
    k: u64,
    method: &str,
    body: &[u8],
    headers: &[(String, String)],
    deadline: Instant,
) -> Option<Begun> {
    let Some(endpoint) = &shared.wire else {
        return Some(Begun::Reqwest(body.to_vec()));
    };
    match wire::send(endpoint, method, body, headers, deadline) {
        Ok(stream) => {
            let open = Open {
                stream: stream.try_clone().ok(),
                closed: false,
            };
            if let Ok(mut exchanges) = shared.open.lock() {
                exchanges.insert(k, open);
            }
            Some(Begun::Wire(stream))
        }
        Err(e) => {
            failed(shared, k, &io_reason(endpoint, &e));
            None
        }
    }
}

/// What an I/O error of the bare path says, a timeout as reqwest's does.
fn io_reason(endpoint: &Endpoint, e: &std::io::Error) -> String {
    match e.kind() {
        std::io::ErrorKind::TimedOut => TIMED_OUT.to_string(),
        _ => format!("HTTP {}: {e}", endpoint.authority),
    }
}

/// An exchange that failed: an `aborted` event; past its bound the client gave up on it
/// (closed it), otherwise the server cannot be reached and the connection ends.
fn failed(shared: &Shared, k: u64, reason: &str) {
    let gave_up = reason == TIMED_OUT;
    shared.emit(k, aborted(k, reason, gave_up));
    if !gave_up {
        shared.emit(k, Incoming::Closed);
    }
}

/// Reads exchange `k`'s response: its head as an `http` event, then each message of its body
/// (a JSON body, or each SSE event's data); a failure as an `aborted` event.
fn finish(
    shared: &Shared,
    k: u64,
    method: &str,
    begun: Begun,
    headers: &[(String, String)],
    deadline: Instant,
) {
    let reply = match begun {
        Begun::Wire(stream) => {
            let endpoint = shared.wire.as_ref();
            wire::receive(stream, deadline).map_err(|e| match endpoint {
                Some(endpoint) => io_reason(endpoint, &e),
                None => e.to_string(),
            })
        }
        Begun::Reqwest(body) => {
            let timeout = deadline.saturating_duration_since(Instant::now());
            match shared.http.raw(method, &body, headers, timeout) {
                Ok(reply) => Ok(Reply {
                    status: reply.status,
                    headers: reply.headers,
                    body: Box::new(reply.body),
                }),
                Err(e) => Err(e.to_string()),
            }
        }
    };
    match reply {
        Ok(reply) => {
            head(shared, k, method, &reply, headers);
            read_body(shared, k, reply);
        }
        Err(reason) => failed(shared, k, &reason),
    }
    shared.done(k);
}

/// Each message of a response body; a body the client gave up on (its bound passed) ends
/// with the client's close.
fn read_body(shared: &Shared, k: u64, reply: Reply) {
    let sse =
        header(&reply.headers, "content-type").is_some_and(|t| t.starts_with("text/event-stream"));
    let mut body = reply.body;
    let ended = if sse {
        events(shared, k, &mut body)
    } else {
        let mut bytes = Vec::new();
        let read = body.read_to_end(&mut bytes);
        // An error status may come with any body: only JSON there is a message (the spec
        // allows a JSON-RPC error; uvicorn's 403 says "Invalid Origin header" in plain text).
        let text = reply.status >= 400 && serde_json::from_slice::<Value>(&bytes).is_err();
        if read.is_ok() && !text && !bytes.iter().all(u8::is_ascii_whitespace) {
            message(shared, k, bytes, Map::new());
        }
        read.map(|_| ())
    };
    if ended.is_err_and(|e| e.kind() == std::io::ErrorKind::TimedOut) {
        shared.emit(k, aborted(k, TIMED_OUT, true));
    }
}

/// Each SSE event's data, as a message; how the stream ended.
fn events(shared: &Shared, k: u64, body: &mut impl BufRead) -> std::io::Result<()> {
    while let Some((id, data)) = http::next_event(body)? {
        if data.trim().is_empty() {
            // An event with an id and no data primes the stream (for resumption).
            continue;
        }
        let mut fields = Map::new();
        if let Some(id) = id {
            fields.insert("sse_id".into(), json!(id));
        }
        message(shared, k, data.into_bytes(), fields);
    }
    Ok(())
}

fn header<'a>(headers: &'a [(String, String)], name: &str) -> Option<&'a str> {
    headers
        .iter()
        .find(|(k, _)| k.eq_ignore_ascii_case(name))
        .map(|(_, v)| v.as_str())
}

/// The `http` event of a response head; a successful one's session id is kept.
fn head(shared: &Shared, k: u64, method: &str, reply: &Reply, sent: &[(String, String)]) {
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
        ("request_headers".into(), pairs(sent)),
        ("exchange".into(), json!(k)),
    ]);
    shared.emit(
        k,
        Incoming::Event {
            kind: "http".into(),
            at: Instant::now(),
            fields,
        },
    );
}

/// A server message of exchange `k`; an initialize result's version is the one later
/// requests name.
fn message(shared: &Shared, k: u64, raw: Vec<u8>, extra: Map<String, Value>) {
    let parsed: Option<Value> = serde_json::from_slice(&raw).ok();
    let version = parsed
        .as_ref()
        .and_then(|m| m.pointer("/result/protocolVersion"))
        .and_then(Value::as_str);
    if let (Some(v), Ok(mut negotiated)) = (version, shared.version.lock()) {
        *negotiated = Some(v.to_string());
    }
    let mut fields = Map::from_iter([("exchange".into(), json!(k))]);
    fields.extend(extra);
    shared.emit(
        k,
        Incoming::Message {
            raw,
            at: Instant::now(),
            fields,
        },
    );
}

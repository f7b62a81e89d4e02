//! One server of a run: its connection (`agentpi test`'s, stdio or Streamable HTTP), the
//! handshake and tool listing of `agentpi_mcp::client` spoken over it, the calls, their
//! cancellation, and every message recorded in the trace format of `agentpi monitor` as it
//! crosses and fed to the monitor's `Session`, so the run's own traffic is held to the
//! protocol as any client's is.

use agentpi_mcp::client::{self, Listing};
use agentpi_mcp::jsonrpc::{self, MODERN_VERSION};
use agentpi_mcp::lint::Era;
use agentpi_mcp::transport::{ClientError, Transport};
use agentpi_monitor::{Dir, Event, Report, Session};
use agentpi_tester::Target;
use agentpi_tester::conn::{Conn, Incoming};
use serde_json::{Map, Value, json};
use std::collections::BTreeMap;
use std::io::Write;
use std::time::{Duration, Instant};

/// What a server said that the run waits for.
#[derive(Clone, Debug, PartialEq)]
pub enum Heard {
    /// The response (the whole message) to request `id`.
    Answer(u64, Value),
    /// The server closed its output, exited, or cannot be reached any more.
    Closed,
}

/// A server of the run.
pub struct Peer {
    pub name: String,
    conn: Box<dyn Conn>,
    /// When the run started: trace times count from it.
    start: Instant,
    session: Session,
    record: Option<std::fs::File>,
    pub era: Option<Era>,
    next_id: u64,
    pub closed: bool,
    http: bool,
    /// Over HTTP, the request each exchange carried: an error with a null id answers it.
    exchanges: BTreeMap<u64, u64>,
}

impl Peer {
    /// Starts (or reaches) the server; the trace, when `record` is given, opens with `spawn`.
    /// `exchange` bounds one HTTP exchange.
    pub fn start(
        name: &str,
        target: &Target,
        start: Instant,
        record: Option<&std::path::Path>,
        exchange: Duration,
    ) -> Result<Peer, String> {
        let record = match record {
            Some(path) => Some(
                std::fs::File::create(path)
                    .map_err(|e| format!("cannot write {}: {e}", path.display()))?,
            ),
            None => None,
        };
        let conn = target
            .connect(exchange)
            .map_err(|e| format!("server `{name}`: {e}"))?;
        let mut peer = Peer {
            name: name.to_string(),
            conn,
            start,
            session: Session::new(),
            record,
            era: None,
            next_id: 1,
            closed: false,
            http: target.is_http(),
            exchanges: BTreeMap::new(),
        };
        peer.note(Event::process(
            peer.seconds(Instant::now()),
            "spawn",
            target.spawn_fields(),
        ));
        Ok(peer)
    }

    fn seconds(&self, at: Instant) -> f64 {
        at.saturating_duration_since(self.start).as_secs_f64()
    }

    /// Records an event in the trace and feeds it to the monitor.
    fn note(&mut self, event: Event) {
        if let Some(file) = self.record.as_mut() {
            // A trace that cannot be written any more is given up, not the run.
            if writeln!(file, "{}", event.to_line())
                .and_then(|()| file.flush())
                .is_err()
            {
                self.record = None;
            }
        }
        self.session.feed(&event);
    }

    /// Connects in whichever era the server speaks and lists its tools (`timeout` bounds it).
    /// The era probe may take half of it: a server just started may be slow to answer, and
    /// taking a slow modern server for a legacy one makes a handshake the monitor rejects.
    pub fn list(&mut self, timeout: Duration) -> Result<Listing, String> {
        let listing = client::list_tools_probing(&mut Wire { peer: self }, timeout, timeout / 2)
            .map_err(|e| describe(&self.name, &e, &self.conn.stderr()))?;
        self.era = Some(listing.era);
        Ok(listing)
    }

    /// Sends a message; false when the server is gone.
    fn send(&mut self, message: &Value) -> bool {
        self.send_within(message, None)
    }

    /// Sends a message whose request is given up after `within` (see `Conn::send_within`).
    fn send_within(&mut self, message: &Value, within: Option<Duration>) -> bool {
        if self.closed {
            return false;
        }
        let raw = message.to_string();
        let now = Instant::now();
        let sent = match within {
            Some(within) => self.conn.send_within(raw.as_bytes(), within),
            None => self.conn.send(raw.as_bytes()),
        };
        let Some(fields) = sent else {
            return false;
        };
        if let (Some(k), Some(id)) = (
            fields.get("exchange").and_then(Value::as_u64),
            message.get("id").and_then(Value::as_u64),
        ) {
            self.exchanges.insert(k, id);
        }
        let mut event = Event::message(self.seconds(now), Dir::C2s, raw.as_bytes());
        event.fields = fields;
        self.note(event);
        true
    }

    /// Calls `tool`, to be given up after `within`; the request id, or `None` when the server
    /// is gone.
    pub fn call(&mut self, tool: &str, arguments: &Value, within: Option<Duration>) -> Option<u64> {
        let id = self.next_id;
        self.next_id += 1;
        let mut params = json!({ "name": tool, "arguments": arguments });
        if self.era == Some(Era::Modern) {
            params["_meta"] = jsonrpc::modern_meta(MODERN_VERSION);
        }
        // A modern client cancels over Streamable HTTP by closing the request's stream: the
        // exchange ends at the deadline.
        let closes = self.closes_to_cancel().then_some(within).flatten();
        self.send_within(&jsonrpc::request(id, "tools/call", params), closes)
            .then_some(id)
    }

    /// Whether a request is cancelled by closing its stream (modern era, Streamable HTTP).
    fn closes_to_cancel(&self) -> bool {
        self.http && self.era == Some(Era::Modern)
    }

    /// Gives up request `id`: `notifications/cancelled`, except in the modern era over
    /// Streamable HTTP, where the notification is forbidden (C5) and the request's stream was
    /// closed at its deadline instead. Whether the request was cancelled.
    pub fn cancel(&mut self, id: u64, reason: &str) -> bool {
        if self.closes_to_cancel() {
            return true;
        }
        let mut params = json!({ "requestId": id, "reason": reason });
        if self.era == Some(Era::Modern) {
            params["_meta"] = jsonrpc::modern_meta(MODERN_VERSION);
        }
        self.send(&jsonrpc::notification("notifications/cancelled", params))
    }

    /// What the server sends within `wait` (and everything already waiting after that).
    pub fn poll(&mut self, wait: Duration) -> Vec<Heard> {
        let mut heard = Vec::new();
        let mut wait = wait;
        while !self.closed {
            match self.conn.recv(wait) {
                Incoming::Quiet => break,
                Incoming::Closed => {
                    self.gone();
                    heard.push(Heard::Closed);
                }
                Incoming::Message { raw, at, fields } => {
                    let exchange = fields.get("exchange").and_then(Value::as_u64);
                    let mut event = Event::message(self.seconds(at), Dir::S2c, &raw);
                    event.fields = fields;
                    self.note(event);
                    heard.extend(self.react(&raw, exchange));
                }
                Incoming::Event { kind, at, fields } => {
                    let event = Event::process(self.seconds(at), &kind, fields);
                    self.note(event);
                }
            }
            wait = Duration::ZERO;
        }
        heard
    }

    fn gone(&mut self) {
        self.closed = true;
        let side = Map::from_iter([("side".into(), json!("server"))]);
        self.note(Event::process(self.seconds(Instant::now()), "eof", side));
    }

    /// A response for the run; a server request is answered as a client that declared no
    /// capability answers (a ping with an empty result).
    fn react(&mut self, raw: &[u8], exchange: Option<u64>) -> Option<Heard> {
        let message: Value = serde_json::from_slice(raw).ok()?;
        let id = message.get("id").filter(|id| !id.is_null());
        let method = message.get("method").and_then(Value::as_str);
        match (method, id) {
            (None, Some(id)) => Some(Heard::Answer(id.as_u64()?, message.clone())),
            (None, None) if message.get("error").is_some() => {
                let id = self.exchanges.get(&exchange?)?;
                Some(Heard::Answer(*id, message.clone()))
            }
            (Some(method), Some(id)) => {
                let reply = match method {
                    "ping" => json!({"jsonrpc": "2.0", "id": id, "result": {}}),
                    _ => json!({"jsonrpc": "2.0", "id": id, "error": {"code": -32601,
                        "message": format!("agentpi run does not serve `{method}`")}}),
                };
                self.send(&reply);
                None
            }
            _ => None,
        }
    }

    /// Ends the session: closes the server's input, gives it `grace` to exit (then ends it),
    /// and returns the monitor's report.
    pub fn finish(mut self, grace: Duration) -> Report {
        let side = Map::from_iter([("side".into(), json!("client"))]);
        self.note(Event::process(self.seconds(Instant::now()), "eof", side));
        self.conn.close_input();
        let until = Instant::now() + grace;
        if self.http {
            // No process to watch; what the exchanges still report (a stream closed at a
            // deadline, the answer to the session's end) comes within moments.
            self.poll(Duration::from_millis(200));
        }
        while !self.http && !self.closed && Instant::now() < until {
            self.poll(Duration::from_millis(20));
        }
        let left = until.saturating_duration_since(Instant::now());
        if let Some(ending) = self.conn.finish(left) {
            let mut fields = ending.fields;
            if ending.killed {
                fields.insert("killed".into(), json!(true));
            }
            self.note(Event::process(self.seconds(Instant::now()), "exit", fields));
        }
        self.session.finish()
    }

    /// The server's last stderr lines.
    pub fn stderr(&self) -> Vec<String> {
        self.conn.stderr()
    }
}

/// Why a server could not be listed, with its last stderr lines.
fn describe(name: &str, error: &ClientError, stderr: &[String]) -> String {
    let mut out = format!("server `{name}`: {error}");
    for line in stderr.iter().rev().take(5).rev() {
        out.push_str(&format!("\n  | {line}"));
    }
    out
}

/// The client of `agentpi_mcp` (era detection, handshake, pagination) speaking through a
/// peer, so the handshake is recorded and checked like the rest.
struct Wire<'p> {
    peer: &'p mut Peer,
}

impl Transport for Wire<'_> {
    fn request(
        &mut self,
        id: u64,
        method: &str,
        params: Value,
        timeout: Duration,
    ) -> Result<Value, ClientError> {
        self.peer.next_id = self.peer.next_id.max(id + 1);
        let exited = |peer: &Peer| ClientError::Exited {
            method: method.into(),
            status: "closed its output".into(),
            stderr: peer.stderr(),
        };
        if !self.peer.send(&jsonrpc::request(id, method, params)) {
            return Err(exited(self.peer));
        }
        let deadline = Instant::now() + timeout;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return Err(ClientError::Timeout {
                    method: method.into(),
                    id,
                    timeout,
                    stderr: self.peer.stderr(),
                    unanswered: Vec::new(),
                });
            }
            for heard in self.peer.poll(left.min(Duration::from_millis(50))) {
                match heard {
                    Heard::Answer(got, message) if got == id => return Ok(message),
                    Heard::Closed => return Err(exited(self.peer)),
                    Heard::Answer(..) => {}
                }
            }
        }
    }

    fn notify(&mut self, method: &str, params: Value) -> Result<(), ClientError> {
        self.peer.send(&jsonrpc::notification(method, params));
        Ok(())
    }
}

//! One run: a fresh server, the client's messages sent one at a time, every server message
//! recorded as it arrives and fed to the monitor's `Session` (the same checks as `agentpi
//! monitor`), server requests answered, deadlines kept. Both the model-guided walk
//! (`walk`) and the replay of a recorded run (`script`) drive a `Run`.

use crate::conn::{CLOSE_REASON, Conn, DROP_REASON, Incoming, Target};
use crate::judge;
use agentpi_mcp::transport::ClientError;
use agentpi_monitor::{Dir, Event, Report, Session, Violation};
use serde_json::{Map, Value, json};
use std::collections::BTreeMap;
use std::time::{Duration, Instant};

/// The HTTP exchange of the last event recorded.
fn event_exchange(events: &[Event]) -> Option<u64> {
    events.last().and_then(Event::exchange)
}

/// The times a run keeps.
#[derive(Clone, Debug, PartialEq)]
pub struct Limits {
    /// How long a request may go unanswered (then the client gives up and cancels it).
    pub timeout: Duration,
    /// How long a call of each of these tools may go unanswered instead (`--timeout
    /// TOOL=SECONDS`: a tool that long-polls by design).
    pub tools: BTreeMap<String, Duration>,
    /// How soon a `ping` must be answered (L13's "promptly").
    pub promptly: Duration,
    /// How long after a cancellation the client watches for a late response (C3, C4).
    pub late: Duration,
    /// How long the server has to exit once its input is closed (S5's "soon").
    pub exit: Duration,
}

impl Limits {
    pub fn new(timeout: Duration, exit: Duration) -> Limits {
        Limits {
            timeout,
            tools: BTreeMap::new(),
            promptly: timeout.min(Duration::from_secs(5)),
            late: Duration::from_millis(1200),
            exit,
        }
    }

    /// How long a call of `tool` may go unanswered.
    pub fn for_tool(&self, tool: Option<&str>) -> Duration {
        tool.and_then(|t| self.tools.get(t))
            .copied()
            .unwrap_or(self.timeout)
    }

    /// The longest any request may go unanswered (an HTTP exchange's bound).
    pub fn longest(&self) -> Duration {
        self.tools
            .values()
            .copied()
            .fold(self.timeout, Duration::max)
    }

    /// The limits as the `test` event of a trace carries them, for the judgments.
    pub fn fields(&self) -> Map<String, Value> {
        let mut fields = Map::from_iter([
            ("timeout".into(), json!(self.timeout.as_secs_f64())),
            ("promptly".into(), json!(self.promptly.as_secs_f64())),
            ("late".into(), json!(self.late.as_secs_f64())),
            ("exit_grace".into(), json!(self.exit.as_secs_f64())),
        ]);
        if !self.tools.is_empty() {
            let tools = self
                .tools
                .iter()
                .map(|(t, d)| (t.clone(), json!(d.as_secs_f64())));
            fields.insert("tool_timeouts".into(), Value::Object(tools.collect()));
        }
        fields
    }
}

/// A request the client sent, and what became of it.
#[derive(Clone, Debug)]
pub struct Sent {
    pub method: String,
    pub at: Instant,
    /// The response (result or error message), once it came.
    pub answer: Option<Value>,
    pub cancelled: bool,
    /// Progress notifications for its token.
    pub progress: usize,
    /// For a `subscriptions/listen`: its acknowledgement came (M13: the stream's first message).
    pub acknowledged: bool,
    pub token: Option<Value>,
    /// The tool of a `tools/call`.
    pub tool: Option<String>,
}

/// A run in progress.
pub struct Run {
    conn: Box<dyn Conn>,
    start: Instant,
    pub events: Vec<Event>,
    session: Session,
    /// The client's requests, by id as JSON text.
    pub requests: BTreeMap<String, Sent>,
    pub limits: Limits,
    /// The server closed its output.
    pub closed: bool,
    last_cancel: Option<Instant>,
    /// The client declared roots: a `roots/list` is answered with none. (Sampling and
    /// elicitation are declared in every session of either era.)
    pub roots: bool,
    /// Stop at the first finding against the client's own messages (a shrinking try that
    /// left out what a later message needs is rejected at once, not run to its end).
    pub stop_on_client_fault: bool,
    /// A finding against the client came while `stop_on_client_fault` was set.
    pub faulted: bool,
    /// The server is reached over Streamable HTTP.
    http: bool,
    /// Over HTTP, the request (id as JSON text) each exchange carried: an error with a null
    /// id in an exchange's body answers that exchange's request.
    exchanges: BTreeMap<u64, String>,
}

impl Run {
    /// Starts the server; the trace opens with a `test` event (seed, run, limits) and the
    /// `spawn` event.
    pub fn start(
        target: &Target,
        header: Map<String, Value>,
        limits: Limits,
    ) -> Result<Run, ClientError> {
        let conn = target.connect(limits.longest())?;
        let start = Instant::now();
        let mut run = Run {
            conn,
            start,
            events: Vec::new(),
            session: Session::new(),
            requests: BTreeMap::new(),
            limits,
            closed: false,
            last_cancel: None,
            roots: false,
            stop_on_client_fault: false,
            faulted: false,
            http: target.is_http(),
            exchanges: BTreeMap::new(),
        };
        let mut fields = header;
        fields.extend(run.limits.fields());
        run.record(Event::process(0.0, "test", fields));
        run.record(Event::process(0.0, "spawn", target.spawn_fields()));
        Ok(run)
    }

    fn seconds(&self, at: Instant) -> f64 {
        at.saturating_duration_since(self.start).as_secs_f64()
    }

    fn record(&mut self, event: Event) {
        let found = self.session.feed(&event);
        if self.stop_on_client_fault {
            let fault = |v: &Violation| {
                v.dir == Dir::C2s
                    && !self
                        .events
                        .get(v.index)
                        .or(Some(&event))
                        .is_some_and(|e| judge::deliberate(v, e))
            };
            self.faulted |= found.iter().any(fault);
        }
        self.events.push(event);
    }

    /// What the model lets the client send now (`Session::allowed`).
    pub fn allowed(&self) -> Vec<String> {
        self.session.allowed(Dir::C2s)
    }

    pub fn era(&self) -> agentpi_monitor::session::Era {
        self.session.era()
    }

    /// Sends one client message as it is (after taking in what already arrived, so that the
    /// trace keeps the order in which things crossed).
    pub fn send(&mut self, raw: &[u8]) {
        self.send_from(raw, None);
    }

    /// [`Run::send`], with `origin` as the message's `Origin` header over HTTP (the H7
    /// probe); the trace line carries it as `origin`, so that a replay sends it again.
    pub fn send_from(&mut self, raw: &[u8], origin: Option<&str>) {
        self.take(Duration::ZERO);
        if self.closed {
            // Nothing reaches a server that is gone: the trace holds only what crossed.
            return;
        }
        let now = Instant::now();
        let parsed: Option<Value> = serde_json::from_slice(raw).ok();
        if let Some(message) = &parsed {
            self.note_sent(message, now);
        }
        let mut extra = match self.http {
            true => self.session.param_headers(raw),
            false => Vec::new(),
        };
        extra.extend(origin.map(|o| ("origin".to_string(), o.to_string())));
        let fields = self.conn.send_headed(raw, &extra);
        let exchange = fields
            .as_ref()
            .and_then(|f| f.get("exchange"))
            .and_then(Value::as_u64);
        if let (Some(k), Some(id)) = (exchange, parsed.as_ref().and_then(|m| m.get("id"))) {
            self.exchanges.insert(k, id.to_string());
        }
        let mut event = Event::message(self.seconds(now), Dir::C2s, raw);
        event.fields = fields.unwrap_or_default();
        if let Some(origin) = origin {
            event.fields.insert("origin".into(), json!(origin));
        }
        self.record(event);
    }

    /// Closes the HTTP stream of request `id` while it is open: over modern Streamable
    /// HTTP the request's cancellation (C5). The `aborted` event that records it is taken in
    /// at once, after all the exchange brought before it. Whether there was a stream to close
    /// (not once its response ended, nor over stdio).
    pub fn close(&mut self, id: &Value) -> bool {
        self.take(Duration::ZERO);
        let key = id.to_string();
        let Some(k) = self.exchange_of(&key) else {
            return false;
        };
        // In the legacy era a close is no cancellation (C6): the request stays awaited, its
        // answer may come on a resumed stream.
        let legacy = self.era() == agentpi_monitor::session::Era::Legacy;
        let reason = if legacy { DROP_REASON } else { CLOSE_REASON };
        if self.closed || !self.conn.abort(k, reason) {
            return false;
        }
        // Not watched for a late answer (`last_cancel`): nothing the server writes to a
        // closed stream reaches the client.
        if let Some(sent) = self.requests.get_mut(&key).filter(|_| !legacy) {
            sent.cancelled = true;
        }
        self.take(Duration::ZERO);
        true
    }

    /// Resumes the dropped stream of request `id` (legacy Streamable HTTP): a GET with the
    /// id of the last SSE event that stream brought. Whether there was one (a server that
    /// gives its events no ids cannot be resumed: then the answer cannot reach the client,
    /// and the request is no longer awaited).
    pub fn resume(&mut self, id: &Value) -> bool {
        self.take(Duration::ZERO);
        let key = id.to_string();
        let Some(k) = self.exchange_of(&key) else {
            return false;
        };
        let last = self.events.iter().rev().find_map(|e| {
            let sse = e.fields.get("sse_id").and_then(Value::as_str);
            sse.filter(|_| e.dir == Dir::S2c && e.exchange() == Some(k))
        });
        let resumed = match last.map(String::from) {
            Some(last) if !self.closed => self.conn.resume(&last).is_some(),
            _ => false,
        };
        if !resumed && let Some(sent) = self.requests.get_mut(&key) {
            sent.cancelled = true;
        }
        self.take(Duration::ZERO);
        resumed
    }

    /// The HTTP exchange that carried request `key` (its id as JSON text).
    fn exchange_of(&self, key: &str) -> Option<u64> {
        let exchange = self.exchanges.iter().find(|(_, r)| *r == key);
        exchange.map(|(k, _)| *k)
    }

    fn note_sent(&mut self, message: &Value, now: Instant) {
        let method = message.get("method").and_then(Value::as_str);
        // Only a well-formed request waits for an answer (a malformed probe is judged apart).
        let id = message
            .get("id")
            .filter(|id| id.is_string() || id.is_i64() || id.is_u64())
            .filter(|_| message.get("jsonrpc") == Some(&Value::from("2.0")));
        match (method, id) {
            (Some(method), Some(id)) => {
                let token = message.pointer("/params/_meta/progressToken").cloned();
                let tool = message.pointer("/params/name").and_then(Value::as_str);
                let sent = Sent {
                    tool: tool.filter(|_| method == "tools/call").map(String::from),
                    method: method.to_string(),
                    at: now,
                    answer: None,
                    cancelled: false,
                    progress: 0,
                    acknowledged: false,
                    token,
                };
                self.requests.insert(id.to_string(), sent);
            }
            (Some("notifications/cancelled"), None) => {
                let of = message.pointer("/params/requestId").map(Value::to_string);
                if let Some(sent) = of.and_then(|k| self.requests.get_mut(&k)) {
                    sent.cancelled = true;
                }
                self.last_cancel = Some(now);
            }
            _ => {}
        }
    }

    /// Takes in what the server sends for up to `wait`; stops early once it closed.
    fn take(&mut self, wait: Duration) {
        let deadline = Instant::now() + wait;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.conn.recv(left) {
                Incoming::Quiet => return,
                Incoming::Closed => {
                    self.server_closed();
                    return;
                }
                incoming => self.incoming(incoming),
            }
        }
    }

    fn server_closed(&mut self) {
        if !self.closed {
            self.closed = true;
            let t = self.seconds(Instant::now());
            let side = Map::from_iter([("side".into(), json!("server"))]);
            self.record(Event::process(t, "eof", side));
        }
    }

    fn incoming(&mut self, incoming: Incoming) {
        match incoming {
            Incoming::Message { raw, at, fields } => {
                let mut event = Event::message(self.seconds(at), Dir::S2c, &raw);
                event.fields = fields;
                self.record(event);
                if let Ok(message) = serde_json::from_slice::<Value>(&raw) {
                    let exchange = event_exchange(&self.events);
                    self.react(&message, exchange);
                }
            }
            Incoming::Event { kind, at, fields } => {
                self.refused(&fields);
                let event = Event::process(self.seconds(at), &kind, fields);
                self.record(event);
            }
            Incoming::Closed | Incoming::Quiet => {}
        }
    }

    /// An exchange refused at the HTTP level (a status of 400 or more): its request has had
    /// its answer, the status, and no JSON-RPC message need follow (a 403 to a foreign
    /// `Origin`; a 400 to a request sent before the session id was known, during
    /// `initialize`). A JSON-RPC answer that does follow replaces it.
    fn refused(&mut self, fields: &Map<String, Value>) {
        let status = fields.get("status").and_then(Value::as_u64);
        let k = fields.get("exchange").and_then(Value::as_u64);
        let (Some(status), Some(k)) = (status, k) else {
            return;
        };
        if status < 400 {
            return;
        }
        let key = self.exchanges.get(&k);
        if let Some(sent) = key.and_then(|key| self.requests.get_mut(key))
            && sent.answer.is_none()
        {
            sent.answer = Some(json!({"http_status": status}));
        }
    }

    /// Notes a response or progress; answers a server request as a client that declared
    /// sampling and elicitation (and roots, when it did) would.
    fn react(&mut self, message: &Value, exchange: Option<u64>) {
        let id = message.get("id").filter(|id| !id.is_null());
        let method = message.get("method").and_then(Value::as_str);
        // Over HTTP an error whose id is null answers the request of its exchange.
        let key = match (id, exchange, message.get("error")) {
            (Some(id), _, _) => Some(id.to_string()),
            (None, Some(k), Some(_)) if method.is_none() => self.exchanges.get(&k).cloned(),
            _ => None,
        };
        match (method, key) {
            (None, Some(key)) => {
                if let Some(sent) = self.requests.get_mut(&key)
                    && sent
                        .answer
                        .as_ref()
                        .is_none_or(|a| a.get("http_status").is_some())
                {
                    sent.answer = Some(message.clone());
                }
            }
            (Some(method), Some(_)) => {
                let id = id.cloned().unwrap_or(Value::Null);
                let reply = self.serve(method, &id);
                self.send(reply.to_string().as_bytes());
            }
            (Some("notifications/subscriptions/acknowledged"), None) => {
                let of = message.pointer("/params/_meta/io.modelcontextprotocol~1subscriptionId");
                if let Some(sent) = of.and_then(|id| self.requests.get_mut(&id.to_string())) {
                    sent.acknowledged = true;
                }
            }
            (Some("notifications/progress"), None) => {
                let token = message.pointer("/params/progressToken");
                for sent in self.requests.values_mut() {
                    if sent.token.is_some() && sent.token.as_ref() == token {
                        sent.progress += 1;
                    }
                }
            }
            _ => {}
        }
    }

    fn serve(&self, method: &str, id: &Value) -> Value {
        if method == "ping" {
            return json!({"jsonrpc": "2.0", "id": id, "result": {}});
        }
        match crate::moves::answer_to(method, self.roots) {
            Some(result) => json!({"jsonrpc": "2.0", "id": id, "result": result}),
            None => json!({"jsonrpc": "2.0", "id": id, "error": {"code": -32601,
                "message": format!("agentpi test does not serve `{method}`")}}),
        }
    }

    /// Takes in server messages until `done` holds, `until` passes or the server closed;
    /// whether `done` held.
    pub fn until(&mut self, until: Instant, done: &dyn Fn(&Run) -> bool) -> bool {
        loop {
            if done(self) {
                return true;
            }
            let now = Instant::now();
            if self.closed || now >= until {
                return false;
            }
            let wait = (until - now).min(Duration::from_millis(50));
            match self.conn.recv(wait) {
                Incoming::Quiet => {}
                Incoming::Closed => self.server_closed(),
                incoming => self.incoming(incoming),
            }
        }
    }

    /// Waits for the answer to request `id` until its deadline; past it, records a
    /// `deadline` event and cancels the request, as a client must (L12).
    pub fn await_answer(&mut self, id: &Value) {
        let key = id.to_string();
        let Some(sent) = self.requests.get(&key) else {
            return;
        };
        if sent.cancelled {
            return;
        }
        // "Promptly" bounds a ping (L13); every other request gets the timeout.
        let wait = if sent.method == "ping" {
            self.limits.promptly
        } else {
            self.limits.for_tool(sent.tool.as_deref())
        };
        let deadline = sent.at + wait;
        let method = sent.method.clone();
        let answered = |run: &Run| run.requests.get(&key).is_some_and(|s| s.answer.is_some());
        if self.until(deadline, &answered) || self.closed {
            return;
        }
        let t = self.seconds(Instant::now());
        let fields = Map::from_iter([
            ("id".into(), id.clone()),
            ("method".into(), json!(method)),
            ("after".into(), json!(wait.as_secs_f64())),
        ]);
        self.record(Event::process(t, "deadline", fields));
        let cancel = json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
            "params": {"requestId": id, "reason": "no answer before the deadline"}});
        // A request given up on is not watched for a late answer (only the cancellations
        // the client chose are): a server that ignores a request would cost the watch again.
        // Over modern Streamable HTTP the notification is forbidden (C5): the request's
        // stream is closed instead.
        let watched = self.last_cancel;
        // Nor is `initialize` ever cancelled (L9).
        let closes = self.http && self.era() == agentpi_monitor::session::Era::Modern;
        if closes {
            self.close(id);
        } else if method != "initialize" {
            self.send(cancel.to_string().as_bytes());
        }
        self.last_cancel = watched;
        // Given up: not waited for again (an `initialize`, never cancelled, would otherwise
        // get a second deadline at the run's end).
        if let Some(sent) = self.requests.get_mut(&key) {
            sent.cancelled = true;
        }
    }

    /// Waits for every open request the client did not cancel.
    pub fn await_all(&mut self) {
        let open: Vec<Value> = self
            .requests
            .iter()
            .filter(|(_, s)| s.answer.is_none() && !s.cancelled)
            // A listen is answered only when the server ends it: nothing to wait for.
            .filter(|(_, s)| s.method != "subscriptions/listen")
            .filter_map(|(k, _)| serde_json::from_str(k).ok())
            .collect();
        for id in open {
            self.await_answer(&id);
        }
    }

    /// Takes in what the server sends for `wait`.
    pub fn settle(&mut self, wait: Duration) {
        let until = Instant::now() + wait;
        self.until(until, &|_| false);
    }

    /// Ends the run: waits for open requests, watches cancelled ones for a late answer,
    /// closes the server's input, and waits for it to exit. Returns the trace and the
    /// monitor's report.
    /// `abrupt`: the input is closed at once, with requests in flight (how a client that
    /// quits ends a session).
    pub fn end(mut self, abrupt: bool) -> (Vec<Event>, Report) {
        if !abrupt && !self.faulted {
            self.await_all();
            if let Some(at) = self.last_cancel {
                self.until(at + self.limits.late, &|_| false);
            }
        }
        self.take(Duration::ZERO);
        let t = self.seconds(Instant::now());
        let side = Map::from_iter([("side".into(), json!("client"))]);
        self.record(Event::process(t, "eof", side));
        self.conn.close_input();
        let grace = Instant::now() + self.limits.exit;
        if self.http {
            // An HTTP server does not exit when its session ends: the DELETE's answer is all
            // that comes (a server the tester started is stopped by `finish`).
            self.settle(Duration::from_millis(50));
        } else {
            self.until(grace, &|_| false);
        }
        let left = grace.saturating_duration_since(Instant::now());
        if let Some(ending) = self.conn.finish(left) {
            let mut fields = ending.fields;
            if ending.killed {
                fields.insert("killed".into(), json!(true));
            }
            let t = self.seconds(Instant::now());
            self.record(Event::process(t, "exit", fields));
        }
        let report = self.session.finish();
        (self.events, report)
    }

    /// The server's last stderr lines.
    pub fn stderr(&self) -> Vec<String> {
        self.conn.stderr()
    }
}

//! `--upstream URL`: the server side over Streamable HTTP. Each message the bridge writes to
//! the server is one POST (`post`), with the headers of the server's era: a modern request
//! carries `MCP-Protocol-Version` (its `_meta`'s), `Mcp-Method`, `Mcp-Name` and the
//! `Mcp-Param-*` of its tool's `x-mcp-header` arguments (as the tool listings that crossed
//! declare them); a legacy one the session's `Mcp-Session-Id` and negotiated version. What
//! comes back is handed to the direction's process as a stdio line would be, and recorded
//! on the server's side with its exchange (the `agentpi monitor --listen` trace format).
//!
//! A legacy session the server lost (404 to a message that carried its id) is the model's
//! `lost`: the direction's process is told (`Engine::session_lost`), its copies write the
//! new session's `initialize` and `notifications/initialized` (one for all), and what they
//! send after waits here until the new session is open. A 404 no copy takes (a notification,
//! an answer to a ping) is outside the model: the transport opens the session itself and
//! sends the message again in it.
//!
//! Outside the model, as the transport's own: a modern `notifications/cancelled` is not
//! posted but closes the request's stream (the modern era's cancellation); a request whose
//! response ends without its answer gets an error; an upstream that cannot be reached ends
//! the bridge as a server that exits does.

use crate::engine::Engine;
use crate::input::{Input, Up, id_key};
use crate::notes::Notes;
use crate::post::{self, Job, Wait};
use crate::side::Side;
use crate::to_modern::BRIDGE_ERROR;
use crate::wire::{self, MODERN};
use agentpi_monitor::http::{HeaderArgs, encode_header_value};
use agentpi_monitor::{Dir, Event};
use serde_json::{Map, Value, json};
use std::collections::{HashMap, HashSet};
use std::sync::mpsc::Sender;
use tokio::sync::{mpsc, oneshot};

/// HTTP headers, names lower case.
type Headers = Vec<(String, String)>;

/// The era of the server behind the URL.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Era {
    Modern,
    Legacy,
}

/// One message posted, until its response has ended.
struct Sent {
    raw: Vec<u8>,
    method: String,
    /// The id of a request (as text).
    id: Option<String>,
    request_headers: Vec<(String, String)>,
    /// The legacy session it was sent in.
    session: Option<String>,
    status: Option<u16>,
    answered: bool,
    /// Its stream ended or broke before its answer, and resuming it was refused with this
    /// HTTP status.
    refused: Option<u16>,
    /// Its response is the bridge's own business (a 404 to send again, a re-opening).
    internal: bool,
    cancel: Option<oneshot::Sender<()>>,
}

/// A lost legacy session being opened again.
struct Reopening {
    /// The new `initialize`'s exchange, once posted.
    init: Option<u64>,
    /// Opened by the transport itself (no copy of the process took the 404), not by the
    /// process's `TLReopen`.
    own: bool,
    /// What waits to be sent in the new session.
    waiting: Vec<Vec<u8>>,
}

pub struct Upstream {
    era: Era,
    url: reqwest::Url,
    client: reqwest::Client,
    path: String,
    runtime: Option<tokio::runtime::Runtime>,
    jobs: mpsc::UnboundedSender<Job>,
    next: u64,
    sent: HashMap<u64, Sent>,
    /// Exchanges whose stream the bridge closed: what their task read before it saw the
    /// close was never taken (not recorded, not handed on).
    closed: HashSet<u64>,
    /// The exchange each resumed stream is recorded under now: the GET that resumed it.
    resumed_as: HashMap<u64, u64>,
    session: Option<String>,
    version: Option<String>,
    header_args: HeaderArgs,
    /// The bridge's `initialize` and `notifications/initialized` (legacy), to open a lost
    /// session again.
    init: Option<Vec<u8>>,
    initialized: Option<Vec<u8>>,
    /// While a lost session is opened again.
    reopening: Option<Reopening>,
    /// How many times a lost session was opened again.
    pub reopened: usize,
    pub notes: Notes,
}

impl Upstream {
    /// An upstream at `url` (`http://` or `https://`) whose answers go to `tx`.
    pub fn new(url: &str, era: Era, tx: Sender<Input>) -> Result<Upstream, String> {
        let parsed = reqwest::Url::parse(url).map_err(|e| format!("--upstream {url:?}: {e}"))?;
        if !matches!(parsed.scheme(), "http" | "https") || parsed.host_str().is_none() {
            return Err(format!(
                "--upstream {url:?}: give http://HOST[:PORT]/PATH or https://..."
            ));
        }
        // The provider is process-wide; a second install fails harmlessly.
        let _ = rustls::crypto::ring::default_provider().install_default();
        let client = reqwest::Client::builder()
            .no_proxy()
            .tls_backend_rustls()
            .build()
            .map_err(|e| format!("cannot set up the HTTP client: {e}"))?;
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .thread_name("bridge-upstream")
            .enable_all()
            .build()
            .map_err(|e| format!("cannot start the HTTP client: {e}"))?;
        let path = parsed.path().to_string();
        let jobs = post::start(&runtime, client.clone(), parsed.clone(), tx);
        Ok(Upstream {
            era,
            url: parsed,
            client,
            path,
            runtime: Some(runtime),
            jobs,
            next: 0,
            sent: HashMap::new(),
            closed: HashSet::new(),
            resumed_as: HashMap::new(),
            session: None,
            version: None,
            header_args: HeaderArgs::default(),
            init: None,
            initialized: None,
            reopening: None,
            reopened: 0,
            notes: Notes::default(),
        })
    }

    /// Sends one message the bridge wrote to the server.
    pub fn post(&mut self, raw: Vec<u8>, side: &mut Side) {
        let Ok(message) = serde_json::from_slice::<Value>(&raw) else {
            return;
        };
        let method = message.get("method").and_then(Value::as_str).unwrap_or("");
        if self.era == Era::Modern && method == "notifications/cancelled" {
            return self.close_stream(&message, side);
        }
        if let Some(reopening) = &self.reopening {
            let step = (method, reopening.own, reopening.init.is_some());
            return self.while_reopening(step, raw, &message, side);
        }
        if self.era == Era::Legacy {
            match method {
                "initialize" => self.init = Some(raw.clone()),
                "notifications/initialized" => self.initialized = Some(raw.clone()),
                _ => {}
            }
        }
        self.send(raw, &message, side);
    }

    /// A message the process wrote while the session is opened again. `step`: its method,
    /// whether the transport opens the session itself, whether the new `initialize` is out.
    fn while_reopening(
        &mut self,
        step: (&str, bool, bool),
        raw: Vec<u8>,
        message: &Value,
        side: &mut Side,
    ) {
        match step {
            // The process's `TLReopen`: its `initialize` goes at once; its
            // `notifications/initialized` once that is answered, and then what waited.
            ("initialize", false, false) => {
                self.init = Some(raw.clone());
                let exchange = self.send(raw, message, side);
                if let Some(reopening) = self.reopening.as_mut() {
                    reopening.init = Some(exchange);
                }
            }
            ("notifications/initialized", false, true) => {
                self.initialized = Some(raw.clone());
                self.reopened_session(side, raw);
            }
            _ => {
                if let Some(reopening) = self.reopening.as_mut() {
                    reopening.waiting.push(raw);
                }
            }
        }
    }

    fn send(&mut self, raw: Vec<u8>, message: &Value, side: &mut Side) -> u64 {
        let method = message.get("method").and_then(Value::as_str).unwrap_or("");
        let headers = self.headers(&raw, message, method);
        let exchange = self.next;
        self.next += 1;
        let mut event = Event::message(side.now(), Dir::C2s, &raw);
        event
            .fields
            .insert("mcp_session_id".into(), json!(self.session));
        event.fields.insert("connection".into(), json!(0));
        event.fields.insert("exchange".into(), json!(exchange));
        side.event(&event);
        let id = id_key(message).filter(|_| !method.is_empty());
        let wait = match (method, &id) {
            ("initialize", _) => Wait::End,
            (_, Some(_)) => Wait::Nothing,
            _ => Wait::Head,
        };
        // A re-opening's `initialize` may meet a server still restarting: sent again while
        // nothing listens (`post::Job::patient`).
        let patient = method == "initialize" && self.reopening.is_some();
        let (cancel, closed) = oneshot::channel();
        self.sent.insert(
            exchange,
            Sent {
                raw: raw.clone(),
                method: method.to_string(),
                id,
                request_headers: headers.clone(),
                session: self.session.clone(),
                status: None,
                answered: false,
                refused: None,
                internal: false,
                cancel: Some(cancel),
            },
        );
        let job = Job {
            exchange,
            body: raw,
            headers,
            wait,
            patient,
            cancel: closed,
        };
        // The poster outlives the loop: a send fails only after `close`.
        let _ = self.jobs.send(job);
        exchange
    }

    /// The headers of one POST.
    fn headers(&self, raw: &[u8], message: &Value, method: &str) -> Vec<(String, String)> {
        let mut out = vec![
            ("content-type".to_string(), "application/json".to_string()),
            (
                "accept".to_string(),
                "application/json, text/event-stream".to_string(),
            ),
        ];
        match self.era {
            Era::Modern => {
                let version = message
                    .pointer("/params/_meta/io.modelcontextprotocol~1protocolVersion")
                    .and_then(Value::as_str)
                    .unwrap_or(MODERN);
                out.push(("mcp-protocol-version".into(), version.into()));
                if !method.is_empty() {
                    out.push(("mcp-method".into(), encode_header_value(method)));
                }
                let name = match method {
                    "tools/call" | "prompts/get" => message.pointer("/params/name"),
                    "resources/read" => message.pointer("/params/uri"),
                    _ => None,
                };
                if let Some(name) = name.and_then(Value::as_str) {
                    out.push(("mcp-name".into(), encode_header_value(name)));
                }
                out.extend(self.param_headers(raw));
            }
            Era::Legacy => {
                if let Some(session) = &self.session {
                    out.push(("mcp-session-id".into(), session.clone()));
                }
                if let (Some(version), false) = (&self.version, method == "initialize") {
                    out.push(("mcp-protocol-version".into(), version.clone()));
                }
            }
        }
        out
    }

    /// `Mcp-Param-{Name}` of a `tools/call`'s `x-mcp-header` arguments.
    fn param_headers(&self, raw: &[u8]) -> Vec<(String, String)> {
        let (Some(message), _) = agentpi_monitor::shape::parse(raw, Dir::C2s) else {
            return Vec::new();
        };
        let expected = self.header_args.expected(&message).into_iter();
        expected
            .map(|(name, value)| (name.to_ascii_lowercase(), encode_header_value(&value)))
            .collect()
    }

    /// A modern cancel: the stream of the request it names is closed, nothing posted. The
    /// close is recorded now, in the order the bridge did it (the task that reads the stream
    /// may tell of it only after the bridge has ended).
    fn close_stream(&mut self, cancel: &Value, side: &mut Side) {
        let of = cancel.pointer("/params/requestId").map(Value::to_string);
        let open = self
            .sent
            .iter_mut()
            .find(|(_, s)| s.id.is_some() && s.id == of && !s.answered);
        match open.and_then(|(e, s)| Some((*e, s.cancel.take()?))) {
            Some((exchange, fire)) => {
                let _ = fire.send(());
                self.sent.remove(&exchange);
                // Its task's `Up::Closed` (and whatever it read before) is not taken: the
                // close is recorded here, once.
                self.closed.insert(exchange);
                aborted(
                    side,
                    exchange,
                    "the bridge closed the stream: cancelled",
                    true,
                );
            }
            // Answered already: the cancel crossed the answer.
            None => self.notes.push(format!(
                "a cancel of {}: no stream open",
                of.unwrap_or_default()
            )),
        }
    }

    /// What happened on an exchange: recorded on `bridge`'s server side and handed on.
    /// `Err(why)` when the upstream cannot be reached (the bridge ends).
    pub fn on<E: Engine>(&mut self, up: Up, bridge: &mut E) -> Result<(), String> {
        if self.closed.contains(&exchange_of(&up)) {
            return Ok(());
        }
        match up {
            Up::Head {
                exchange,
                status,
                headers,
            } => self.head(exchange, status, headers, bridge),
            Up::Message {
                exchange,
                raw,
                sse_id,
            } => self.message(exchange, raw, sse_id, bridge),
            Up::Resume {
                exchange,
                status,
                headers,
                request_headers,
            } => self.resume(exchange, status, (headers, request_headers), bridge),
            Up::End { exchange } => self.end(exchange, bridge),
            // Only the bridge closes a stream, and `close_stream` recorded it (the exchange is
            // in `closed`, so this is not reached).
            Up::Closed { exchange } => {
                self.sent.remove(&exchange);
            }
            Up::Failed { exchange, why } => return self.failed(exchange, why, bridge),
        }
        Ok(())
    }

    fn head<E: Engine>(
        &mut self,
        exchange: u64,
        status: u16,
        headers: Vec<(String, String)>,
        bridge: &mut E,
    ) {
        let Some(sent) = self.sent.get_mut(&exchange) else {
            return;
        };
        let side = bridge.server_side();
        sent.status = Some(status);
        let pairs = |h: &[(String, String)]| h.iter().map(|(k, v)| json!([k, v])).collect();
        let fields = Map::from_iter([
            ("method".into(), json!("POST")),
            ("path".into(), json!(self.path)),
            ("status".into(), json!(status)),
            ("headers".into(), pairs(&headers)),
            ("request_headers".into(), pairs(&sent.request_headers)),
            ("exchange".into(), json!(exchange)),
        ]);
        side.event(&Event::process(side.now(), "http", fields));
        let session = headers
            .iter()
            .find(|(k, _)| k == "mcp-session-id")
            .map(|(_, v)| v.clone());
        if sent.method == "initialize" && status < 300 && session.is_some() {
            self.session = session;
        }
        let lost = self.era == Era::Legacy && status == 404 && sent.session.is_some();
        if lost {
            sent.internal = true;
            // Sent in the session in use: the first 404 of this loss (a later one crossed it).
            let new = sent.session == self.session;
            let raw = sent.raw.clone();
            self.lost(raw, new, bridge);
        }
    }

    /// A 404 to a message sent in the session: the process takes it (its copies open the
    /// session again, once for all, and say what to send in it), or, outside the model, the
    /// transport opens it itself and the message waits to be sent again in the new one.
    fn lost<E: Engine>(&mut self, raw: Vec<u8>, new: bool, bridge: &mut E) {
        if self.init.is_none() {
            return self.notes.push("a 404 before the session was open".into());
        }
        if new {
            self.begin_reopening("HTTP 404");
        }
        let by_process = self.reopening.as_ref().is_none_or(|r| !r.own);
        if by_process && bridge.session_lost(&raw, new) {
            return;
        }
        match self.reopening.as_mut() {
            Some(reopening) if reopening.own || reopening.init.is_some() => {
                reopening.waiting.push(raw)
            }
            Some(_) => self.open_again(vec![raw], bridge.server_side()),
            // The new session is open already: sent again in it.
            None => self.post(raw, bridge.server_side()),
        }
    }

    /// The session in use is lost (`why`: how the bridge knows): what the process sends next
    /// waits for the new session (`while_reopening`).
    fn begin_reopening(&mut self, why: &str) {
        self.session = None;
        self.version = None;
        self.reopened += 1;
        self.notes.push(format!(
            "the legacy server lost the session ({why}): initialize again"
        ));
        self.reopening = Some(Reopening {
            init: None,
            own: false,
            waiting: Vec::new(),
        });
    }

    /// The response stream of `exchange` broke: when it is a call's that the process holds
    /// in the legacy session (`Engine::stream_broken`), the server went away with the session
    /// (it restarts): the process takes its `lost` now rather than at the next 404, and a new
    /// session is opened (`why`: how the bridge knows). True when the process took it.
    fn broken_stream<E: Engine>(&mut self, exchange: u64, bridge: &mut E, why: &str) -> bool {
        let Some(sent) = self.sent.get(&exchange) else {
            return false;
        };
        let known = sent.session.is_some() && self.init.is_some();
        // A re-opening of the transport's own (a 404 outside the model) is not the process's:
        // what the process would write for it waits for that one, as after such a 404.
        let own = self.reopening.as_ref().is_some_and(|r| r.own);
        if self.era != Era::Legacy || sent.answered || sent.id.is_none() || !known || own {
            return false;
        }
        let new = sent.session == self.session;
        if !bridge.stream_broken(&sent.raw, new) {
            return false;
        }
        self.sent.remove(&exchange);
        if new {
            self.begin_reopening(why);
        }
        true
    }

    /// The bridge asked to resume `exchange`'s stream (a GET with `Last-Event-ID`): the GET
    /// is recorded as an exchange of its own, and what comes after on the stream under it, as
    /// `agentpi monitor --listen` records a client's resumption (H6 judges the replay). A
    /// refusal is noted, and the stream's end is then told as it was (its request, if not
    /// answered, gets an error); a 404 is the loss of the legacy session (`refused_lost`).
    fn resume<E: Engine>(
        &mut self,
        exchange: u64,
        status: u16,
        (headers, request_headers): (Headers, Headers),
        bridge: &mut E,
    ) {
        let Some(sent) = self.sent.get_mut(&exchange) else {
            return;
        };
        let get = self.next;
        self.next += 1;
        let side = bridge.server_side();
        let pairs = |h: &[(String, String)]| h.iter().map(|(k, v)| json!([k, v])).collect();
        let fields = Map::from_iter([
            ("method".into(), json!("GET")),
            ("path".into(), json!(self.path)),
            ("status".into(), json!(status)),
            ("headers".into(), pairs(&headers)),
            ("request_headers".into(), pairs(&request_headers)),
            ("exchange".into(), json!(get)),
        ]);
        side.event(&Event::process(side.now(), "http", fields));
        let sse = headers.iter().any(|(k, v)| {
            k == "content-type" && v.to_ascii_lowercase().starts_with("text/event-stream")
        });
        if status == 200 && sse {
            self.resumed_as.insert(exchange, get);
            return;
        }
        sent.refused = Some(status);
        let what = format!("`{}` {}", sent.method, sent.id.as_deref().unwrap_or(""));
        self.notes.push(format!(
            "the stream of {what} ended before its answer and the server refused to resume it \
             (HTTP {status})"
        ));
        let in_use = sent.session.is_some() && sent.session == self.session;
        if self.era == Era::Legacy && status == 404 && in_use && self.init.is_some() {
            self.refused_lost(exchange, bridge);
        }
    }

    /// A 404 to the resumption of `exchange`'s stream: the server lost the legacy session.
    /// A call the process holds there takes the model's `lost` as when its stream breaks
    /// (`broken_stream`); a call only sent may have run, so it is not sent again and gets its
    /// error at the stream's end, and the session is opened again all the same, the calls
    /// held for their retry given `lost` (else the transport opens it itself): nothing more
    /// is sent in the lost session.
    fn refused_lost<E: Engine>(&mut self, exchange: u64, bridge: &mut E) {
        let why = "HTTP 404 to a stream's resumption";
        if self.reopening.is_some() || self.broken_stream(exchange, bridge, why) {
            return;
        }
        self.begin_reopening(why);
        // A message with no id: no call's own, so only the calls held for their retry take it.
        if !bridge.session_lost(b"{}", true) {
            self.open_again(Vec::new(), bridge.server_side());
        }
    }

    /// The transport opens the lost session itself with the first `initialize` again (a
    /// 404 no copy of the process took); `waiting` waits for it.
    fn open_again(&mut self, waiting: Vec<Vec<u8>>, side: &mut Side) {
        let Some(init) = self.init.clone() else {
            return;
        };
        let message: Value = serde_json::from_slice(&init).unwrap_or_default();
        let exchange = self.send(init, &message, side);
        if let Some(sent) = self.sent.get_mut(&exchange) {
            sent.internal = true;
        }
        self.reopening = Some(Reopening {
            init: Some(exchange),
            own: true,
            waiting,
        });
    }

    fn message<E: Engine>(
        &mut self,
        exchange: u64,
        raw: Vec<u8>,
        sse_id: Option<String>,
        bridge: &mut E,
    ) {
        let side = bridge.server_side();
        let mut event = Event::message(side.now(), Dir::S2c, &raw);
        if let Some(id) = &sse_id {
            event.fields.insert("sse_id".into(), json!(id));
        }
        let recorded = self.resumed_as.get(&exchange).copied().unwrap_or(exchange);
        event.fields.insert("exchange".into(), json!(recorded));
        side.event(&event);
        let message: Value = serde_json::from_slice(&raw).unwrap_or_default();
        let Some(sent) = self.sent.get_mut(&exchange) else {
            return bridge.server(&raw);
        };
        let answer =
            sent.id.is_some() && id_key(&message) == sent.id && message.get("method").is_none();
        if answer {
            sent.answered = true;
            let result = message.get("result");
            if sent.method == "initialize" {
                let version = result.and_then(|r| r.get("protocolVersion"));
                self.version = version.and_then(Value::as_str).map(str::to_string);
            }
            if sent.method == "tools/list"
                && let Some(result) = result
            {
                self.header_args.listed(result);
            }
        }
        if !sent.internal {
            // A notification on a request's stream is that request's (its call's log line).
            let on_stream = sent.id.as_deref().filter(|_| !answer);
            let request = on_stream.and_then(|id| serde_json::from_str::<Value>(id).ok());
            return match request {
                Some(request) => bridge.server_on_stream(&raw, &request),
                None => bridge.server(&raw),
            };
        }
        let reopened = self.reopening.as_ref();
        if answer && reopened.is_some_and(|r| r.own && r.init == Some(exchange)) {
            let initialized = self.initialized.clone().unwrap_or_default();
            self.reopened_session(bridge.server_side(), initialized);
        }
    }

    /// The new session is open: its `notifications/initialized`, then what waited for it.
    fn reopened_session(&mut self, side: &mut Side, initialized: Vec<u8>) {
        let Some(reopening) = self.reopening.take() else {
            return;
        };
        let first = Some(initialized).filter(|raw| !raw.is_empty());
        for raw in first.into_iter().chain(reopening.waiting) {
            let message: Value = serde_json::from_slice(&raw).unwrap_or_default();
            self.send(raw, &message, side);
        }
    }

    /// The response ended: a request it did not answer gets an error (not the server's).
    fn end<E: Engine>(&mut self, exchange: u64, bridge: &mut E) {
        let Some(sent) = self.sent.remove(&exchange) else {
            return;
        };
        if sent.answered || sent.internal {
            return;
        }
        self.resumed_as.remove(&exchange);
        if let Some(id) = sent.id {
            let status = sent.status.unwrap_or(0);
            let text = match sent.refused {
                Some(refused) => format!(
                    "agentpi bridge: the stream of `{}` ended before its answer and the \
                     upstream refused to resume it (HTTP {refused})",
                    sent.method
                ),
                None => format!(
                    "agentpi bridge: the upstream answered `{}` with HTTP {status} and no \
                     JSON-RPC response",
                    sent.method
                ),
            };
            self.notes.push(text.clone());
            let id: Value = serde_json::from_str(&id).unwrap_or_default();
            let reply = wire::error(&id, BRIDGE_ERROR, &text);
            bridge.server(reply.to_string().as_bytes());
        }
    }

    fn failed<E: Engine>(
        &mut self,
        exchange: u64,
        why: String,
        bridge: &mut E,
    ) -> Result<(), String> {
        let Some(sent) = self.sent.get(&exchange) else {
            return Ok(());
        };
        if sent.status.is_none() {
            // No answer at all: the upstream is not there.
            let fields = Map::from_iter([
                ("method".into(), json!("POST")),
                ("path".into(), json!(self.path)),
                ("error".into(), json!(why)),
                ("exchange".into(), json!(exchange)),
            ]);
            let side = bridge.server_side();
            side.event(&Event::process(side.now(), "unreachable", fields));
            return Err(why);
        }
        let recorded = self.resumed_as.get(&exchange).copied().unwrap_or(exchange);
        aborted(bridge.server_side(), recorded, &why, false);
        if self.broken_stream(exchange, bridge, "a held call's stream broke") {
            return Ok(());
        }
        if let Some(sent) = self.sent.get_mut(&exchange) {
            sent.status = Some(0);
        }
        self.end(exchange, bridge);
        Ok(())
    }

    /// Ends the legacy session, as a client should when it is done: a DELETE with its id
    /// (a server may answer 405), recorded with its answer's head; within two seconds.
    pub fn end_session(&mut self, side: &mut Side) {
        let (Era::Legacy, Some(session), Some(runtime)) =
            (self.era, self.session.take(), self.runtime.as_ref())
        else {
            return;
        };
        let mut headers = vec![("mcp-session-id".to_string(), session)];
        if let Some(version) = &self.version {
            headers.push(("mcp-protocol-version".into(), version.clone()));
        }
        let mut request = self.client.delete(self.url.clone());
        for (name, value) in &headers {
            request = request.header(name, value);
        }
        let sent = runtime.block_on(async {
            tokio::time::timeout(std::time::Duration::from_secs(2), request.send()).await
        });
        let Ok(Ok(response)) = sent else {
            return self
                .notes
                .push("the DELETE of the legacy session got no answer".into());
        };
        let head: Vec<(String, String)> = response
            .headers()
            .iter()
            .map(|(k, v)| (k.to_string(), String::from_utf8_lossy(v.as_bytes()).into()))
            .collect();
        let exchange = self.next;
        self.next += 1;
        let pairs = |h: &[(String, String)]| h.iter().map(|(k, v)| json!([k, v])).collect();
        let fields = Map::from_iter([
            ("method".into(), json!("DELETE")),
            ("path".into(), json!(self.path)),
            ("status".into(), json!(response.status().as_u16())),
            ("headers".into(), pairs(&head)),
            ("request_headers".into(), pairs(&headers)),
            ("exchange".into(), json!(exchange)),
        ]);
        side.event(&Event::process(side.now(), "http", fields));
    }

    /// Stops every exchange still open.
    pub fn close(&mut self) {
        if let Some(runtime) = self.runtime.take() {
            runtime.shutdown_timeout(std::time::Duration::from_millis(200));
        }
    }
}

impl Drop for Upstream {
    fn drop(&mut self) {
        self.close();
    }
}

fn exchange_of(up: &Up) -> u64 {
    match up {
        Up::Head { exchange, .. }
        | Up::Message { exchange, .. }
        | Up::Resume { exchange, .. }
        | Up::End { exchange }
        | Up::Closed { exchange }
        | Up::Failed { exchange, .. } => *exchange,
    }
}

/// A response body that ended early: closed by the bridge (a cancel) or broken.
fn aborted(side: &mut Side, exchange: u64, reason: &str, by_bridge: bool) {
    let mut fields = Map::from_iter([
        ("side".into(), json!("server")),
        ("reason".into(), json!(reason)),
        ("pending_bytes".into(), json!(0)),
        ("exchange".into(), json!(exchange)),
    ]);
    if by_bridge {
        fields.insert("closed_by".into(), json!("client"));
    }
    side.event(&Event::process(side.now(), "aborted", fields));
}

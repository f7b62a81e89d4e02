//! `--listen HOST:PORT`: the client side over Streamable HTTP, kept by the loop. Each POST
//! (from `serve_http`) is recorded on the client's side with its exchange and handed to the
//! direction's process as a stdio line would be: a request's answer goes back on its own
//! response, an SSE stream opened at once; a notification or response is answered 202.
//! Legacy clients each have a session: an `initialize` without `Mcp-Session-Id` opens a new
//! one (its id on the answer), handed to the process with the session (`per_session`: one
//! process per client session); a later POST must carry a live session's id (400 without,
//! 404 with another: the legacy spec's rule), and a DELETE with it ends the session. What
//! the bridge sends a client besides answers (a legacy client's elicitation in the middle of
//! a call, a server's progress) goes on the stream of that session's latest request still
//! open: with one call at a time that is the call it belongs to. A modern client has no
//! session. The legacy sessions are bounded (`sessions`): an `initialize` over
//! `--max-sessions` is answered 503, and a session idle for `--session-idle` is ended
//! before the next request is served.

use crate::engine::Engine;
use crate::input::id_key;
use crate::input::{NotAllowed, Out, Posted, Refused};
use crate::notes::Notes;
use crate::serve_http::Listening;
use crate::sessions::{SessionLimits, Sessions};
use crate::side::Side;
use crate::upstream::Era;
use agentpi_monitor::{Dir, Event};
use bytes::Bytes;
use serde_json::{Map, Value, json};
use std::time::Instant;
use tokio::sync::mpsc::UnboundedSender;

/// A request's response stream, open until its answer.
struct Open {
    /// The request's id as the process knows it (as text).
    id: String,
    /// A modern client's own id, when the process knows the request by the bridge's
    /// (`renamed`).
    original: Option<Value>,
    /// The legacy client's session.
    session: Option<String>,
    /// The connection it came on.
    connection: u64,
    /// A legacy client's GET stream (for what the bridge sends outside any request).
    get: bool,
    /// `serve_http`'s number of the stream.
    stream: u64,
    exchange: u64,
    answer: UnboundedSender<Out>,
}

pub struct Listener {
    /// The client's era.
    era: Era,
    next: u64,
    /// The legacy clients' live sessions.
    sessions: Sessions,
    open: Vec<Open>,
    pub notes: Notes,
    /// The HTTP server, stopped when the listener is dropped.
    _server: Listening,
}

impl Listener {
    pub fn new(era: Era, server: Listening, limits: SessionLimits) -> Listener {
        Listener {
            _server: server,
            era,
            next: 0,
            sessions: Sessions::new(limits),
            open: Vec::new(),
            notes: Notes::default(),
        }
    }

    /// A POST (or a DELETE) of a client.
    pub fn posted<E: Engine>(&mut self, posted: Posted, bridge: &mut E) {
        let exchange = self.next;
        self.next += 1;
        let carried = posted
            .headers
            .iter()
            .find(|(k, _)| k == "mcp-session-id")
            .map(|(_, v)| v.clone());
        self.expire(bridge);
        if let Some(session) = &carried {
            self.sessions.touch(session, Instant::now());
        }
        match posted.method.as_str() {
            "DELETE" => return self.delete(exchange, carried, &posted, bridge),
            "GET" => return self.get(exchange, carried, posted, bridge.client_side()),
            _ => {}
        }
        let side = bridge.client_side();
        let message = serde_json::from_slice::<Value>(&posted.raw).unwrap_or_default();
        let method = message.get("method").and_then(Value::as_str).unwrap_or("");
        let found = self.session_of(carried.clone(), method == "initialize");
        if found == Err(503) {
            return self.turn_away(&posted, side);
        }
        let mut event = Event::message(side.now(), Dir::C2s, &posted.raw);
        event.fields.insert("mcp_session_id".into(), json!(carried));
        event
            .fields
            .insert("connection".into(), json!(posted.connection));
        event.fields.insert("exchange".into(), json!(exchange));
        side.event(&event);
        let request = id_key(&message).filter(|_| !method.is_empty());
        let (session, opened) = match found {
            Ok(found) => found,
            Err(status) => return self.refuse(exchange, status, &posted, side),
        };
        // Modern clients have no session to keep their ids apart: each request is known to
        // the process by an id of the bridge's, its own given back with the answer.
        let (raw, original) = match (self.era, &request, method) {
            (Era::Modern, Some(_), _) => renamed(message, exchange),
            (Era::Modern, None, "notifications/cancelled") => {
                (self.cancel_renamed(message, posted.connection), None)
            }
            _ => (posted.raw.clone(), None),
        };
        let request = match original {
            Some(_) => Some(renamed_id(exchange).to_string()),
            None => request,
        };
        let mut head = vec![];
        if let Some(id) = request.clone() {
            head.push(("content-type".into(), "text/event-stream".into()));
            head.push(("cache-control".into(), "no-cache".into()));
            if let (Some(session), true) = (&session, opened) {
                head.push(("mcp-session-id".into(), session.clone()));
            }
            let answer = posted.answer.clone();
            self.open.push(Open {
                id,
                original: original.clone(),
                session: session.clone(),
                connection: posted.connection,
                get: false,
                stream: posted.stream,
                exchange,
                answer,
            });
        }
        let status = if request.is_some() { 200 } else { 202 };
        let answered = Head {
            method: "POST",
            path: &posted.path,
            status,
            headers: &head,
            request: &posted.headers,
        };
        http_event(side, exchange, &answered);
        let _ = posted.answer.send(Out::Head(status, head));
        match &session {
            Some(session) => bridge.session_client(session, &raw),
            None => bridge.client(&raw),
        }
    }

    /// A modern client's `notifications/cancelled` naming its own id: the process's id of
    /// that request (on the same connection first, where HTTP/1.1 keeps one client's).
    fn cancel_renamed(&self, mut message: Value, connection: u64) -> Vec<u8> {
        let of = message.pointer("/params/requestId").cloned();
        let named = |o: &&Open| o.original.is_some() && o.original == of;
        let mut open = self.open.iter().filter(named);
        let same = open.clone().find(|o| o.connection == connection);
        if let Some(found) = same.or_else(|| open.next()) {
            message["params"]["requestId"] = serde_json::from_str(&found.id).unwrap_or_default();
        }
        message.to_string().into_bytes()
    }

    /// Ends the sessions idle for `--session-idle` (none of their streams open): each
    /// process told as by a DELETE, the end recorded (`expired`) and noted.
    fn expire<E: Engine>(&mut self, bridge: &mut E) {
        let open = &self.open;
        let busy = |s: &str| open.iter().any(|o| o.session.as_deref() == Some(s));
        let idle = self.sessions.limits().idle;
        for session in self.sessions.expire(Instant::now(), busy) {
            let side = bridge.client_side();
            let fields = Map::from_iter([
                ("mcp_session_id".into(), json!(session)),
                ("idle_seconds".into(), json!(idle.as_secs_f64())),
            ]);
            side.event(&Event::process(side.now(), "expired", fields));
            self.notes.push(format!(
                "ended session {session}: idle for {} s (--session-idle)",
                idle.as_secs_f64()
            ));
            bridge.end_session(&session);
        }
    }

    /// Removes the open stream at `at`: its session was busy until now.
    fn close_open(&mut self, at: usize) -> Open {
        let open = self.open.remove(at);
        if let Some(session) = &open.session {
            self.sessions.touch(session, Instant::now());
        }
        open
    }

    /// The legacy session a POST belongs to, and whether it opens it (an `initialize`
    /// without a session's id); `Err` the status of a refusal: 400 no id, 404 no such live
    /// session, 503 `--max-sessions` open. A modern client has none.
    fn session_of(
        &mut self,
        carried: Option<String>,
        initialize: bool,
    ) -> Result<(Option<String>, bool), u16> {
        match (self.era, carried) {
            (Era::Modern, _) => Ok((None, false)),
            (Era::Legacy, None) if initialize => {
                let session = new_session();
                match self.sessions.open(session.clone(), Instant::now()) {
                    true => Ok((Some(session), true)),
                    false => Err(503),
                }
            }
            (Era::Legacy, None) => Err(400),
            (Era::Legacy, Some(c)) if self.sessions.contains(&c) => Ok((Some(c), false)),
            (Era::Legacy, Some(_)) => Err(404),
        }
    }

    /// A GET: a legacy client opens a stream for what the bridge sends outside any of its
    /// requests (200, `text/event-stream`, open until the session ends); 400 without a
    /// session's id, 404 with an unknown one, 405 from a modern client (the 2026-07-28 era
    /// has no such stream).
    fn get(&mut self, exchange: u64, carried: Option<String>, posted: Posted, side: &mut Side) {
        let session = match (self.era, carried) {
            (Era::Modern, _) => return self.refuse(exchange, 405, &posted, side),
            (Era::Legacy, None) => return self.refuse(exchange, 400, &posted, side),
            (Era::Legacy, Some(c)) if self.sessions.contains(&c) => c,
            (Era::Legacy, Some(_)) => return self.refuse(exchange, 404, &posted, side),
        };
        let head = vec![
            ("content-type".to_string(), "text/event-stream".to_string()),
            ("cache-control".to_string(), "no-cache".to_string()),
        ];
        let answered = Head {
            method: "GET",
            path: &posted.path,
            status: 200,
            headers: &head,
            request: &posted.headers,
        };
        http_event(side, exchange, &answered);
        let _ = posted.answer.send(Out::Head(200, head));
        self.open.push(Open {
            id: String::new(),
            original: None,
            session: Some(session),
            connection: posted.connection,
            get: true,
            stream: posted.stream,
            exchange,
            answer: posted.answer,
        });
    }

    /// A DELETE: a legacy client ends its session (200; its streams still open are ended
    /// and its process told); 400 without a session's id, 404 with an unknown one, 405 from
    /// a modern client (it has no session).
    fn delete<E: Engine>(
        &mut self,
        exchange: u64,
        carried: Option<String>,
        posted: &Posted,
        bridge: &mut E,
    ) {
        let side = bridge.client_side();
        let session = match (self.era, carried) {
            (Era::Modern, _) => return self.refuse(exchange, 405, posted, side),
            (Era::Legacy, None) => return self.refuse(exchange, 400, posted, side),
            (Era::Legacy, Some(c)) => c,
        };
        if !self.sessions.end(&session) {
            return self.refuse(exchange, 404, posted, side);
        }
        self.open.retain(|o| o.session.as_ref() != Some(&session));
        let answered = Head {
            method: "DELETE",
            path: &posted.path,
            status: 200,
            headers: &[],
            request: &posted.headers,
        };
        http_event(side, exchange, &answered);
        let _ = posted.answer.send(Out::Head(200, Vec::new()));
        bridge.end_session(&session);
    }

    /// An `initialize` over `--max-sessions`: answered 503 (a JSON-RPC error saying why) and
    /// recorded as the guard's refusals are (`refused`, with no exchange): it opens no session
    /// and never reaches the process, so the legacy side's monitor sees no session's message
    /// (recorded as a message, it would open a session of its own, with a request never
    /// answered).
    fn turn_away(&mut self, posted: &Posted, side: &mut Side) {
        let text = format!(
            "agentpi bridge: too many sessions ({} open, --max-sessions); end one with DELETE",
            self.sessions.limits().max
        );
        let pairs: Value = posted.headers.iter().map(|(k, v)| json!([k, v])).collect();
        let fields = Map::from_iter([
            ("status".into(), json!(503)),
            ("reason".into(), json!(text)),
            ("peer".into(), json!(posted.peer.to_string())),
            ("method".into(), json!(posted.method)),
            ("path".into(), json!(posted.path)),
            ("request_headers".into(), pairs),
        ]);
        side.event(&Event::process(side.now(), "refused", fields));
        self.notes.push(format!(
            "refused an initialize from {}: too many sessions (--max-sessions)",
            posted.peer
        ));
        answer_error(posted, 503, &text);
    }

    fn refuse(&mut self, exchange: u64, status: u16, posted: &Posted, side: &mut Side) {
        let text = match status {
            400 => "agentpi bridge: Mcp-Session-Id missing",
            405 => "agentpi bridge: a modern client has no session (no GET stream, no DELETE)",
            _ => "agentpi bridge: no such session",
        };
        let head = vec![("content-type".to_string(), "application/json".to_string())];
        let answered = Head {
            method: &posted.method,
            path: &posted.path,
            status,
            headers: &head,
            request: &posted.headers,
        };
        http_event(side, exchange, &answered);
        answer_error(posted, status, text);
    }

    /// A message the bridge writes to the client of `session`: an answer on its request's
    /// stream (which it ends); a message part of the client's request `call` (the bridge's
    /// elicitation for it, a progress of it) on that request's stream, as the spec has it;
    /// anything else (a list change, a log message) on the session's GET stream when one is
    /// open, else (or when its request's stream is gone) on the latest open stream.
    pub fn write(
        &mut self,
        bytes: Vec<u8>,
        (session, call): (Option<&str>, Option<&Value>),
        side: &mut Side,
    ) {
        let message = serde_json::from_slice::<Value>(&bytes).unwrap_or_default();
        let answer = message.get("method").is_none();
        let key = match answer {
            true => id_key(&message),
            false => call.map(Value::to_string),
        };
        let mine = |o: &Open| o.session.as_deref() == session;
        let named =
            (self.open.iter()).position(|o| mine(o) && !o.get && Some(&o.id) == key.as_ref());
        let get = || match call {
            None => self.open.iter().rposition(|o| mine(o) && o.get),
            Some(_) => None,
        };
        let latest = || self.open.iter().rposition(|o| mine(o) && !o.get);
        let at = match answer {
            true => named,
            false => named.or_else(get).or_else(latest),
        };
        let Some(at) = at else {
            return self.notes.push(format!(
                "no open stream for a message to the client: {}",
                String::from_utf8_lossy(&bytes)
            ));
        };
        let (exchange, bytes) = match (&self.open[at].original, answer) {
            (Some(original), true) => {
                let mut message = message;
                message["id"] = original.clone();
                (self.open[at].exchange, message.to_string().into_bytes())
            }
            _ => (self.open[at].exchange, bytes),
        };
        let mut event = Event::message(side.now(), Dir::S2c, &bytes);
        event.fields.insert("exchange".into(), json!(exchange));
        side.event(&event);
        let mut frame = b"event: message\ndata: ".to_vec();
        frame.extend_from_slice(&bytes);
        frame.extend_from_slice(b"\n\n");
        let _ = self.open[at].answer.send(Out::Data(Bytes::from(frame)));
        if answer && !self.open[at].get {
            // Dropping the sender ends the stream.
            self.close_open(at);
        }
    }

    /// The client closed a request's stream before its answer: recorded as the listening
    /// monitor records it (`aborted`, closed by the client), and, from a modern client, handed
    /// to the process as the cancel of that request (the modern era's cancellation; from a
    /// legacy client a closed stream cancels nothing: noted).
    pub fn stream_closed<E: Engine>(&mut self, stream: u64, bridge: &mut E) {
        let Some(at) = self.open.iter().position(|o| o.stream == stream) else {
            return;
        };
        let open = self.close_open(at);
        let side = bridge.client_side();
        let fields = Map::from_iter([
            ("side".into(), json!("server")),
            ("reason".into(), json!("the client closed the stream")),
            ("pending_bytes".into(), json!(0)),
            ("exchange".into(), json!(open.exchange)),
            ("closed_by".into(), json!("client")),
        ]);
        side.event(&Event::process(side.now(), "aborted", fields));
        if open.get {
            // A GET stream carries no request: nothing to cancel or note.
            return;
        }
        if self.era == Era::Legacy {
            return self
                .notes
                .push(format!("the client closed the stream of {}", open.id));
        }
        let id: Value = serde_json::from_str(&open.id).unwrap_or_default();
        let cancel = json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
                            "params": {"requestId": id, "reason": "the client closed the stream"}});
        // Not recorded as a message: it never crossed the wire, the close did.
        bridge.client(cancel.to_string().as_bytes());
    }

    /// A request with another method than POST, GET or DELETE, answered 405.
    pub fn not_allowed(&mut self, request: &NotAllowed, side: &mut Side) {
        let exchange = self.next;
        self.next += 1;
        let headers = vec![("content-type".to_string(), "application/json".to_string())];
        let answered = Head {
            method: &request.method,
            path: &request.path,
            status: 405,
            headers: &headers,
            request: &request.headers,
        };
        http_event(side, exchange, &answered);
    }

    /// A request the guard refused (403), recorded as the listening monitor records it.
    pub fn refused(&mut self, refused: &Refused, side: &mut Side) {
        let pairs: Value = refused.headers.iter().map(|(k, v)| json!([k, v])).collect();
        let fields = Map::from_iter([
            ("status".into(), json!(403)),
            ("reason".into(), json!(refused.reason)),
            ("peer".into(), json!(refused.peer.to_string())),
            ("method".into(), json!(refused.method)),
            ("path".into(), json!(refused.path)),
            ("request_headers".into(), pairs),
        ]);
        side.event(&Event::process(side.now(), "refused", fields));
        self.notes.push(format!(
            "refused {} {} from {}: {}",
            refused.method, refused.path, refused.peer, refused.reason
        ));
    }

    /// The streams still open are ended (the bridge is ending).
    pub fn close(&mut self) {
        self.open.clear();
    }
}

/// Answers `posted` with `status` and a JSON-RPC error of no request saying `text`.
fn answer_error(posted: &Posted, status: u16, text: &str) {
    let head = vec![("content-type".to_string(), "application/json".to_string())];
    let body = json!({"jsonrpc": "2.0", "id": null, "error": {"code": -32600, "message": text}});
    let _ = posted.answer.send(Out::Head(status, head));
    let _ = posted.answer.send(Out::Data(Bytes::from(body.to_string())));
}

/// The head of an answer: the request's method and path, and both sides' headers.
struct Head<'a> {
    method: &'a str,
    path: &'a str,
    status: u16,
    headers: &'a [(String, String)],
    request: &'a [(String, String)],
}

fn http_event(side: &mut Side, exchange: u64, head: &Head) {
    let pairs = |h: &[(String, String)]| h.iter().map(|(k, v)| json!([k, v])).collect();
    let fields = Map::from_iter([
        ("method".into(), json!(head.method)),
        ("path".into(), json!(head.path)),
        ("status".into(), json!(head.status)),
        ("headers".into(), pairs(head.headers)),
        ("request_headers".into(), pairs(head.request)),
        ("exchange".into(), json!(exchange)),
    ]);
    side.event(&Event::process(side.now(), "http", fields));
}

/// The id a modern client's request of `exchange` has for the process.
fn renamed_id(exchange: u64) -> Value {
    json!(format!("agentpi-listen-{exchange}"))
}

/// A modern client's request with the bridge's id for it, and its own id.
fn renamed(mut message: Value, exchange: u64) -> (Vec<u8>, Option<Value>) {
    let original = message.get("id").cloned();
    message["id"] = renamed_id(exchange);
    (message.to_string().into_bytes(), original)
}

/// A session id nobody can guess (the spec: globally unique and cryptographically secure):
/// 128 bits from the system's secure random source (through rustls' ring provider, which the
/// bridge has for `https://` upstreams); should that fail, the time's nanoseconds and the
/// process, unique but guessable.
fn new_session() -> String {
    let mut bytes = [0u8; 16];
    let random = rustls::crypto::ring::default_provider().secure_random;
    if random.fill(&mut bytes).is_ok() {
        let hex: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
        return format!("agentpi-bridge-{hex}");
    }
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    format!("agentpi-bridge-{:x}-{:x}", std::process::id(), nanos)
}

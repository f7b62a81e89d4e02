//! `--to modern --listen`: several legacy clients at once, one `Mcp-Session-Id` each. The
//! model's `ToModern` serves one legacy client (its handshake, the capabilities it declared,
//! its calls and pings), so each client session gets its own `ToModern`, stepped for that
//! session alone. They share the one modern server behind the bridge (a modern server keeps
//! no session: each process's `server/discover` and calls are requests like any other) and
//! the bridge's two monitored sides: the legacy side's monitor judges each session apart by
//! its `Mcp-Session-Id`, as `agentpi monitor --listen` does, and the modern side is one
//! stateless wire on which every id is the bridge's own, unique across sessions (the sides,
//! and with them the id counter, are lent to the session's process for each step). A
//! server's answer goes to the session that sent its request; a notification on the stream
//! of a request (over `--upstream`, where each request has its own), naming a request's
//! progress token, or naming a `subscriptions/listen` (its `subscriptionId`) to the session
//! of that request; a list change outside any listen (which names no request: the server's
//! lists changed for every client) to every session; a log line over stdio (where nothing on
//! the line tells whose call it is) to the one call in flight that opted in to log lines
//! (M9: only a request with `…/logLevel` in `_meta` may get one; M14: only one in flight),
//! when there is exactly one, else to the one session that could own it, else nowhere
//! (noted); any other notification to the oldest session.

use crate::engine::{Engine, To, Written};
use crate::input::id_key;
use crate::model::Model;
use crate::side::Side;
use crate::sides::Sides;
use crate::to_modern::ToModern;
use agentpi_monitor::Dir;
use serde_json::{Value, json};
use std::collections::HashMap;
use std::time::Instant;

/// Whose a request to the server is: its session, its progress token, and whether it may get
/// log lines (`…/logLevel` in its `_meta`, M9; not a listen, M14).
struct Owner {
    session: String,
    token: Option<String>,
    logs: bool,
}

pub struct PerSession {
    model: &'static Model,
    /// The two sides, lent to the process of the session being stepped.
    shared: Sides,
    /// Each live client session and its process, oldest first.
    sessions: Vec<(String, ToModern)>,
    /// The session of each request sent to the server (its id as text), the request's
    /// progress token, and whether it opted in to log lines, until its answer.
    owners: HashMap<String, Owner>,
    /// The session of each progress token of a request in flight.
    tokens: HashMap<String, String>,
    out: Vec<Written>,
}

impl PerSession {
    pub fn new(model: &'static Model, legacy: Side, modern: Side) -> PerSession {
        PerSession {
            model,
            shared: Sides::new(legacy, modern),
            sessions: Vec::new(),
            owners: HashMap::new(),
            tokens: HashMap::new(),
            out: Vec::new(),
        }
    }

    /// The process of `session`, made at its first message.
    fn find_or_make(&mut self, session: &str) -> Option<usize> {
        if let Some(k) = self.sessions.iter().position(|(s, _)| s == session) {
            return Some(k);
        }
        // Sides of its own that are never used: the shared ones are lent for each step.
        let now = Instant::now();
        let sides = Side::pair(None, now);
        let made = sides.and_then(|(legacy, modern)| ToModern::new(self.model, legacy, modern));
        match made {
            Ok(process) => {
                self.sessions.push((session.to_string(), process));
                Some(self.sessions.len() - 1)
            }
            Err(why) => {
                self.shared
                    .note(format!("cannot serve session {session}: {why}"));
                None
            }
        }
    }

    /// Steps session `k`'s process with the shared sides lent to it, and takes what it
    /// wrote: a request to the server remembered as the session's.
    fn lend(&mut self, k: usize, step: impl FnOnce(&mut ToModern)) {
        let (session, process) = &mut self.sessions[k];
        std::mem::swap(&mut self.shared, process.sides_mut());
        step(process);
        std::mem::swap(&mut self.shared, process.sides_mut());
        let session = session.clone();
        for mut written in self.shared.take_written() {
            if written.to == To::Server {
                self.own(&session, &written.bytes);
            }
            written.session = (written.to == To::Client).then(|| session.clone());
            self.out.push(written);
        }
    }

    /// A message to the server: a request's answer (and its progress) will be `session`'s.
    fn own(&mut self, session: &str, bytes: &[u8]) {
        let message: Value = serde_json::from_slice(bytes).unwrap_or_default();
        let (Some(id), Some(_)) = (id_key(&message), message.get("method")) else {
            return;
        };
        let token = message
            .pointer("/params/_meta/progressToken")
            .map(Value::to_string);
        if let Some(token) = &token {
            self.tokens.insert(token.clone(), session.to_string());
        }
        let level = message.pointer("/params/_meta/io.modelcontextprotocol~1logLevel");
        let logs = level.is_some() && message["method"] != "subscriptions/listen";
        let session = session.to_string();
        self.owners.insert(
            id,
            Owner {
                session,
                token,
                logs,
            },
        );
    }

    /// The one request in flight that may get a log line (M9, M14), when there is exactly
    /// one: its id as the bridge sent it.
    fn sole_logger(&self, message: &Value) -> Option<Value> {
        if message["method"] != "notifications/message" {
            return None;
        }
        // Of a live session only (an ended session's requests stay until answered).
        let live = |o: &Owner| self.sessions.iter().any(|(s, _)| *s == o.session);
        let mut logging = self.owners.iter().filter(|(_, o)| o.logs && live(o));
        let (id, _) = logging.next()?;
        match logging.next() {
            Some(_) => None,
            None => serde_json::from_str(id).ok(),
        }
    }

    /// A log line with nothing on it to tell its call (a server on stdio): the one call that
    /// may get it (M9, M14) when there is exactly one; else the one session that could own
    /// it (the only session with calls that opted in, or the only session); else dropped with
    /// a note, as `--to legacy` does: a guess could show one client's line to another.
    fn log_line(&mut self, raw: &[u8], message: &Value) {
        if let Some(request) = self.sole_logger(message) {
            return self.server_on_stream(raw, &request);
        }
        let live = |o: &Owner| self.sessions.iter().any(|(s, _)| *s == o.session);
        let mut opted: Vec<&String> = (self.owners.values())
            .filter(|o| o.logs && live(o))
            .map(|o| &o.session)
            .collect();
        opted.sort();
        opted.dedup();
        let session = match (opted.as_slice(), self.sessions.as_slice()) {
            ([one], _) => Some(one.to_string()),
            ([], [(one, _)]) => Some(one.clone()),
            _ => None,
        };
        match session.and_then(|o| self.sessions.iter().position(|(s, _)| *s == o)) {
            Some(k) => self.lend(k, |p| p.server(raw)),
            None => {
                self.shared.server.message(Dir::S2c, raw);
                let (n, m) = (opted.len(), self.sessions.len());
                self.shared.note(format!(
                    "dropped a log line that names no request: {n} of {m} sessions have calls \
                     that opted in, so no one session could own it"
                ));
            }
        }
    }

    /// The session a message of the server goes to.
    fn owner(&mut self, message: &Value) -> Option<String> {
        if message.get("method").is_none() {
            let owner = self.owners.remove(&id_key(message)?)?;
            if let Some(token) = owner.token {
                self.tokens.remove(&token);
            }
            return Some(owner.session);
        }
        // A listen's notification is the session's that opened the listen.
        if let Some(owner) = subscription(message).and_then(|l| self.owners.get(&l)) {
            return Some(owner.session.clone());
        }
        let token = message
            .pointer("/params/progressToken")
            .map(Value::to_string);
        let by_token = token.and_then(|t| self.tokens.get(&t).cloned());
        by_token.or_else(|| self.sessions.first().map(|(s, _)| s.clone()))
    }
}

impl PerSession {
    /// A server's message for every session: stepped by the oldest session's process (so
    /// that the server's side records it once), and what that wrote to its client written
    /// to each other session's client too (over HTTP: on each session's GET stream).
    fn broadcast(&mut self, raw: &[u8]) {
        let from = self.out.len();
        self.lend(0, |p| p.server(raw));
        let written: Vec<(Option<Value>, Vec<u8>)> = (self.out[from..].iter())
            .filter(|w| w.to == To::Client)
            .map(|w| (w.call.clone(), w.bytes.clone()))
            .collect();
        for (session, _) in &self.sessions[1..] {
            for (call, bytes) in &written {
                self.out.push(Written {
                    to: To::Client,
                    session: Some(session.clone()),
                    call: call.clone(),
                    bytes: bytes.clone(),
                });
            }
        }
    }
}

/// The id (as text) of the listen a server's notification names, if any.
fn subscription(message: &Value) -> Option<String> {
    let at = "/params/_meta/io.modelcontextprotocol~1subscriptionId";
    message.pointer(at).map(Value::to_string)
}

/// A server's `notifications/{tools,prompts,resources}/list_changed` outside any listen:
/// about the server's lists, the same for every client, so no one session's.
fn list_change(message: &Value) -> bool {
    if subscription(message).is_some() {
        return false;
    }
    let method = message.get("method").and_then(Value::as_str);
    let changed =
        ["tools", "prompts", "resources"].map(|l| format!("notifications/{l}/list_changed"));
    method.is_some_and(|m| changed.iter().any(|c| c == m)) && message.get("id").is_none()
}

impl Engine for PerSession {
    fn client(&mut self, raw: &[u8]) {
        self.session_client("", raw);
    }

    fn session_client(&mut self, session: &str, raw: &[u8]) {
        if let Some(k) = self.find_or_make(session) {
            self.lend(k, |p| p.client(raw));
        }
    }

    /// The session's calls in flight are cancelled as the client's `notifications/cancelled`
    /// would (the model's `cancel`: the modern request cancelled, the bridge's pending
    /// elicitations withdrawn), then its process is dropped; nothing more goes to it.
    fn end_session(&mut self, session: &str) {
        let Some(k) = self.sessions.iter().position(|(s, _)| s == session) else {
            return;
        };
        for id in self.sessions[k].1.calls_in_flight() {
            let cancel = json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
                "params": {"requestId": id, "reason": "the client ended its session"}});
            self.lend(k, |p| p.client(cancel.to_string().as_bytes()));
        }
        self.lend(k, |p| p.closing());
        self.sessions.remove(k);
        let theirs = |w: &Written| w.to == To::Client && w.session.as_deref() == Some(session);
        self.out.retain(|w| !theirs(w));
    }

    fn server(&mut self, raw: &[u8]) {
        let message: Value = serde_json::from_slice(raw).unwrap_or_default();
        if list_change(&message) && !self.sessions.is_empty() {
            return self.broadcast(raw);
        }
        if message["method"] == "notifications/message" {
            return self.log_line(raw, &message);
        }
        let owner = self.owner(&message);
        let at = owner.and_then(|o| self.sessions.iter().position(|(s, _)| *s == o));
        match at {
            Some(k) => self.lend(k, |p| p.server(raw)),
            None => {
                self.shared.server.message(Dir::S2c, raw);
                let text = String::from_utf8_lossy(raw);
                self.shared.note(format!(
                    "dropped a message of the server for no live client session: {text}"
                ));
            }
        }
    }

    /// A notification on the stream of a request of the bridge's (over `--upstream`): the
    /// session that sent the request, its process told which request (a log line goes with
    /// its call). A list change is still every session's.
    fn server_on_stream(&mut self, raw: &[u8], request: &Value) {
        let message: Value = serde_json::from_slice(raw).unwrap_or_default();
        let sender = (self.owners.get(&request.to_string())).map(|o| o.session.clone());
        let at = sender.and_then(|o| self.sessions.iter().position(|(s, _)| *s == o));
        match at {
            Some(k) if !list_change(&message) => self.lend(k, |p| p.server_on_stream(raw, request)),
            _ => self.server(raw),
        }
    }

    fn in_flight(&self) -> usize {
        self.sessions.iter().map(|(_, p)| p.in_flight()).sum()
    }

    fn server_gone(&mut self, why: &str) {
        for k in 0..self.sessions.len() {
            self.lend(k, |p| p.server_gone(why));
        }
    }

    fn closing(&mut self) {
        for k in 0..self.sessions.len() {
            self.lend(k, |p| p.closing());
        }
    }

    fn due(&self) -> Option<Instant> {
        self.sessions.iter().filter_map(|(_, p)| p.due()).min()
    }

    fn tick(&mut self, now: Instant) {
        for k in 0..self.sessions.len() {
            self.lend(k, |p| p.tick(now));
        }
    }

    fn take_out(&mut self) -> Vec<(To, Vec<u8>)> {
        let out = std::mem::take(&mut self.out).into_iter();
        out.map(|w| (w.to, w.bytes)).collect()
    }

    fn take_routed(&mut self) -> Vec<Written> {
        std::mem::take(&mut self.out)
    }

    fn client_side(&mut self) -> &mut Side {
        &mut self.shared.client
    }

    fn server_side(&mut self) -> &mut Side {
        &mut self.shared.server
    }

    fn notes(&self) -> &[String] {
        self.shared.notes()
    }
}

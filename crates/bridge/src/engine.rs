//! What `run` drives: a direction of the bridge (`ToModern`, `ToLegacy`) fed the lines of
//! its client and its server, saying what to write, in order.

use crate::side::Side;
use serde_json::Value;
use std::time::Instant;

/// Where a message the bridge writes goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum To {
    Client,
    Server,
}

/// A message the bridge writes, with where it belongs on a listening side: the client
/// session it goes to (`None` for an engine of one session) and the client's request it is
/// part of (a legacy client's elicitation for a call: over HTTP it goes on that call's
/// stream).
pub struct Written {
    pub to: To,
    pub session: Option<String>,
    pub call: Option<Value>,
    pub bytes: Vec<u8>,
}

impl Written {
    pub fn plain(to: To, bytes: Vec<u8>) -> Written {
        Written {
            to,
            session: None,
            call: None,
            bytes,
        }
    }
}

pub trait Engine {
    /// A line from the client.
    fn client(&mut self, raw: &[u8]);
    /// A line from the server.
    fn server(&mut self, raw: &[u8]);
    /// A message from the server that came on the response stream of the bridge's request
    /// `request` (its id as sent): over `--upstream` HTTP each request has its own stream,
    /// so a notification there belongs to that request (a log line of its call). An engine
    /// with nothing to route by it takes it as `server`.
    fn server_on_stream(&mut self, raw: &[u8], _request: &Value) {
        self.server(raw);
    }
    /// How many requests of the client are in flight.
    fn in_flight(&self) -> usize;
    /// The server went away: every request in flight gets an error.
    fn server_gone(&mut self, why: &str);
    /// The legacy server answered `raw`, a message the bridge sent in its session, with HTTP
    /// 404: it lost the session (`--upstream`). `new` when `raw` went in the session in use
    /// (the first 404 of this loss; a later one crossed it). The process's `lost` is given to
    /// the copies it concerns, which write the new session's `initialize` (one for all of
    /// them) and go on. False when no copy takes it (a 404 outside the model): the transport
    /// then opens the session itself.
    fn session_lost(&mut self, _raw: &[u8], _new: bool) -> bool {
        false
    }
    /// The response stream of `raw`, a call the bridge sent in the legacy session, broke
    /// (`--upstream`: the server went away, and its session with it, as when it restarts).
    /// A call that exchanged anything with the server since it was sent (held for its
    /// retry, or its server's request answered) takes the process's `lost` as at a 404 (`new`
    /// as there), and on a new loss so does every call held for its retry. False when no
    /// copy takes it (a call only sent may have run: its broken stream is its error).
    fn stream_broken(&mut self, _raw: &[u8], _new: bool) -> bool {
        false
    }
    /// When `tick` is next due (a held call's timeout), if ever.
    fn due(&self) -> Option<Instant> {
        None
    }
    /// Time passed: what is due at `now` happens.
    fn tick(&mut self, _now: Instant) {}
    /// What to write, in order.
    fn take_out(&mut self) -> Vec<(To, Vec<u8>)>;
    /// A line from the client of session `session` (`--listen` with legacy clients, each
    /// with its `Mcp-Session-Id`). An engine of one session takes it as `client`.
    fn session_client(&mut self, _session: &str, raw: &[u8]) {
        self.client(raw);
    }
    /// The client ended session `session` (its DELETE).
    fn end_session(&mut self, _session: &str) {}
    /// The client is gone: what the bridge keeps open on the server for itself (its
    /// `subscriptions/listen`) is cancelled, so that nothing of it is left open.
    fn closing(&mut self) {}
    /// What to write, in order, each message with where it belongs (`Written`).
    fn take_routed(&mut self) -> Vec<Written> {
        let out = self.take_out().into_iter();
        out.map(|(to, bytes)| Written::plain(to, bytes)).collect()
    }
    fn client_side(&mut self) -> &mut Side;
    fn server_side(&mut self) -> &mut Side;
    /// What the bridge dropped and why (for the report).
    fn notes(&self) -> &[String];
}

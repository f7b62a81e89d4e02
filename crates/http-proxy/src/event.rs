//! What the proxy tells its observer, and the thread that tells it: the relay only pushes
//! events into an unbounded channel (never waits), and one thread of its own hands them to the
//! observer in the order they crossed the proxy.

use bytes::Bytes;
use std::sync::Arc;
use std::sync::mpsc::{Receiver, Sender, channel};
use std::thread::JoinHandle;
use std::time::Instant;

/// Receives what crosses the proxy, off the relay path, one event at a time and in order.
pub trait Observer: Send + Sync {
    fn observe(&self, event: Event);
}

/// The direction of a message: the words of the trace format's `dir`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dir {
    /// Client to server.
    C2s,
    /// Server to client.
    S2c,
}

impl Dir {
    /// `c2s` or `s2c`.
    pub fn as_str(self) -> &'static str {
        match self {
            Dir::C2s => "c2s",
            Dir::S2c => "s2c",
        }
    }
}

/// Something that crossed the proxy.
#[derive(Clone, Debug)]
pub struct Event {
    /// When it crossed (not when the observer got it).
    pub at: Instant,
    /// The HTTP exchange (one request and its response) it belongs to, numbered from 0 in the
    /// order requests arrived.
    pub exchange: u64,
    pub kind: EventKind,
}

#[derive(Clone, Debug)]
pub enum EventKind {
    /// One JSON-RPC message or batch: a request body (`c2s`), a JSON response body or the
    /// `data` field of one SSE event (`s2c`), exactly the bytes that were relayed.
    Message {
        dir: Dir,
        raw: Bytes,
        /// The SSE event's `id`, when the message came in an event that had one.
        sse_id: Option<String>,
        /// `false` for what a server sent on a response stream after the client closed it:
        /// read by the proxy (the upstream connection half-closed), not relayed.
        relayed: bool,
        /// For a request body: the `Mcp-Session-Id` its request carried (which session it
        /// belongs to, known before the response's head).
        session: Option<String>,
        /// For a request body: the client connection it came on, numbered from 0 in the order
        /// connections were accepted (what tells two clients of the modern era apart, whose
        /// requests carry no session).
        connection: Option<u64>,
    },
    /// The head of a response (or the proxy's own 502 when the upstream could not be reached).
    Http(HttpExchange),
    /// A body that ended before it was complete (a peer closed or reset the connection); what
    /// had arrived of an unfinished message is not reported as a message.
    Aborted {
        dir: Dir,
        reason: String,
        /// Bytes of the unfinished message that had crossed.
        pending: usize,
        /// The side the body was relayed to stopped taking it (dropped it before its end):
        /// for a response, the client closed the stream, which in the modern era is the
        /// cancellation of its request. `false` when the sender's side failed.
        by_receiver: bool,
    },
    /// A request or connection the proxy did not relay (a forbidden `Host` or `Origin`, a
    /// limit): nothing of it reached the upstream. Its `exchange` is no exchange's (the
    /// number the next exchange will have).
    Refused(crate::Refusal),
}

/// A request and the head of its response.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct HttpExchange {
    pub method: String,
    /// Path and query, as the client sent them.
    pub path: String,
    pub status: u16,
    /// The request's headers as the client sent them (names lower case, values as text with
    /// invalid UTF-8 replaced), in order.
    pub request_headers: Vec<(String, String)>,
    /// The response's headers as relayed to the client.
    pub response_headers: Vec<(String, String)>,
    /// Why the proxy answered itself (502) instead of relaying the upstream's answer.
    pub error: Option<String>,
    /// `false` for a head that came after the client had closed its connection: read, not
    /// relayed.
    pub relayed: bool,
}

/// The relay's side of the channel: sending never blocks.
#[derive(Clone, Debug)]
pub struct Events(Sender<Event>);

impl Events {
    pub fn send(&self, exchange: u64, kind: EventKind) {
        let event = Event {
            at: Instant::now(),
            exchange,
            kind,
        };
        // The observer thread only stops after the relay has: nobody left to tell.
        let _ = self.0.send(event);
    }
}

/// Starts the observer thread; it ends once every [`Events`] clone is dropped and the events
/// sent before are delivered.
pub fn start(observer: Arc<dyn Observer>) -> std::io::Result<(Events, JoinHandle<()>)> {
    let (sender, receiver) = channel();
    let thread = std::thread::Builder::new()
        .name("http-proxy-observer".into())
        .spawn(move || deliver(&receiver, observer.as_ref()))?;
    Ok((Events(sender), thread))
}

fn deliver(receiver: &Receiver<Event>, observer: &dyn Observer) {
    for event in receiver {
        observer.observe(event);
    }
}

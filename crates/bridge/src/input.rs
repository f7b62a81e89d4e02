//! What the bridge's one loop is told, by the threads and tasks that read its two sides: the
//! end of a stdio peer (whose lines its reader steps itself), or what happened on an HTTP exchange with the
//! upstream (`upstream`) or with a client of the listening side (`listen`).

use bytes::Bytes;
use serde_json::Value;
use std::net::SocketAddr;
use tokio::sync::mpsc;

pub enum Input {
    /// The client's standard input ended (or the listening side was told to stop).
    ClientEnd,
    /// The server's standard output ended.
    ServerEnd,
    /// A reader stepped a line that moved when a held call's timeout is due.
    Due,
    /// A reader could not write to the client: it stopped reading.
    ClientGone,
    /// A reader panicked (a bug): the loop ends the bridge with it.
    Panicked(Box<dyn std::any::Any + Send>),
    Upstream(Up),
    /// A POST, GET or DELETE of a client of the listening side.
    Listen(Posted),
    /// The client closed a response stream before its end (`serve_http`'s number of it).
    StreamClosed(u64),
    /// A request of the listening side with another method than POST, GET or DELETE (405).
    NotAllowed(NotAllowed),
    /// A request the listening side's guard refused.
    Refused(Refused),
}

/// What happened on exchange `exchange` with the upstream (numbered by the bridge in the
/// order it posted).
pub enum Up {
    /// The response's head: status and headers (names lower case).
    Head {
        exchange: u64,
        status: u16,
        headers: Vec<(String, String)>,
    },
    /// One message of the response: its JSON body, or the data of one SSE event.
    Message {
        exchange: u64,
        raw: Vec<u8>,
        sse_id: Option<String>,
    },
    /// The response's stream ended or broke before its answer and the bridge asked to resume
    /// it (a GET with `Last-Event-ID`, `request_headers`): the GET's head. Status 200 with an
    /// event stream: what follows on `exchange` came on it; else the resumption was refused.
    Resume {
        exchange: u64,
        status: u16,
        headers: Vec<(String, String)>,
        request_headers: Vec<(String, String)>,
    },
    /// The response's body ended.
    End { exchange: u64 },
    /// The bridge closed the response's stream (a modern request cancelled).
    Closed { exchange: u64 },
    /// No response: the upstream could not be reached, or the connection broke.
    Failed { exchange: u64, why: String },
}

/// The JSON-RPC id of a message, as text (a map key), if it has one.
pub fn id_key(message: &Value) -> Option<String> {
    message
        .get("id")
        .filter(|id| !id.is_null())
        .map(Value::to_string)
}

/// What the loop answers on one POST.
pub enum Out {
    Head(u16, Vec<(String, String)>),
    Data(Bytes),
}

/// One POST (or DELETE) for the loop: its body, headers, connection and where its answer
/// goes.
pub struct Posted {
    /// `POST`, `GET` or `DELETE`.
    pub method: String,
    pub path: String,
    /// The number of its response stream (told back when the client closes it).
    pub stream: u64,
    pub raw: Vec<u8>,
    pub headers: Vec<(String, String)>,
    pub connection: u64,
    pub peer: SocketAddr,
    pub answer: mpsc::UnboundedSender<Out>,
}

/// A request with another method, answered 405 (recorded by the loop).
pub struct NotAllowed {
    pub method: String,
    pub path: String,
    pub headers: Vec<(String, String)>,
}

/// A request the guard refused (recorded by the loop).
pub struct Refused {
    pub reason: String,
    pub peer: SocketAddr,
    pub method: String,
    pub path: String,
    pub headers: Vec<(String, String)>,
}

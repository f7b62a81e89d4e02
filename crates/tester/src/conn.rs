//! The connection of one run to the server under test: raw client messages out, each server
//! message in with the time it arrived. Over stdio this is `agentpi_mcp`'s child-process
//! transport read line by line; the trait leaves room for Streamable HTTP.

use agentpi_mcp::transport::ClientError;
use agentpi_mcp::transport::stdio::{Output, Stdio};
use serde_json::{Map, Value, json};
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
        }
    }

    /// Starts (or reaches) the server for one run.
    pub fn connect(&self) -> Result<Box<dyn Conn>, ClientError> {
        match self {
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

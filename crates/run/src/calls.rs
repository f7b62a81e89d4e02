//! The real calls of a run: each sent to its server as the model starts it, then settled by
//! the first of its answer (`ok`, or `err` for `isError` or a JSON-RPC error), its deadline
//! (`timeout`: the call is cancelled) and its server's end (`crash`). A call's outcome is
//! fixed once settled; a late answer is recorded in the trace and otherwise ignored.

use crate::args;
use crate::peer::{Heard, Peer};
use agentpi_ir::core::OutcomeKind;
use serde_json::Value;
use std::time::{Duration, Instant};

/// How a call ended.
#[derive(Clone, Debug, PartialEq)]
pub struct Settled {
    pub kind: OutcomeKind,
    /// What the server said (the error's message, the result's text), or why there was no
    /// answer.
    pub detail: String,
    /// For `ok`: the result's text, for later templates.
    pub text: Option<String>,
    pub after: Duration,
}

/// One call.
#[derive(Clone, Debug)]
pub struct Call {
    /// The extern channel it was made on.
    pub chan: String,
    pub server: usize,
    pub tool: String,
    pub arguments: Value,
    /// The request id; `None` when the server was gone before the call.
    pub id: Option<u64>,
    pub sent: Instant,
    pub deadline: Option<Instant>,
    pub settled: Option<Settled>,
    /// A cancellation was sent for it.
    pub cancelled: bool,
}

/// The servers of a run and every call made.
pub struct Calls {
    pub peers: Vec<Peer>,
    pub calls: Vec<Call>,
}

impl Calls {
    pub fn new(peers: Vec<Peer>) -> Calls {
        Calls {
            peers,
            calls: Vec::new(),
        }
    }

    /// Sends a call; its index. A call to a server that is gone is settled as `crash` at once.
    pub fn start(
        &mut self,
        chan: &str,
        server: usize,
        tool: &str,
        arguments: Value,
        within: Option<Duration>,
    ) -> usize {
        let sent = Instant::now();
        let id = self.peers[server].call(tool, &arguments, within);
        let settled = id.is_none().then(|| Settled {
            kind: OutcomeKind::Crash,
            detail: format!("server `{}` is gone", self.peers[server].name),
            text: None,
            after: Duration::ZERO,
        });
        self.calls.push(Call {
            chan: chan.to_string(),
            server,
            tool: tool.to_string(),
            arguments,
            id,
            sent,
            deadline: within.map(|w| sent + w),
            settled,
            cancelled: false,
        });
        self.calls.len() - 1
    }

    /// Takes in what the servers say for up to `wait`, and gives up calls past their deadline.
    pub fn pump(&mut self, wait: Duration) {
        let live: Vec<usize> = (0..self.peers.len())
            .filter(|&p| !self.peers[p].closed)
            .collect();
        let wait = self.until_deadline().map_or(wait, |d| d.min(wait));
        // One server may be waited on; several are polled in turn, a slice of the wait each.
        let slice = match live.len() {
            0 | 1 => wait,
            n => (wait / n as u32).max(Duration::from_millis(1)),
        };
        for p in live {
            for heard in self.peers[p].poll(slice) {
                self.hear(p, heard);
            }
        }
        if self.peers.iter().all(|p| p.closed) {
            std::thread::sleep(wait);
        }
        self.expire();
    }

    /// Waits until call `k` is settled.
    pub fn settle(&mut self, k: usize) -> &Settled {
        while self.calls[k].settled.is_none() {
            self.pump(Duration::from_millis(50));
        }
        self.calls[k].settled.as_ref().expect("settled above")
    }

    /// How long until the nearest deadline of an unsettled call.
    fn until_deadline(&self) -> Option<Duration> {
        let now = Instant::now();
        self.calls
            .iter()
            .filter(|c| c.settled.is_none())
            .filter_map(|c| c.deadline)
            .map(|d| d.saturating_duration_since(now))
            .min()
    }

    fn hear(&mut self, server: usize, heard: Heard) {
        let now = Instant::now();
        let open = |c: &Call| c.server == server && c.settled.is_none();
        match heard {
            Heard::Answer(id, message) => {
                if let Some(call) = self.calls.iter_mut().find(|c| open(c) && c.id == Some(id)) {
                    call.settled = Some(classify(&message, now - call.sent));
                }
            }
            Heard::Closed => {
                let name = self.peers[server].name.clone();
                for call in self.calls.iter_mut().filter(|c| open(c)) {
                    call.settled = Some(Settled {
                        kind: OutcomeKind::Crash,
                        detail: format!("server `{name}` ended before answering"),
                        text: None,
                        after: now - call.sent,
                    });
                }
            }
        }
    }

    /// Settles the calls past their deadline as `timeout`, cancelling each.
    fn expire(&mut self) {
        let now = Instant::now();
        for k in 0..self.calls.len() {
            let call = &self.calls[k];
            let late = call.settled.is_none() && call.deadline.is_some_and(|d| d <= now);
            if !late {
                continue;
            }
            let (server, id, after) = (call.server, call.id, now - call.sent);
            let within = call.deadline.map(|d| d - call.sent).unwrap_or_default();
            let reason = format!("no answer within {} ms", within.as_millis());
            let cancelled = id.is_some_and(|id| self.peers[server].cancel(id, &reason));
            let call = &mut self.calls[k];
            call.cancelled = cancelled;
            call.settled = Some(Settled {
                kind: OutcomeKind::Timeout,
                detail: reason,
                text: None,
                after,
            });
        }
    }

    /// Cancels every call still open (a run that stopped before its calls were answered).
    pub fn abandon(&mut self) {
        for k in 0..self.calls.len() {
            if self.calls[k].settled.is_some() {
                continue;
            }
            let (server, id) = (self.calls[k].server, self.calls[k].id);
            let reason = "the run stopped";
            let cancelled = id.is_some_and(|id| self.peers[server].cancel(id, reason));
            let call = &mut self.calls[k];
            call.cancelled = cancelled;
            call.settled = Some(Settled {
                kind: OutcomeKind::Timeout,
                detail: reason.to_string(),
                text: None,
                after: call.sent.elapsed(),
            });
        }
    }
}

/// The outcome an answer stands for.
fn classify(message: &Value, after: Duration) -> Settled {
    if let Some(error) = message.get("error") {
        let code = error.get("code").and_then(Value::as_i64).unwrap_or(0);
        let text = error.get("message").and_then(Value::as_str).unwrap_or("");
        return Settled {
            kind: OutcomeKind::Err,
            detail: format!("JSON-RPC error {code}: {text}"),
            text: None,
            after,
        };
    }
    let result = message.get("result").cloned().unwrap_or(Value::Null);
    let text = args::result_text(&result);
    if result.get("isError").and_then(Value::as_bool) == Some(true) {
        return Settled {
            kind: OutcomeKind::Err,
            detail: text,
            text: None,
            after,
        };
    }
    Settled {
        kind: OutcomeKind::Ok,
        detail: text.clone(),
        text: Some(text),
        after,
    }
}

//! The two monitored sides of a running bridge and what it writes to them, shared by both
//! directions: a message the bridge writes is fed to its side's monitor and queued, in order.

use crate::engine::{To, Written};
use crate::notes::Notes;
use crate::side::Side;
use agentpi_monitor::Dir;
use serde_json::{Value, json};

pub struct Sides {
    /// The side of the client the bridge serves (it writes `s2c` there).
    pub client: Side,
    /// The side of the server the bridge is a client of (it writes `c2s` there).
    pub server: Side,
    /// What to write, in order, each with the client's request it is part of (if told).
    out: Vec<(To, Option<Value>, Vec<u8>)>,
    /// What the bridge dropped and why (for the report), bounded.
    notes: Notes,
    next_id: u64,
}

impl Sides {
    pub fn new(client: Side, server: Side) -> Sides {
        Sides {
            client,
            server,
            out: Vec::new(),
            notes: Notes::default(),
            next_id: 0,
        }
    }

    /// Writes `message` to one side: fed to that side's monitor, queued for the wire.
    pub fn send(&mut self, to: To, message: &Value) {
        self.send_for(to, message, None);
    }

    /// `send`, the message part of the client's request `call` (its elicitation, say).
    pub fn send_for(&mut self, to: To, message: &Value, call: Option<&Value>) {
        // The same bytes as `to_string`, written straight into the vector rather than
        // through a formatter (half the cost).
        let bytes = serde_json::to_vec(message).expect("a JSON value serialises");
        match to {
            To::Client => self.client.message(Dir::S2c, &bytes),
            To::Server => self.server.message(Dir::C2s, &bytes),
        }
        self.out.push((to, call.cloned(), bytes));
    }

    /// A request id of the bridge's own, never used before.
    pub fn fresh_id(&mut self) -> Value {
        self.next_id += 1;
        json!(self.next_id)
    }

    pub fn note(&mut self, text: String) {
        self.notes.push(text);
    }

    pub fn take_out(&mut self) -> Vec<(To, Vec<u8>)> {
        let out = std::mem::take(&mut self.out).into_iter();
        out.map(|(to, _, bytes)| (to, bytes)).collect()
    }

    /// What to write, each with the client's request it is part of.
    pub fn take_written(&mut self) -> Vec<Written> {
        let out = std::mem::take(&mut self.out).into_iter();
        let written = |(to, call, bytes)| Written {
            to,
            session: None,
            call,
            bytes,
        };
        out.map(written).collect()
    }

    pub fn notes(&self) -> &[String] {
        self.notes.all()
    }
}

//! One request of the legacy client in flight through `ToModern`: its own copy of the
//! per-call part of the process (`TMServe`'s body after the handshake), and the data beside
//! the model's labels: the wire ids behind the model's constant ids (the client's request;
//! the modern call and its r-th retry, `Call + r`; the elicitations of each round), the last
//! answer of the server, the input requests of an `input_required` result, the answers
//! collected for them and the `requestState` to echo.

use crate::machine::Machine;
use crate::msg::Kind;
use serde_json::{Map, Value};

pub struct Call {
    /// The client's id of the request.
    pub client: Value,
    pub method: String,
    /// The request's params as the client sent them.
    pub params: Value,
    pub kind: Kind,
    pub machine: Machine,
    /// The wire id of the modern request of each round: `modern[r]` is the model's `Call + r`.
    pub modern: Vec<Value>,
    /// The server's last response to this call (the whole message).
    pub answer: Option<Value>,
    /// The input requests of the last `input_required` result: key, method, params.
    pub inputs: Vec<(String, String, Value)>,
    pub state: Option<Value>,
    /// The methods of the last round's input requests the client did not declare (X1): an
    /// elicitation is declined in the retry, anything else ends the call with an error.
    pub undeclared: Vec<String>,
    /// The bridge's requests to the client for this round: wire id and input key.
    pub asked: Vec<(Value, String)>,
    /// The answers collected this round, by input key.
    pub answers: Map<String, Value>,
    /// Whether every answer of this round was a result (the model's `res(r, ok)`).
    pub answered_ok: bool,
    /// The server's progress the copy is relaying (`TMProgress`).
    pub progress: Option<Value>,
    /// The server's log line the copy is relaying (`TMLog`).
    pub log: Option<Value>,
}

impl Call {
    pub fn new(client: Value, method: &str, params: Value, kind: Kind, machine: Machine) -> Call {
        Call {
            client,
            method: method.to_string(),
            params,
            kind,
            machine,
            modern: Vec::new(),
            answer: None,
            inputs: Vec::new(),
            state: None,
            undeclared: Vec::new(),
            asked: Vec::new(),
            answers: Map::new(),
            answered_ok: true,
            progress: None,
            log: None,
        }
    }

    /// The round in progress: the model's `r`, so that `Call + r` is the request in flight.
    pub fn round(&self) -> i64 {
        self.modern.len() as i64 - 1
    }

    /// Whether `id` is the modern request in flight.
    pub fn in_flight(&self, id: &Value) -> bool {
        self.modern.last() == Some(id)
    }

    /// The progress token the client gave the request, if it asked for progress.
    pub fn token(&self) -> Option<&Value> {
        self.params.pointer("/_meta/progressToken")
    }

    /// The round whose modern request `token` names (each round's request has its own
    /// token, its id), when the client asked for progress.
    pub fn round_of_token(&self, token: &Value) -> Option<i64> {
        self.token()?;
        let r = self.modern.iter().position(|m| m == token)?;
        Some(r as i64)
    }

    /// Whether the bridge asked the client `id` for this call.
    pub fn asked(&self, id: &Value) -> bool {
        self.asked.iter().any(|(a, _)| a == id)
    }
}

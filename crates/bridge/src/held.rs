//! One request of the modern client through `ToLegacy`: its own copy of `TLServe` (or
//! `TLDown`), stepped for that request alone, and the data beside the model's labels: the
//! modern id of each round (the model's `i`, then each retry's `j`), the legacy call's id
//! (the model's `Call`), the legacy server's request held for the client (the model's `e`),
//! the `requestState` that names this call, and when its retry is due.

use crate::machine::Machine;
use crate::msg::Caps;
use serde_json::Value;
use std::time::Instant;

/// The progress token a modern request's `_meta` carries.
fn token(params: &Value) -> Option<Value> {
    params.pointer("/_meta/progressToken").cloned()
}

/// The log level a modern request opted in to (`…/logLevel` in its `_meta`, M9).
fn logs(params: &Value) -> Option<String> {
    let level = params.pointer("/_meta/io.modelcontextprotocol~1logLevel")?;
    level.as_str().map(str::to_string)
}

pub struct Held {
    pub method: String,
    pub params: Value,
    pub caps: Caps,
    pub machine: Machine,
    /// The modern request of each round: `modern[r]`, the last the one to answer.
    pub modern: Vec<Value>,
    /// The progress token of each round's modern request (`tokens[r]`), if it asked.
    pub tokens: Vec<Option<Value>>,
    /// The log level each round's modern request opted in to (`…/logLevel`, M9), if any.
    pub logs: Vec<Option<String>>,
    /// The legacy server's progress the copy is relaying (`TLProgress`).
    pub progress: Option<Value>,
    /// The legacy server's log line the copy is relaying (`TLLog`).
    pub log: Option<Value>,
    /// The bridge's id of the legacy call.
    pub legacy: Option<Value>,
    /// The legacy server's request held for the client: its id and method.
    pub asked: Option<(Value, String)>,
    /// The answer the client's retry brought for it.
    pub answer: Option<Value>,
    /// The `requestState` naming this call (`held-N`).
    pub state: String,
    /// When the client's retry is due (set while the call waits for it).
    pub due: Option<Instant>,
    /// The id of the server's request the bridge last answered for this call (a 404 to that
    /// answer is the model's `lost` in `TLAnswered`).
    pub replied: Option<Value>,
    /// The call was lost with its legacy session (HTTP 404): its `gone` says so.
    pub lost: bool,
    /// The copy waits for the answer to the new session's `initialize` (`TLReopen`).
    pub reopening: bool,
    /// The call holds (part of) the legacy session's turn (`TLTurn`, stdio): given back when
    /// the copy ends.
    pub turn: bool,
}

impl Held {
    pub fn new(id: Value, method: &str, params: Value, caps: Caps, machine: Machine) -> Held {
        let (tokens, logs) = (vec![token(&params)], vec![logs(&params)]);
        Held {
            method: method.to_string(),
            params,
            caps,
            machine,
            modern: vec![id],
            tokens,
            logs,
            progress: None,
            log: None,
            legacy: None,
            asked: None,
            answer: None,
            state: String::new(),
            due: None,
            replied: None,
            lost: false,
            reopening: false,
            turn: false,
        }
    }

    /// The round in progress (the model's `r`).
    pub fn round(&self) -> i64 {
        self.modern.len() as i64 - 1
    }

    /// A retry `id` of the call: the round's request and its token.
    pub fn push(&mut self, id: Value, params: &Value) {
        self.modern.push(id);
        self.tokens.push(token(params));
        self.logs.push(logs(params));
    }

    /// The modern request to answer.
    pub fn current(&self) -> &Value {
        self.modern.last().expect("one request at least")
    }
}

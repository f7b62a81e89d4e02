//! X1 for `--to modern`: the input requests of a modern server's `input_required` round that
//! the legacy client did not declare at `initialize` never reach it. This sorts a round's
//! requests and names the round as the model's `ToModern` takes it (`input_required(j)` or
//! `undeclared(j, k)`, models/mcp/bridge.pi).

use crate::msg::{Kind, Msg};
use serde_json::{Map, Value, json};

/// A round's input requests, sorted by what the client declared.
#[derive(Default)]
pub struct Sorted {
    /// Declared: asked of the client (key, method, params).
    pub asked: Vec<(String, String, Value)>,
    /// Undeclared elicitations, each answered `decline` in the retry by the bridge: the
    /// modern era's own refusal of an elicitation (an `ElicitResult`).
    pub declined: Map<String, Value>,
    /// The methods of the undeclared requests that have no refusal in an `InputResponse`
    /// (sampling, roots, or a method that is none of the three): the call ends with an error.
    pub refused: Vec<String>,
    /// The methods of every undeclared request, for the bridge's note and the error.
    pub undeclared: Vec<String>,
}

/// The capability a legacy client declares at `initialize` for an input request's method.
fn capability(method: &str) -> Option<&'static str> {
    match method {
        "elicitation/create" => Some("elicitation"),
        "sampling/createMessage" => Some("sampling"),
        "roots/list" => Some("roots"),
        _ => None,
    }
}

/// Sorts `inputs` (key, method, params) by the client's `capabilities`. The kinds are the
/// model's: a declared `elicitation` takes both modes and a declared `sampling` its tools.
pub fn sort(inputs: Vec<(String, String, Value)>, capabilities: &Value) -> Sorted {
    let mut sorted = Sorted::default();
    for (key, method, params) in inputs {
        let declared = capability(&method).is_some_and(|c| capabilities.get(c).is_some());
        if declared {
            sorted.asked.push((key, method, params));
            continue;
        }
        sorted.undeclared.push(method.clone());
        if method == "elicitation/create" {
            sorted.declined.insert(key, json!({"action": "decline"}));
        } else {
            sorted.refused.push(method);
        }
    }
    sorted
}

impl Sorted {
    /// The model's label of the round answering request `j`: `undeclared(j, k)` with the first
    /// refused kind (a method that is none of the three counts as roots: neither has a
    /// refusal), else `undeclared(j, elicitation)` when only declined elicitations remain,
    /// else `input_required(j)` (the client is asked what it declared; an undeclared
    /// elicitation beside it is declined in the same retry).
    pub fn label(&self, j: i64) -> Msg {
        if let Some(method) = self.refused.first() {
            let kind = match method.as_str() {
                "sampling/createMessage" => Kind::Sampling,
                _ => Kind::Roots,
            };
            return Msg::Undeclared(j, kind);
        }
        if self.asked.is_empty() && !self.declined.is_empty() {
            return Msg::Undeclared(j, Kind::Elicitation);
        }
        Msg::InputRequired(j)
    }
}

//! `--to modern`: a legacy client reaches a modern server through the process `ToModern` of
//! `mcp/bridge`. Every message from either peer is read as the model's value and given to
//! the process that should take it (the session part for the handshake, `Pong` for pings, a
//! call's own copy of the per-call part for everything about that call); every output of
//! the process is written as a real message (`wire`). A message no enabled input takes gets
//! a JSON-RPC error (a request) or is noted and dropped (a notification, a response): the
//! bridge never guesses. Both sides are monitored as the messages cross (`side`).

use crate::call::Call;
use crate::engine::{Engine, Written};
use crate::machine::{Machine, Refusal};
use crate::model::Model;
use crate::msg::{CALL, Caps, DISC, INIT, Kind, Msg, PING};
use crate::side::Side;
use crate::sides::Sides;
use crate::subscriptions::Subscriptions;
use crate::undeclared;
use crate::wire::{self, Declared, Shape};
use agentpi_ir::core::ChanId;
use agentpi_monitor::Dir;
use serde_json::{Value, json};
use std::time::Instant;

pub use crate::engine::To;

pub use crate::wire::BRIDGE_ERROR;

pub struct ToModern {
    model: &'static Model,
    /// The session part: the handshake, then (at `TMServe(c, l)`) the template of every call.
    session: Machine,
    pong: Machine,
    caps: Caps,
    declared: Declared,
    /// The client's `initialize` id and the version it offered, until answered.
    init: Option<(Value, Option<String>)>,
    discover_id: Option<Value>,
    discover: Option<Value>,
    calls: Vec<Call>,
    /// The bridge's requests to the client it withdrew (`cancel(r)`), whose answers may cross.
    withdrawn: Vec<Value>,
    /// What a request in flight when the server went away is told (the model's `gone(i)`).
    gone_text: String,
    /// The legacy client's side and the modern server's.
    sides: Sides,
    /// `resources/subscribe` and list changes through `subscriptions/listen` (`TMSubs`).
    subs: Subscriptions,
}

impl ToModern {
    pub fn new(model: &'static Model, legacy: Side, modern: Side) -> Result<ToModern, String> {
        Ok(ToModern {
            model,
            session: Machine::start(model, "RunToModern")?,
            pong: Machine::start(model, "RunPong")?,
            caps: Caps::Bare,
            declared: Declared::default(),
            init: None,
            discover_id: None,
            discover: None,
            calls: Vec::new(),
            withdrawn: Vec::new(),
            gone_text: String::new(),
            sides: Sides::new(legacy, modern),
            subs: Subscriptions::new(model),
        })
    }

    /// Its sides, lent by `per_session` (one shared pair for every client session).
    pub(crate) fn sides_mut(&mut self) -> &mut Sides {
        &mut self.sides
    }

    /// The client's ids of the calls in flight (a session that ends cancels them).
    pub(crate) fn calls_in_flight(&self) -> Vec<Value> {
        self.calls.iter().map(|c| c.client.clone()).collect()
    }

    /// How many requests of the client are in flight.
    fn count_in_flight(&self) -> usize {
        self.calls.len() + usize::from(self.init.is_some())
    }

    // ---- Writing ------------------------------------------------------------------------

    fn send(&mut self, to: To, message: &Value) {
        self.sides.send(to, message);
    }

    fn fresh_id(&mut self) -> Value {
        self.sides.fresh_id()
    }

    fn note(&mut self, text: String) {
        self.sides.note(text);
    }

    // ---- From the legacy client ---------------------------------------------------------

    /// A line from the legacy client.
    fn client_line(&mut self, raw: &[u8]) {
        self.sides.client.message(Dir::C2s, raw);
        let Ok(message) = serde_json::from_slice::<Value>(raw) else {
            let reply = wire::error(&Value::Null, -32700, "not JSON");
            return self.send(To::Client, &reply);
        };
        match wire::shape(&message) {
            Shape::Request(id, method) => {
                let (id, method) = (id.clone(), method.to_string());
                self.client_request(id, &method, &message);
            }
            Shape::Notification(method) => {
                let method = method.to_string();
                self.client_notification(&method, &message);
            }
            Shape::Response(id) => {
                let id = id.clone();
                self.client_response(&id, &message);
            }
            Shape::Invalid => {
                let id = message.get("id").cloned().unwrap_or(Value::Null);
                self.send(
                    To::Client,
                    &wire::error(&id, -32600, "not a JSON-RPC message"),
                );
            }
        }
    }

    fn client_request(&mut self, id: Value, method: &str, message: &Value) {
        let params = message.get("params").cloned().unwrap_or_else(|| json!({}));
        let lc2s = self.model.lc2s;
        match method {
            "initialize" => {
                let declared = params.get("capabilities").cloned().unwrap_or(json!({}));
                let caps = wire::caps(&declared);
                match self
                    .session
                    .input(lc2s, Msg::Req(INIT, Kind::Initialize(caps)))
                {
                    Ok(()) => {
                        self.caps = caps;
                        self.declared.capabilities = declared;
                        self.declared.client_info =
                            params.get("clientInfo").cloned().unwrap_or(json!({}));
                        let offered = params.get("protocolVersion").and_then(Value::as_str);
                        self.init = Some((id, offered.map(str::to_string)));
                        self.pump_session();
                    }
                    Err(why) => self.refuse(&id, method, why),
                }
            }
            "ping" => match self.pong.input(lc2s, Msg::Req(PING, Kind::Ping)) {
                Ok(()) => self.pump_pong(&id),
                Err(why) => self.refuse(&id, method, why),
            },
            "resources/subscribe" | "resources/unsubscribe" if self.subs.started() => {
                if !self
                    .subs
                    .client_request(&id, method, &params, &mut self.sides)
                {
                    self.refuse(&id, method, Refusal::NoInput);
                }
            }
            _ => {
                let kind = wire::kind_of(method, &params);
                let mut machine = self.session.clone();
                match machine.input(lc2s, Msg::Req(CALL, kind)) {
                    Ok(()) => {
                        self.calls
                            .push(Call::new(id, method, params, kind, machine));
                        self.pump_call(self.calls.len() - 1);
                    }
                    Err(why) => self.refuse(&id, method, why),
                }
            }
        }
    }

    /// A request no enabled transition takes: an error to its sender, naming it.
    fn refuse(&mut self, id: &Value, method: &str, why: Refusal) {
        let text = match why {
            Refusal::NoInput => format!(
                "agentpi bridge: `{method}` is not one the bridge can take now (no transition \
                 of mcp/bridge's ToModern takes it)"
            ),
            Refusal::Fault(f) => format!("agentpi bridge: the model faulted on `{method}`: {f}"),
        };
        self.note(text.clone());
        self.send(To::Client, &wire::error(id, BRIDGE_ERROR, &text));
    }

    fn client_notification(&mut self, method: &str, message: &Value) {
        let lc2s = self.model.lc2s;
        match method {
            "notifications/initialized" => {
                if self
                    .session
                    .input(lc2s, Msg::Note(Kind::Initialized))
                    .is_err()
                {
                    self.note("dropped a notifications/initialized out of place".into());
                } else {
                    let discover = self.discover.as_ref();
                    self.subs.start(discover, &self.declared, &mut self.sides);
                }
            }
            "notifications/cancelled" => {
                let of = message.pointer("/params/requestId").cloned();
                let at = self
                    .calls
                    .iter()
                    .position(|c| Some(&c.client) == of.as_ref());
                let Some(k) = at else {
                    // Crossed the answer (the call is over): nothing to cancel.
                    return self.note(format!("a cancel of {of:?}, no call in flight"));
                };
                match self.calls[k].machine.input(lc2s, Msg::Cancel(CALL)) {
                    Ok(()) => self.pump_call(k),
                    Err(_) => self.note(format!("a cancel of {of:?} the call cannot take now")),
                }
            }
            other => self.note(format!("`{other}` from the client is not carried")),
        }
    }

    fn client_response(&mut self, id: &Value, message: &Value) {
        let Some(k) = self.calls.iter().position(|c| c.asked(id)) else {
            if let Some(w) = self.withdrawn.iter().position(|w| w == id) {
                self.withdrawn.remove(w);
                return self.note(format!(
                    "dropped the answer to {id}: it crossed its withdrawal"
                ));
            }
            return self.note(format!("a response {id} to nothing the bridge asked"));
        };
        let call = &mut self.calls[k];
        let at = call.asked.iter().position(|(a, _)| a == id).expect("asked");
        let (_, key) = call.asked.remove(at);
        match message.get("result") {
            Some(result) => {
                call.answers.insert(key, result.clone());
            }
            None => call.answered_ok = false,
        }
        if !call.asked.is_empty() {
            return;
        }
        let (r, ok) = (call.round(), call.answered_ok);
        match call.machine.input(self.model.lc2s, Msg::Res(r, ok)) {
            Ok(()) => self.pump_call(k),
            Err(_) => self.note(format!("the answers of round {r} were not expected")),
        }
    }

    // ---- From the modern server ---------------------------------------------------------

    /// A line from the modern server; `stream`: the bridge's request on whose response stream
    /// it came (over `--upstream`), if known.
    fn server_line(&mut self, raw: &[u8], stream: Option<&Value>) {
        self.sides.server.message(Dir::S2c, raw);
        let Ok(message) = serde_json::from_slice::<Value>(raw) else {
            return self.note("a line from the server that is not JSON".into());
        };
        match wire::shape(&message) {
            Shape::Response(id) if self.subs.server_response(id, &message, &mut self.sides) => {}
            Shape::Response(id) => {
                let id = id.clone();
                self.server_response(&id, message);
            }
            // A server ends a listen with `notifications/cancelled` (or a final result).
            Shape::Notification("notifications/cancelled") => {
                let of = message.pointer("/params/requestId").unwrap_or(&Value::Null);
                let ended = json!({"error": {"code": BRIDGE_ERROR, "message": "cancelled"}});
                if !self.subs.server_response(of, &ended, &mut self.sides) {
                    self.note("a notifications/cancelled from the server (no listen)".into());
                }
            }
            Shape::Notification(method)
                if self
                    .subs
                    .server_notification(method, &message, &mut self.sides) => {}
            Shape::Notification("notifications/message") => self.server_log(message, stream),
            Shape::Notification("notifications/progress") => self.server_progress(message),
            // List changes outside a listen, other notifications: relayed as they are
            // (outside the model), each with the call on whose stream it came.
            Shape::Notification(_) => {
                let call = stream.and_then(|id| self.call_of(id));
                self.sides.send_for(To::Client, &message, call.as_ref());
            }
            Shape::Request(id, method) => {
                let text = format!("a modern server sends no requests (`{method}`)");
                let id = id.clone();
                self.note(text.clone());
                self.send(To::Server, &wire::error(&id, -32601, &text));
            }
            Shape::Invalid => self.note("a message from the server that is not JSON-RPC".into()),
        }
    }

    /// Whether the server's discover declared `logging` (the model's `l`).
    fn logging(&self) -> bool {
        self.discover.as_ref().is_some_and(wire::declares_logging)
    }

    /// A server's progress: the model's `prog(Call + r)`, `r` the round whose request its
    /// token names (each round's request carries a token of its own, `call_request`), given
    /// to that call's copy; `TMProgress` relays it under the client's own token. A progress
    /// of a round that is over, or naming no request in flight, no transition takes: noted
    /// and dropped (the server broke P2 or P4; its side's monitor says so).
    fn server_progress(&mut self, message: Value) {
        let token = message.pointer("/params/progressToken").cloned();
        let found = token.as_ref().and_then(|t| {
            let round = |(k, c): (usize, &Call)| c.round_of_token(t).map(|r| (k, r));
            self.calls.iter().enumerate().find_map(round)
        });
        let Some((k, r)) = found else {
            return self.note(format!("dropped a progress naming no request: {token:?}"));
        };
        let ms2c = self.model.ms2c;
        match self.calls[k].machine.input(ms2c, Msg::Prog(CALL + r)) {
            Ok(()) => {
                self.calls[k].progress = Some(message);
                self.pump_call(k);
            }
            Err(_) => self.note(format!("dropped a progress of round {r}: not expected")),
        }
    }

    /// A server's log line: the model's `mlog(Call + r)` for the call on whose stream it came
    /// (over HTTP), or over stdio, where a line names no call, for the first call in flight
    /// whose copy takes it (M14: a line is of a request in flight; every call here is this
    /// client's). `TMAwait` relays it only when the server declared `logging`, else drops it
    /// (X6 on the legacy side in the bridge's name; the server's own M9 is its monitor's).
    fn server_log(&mut self, message: Value, stream: Option<&Value>) {
        let on_stream = stream.and_then(|id| self.calls.iter().position(|c| c.in_flight(id)));
        let candidates: Vec<usize> = match (stream, on_stream) {
            (Some(_), Some(k)) => vec![k],
            (Some(_), None) => Vec::new(),
            (None, _) => (0..self.calls.len()).collect(),
        };
        let ms2c = self.model.ms2c;
        let took = candidates.into_iter().find(|&k| {
            let r = self.calls[k].round();
            self.calls[k]
                .machine
                .input(ms2c, Msg::MLog(CALL + r))
                .is_ok()
        });
        let Some(k) = took else {
            return self.note("dropped a notifications/message: no call in flight takes it".into());
        };
        match self.logging() {
            true => self.calls[k].log = Some(message),
            false => {
                let text = "dropped a notifications/message: the server did not declare logging";
                self.note(text.into());
            }
        }
        self.pump_call(k);
    }

    /// `ls2c!note(log)`: the server's log line, to the client whose call it is part of.
    fn call_log(&mut self, k: usize) {
        let call = &mut self.calls[k];
        let Some(message) = call.log.take() else {
            return;
        };
        let client = call.client.clone();
        self.sides.send_for(To::Client, &message, Some(&client));
    }

    /// `ls2c!prog(i)`: the server's progress, under the token the client gave its request.
    fn call_progress(&mut self, k: usize) {
        let call = &mut self.calls[k];
        let (Some(mut message), Some(token)) = (call.progress.take(), call.token()) else {
            return;
        };
        message["params"]["progressToken"] = token.clone();
        let client = call.client.clone();
        self.sides.send_for(To::Client, &message, Some(&client));
    }

    /// The client's id of the call whose request to the server is `request`.
    fn call_of(&self, request: &Value) -> Option<Value> {
        let call = self.calls.iter().find(|c| c.in_flight(request));
        call.map(|c| c.client.clone())
    }

    fn server_response(&mut self, id: &Value, message: Value) {
        let ms2c = self.model.ms2c;
        if self.discover_id.as_ref() == Some(id) {
            self.discover_id = None;
            let result = message.get("result").cloned();
            let ok = result.as_ref().is_some_and(wire::offers_modern);
            // The model's `logs`: a success that declares `logging` (TMServe's `l`).
            let msg = match ok && result.as_ref().is_some_and(wire::declares_logging) {
                true => Msg::Logs(DISC),
                false => Msg::Res(DISC, ok),
            };
            self.discover = result;
            return match self.session.input(ms2c, msg) {
                Ok(()) => self.pump_session(),
                Err(_) => self.note("the discover answer was not expected".into()),
            };
        }
        let Some(k) = self.calls.iter().position(|c| c.in_flight(id)) else {
            // An answer that crossed a cancel (or names nothing): dropped, as the model's
            // bridge drops an answer after the cancel.
            return self.note(format!("dropped the server's answer to {id}"));
        };
        let call = &mut self.calls[k];
        let j = CALL + call.round();
        let result = message.get("result");
        let msg = match result
            .and_then(|r| r.get("resultType"))
            .and_then(Value::as_str)
        {
            Some("input_required") => {
                let r = result.expect("has a resultType");
                let inputs = wire::input_requests(r);
                let round = undeclared::sort(inputs, &self.declared.capabilities);
                call.state = r.get("requestState").cloned();
                let label = round.label(j);
                let ends = match round.refused.is_empty() {
                    true => "declined in the retry",
                    false => "the call ends with an error",
                };
                call.inputs = round.asked;
                call.answers = round.declined;
                call.undeclared = round.undeclared;
                if !call.undeclared.is_empty() {
                    let text = format!(
                        "the server asked for {} the client did not declare (X1): {ends}",
                        call.undeclared.join(", ")
                    );
                    self.sides.note(text);
                }
                label
            }
            _ => Msg::Res(j, result.is_some()),
        };
        call.answer = Some(message);
        match call.machine.input(ms2c, msg) {
            Ok(()) => self.pump_call(k),
            Err(_) => self.note(format!("dropped the server's answer to {id}: not expected")),
        }
    }

    // ---- The outputs of the process -------------------------------------------------------

    fn outputs(&self) -> [ChanId; 2] {
        [self.model.ls2c, self.model.mc2s]
    }

    fn pump_session(&mut self) {
        let chans = self.outputs();
        while let Ok(Some((chan, msg))) = self.session.output(&chans) {
            match (chan == self.model.mc2s, msg) {
                (true, Msg::MReq(_, Kind::Discover, _)) => {
                    let id = self.fresh_id();
                    self.discover_id = Some(id.clone());
                    let params = self.declared.params(None);
                    self.send(To::Server, &wire::request(&id, "server/discover", params));
                }
                (false, Msg::Res(_, ok)) => self.answer_initialize(ok),
                (false, Msg::Gone(_)) => self.answer_initialize_gone(),
                (_, other) => self.note(format!("unexpected output {other:?} of the session")),
            }
        }
    }

    fn answer_initialize(&mut self, ok: bool) {
        let Some((id, offered)) = self.init.take() else {
            return;
        };
        let reply = match (ok, &self.discover) {
            (true, Some(discover)) => {
                let version = wire::negotiate(offered.as_deref());
                wire::result(&id, wire::initialize_result(discover, version))
            }
            _ => wire::error(
                &id,
                BRIDGE_ERROR,
                "agentpi bridge: the server does not speak 2026-07-28 (server/discover)",
            ),
        };
        self.send(To::Client, &reply);
    }

    /// `gone(i)` for the client's `initialize`: the server went away during `server/discover`.
    fn answer_initialize_gone(&mut self) {
        if let Some((id, _)) = self.init.take() {
            let reply = wire::error(&id, BRIDGE_ERROR, &self.gone_text);
            self.send(To::Client, &reply);
        }
    }

    fn pump_pong(&mut self, id: &Value) {
        let chans = self.outputs();
        while let Ok(Some((_, msg))) = self.pong.output(&chans) {
            if let Msg::Res(_, true) = msg {
                self.send(To::Client, &wire::result(id, json!({})));
            }
        }
    }

    fn pump_call(&mut self, k: usize) {
        let chans = self.outputs();
        loop {
            let step = self.calls[k].machine.output(&chans);
            let Ok(Some((chan, msg))) = step else {
                if let Err(why) = step {
                    self.note(format!("a call's copy faulted: {why:?}"));
                }
                break;
            };
            let to_server = chan == self.model.mc2s;
            match (to_server, msg) {
                (true, Msg::MReq(..)) | (true, Msg::Retry(..)) => self.call_request(k),
                (true, Msg::Cancel(j)) => self.call_cancel(k, j),
                (false, Msg::Req(_, Kind::Elicitation)) => self.call_ask(k),
                (false, Msg::Cancel(_)) => self.call_withdraw(k),
                (false, Msg::Res(_, ok)) => self.call_answer(k, ok),
                (false, Msg::Prog(_)) => self.call_progress(k),
                (false, Msg::Note(Kind::Log)) => self.call_log(k),
                (false, Msg::Gone(_)) => {
                    let id = self.calls[k].client.clone();
                    let reply = wire::error(&id, BRIDGE_ERROR, &self.gone_text);
                    self.send(To::Client, &reply);
                }
                (_, other) => self.note(format!("unexpected output {other:?} of a call")),
            }
        }
        if self.calls[k].machine.ended() {
            self.calls.remove(k);
        }
    }

    /// `mreq(Call, ...)` or `retry(Call + r + 1, ...)`: the request with a new id, the modern
    /// `_meta` (a progress token of its own), and on a retry the answers and `requestState`.
    fn call_request(&mut self, k: usize) {
        let id = self.fresh_id();
        let call = &mut self.calls[k];
        let mut params = self.declared.params(Some(&call.params));
        if !call.modern.is_empty() {
            params = wire::retry_params(&params, &call.answers, call.state.as_ref());
        }
        // A token of this round's own (the request's id, unique on the modern wire across
        // rounds and client sessions): its progress names the round (`server_progress`).
        if call.token().is_some() {
            params["_meta"]["progressToken"] = id.clone();
        }
        call.modern.push(id.clone());
        call.answers.clear();
        call.answered_ok = true;
        let method = call.method.clone();
        self.send(To::Server, &wire::request(&id, &method, params));
    }

    fn call_cancel(&mut self, k: usize, j: i64) {
        let Some(id) = self.calls[k].modern.get((j - CALL) as usize).cloned() else {
            return self.note(format!("a cancel of round {j} never sent"));
        };
        let reason = "the legacy client cancelled (agentpi bridge)";
        let message = json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
                             "params": {"requestId": id, "reason": reason}});
        self.send(To::Server, &message);
    }

    /// `req(r, elicitation)`: the round's input requests, each a legacy request to the client.
    fn call_ask(&mut self, k: usize) {
        let inputs = std::mem::take(&mut self.calls[k].inputs);
        if inputs.is_empty() {
            // Only a `requestState`: nothing to ask; the round is answered at once.
            let r = self.calls[k].round();
            let lc2s = self.model.lc2s;
            let _ = self.calls[k].machine.input(lc2s, Msg::Res(r, true));
            return;
        }
        let call = self.calls[k].client.clone();
        for (key, method, params) in inputs {
            let id = self.fresh_id();
            self.calls[k].asked.push((id.clone(), key));
            let ask = wire::request(&id, &method, params);
            self.sides.send_for(To::Client, &ask, Some(&call));
        }
    }

    /// `cancel(r)` to the legacy client: the call was cancelled (or its server went away) while
    /// the round's requests to the client were pending; each is withdrawn, and an answer that
    /// crosses the withdrawal is dropped (`withdrawn`).
    fn call_withdraw(&mut self, k: usize) {
        let asked = std::mem::take(&mut self.calls[k].asked);
        let call = self.calls[k].client.clone();
        for (id, _) in asked {
            let reason = "agentpi bridge: the call this asked for is over";
            let message = json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
                                 "params": {"requestId": id, "reason": reason}});
            self.sides.send_for(To::Client, &message, Some(&call));
            self.withdrawn.push(id);
        }
    }

    /// `res(i, ok)` to the legacy client: the server's final answer under the client's id,
    /// or the bridge's error where the model answers `false` on its own.
    fn call_answer(&mut self, k: usize, ok: bool) {
        let call = &self.calls[k];
        let id = call.client.clone();
        let answer = call.answer.as_ref();
        let reply = match (ok, call.kind) {
            (true, Kind::Logging) => {
                self.declared.log_level = call.params.get("level").cloned();
                wire::result(&id, json!({}))
            }
            (true, _) => {
                let result = answer
                    .and_then(|a| a.get("result"))
                    .cloned()
                    .unwrap_or(json!({}));
                wire::result(&id, wire::legacy_result(&result))
            }
            (false, Kind::Logging) => wire::error(
                &id,
                -32601,
                "agentpi bridge: the server does not declare `logging` (server/discover)",
            ),
            (false, Kind::Task) => wire::error(
                &id,
                -32601,
                "agentpi bridge: task-augmented requests are not carried to a 2026-07-28 server",
            ),
            (false, _) => match answer.and_then(|a| a.get("error")) {
                Some(error) => json!({"jsonrpc": "2.0", "id": id, "error": error}),
                None => wire::error(&id, BRIDGE_ERROR, &self.gave_up(k)),
            },
        };
        self.send(To::Client, &reply);
    }

    /// Why the model answered an `input_required` with an error.
    fn gave_up(&self, k: usize) -> String {
        let undeclared = &self.calls[k].undeclared;
        if !undeclared.is_empty() {
            return format!(
                "agentpi bridge: the server asks for {}, which this client did not declare at \
                 initialize (X1): not carried",
                undeclared.join(", ")
            );
        }
        match self.caps {
            Caps::Bare => "agentpi bridge: the server asks for input (elicitation, sampling or \
                           roots) that this client did not declare"
                .to_string(),
            _ => format!(
                "agentpi bridge: the server asked for input more than K = {} times",
                crate::model::rounds()
            ),
        }
    }

    // ---- Faults ---------------------------------------------------------------------------

    /// The server went away: the model's `down`, given to the session part (a discover in
    /// flight: `gone` for the client's `initialize`) and to every call's copy (`gone(i)` for
    /// its request, its pending elicitations withdrawn first), each stepped as the checks
    /// explored it. A copy that takes no `down` is a bug of the model's coverage: noted, and
    /// its client still gets the error (the bridge is about to end).
    fn gone(&mut self, why: &str) {
        self.gone_text = format!("agentpi bridge: the server {why}");
        let (ms2c, down) = (self.model.ms2c, Msg::Down);
        if self.init.is_some() && self.session.input(ms2c, down).is_ok() {
            self.pump_session();
        }
        // In the order the calls came; a copy that ends is removed by `pump_call`.
        let mut k = 0;
        while k < self.calls.len() {
            let before = self.calls.len();
            match self.calls[k].machine.input(ms2c, down) {
                Ok(()) => self.pump_call(k),
                Err(why) => {
                    let call = self.calls.remove(k);
                    let text = format!("the server's end is no transition of a call: {why:?}");
                    self.note(text);
                    let reply = wire::error(&call.client, BRIDGE_ERROR, &self.gone_text);
                    self.send(To::Client, &reply);
                }
            }
            k += usize::from(self.calls.len() == before);
        }
        self.subs.gone(&self.gone_text, &mut self.sides);
        if let Some((id, _)) = self.init.take() {
            self.note("the server's end is no transition of the session".into());
            self.send(To::Client, &wire::error(&id, BRIDGE_ERROR, &self.gone_text));
        }
    }
}

impl Engine for ToModern {
    fn client(&mut self, raw: &[u8]) {
        self.client_line(raw);
    }

    fn server(&mut self, raw: &[u8]) {
        self.server_line(raw, None);
    }

    fn server_on_stream(&mut self, raw: &[u8], request: &Value) {
        self.server_line(raw, Some(request));
    }

    fn in_flight(&self) -> usize {
        self.count_in_flight()
    }

    fn server_gone(&mut self, why: &str) {
        self.gone(why);
    }

    fn closing(&mut self) {
        self.subs.close(&mut self.sides);
    }

    /// A re-open of a listen the server ended, after its back-off.
    fn due(&self) -> Option<Instant> {
        self.subs.due()
    }

    fn tick(&mut self, now: Instant) {
        self.subs.tick(now, &mut self.sides);
    }

    fn take_out(&mut self) -> Vec<(To, Vec<u8>)> {
        self.sides.take_out()
    }

    fn take_routed(&mut self) -> Vec<Written> {
        self.sides.take_written()
    }

    fn client_side(&mut self) -> &mut Side {
        &mut self.sides.client
    }

    fn server_side(&mut self) -> &mut Side {
        &mut self.sides.server
    }

    fn notes(&self) -> &[String] {
        self.sides.notes()
    }
}

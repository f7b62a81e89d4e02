//! `--to legacy`: a modern client reaches a legacy server through the process `ToLegacy` of
//! `mcp/bridge`. The session part (`initialize`, its result, `notifications/initialized`) is
//! stepped once at start; each request of the client then gets its own copy of the state it
//! reaches (`TLServe`, or `TLDown` when the server refused the session), stepped for that
//! request alone until it is back where it started. A legacy server's request in the middle
//! of a call becomes an `input_required` result, the legacy call held until the client's
//! retry (its `requestState` names the copy) or the timeout, the model's `tau`. A message no
//! enabled input takes gets a JSON-RPC error or is noted and dropped: the bridge never
//! guesses. Both sides are monitored as the messages cross (`side`). On stdio, where a server's
//! request names no call, the calls take the legacy session's turn (`TLTurn`, stepped as its
//! own process): a call that could be asked is sent only when no other is open, so the
//! server's elicitation is for the one call that can take it (docs/bridge.md, "Which call
//! asks").

use crate::engine::{Engine, To, Written};
use crate::held::Held;
use crate::machine::{Machine, Refusal};
use crate::model::Model;
use crate::modern_wire as mw;
use crate::msg::{CALL, Caps, DISC, INIT, Kind, Msg};
use crate::side::Side;
use crate::sides::Sides;
use crate::to_modern::BRIDGE_ERROR;
use crate::wire::{self, Shape};
use agentpi_ir::core::ChanId;
use agentpi_monitor::Dir;
use serde_json::{Value, json};
use std::time::{Duration, Instant};

/// What a request lost with its legacy session is told (the model's `gone(i)` after `lost`).
const LOST: &str = "agentpi bridge: the legacy server lost the session while this call was \
                    held (HTTP 404, or its stream broke): it cannot be resumed";

/// The re-opening of a lost legacy session (the model's `TLReopen`), shared by every copy
/// that took `lost`: one `initialize` and one `notifications/initialized` on the wire.
enum Reopen {
    /// None under way since the last loss.
    Idle,
    /// The new `initialize` is sent, with this id.
    Pending(Value),
    /// It was answered (`ok`); whether `notifications/initialized` is sent.
    Open { ok: bool, initialized: bool },
}

pub struct ToLegacy {
    model: &'static Model,
    /// The session part; once `ready`, the template of every request.
    session: Machine,
    ready: bool,
    init_id: Value,
    /// The legacy server's `initialize` result.
    init: Value,
    /// The client's lines that came before the session was open (the model reads none).
    waiting: Vec<Vec<u8>>,
    held: Vec<Held>,
    next_state: u64,
    retry_timeout: Duration,
    /// What a request in flight when the server went away is told (the model's `gone(i)`).
    gone_text: String,
    /// The modern client's side and the legacy server's.
    sides: Sides,
    reopen: Reopen,
    /// Retries of calls lost with their session that came while it is opened again: the
    /// model's retry waits for the re-opening (`TLReopen` then `TLLost`), so they are taken after.
    deferred: Vec<Vec<u8>>,
    /// The legacy session's turn (`TLTurn`) on stdio; none over HTTP, where the stream a
    /// server's request comes on names its call.
    turn: Option<Machine>,
    /// Requests the turn did not take yet, in the order they came: the client's id, its
    /// caps, the message.
    queued: Vec<(Value, Caps, Value)>,
}

impl ToLegacy {
    /// The bridge at its start: the legacy `initialize` is written at once.
    pub fn new(
        model: &'static Model,
        modern: Side,
        legacy: Side,
        retry_timeout: Duration,
    ) -> Result<ToLegacy, String> {
        let mut bridge = ToLegacy {
            model,
            session: Machine::start(model, "RunToLegacy")?,
            ready: false,
            init_id: Value::Null,
            init: json!({}),
            waiting: Vec::new(),
            held: Vec::new(),
            next_state: 0,
            retry_timeout,
            gone_text: String::new(),
            sides: Sides::new(modern, legacy),
            reopen: Reopen::Idle,
            deferred: Vec::new(),
            turn: Some(Machine::start(model, "RunTurn")?),
            queued: Vec::new(),
        };
        bridge.pump_session();
        Ok(bridge)
    }

    /// The server is a Streamable HTTP one (`--upstream`): each call's stream names the call
    /// a server's request is for (`Engine::server_on_stream`), so calls need no turn.
    pub fn by_stream(mut self) -> ToLegacy {
        self.turn = None;
        self
    }

    fn send(&mut self, to: To, message: &Value) {
        self.sides.send(to, message);
    }

    fn fresh_id(&mut self) -> Value {
        self.sides.fresh_id()
    }

    fn note(&mut self, text: String) {
        self.sides.note(text);
    }

    fn outputs(&self) -> [ChanId; 2] {
        [self.model.ms2c, self.model.lc2s]
    }

    // ---- The session ----------------------------------------------------------------------

    fn pump_session(&mut self) {
        let chans = self.outputs();
        while let Ok(Some((_, msg))) = self.session.output(&chans) {
            match msg {
                Msg::Req(_, Kind::Initialize(_)) => {
                    let id = self.fresh_id();
                    self.init_id = id.clone();
                    let init = wire::request(&id, "initialize", mw::initialize_params());
                    self.send(To::Server, &init);
                }
                Msg::Note(Kind::Initialized) => {
                    let note = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
                    self.send(To::Server, &note);
                }
                other => self.note(format!("unexpected output {other:?} of the session")),
            }
        }
    }

    fn session_answer(&mut self, message: &Value) {
        let result = message.get("result").cloned();
        let ok = result.is_some();
        self.init = result.unwrap_or_else(|| json!({}));
        if self
            .session
            .input(self.model.ls2c, Msg::Res(INIT, ok))
            .is_err()
        {
            return self.note("the initialize answer was not expected".into());
        }
        self.pump_session();
        if !ok {
            self.note("the legacy server refused initialize: every request fails".into());
        }
        self.ready = true;
        for line in std::mem::take(&mut self.waiting) {
            self.client_line(&line);
        }
    }

    // ---- From the modern client -----------------------------------------------------------

    fn client_line(&mut self, raw: &[u8]) {
        let Ok(message) = serde_json::from_slice::<Value>(raw) else {
            let reply = wire::error(&Value::Null, -32700, "not JSON");
            return self.send(To::Client, &reply);
        };
        match wire::shape(&message) {
            Shape::Request(id, method) => {
                let (id, method) = (id.clone(), method.to_string());
                self.client_request(id, &method, &message);
            }
            Shape::Notification("notifications/cancelled") => self.client_cancel(&message),
            Shape::Notification(method) => {
                let text = format!("`{method}` from the client is not carried");
                self.note(text);
            }
            Shape::Response(id) => {
                let text = format!("a response {id} from the client: a modern server asks none");
                self.note(text);
            }
            Shape::Invalid => {
                let id = message.get("id").cloned().unwrap_or(Value::Null);
                let reply = wire::error(&id, -32600, "not a JSON-RPC message");
                self.send(To::Client, &reply);
            }
        }
    }

    fn client_request(&mut self, id: Value, method: &str, message: &Value) {
        let params = message.get("params").cloned().unwrap_or_else(|| json!({}));
        if let Err(error) = mw::check_version(&params) {
            let text = format!("`{method}` names no protocol version 2026-07-28 in `_meta`");
            self.note(text);
            let reply = json!({"jsonrpc": "2.0", "id": id, "error": error});
            return self.send(To::Client, &reply);
        }
        let caps = mw::caps(&params);
        let retry = params.get("requestState").is_some() || params.get("inputResponses").is_some();
        if retry && let Some(k) = self.waiting_for(&params) {
            if self.held[k].reopening {
                return self.deferred.push(message.to_string().into_bytes());
            }
            return self.retry(k, id, &params);
        }
        let msg = match (method, retry) {
            ("server/discover", _) => Msg::MReq(DISC, Kind::Discover, caps),
            // A retry whose `requestState` names no held call (it timed out, or was never
            // the bridge's): the fresh copy answers it with an error.
            (_, true) => Msg::Retry(CALL + 1, caps),
            // A call to the legacy server: it takes the turn first (stdio), after those
            // that wait for it.
            _ if self.turn.is_some() => return self.queue(id, caps, message.clone()),
            _ => Msg::MReq(CALL, Kind::Tools, caps),
        };
        self.open_copy(id, method, params, msg, false);
    }

    /// A copy of the session for request `id`, given `msg`; `turn`: it took the turn.
    fn open_copy(&mut self, id: Value, method: &str, params: Value, msg: Msg, turn: bool) {
        let caps = mw::caps(&params);
        let mut machine = self.session.clone();
        match machine.input(self.model.mc2s, msg) {
            Ok(()) => {
                let mut held = Held::new(id, method, params, caps, machine);
                held.turn = turn;
                self.held.push(held);
                self.pump(self.held.len() - 1);
            }
            Err(why) => {
                if turn {
                    self.give_turn();
                }
                self.refuse(&id, method, why);
            }
        }
    }

    // ---- The turn (stdio) ---------------------------------------------------------------------

    /// A call waits for the turn behind those that came before it (`admit` takes them).
    fn queue(&mut self, id: Value, caps: Caps, message: Value) {
        self.queued.push((id, caps, message));
    }

    /// `turn!mreq(_, tools, c)`: the turn as it is once a call with caps `caps` took it, or
    /// none when it cannot take it now (an askable call open, or one waits for it).
    fn take_turn(&self, caps: Caps) -> Option<Machine> {
        let mut next = self.turn.clone()?;
        let take = Msg::MReq(CALL, Kind::Tools, caps);
        next.input(self.model.turn, take).ok()?;
        Some(next)
    }

    /// `turn!res(_, _)`: a call that held the turn ended.
    fn give_turn(&mut self) {
        let chan = self.model.turn;
        let given = (self.turn.as_mut()).map(|t| t.input(chan, Msg::Res(CALL, true)));
        if let Some(Err(why)) = given {
            self.note(format!("the turn does not take a call's end: {why:?}"));
        }
    }

    /// The requests that wait for the turn, in the order they came, while it takes them.
    fn admit(&mut self) {
        while let Some((_, caps, _)) = self.queued.first() {
            let Some(turn) = self.take_turn(*caps) else {
                return;
            };
            self.turn = Some(turn);
            let (id, caps, message) = self.queued.remove(0);
            let method = message["method"].as_str().unwrap_or_default().to_string();
            let params = message.get("params").cloned().unwrap_or_else(|| json!({}));
            let msg = Msg::MReq(CALL, Kind::Tools, caps);
            self.open_copy(id, &method, params, msg, true);
        }
    }

    /// Copy `k` ended: removed, its turn given back.
    fn remove(&mut self, k: usize) -> Held {
        let held = self.held.remove(k);
        if held.turn {
            self.give_turn();
        }
        held
    }

    /// The held call a retry's `requestState` names, if it waits for its retry.
    fn waiting_for(&self, params: &Value) -> Option<usize> {
        let state = params.get("requestState").and_then(Value::as_str)?;
        self.held
            .iter()
            .position(|h| h.due.is_some() && h.state == state)
    }

    /// The client's retry of held call `k`: the model's `retry(j, c)`, then its answer to
    /// the legacy server's request.
    fn retry(&mut self, k: usize, id: Value, params: &Value) {
        let held = &mut self.held[k];
        let j = CALL + held.round() + 1;
        let msg = Msg::Retry(j, mw::caps(params));
        if let Err(why) = held.machine.input(self.model.mc2s, msg) {
            let method = held.method.clone();
            return self.refuse(&id, &method, why);
        }
        held.due = None;
        held.push(id, params);
        held.answer = params
            .get("inputResponses")
            .and_then(Value::as_object)
            .and_then(|answers| answers.get(&held.state).cloned());
        self.pump(k);
    }

    fn client_cancel(&mut self, message: &Value) {
        let of = message.pointer("/params/requestId").cloned();
        if let Some(q) = self
            .queued
            .iter()
            .position(|(id, ..)| Some(id) == of.as_ref())
        {
            self.queued.remove(q);
            return self.note(format!(
                "a cancel of {of:?}, which waited for its turn: not sent"
            ));
        }
        let at = self
            .held
            .iter()
            .position(|h| h.due.is_none() && Some(h.current()) == of.as_ref());
        let Some(k) = at else {
            return self.note(format!("a cancel of {of:?}, no request in flight"));
        };
        let i = CALL + self.held[k].round();
        match self.held[k].machine.input(self.model.mc2s, Msg::Cancel(i)) {
            Ok(()) => self.pump(k),
            Err(_) => self.note(format!("a cancel of {of:?} the call cannot take now")),
        }
    }

    /// A request no enabled transition takes: an error to the client, naming it.
    fn refuse(&mut self, id: &Value, method: &str, why: Refusal) {
        let text = match why {
            Refusal::NoInput => format!(
                "agentpi bridge: `{method}` is not one the bridge can take now (no transition \
                 of mcp/bridge's ToLegacy takes it)"
            ),
            Refusal::Fault(f) => format!("agentpi bridge: the model faulted on `{method}`: {f}"),
        };
        self.note(text.clone());
        self.send(To::Client, &wire::error(id, BRIDGE_ERROR, &text));
    }

    // ---- From the legacy server -----------------------------------------------------------

    fn server_response(&mut self, id: &Value, message: &Value) {
        if !self.ready && *id == self.init_id {
            return self.session_answer(message);
        }
        if matches!(&self.reopen, Reopen::Pending(p) if p == id) {
            return self.reopened(message);
        }
        let at = self.held.iter().position(|h| h.legacy.as_ref() == Some(id));
        let Some(k) = at else {
            // An answer that crossed a cancel (or names nothing): dropped.
            return self.note(format!("dropped the server's answer to {id}"));
        };
        let ok = message.get("result").is_some();
        let held = &mut self.held[k];
        held.answer = Some(message.clone());
        match held.machine.input(self.model.ls2c, Msg::Res(CALL, ok)) {
            Ok(()) => self.pump(k),
            Err(_) => self.note(format!("dropped the server's answer to {id}: not expected")),
        }
    }

    /// `stream`: the bridge's call on whose response stream the request came (over
    /// `--upstream`), which names the call it is for.
    fn server_request(&mut self, id: Value, method: &str, message: &Value, stream: Option<&Value>) {
        if method == "ping" {
            // Answered by the bridge (in the mapping, not in the model).
            return self.send(To::Server, &wire::result(&id, json!({})));
        }
        // In the middle of a call, elicitation or sampling (the session declares both, not
        // roots: a `roots/list` is refused below, as between calls).
        let asks = match method {
            "elicitation/create" => Some(Kind::Elicitation),
            "sampling/createMessage" => Some(Kind::Sampling),
            _ => None,
        };
        // The call it is for: the call on whose stream it came, else (a legacy request on
        // stdio names no call; docs/bridge.md) the first held call whose copy takes it.
        let named =
            stream.and_then(|s| self.held.iter().position(|h| h.legacy.as_ref() == Some(s)));
        let candidates = match named {
            Some(k) => k..k + 1,
            None => 0..self.held.len(),
        };
        if let Some(kind) = asks {
            for k in candidates {
                let r = self.held[k].round();
                let held = &mut self.held[k];
                if held
                    .machine
                    .input(self.model.ls2c, Msg::Req(r, kind))
                    .is_ok()
                {
                    let params = message.get("params").cloned().unwrap_or_else(|| json!({}));
                    held.asked = Some((id, method.to_string()));
                    held.answer = Some(params);
                    return self.pump(k);
                }
            }
        }
        // Between calls: a fresh copy (`TLServe` refuses roots there), or no transition.
        let kind = if method == "roots/list" {
            Kind::Roots
        } else {
            Kind::Elicitation
        };
        let mut machine = self.session.clone();
        let text = match machine.input(self.model.ls2c, Msg::Req(0, kind)) {
            Ok(()) => format!("`{method}` from the server between calls is refused"),
            Err(_) => format!("`{method}` from the server: no transition of ToLegacy takes it"),
        };
        self.note(text.clone());
        self.send(
            To::Server,
            &wire::error(&id, BRIDGE_ERROR, &format!("agentpi bridge: {text}")),
        );
    }

    /// A line from the legacy server; `stream`: the bridge's request on whose response stream
    /// it came (over `--upstream`), if known.
    fn server_line(&mut self, raw: &[u8], stream: Option<&Value>) {
        self.sides.server.message(Dir::S2c, raw);
        let Ok(message) = serde_json::from_slice::<Value>(raw) else {
            return self.note("a line from the server that is not JSON".into());
        };
        match wire::shape(&message) {
            Shape::Response(id) => {
                let id = id.clone();
                self.server_response(&id, &message);
            }
            Shape::Request(id, method) => {
                let (id, method) = (id.clone(), method.to_string());
                self.server_request(id, &method, &message, stream);
            }
            Shape::Notification("notifications/progress") => self.server_progress(message),
            Shape::Notification("notifications/message") => self.server_log(message, stream),
            // List changes and the rest: a modern client gets notifications only through
            // `subscriptions/listen` or a request's own stream (not carried).
            Shape::Notification(method) => {
                let text = format!("`{method}` from the server is not carried");
                self.note(text);
            }
            Shape::Invalid => self.note("a message from the server that is not JSON-RPC".into()),
        }
    }

    /// The legacy server's progress of a held call (its token is the legacy call's id,
    /// `call`): the model's `prog(Call)`, given to that call's copy; `TLProgress` relays it to
    /// the modern request that carries the call now. One naming no held call is noted and
    /// dropped (the server broke P2; its side's monitor says so).
    fn server_progress(&mut self, message: Value) {
        let token = message.pointer("/params/progressToken");
        let of = |h: &Held| token.is_some() && h.legacy.as_ref() == token && h.tokens[0].is_some();
        let Some(k) = self.held.iter().position(of) else {
            return self.note(format!("dropped a progress naming no held call: {token:?}"));
        };
        match self.held[k].machine.input(self.model.ls2c, Msg::Prog(CALL)) {
            Ok(()) => {
                self.held[k].progress = Some(message);
                self.pump(k);
            }
            Err(_) => self.note("dropped a progress the held call cannot take now".into()),
        }
    }

    /// `ms2c!prog(i)`: the server's progress, under the token of the modern request in
    /// flight (the call's, or its retry's after a round). A retry that asked for no progress
    /// gets none (P2: a progress names a token its request gave): noted.
    fn relay_progress(&mut self, k: usize) {
        let held = &mut self.held[k];
        let Some(mut message) = held.progress.take() else {
            return;
        };
        let Some(Some(token)) = held.tokens.last().cloned() else {
            return self.note("dropped a progress: the retry in flight asked for none".into());
        };
        message["params"]["progressToken"] = token;
        let request = held.current().clone();
        self.sides.send_for(To::Client, &message, Some(&request));
    }

    /// The legacy server's log line: the model's `note(log)` for the held call on whose
    /// stream it came (over `--upstream`) or, over stdio where a line names no call, for the
    /// one held call whose modern request in flight opted in (`…/logLevel`, M9); `TLLog`
    /// relays it to that request. A line for a request that did not opt in, or that nothing
    /// tells whose it is (no such call, or several: it would go to another client), is noted
    /// and dropped.
    fn server_log(&mut self, message: Value, stream: Option<&Value>) {
        let opted = |h: &Held| matches!(h.logs.last(), Some(Some(_)));
        let of: Vec<usize> = match stream {
            Some(id) => (self.held.iter().enumerate())
                .filter(|(_, h)| h.legacy.as_ref() == Some(id) && opted(h))
                .map(|(k, _)| k)
                .collect(),
            None => (self.held.iter().enumerate())
                .filter(|(_, h)| h.due.is_none() && h.legacy.is_some() && opted(h))
                .map(|(k, _)| k)
                .collect(),
        };
        let [k] = of[..] else {
            let text = format!("dropped a log line: {} calls in flight opted in", of.len());
            return self.note(text);
        };
        let level = message.pointer("/params/level").and_then(Value::as_str);
        let wanted = self.held[k].logs.last().cloned().flatten();
        if !mw::at_least(level, wanted.as_deref()) {
            return self.note("dropped a log line below its request's level".into());
        }
        match self.held[k]
            .machine
            .input(self.model.ls2c, Msg::Note(Kind::Log))
        {
            Ok(()) => {
                self.held[k].log = Some(message);
                self.pump(k);
            }
            Err(_) => self.note("dropped a log line the held call cannot take now".into()),
        }
    }

    /// `ms2c!mlog(i)`: the server's log line to the modern request in flight for its call.
    fn relay_log(&mut self, k: usize) {
        let held = &mut self.held[k];
        let Some(message) = held.log.take() else {
            return;
        };
        let request = held.current().clone();
        self.sides.send_for(To::Client, &message, Some(&request));
    }

    // ---- A lost session (HTTP 404) ---------------------------------------------------------

    /// The model's `lost(Call)` given to the copies a 404 concerns, in reverse order (`pump`
    /// removes only the copy it steps): the one whose call (`TLSent`: it is sent again) or
    /// whose answer to the server (`TLAnswered`: it is `gone`) got the 404, and on a new loss
    /// every call held for its retry (`TLWaitRetry`: its server side is in the lost session).
    fn lose(&mut self, raw: &[u8], new: bool) -> bool {
        let id = request_id(raw);
        self.give_lost(new, |held| {
            let call = id.is_some() && held.legacy == id;
            let answer = id.is_some() && held.replied == id;
            (call || answer || (new && held.due.is_some())).then_some(!call)
        })
    }

    /// The stream of call `raw` broke (`--upstream`): the server went away with the session.
    /// A call held for its retry (`TLWaitRetry`) or whose server's request it answered
    /// (`TLAnswered`) takes the model's `lost`, as at a 404, and on a new loss every call held
    /// for its retry; a call lost already (an earlier break or 404 of this loss) has nothing
    /// more to take. A call only sent (`TLSent`) may have run: it is never sent again, so its
    /// broken stream stays its error (false).
    fn broken(&mut self, raw: &[u8], new: bool) -> bool {
        let id = request_id(raw);
        let Some(held) = (self.held.iter()).find(|h| id.is_some() && h.legacy == id) else {
            return false;
        };
        if held.due.is_none() && held.replied.is_none() {
            return false;
        }
        if held.lost || held.reopening {
            return true;
        }
        let held_here = |h: &Held| h.legacy == id || (new && h.due.is_some());
        self.give_lost(new, |h| held_here(h).then_some(true))
    }

    /// `lost(Call)` given to each copy `pick` names (with whether it is lost with the session,
    /// rather than sent again), in reverse order (`pump` removes only the copy it steps).
    fn give_lost(&mut self, new: bool, pick: impl Fn(&Held) -> Option<bool>) -> bool {
        if new {
            self.reopen = Reopen::Idle;
        }
        let mut took = false;
        for k in (0..self.held.len()).rev() {
            let Some(lost) = pick(&self.held[k]) else {
                continue;
            };
            let held = &mut self.held[k];
            if held.machine.input(self.model.ls2c, Msg::Lost(CALL)).is_ok() {
                held.lost = lost;
                took = true;
                self.pump(k);
            }
        }
        took
    }

    /// `lc2s!req(Init, initialize(elicit))` of `TLReopen`: one new `initialize` for every
    /// copy that re-opens; a copy that comes after its answer takes that answer at once.
    fn reopen_init(&mut self, k: usize) {
        match &self.reopen {
            Reopen::Idle => {
                let id = self.fresh_id();
                let init = wire::request(&id, "initialize", mw::initialize_params());
                self.send(To::Server, &init);
                self.reopen = Reopen::Pending(id);
                self.held[k].reopening = true;
            }
            Reopen::Pending(_) => self.held[k].reopening = true,
            Reopen::Open { ok, .. } => {
                let answer = Msg::Res(INIT, *ok);
                if self.held[k].machine.input(self.model.ls2c, answer).is_err() {
                    self.note("a re-opening copy does not take the session's answer".into());
                }
            }
        }
    }

    /// `lc2s!note(initialized)` of `TLReopen`: written once per re-opening.
    fn reopen_initialized(&mut self) {
        if let Reopen::Open { ok, initialized } = self.reopen
            && !initialized
        {
            self.reopen = Reopen::Open {
                ok,
                initialized: true,
            };
            let note = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
            self.send(To::Server, &note);
        }
    }

    /// The new session's `initialize` answered: every copy that waits for it takes it.
    fn reopened(&mut self, message: &Value) {
        let result = message.get("result").cloned();
        let ok = result.is_some();
        if let Some(result) = result {
            self.init = result;
        }
        self.reopen = Reopen::Open {
            ok,
            initialized: false,
        };
        while let Some(k) = self.held.iter().position(|h| h.reopening) {
            self.held[k].reopening = false;
            match self.held[k]
                .machine
                .input(self.model.ls2c, Msg::Res(INIT, ok))
            {
                Ok(()) => self.pump(k),
                Err(_) => self.note("a re-opening copy does not take the session's answer".into()),
            }
        }
        for line in std::mem::take(&mut self.deferred) {
            self.client_line(&line);
        }
    }

    // ---- The server's end -------------------------------------------------------------------

    /// The server went away: the model's `down`. During the handshake the session part takes
    /// it (`TLGone`: the requests that waited for the session each get `gone`, stepped from
    /// a copy of it); each request's copy takes it (`TLHeld`: `gone(i)` for the modern request
    /// in flight; `TLWaitRetry`: nothing now, its retry would get `gone`), also while it
    /// re-opens the session (`TLReopen`: a server that never came back). A copy that takes no
    /// `down` is noted, and its request still gets the error (the bridge is about to end).
    fn gone(&mut self, why: &str) {
        self.gone_text = format!("agentpi bridge: the server {why}");
        // The requests that waited for the turn were never sent: each gets `gone` (the
        // model's `TLGone` for a request that comes after the end).
        for (id, ..) in std::mem::take(&mut self.queued) {
            self.send(To::Client, &wire::error(&id, BRIDGE_ERROR, &self.gone_text));
        }
        let ls2c = self.model.ls2c;
        if !self.ready && self.session.input(ls2c, Msg::Down).is_ok() {
            self.ready = true;
            for line in std::mem::take(&mut self.waiting) {
                self.client_line(&line);
            }
        }
        // In the order the requests came; a copy back at its template is removed by `pump`.
        let mut k = 0;
        while k < self.held.len() {
            let before = self.held.len();
            match self.held[k].machine.input(ls2c, Msg::Down) {
                Ok(()) => self.pump(k),
                Err(why) => {
                    let held = self.remove(k);
                    let text = format!("the server's end is no transition of a request: {why:?}");
                    self.note(text);
                    if held.due.is_none() {
                        let reply = wire::error(held.current(), BRIDGE_ERROR, &self.gone_text);
                        self.send(To::Client, &reply);
                    }
                }
            }
            k += usize::from(self.held.len() == before);
        }
        // The bridge ends with the server: no copy is kept (each gives its turn back).
        while !self.held.is_empty() {
            self.remove(0);
        }
        for line in std::mem::take(&mut self.deferred) {
            let id = request_id(&line).unwrap_or_default();
            self.send(To::Client, &wire::error(&id, BRIDGE_ERROR, &self.gone_text));
        }
    }

    // ---- The outputs of a copy --------------------------------------------------------------

    fn pump(&mut self, k: usize) {
        let chans = self.outputs();
        loop {
            let step = self.held[k].machine.output(&chans);
            let Ok(Some((chan, msg))) = step else {
                if let Err(why) = step {
                    self.note(format!("a request's copy faulted: {why:?}"));
                }
                break;
            };
            match (chan == self.model.lc2s, msg) {
                (true, Msg::Req(_, Kind::Tools)) => self.call(k),
                (true, Msg::Cancel(_)) => self.cancel_call(k),
                (true, Msg::Res(_, ok)) => self.answer_server(k, ok),
                (true, Msg::Req(_, Kind::Initialize(_))) => self.reopen_init(k),
                (true, Msg::Note(Kind::Initialized)) => self.reopen_initialized(),
                (false, Msg::Res(_, ok)) => self.answer_client(k, ok),
                (false, Msg::InputRequired(_)) => self.ask_client(k),
                (false, Msg::Prog(_)) => self.relay_progress(k),
                (false, Msg::MLog(_)) => self.relay_log(k),
                (false, Msg::Gone(_)) => {
                    let id = self.held[k].current().clone();
                    let text = match self.held[k].lost {
                        true => LOST.to_string(),
                        false => self.gone_text.clone(),
                    };
                    let reply = wire::error(&id, BRIDGE_ERROR, &text);
                    self.send(To::Client, &reply);
                }
                (_, other) => self.note(format!("unexpected output {other:?} of a request")),
            }
        }
        if self.held[k].machine.same_as(&self.session) {
            self.remove(k);
        }
    }

    /// `lc2s!req(Call, tools)`: the request in the legacy session, its `_meta` stripped.
    fn call(&mut self, k: usize) {
        let id = self.fresh_id();
        let held = &mut self.held[k];
        held.legacy = Some(id.clone());
        let (method, mut params) = (held.method.clone(), mw::legacy_params(&held.params));
        // The legacy call's own token (its id, unique in the session whichever client asked):
        // its progress names the call (`server_progress`).
        if held.tokens[0].is_some() {
            params["_meta"]["progressToken"] = id.clone();
        }
        self.send(To::Server, &wire::request(&id, &method, params));
    }

    /// `lc2s!cancel(Call)`: the held call cancelled (the client's cancel, K rounds, or the
    /// timeout); whatever it asked stays unanswered, as the server's cancel rules allow.
    fn cancel_call(&mut self, k: usize) {
        let Some(id) = self.held[k].legacy.clone() else {
            return;
        };
        let reason = "agentpi bridge: the modern client cancelled, or its retry did not come";
        let message = json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
                             "params": {"requestId": id, "reason": reason}});
        self.send(To::Server, &message);
    }

    /// `lc2s!res(e, ok)`: the answer to the server's request held for the client: what the
    /// retry brought, or the bridge's refusal for a request that did not declare it.
    fn answer_server(&mut self, k: usize, ok: bool) {
        let held = &mut self.held[k];
        let Some((id, method)) = held.asked.take() else {
            return;
        };
        let reply = match (ok, held.answer.take()) {
            (true, Some(answer)) if held.due.is_none() && held.modern.len() > 1 => {
                wire::result(&id, answer)
            }
            (true, _) => wire::error(
                &id,
                BRIDGE_ERROR,
                "agentpi bridge: the retry brought no answer",
            ),
            (false, _) => mw::refusal(&id, &method),
        };
        held.replied = Some(id);
        self.send(To::Server, &reply);
    }

    /// `ms2c!input_required(i)`: the server's request, held, as an input request of a
    /// result; the call waits for the retry until the timeout.
    fn ask_client(&mut self, k: usize) {
        self.next_state += 1;
        let state = format!("agentpi-bridge-held-{}", self.next_state);
        let due = Instant::now() + self.retry_timeout;
        let held = &mut self.held[k];
        let Some((_, method)) = held.asked.clone() else {
            return;
        };
        let params = held.answer.take().unwrap_or_else(|| json!({}));
        held.state = state.clone();
        held.due = Some(due);
        let id = held.current().clone();
        let result = mw::input_required(&state, &method, &params, &state, &self.init);
        self.send(To::Client, &wire::result(&id, result));
    }

    /// `ms2c!res(i, ok)`: the answer to the modern request in flight.
    fn answer_client(&mut self, k: usize, ok: bool) {
        let held = &self.held[k];
        let id = held.current().clone();
        let reply = match (ok, held.method.as_str()) {
            (true, "server/discover") => wire::result(&id, mw::discover_result(&self.init)),
            (true, method) => {
                let legacy = held.answer.as_ref().and_then(|a| a.get("result"));
                let result = mw::modern_result(method, legacy.unwrap_or(&json!({})), &self.init);
                wire::result(&id, result)
            }
            (false, _) => match held.answer.as_ref().and_then(|a| a.get("error")) {
                Some(error) => json!({"jsonrpc": "2.0", "id": id, "error": error}),
                None => wire::error(&id, BRIDGE_ERROR, &self.why_failed(k)),
            },
        };
        self.send(To::Client, &reply);
    }

    /// Why the model answered a modern request with an error of its own.
    fn why_failed(&self, k: usize) -> String {
        let held = &self.held[k];
        if !self.init.is_object() || self.init.as_object().is_some_and(|o| o.is_empty()) {
            "agentpi bridge: the legacy server refused the session (initialize)".into()
        } else if held.modern.len() == 1 && held.round() == 0 && held.legacy.is_none() {
            "agentpi bridge: the retry names no held call (it timed out or was cancelled)".into()
        } else {
            format!(
                "agentpi bridge: the server asked for input more than K = {} times",
                crate::model::rounds()
            )
        }
    }
}

impl Engine for ToLegacy {
    fn client(&mut self, raw: &[u8]) {
        self.sides.client.message(Dir::C2s, raw);
        match self.ready {
            true => self.client_line(raw),
            false => self.waiting.push(raw.to_vec()),
        }
        self.admit();
    }

    fn server(&mut self, raw: &[u8]) {
        self.server_line(raw, None);
        self.admit();
    }

    fn server_on_stream(&mut self, raw: &[u8], request: &Value) {
        self.server_line(raw, Some(request));
        self.admit();
    }

    fn in_flight(&self) -> usize {
        self.held.len() + self.waiting.len() + self.deferred.len() + self.queued.len()
    }

    fn server_gone(&mut self, why: &str) {
        self.gone(why);
    }

    fn session_lost(&mut self, raw: &[u8], new: bool) -> bool {
        let took = self.lose(raw, new);
        self.admit();
        took
    }

    fn stream_broken(&mut self, raw: &[u8], new: bool) -> bool {
        let took = self.broken(raw, new);
        self.admit();
        took
    }

    /// A copy re-opening the session (`TLReopen`) has no timeout: it takes its `tau` after.
    fn due(&self) -> Option<Instant> {
        let waiting = self.held.iter().filter(|h| !h.reopening);
        waiting.filter_map(|h| h.due).min()
    }

    /// The timeout: each held call whose retry is overdue takes the model's `tau` (its
    /// legacy call cancelled).
    fn tick(&mut self, now: Instant) {
        while let Some(k) = self
            .held
            .iter()
            .position(|h| !h.reopening && h.due.is_some_and(|d| d <= now))
        {
            self.held[k].due = None;
            match self.held[k].machine.internal() {
                Ok(true) => {
                    let text = format!("held call {} timed out: cancelled", self.held[k].state);
                    self.note(text);
                    self.pump(k);
                }
                _ => {
                    self.note("a held call's timeout is not a transition of it".into());
                    self.remove(k);
                }
            }
        }
        self.admit();
    }

    fn take_out(&mut self) -> Vec<(To, Vec<u8>)> {
        self.sides.take_out()
    }

    /// A progress goes on the stream of the modern request it names (over `--listen`).
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

/// The id of the request `raw`, if it is one.
fn request_id(raw: &[u8]) -> Option<Value> {
    let message = serde_json::from_slice::<Value>(raw).unwrap_or_default();
    message.get("id").filter(|id| !id.is_null()).cloned()
}

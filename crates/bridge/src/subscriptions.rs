//! `--to modern`, the subscription part (`TMSubs` of `mcp/bridge`: `TMLists` and `TMRes`): a
//! legacy client's `resources/subscribe` and the list changes its server declared carried
//! through `subscriptions/listen`. One listen for the list changes, opened when the session
//! starts (the client's capabilities known, in its `_meta`); one per subscribed resource,
//! opened by the subscribe, which is answered once the listen is acknowledged, and cancelled
//! by the unsubscribe (on stdio `notifications/cancelled`; over HTTP the upstream closes its
//! stream). A notification of a listen reaches the client only as the model's `sub(l, k)`
//! taken and relayed: while the subscription stands, of a type the listen asked for, without
//! the listen's `subscriptionId`. Each resource has its own copy of `TMRes` (the model's one
//! resource), as each call has its own copy of the per-call part. A listen the server ends
//! once acknowledged is opened again as the model says (`TMListsOn`, `TMWatching`: at most
//! `Reopens` times in a row), each after a back-off that doubles (`due`, `tick`).

use crate::engine::To;
use crate::machine::Machine;
use crate::model::Model;
use crate::msg::{Kind, LISTS, Msg, SUB, UNSUB, WATCH};
use crate::sides::Sides;
use crate::wire::{self, BRIDGE_ERROR, Declared};
use serde_json::{Map, Value, json};
use std::time::{Duration, Instant};

const SUBSCRIPTION_ID: &str = "io.modelcontextprotocol/subscriptionId";

/// The list-changed notifications and the key of each in a listen's `notifications` filter,
/// with the capability whose `listChanged` offers it.
const LISTS_OF: [(&str, &str, &str); 3] = [
    (
        "notifications/tools/list_changed",
        "toolsListChanged",
        "tools",
    ),
    (
        "notifications/prompts/list_changed",
        "promptsListChanged",
        "prompts",
    ),
    (
        "notifications/resources/list_changed",
        "resourcesListChanged",
        "resources",
    ),
];
const UPDATED: &str = "notifications/resources/updated";
const ACKNOWLEDGED: &str = "notifications/subscriptions/acknowledged";
/// The wait before the first re-open of a listen the server ended; each re-open in a row
/// waits twice the one before (the model bounds how many: `Reopens`).
const BACK_OFF: Duration = Duration::from_millis(200);

/// A listen's re-opening: whether its listen was acknowledged (so that its end is an end,
/// not a refusal), whether the server just ended it, how many re-opens in a row it had,
/// and when the one the model sent is written (its back-off).
#[derive(Default)]
struct Reopening {
    acked: bool,
    ended: bool,
    row: u32,
    due: Option<Instant>,
}

impl Reopening {
    /// The server answered the listen: whether that ends an acknowledged one.
    fn end(&mut self) -> bool {
        self.ended = std::mem::take(&mut self.acked);
        self.ended
    }

    /// The model sent a listen: true when it re-opens one the server ended, written after
    /// the back-off; false when it is written now (a first listen: the count starts again).
    fn schedule(&mut self) -> bool {
        if !std::mem::take(&mut self.ended) {
            self.row = 0;
            return false;
        }
        self.due = Some(Instant::now() + BACK_OFF * 2u32.pow(self.row.min(8)));
        self.row += 1;
        true
    }

    /// Whether the re-open is due at `now` (always when `now` is `None`: written at once).
    fn take_due(&mut self, now: Option<Instant>) -> bool {
        let due = self.due.is_some_and(|d| now.is_none_or(|n| d <= n));
        if due {
            self.due = None;
        }
        due
    }
}

/// The list-changes listen: its copy of `TMLists`, its id, what it asked for.
struct Lists {
    machine: Machine,
    id: Option<Value>,
    asked: Vec<&'static str>,
    reopening: Reopening,
}

/// A subscribed resource: its copy of `TMRes`, the id of its current listen and of those
/// it cancelled (whose last notifications may cross the cancel), and the client's subscribe
/// and unsubscribe waiting for their answers.
struct Watch {
    uri: String,
    machine: Machine,
    listen: Option<Value>,
    ended: Vec<Value>,
    client: Option<Value>,
    /// The server's error for a listen it refused, for the subscribe it answers.
    refusal: Option<Value>,
    reopening: Reopening,
}

pub struct Subscriptions {
    model: &'static Model,
    /// The copy every resource starts from (`RunWatch`), once the session is served.
    template: Option<Machine>,
    lists: Option<Lists>,
    watches: Vec<Watch>,
    /// What each listen's `_meta` declares: the session's, as the client declared it.
    declared: Declared,
}

impl Subscriptions {
    pub fn new(model: &'static Model) -> Subscriptions {
        Subscriptions {
            model,
            template: None,
            lists: None,
            watches: Vec::new(),
            declared: Declared::default(),
        }
    }

    /// The session is served (`notifications/initialized` taken: the client's capabilities
    /// are known): resources may be subscribed, and when the server's `server/discover`
    /// declared `listChanged` for a list, the list-changes listen opens for those lists.
    pub fn start(&mut self, discover: Option<&Value>, declared: &Declared, sides: &mut Sides) {
        let template = Machine::start(self.model, "RunWatch");
        let lists = Machine::start(self.model, "RunLists");
        let (template, lists) = match (template, lists) {
            (Ok(t), Ok(l)) => (t, l),
            (Err(why), _) | (_, Err(why)) => return sides.note(why),
        };
        self.template = Some(template);
        self.declared = Declared {
            log_level: None,
            ..declared.clone()
        };
        let capabilities = discover.and_then(|d| d.get("capabilities"));
        let asked: Vec<&'static str> = (LISTS_OF.iter())
            .filter(|(_, _, cap)| offered(capabilities, cap, "listChanged"))
            .map(|(method, _, _)| *method)
            .collect();
        if asked.is_empty() {
            return;
        }
        self.lists = Some(Lists {
            machine: lists,
            id: None,
            asked,
            reopening: Reopening::default(),
        });
        self.pump_lists(sides);
    }

    /// Whether the session is served (subscriptions can be taken).
    pub fn started(&self) -> bool {
        self.template.is_some()
    }

    // ---- From the legacy client -----------------------------------------------------------

    /// `resources/subscribe` or `resources/unsubscribe`: the resource's copy takes the model's
    /// `req(Sub, subscribe)` / `req(Unsub, unsubscribe)`; false when no transition takes it.
    pub fn client_request(
        &mut self,
        id: &Value,
        method: &str,
        params: &Value,
        sides: &mut Sides,
    ) -> bool {
        let Some(uri) = params.get("uri").and_then(Value::as_str) else {
            let reply = wire::error(id, -32602, "agentpi bridge: no `uri` in the params");
            sides.send(To::Client, &reply);
            return true;
        };
        let k = self.watch_of(uri);
        // A re-open waiting for its back-off is written now: the model's listen was sent, and
        // the unsubscribe waits for the server's answer to it.
        if self.watches[k].reopening.take_due(None) {
            self.open_watch(k, sides);
        }
        let msg = match method {
            "resources/subscribe" => Msg::Req(SUB, Kind::Subscribe),
            _ => Msg::Req(UNSUB, Kind::Unsubscribe),
        };
        if self.watches[k].machine.input(self.model.lc2s, msg).is_err() {
            return false;
        }
        self.watches[k].client = Some(id.clone());
        self.step_watch(k, None, sides);
        true
    }

    /// The copy of `uri`'s resource, made from the template at its first subscribe.
    fn watch_of(&mut self, uri: &str) -> usize {
        if let Some(k) = self.watches.iter().position(|w| w.uri == uri) {
            return k;
        }
        let machine = self.template.clone().expect("started");
        self.watches.push(Watch {
            uri: uri.to_string(),
            machine,
            listen: None,
            ended: Vec::new(),
            client: None,
            refusal: None,
            reopening: Reopening::default(),
        });
        self.watches.len() - 1
    }

    // ---- From the modern server -----------------------------------------------------------

    /// A response of the server: true when it answers one of the listens (its error, or the
    /// end of its stream).
    pub fn server_response(&mut self, id: &Value, message: &Value, sides: &mut Sides) -> bool {
        let ok = message.get("result").is_some();
        if let Some(lists) = self.lists.as_mut().filter(|l| l.id.as_ref() == Some(id)) {
            lists.id = None;
            let ended = lists.reopening.end();
            if lists
                .machine
                .input(self.model.ms2c, Msg::Res(LISTS, ok))
                .is_err()
            {
                sides.note(format!(
                    "the end of the list-changes listen is no transition: {message}"
                ));
                self.lists = None;
                return true;
            }
            self.pump_lists(sides);
            if let Some(lists) = self.lists.as_mut() {
                lists.reopening.ended = false;
            }
            let reopens = self
                .lists
                .as_ref()
                .is_some_and(|l| l.reopening.due.is_some());
            let again = self.lists.as_ref().is_some_and(|l| l.reopening.row > 0);
            let text = match (ended, reopens, again) {
                (true, true, _) => "the server ended the list-changes listen: opened again",
                (true, false, _) => {
                    "the server ended the list-changes listen again and again: list changes \
                     are no longer carried"
                }
                (false, _, true) => {
                    "the server refused to open the list-changes listen again: list changes \
                     are no longer carried"
                }
                (false, _, false) => {
                    sides.note(format!(
                        "the server refused the list-changes listen: {message}"
                    ));
                    ""
                }
            };
            if !text.is_empty() {
                sides.note(format!("{text} ({message})"));
            }
            if !reopens {
                self.lists = None;
            }
            return true;
        }
        let Some(k) = self.watches.iter().position(|w| w.owns(id)) else {
            return false;
        };
        let current = self.watches[k].listen.as_ref() == Some(id);
        let ms2c = self.model.ms2c;
        if !current {
            return true;
        }
        let ended = self.watches[k].reopening.end();
        if self.watches[k]
            .machine
            .input(ms2c, Msg::Res(WATCH, ok))
            .is_err()
        {
            let uri = self.watches.remove(k).uri;
            sides.note(format!(
                "the end of the listen of {uri} is no transition: its subscription is lost"
            ));
            return true;
        }
        // Refused before its acknowledgement: a subscribe waiting gets the server's error.
        // Ended after it: the model opens it again (after the back-off) or gives up.
        let watch = &mut self.watches[k];
        if let Some(id) = watch.listen.take() {
            watch.ended.push(id);
        }
        watch.refusal = message.get("error").cloned();
        let reopening = watch.reopening.row > 0;
        self.step_watch(k, None, sides);
        let watch = &mut self.watches[k];
        watch.reopening.ended = false;
        let text = match (ended, watch.reopening.due.is_some()) {
            (true, true) => "ended by the server: opened again",
            (true, false) => "ended by the server again and again: the subscription is lost",
            (false, _) if reopening => "re-open refused by the server: the subscription is lost",
            (false, _) => return true,
        };
        sides.note(format!("the listen of {}: {text} ({message})", watch.uri));
        true
    }

    /// When a re-open of a listen the server ended is due, if any.
    pub fn due(&self) -> Option<Instant> {
        let lists = self.lists.iter().map(|l| &l.reopening);
        let watches = self.watches.iter().map(|w| &w.reopening);
        lists.chain(watches).filter_map(|r| r.due).min()
    }

    /// Time passed: the re-opens due at `now` are written.
    pub fn tick(&mut self, now: Instant, sides: &mut Sides) {
        if let Some(lists) = self.lists.as_mut()
            && lists.reopening.take_due(Some(now))
        {
            let id = sides.fresh_id();
            lists.id = Some(id.clone());
            listen(&id, lists.filter(), &self.declared, sides);
        }
        for k in 0..self.watches.len() {
            if self.watches[k].reopening.take_due(Some(now)) {
                self.open_watch(k, sides);
            }
        }
    }

    /// Writes resource `k`'s listen (the model's `mreq(Watch, listen(true), _)`), a fresh id.
    fn open_watch(&mut self, k: usize, sides: &mut Sides) {
        let watch = &mut self.watches[k];
        let id = sides.fresh_id();
        watch.listen = Some(id.clone());
        let filter = json!({"resourceSubscriptions": [watch.uri]});
        listen(&id, filter, &self.declared, sides);
    }

    /// A notification of the server: true when it names a listen of the bridge
    /// (`subscriptionId`) or is an update, which is relayed only for a subscribed resource.
    pub fn server_notification(
        &mut self,
        method: &str,
        message: &Value,
        sides: &mut Sides,
    ) -> bool {
        let at = format!("/params/_meta/{}", SUBSCRIPTION_ID.replace('/', "~1"));
        let Some(of) = message.pointer(&at) else {
            return method == UPDATED && self.unmarked_update(message, sides);
        };
        if self
            .lists
            .as_ref()
            .is_some_and(|l| l.id.as_ref() == Some(of))
        {
            self.lists_notification(method, message, sides);
        } else if let Some(k) = self.watches.iter().position(|w| w.owns(of)) {
            self.watch_notification(k, of, method, message, sides);
        } else {
            sides.note(format!(
                "dropped `{method}` of a listen the bridge did not open"
            ));
        }
        true
    }

    /// A notification on the list-changes listen: its acknowledgement, or a list change it
    /// asked for (the model's `ack(Lists)`, `sub(Lists, changed)`).
    fn lists_notification(&mut self, method: &str, message: &Value, sides: &mut Sides) {
        let Some(lists) = self.lists.as_mut() else {
            return;
        };
        let msg = match (ACKNOWLEDGED == method, lists.asked.contains(&method)) {
            (true, _) => {
                lists.reopening.acked = true;
                Msg::Ack(LISTS)
            }
            (false, true) => Msg::Sub(LISTS, Kind::Changed),
            (false, false) => {
                let text = format!("dropped `{method}` on the list-changes listen: not asked for");
                return sides.note(text);
            }
        };
        match lists.machine.input(self.model.ms2c, msg) {
            Ok(()) if msg == Msg::Ack(LISTS) => {}
            Ok(()) => {
                lists.reopening.row = 0;
                self.relay_lists(message, sides)
            }
            Err(_) => sides.note(format!(
                "dropped `{method}` of the list-changes listen: not expected"
            )),
        }
    }

    /// A notification on listen `of` of resource `k`: the current listen's acknowledgement,
    /// or an update of its URI (the model's `ack(Watch)`, `sub(Watch, updated)`), relayed
    /// only while the subscription stands.
    fn watch_notification(
        &mut self,
        k: usize,
        of: &Value,
        method: &str,
        message: &Value,
        sides: &mut Sides,
    ) {
        let uri = self.watches[k].uri.clone();
        let current = self.watches[k].listen.as_ref() == Some(of);
        let names = message.pointer("/params/uri").and_then(Value::as_str) == Some(uri.as_str());
        let msg = match (method, current, names) {
            (ACKNOWLEDGED, true, _) => Msg::Ack(WATCH),
            (UPDATED, _, true) => Msg::Sub(WATCH, Kind::Updated),
            _ => {
                let text = format!("dropped `{method}` on the listen of {uri}: not asked for");
                return sides.note(text);
            }
        };
        match self.watches[k].machine.input(self.model.ms2c, msg) {
            Ok(()) => {
                match msg {
                    Msg::Ack(_) => self.watches[k].reopening.acked = true,
                    _ => self.watches[k].reopening.row = 0,
                }
                self.step_watch(k, Some(message), sides)
            }
            Err(_) => sides.note(format!(
                "dropped `{method}` on the listen of {uri}: not expected"
            )),
        }
    }

    /// An update without a `subscriptionId` (a server that sends it outside any listen):
    /// relayed only for a resource whose subscription stands, as if on its listen.
    fn unmarked_update(&mut self, message: &Value, sides: &mut Sides) -> bool {
        let uri = message.pointer("/params/uri").and_then(Value::as_str);
        let at = self
            .watches
            .iter()
            .position(|w| Some(w.uri.as_str()) == uri);
        let taken = at.is_some_and(|k| {
            let ms2c = self.model.ms2c;
            self.watches[k]
                .machine
                .input(ms2c, Msg::Sub(WATCH, Kind::Updated))
                .is_ok()
        });
        match (at, taken) {
            (Some(k), true) => self.step_watch(k, Some(message), sides),
            _ => sides.note(format!(
                "dropped an update of {uri:?} outside any listen: not subscribed"
            )),
        }
        true
    }

    /// The server went away: a subscribe waiting for its listen gets an error (outside the
    /// model, whose subscription part has no crash: the bridge is about to end).
    pub fn gone(&mut self, text: &str, sides: &mut Sides) {
        for watch in &mut self.watches {
            if let (Some(client), Some(_)) = (watch.client.take(), watch.listen.as_ref()) {
                sides.send(To::Client, &wire::error(&client, BRIDGE_ERROR, text));
            }
        }
    }

    /// The session ends (its client gone): every listen still open is cancelled (outside the
    /// model, which has no end of the session), so that none is left open on the server.
    pub fn close(&mut self, sides: &mut Sides) {
        let lists = self.lists.take().and_then(|l| l.id);
        let watches = self.watches.drain(..).filter_map(|w| w.listen);
        for id in lists.into_iter().chain(watches) {
            cancel(&id, "the legacy client is gone (agentpi bridge)", sides);
        }
    }

    // ---- The outputs of the copies --------------------------------------------------------

    fn pump_lists(&mut self, sides: &mut Sides) {
        let chans = [self.model.ls2c, self.model.mc2s];
        let Some(lists) = self.lists.as_mut() else {
            return;
        };
        while let Ok(Some((_, msg))) = lists.machine.output(&chans) {
            if let Msg::MReq(_, Kind::Listen(false), _) = msg
                && !lists.reopening.schedule()
            {
                let id = sides.fresh_id();
                lists.id = Some(id.clone());
                listen(&id, lists.filter(), &self.declared, sides);
            }
        }
    }

    /// After a list change was taken: the model's `note(changed)`, the notification relayed.
    fn relay_lists(&mut self, message: &Value, sides: &mut Sides) {
        let chans = [self.model.ls2c, self.model.mc2s];
        let Some(lists) = self.lists.as_mut() else {
            return;
        };
        while let Ok(Some((_, msg))) = lists.machine.output(&chans) {
            if let Msg::Note(Kind::Changed) = msg {
                sides.send(To::Client, &unmarked(message));
            }
        }
    }

    /// The outputs of copy `k`: its listen (`mreq(Watch, listen(true), _)`), its cancel,
    /// the answers to the client's subscribe and unsubscribe, an update relayed.
    fn step_watch(&mut self, k: usize, mut update: Option<&Value>, sides: &mut Sides) {
        let chans = [self.model.ls2c, self.model.mc2s];
        let watch = &mut self.watches[k];
        while let Ok(Some((chan, msg))) = watch.machine.output(&chans) {
            let to_server = chan == self.model.mc2s;
            match (to_server, msg) {
                (true, Msg::MReq(_, Kind::Listen(true), _)) if watch.reopening.schedule() => {}
                (true, Msg::MReq(_, Kind::Listen(true), _)) => {
                    let id = sides.fresh_id();
                    watch.listen = Some(id.clone());
                    let filter = json!({"resourceSubscriptions": [watch.uri]});
                    listen(&id, filter, &self.declared, sides);
                }
                (true, Msg::Cancel(_)) => {
                    let Some(id) = watch.listen.take() else {
                        continue;
                    };
                    cancel(
                        &id,
                        "the legacy client unsubscribed (agentpi bridge)",
                        sides,
                    );
                    watch.ended.push(id);
                }
                (false, Msg::Res(_, true)) => {
                    if let Some(client) = watch.client.take() {
                        sides.send(To::Client, &wire::result(&client, json!({})));
                    }
                }
                (false, Msg::Res(_, false)) => {
                    if let Some(client) = watch.client.take() {
                        let text = "agentpi bridge: the server refused the subscription";
                        let reply = match watch.refusal.take() {
                            Some(error) => json!({"jsonrpc": "2.0", "id": client, "error": error}),
                            None => wire::error(&client, BRIDGE_ERROR, text),
                        };
                        sides.send(To::Client, &reply);
                    }
                }
                (false, Msg::Note(Kind::Updated)) => {
                    if let Some(message) = update.take() {
                        sides.send(To::Client, &unmarked(message));
                    }
                }
                (_, other) => sides.note(format!("unexpected output {other:?} of a subscription")),
            }
        }
        // An update the copy took without relaying it (its subscription no longer stands:
        // it crossed the unsubscribe, or came before the new listen's acknowledgement).
        if update.is_some_and(|m| m.get("method").and_then(Value::as_str) == Some(UPDATED)) {
            let uri = &self.watches[k].uri;
            sides.note(format!("dropped an update of {uri}: not subscribed now"));
        }
    }
}

impl Lists {
    /// What the list-changes listen asks for: the lists whose changes the server offers.
    fn filter(&self) -> Value {
        let filter: Map<String, Value> = (LISTS_OF.iter())
            .filter(|(m, _, _)| self.asked.contains(m))
            .map(|(_, key, _)| (key.to_string(), json!(true)))
            .collect();
        Value::Object(filter)
    }
}

impl Watch {
    /// Whether `id` is one of this resource's listens, standing or cancelled.
    fn owns(&self, id: &Value) -> bool {
        self.listen.as_ref() == Some(id) || self.ended.contains(id)
    }
}

/// Whether the server's `capabilities` offer `flag` for `capability`.
fn offered(capabilities: Option<&Value>, capability: &str, flag: &str) -> bool {
    capabilities
        .and_then(|c| c.get(capability))
        .and_then(|c| c.get(flag))
        .and_then(Value::as_bool)
        .unwrap_or(false)
}

/// Writes `subscriptions/listen` for `filter`, with the session's `_meta`.
fn listen(id: &Value, filter: Value, declared: &Declared, sides: &mut Sides) {
    let params = declared.params(Some(&json!({ "notifications": filter })));
    sides.send(
        To::Server,
        &wire::request(id, "subscriptions/listen", params),
    );
}

/// Cancels listen `id` (on stdio `notifications/cancelled`; over HTTP the upstream closes
/// its stream instead).
fn cancel(id: &Value, reason: &str, sides: &mut Sides) {
    let message = json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
                         "params": {"requestId": id, "reason": reason}});
    sides.send(To::Server, &message);
}

/// A listen's notification as the legacy client gets it: without the `subscriptionId`,
/// which 2025-11-25 does not have.
fn unmarked(message: &Value) -> Value {
    let mut out = message.clone();
    if let Some(params) = out.get_mut("params").and_then(Value::as_object_mut)
        && let Some(Value::Object(meta)) = params.get_mut("_meta")
    {
        meta.remove(SUBSCRIPTION_ID);
        if meta.is_empty() {
            params.remove("_meta");
        }
    }
    out
}

//! `--to modern`, the subscription part (`TMSubs` of `mcp/bridge`: `TMLists` and `TMRes`): a
//! legacy client's `resources/subscribe` and the list changes its server declared carried
//! through `subscriptions/listen`. One listen for the list changes, opened when the session
//! starts (the client's capabilities known, in its `_meta`); one per subscribed resource,
//! opened by the subscribe, which is answered once the listen is acknowledged, and cancelled
//! by the unsubscribe (on stdio `notifications/cancelled`; over HTTP the upstream closes its
//! stream). A notification of a listen reaches the client only as the model's `sub(l, k)`
//! taken and relayed: while the subscription stands, of a type the listen asked for, without
//! the listen's `subscriptionId`. Each resource has its own copy of `TMRes` (the model's one
//! resource), as each call has its own copy of the per-call part.

use crate::engine::To;
use crate::machine::Machine;
use crate::model::Model;
use crate::msg::{Kind, LISTS, Msg, SUB, UNSUB, WATCH};
use crate::sides::Sides;
use crate::wire::{self, BRIDGE_ERROR, Declared};
use serde_json::{Map, Value, json};

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

/// The list-changes listen: its copy of `TMLists`, its id, what it asked for.
struct Lists {
    machine: Machine,
    id: Option<Value>,
    asked: Vec<&'static str>,
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
        });
        self.watches.len() - 1
    }

    // ---- From the modern server -----------------------------------------------------------

    /// A response of the server: true when it answers one of the listens (its error, or the
    /// end of its stream).
    pub fn server_response(&mut self, id: &Value, message: &Value, sides: &mut Sides) -> bool {
        let ok = message.get("result").is_some();
        if let Some(lists) = self.lists.as_mut().filter(|l| l.id.as_ref() == Some(id)) {
            if lists
                .machine
                .input(self.model.ms2c, Msg::Res(LISTS, ok))
                .is_err()
            {
                sides.note(
                    "the server ended the list-changes listen: list changes are no longer carried"
                        .into(),
                );
            } else {
                sides.note(format!(
                    "the server refused the list-changes listen: {message}"
                ));
            }
            self.lists = None;
            return true;
        }
        let Some(k) = self.watches.iter().position(|w| w.owns(id)) else {
            return false;
        };
        let current = self.watches[k].listen.as_ref() == Some(id);
        let ms2c = self.model.ms2c;
        if current
            && self.watches[k]
                .machine
                .input(ms2c, Msg::Res(WATCH, ok))
                .is_ok()
        {
            // Refused before its acknowledgement: the subscribe gets the server's error.
            self.watches[k].listen = None;
            self.watches[k].refusal = message.get("error").cloned();
            self.step_watch(k, None, sides);
            return true;
        }
        if current {
            // The server ended a standing subscription's listen: no more updates will come.
            let uri = self.watches.remove(k).uri;
            sides.note(format!(
                "the server ended the listen of {uri}: its subscription is lost"
            ));
        }
        true
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
            (true, _) => Msg::Ack(LISTS),
            (false, true) => Msg::Sub(LISTS, Kind::Changed),
            (false, false) => {
                let text = format!("dropped `{method}` on the list-changes listen: not asked for");
                return sides.note(text);
            }
        };
        match lists.machine.input(self.model.ms2c, msg) {
            Ok(()) => self.relay_lists(message, sides),
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
            Ok(()) => self.step_watch(k, Some(message), sides),
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
            if let Msg::MReq(_, Kind::Listen(false), _) = msg {
                let filter: Map<String, Value> = (LISTS_OF.iter())
                    .filter(|(m, _, _)| lists.asked.contains(m))
                    .map(|(_, key, _)| (key.to_string(), json!(true)))
                    .collect();
                let id = sides.fresh_id();
                lists.id = Some(id.clone());
                listen(&id, Value::Object(filter), &self.declared, sides);
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

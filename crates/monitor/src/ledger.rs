//! What the per-exchange rules remember across messages: the client's capabilities (X4, X5),
//! the tool uses of sampling (X4), the resources the client subscribed to (X2), the cursors
//! the server issued and the cache scope of their pages (G2, G3, M10), the tool listing (T5),
//! input-required results waiting for their retry (M12), and whether the client closed the
//! server's stdin (L11). Ordering and lifecycle stay the model's business.

use crate::exchange::{self, Exchange};
use crate::sampling::ToolUses;
use crate::shape::Finding;
use crate::tasks::{self, Tasks};
use crate::trace::{Dir, Event};
use serde_json::Value;
use std::collections::{HashMap, HashSet};

/// The paginated list methods (G2, G3).
const PAGED: [&str; 5] = [
    "tools/list",
    "prompts/list",
    "resources/list",
    "resources/templates/list",
    "tasks/list",
];

/// The memory of one session.
#[derive(Default)]
pub struct Ledger {
    /// Legacy: the capabilities of the client's `initialize`.
    client_caps: Option<Value>,
    /// Per list method, the cursors the server issued, with the cache scope of the page that
    /// issued each (modern).
    issued: HashMap<String, HashMap<String, Option<String>>>,
    tools: Listing,
    /// Modern input-required results whose retry has not come yet.
    asked: Vec<Asked>,
    /// Legacy tasks (T8, C2, X7).
    tasks: Tasks,
    /// Legacy: the tool uses of sampling so far (X4).
    sampling: ToolUses,
    /// Legacy: each URI the client subscribed to, with the number of its `resources/subscribe`
    /// requests not refused, until a `resources/unsubscribe` of it succeeds (X2).
    subscribed: HashMap<String, usize>,
    /// The monitor spawned the server (a stdio session, where L11 applies).
    spawned: bool,
    client_eof: bool,
    /// Events were relayed unchecked: what they said is unknown, so the checks that rest on
    /// having seen something (a cursor issued, a listing, an input request, stdin closed)
    /// are off.
    gapped: bool,
}

/// The tool names of the listing being read, page by page.
#[derive(Default)]
struct Listing {
    names: HashSet<String>,
    /// Every page was read since the last change of the list.
    complete: bool,
}

/// An input-required result: what its retry must repeat and answer.
struct Asked {
    id: Value,
    method: String,
    name: Option<Value>,
    state: Option<Value>,
    keys: Vec<String>,
}

fn field<'a>(params: Option<&'a Value>, key: &str) -> Option<&'a Value> {
    params.and_then(|p| p.get(key))
}

fn meta<'a>(params: Option<&'a Value>, key: &str) -> Option<&'a Value> {
    field(params, "_meta").and_then(|m| m.get(key))
}

/// The `uri` of a resource request or notification (empty when missing: the shape checks
/// report that).
fn uri(params: Option<&Value>) -> String {
    field(params, "uri")
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_string()
}

impl Ledger {
    /// Events were lost to the checker.
    pub fn forget(&mut self) {
        self.gapped = true;
        self.tools.complete = false;
    }

    /// The checks of a request when it is sent.
    pub fn request(
        &mut self,
        id: &Value,
        dir: Dir,
        method: &str,
        params: Option<&Value>,
        modern: bool,
    ) -> Vec<Finding> {
        let mut found = Vec::new();
        // Named (a `format!`) only when there is a `_meta` to find fault with.
        if let meta @ Some(_) = field(params, "_meta") {
            exchange::meta_keys(meta, &format!("`{method}`"), &mut found);
        }
        match (modern, dir) {
            (true, Dir::C2s) => {
                // A dual-era client's legacy handshake names itself in `clientInfo` (M1).
                if method != "initialize"
                    && meta(params, "io.modelcontextprotocol/clientInfo").is_none()
                {
                    found.push((
                        "M2",
                        format!("`{method}` has no `_meta` io.modelcontextprotocol/clientInfo"),
                    ));
                }
                self.retry(id, method, params, &mut found);
            }
            (false, Dir::C2s) => {
                match method {
                    "initialize" => self.client_caps = field(params, "capabilities").cloned(),
                    "resources/subscribe" => *self.subscribed.entry(uri(params)).or_default() += 1,
                    _ => {}
                }
                self.cursor_issued(method, params, &mut found);
            }
            (false, Dir::S2c) => {
                self.client_feature(method, params, &mut found);
                if method == "sampling/createMessage" {
                    found.extend(self.sampling.request(params));
                }
            }
            _ => {}
        }
        if !modern {
            let key = || format!("{}:{id}", dir.as_str());
            found.extend(self.tasks.request(key, dir, method, params));
            if let meta @ Some(_) = field(params, "_meta") {
                found.extend(tasks::related(meta, &format!("`{method}`")));
            }
        }
        found
    }

    /// The checks of a notification: its `_meta` keys, the task rules, resource updates
    /// (legacy), and what a change of the tool list forgets.
    pub fn notification(
        &mut self,
        dir: Dir,
        method: &str,
        params: Option<&Value>,
        modern: bool,
    ) -> Vec<Finding> {
        let mut found = Vec::new();
        if !modern {
            if let meta @ Some(_) = field(params, "_meta") {
                found.extend(tasks::related(meta, &format!("`{method}`")));
            }
            if method == "notifications/resources/updated" && dir == Dir::S2c {
                found.extend(self.updated(params));
            }
        }
        match method {
            "notifications/tools/list_changed" => self.tools.complete = false,
            "notifications/tasks/status" => {
                found.extend(self.tasks.status_notification(params, dir));
            }
            "notifications/cancelled" => {
                let rid = field(params, "requestId").unwrap_or(&Value::Null);
                found.extend(self.tasks.cancelled(&format!("{}:{rid}", dir.as_str())));
            }
            _ => {}
        }
        // Named (a `format!`) only when there is a `_meta` to find fault with.
        if let meta @ Some(_) = field(params, "_meta") {
            exchange::meta_keys(meta, &format!("`{method}`"), &mut found);
        }
        found
    }

    /// The checks of an answered request (`id` is the request's).
    pub fn answer(&mut self, id: &Value, x: &Exchange) -> Vec<Finding> {
        let mut found = exchange::check(x);
        if !x.modern {
            let key = || format!("{}:{id}", x.requester.as_str());
            let by = x.requester.other();
            found.extend(self.tasks.answer(key, x.method, x.params, x.outcome, by));
            self.subscription_answered(x);
        }
        let Ok(result) = x.outcome else {
            self.url_elicitation_error(x, &mut found);
            return found;
        };
        if PAGED.contains(&x.method) {
            self.page(x, result, &mut found);
        }
        match x.method {
            "initialize" => self.tasks.initialized(result),
            "tools/list" => {
                self.listed(x, result);
                self.tasks.listed(result);
            }
            "tools/call" => self.unknown_tool(x, result, &mut found),
            "sampling/createMessage" if !x.modern => self.sampling.result(result),
            _ => {}
        }
        if x.modern && result.get("resultType").and_then(Value::as_str) == Some("input_required") {
            self.asked.push(Asked {
                id: id.clone(),
                method: x.method.to_string(),
                name: field(x.params, "name").cloned(),
                state: result.get("requestState").cloned(),
                keys: result
                    .get("inputRequests")
                    .and_then(Value::as_object)
                    .map(|m| m.keys().cloned().collect())
                    .unwrap_or_default(),
            });
        }
        found
    }

    /// L11 (SHOULD): a stdio client ends the server by closing its stdin first, and signals
    /// it only after. Judged only where the monitor spawned the server (the `spawn` event):
    /// over HTTP a signal is how the monitor is stopped.
    pub fn process(&mut self, event: &Event) -> Vec<Finding> {
        let kind = event.kind();
        let field = |k: &str| event.fields.get(k);
        self.spawned |= kind == Some("spawn");
        if kind == Some("eof") && field("side").and_then(Value::as_str) == Some("client") {
            self.client_eof = true;
        }
        let sigterm = field("signal").and_then(Value::as_i64) == Some(15);
        if kind == Some("signal") && sigterm && self.spawned && !self.client_eof && !self.gapped {
            return vec![(
                "L11",
                "the client sent SIGTERM before closing the server's stdin".to_string(),
            )];
        }
        Vec::new()
    }

    /// A legacy subscription's answer: a refused `resources/subscribe` does not count, a
    /// `resources/unsubscribe` that succeeded ends the URI's subscription.
    fn subscription_answered(&mut self, x: &Exchange) {
        let key = uri(x.params);
        match (x.method, x.outcome.is_ok()) {
            ("resources/subscribe", false) => {
                if let Some(count) = self.subscribed.get_mut(&key) {
                    *count -= 1;
                    if *count == 0 {
                        self.subscribed.remove(&key);
                    }
                }
            }
            ("resources/unsubscribe", true) => {
                self.subscribed.remove(&key);
            }
            _ => {}
        }
    }

    /// X2 (legacy): `notifications/resources/updated` only for a resource the client
    /// subscribed to. The URI "might be a sub-resource of the one that the client actually
    /// subscribed to", and the specification does not say what a sub-resource is: so only an
    /// update while the client holds no subscription at all (none yet, refused, or
    /// unsubscribed) is sure to break the rule.
    fn updated(&self, params: Option<&Value>) -> Option<Finding> {
        if self.gapped || !self.subscribed.is_empty() {
            return None;
        }
        let uri = uri(params);
        Some((
            "X2",
            format!(
                "`notifications/resources/updated` for {uri:?}, but the client holds no subscription"
            ),
        ))
    }

    /// G2 (legacy): the client sends only cursors the server issued for that list.
    fn cursor_issued(&self, method: &str, params: Option<&Value>, found: &mut Vec<Finding>) {
        let Some(cursor) = field(params, "cursor").and_then(Value::as_str) else {
            return;
        };
        let issued = self
            .issued
            .get(method)
            .is_some_and(|c| c.contains_key(cursor));
        if PAGED.contains(&method) && !issued && !self.gapped {
            found.push((
                "G2",
                format!("`{method}` sends cursor {cursor:?}, which the server never issued for it"),
            ));
        }
    }

    /// One page of a list: G3 (the next cursor advances), M10 (one cache scope for all the
    /// pages of a list), and the cursor it issues.
    fn page(&mut self, x: &Exchange, result: &Value, found: &mut Vec<Finding>) {
        let cursor = field(x.params, "cursor").and_then(Value::as_str);
        let next = result.get("nextCursor").and_then(Value::as_str);
        let scope = result
            .get("cacheScope")
            .and_then(Value::as_str)
            .map(str::to_string);
        if let Some(next) = next.filter(|n| n.is_empty() || Some(*n) == cursor) {
            found.push((
                "G3",
                format!(
                    "`{}` returns next cursor {next:?} for the page it was asked with: a loop",
                    x.method
                ),
            ));
        }
        let issued = self.issued.entry(x.method.to_string()).or_default();
        let earlier = cursor.and_then(|c| issued.get(c)).cloned().flatten();
        if let (true, Some(now), Some(before)) = (x.modern, &scope, &earlier)
            && now != before
        {
            found.push((
                "M10",
                format!(
                    "a page of `{}` has cacheScope {now:?}, the page before {before:?}",
                    x.method
                ),
            ));
        }
        if let Some(next) = next {
            issued.insert(next.to_string(), scope);
        }
    }

    /// Reads a page of the tool listing; a first page starts it over.
    fn listed(&mut self, x: &Exchange, result: &Value) {
        if field(x.params, "cursor").is_none() {
            self.tools = Listing::default();
        }
        let tools = result.get("tools").and_then(Value::as_array);
        let names = tools.into_iter().flatten().filter_map(|t| t.get("name"));
        self.tools
            .names
            .extend(names.filter_map(Value::as_str).map(str::to_string));
        self.tools.complete = result.get("nextCursor").is_none();
    }

    /// T5: a call of a tool the complete listing does not have is a JSON-RPC error, not a
    /// tool error (`isError`).
    fn unknown_tool(&self, x: &Exchange, result: &Value, found: &mut Vec<Finding>) {
        let name = field(x.params, "name").and_then(Value::as_str);
        let Some(name) = name.filter(|_| self.tools.complete) else {
            return;
        };
        let tool_error = result.get("isError").and_then(Value::as_bool) == Some(true);
        if tool_error && !self.tools.names.contains(name) {
            found.push((
                "T5",
                format!("tool `{name}` is not in the listing: an unknown tool is a JSON-RPC error (-32602), not isError"),
            ));
        }
    }

    /// The client capability object `name` of the legacy `initialize`, if declared.
    fn client_cap(&self, name: &str) -> Option<&Value> {
        self.client_caps.as_ref().and_then(|c| c.get(name))
    }

    /// Whether the client declared elicitation `mode`: an empty `elicitation` object means
    /// form mode alone.
    fn elicitation_mode(&self, mode: &str) -> bool {
        match self.client_cap("elicitation").and_then(Value::as_object) {
            Some(modes) if modes.is_empty() => mode == "form",
            Some(modes) => modes.contains_key(mode),
            None => false,
        }
    }

    /// X4 and X5 (legacy): sampling with tools and elicitation in a mode only as declared;
    /// URL mode names its elicitation.
    fn client_feature(&self, method: &str, params: Option<&Value>, found: &mut Vec<Finding>) {
        match method {
            "sampling/createMessage" if field(params, "tools").is_some() => {
                let declared = self.client_cap("sampling").and_then(|s| s.get("tools"));
                if declared.is_none() {
                    found.push((
                        "X4",
                        "sampling with tools, but the client did not declare sampling.tools"
                            .to_string(),
                    ));
                }
            }
            "elicitation/create" => {
                let mode = field(params, "mode")
                    .and_then(Value::as_str)
                    .unwrap_or("form");
                if self.client_cap("elicitation").is_some() && !self.elicitation_mode(mode) {
                    found.push((
                        "X5",
                        format!("elicitation in {mode} mode, which the client did not declare"),
                    ));
                }
                if mode == "url" && !field(params, "elicitationId").is_some_and(Value::is_string) {
                    found.push(("X5", "a URL elicitation has no elicitationId".to_string()));
                }
            }
            _ => {}
        }
    }

    /// X5 (legacy): `-32042` (URL elicitation required) only to a client that declared URL
    /// mode.
    fn url_elicitation_error(&self, x: &Exchange, found: &mut Vec<Finding>) {
        let code = x.outcome.as_ref().err().and_then(|e| e.get("code"));
        let url_error = code.and_then(Value::as_i64) == Some(-32042);
        if url_error && !x.modern && !self.elicitation_mode("url") {
            found.push((
                "X5",
                "error -32042 to a client that did not declare URL elicitation".to_string(),
            ));
        }
    }

    /// M12: a retry (a request with `inputResponses` or `requestState`) follows an
    /// input-required result of the same call: a new id, its `requestState` unchanged, every
    /// input request answered and no other.
    fn retry(
        &mut self,
        id: &Value,
        method: &str,
        params: Option<&Value>,
        found: &mut Vec<Finding>,
    ) {
        let responses = field(params, "inputResponses");
        let state = field(params, "requestState");
        if responses.is_none() && state.is_none() {
            return;
        }
        let name = field(params, "name");
        let Some(at) = self.pair(method, name, state, &keys(responses)) else {
            if self.gapped {
                return;
            }
            found.push((
                "M12",
                format!("`{method}` carries input responses, but no input_required result asked"),
            ));
            return;
        };
        let asked = self.asked.remove(at);
        let mut wrong = Vec::new();
        if &asked.id == id {
            wrong.push(format!("it reuses request id {id}"));
        }
        if asked.state.as_ref() != state {
            wrong.push("it does not echo the requestState it was given, unchanged".to_string());
        }
        let (answered, mut asked_keys) = (keys(responses), asked.keys);
        asked_keys.sort();
        if answered != asked_keys {
            wrong.push(format!(
                "it answers input requests {answered:?}, the result asked {asked_keys:?}"
            ));
        }
        if !wrong.is_empty() {
            found.push((
                "M12",
                format!("the retry of `{method}`: {}", wrong.join("; ")),
            ));
        }
    }
}

/// The names of an object's members, sorted (none for anything else).
fn keys(m: Option<&Value>) -> Vec<String> {
    let mut keys: Vec<String> = m
        .and_then(Value::as_object)
        .map(|m| m.keys().cloned().collect())
        .unwrap_or_default();
    keys.sort();
    keys
}

impl Ledger {
    /// The held input-required result a retry answers, among those of the same method and
    /// name (several calls of one tool may be held at once): the one whose `requestState` it
    /// echoes; else (no `requestState`, or one that echoes none) the one whose input requests
    /// it answers, key for key; else the latest, against which what it gets wrong is reported.
    /// The latest first each time, so that a result that was never retried does not take the
    /// retry of a newer one.
    fn pair(
        &self,
        method: &str,
        name: Option<&Value>,
        state: Option<&Value>,
        answered: &[String],
    ) -> Option<usize> {
        let same = |a: &Asked| a.method == method && a.name.as_ref() == name;
        let held = || self.asked.iter().enumerate().rev().filter(|(_, a)| same(a));
        let by_state = state.and_then(|s| held().find(|(_, a)| a.state.as_ref() == Some(s)));
        let by_keys = || {
            held().find(|(_, a)| {
                let mut asked = a.keys.clone();
                asked.sort();
                asked == answered
            })
        };
        by_state
            .or_else(by_keys)
            .or_else(|| held().next())
            .map(|(at, _)| at)
    }
}

/// Which field of a listen's `notifications` filter (2026-07-28 `SubscriptionFilter`) asks
/// for each notification type a listen stream may carry.
const FILTER: [(&str, &str); 4] = [
    ("notifications/tools/list_changed", "toolsListChanged"),
    ("notifications/prompts/list_changed", "promptsListChanged"),
    (
        "notifications/resources/list_changed",
        "resourcesListChanged",
    ),
    ("notifications/resources/updated", "resourceSubscriptions"),
];

/// M13 and M14 (modern) for a server notification that names a listen stream (its `_meta`
/// subscriptionId): progress and log notifications are never sent on a listen stream (M14);
/// any other type is one the listen asked for in its `notifications` filter (M13).
/// `listen` is the params of that listen, when it is in flight (else the model reports a
/// stray). A resource update's URI "might be a sub-resource" of one asked for, which the
/// specification does not define: only an update on a listen that asked for no resource at
/// all is judged. Notification types the filter has no field for are not judged.
pub fn listen_stream(method: &str, listen: Option<&Value>) -> Option<Finding> {
    if matches!(method, "notifications/progress" | "notifications/message") {
        return Some((
            "M14",
            format!("`{method}` on a listen stream (it carries a subscriptionId)"),
        ));
    }
    let (_, key) = FILTER.iter().find(|(m, _)| *m == method)?;
    let asked = field(Some(listen?), "notifications").and_then(|f| f.get(*key));
    let requested = match asked {
        Some(Value::Bool(b)) => *b,
        Some(Value::Array(uris)) => !uris.is_empty(),
        _ => false,
    };
    (!requested).then(|| {
        (
            "M13",
            format!("`{method}` on a listen stream whose `notifications` filter did not ask for it ({key})"),
        )
    })
}

/// M9 and M14 (modern): a log message relates to a request in flight that asked for logs
/// with `_meta` logLevel. `in_flight` are the params of the client's requests in flight.
pub fn log_message(in_flight: &[Option<&Value>]) -> Option<Finding> {
    if in_flight.is_empty() {
        return Some((
            "M14",
            "`notifications/message` while no request is in flight".to_string(),
        ));
    }
    let asked = in_flight
        .iter()
        .any(|p| meta(*p, "io.modelcontextprotocol/logLevel").is_some());
    (!asked).then(|| {
        (
            "M9",
            "`notifications/message`, but no request in flight asked for logs (`_meta` logLevel)"
                .to_string(),
        )
    })
}

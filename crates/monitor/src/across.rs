//! Evidence that spans traces: several traces of one server (several processes, each with
//! its sessions) judged together, for the rules no single session can break alone.
//!
//! - M8: a modern server's listing "must not vary per connection or as a side effect of other
//!   requests (may vary by authorization) and should be in deterministic order". Every
//!   complete modern listing (all its pages, followed by `nextCursor`) read before any
//!   `list_changed` of that list in its trace is held to the first of the same method and
//!   `Authorization`: other items are M8 (MUST), the same items in another order M8 (SHOULD).
//! - M7: a server "must not infer context from earlier requests". Judged where the answer
//!   cannot depend on anything else: `server/discover`, whose result (versions, capabilities,
//!   instructions; not its `_meta`) a server that came after other requests must give as a
//!   fresh process gives it. A discover that is the first request of a trace whose recorder
//!   started the server (it opens with a `spawn` event that names the command: `agentpi
//!   monitor` over stdio, `agentpi test`) is a fresh answer; when two or more fresh answers
//!   agree (the answer does not vary by itself), one after other requests that differs from
//!   them is M7. (Tool
//!   results are not compared: a tool may answer differently by design, by time or by the
//!   state other requests changed, which a trace cannot tell from context.)

use crate::http::request_header;
use crate::shape::{self, Message};
use crate::trace::{Dir, Event};
use serde_json::Value;
use std::collections::HashMap;

/// A finding of several traces: the rule, where (file, event index) and against what.
#[derive(Clone, Debug, PartialEq)]
pub struct Across {
    pub rule: &'static str,
    pub level: &'static str,
    pub spec: &'static str,
    /// The trace (its position among those given) and the event the finding is at.
    pub file: usize,
    pub index: usize,
    /// The trace and event of what it differs from.
    pub against: (usize, usize),
    pub message: String,
}

/// Each list method and the key of its items.
const LISTS: [(&str, &str); 4] = [
    ("tools/list", "tools"),
    ("prompts/list", "prompts"),
    ("resources/list", "resources"),
    ("resources/templates/list", "resourceTemplates"),
];

/// The notification that says a list changed.
fn changed_of(method: &str) -> &'static str {
    match method {
        "tools/list" => "notifications/tools/list_changed",
        "prompts/list" => "notifications/prompts/list_changed",
        _ => "notifications/resources/list_changed",
    }
}

/// A complete listing: where its first page was answered, its items, and the
/// `Authorization` its request carried.
#[derive(Clone, Debug)]
struct Listing {
    method: &'static str,
    file: usize,
    index: usize,
    items: Vec<Value>,
    auth: Option<String>,
}

/// A `server/discover` answer: where, whether it was the first request of its trace, and
/// its result without `_meta`.
#[derive(Clone, Debug)]
struct Discovery {
    file: usize,
    index: usize,
    fresh: bool,
    result: Value,
}

/// What one trace holds for the judgments across traces.
#[derive(Debug, Default)]
struct Harvest {
    listings: Vec<Listing>,
    discoveries: Vec<Discovery>,
}

/// Judges `traces` (the events of each) together: M8 and M7 across them.
pub fn judge(traces: &[&[Event]]) -> Vec<Across> {
    let mut all = Harvest::default();
    for (file, events) in traces.iter().enumerate() {
        let h = harvest(file, events);
        all.listings.extend(h.listings);
        all.discoveries.extend(h.discoveries);
    }
    let mut found = same_listings(&all.listings);
    found.extend(same_discovery(&all.discoveries));
    found.sort_by_key(|f| (f.file, f.index));
    found
}

/// A request in flight, by where its answer comes (its exchange, or its id over stdio).
#[derive(Clone, Debug)]
struct Asked {
    method: String,
    cursor: Option<String>,
    auth: Option<String>,
    /// It was the first request of the trace.
    first: bool,
}

/// The modern listings and discoveries of one trace.
fn harvest(file: usize, events: &[Event]) -> Harvest {
    let mut h = Harvest::default();
    let mut asked: HashMap<String, Asked> = HashMap::new();
    let mut auth: HashMap<u64, String> = HashMap::new();
    let mut open: Vec<(Listing, String)> = Vec::new();
    let mut changed: Vec<&'static str> = Vec::new();
    let mut requests = 0;
    // The recorder started the server (`spawn` with its command): its first request met a
    // fresh process.
    let spawned = events
        .first()
        .is_some_and(|e| e.kind() == Some("spawn") && e.fields.contains_key("command"));
    // Request headers come after the body: the `Authorization` of each exchange first.
    for e in events.iter().filter(|e| e.kind() == Some("http")) {
        if let (Some(x), Some(a)) = (e.exchange(), request_header(e, "authorization")) {
            auth.insert(x, a.to_string());
        }
    }
    for (index, e) in events.iter().enumerate() {
        let Some(message) = shape::parse(&e.raw, e.dir).0.filter(|_| e.is_message()) else {
            continue;
        };
        match (e.dir, message) {
            (Dir::C2s, Message::Request { id, method, params }) => {
                requests += 1;
                if !modern(params.as_ref()) {
                    continue;
                }
                let cursor = params
                    .as_ref()
                    .and_then(|p| p.get("cursor"))
                    .and_then(Value::as_str)
                    .map(String::from);
                let a = e.exchange().and_then(|x| auth.get(&x).cloned());
                let first = spawned && requests == 1;
                asked.insert(
                    answer_key(e, &id),
                    Asked {
                        method,
                        cursor,
                        auth: a,
                        first,
                    },
                );
            }
            (Dir::S2c, Message::Notification { method, .. }) => {
                for (list, _) in LISTS {
                    if method == changed_of(list) && !changed.contains(&list) {
                        changed.push(list);
                    }
                }
            }
            (
                Dir::S2c,
                Message::Response {
                    id,
                    outcome: Ok(result),
                },
            ) => {
                let Some(a) = asked.remove(&answer_key(e, &id)) else {
                    continue;
                };
                if a.method == "server/discover" {
                    h.discoveries.push(discovery(file, index, a.first, &result));
                } else {
                    page(file, index, &a, &result, &changed, &mut open, &mut h);
                }
            }
            _ => {}
        }
    }
    h
}

/// Where the answer of request `id` sent in `e` comes: its exchange over HTTP, else its id.
fn answer_key(e: &Event, id: &Value) -> String {
    match e.exchange() {
        Some(x) => format!("x{x}"),
        None => format!("id{id}"),
    }
}

/// Whether a request's `_meta` names the protocol version (the modern era).
fn modern(params: Option<&Value>) -> bool {
    params
        .and_then(|p| p.get("_meta"))
        .and_then(|m| m.get("io.modelcontextprotocol/protocolVersion"))
        .is_some()
}

fn discovery(file: usize, index: usize, fresh: bool, result: &Value) -> Discovery {
    let mut result = result.clone();
    if let Some(object) = result.as_object_mut() {
        // Who answered and for how long it may be kept are not what it says.
        for key in ["_meta", "ttlMs", "cacheScope"] {
            object.remove(key);
        }
    }
    Discovery {
        file,
        index,
        fresh,
        result,
    }
}

/// A page of a listing answered at `index`: the first page opens a listing, a later one
/// continues the listing whose `nextCursor` it asked for; a page without `nextCursor` ends
/// it. A listing begun after its list changed in this trace is not held to others.
fn page(
    file: usize,
    index: usize,
    a: &Asked,
    result: &Value,
    changed: &[&'static str],
    open: &mut Vec<(Listing, String)>,
    h: &mut Harvest,
) {
    let Some((method, key)) = LISTS.iter().find(|(m, _)| *m == a.method) else {
        return;
    };
    let mut listing = match &a.cursor {
        None if changed.contains(method) => return,
        None => Listing {
            method,
            file,
            index,
            items: Vec::new(),
            auth: a.auth.clone(),
        },
        Some(cursor) => match open
            .iter()
            .position(|(l, c)| l.method == *method && c == cursor)
        {
            Some(at) => open.remove(at).0,
            None => return,
        },
    };
    let items = result.get(*key).and_then(Value::as_array);
    listing.items.extend(items.into_iter().flatten().cloned());
    match result.get("nextCursor").and_then(Value::as_str) {
        Some(next) => open.push((listing, next.to_string())),
        None => h.listings.push(listing),
    }
}

/// M8: each listing against the first of its method and authorization.
fn same_listings(listings: &[Listing]) -> Vec<Across> {
    let mut first: HashMap<(&str, Option<&str>), &Listing> = HashMap::new();
    let mut found = Vec::new();
    for l in listings {
        let group = (l.method, l.auth.as_deref());
        let Some(reference) = first.get(&group).copied() else {
            first.insert(group, l);
            continue;
        };
        if let Some((level, why)) = difference(&reference.items, &l.items) {
            found.push(Across {
                rule: "M8",
                level,
                spec: "server/tools (Listing Tools)",
                file: l.file,
                index: l.index,
                against: (reference.file, reference.index),
                message: format!("{} {why}", l.method),
            });
        }
    }
    found
}

/// How listing `new` differs from `old`: other items (MUST), or the same in another order
/// (SHOULD).
fn difference(old: &[Value], new: &[Value]) -> Option<(&'static str, String)> {
    if old == new {
        return None;
    }
    let same_items = old.len() == new.len() && old.iter().all(|x| new.contains(x));
    Some(match same_items {
        true => (
            "SHOULD",
            "lists the same items in another order (the order should be deterministic)".to_string(),
        ),
        false => (
            "MUST",
            format!(
                "lists {} items, not the {} of the other listing, or not the same ones (a listing does not vary per connection)",
                new.len(),
                old.len()
            ),
        ),
    })
}

/// M7: a discovery that came after other requests, against the fresh ones, when there are
/// two or more and they agree (else the answer varies by itself, and a later one that
/// differs shows nothing).
fn same_discovery(discoveries: &[Discovery]) -> Vec<Across> {
    let fresh: Vec<&Discovery> = discoveries.iter().filter(|d| d.fresh).collect();
    let (Some(reference), true) = (fresh.first(), fresh.len() >= 2) else {
        return Vec::new();
    };
    if fresh.iter().any(|f| f.result != reference.result) {
        return Vec::new();
    }
    discoveries
        .iter()
        .filter(|d| !d.fresh && d.result != reference.result)
        .map(|d| Across {
            rule: "M7",
            level: "MUST",
            spec: "basic/index (Statelessness)",
            file: d.file,
            index: d.index,
            against: (reference.file, reference.index),
            message: "server/discover after other requests answers otherwise than a fresh process does: the server derived context from earlier requests".to_string(),
        })
        .collect()
}

//! The tester's own judgments: what a server owes the active probes of a run, which no
//! passive trace check can say without knowing what the client meant and how long it waited.
//! Each is a function of the trace alone (the limits come from its `test` event), so a
//! saved run is judged again the same way by `agentpi trace check` and by `--replay`.
//!
//! - J9: a malformed frame gets an error (id null) before the server answers anything sent
//!   after it, an unknown method gets -32601, and every request is answered: never silence
//!   past the deadline, never an exit with the request open.
//! - L3: `initialize` is answered. L4: a version that does not exist is not echoed back.
//! - L13: `ping` is answered promptly with an empty result.
//! - T5: a call of a tool the server never listed is a JSON-RPC error.
//! - T10: arguments that break the tool's `inputSchema` give `isError` or -32602.
//! - G1: a cursor the server never issued gives -32602.
//! - M3: `server/discover` gives `supportedVersions` and `capabilities` (modern).
//! - M4: a version that does not exist gives -32022 (modern).
//! - S5: the server exits soon after its input closes (modern).
//! - H7: a request with a foreign `Origin` gets HTTP 403 (Streamable HTTP).
//! - M8: a list's first page is the same each time it is read (modern; `listing`).
//! - C6: a call whose SSE stream the client dropped and resumed is still answered (legacy
//!   Streamable HTTP).

mod listing;

use crate::catalogue;
use agentpi_monitor::{Dir, Event, Violation};
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet, HashSet};

/// How long after the answer to a later request an error for a malformed frame may still
/// come (a server that reads and writes on separate tasks).
const GRACE: f64 = 0.3;

/// The protocol versions that exist.
pub const VERSIONS: [&str; 5] = [
    "2024-11-05",
    "2025-03-26",
    "2025-06-18",
    "2025-11-25",
    "2026-07-28",
];

/// Every method a client may send, in some era.
const METHODS: &[&str] = &[
    "initialize",
    "ping",
    "server/discover",
    "tools/list",
    "tools/call",
    "resources/list",
    "resources/templates/list",
    "resources/read",
    "resources/subscribe",
    "resources/unsubscribe",
    "prompts/list",
    "prompts/get",
    "completion/complete",
    "logging/setLevel",
    "tasks/get",
    "tasks/result",
    "tasks/list",
    "tasks/cancel",
    "tasks/update",
    "subscriptions/listen",
];

/// What the judgments found, and which of their rules had something to judge.
#[derive(Clone, Debug, Default)]
pub struct Judgment {
    pub violations: Vec<Violation>,
    pub exercised: BTreeSet<&'static str>,
    /// Requests still unanswered when the client's deadline for them passed.
    pub timeouts: Vec<Timeout>,
}

/// A request the server had not answered when the client's deadline for it passed. No
/// finding: a tool may take longer than the tester waits (a long poll), and an answer that
/// did not come in time says nothing of the rule its answer would have been held to. It is
/// reported as a status of its own, with the time waited.
#[derive(Clone, Debug, PartialEq)]
pub struct Timeout {
    /// The rule the answer would have been judged by.
    pub rule: &'static str,
    /// The `deadline` event.
    pub index: usize,
    pub id: Value,
    pub method: String,
    /// The tool of a `tools/call`.
    pub tool: Option<String>,
    /// How long the client waited, in seconds.
    pub after: f64,
}

/// The limits a trace's `test` event gives (defaults for a trace without one).
#[derive(Clone, Copy, Debug)]
struct Limits {
    promptly: f64,
    exit_grace: f64,
}

/// A client request and what became of it.
#[derive(Clone, Debug)]
struct Asked {
    index: usize,
    t: f64,
    method: String,
    params: Option<Value>,
    id: Value,
}

/// How a request ended in the trace.
enum Fate {
    Answered(usize, Value),
    Deadline(usize),
    /// The server ended (output closed or process exit) at this event, request open.
    Ended(usize),
    /// Cancelled by the client, or still open when the client quit or the trace stopped.
    Unjudged,
}

/// Judges a trace.
pub fn judge(events: &[Event]) -> Judgment {
    let mut j = Judgment::default();
    let limits = limits(events);
    let modern = spoke_modern(events);
    let asked = requests(events);
    let listed = listed_tools(events, &asked);
    let issued = issued_cursors(events, &asked);
    let last_open = last_open_at_end(events, &asked);
    for a in &asked {
        let fate = fate(events, a, last_open.as_ref());
        let cx = Cx {
            events,
            limits,
            modern,
            listed: &listed,
            issued: &issued,
        };
        request(&mut j, &cx, a, fate);
    }
    malformed(&mut j, events, &asked, modern);
    foreign_origin(&mut j, events);
    if modern {
        listing::same_listings(&mut j, events, &asked);
    } else {
        dropped_streams(&mut j, events, &asked);
    }
    // S5 is a rule of stdio: a server over HTTP is stopped by a signal, not by its input.
    if modern && !over_http(events) {
        exit_soon(&mut j, events, limits);
    }
    j
}

/// The trace is of a Streamable HTTP server: its `spawn` event names a URL.
fn over_http(events: &[Event]) -> bool {
    events
        .iter()
        .any(|e| e.kind() == Some("spawn") && e.fields.contains_key("url"))
}

struct Cx<'a> {
    events: &'a [Event],
    limits: Limits,
    modern: bool,
    listed: &'a BTreeMap<String, Value>,
    issued: &'a HashSet<String>,
}

fn limits(events: &[Event]) -> Limits {
    let header = events.iter().find(|e| e.kind() == Some("test"));
    let field = |k: &str, d: f64| {
        header
            .and_then(|e| e.fields.get(k))
            .and_then(Value::as_f64)
            .unwrap_or(d)
    };
    Limits {
        promptly: field("promptly", 5.0),
        exit_grace: field("exit_grace", 2.0),
    }
}

fn parse(event: &Event) -> Option<Value> {
    event
        .is_message()
        .then(|| serde_json::from_slice(&event.raw).ok())?
}

fn meta_version(params: Option<&Value>) -> Option<&str> {
    params?
        .pointer("/_meta/io.modelcontextprotocol~1protocolVersion")?
        .as_str()
}

/// The client's requests, in order.
fn requests(events: &[Event]) -> Vec<Asked> {
    let mut out = Vec::new();
    for (index, e) in events.iter().enumerate() {
        if e.dir != Dir::C2s {
            continue;
        }
        let Some(m) = parse(e) else { continue };
        let (Some(method), Some(id)) = (m.get("method").and_then(Value::as_str), m.get("id"))
        else {
            continue;
        };
        if id.is_null() || !(id.is_string() || id.is_i64() || id.is_u64()) {
            continue;
        }
        if m.get("jsonrpc") != Some(&Value::from("2.0")) {
            continue;
        }
        out.push(Asked {
            index,
            t: e.t.unwrap_or(0.0),
            method: method.to_string(),
            params: m.get("params").cloned(),
            id: id.clone(),
        });
    }
    out
}

/// Whether the client spoke the modern era: a request other than a `server/discover` probe
/// carries the modern `_meta`, or a probe got a discover result.
fn spoke_modern(events: &[Event]) -> bool {
    let asked = requests(events);
    if let Some(first) = asked.iter().find(|a| a.method != "server/discover") {
        return meta_version(first.params.as_ref()).is_some();
    }
    asked.iter().any(|a| {
        matches!(answer_of(events, a), Some((_, r)) if r.pointer("/result/supportedVersions").is_some())
    })
}

/// The first response to `a` after it, with its index.
fn answer_of(events: &[Event], a: &Asked) -> Option<(usize, Value)> {
    events
        .iter()
        .enumerate()
        .skip(a.index + 1)
        .find_map(|(i, e)| {
            let m = parse(e).filter(|_| e.dir == Dir::S2c)?;
            let is_response = m.get("method").is_none() && m.get("id") == Some(&a.id);
            is_response.then_some((i, m))
        })
}

/// Tools by name with their input schemas, from every `tools/list` result in the trace.
fn listed_tools(events: &[Event], asked: &[Asked]) -> BTreeMap<String, Value> {
    let mut tools = BTreeMap::new();
    for a in asked.iter().filter(|a| a.method == "tools/list") {
        let Some((_, answer)) = answer_of(events, a) else {
            continue;
        };
        let list = answer.pointer("/result/tools").and_then(Value::as_array);
        for tool in list.into_iter().flatten() {
            if let Some(name) = tool.get("name").and_then(Value::as_str) {
                let schema = tool.get("inputSchema").cloned().unwrap_or(Value::Null);
                tools.insert(name.to_string(), schema);
            }
        }
    }
    tools
}

/// Every `nextCursor` the server issued.
fn issued_cursors(events: &[Event], asked: &[Asked]) -> HashSet<String> {
    asked
        .iter()
        .filter_map(|a| answer_of(events, a))
        .filter_map(|(_, m)| m.pointer("/result/nextCursor")?.as_str().map(String::from))
        .collect()
}

/// The request sent last before the server ended, if it was still open then: the one a
/// crash is blamed on (the others were lost with it).
fn last_open_at_end(events: &[Event], asked: &[Asked]) -> Option<Value> {
    let end = server_end(events, 0)?;
    let before: Vec<&Asked> = asked.iter().filter(|a| a.index < end).collect();
    let last = before.last()?;
    let open = answer_of(events, last).is_none_or(|(i, _)| i > end);
    open.then(|| last.id.clone())
}

/// The first event at or after `from` where the server ended (its output closed or it
/// exited) before the client closed its input.
fn server_end(events: &[Event], from: usize) -> Option<usize> {
    for (i, e) in events.iter().enumerate().skip(from) {
        if client_quit(e) {
            return None;
        }
        if server_ended(e) {
            return Some(i);
        }
    }
    None
}

fn client_quit(e: &Event) -> bool {
    e.kind() == Some("eof") && e.fields.get("side").and_then(Value::as_str) == Some("client")
}

/// The server's output closed, or it exited.
fn server_ended(e: &Event) -> bool {
    let side = e.fields.get("side").and_then(Value::as_str);
    matches!(
        (e.kind(), side),
        (Some("eof"), Some("server")) | (Some("exit"), _)
    )
}

fn fate(events: &[Event], a: &Asked, blamed: Option<&Value>) -> Fate {
    let answer = answer_of(events, a);
    for (i, e) in events.iter().enumerate().skip(a.index + 1) {
        if answer.as_ref().is_some_and(|(at, _)| *at == i) {
            let (at, m) = answer.clone().unwrap_or((i, Value::Null));
            return Fate::Answered(at, m);
        }
        if e.kind() == Some("deadline") && e.fields.get("id") == Some(&a.id) {
            return Fate::Deadline(i);
        }
        if cancels(e, &a.id) || closes(e, events.get(a.index).and_then(Event::exchange)) {
            return Fate::Unjudged;
        }
        if client_quit(e) {
            return Fate::Unjudged;
        }
        if server_ended(e) {
            return if blamed == Some(&a.id) {
                Fate::Ended(i)
            } else {
                Fate::Unjudged
            };
        }
    }
    Fate::Unjudged
}

fn cancels(e: &Event, id: &Value) -> bool {
    e.dir == Dir::C2s
        && parse(e).is_some_and(|m| {
            m.get("method").and_then(Value::as_str) == Some("notifications/cancelled")
                && m.pointer("/params/requestId") == Some(id)
        })
}

/// Whether `e` is the client's close of HTTP exchange `k` (over modern Streamable HTTP the
/// cancellation of its request).
fn closes(e: &Event, k: Option<u64>) -> bool {
    e.client_closed() && k.is_some_and(|k| e.exchange() == Some(k))
}

/// The rule a request is held to, and what its answer must be.
enum Expect {
    /// An answer of any kind (J9: every request is answered).
    Any,
    /// An empty result, promptly (L13).
    Pong,
    /// A JSON-RPC error (T5).
    Error,
    /// An error with this code (J9: -32601; G1: -32602).
    Code(i64),
    /// `isError: true` or -32602 (T10).
    Rejected,
    /// An initialize result whose version is not the one asked (L4), or an error.
    NotEcho(String),
    /// A discover result (M3).
    Discovered,
    /// -32022 (M4).
    Unsupported,
}

fn expectation(cx: &Cx, a: &Asked) -> (&'static str, Expect) {
    let p = a.params.as_ref();
    let field = |k: &str| p.and_then(|p| p.get(k));
    let asked_version = field("protocolVersion")
        .and_then(Value::as_str)
        .unwrap_or("");
    let meta = meta_version(p);
    match a.method.as_str() {
        "initialize" if !VERSIONS.contains(&asked_version) => {
            ("L4", Expect::NotEcho(asked_version.to_string()))
        }
        "initialize" => ("L3", Expect::Any),
        _ if cx.modern && meta.is_some_and(|v| !VERSIONS.contains(&v)) => {
            ("M4", Expect::Unsupported)
        }
        "server/discover" if cx.modern => ("M3", Expect::Discovered),
        "ping" if !cx.modern => ("L13", Expect::Pong),
        "tools/call" => call_expectation(cx, p),
        m if m.ends_with("/list") && field("cursor").is_some_and(|c| !issued(cx, c)) => {
            ("G1", Expect::Code(-32602))
        }
        m if !METHODS.contains(&m) || (cx.modern && m == "ping") => ("J9", Expect::Code(-32601)),
        _ => ("J9", Expect::Any),
    }
}

fn issued(cx: &Cx, cursor: &Value) -> bool {
    cursor.as_str().is_some_and(|c| cx.issued.contains(c))
}

fn call_expectation(cx: &Cx, params: Option<&Value>) -> (&'static str, Expect) {
    let name = params.and_then(|p| p.get("name")).and_then(Value::as_str);
    let Some(schema) = name.and_then(|n| cx.listed.get(n)) else {
        if !cx.listed.is_empty() {
            return ("T5", Expect::Error);
        }
        return ("J9", Expect::Any);
    };
    let args = params
        .and_then(|p| p.get("arguments"))
        .cloned()
        .unwrap_or(Value::Object(Default::default()));
    let invalid = jsonschema::validator_for(schema).is_ok_and(|v| !v.is_valid(&args));
    if invalid {
        ("T10", Expect::Rejected)
    } else {
        ("J9", Expect::Any)
    }
}

fn request(j: &mut Judgment, cx: &Cx, a: &Asked, fate: Fate) {
    let (rule, expect) = expectation(cx, a);
    let what = format!("request {} `{}`", a.id, a.method);
    let (index, why) = match fate {
        Fate::Unjudged => return,
        // A ping's promptness is L13 itself.
        Fate::Deadline(i) if !matches!(expect, Expect::Pong) => {
            j.timeouts.push(timeout(cx.events, a, rule, i));
            return;
        }
        Fate::Deadline(i) => (i, format!("{what}: no answer before the deadline")),
        Fate::Ended(i) => (i, format!("{what}: the server ended with it unanswered")),
        Fate::Answered(i, m) => {
            let t = cx.events[i].t.unwrap_or(a.t);
            match verdict(&expect, &m, t - a.t, cx.limits) {
                Ok(()) => {
                    j.exercised.insert(rule);
                    return;
                }
                Err(why) => (i, format!("{what}: {why}")),
            }
        }
    };
    j.exercised.insert(rule);
    push(j, cx.events, index, rule, why);
}

/// The timeout of request `a`, whose deadline passed at event `index`.
fn timeout(events: &[Event], a: &Asked, rule: &'static str, index: usize) -> Timeout {
    let after = events[index].fields.get("after").and_then(Value::as_f64);
    let tool = a.params.as_ref().and_then(|p| p.get("name"));
    Timeout {
        rule,
        index,
        id: a.id.clone(),
        method: a.method.clone(),
        tool: tool
            .filter(|_| a.method == "tools/call")
            .and_then(Value::as_str)
            .map(String::from),
        after: after.unwrap_or_else(|| events[index].t.unwrap_or(a.t) - a.t),
    }
}

fn push(j: &mut Judgment, events: &[Event], index: usize, rule: &'static str, message: String) {
    let (level, spec) = catalogue::level_and_spec(rule);
    let event = &events[index];
    j.violations.push(Violation {
        rule: rule.to_string(),
        level: level.to_string(),
        index,
        dir: event.dir,
        message,
        spec: spec.to_string(),
        expected: Vec::new(),
        raw: if event.is_message() {
            event.raw.clone()
        } else {
            event.to_line().into_bytes()
        },
    });
}

/// Whether answer `m`, `after` seconds after its request, is what `expect` asks.
fn verdict(expect: &Expect, m: &Value, after: f64, limits: Limits) -> Result<(), String> {
    let code = m.pointer("/error/code").and_then(Value::as_i64);
    let result = m.get("result");
    match expect {
        Expect::Any => Ok(()),
        Expect::Pong => pong(result, code, after, limits),
        Expect::Error if result.is_some() => {
            Err("a result (the tool is unknown: a JSON-RPC error is due)".into())
        }
        Expect::Error => Ok(()),
        Expect::Code(want) => match code {
            Some(c) if c == *want => Ok(()),
            Some(c) => Err(format!("error {c}, not {want}")),
            None => Err(format!("a result, not error {want}")),
        },
        Expect::Rejected => rejected(result, code),
        Expect::NotEcho(asked) => {
            let answered = result
                .and_then(|r| r.get("protocolVersion"))
                .and_then(Value::as_str);
            match answered {
                Some(v) if v == asked => Err(format!(
                    "the server echoed version {v}, which does not exist"
                )),
                _ => Ok(()),
            }
        }
        Expect::Discovered => {
            let ok = result.is_some_and(|r| {
                r.get("supportedVersions").is_some() && r.get("capabilities").is_some()
            });
            if ok {
                Ok(())
            } else {
                Err("no discover result (supportedVersions, capabilities)".into())
            }
        }
        Expect::Unsupported => match code {
            Some(-32022) => Ok(()),
            Some(c) => Err(format!(
                "error {c}, not -32022 (unsupported protocol version)"
            )),
            None => Err("a result to a version that does not exist, not -32022".into()),
        },
    }
}

fn pong(
    result: Option<&Value>,
    code: Option<i64>,
    after: f64,
    limits: Limits,
) -> Result<(), String> {
    if let Some(c) = code {
        return Err(format!("error {c}, not an empty result"));
    }
    let empty = result
        .and_then(Value::as_object)
        .is_some_and(|o| o.keys().all(|k| k == "_meta"));
    if !empty {
        return Err("a result that is not empty".into());
    }
    if after > limits.promptly {
        return Err(format!(
            "answered after {after:.2} s, not within {} s",
            limits.promptly
        ));
    }
    Ok(())
}

fn rejected(result: Option<&Value>, code: Option<i64>) -> Result<(), String> {
    match (result, code) {
        (Some(r), _) if r.get("isError") == Some(&Value::Bool(true)) => Ok(()),
        (Some(_), _) => {
            Err("arguments that break the tool's inputSchema were accepted (no isError)".into())
        }
        (None, Some(-32602)) => Ok(()),
        (None, Some(c)) => Err(format!("error {c}, not isError or -32602")),
        (None, None) => Err("neither a result nor an error".into()),
    }
}

/// J9 for each malformed client frame: an error (id null, or the id it carries) before the
/// server answers a request sent after it (with a little grace), and no exit.
fn malformed(j: &mut Judgment, events: &[Event], asked: &[Asked], modern: bool) {
    let frames: Vec<usize> = (0..events.len())
        .filter(|&i| {
            let e = &events[i];
            e.dir == Dir::C2s
                && !asked.iter().any(|a| a.index == i)
                && is_malformed(e)
                && !(is_batch(e) && batch_allowed(events, asked, i, modern))
        })
        .collect();
    let errors = frame_errors(events, &frames);
    for &index in &frames {
        j.exercised.insert("J9");
        let error = errors.get(&index).copied();
        if let Some((at, why)) = frame_unanswered(events, index, asked, error) {
            push(j, events, at, "J9", why);
        }
    }
}

fn is_batch(e: &Event) -> bool {
    matches!(parse(e), Some(Value::Array(_)))
}

/// Whether the batch sent at `index` went where batches are allowed: under 2025-03-26 and
/// before (J8: batches were removed in 2025-06-18). The version is the one `initialize`
/// negotiated before the frame; over Streamable HTTP without one, the frame's
/// `MCP-Protocol-Version` header, and without that 2025-03-26, which a server then assumes
/// (basic/transports). Over stdio with no version negotiated the frame is not judged: a
/// shrunk trace that lost its `initialize` no longer shows a batch the version forbade.
fn batch_allowed(events: &[Event], asked: &[Asked], index: usize, modern: bool) -> bool {
    if modern {
        return false;
    }
    let negotiated = asked
        .iter()
        .rev()
        .filter(|a| a.method == "initialize" && a.index < index)
        .filter_map(|a| answer_of(events, a).filter(|(at, _)| *at < index))
        .filter_map(|(_, m)| {
            m.pointer("/result/protocolVersion")?
                .as_str()
                .map(String::from)
        })
        .next();
    let k = events[index].exchange();
    let header = || {
        let head = events[index..]
            .iter()
            .find(|e| e.kind() == Some("http") && k.is_some() && e.exchange() == k)?;
        agentpi_monitor::http::request_header(head, "mcp-protocol-version").map(String::from)
    };
    let version = match (negotiated, k) {
        (Some(v), _) => v,
        (None, Some(_)) => header().unwrap_or_else(|| "2025-03-26".into()),
        (None, None) => return true,
    };
    version.as_str() < "2025-06-18"
}

/// Which server error answers each malformed stdio frame: an error that carries the frame's
/// id, or else, for an error with id null, the oldest frame still waiting. The tester may
/// send several frames before the server's first error arrives (a loaded machine), and a
/// server answers a stream's frames in order.
fn frame_errors(events: &[Event], frames: &[usize]) -> BTreeMap<usize, usize> {
    let mut waiting: Vec<(usize, Option<Value>)> = Vec::new();
    let mut answered = BTreeMap::new();
    for (i, e) in events.iter().enumerate() {
        if e.exchange().is_some() {
            continue;
        }
        if frames.binary_search(&i).is_ok() {
            waiting.push((i, frame_id_of(e)));
            continue;
        }
        let Some(m) = parse(e).filter(|m| e.dir == Dir::S2c && m.get("error").is_some()) else {
            continue;
        };
        let slot = match m.get("id").filter(|id| !id.is_null()) {
            Some(id) => waiting.iter().position(|(_, own)| own.as_ref() == Some(id)),
            None => (!waiting.is_empty()).then_some(0),
        };
        if let Some(k) = slot {
            answered.insert(waiting.remove(k).0, i);
        }
    }
    answered
}

/// What a malformed frame breaks by being malformed (and nothing else: a frame before
/// `initialize` still breaks L1, which no probe means).
const MALFORMED: [&str; 7] = ["S3", "J1", "J2", "J3", "J5", "J8", "J13"];

/// Whether finding `v` against the client's message `e` is what a deliberate probe of the
/// tester breaks on its own side: the envelope rules at a malformed frame, and G2 at a
/// cursor nobody issued (the G1 probe).
pub fn deliberate(v: &Violation, e: &Event) -> bool {
    v.rule == "G2" || (MALFORMED.contains(&v.rule.as_str()) && is_malformed(e))
}

/// A client line that is no JSON-RPC message this tester would send in earnest.
pub fn is_malformed(e: &Event) -> bool {
    match parse(e) {
        None => true,
        Some(Value::Object(m)) => {
            let bad_id = m
                .get("id")
                .is_some_and(|id| !(id.is_string() || id.is_i64() || id.is_u64()));
            m.get("jsonrpc") != Some(&Value::from("2.0")) || bad_id
        }
        Some(_) => true,
    }
}

/// Where and why the frame at `index` went unanswered, if it did.
fn frame_unanswered(
    events: &[Event],
    index: usize,
    asked: &[Asked],
    error: Option<usize>,
) -> Option<(usize, String)> {
    if let Some(k) = events[index].exchange() {
        return http_frame(events, index, k);
    }
    let later = asked.iter().find(|a| a.index > index);
    let next_answer = later.and_then(|a| answer_of(events, a));
    let until = next_answer
        .as_ref()
        .map(|(i, _)| events[*i].t.unwrap_or(0.0) + GRACE);
    let in_time = |i: usize| until.is_none_or(|u| events[i].t.unwrap_or(0.0) <= u);
    if error.is_some_and(in_time) {
        return None;
    }
    for (i, e) in events.iter().enumerate().skip(index + 1) {
        if client_quit(e) && until.is_none() {
            // Nothing asked after the frame: its silence is not told from slowness.
            return None;
        }
        if server_ended(e) && !client_quit_before(events, i) {
            return Some((i, "the server ended after a malformed frame".into()));
        }
        // An ending after the next malformed frame is that frame's to answer for.
        let next_frame = e.dir == Dir::C2s && is_malformed(e);
        if next_frame || matches!((until, e.t), (Some(u), Some(t)) if t > u) {
            break;
        }
    }
    // Silent on the frame, yet it answered what came after.
    let (at, _) = next_answer?;
    Some((at, "a malformed frame got no error (-32700 or -32600, id null); the server answered later requests".into()))
}

/// Over HTTP a frame's answer is in its own exchange: an error, or a 4xx status.
fn http_frame(events: &[Event], index: usize, k: u64) -> Option<(usize, String)> {
    let own = |e: &&Event| e.exchange() == Some(k);
    let mut status = None;
    for (i, e) in events
        .iter()
        .enumerate()
        .skip(index + 1)
        .filter(|(_, e)| own(e))
    {
        if e.kind() == Some("http") {
            status = e
                .fields
                .get("status")
                .and_then(Value::as_u64)
                .map(|s| (i, s));
        }
        if e.dir == Dir::S2c && parse(e).is_some_and(|m| m.get("result").is_some()) {
            return Some((
                i,
                "a malformed frame got a result, not an error (-32700 or -32600)".into(),
            ));
        }
        if e.dir == Dir::S2c && parse(e).is_some_and(|m| m.get("error").is_some()) {
            return None;
        }
    }
    match status {
        Some((_, s)) if (400..500).contains(&s) => None,
        Some((i, s)) => Some((i, format!("a malformed frame got HTTP {s} and no error"))),
        None => None,
    }
}

fn client_quit_before(events: &[Event], index: usize) -> bool {
    events[..index].iter().any(client_quit)
}

/// The id malformed frame `e` carries, if it has a usable one.
pub fn frame_id_of(e: &Event) -> Option<Value> {
    parse(e).and_then(|m| frame_id(&m))
}

/// The id a malformed frame carries, if it has a usable one (`"jsonrpc"` missing).
fn frame_id(m: &Value) -> Option<Value> {
    let inner = match m {
        Value::Array(items) => items.first()?,
        other => other,
    };
    inner
        .get("id")
        .filter(|id| id.is_string() || id.is_number())
        .cloned()
}

/// S5 (modern): the server exits within the grace after its input closed.
fn exit_soon(j: &mut Judgment, events: &[Event], limits: Limits) {
    let closed = events.iter().position(|e| {
        e.kind() == Some("eof") && e.fields.get("side").and_then(Value::as_str) == Some("client")
    });
    let Some(closed) = closed else { return };
    let Some(exit) = (closed..events.len()).find(|&i| events[i].kind() == Some("exit")) else {
        return;
    };
    j.exercised.insert("S5");
    let killed = events[exit].fields.get("killed") == Some(&Value::Bool(true));
    let took = events[exit].t.unwrap_or(0.0) - events[closed].t.unwrap_or(0.0);
    if killed || took > limits.exit_grace {
        let why = format!(
            "the server was still running {:.1} s after its input closed",
            took.max(limits.exit_grace)
        );
        push(j, events, exit, "S5", why);
    }
}

/// H7: every exchange the client sent with an `Origin` header (the tester sends one only as
/// the probe, and a foreign one) got HTTP 403. A 2xx means the server took a request a
/// DNS-rebinding page could send; another 4xx refused it, but not as the transport says.
fn foreign_origin(j: &mut Judgment, events: &[Event]) {
    for (index, e) in events.iter().enumerate() {
        if e.kind() != Some("http") {
            continue;
        }
        let Some(origin) = agentpi_monitor::http::request_header(e, "origin") else {
            continue;
        };
        j.exercised.insert("H7");
        let status = e.fields.get("status").and_then(Value::as_u64);
        let why = match status {
            Some(403) => continue,
            Some(s) if s < 400 => format!(
                "a request with the foreign Origin {origin} was accepted (HTTP {s}), not refused with 403: the server does not validate Origin (DNS rebinding)"
            ),
            Some(s) => format!("a request with the foreign Origin {origin} got HTTP {s}, not 403"),
            None => continue,
        };
        push(j, events, index, "H7", why);
    }
}

/// C6: a call whose stream the client dropped (legacy Streamable HTTP, where that is no
/// cancellation) before its answer, then resumed with `Last-Event-ID` (the id of an event of
/// that stream), is answered all the same. Not judged when the stream was not resumed (a
/// server whose events carry no id cannot be).
fn dropped_streams(j: &mut Judgment, events: &[Event], asked: &[Asked]) {
    for (i, e) in events.iter().enumerate() {
        let reason = e.fields.get("reason").and_then(Value::as_str);
        if !e.client_closed() || reason != Some(crate::conn::DROP_REASON) {
            continue;
        }
        let Some(a) = asked
            .iter()
            .find(|a| e.exchange().is_some() && events[a.index].exchange() == e.exchange())
        else {
            continue;
        };
        let answer = answer_of(events, a).map(|(at, _)| at);
        if answer.is_some_and(|at| at < i) || !resumed(events, i) {
            continue;
        }
        j.exercised.insert("C6");
        if answer.is_none() {
            let deadline = events
                .iter()
                .skip(i)
                .position(|e| e.kind() == Some("deadline") && e.fields.get("id") == Some(&a.id));
            let why = format!(
                "request {} was never answered after the client dropped its SSE stream and resumed it with Last-Event-ID: the server took the dropped connection for a cancellation, or lost the answer",
                a.id
            );
            push(j, events, deadline.map_or(i, |d| i + d), "C6", why);
        }
    }
}

/// Whether the stream the client dropped at event `drop` was resumed after it: a GET whose
/// `Last-Event-ID` is the id of an event of that stream.
fn resumed(events: &[Event], drop: usize) -> bool {
    let k = events[drop].exchange();
    let ids: HashSet<&str> = events[..drop]
        .iter()
        .filter(|e| e.dir == Dir::S2c && e.exchange() == k)
        .filter_map(|e| e.fields.get("sse_id").and_then(Value::as_str))
        .collect();
    events[drop..].iter().any(|e| {
        e.kind() == Some("http")
            && agentpi_monitor::http::request_header(e, "last-event-id")
                .is_some_and(|last| ids.contains(last))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The J9 findings of a trace written as (time, direction, raw message) rows.
    fn j9(rows: &[(f64, &str, &str)]) -> Vec<String> {
        let lines: Vec<String> = rows
            .iter()
            .map(|(t, dir, raw)| {
                serde_json::json!({"t": t, "dir": dir, "raw": raw}).to_string() + "\n"
            })
            .collect();
        let events = agentpi_monitor::trace::parse(lines.concat().as_bytes()).unwrap();
        let j = judge(&events);
        assert!(j.exercised.contains("J9"));
        j.violations
            .iter()
            .filter(|v| v.rule == "J9")
            .map(|v| v.message.clone())
            .collect()
    }

    const INIT: &str = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}"#;
    const READY: &str =
        r#"{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-11-25","capabilities":{}}}"#;
    const PING: &str = r#"{"jsonrpc":"2.0","id":2,"method":"ping"}"#;
    const PONG: &str = r#"{"jsonrpc":"2.0","id":2,"result":{}}"#;
    const BAD: &str = r#"{"id":"x","method":"ping"}"#;
    const TORN: &str = r#"{"jsonrpc": "2.0", "id": 1, "method": "#;
    const NULL_ERROR: &str =
        r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"invalid"}}"#;

    /// Two frames sent before the first error arrives each take one of the two errors
    /// (the CI failure of 2026-12-03: a loaded machine, a server slower than the tester).
    #[test]
    fn frames_sent_back_to_back_take_their_errors_in_order() {
        let found = j9(&[
            (0.0, "c2s", INIT),
            (0.1, "s2c", READY),
            (0.2, "c2s", BAD),
            (0.21, "c2s", TORN),
            (0.22, "c2s", PING),
            (0.5, "s2c", NULL_ERROR),
            (0.5, "s2c", NULL_ERROR),
            (0.5, "s2c", PONG),
        ]);
        assert_eq!(found, Vec::<String>::new());
    }

    /// One error for two frames: the second went unanswered, and the ping after it was.
    #[test]
    fn one_error_answers_only_one_frame() {
        let found = j9(&[
            (0.0, "c2s", INIT),
            (0.1, "s2c", READY),
            (0.2, "c2s", BAD),
            (0.21, "c2s", TORN),
            (0.22, "c2s", PING),
            (0.5, "s2c", NULL_ERROR),
            (0.5, "s2c", PONG),
        ]);
        assert_eq!(found.len(), 1, "{found:?}");
    }

    /// A batch over Streamable HTTP whose request the server answered: J9 under 2025-11-25
    /// (the version `initialize` negotiated, or the frame's `MCP-Protocol-Version`), not in a
    /// trace that kept the batch alone (no `initialize`, no header: the server may assume
    /// 2025-03-26, where batches are allowed). Such a shrunk trace no longer shows the
    /// finding, so shrinking cannot keep it (issue 30: it did, and the saved trace showed a
    /// conforming server).
    #[test]
    fn a_batch_is_malformed_only_under_a_version_without_batches() {
        let batch =
            r#"[{"jsonrpc":"2.0","id":"agentpi-batch-9","method":"tools/list","params":{}}]"#;
        let answer = r#"{"jsonrpc":"2.0","id":"agentpi-batch-9","result":{"tools":[]}}"#;
        let head = |k: u64, headers: serde_json::Value| {
            serde_json::json!({"t": 0.1, "dir": "event", "event": "http", "exchange": k,
                "method": "POST", "path": "/mcp", "status": 200, "headers": [],
                "request_headers": headers})
        };
        let j9 = |rows: Vec<serde_json::Value>| {
            let text: String = rows.iter().map(|r| r.to_string() + "\n").collect();
            let events = agentpi_monitor::trace::parse(text.as_bytes()).unwrap();
            judge(&events)
                .violations
                .iter()
                .filter(|v| v.rule == "J9")
                .count()
        };
        let sent = |k: u64, raw: &str| serde_json::json!({"t": 0.0, "dir": "c2s", "raw": raw, "exchange": k});
        let got = |k: u64, raw: &str| serde_json::json!({"t": 0.2, "dir": "s2c", "raw": raw, "exchange": k});
        let alone = vec![
            sent(2, batch),
            head(2, serde_json::json!([])),
            got(2, answer),
        ];
        assert_eq!(j9(alone.clone()), 0);
        let versioned = serde_json::json!([["mcp-protocol-version", "2025-11-25"]]);
        let with_header = vec![sent(2, batch), head(2, versioned), got(2, answer)];
        assert_eq!(j9(with_header), 1);
        let init = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25"}}"#;
        let mut opened = vec![sent(1, init), head(1, serde_json::json!([])), got(1, READY)];
        opened.extend(alone);
        assert_eq!(j9(opened), 1);
    }

    /// S5 of a modern session whose server was killed 3 s after its input closed: judged
    /// over stdio; over HTTP the tester stops the server it started with a signal at every
    /// run's end, which says nothing of S5.
    #[test]
    fn a_stopped_http_server_is_not_judged_by_s5() {
        let s5 = |spawn: serde_json::Value| {
            let ping = r#"{"jsonrpc":"2.0","id":1,"method":"ping","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}"#;
            let rows = [
                serde_json::json!({"t": 0.0, "dir": "event", "event": "spawn"}),
                serde_json::json!({"t": 0.1, "dir": "c2s", "raw": ping}),
                serde_json::json!({"t": 0.2, "dir": "s2c", "raw": r#"{"jsonrpc":"2.0","id":1,"result":{}}"#}),
                serde_json::json!({"t": 0.3, "dir": "event", "event": "eof", "side": "client"}),
                serde_json::json!({"t": 3.3, "dir": "event", "event": "exit", "signal": 9, "killed": true}),
            ];
            let mut lines = String::new();
            for (i, mut row) in rows.into_iter().enumerate() {
                if i == 0 {
                    row.as_object_mut()
                        .unwrap()
                        .extend(spawn.as_object().unwrap().clone());
                }
                lines += &(row.to_string() + "\n");
            }
            let events = agentpi_monitor::trace::parse(lines.as_bytes()).unwrap();
            let j = judge(&events);
            let failed = j.violations.iter().any(|v| v.rule == "S5");
            (j.exercised.contains("S5"), failed)
        };
        let stdio = s5(serde_json::json!({"command": ["server"]}));
        assert_eq!(stdio, (true, true));
        let http = serde_json::json!({"url": "http://127.0.0.1:1/mcp", "command": ["server"]});
        assert_eq!(s5(http), (false, false));
    }

    /// C6: a dropped stream resumed with Last-Event-ID brings the answer (the Python SDK with
    /// an event store); server-everything's sample event store loses it, and the call's
    /// deadline passes; without the resumption nothing is judged.
    #[test]
    fn a_dropped_stream_once_resumed_still_brings_the_answer() {
        let parse = |bytes: &[u8]| agentpi_monitor::trace::parse(bytes).unwrap();
        let c6 = |j: &Judgment| j.violations.iter().filter(|v| v.rule == "C6").count();
        let kept = parse(include_bytes!(
            "../../../tests/tester/http_drop_resumed.jsonl"
        ));
        let j = judge(&kept);
        assert!(j.exercised.contains("C6"));
        assert_eq!(c6(&j), 0);
        let lost = judge(&parse(include_bytes!(
            "../../../tests/tester/http_drop_lost.jsonl"
        )));
        assert!(lost.exercised.contains("C6"));
        assert_eq!(c6(&lost), 1);
        let resume =
            |e: &Event| agentpi_monitor::http::request_header(e, "last-event-id").is_some();
        let unresumed: Vec<Event> = kept.into_iter().filter(|e| !resume(e)).collect();
        assert!(!judge(&unresumed).exercised.contains("C6"));
    }
}

//! The Streamable HTTP rules of reference/mcp.md section 1.10 (H1–H6, H8–H10, and C5's HTTP
//! half), checked in Rust per exchange: a trace recorded by `agentpi monitor --listen` ties
//! each message to its HTTP exchange (`exchange`), and each exchange's `http` event holds its
//! method, status and both sets of headers. Header and status rules are judged once an exchange's head and body
//! are both known (at the `http` event, or at the body if it came later); stream rules at each
//! server message. Each rule is checked in one function here.

use crate::base64;
use crate::shape::Message;
use crate::trace::{Dir, Event};
use serde_json::Value;
use std::collections::HashMap;

/// A broken HTTP rule: the rule, whether a SHOULD clause of it is the one broken, and why.
#[derive(Clone, Debug, PartialEq)]
pub struct Found {
    pub rule: &'static str,
    pub should: bool,
    pub text: String,
}

fn must(rule: &'static str, text: String) -> Found {
    Found {
        rule,
        should: false,
        text,
    }
}

fn should(rule: &'static str, text: String) -> Found {
    Found {
        rule,
        should: true,
        text,
    }
}

/// What the session knows that the HTTP rules depend on.
#[derive(Clone, Copy, Debug)]
pub struct Context<'a> {
    pub modern: bool,
    /// The negotiated protocol version (legacy) once known.
    pub version: Option<&'a str>,
    /// The `Mcp-Param-{Name}` headers the request being judged must carry, with their
    /// values: its tool's `x-mcp-header` arguments (modern).
    pub param_headers: &'a [(String, String)],
}

/// Every protocol version released, for "an invalid or unsupported MCP-Protocol-Version".
const VERSIONS: &[&str] = &[
    "2024-11-05",
    "2025-03-26",
    "2025-06-18",
    "2025-11-25",
    "2026-07-28",
];

/// What a request body was.
#[derive(Clone, Debug)]
enum Body {
    Request {
        id: Value,
        method: String,
        /// What H8 holds the headers to: `_meta`'s protocol version, and the name or URI.
        version: Option<String>,
        name: Option<String>,
        /// `(Mcp-Param-{Name}, value)` for each `x-mcp-header` argument sent.
        params: Vec<(String, String)>,
        /// The `_meta` lacks the protocol version or the client capabilities (H9: 400 with
        /// `-32602`).
        meta_missing: bool,
    },
    /// A notification or (legacy) a response: both get 202 without a body.
    Accepted(&'static str),
}

/// The head of an exchange, from its `http` event.
#[derive(Clone, Debug)]
struct Head {
    method: String,
    status: u64,
    request: Vec<(String, String)>,
    response: Vec<(String, String)>,
}

impl Head {
    fn from(event: &Event) -> Option<Head> {
        let f = &event.fields;
        if f.contains_key("error") {
            // The proxy's own 502: the upstream never answered.
            return None;
        }
        Some(Head {
            method: f.get("method")?.as_str()?.to_string(),
            status: f.get("status")?.as_u64()?,
            request: pairs(f.get("request_headers")),
            response: pairs(f.get("headers")),
        })
    }

    fn asked(&self, name: &str) -> Option<&str> {
        header(&self.request, name)
    }

    fn answered(&self, name: &str) -> Option<&str> {
        header(&self.response, name)
    }

    /// The response's media type, lower case, without parameters.
    fn content_type(&self) -> String {
        let value = self.answered("content-type").unwrap_or_default();
        let media = value.split(';').next().unwrap_or_default();
        media.trim().to_ascii_lowercase()
    }

    fn success(&self) -> bool {
        (200..300).contains(&self.status)
    }
}

/// The header pairs of an `http` event's field (`request_headers` or `headers`).
fn header_pairs(value: Option<&Value>) -> impl Iterator<Item = (&str, &str)> {
    let items = match value {
        Some(Value::Array(items)) => items.as_slice(),
        _ => &[],
    };
    items
        .iter()
        .filter_map(|pair| Some((pair.get(0)?.as_str()?, pair.get(1)?.as_str()?)))
}

/// For an `http` event with an error status (400 and above, the proxy's own 502 included):
/// whether a message may still come in its body (a JSON or SSE body that is not empty). `None`
/// for a status that is no error.
pub fn error_status(event: &Event) -> Option<bool> {
    let status = event.fields.get("status")?.as_u64()?;
    if status < 400 {
        return None;
    }
    let answered = |name: &str| {
        header_pairs(event.fields.get("headers"))
            .find_map(|(n, v)| n.eq_ignore_ascii_case(name).then_some(v))
    };
    let media = answered("content-type").unwrap_or_default();
    let media = media
        .split(';')
        .next()
        .unwrap_or_default()
        .trim()
        .to_ascii_lowercase();
    let carries =
        media == "application/json" || media.ends_with("+json") || media == "text/event-stream";
    Some(carries && answered("content-length") != Some("0"))
}

/// The value of request header `name` (any case) of an `http` event, as the client sent it.
pub fn request_header<'e>(event: &'e Event, name: &str) -> Option<&'e str> {
    header_pairs(event.fields.get("request_headers"))
        .find_map(|(n, v)| n.eq_ignore_ascii_case(name).then_some(v))
}

fn pairs(value: Option<&Value>) -> Vec<(String, String)> {
    header_pairs(value)
        .map(|(name, value)| (name.to_string(), value.to_string()))
        .collect()
}

fn header<'h>(headers: &'h [(String, String)], name: &str) -> Option<&'h str> {
    headers
        .iter()
        .find(|(n, _)| n.eq_ignore_ascii_case(name))
        .map(|(_, v)| v.as_str())
}

/// One request and its response.
#[derive(Clone, Debug, Default)]
struct Exchange {
    body: Option<Body>,
    head: Option<Head>,
    judged: bool,
    /// A GET with `Last-Event-ID`.
    resuming: bool,
    /// The event id it resumes after.
    resumes: Option<String>,
    /// The stream has carried the response to the exchange's request.
    answered: bool,
}

/// The HTTP side of one session.
#[derive(Debug, Default)]
pub struct Http {
    exchanges: HashMap<u64, Exchange>,
    /// The exchange whose stream first carried each SSE event id (legacy, H6).
    event_streams: HashMap<String, u64>,
    /// The exchange of the (last) initialize that was answered, and the session id it got.
    init: Option<u64>,
    session: Option<String>,
    /// Session ids ended by a DELETE, with the DELETE's exchange.
    ended: HashMap<String, u64>,
    /// Session ids a request was refused with 404 for, with that exchange.
    lost: HashMap<String, u64>,
}

impl Http {
    /// An `http` event: the head of exchange `exchange`.
    pub fn head(&mut self, event: &Event, cx: Context) -> Vec<Found> {
        let (Some(number), Some(head)) = (event.exchange(), Head::from(event)) else {
            return Vec::new();
        };
        let exchange = self.exchanges.entry(number).or_default();
        exchange.resuming = head.asked("last-event-id").is_some();
        exchange.resumes = head.asked("last-event-id").map(String::from);
        exchange.head = Some(head);
        self.judge(number, cx)
    }

    /// The HTTP status exchange `number` was answered with, once its head is known.
    pub fn status(&self, number: u64) -> Option<u64> {
        let head = self.exchanges.get(&number)?.head.as_ref()?;
        Some(head.status)
    }

    /// A message of exchange `exchange` (a request body, or a message of the response).
    pub fn message(&mut self, event: &Event, message: &Message, cx: Context) -> Vec<Found> {
        let Some(number) = event.exchange() else {
            return Vec::new();
        };
        if event.dir == Dir::C2s {
            let exchange = self.exchanges.entry(number).or_default();
            exchange.body = Some(body(message, cx));
            let mut found: Vec<Found> = c5_cancel(message, cx).into_iter().collect();
            found.extend(self.judge(number, cx));
            return found;
        }
        let mut found = self.h6_replay(event, number);
        let Some(exchange) = self.exchanges.get_mut(&number) else {
            return found;
        };
        found.extend(stream(exchange, message, cx));
        found
    }

    /// Whether server message `event` is an event the client already received, sent again
    /// on a resumed stream: its checks were made when it first came, and are not made again.
    pub fn redelivered(&self, event: &Event) -> bool {
        let id = event.fields.get("sse_id").and_then(Value::as_str);
        let resuming = event
            .exchange()
            .and_then(|k| self.exchanges.get(&k))
            .is_some_and(|e| e.resuming);
        event.dir == Dir::S2c
            && resuming
            && id.is_some_and(|id| self.event_streams.contains_key(id))
    }

    /// H6 (resumption): a stream resumed after event L replays only events of L's own
    /// stream, and only those after L (not one the client already received); every event id
    /// names the stream that first carried it.
    fn h6_replay(&mut self, event: &Event, number: u64) -> Vec<Found> {
        let Some(id) = event.fields.get("sse_id").and_then(Value::as_str) else {
            return Vec::new();
        };
        let again = self.redelivered(event);
        let first = *self.event_streams.entry(id.to_string()).or_insert(number);
        let resumes = self
            .exchanges
            .get(&number)
            .and_then(|e| e.resumes.as_deref());
        let after = resumes.unwrap_or("");
        let origin = resumes.and_then(|l| self.event_streams.get(l)).copied();
        match origin {
            Some(origin) if first != number && first != origin => vec![must(
                "H6",
                format!(
                    "a stream resumed after event {after:?} replays event {id:?} of another stream"
                ),
            )],
            _ if again && first != number => vec![should(
                "H6",
                format!(
                    "a stream resumed after event {after:?} sends event {id:?} again, which the client had received: a resumption replays what came after Last-Event-ID"
                ),
            )],
            _ => Vec::new(),
        }
    }

    /// The header and status rules of one exchange, once its head and body are known.
    fn judge(&mut self, number: u64, cx: Context) -> Vec<Found> {
        let Some(exchange) = self.exchanges.get_mut(&number) else {
            return Vec::new();
        };
        let Some(head) = exchange.head.clone() else {
            return Vec::new();
        };
        if exchange.judged || (head.method == "POST" && exchange.body.is_none()) {
            return Vec::new();
        }
        exchange.judged = true;
        let body = exchange.body.clone();
        let mut found = Vec::new();
        found.extend(h1_post(&head, body.as_ref()));
        found.extend(h2_accepted(&head, body.as_ref()));
        found.extend(h3_request(&head, body.as_ref()));
        if cx.modern {
            found.extend(h8_headers(&head, body.as_ref()));
            found.extend(h10_get(&head));
        } else {
            found.extend(self.h4_session(number, &head, body.as_ref()));
            found.extend(self.h5_version(number, &head, body.as_ref(), cx));
            found.extend(h6_get(&head));
        }
        if !cx.modern && inert(&head, body.as_ref()) {
            // Nothing later can look at it: a long session keeps only the exchanges that
            // may still be judged.
            self.exchanges.remove(&number);
        } else if let Some(head) = self
            .exchanges
            .get_mut(&number)
            .and_then(|e| e.head.as_mut())
        {
            // The stream rules need no headers: a few bytes per exchange stay.
            head.request = Vec::new();
            head.response = Vec::new();
        }
        found
    }

    /// Whether the session's own id was ended: its DELETE succeeded, or a request with it
    /// got 404 (the server no longer knows it).
    pub fn terminated(&self) -> bool {
        let Some(id) = &self.session else {
            return false;
        };
        self.ended.contains_key(id) || self.lost.contains_key(id)
    }

    /// How many exchanges the session keeps (for tests of what a long session holds).
    pub fn retained(&self) -> usize {
        self.exchanges.len()
    }

    /// H4: the session id (visible ASCII) from the initialize response is echoed on every
    /// later request; a terminated session's requests get 404; after a 404 the client
    /// initialises again instead of reusing the id.
    fn h4_session(&mut self, number: u64, head: &Head, body: Option<&Body>) -> Vec<Found> {
        let mut found = Vec::new();
        let sent = head.asked("mcp-session-id").map(String::from);
        if is_initialize(body) {
            if head.success() {
                self.init = Some(number);
                self.session = head.answered("mcp-session-id").map(String::from);
                if let Some(id) = &self.session
                    && !visible_ascii(id)
                {
                    found.push(must(
                        "H4",
                        format!("the server's session id {id:?} is not visible ASCII"),
                    ));
                }
            }
            return found;
        }
        let after_init = self.init.is_some_and(|i| number > i);
        if let Some(id) = self.session.as_ref().filter(|_| after_init)
            && sent.as_deref() != Some(id.as_str())
            && !self.ended.contains_key(id)
        {
            let what = sent
                .as_deref()
                .map_or("none".to_string(), |s| format!("{s:?}"));
            found.push(must(
                "H4",
                format!(
                    "{} without the session id {id:?} (Mcp-Session-Id: {what})",
                    head.method
                ),
            ));
        }
        let Some(sent) = sent else { return found };
        if self.ended.get(&sent).is_some_and(|&at| number > at) && head.status != 404 {
            found.push(must(
                "H4",
                format!(
                    "{} with the terminated session {sent:?} answered {}, not 404",
                    head.method, head.status
                ),
            ));
        }
        if self.lost.get(&sent).is_some_and(|&at| number > at) {
            found.push(must(
                "H4",
                format!(
                    "{} reuses session {sent:?} after a 404 instead of initialising again",
                    head.method
                ),
            ));
        }
        if head.method == "DELETE" && head.success() {
            self.ended.entry(sent.clone()).or_insert(number);
        }
        if head.status == 404 {
            self.lost.entry(sent).or_insert(number);
        }
        found
    }

    /// H5: every request after initialization carries `MCP-Protocol-Version` with the
    /// negotiated version (since 2025-06-18, which introduced it); a value that is no
    /// protocol version at all gets 400.
    fn h5_version(&self, number: u64, head: &Head, body: Option<&Body>, cx: Context) -> Vec<Found> {
        let mut found = Vec::new();
        let sent = head.asked("mcp-protocol-version");
        if let Some(value) = sent
            && !VERSIONS.contains(&value)
            && head.status != 400
        {
            found.push(must(
                "H5",
                format!(
                    "MCP-Protocol-Version {value:?} is no protocol version, answered {} not 400",
                    head.status
                ),
            ));
        }
        let Some(version) = cx.version.filter(|v| *v >= "2025-06-18") else {
            return found;
        };
        let after_init = self.init.is_some_and(|i| number > i);
        if after_init && !is_initialize(body) && sent != Some(version) {
            let what = sent.map_or("none".to_string(), |s| format!("{s:?}"));
            found.push(must(
                "H5",
                format!(
                    "{} after initialization with MCP-Protocol-Version {what}, not {version:?}",
                    head.method
                ),
            ));
        }
        found
    }
}

fn body(message: &Message, cx: Context) -> Body {
    match message {
        Message::Request { id, method, params } => {
            let field = |key: &str| params.as_ref()?.get(key)?.as_str().map(String::from);
            let meta = params.as_ref().and_then(|p| p.get("_meta"));
            let version = meta
                .and_then(|m| m.get("io.modelcontextprotocol/protocolVersion"))
                .and_then(Value::as_str)
                .map(String::from);
            let name = match method.as_str() {
                "tools/call" | "prompts/get" => field("name"),
                "resources/read" => field("uri"),
                _ => None,
            };
            Body::Request {
                id: id.clone(),
                method: method.clone(),
                version,
                name,
                params: cx.param_headers.to_vec(),
                meta_missing: ["protocolVersion", "clientCapabilities"].iter().any(|k| {
                    meta.and_then(|m| m.get(format!("io.modelcontextprotocol/{k}")))
                        .is_none()
                }),
            }
        }
        Message::Notification { .. } => Body::Accepted("a notification"),
        Message::Response { .. } => Body::Accepted("a response"),
    }
}

/// Whether a judged legacy exchange is one that no later event can find fault with, so that
/// forgetting it changes nothing: what may still come on its stream is judged by `stream`
/// only for a GET (H6) or a 202 that may carry a body (H2); an error status that may carry a
/// message is what `status` tells a refusal by; a resumed stream is what `redelivered` and
/// `h6_replay` look up. For anything else an absent exchange reads as this one would.
fn inert(head: &Head, body: Option<&Body>) -> bool {
    let empty = head.answered("content-length") == Some("0");
    let resuming = head.asked("last-event-id").is_some();
    let accepted = matches!(body, Some(Body::Accepted(_))) && head.status == 202;
    let refused = head.status >= 400 && !empty;
    !resuming && head.method != "GET" && (!accepted || empty) && !refused
}

fn is_initialize(body: Option<&Body>) -> bool {
    matches!(body, Some(Body::Request { method, .. }) if method == "initialize")
}

fn visible_ascii(text: &str) -> bool {
    !text.is_empty() && text.bytes().all(|b| (0x21..=0x7e).contains(&b))
}

/// C5 (the HTTP half): over Streamable HTTP a modern client cancels a request by closing
/// the request's SSE stream; it never sends `notifications/cancelled` (basic/patterns/
/// cancellation: on HTTP the notification is not used).
fn c5_cancel(message: &Message, cx: Context) -> Option<Found> {
    let Message::Notification { method, params } = message else {
        return None;
    };
    if !cx.modern || method != "notifications/cancelled" {
        return None;
    }
    let id = params
        .as_ref()
        .and_then(|p| p.get("requestId"))
        .map_or("?".to_string(), Value::to_string);
    Some(must(
        "C5",
        format!(
            "the client sent notifications/cancelled for request {id} over HTTP: closing the request's stream is the cancellation"
        ),
    ))
}

/// H1: each client message is the body of a POST whose `Accept` lists both
/// `application/json` and `text/event-stream`.
fn h1_post(head: &Head, body: Option<&Body>) -> Option<Found> {
    body?;
    if head.method != "POST" {
        return Some(must(
            "H1",
            format!(
                "a message sent as the body of a {}, not a POST",
                head.method
            ),
        ));
    }
    let accept = head
        .asked("accept")
        .unwrap_or_default()
        .to_ascii_lowercase();
    // A media range is compared whole (before its parameters): `application/json-seq` is
    // not `application/json`; one with `q=0` says the type is not acceptable (RFC 9110
    // section 12.4.2), so it is not listed as supported.
    let lists = |media: &str| {
        accept.split(',').any(|range| {
            let mut parts = range.split(';').map(str::trim);
            let refused = |p: &str| {
                p.strip_prefix("q=")
                    .and_then(|q| q.parse::<f64>().ok())
                    .is_some_and(|q| q == 0.0)
            };
            parts.next() == Some(media) && !parts.any(refused)
        })
    };
    if lists("application/json") && lists("text/event-stream") {
        return None;
    }
    Some(must(
        "H1",
        format!(
            "POST with Accept {:?}: it must list application/json and text/event-stream",
            head.asked("accept").unwrap_or_default()
        ),
    ))
}

/// H2: a POST of a notification or a response is answered 202 (without a body) or 4xx.
fn h2_accepted(head: &Head, body: Option<&Body>) -> Option<Found> {
    let Some(Body::Accepted(what)) = body else {
        return None;
    };
    if head.status == 202 || (400..500).contains(&head.status) {
        return None;
    }
    Some(must(
        "H2",
        format!("a POST of {what} answered {}, not 202 or 4xx", head.status),
    ))
}

/// H3: a POST of a request that succeeds is answered `application/json` or
/// `text/event-stream`.
fn h3_request(head: &Head, body: Option<&Body>) -> Option<Found> {
    let Some(Body::Request { method, .. }) = body else {
        return None;
    };
    let media = head.content_type();
    if !head.success() || media == "application/json" || media == "text/event-stream" {
        return None;
    }
    Some(must(
        "H3",
        format!(
            "a POST of request `{method}` answered {} with content type {:?}, not application/json or text/event-stream",
            head.status,
            head.answered("content-type").unwrap_or_default()
        ),
    ))
}

/// H6 (the head): a GET is answered with an SSE stream or 405.
fn h6_get(head: &Head) -> Option<Found> {
    if head.method != "GET" || !head.success() || head.content_type() == "text/event-stream" {
        return None;
    }
    Some(must(
        "H6",
        format!(
            "GET answered {} with content type {:?}, not an SSE stream or 405",
            head.status,
            head.answered("content-type").unwrap_or_default()
        ),
    ))
}

/// H10 (the head): a modern server answers GET and DELETE with 405 (SHOULD).
fn h10_get(head: &Head) -> Option<Found> {
    if !matches!(head.method.as_str(), "GET" | "DELETE") || head.status == 405 {
        return None;
    }
    Some(should(
        "H10",
        format!("{} answered {}, not 405", head.method, head.status),
    ))
}

/// H8: a modern request carries `MCP-Protocol-Version`, `Mcp-Method` and (for `tools/call`,
/// `prompts/get`, `resources/read`) `Mcp-Name` equal to its body; a request whose headers do
/// not match is answered 400.
fn h8_headers(head: &Head, body: Option<&Body>) -> Vec<Found> {
    let Some(Body::Request {
        method,
        version,
        name,
        params,
        ..
    }) = body
    else {
        return Vec::new();
    };
    let mut expected = vec![
        ("MCP-Protocol-Version", version.as_deref()),
        ("Mcp-Method", Some(method.as_str())),
        ("Mcp-Name", name.as_deref()),
    ];
    expected.extend(params.iter().map(|(h, v)| (h.as_str(), Some(v.as_str()))));
    let mut found = Vec::new();
    for (header, want) in expected {
        let Some(want) = want else { continue };
        let sent = head.asked(header).map(decode_header);
        if sent.as_deref() != Some(want) {
            let what = sent.map_or("missing".to_string(), |s| format!("{s:?}"));
            found.push(must(
                "H8",
                format!("request `{method}`: {header} is {what}, the body says {want:?}"),
            ));
        }
    }
    if !found.is_empty() && head.status != 400 {
        found.push(must(
            "H8",
            format!(
                "request `{method}` with headers that do not match its body answered {}, not 400",
                head.status
            ),
        ));
    }
    found
}

/// A header value as a client sends it: plain when it is visible ASCII without whitespace
/// at either end (and does not look encoded itself), else `=?base64?...?=` of its UTF-8.
pub fn encode_header_value(value: &str) -> String {
    let plain = value.bytes().all(|b| (0x20..=0x7e).contains(&b))
        && value.trim() == value
        && !(value.starts_with("=?base64?") && value.ends_with("?="));
    match plain {
        true => value.to_string(),
        false => format!("=?base64?{}?=", base64::encode(value.as_bytes())),
    }
}

/// A header value as sent, or decoded from `=?base64?...?=`.
fn decode_header(value: &str) -> String {
    let inner = value
        .strip_prefix("=?base64?")
        .and_then(|v| v.strip_suffix("?="));
    match inner.and_then(base64::decode) {
        Some(bytes) => String::from_utf8_lossy(&bytes).into_owned(),
        None => value.to_string(),
    }
}

/// The rules of a server message on the stream of `exchange`: H2 (a body after 202), H6 (no
/// response on the GET stream unless resuming), H9 (error codes with their status), H10 (no
/// request on a modern response stream; the response ends it).
fn stream(exchange: &mut Exchange, message: &Message, cx: Context) -> Vec<Found> {
    let Some(head) = exchange.head.as_ref() else {
        return Vec::new();
    };
    let mut found = Vec::new();
    if matches!(exchange.body, Some(Body::Accepted(_))) && head.status == 202 {
        found.push(must("H2", "a message in the body of a 202".to_string()));
    }
    if cx.modern {
        found.extend(h9_status(head, message));
        found.extend(h9_missing_meta(head, exchange.body.as_ref(), message));
        found.extend(m13_listen_stream(exchange.body.as_ref(), message));
        found.extend(h10_stream(exchange, message));
    } else {
        found.extend(h6_stream(head, exchange.resuming, message));
    }
    found
}

/// H6 (the stream): no JSON-RPC response on the GET stream unless the client is resuming.
fn h6_stream(head: &Head, resuming: bool, message: &Message) -> Option<Found> {
    let Message::Response { id, .. } = message else {
        return None;
    };
    if head.method != "GET" || resuming {
        return None;
    }
    Some(must(
        "H6",
        format!("the response to request {id} on the GET stream, which is not resuming"),
    ))
}

/// H8 and H9: a modern error's code goes with its HTTP status.
fn h9_status(head: &Head, message: &Message) -> Option<Found> {
    let Message::Response {
        outcome: Err(error),
        ..
    } = message
    else {
        return None;
    };
    let code = error.get("code").and_then(Value::as_i64)?;
    let (rule, status) = match code {
        -32020 => ("H8", 400),
        -32022 | -32021 => ("H9", 400),
        -32601 => ("H9", 404),
        _ => return None,
    };
    if head.status == status {
        return None;
    }
    Some(must(
        rule,
        format!(
            "error {code} sent with HTTP status {}, not {status}",
            head.status
        ),
    ))
}

/// H9: a modern request whose `_meta` lacks the protocol version or the client capabilities
/// is answered 400 with `-32602` (or `-32020`).
fn h9_missing_meta(head: &Head, body: Option<&Body>, message: &Message) -> Option<Found> {
    let Some(Body::Request {
        id: asked,
        method,
        meta_missing: true,
        ..
    }) = body
    else {
        return None;
    };
    let Message::Response { id, outcome } = message else {
        return None;
    };
    let code = outcome
        .as_ref()
        .err()
        .and_then(|e| e.get("code"))
        .and_then(Value::as_i64);
    // A missing version may also be read as headers that do not match the body (-32020).
    if id != asked || (matches!(code, Some(-32602 | -32020)) && head.status == 400) {
        return None;
    }
    let answer = code.map_or("a result".to_string(), |c| format!("error {c}"));
    Some(must(
        "H9",
        format!(
            "`{method}` without `_meta` protocolVersion and clientCapabilities got {answer} with status {}, not -32602 with 400",
            head.status
        ),
    ))
}

/// M13 (the stream of a listen): every notification on the stream that answers a
/// `subscriptions/listen` carries that listen's id as its subscriptionId. (Over stdio there
/// is no stream to tell: the notifications that carry one are held to it by the model.)
fn m13_listen_stream(body: Option<&Body>, message: &Message) -> Option<Found> {
    let Some(Body::Request { id, method, .. }) = body else {
        return None;
    };
    let Message::Notification {
        method: note,
        params,
    } = message
    else {
        return None;
    };
    if method != "subscriptions/listen" {
        return None;
    }
    let meta = params.as_ref().and_then(|p| p.get("_meta"));
    let carried = meta.and_then(|m| m.get("io.modelcontextprotocol/subscriptionId"));
    if carried == Some(id) {
        return None;
    }
    let what = match carried {
        None => "no subscriptionId".to_string(),
        Some(other) => format!("subscriptionId {other}"),
    };
    Some(must(
        "M13",
        format!("`{note}` on the stream of listen {id} carries {what}"),
    ))
}

/// H10 (the stream): a modern server sends no request on a response stream, and nothing
/// after the response (SHOULD).
fn h10_stream(exchange: &mut Exchange, message: &Message) -> Vec<Found> {
    let mut found = Vec::new();
    if exchange.answered {
        found.push(should(
            "H10",
            "a message on a response stream after its response".to_string(),
        ));
    }
    match message {
        Message::Request { method, .. } => found.push(must(
            "H10",
            format!("the server sent request `{method}` on a response stream"),
        )),
        Message::Response { id, .. } => {
            if matches!(&exchange.body, Some(Body::Request { id: asked, .. }) if asked == id) {
                exchange.answered = true;
            }
        }
        Message::Notification { .. } => {}
    }
    found
}

/// The arguments of each listed tool that a modern client mirrors into `Mcp-Param-{Name}`
/// headers: properties annotated `x-mcp-header`, reached through `properties` alone.
#[derive(Default)]
pub struct HeaderArgs {
    tools: HashMap<String, Vec<(String, Vec<String>)>>,
}

impl HeaderArgs {
    /// Reads a page of the tool listing.
    pub fn listed(&mut self, result: &Value) {
        let tools = result.get("tools").and_then(Value::as_array);
        for tool in tools.into_iter().flatten() {
            let Some(name) = tool.get("name").and_then(Value::as_str) else {
                continue;
            };
            let schema = tool.get("inputSchema").unwrap_or(&Value::Null);
            let found = agentpi_mcp::headers::mirrored(schema);
            self.tools.insert(name.to_string(), found);
        }
    }

    /// The headers a `tools/call` must carry, with their values (primitive arguments sent;
    /// numbers as JSON writes them).
    pub fn expected(&self, message: &Message) -> Vec<(String, String)> {
        let Message::Request { method, params, .. } = message else {
            return Vec::new();
        };
        let name = params
            .as_ref()
            .and_then(|p| p.get("name"))
            .and_then(Value::as_str);
        let (true, Some(args)) = (method == "tools/call", name.and_then(|n| self.tools.get(n)))
        else {
            return Vec::new();
        };
        let arguments = params.as_ref().and_then(|p| p.get("arguments"));
        args.iter()
            .filter_map(|(header, path)| {
                let value = path.iter().try_fold(arguments?, |v, key| v.get(key))?;
                let text = match value {
                    Value::String(s) => s.clone(),
                    Value::Bool(_) | Value::Number(_) => value.to_string(),
                    _ => return None,
                };
                Some((format!("Mcp-Param-{header}"), text))
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::{decode_header, encode_header_value};

    /// Plain header-safe text goes as it is; anything else is base64 of its UTF-8, which the
    /// monitor decodes back (the encoding of the Python SDK's `encode_header_value`).
    #[test]
    fn header_values_round_trip() {
        let cases = [
            ("Paris", "Paris"),
            ("New York", "New York"),
            ("Zürich", "=?base64?WsO8cmljaA==?="),
            (" padded", "=?base64?IHBhZGRlZA==?="),
            ("tab\there", "=?base64?dGFiCWhlcmU=?="),
            ("=?base64?eA==?=", "=?base64?PT9iYXNlNjQ/ZUE9PT89?="),
            ("", ""),
        ];
        for (value, sent) in cases {
            assert_eq!(encode_header_value(value), sent, "{value:?}");
            assert_eq!(decode_header(sent), value, "{sent:?}");
        }
    }
}

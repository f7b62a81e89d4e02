//! The JSON beside the model's labels: what the bridge writes for each output of `ToModern`
//! (a modern request with its `_meta`, an `initialize` result made of `server/discover`'s,
//! the legacy requests of an `input_required` result, a retry), and how a real message is
//! read as the model's value (`caps`, `kind_of`).

use crate::msg::{Caps, Kind};
use serde_json::{Map, Value, json};

/// The JSON-RPC error code of the bridge's own errors (a message no transition takes, a
/// server that went away, a request the model refuses).
pub const BRIDGE_ERROR: i64 = -32603;

/// The modern protocol version the bridge speaks to its server.
pub const MODERN: &str = "2026-07-28";
/// The legacy versions the bridge answers `initialize` with: the client's own when listed
/// here, else the latest.
pub const LEGACY: &[&str] = &["2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"];

/// The model's capability bit of a legacy client's `initialize` capabilities: `elicit` when
/// it can answer any request an `input_required` result may hold (elicitation, sampling or
/// roots travel alike in the model), else `bare`.
pub fn caps(capabilities: &Value) -> Caps {
    let has = |k: &str| capabilities.get(k).is_some();
    match (has("elicitation"), has("sampling")) {
        (true, true) => Caps::Full,
        (true, false) => Caps::Elicit,
        (false, true) => Caps::Sample,
        (false, false) => Caps::Bare,
    }
}

/// The kind of a legacy client's request after the handshake: `logging/setLevel`, a
/// task-augmented request, or a request the bridge forwards (the model's `tools` stands for
/// every forwarded request: lists, calls, reads, prompts, completions).
pub fn kind_of(method: &str, params: &Value) -> Kind {
    if method == "logging/setLevel" {
        Kind::Logging
    } else if params.get("task").is_some() {
        Kind::Task
    } else {
        Kind::Tools
    }
}

/// The legacy version to answer `initialize` with.
pub fn negotiate(offered: Option<&str>) -> &'static str {
    LEGACY
        .iter()
        .find(|v| Some(**v) == offered)
        .copied()
        .unwrap_or(LEGACY[0])
}

/// What the modern request's `_meta` declares for the legacy session: the version, the
/// capabilities the client declared at `initialize`, its `clientInfo`, and the log level it
/// set, if any.
#[derive(Clone, Debug, Default)]
pub struct Declared {
    pub capabilities: Value,
    pub client_info: Value,
    pub log_level: Option<Value>,
}

impl Declared {
    /// `params` with the modern `_meta` keys added to what `_meta` it had (a progress token
    /// stays).
    pub fn params(&self, params: Option<&Value>) -> Value {
        let mut params = params.cloned().unwrap_or_else(|| json!({}));
        if !params.is_object() {
            params = json!({});
        }
        let meta = params
            .as_object_mut()
            .expect("made an object")
            .entry("_meta")
            .or_insert_with(|| json!({}));
        if let Some(meta) = meta.as_object_mut() {
            meta.insert(
                "io.modelcontextprotocol/protocolVersion".into(),
                json!(MODERN),
            );
            meta.insert(
                "io.modelcontextprotocol/clientCapabilities".into(),
                self.capabilities.clone(),
            );
            meta.insert(
                "io.modelcontextprotocol/clientInfo".into(),
                self.client_info.clone(),
            );
            if let Some(level) = &self.log_level {
                meta.insert("io.modelcontextprotocol/logLevel".into(), level.clone());
            }
        }
        params
    }
}

pub fn request(id: &Value, method: &str, params: Value) -> Value {
    let mut message = head(id);
    message.insert("method".into(), Value::String(method.into()));
    message.insert("params".into(), params);
    Value::Object(message)
}

pub fn result(id: &Value, result: Value) -> Value {
    let mut message = head(id);
    message.insert("result".into(), result);
    Value::Object(message)
}

/// `jsonrpc` and `id`, the first fields of every message the bridge makes. The rest is moved
/// in, not copied: `json!` serialises each value it is given into a new one, which was a
/// fifth of what the bridge spent on a line (a call's result copied key by key).
fn head(id: &Value) -> Map<String, Value> {
    let mut message = Map::new();
    message.insert("jsonrpc".into(), Value::String("2.0".into()));
    message.insert("id".into(), id.clone());
    message
}

pub fn error(id: &Value, code: i64, message: &str) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": message}})
}

/// The `initialize` result made of a `server/discover` result: the server's capabilities and
/// instructions, its `serverInfo` (from the result's `_meta`), the negotiated version.
pub fn initialize_result(discover: &Value, version: &str) -> Value {
    let info = discover
        .pointer("/_meta/io.modelcontextprotocol~1serverInfo")
        .cloned()
        .unwrap_or_else(|| json!({"name": "agentpi-bridge", "version": env!("CARGO_PKG_VERSION")}));
    let mut out = json!({
        "protocolVersion": version,
        // All the server declared: its `resources.subscribe` and `listChanged` flags say
        // that its `subscriptions/listen` serves them (2026-07-28), and the bridge carries
        // them through it (`subscriptions`): a legacy client is told of them exactly when
        // the server offers them.
        "capabilities": discover.get("capabilities").cloned().unwrap_or_else(|| json!({})),
        "serverInfo": info,
    });
    if let Some(text) = discover.get("instructions") {
        out["instructions"] = text.clone();
    }
    out
}

/// A legacy server's capabilities less what `--to legacy` does not carry to a modern client:
/// `resources.subscribe` and the `listChanged` flags, which a modern client asks for through
/// `subscriptions/listen` (not served by `ToLegacy`: docs/bridge.md): a modern client is not
/// told of what would never come.
pub fn carried(capabilities: Option<&Value>) -> Value {
    let mut out = capabilities.cloned().unwrap_or_else(|| json!({}));
    if let Some(object) = out.as_object_mut() {
        for capability in object.values_mut() {
            if let Some(flags) = capability.as_object_mut() {
                flags.remove("subscribe");
                flags.remove("listChanged");
            }
        }
    }
    out
}

/// Whether a `server/discover` result declares `logging`: then (only then) the `initialize`
/// answer declares it and `logging/setLevel` is taken (X6).
pub fn declares_logging(discover: &Value) -> bool {
    discover.pointer("/capabilities/logging").is_some()
}

/// Whether a `server/discover` result offers the modern version the bridge speaks.
pub fn offers_modern(discover: &Value) -> bool {
    discover
        .get("supportedVersions")
        .and_then(Value::as_array)
        .is_some_and(|vs| vs.iter().any(|v| v == MODERN))
}

/// A modern result as a legacy client expects it: without `resultType`, the cache hints
/// and the `serverInfo` of `_meta`, which 2025-11-25 does not have.
pub fn legacy_result(modern: &Value) -> Value {
    let mut out = modern.clone();
    if let Some(object) = out.as_object_mut() {
        for key in ["resultType", "ttlMs", "cacheScope"] {
            object.remove(key);
        }
        if let Some(Value::Object(meta)) = object.get_mut("_meta") {
            meta.remove("io.modelcontextprotocol/serverInfo");
            if meta.is_empty() {
                object.remove("_meta");
            }
        }
    }
    out
}

/// The input requests of an `input_required` result, in order: key, method, params.
pub fn input_requests(result: &Value) -> Vec<(String, String, Value)> {
    let Some(map) = result.get("inputRequests").and_then(Value::as_object) else {
        return Vec::new();
    };
    map.iter()
        .map(|(key, r)| {
            let method = r.get("method").and_then(Value::as_str).unwrap_or_default();
            let params = r.get("params").cloned().unwrap_or_else(|| json!({}));
            (key.clone(), method.to_string(), params)
        })
        .collect()
}

/// The retry of a request: its params with the answers and the `requestState`.
pub fn retry_params(params: &Value, answers: &Map<String, Value>, state: Option<&Value>) -> Value {
    let mut params = params.clone();
    if let Some(object) = params.as_object_mut() {
        object.remove("inputResponses");
        object.remove("requestState");
        if !answers.is_empty() {
            object.insert("inputResponses".into(), Value::Object(answers.clone()));
        }
        if let Some(state) = state {
            object.insert("requestState".into(), state.clone());
        }
    }
    params
}

/// The three kinds of JSON-RPC message the bridge tells apart.
pub enum Shape<'a> {
    Request(&'a Value, &'a str),
    Notification(&'a str),
    Response(&'a Value),
    Invalid,
}

pub fn shape(message: &Value) -> Shape<'_> {
    let method = message.get("method").and_then(Value::as_str);
    match (message.get("id"), method) {
        (Some(id), Some(m)) if !id.is_null() => Shape::Request(id, m),
        (None, Some(m)) => Shape::Notification(m),
        (Some(id), None) if message.get("result").is_some() || message.get("error").is_some() => {
            Shape::Response(id)
        }
        _ => Shape::Invalid,
    }
}

//! The JSON beside the model's labels for `--to legacy`: the bridge's `initialize` to the
//! legacy server, a `server/discover` result made of its `initialize` result, a modern
//! request's `_meta` checked and stripped for the legacy session, a legacy result made a
//! modern one, and the `input_required` result that stands for a legacy server's request in
//! the middle of a call.

use crate::msg::Caps;
use crate::wire::{self, LEGACY, MODERN};
use serde_json::{Map, Value, json};

/// The `_meta` keys of the modern era, which a legacy server must not see.
const MODERN_KEYS: [&str; 4] = [
    "io.modelcontextprotocol/protocolVersion",
    "io.modelcontextprotocol/clientCapabilities",
    "io.modelcontextprotocol/clientInfo",
    "io.modelcontextprotocol/logLevel",
];

/// Methods whose complete results carry cache hints (the modern monitor's M10).
const CACHED: [&str; 6] = [
    "server/discover",
    "tools/list",
    "prompts/list",
    "resources/list",
    "resources/templates/list",
    "resources/read",
];

/// The bridge's `initialize`: the model's `initialize(elicit)`, elicitation (both modes: an
/// input request carries either) and sampling; not roots: a legacy server would ask for them
/// between calls, where no modern client can answer (docs/bridge.md).
pub fn initialize_params() -> Value {
    json!({
        "protocolVersion": LEGACY[0],
        "capabilities": {"elicitation": {"form": {}, "url": {}}, "sampling": {}},
        "clientInfo": {"name": "agentpi-bridge", "version": env!("CARGO_PKG_VERSION")},
    })
}

/// The log levels, least severe first (RFC 5424's, as MCP names them).
const LEVELS: [&str; 8] = [
    "debug",
    "info",
    "notice",
    "warning",
    "error",
    "critical",
    "alert",
    "emergency",
];

/// Whether a log line at `level` is at or above the level `wanted` a request opted in to
/// (an unknown level counts as the least severe, so a line of it goes only where `debug` was
/// asked for).
pub fn at_least(level: Option<&str>, wanted: Option<&str>) -> bool {
    let rank = |l: Option<&str>| l.and_then(|l| LEVELS.iter().position(|x| *x == l));
    rank(level).unwrap_or(0) >= rank(wanted).unwrap_or(0)
}

/// The `server/discover` result made of the legacy server's `initialize` result.
pub fn discover_result(init: &Value) -> Value {
    let mut capabilities = wire::carried(init.get("capabilities"));
    if let Some(object) = capabilities.as_object_mut() {
        // Not carried: tasks of one era are refused by the other (docs/bridge.md). `logging`
        // is: a held call's log lines go to the modern request that opted in, at its level.
        object.remove("tasks");
    }
    let mut out = json!({
        "supportedVersions": [MODERN],
        "capabilities": capabilities,
        "resultType": "complete",
        "ttlMs": 0,
        "cacheScope": "private",
        "_meta": {"io.modelcontextprotocol/serverInfo": server_info(init)},
    });
    if let Some(text) = init.get("instructions") {
        out["instructions"] = text.clone();
    }
    out
}

fn server_info(init: &Value) -> Value {
    init.get("serverInfo")
        .cloned()
        .unwrap_or_else(|| json!({"name": "agentpi-bridge", "version": env!("CARGO_PKG_VERSION")}))
}

/// Why a modern request's `_meta` cannot be carried: the protocol version it names, when it
/// is not the one the bridge speaks (error -32022, M4).
pub fn check_version(params: &Value) -> Result<(), Value> {
    let asked = meta_key(params, "io.modelcontextprotocol/protocolVersion");
    match asked.and_then(Value::as_str) {
        Some(MODERN) => Ok(()),
        other => Err(json!({
            "code": -32022,
            "message": "agentpi bridge: unsupported protocol version",
            "data": {"supported": [MODERN], "requested": other.unwrap_or("")},
        })),
    }
}

/// `params._meta[key]`: read on every request, where `pointer` would unescape its path
/// (`~1`) into new strings each time.
fn meta_key<'a>(params: &'a Value, key: &str) -> Option<&'a Value> {
    params.get("_meta")?.get(key)
}

/// The model's capability bit of a modern request (its `_meta` clientCapabilities).
pub fn caps(params: &Value) -> Caps {
    let declared = meta_key(params, "io.modelcontextprotocol/clientCapabilities");
    wire::caps(declared.unwrap_or(&Value::Null))
}

/// The request's params for the legacy session: the modern `_meta` keys, `inputResponses`
/// and `requestState` removed (a progress token stays).
/// Only what stays is copied (the modern `_meta`, a client's capabilities and information,
/// was most of the copy), in the order the client gave it.
pub fn legacy_params(params: &Value) -> Value {
    let Some(object) = params.as_object() else {
        return json!({});
    };
    let mut out = Map::new();
    for (key, value) in object {
        match (key.as_str(), value) {
            ("inputResponses" | "requestState", _) => {}
            ("_meta", Value::Object(meta)) => {
                let legacy = |(k, _): &(&String, &Value)| !MODERN_KEYS.contains(&k.as_str());
                let kept: Map<String, Value> = (meta.iter().filter(legacy))
                    .map(|(k, v)| (k.clone(), v.clone()))
                    .collect();
                if !kept.is_empty() {
                    out.insert(key.clone(), Value::Object(kept));
                }
            }
            _ => {
                out.insert(key.clone(), value.clone());
            }
        }
    }
    Value::Object(out)
}

/// A legacy result as a modern client expects it: `resultType`, the server named in
/// `_meta`, and the cache hints of the methods that have them.
pub fn modern_result(method: &str, legacy: &Value, init: &Value) -> Value {
    let mut out = legacy.clone();
    if !out.is_object() {
        out = json!({});
    }
    let object = out.as_object_mut().expect("made an object");
    object.insert("resultType".into(), json!("complete"));
    let meta = object.entry("_meta").or_insert_with(|| json!({}));
    if let Some(meta) = meta.as_object_mut() {
        meta.insert(
            "io.modelcontextprotocol/serverInfo".into(),
            server_info(init),
        );
    }
    if CACHED.contains(&method) {
        object.entry("ttlMs").or_insert(json!(0));
        object.entry("cacheScope").or_insert(json!("private"));
    }
    out
}

/// The `input_required` result standing for the legacy server's request `method(params)`:
/// one input request under `key`, the `requestState` that names the held call, and the
/// server named in `_meta` (of the legacy server's `initialize` result `init`).
pub fn input_required(key: &str, method: &str, params: &Value, state: &str, init: &Value) -> Value {
    json!({
        "resultType": "input_required",
        "inputRequests": {key: {"method": method, "params": params}},
        "requestState": state,
        "_meta": {"io.modelcontextprotocol/serverInfo": server_info(init)},
    })
}

/// The bridge's answer to a legacy server's request on behalf of a modern request that did
/// not declare the capability (the model's `res(e, false)`): an elicitation is declined,
/// anything else refused.
pub fn refusal(id: &Value, method: &str) -> Value {
    match method {
        "elicitation/create" => wire::result(id, json!({"action": "decline"})),
        _ => wire::error(
            id,
            -32601,
            "agentpi bridge: the modern client did not declare this capability for the request",
        ),
    }
}

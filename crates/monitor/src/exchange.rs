//! A request judged together with its answer, in Rust: what one exchange must look like
//! beyond the shape of each message. Error codes (J11, M4, M5, X5's `-32042`), cache hints
//! (M10), input-required results (M11), `_meta` keys (J12), server and client identity (M2),
//! roots (X3), unknown tools (T5). What needs memory across exchanges (cursors, listings,
//! retries, capabilities) lives in `Ledger`, next door.

use crate::shape::Finding;
use crate::trace::Dir;
use serde_json::Value;

/// A request and what answered it, as the checks see them.
pub struct Exchange<'a> {
    pub method: &'a str,
    pub params: Option<&'a Value>,
    pub outcome: &'a Result<Value, Value>,
    /// Who sent the request.
    pub requester: Dir,
    pub modern: bool,
}

impl Exchange<'_> {
    fn param(&self, key: &str) -> Option<&Value> {
        self.params.and_then(|p| p.get(key))
    }

    fn request_meta(&self, key: &str) -> Option<&Value> {
        self.param("_meta").and_then(|m| m.get(key))
    }
}

/// The error codes 2026-07-28 defines inside its reserved range −32020…−32099.
const MODERN_CODES: [i64; 3] = [-32020, -32021, -32022];

/// Methods whose complete modern results carry cache hints (M10).
pub const CACHED: [&str; 6] = [
    "server/discover",
    "tools/list",
    "prompts/list",
    "resources/list",
    "resources/templates/list",
    "resources/read",
];

/// The checks of one answered request.
pub fn check(x: &Exchange) -> Vec<Finding> {
    let mut found = Vec::new();
    match x.outcome {
        Err(error) => error_codes(x, error, &mut found),
        Ok(result) => {
            meta_keys(result.get("_meta"), "the result", &mut found);
            if x.modern && x.requester == Dir::C2s {
                server_info(x, result, &mut found);
                cache_hints(x, result, &mut found);
                input_required(x, result, &mut found);
            }
            if x.method == "roots/list" {
                roots(result, &mut found);
            }
        }
    }
    found
}

fn code_of(error: &Value) -> Option<i64> {
    error.get("code").and_then(Value::as_i64)
}

fn error_codes(x: &Exchange, error: &Value, found: &mut Vec<Finding>) {
    let Some(code) = code_of(error) else { return };
    let data = error.get("data");
    let field = |k: &str| data.and_then(|d| d.get(k));
    if x.modern {
        let reserved = (-32099..=-32020).contains(&code) && !MODERN_CODES.contains(&code);
        if reserved || code == -32002 || code == -32042 {
            found.push((
                "J11",
                format!("error code {code} is not one 2026-07-28 defines"),
            ));
        }
    }
    match code {
        -32022 if x.modern => unsupported_version(x, field("supported"), field("requested"), found),
        -32021 if x.modern && !field("requiredCapabilities").is_some_and(Value::is_object) => {
            found.push((
                "M5",
                "error -32021 has no object `data.requiredCapabilities`".to_string(),
            ));
        }
        _ => {}
    }
}

/// M4: `-32022` names the versions the server supports and the one asked for, which is not
/// among them.
fn unsupported_version(
    x: &Exchange,
    supported: Option<&Value>,
    requested: Option<&Value>,
    found: &mut Vec<Finding>,
) {
    let (Some(Value::Array(supported)), Some(Value::String(requested))) = (supported, requested)
    else {
        found.push((
            "M4",
            "error -32022 lacks `data.supported` (an array) or `data.requested` (a string)"
                .to_string(),
        ));
        return;
    };
    let mut wrong = Vec::new();
    if supported.iter().any(|v| v.as_str() == Some(requested)) {
        wrong.push(format!(
            "it lists {requested:?}, which it refuses, as supported"
        ));
    }
    let asked = x.request_meta("io.modelcontextprotocol/protocolVersion");
    if let Some(Value::String(asked)) = asked
        && asked != requested
    {
        wrong.push(format!(
            "it says {requested:?} was requested; the request asked for {asked:?}"
        ));
    }
    if !wrong.is_empty() {
        found.push(("M4", format!("error -32022: {}", wrong.join("; "))));
    }
}

/// J12: every key of a `_meta` object is well formed and uses reserved prefixes only as the
/// specification does (the linter's T501 and T502, by the same function).
pub fn meta_keys(meta: Option<&Value>, whose: &str, found: &mut Vec<Finding>) {
    let Some(Value::Object(meta)) = meta else {
        return;
    };
    for key in meta.keys() {
        if let Some((_, reason)) = agentpi_mcp::lint::meta::problem(key) {
            found.push(("J12", format!("{whose}'s `_meta` key {key:?}: {reason}")));
        }
    }
}

/// M2 (SHOULD): a modern result names its server in `_meta`.
fn server_info(x: &Exchange, result: &Value, found: &mut Vec<Finding>) {
    let named = result
        .get("_meta")
        .and_then(|m| m.get("io.modelcontextprotocol/serverInfo"))
        .is_some();
    if !named {
        found.push((
            "M2",
            format!(
                "the result of `{}` has no `_meta` io.modelcontextprotocol/serverInfo",
                x.method
            ),
        ));
    }
}

fn result_type(result: &Value) -> &str {
    result
        .get("resultType")
        .and_then(Value::as_str)
        .unwrap_or("complete")
}

/// M10: complete results of discovery, listings and reads carry `ttlMs` and `cacheScope`;
/// input-required results carry neither.
fn cache_hints(x: &Exchange, result: &Value, found: &mut Vec<Finding>) {
    let ttl = result.get("ttlMs");
    let scope = result.get("cacheScope");
    if result_type(result) == "input_required" {
        if ttl.is_some() || scope.is_some() {
            found.push((
                "M10",
                "an input_required result carries cache hints".to_string(),
            ));
        }
        return;
    }
    if !CACHED.contains(&x.method) {
        return;
    }
    let ttl_ok = ttl.is_some_and(|t| t.as_u64().is_some());
    let scope_ok = matches!(scope.and_then(Value::as_str), Some("public" | "private"));
    if !ttl_ok || !scope_ok {
        found.push((
            "M10",
            format!(
                "the result of `{}` lacks `ttlMs` (an integer ≥ 0) or `cacheScope` (\"public\" or \"private\")",
                x.method
            ),
        ));
    }
}

/// The methods whose results may ask for input, and what they may ask with the client
/// capability each needs.
const MAY_ASK: [&str; 3] = ["tools/call", "prompts/get", "resources/read"];
const INPUT_REQUESTS: [(&str, &str); 3] = [
    ("elicitation/create", "elicitation"),
    ("sampling/createMessage", "sampling"),
    ("roots/list", "roots"),
];

/// M11: an input-required result answers a method that may ask, says what it asks or
/// carries state, and asks only what the client declared it can answer.
fn input_required(x: &Exchange, result: &Value, found: &mut Vec<Finding>) {
    if result_type(result) != "input_required" {
        return;
    }
    if !MAY_ASK.contains(&x.method) {
        found.push((
            "M11",
            format!("`{}` cannot answer input_required", x.method),
        ));
    }
    let asks = result.get("inputRequests");
    if asks.is_none() && result.get("requestState").is_none() {
        found.push((
            "M11",
            "an input_required result has neither inputRequests nor requestState".to_string(),
        ));
    }
    let caps = x.request_meta("io.modelcontextprotocol/clientCapabilities");
    let Some(Value::Object(asks)) = asks else {
        return;
    };
    for (key, ask) in asks {
        let method = ask.get("method").and_then(Value::as_str).unwrap_or("");
        let Some((_, cap)) = INPUT_REQUESTS.iter().find(|(m, _)| *m == method) else {
            found.push((
                "M11",
                format!("input request {key:?} is `{method}`, not elicitation, sampling or roots"),
            ));
            continue;
        };
        if caps.and_then(|c| c.get(cap)).is_none() {
            found.push((
                "M11",
                format!("input request {key:?} needs the client capability `{cap}`, which the request did not declare"),
            ));
        }
    }
}

/// X3: the roots a client lists are `file://` URIs.
fn roots(result: &Value, found: &mut Vec<Finding>) {
    let roots = result.get("roots").and_then(Value::as_array);
    for root in roots.into_iter().flatten() {
        let uri = root.get("uri").and_then(Value::as_str).unwrap_or("");
        if !uri.starts_with("file://") {
            found.push(("X3", format!("root {uri:?} is not a file:// URI")));
        }
    }
}

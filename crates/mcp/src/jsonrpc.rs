//! JSON-RPC 2.0 message construction and classification, as MCP frames it (§1.3 of the rule
//! book): requests with integer ids, notifications without, responses matched by id.

use serde_json::{json, Value};

/// The protocol revisions this client speaks, newest first per era.
pub const MODERN_VERSION: &str = "2026-07-28";
pub const LEGACY_VERSION: &str = "2025-11-25";

/// The client name sent in `clientInfo`.
pub const CLIENT_NAME: &str = "agentpi-lint";

pub fn request(id: u64, method: &str, params: Value) -> Value {
    json!({ "jsonrpc": "2.0", "id": id, "method": method, "params": params })
}

pub fn notification(method: &str, params: Value) -> Value {
    json!({ "jsonrpc": "2.0", "method": method, "params": params })
}

/// An error response to a server-initiated request we do not serve.
pub fn method_not_found(id: &Value) -> Value {
    json!({ "jsonrpc": "2.0", "id": id, "error": { "code": -32601, "message": "Method not found" } })
}

/// The `_meta` every modern request carries (protocol version, capabilities, client info).
pub fn modern_meta(version: &str) -> Value {
    json!({
        "io.modelcontextprotocol/protocolVersion": version,
        "io.modelcontextprotocol/clientCapabilities": {},
        "io.modelcontextprotocol/clientInfo": { "name": CLIENT_NAME, "version": env!("CARGO_PKG_VERSION") },
    })
}

/// What an incoming message is.
#[derive(Debug, PartialEq)]
pub enum Incoming<'a> {
    /// A response (result or error) to request `id`.
    Response(&'a Value),
    /// A request from the server, which needs an answer.
    Request(&'a Value),
    Notification,
    /// Valid JSON but not a JSON-RPC message.
    Other,
}

pub fn classify(message: &Value) -> Incoming<'_> {
    let id = message.get("id").filter(|id| !id.is_null());
    let method = message.get("method").is_some();
    match (id, method) {
        (Some(id), true) => Incoming::Request(id),
        (Some(id), false) if message.get("result").is_some() || message.get("error").is_some() => Incoming::Response(id),
        (None, true) => Incoming::Notification,
        _ => Incoming::Other,
    }
}

/// Whether `id` is the integer `expected` (the only ids this client sends).
pub fn is_id(id: &Value, expected: u64) -> bool {
    id.as_u64() == Some(expected)
}

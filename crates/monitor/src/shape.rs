//! The shape of one message, checked in Rust: framing and the JSON-RPC envelope (J1, J2, J5,
//! J8, S2, S3), and params and results per method (L2, L3, T2, T4, M1, J10; J13, the whole schema, is `schema`). What a
//! message means over time is the model's business (`bind`, `session`).

use crate::flat;
use crate::members::{self, Members, Top};
use crate::trace::Dir;
use serde_json::{Map, Value};

/// A message that passed the envelope checks.
#[derive(Clone, Debug, PartialEq)]
pub enum Message {
    Request {
        id: Value,
        method: String,
        params: Option<Value>,
    },
    Notification {
        method: String,
        params: Option<Value>,
    },
    Response {
        id: Value,
        /// `Ok(result)` or `Err(error)`.
        outcome: Result<Value, Value>,
    },
}

impl Message {
    /// The message as JSON again (what the schema of its method is checked against).
    pub fn to_value(&self) -> Value {
        let mut obj = Map::from_iter([("jsonrpc".to_string(), Value::from("2.0"))]);
        match self {
            Message::Request { id, method, params } => {
                obj.insert("id".into(), id.clone());
                obj.insert("method".into(), Value::from(method.as_str()));
                obj.extend(params.clone().map(|p| ("params".to_string(), p)));
            }
            Message::Notification { method, params } => {
                obj.insert("method".into(), Value::from(method.as_str()));
                obj.extend(params.clone().map(|p| ("params".to_string(), p)));
            }
            Message::Response { id, outcome } => {
                obj.insert("id".into(), id.clone());
                let (key, value) = match outcome {
                    Ok(result) => ("result", result),
                    Err(error) => ("error", error),
                };
                obj.insert(key.into(), value.clone());
            }
        }
        Value::Object(obj)
    }
}

/// A broken rule found in one message: the rule id and what is wrong.
pub type Finding = (&'static str, String);

/// Reads one message sent in direction `dir`; `None` when it is not a JSON-RPC message at
/// all (the findings say why).
pub fn parse(raw: &[u8], dir: Dir) -> (Option<Message>, Vec<Finding>) {
    let (message, found, _) = parse_marked(raw, dir);
    (message, found)
}

/// [`parse`], with the byte range of the message's id when a flat scan read it as an
/// integer (see `flat::read_marked`).
pub fn parse_marked(
    raw: &[u8],
    dir: Dir,
) -> (Option<Message>, Vec<Finding>, Option<(usize, usize)>) {
    let mut found = Vec::new();
    let Ok(text) = std::str::from_utf8(raw) else {
        found.push(("J1", "the message is not UTF-8".to_string()));
        return (None, found, None);
    };
    let (top, id_at) = match flat::read_marked(text) {
        Some((members, id_at)) => (Some(Top::Object(members)), id_at),
        None => (members::read(text), None),
    };
    let members = match top {
        Some(Top::Object(members)) => members,
        Some(Top::Array) => {
            found.push(("J8", "a JSON-RPC batch (an array)".to_string()));
            return (None, found, None);
        }
        Some(Top::Other) => {
            found.push(("J1", "the message is not a JSON object".to_string()));
            return (None, found, None);
        }
        None => {
            let (rule, who) = match dir {
                Dir::S2c => ("S2", "the server wrote a line to stdout that is not JSON"),
                _ => ("S3", "the client wrote a line to stdin that is not JSON"),
            };
            found.push((rule, who.to_string()));
            return (None, found, None);
        }
    };
    if members.jsonrpc != Some(true) {
        found.push(("J1", "`jsonrpc` is not \"2.0\"".to_string()));
    }
    let message = envelope(members, &mut found);
    (message, found, id_at)
}

fn envelope(members: Members, found: &mut Vec<Finding>) -> Option<Message> {
    // Read member by member (`members`): no ordered map is built for the top level.
    let Members {
        id,
        method,
        params,
        result,
        error,
        ..
    } = members;
    if let Some(method) = method {
        let Value::String(method) = method else {
            found.push(("J1", "`method` is not a string".to_string()));
            return None;
        };
        if params.as_ref().is_some_and(|p| !p.is_object()) {
            found.push(("J13", format!("the params of `{method}` are not an object")));
        }
        return match id {
            None => Some(Message::Notification { method, params }),
            Some(id) => {
                if !valid_id(&id) {
                    found.push((
                        "J2",
                        format!("request id {id} is not a string or an integer"),
                    ));
                }
                Some(Message::Request { id, method, params })
            }
        };
    }
    let id = id.unwrap_or(Value::Null);
    match (result, error) {
        (Some(result), None) => {
            if !result.is_object() {
                found.push(("J5", "the result is not an object".to_string()));
            }
            if id.is_null() {
                found.push(("J5", "a result without the request's id".to_string()));
            }
            Some(Message::Response {
                id,
                outcome: Ok(result),
            })
        }
        (None, Some(error)) => {
            let code_ok = error.get("code").is_some_and(|c| c.is_i64() || c.is_u64());
            let message_ok = error.get("message").is_some_and(Value::is_string);
            if !code_ok || !message_ok {
                found.push((
                    "J5",
                    "the error has no integer `code` or no string `message`".to_string(),
                ));
            }
            Some(Message::Response {
                id,
                outcome: Err(error),
            })
        }
        (Some(_), Some(_)) => {
            found.push((
                "J5",
                "a response with both `result` and `error`".to_string(),
            ));
            None
        }
        (None, None) => {
            found.push((
                "J1",
                "neither a request, a notification nor a response".to_string(),
            ));
            None
        }
    }
}

fn valid_id(id: &Value) -> bool {
    id.is_string() || id.is_i64() || id.is_u64()
}

/// Checks the params of a request or notification, by method.
pub fn params(method: &str, params: Option<&Value>, modern: bool, dir: Dir) -> Vec<Finding> {
    let mut found = Vec::new();
    let field = |name: &str| params.and_then(|p| p.get(name));
    match method {
        "initialize" if !modern => {
            let ok = field("protocolVersion").is_some_and(Value::is_string)
                && field("capabilities").is_some_and(Value::is_object)
                && field("clientInfo").is_some_and(|i| {
                    i.get("name").is_some_and(Value::is_string)
                        && i.get("version").is_some_and(Value::is_string)
                });
            if !ok {
                found.push(("L2", "initialize params lack protocolVersion, capabilities or clientInfo {name, version}".to_string()));
            }
        }
        "notifications/progress" => {
            let token = field("progressToken");
            if !token.is_some_and(|t| t.is_string() || t.is_i64() || t.is_u64()) {
                found.push((
                    "P1",
                    "progressToken is not a string or an integer".to_string(),
                ));
            }
        }
        _ => {}
    }
    // A dual-era client's `initialize` in a modern session is its legacy handshake, tried
    // before the probe was answered (M16); the server's refusal answers it, and M1 holds of
    // the modern requests alone.
    if modern && dir == Dir::C2s && !method.starts_with("notifications/") && method != "initialize"
    {
        let meta = field("_meta");
        let has = |k: &str| meta.and_then(|m| m.get(k)).is_some();
        if !has("io.modelcontextprotocol/protocolVersion")
            || !has("io.modelcontextprotocol/clientCapabilities")
        {
            found.push((
                "M1",
                format!("`{method}` has no _meta protocolVersion and clientCapabilities"),
            ));
        }
    }
    if let Some(token) = field("_meta").and_then(|m| m.get("progressToken"))
        && !(token.is_string() || token.is_i64() || token.is_u64())
    {
        found.push((
            "P1",
            "progressToken is not a string or an integer".to_string(),
        ));
    }
    found
}

/// Checks a successful result of a request of `method`; `schemas` are the output schemas of
/// the tools listed so far.
pub fn result(
    method: &str,
    params: Option<&Value>,
    result: &Value,
    modern: bool,
    schemas: &Map<String, Value>,
) -> Vec<Finding> {
    let mut found = Vec::new();
    if modern && result.get("resultType").is_none() {
        found.push(("J10", format!("the result of `{method}` has no resultType")));
    }
    match method {
        "initialize" if !modern => {
            let ok = result.get("protocolVersion").is_some_and(Value::is_string)
                && result.get("capabilities").is_some_and(Value::is_object)
                && result.get("serverInfo").is_some_and(Value::is_object);
            if !ok {
                found.push((
                    "L3",
                    "the initialize result lacks protocolVersion, capabilities or serverInfo"
                        .to_string(),
                ));
            }
        }
        "tools/list" => tools_list(result, &mut found),
        "tools/call" => tools_call(params, result, schemas, &mut found),
        _ => {}
    }
    found
}

fn tools_list(result: &Value, found: &mut Vec<Finding>) {
    // Without a `tools` array the result breaks its schema (J13, `schema`).
    let Some(tools) = result.get("tools").and_then(Value::as_array) else {
        return;
    };
    for tool in tools {
        let named = tool.get("name").is_some_and(Value::is_string);
        // The root of the input schema is `type: "object"` (a tool takes named arguments),
        // not merely a JSON object.
        let schema = tool.get("inputSchema");
        let object = schema.is_some_and(|s| s.get("type") == Some(&Value::from("object")));
        if !named || !object {
            found.push((
                "T2",
                format!(
                    "tool {} has no name or no inputSchema whose root is type \"object\"",
                    tool.get("name").unwrap_or(&Value::Null)
                ),
            ));
        }
    }
}

fn tools_call(
    params: Option<&Value>,
    result: &Value,
    schemas: &Map<String, Value>,
    found: &mut Vec<Finding>,
) {
    // A task-augmented call is answered with the task it created (`tasks`, X7), and an
    // input-required result asks for input (M11): the tool's result comes with the retry.
    let asks = result.get("resultType").and_then(Value::as_str) == Some("input_required");
    if asks || params.is_some_and(|p| p.get("task").is_some()) {
        return;
    }
    let name = params.and_then(|p| p.get("name")).and_then(Value::as_str);
    let Some(schema) = name.and_then(|n| schemas.get(n)) else {
        return;
    };
    if result.get("isError") == Some(&Value::Bool(true)) {
        return;
    }
    let Some(structured) = result.get("structuredContent") else {
        found.push((
            "T4",
            format!(
                "tool `{}` has an outputSchema but the result has no structuredContent",
                name.unwrap_or("")
            ),
        ));
        return;
    };
    let Ok(validator) = jsonschema::validator_for(schema) else {
        return;
    };
    if let Some(error) = validator.iter_errors(structured).next() {
        found.push((
            "T4",
            format!(
                "structuredContent of `{}` does not match its outputSchema: {error}",
                name.unwrap_or("")
            ),
        ));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rules(raw: &str, dir: Dir) -> Vec<&'static str> {
        parse(raw.as_bytes(), dir).1.iter().map(|f| f.0).collect()
    }

    #[test]
    fn envelopes() {
        assert_eq!(
            rules(r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#, Dir::C2s),
            Vec::<&str>::new()
        );
        assert_eq!(rules("Server started", Dir::S2c), ["S2"]);
        assert_eq!(rules("[1]", Dir::C2s), ["J8"]);
        assert_eq!(
            rules(r#"{"jsonrpc":"2.0","id":null,"method":"x"}"#, Dir::C2s),
            ["J2"]
        );
        assert_eq!(
            rules(r#"{"jsonrpc":"1.0","id":1,"result":{}}"#, Dir::S2c),
            ["J1"]
        );
        assert_eq!(
            rules(
                r#"{"jsonrpc":"2.0","id":1,"result":{},"error":{}}"#,
                Dir::S2c
            ),
            ["J5"]
        );
        assert_eq!(
            rules(
                r#"{"jsonrpc":"2.0","id":1,"error":{"code":"x","message":"m"}}"#,
                Dir::S2c
            ),
            ["J5"]
        );
    }
}

//! Recorded sessions: JSON lines, one JSON-RPC message per line (bare, or wrapped in an object
//! whose `message` or `msg` field holds it). The last complete `tools/list` listing (following
//! cursors) becomes the tool set; `tools/call` results are kept for the structured-output rules.

use super::error::{InputError, json_error};
use super::toolset::{Era, RecordedCall, ToolSet};
use serde_json::Value;
use std::collections::HashMap;

/// What a request id was used for.
enum Pending {
    List { continues: bool },
    Call(String),
    Other(String),
}

#[derive(Default)]
struct Reader {
    pending: HashMap<String, Pending>,
    set: ToolSet,
    saw_listing: bool,
}

pub fn parse(name: &str, text: &str) -> Result<ToolSet, InputError> {
    let mut reader = Reader::default();
    reader.set.origin = name.into();
    for (number, line) in text.lines().enumerate().map(|(i, l)| (i + 1, l)) {
        if line.trim().is_empty() {
            continue;
        }
        let value: Value = super::json::value(line).map_err(|e| {
            let mut error = json_error(name, &e);
            error.place = format!("{name}:{number}:{}", e.column().max(1));
            error
        })?;
        let (message, prefix) = unwrap(&value);
        reader.message(message, &format!("{name}:{number}"), prefix);
    }
    if !reader.saw_listing {
        return Err(InputError::new(name, "the recorded session contains no tools/list result")
            .with_help("record the session from the client's first message, including its tools/list request"));
    }
    Ok(reader.set)
}

/// The JSON-RPC message inside a line, and the pointer prefix that leads to it.
fn unwrap(value: &Value) -> (&Value, &'static str) {
    for (field, prefix) in [("message", "/message"), ("msg", "/msg")] {
        if let Some(inner) = value.get(field).filter(|v| v.is_object()) {
            return (inner, prefix);
        }
    }
    (value, "")
}

fn key(id: &Value) -> String {
    id.to_string()
}

impl Reader {
    fn message(&mut self, message: &Value, document: &str, prefix: &str) {
        let id = message.get("id").filter(|id| !id.is_null());
        match (message.get("method").and_then(Value::as_str), id) {
            (Some(method), Some(id)) => self.request(method, id, message),
            (None, Some(id)) => self.response(id, message, document, prefix),
            _ => {}
        }
    }

    fn request(&mut self, method: &str, id: &Value, message: &Value) {
        let params = message.get("params");
        let pending = match method {
            "tools/list" => {
                let cursor = params.and_then(|p| p.get("cursor")).and_then(Value::as_str);
                Pending::List {
                    continues: cursor.is_some_and(|c| !c.is_empty()),
                }
            }
            "tools/call" => {
                let tool = params
                    .and_then(|p| p.get("name"))
                    .and_then(Value::as_str)
                    .unwrap_or("");
                Pending::Call(tool.into())
            }
            other => Pending::Other(other.into()),
        };
        self.pending.insert(key(id), pending);
    }

    fn response(&mut self, id: &Value, message: &Value, document: &str, prefix: &str) {
        let Some(result) = message.get("result") else {
            return;
        };
        match self.pending.remove(&key(id)) {
            Some(Pending::List { continues }) => self.listing(result, continues, document, prefix),
            Some(Pending::Call(tool)) => self.set.calls.push(RecordedCall {
                tool,
                result: result.clone(),
                document: document.into(),
                pointer: format!("{prefix}/result"),
            }),
            Some(Pending::Other(method)) => self.handshake(&method, result),
            None if result.get("tools").is_some_and(Value::is_array) => {
                self.listing(result, false, document, prefix)
            }
            None => {}
        }
    }

    fn listing(&mut self, result: &Value, continues: bool, document: &str, prefix: &str) {
        let Some(tools) = result.get("tools").and_then(Value::as_array) else {
            return;
        };
        if !continues {
            self.set.tools.clear();
            self.set.document = document.into();
        }
        self.saw_listing = true;
        self.set
            .push_tools(document, &format!("{prefix}/result/tools"), tools);
        if result.get("resultType").is_some() {
            self.set.era = Some(Era::Modern);
        }
    }

    fn handshake(&mut self, method: &str, result: &Value) {
        match method {
            "initialize" => {
                self.set.era = Some(Era::Legacy);
                self.set.protocol_version = result
                    .get("protocolVersion")
                    .and_then(Value::as_str)
                    .map(str::to_owned);
            }
            "server/discover" => self.set.era = Some(Era::Modern),
            _ => {}
        }
    }
}

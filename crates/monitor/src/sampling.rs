//! Sampling with tools (2025-11-25, X4): how the tool-use and tool-result blocks of a
//! `sampling/createMessage` request's `messages` pair up, as client/sampling's "Message
//! Content Constraints" and the schema's `ToolResultContent.toolUseId` state them:
//!
//! - a user message that holds a tool result holds only tool results;
//! - an assistant message with tool uses is followed by a user message of tool results
//!   alone that answers every one of them (by `toolUseId`), before any other message;
//! - a tool result's `toolUseId` matches the id of a previous tool use.

use crate::shape::Finding;
use serde_json::Value;
use std::collections::HashSet;

/// The tool-use ids of the session so far: in the messages the server sent and in the
/// results the client returned (a tool result may answer a tool use the client's previous
/// result carried).
#[derive(Default)]
pub struct ToolUses {
    seen: HashSet<String>,
}

/// The content blocks of a sampling message: one block or an array of them.
fn blocks(message: &Value) -> Vec<&Value> {
    match message.get("content") {
        Some(Value::Array(items)) => items.iter().collect(),
        Some(block @ Value::Object(_)) => vec![block],
        _ => Vec::new(),
    }
}

fn kind(block: &Value) -> &str {
    block.get("type").and_then(Value::as_str).unwrap_or("")
}

fn role(message: &Value) -> &str {
    message.get("role").and_then(Value::as_str).unwrap_or("")
}

/// The ids of the blocks of type `of`, read from `key`.
fn ids<'a>(message: &'a Value, of: &str, key: &str) -> Vec<&'a str> {
    blocks(message)
        .into_iter()
        .filter(|b| kind(b) == of)
        .filter_map(|b| b.get(key).and_then(Value::as_str))
        .collect()
}

impl ToolUses {
    /// X4 for the messages of a `sampling/createMessage` request; remembers its tool uses.
    pub fn request(&mut self, params: Option<&Value>) -> Option<Finding> {
        let messages = params?.get("messages")?.as_array()?;
        let mut wrong = Vec::new();
        for (at, message) in messages.iter().enumerate() {
            mixed(at, message, &mut wrong);
            self.unmatched(at, message, &mut wrong);
            self.seen.extend(
                ids(message, "tool_use", "id")
                    .into_iter()
                    .map(str::to_string),
            );
            unanswered(at, message, messages.get(at + 1), &mut wrong);
        }
        (!wrong.is_empty()).then(|| ("X4", format!("sampling messages: {}", wrong.join("; "))))
    }

    /// Remembers the tool uses of the client's `sampling/createMessage` result.
    pub fn result(&mut self, result: &Value) {
        let uses = ids(result, "tool_use", "id");
        self.seen.extend(uses.into_iter().map(str::to_string));
    }

    /// A tool result whose `toolUseId` names no previous tool use.
    fn unmatched(&self, at: usize, message: &Value, wrong: &mut Vec<String>) {
        for id in ids(message, "tool_result", "toolUseId") {
            if !self.seen.contains(id) {
                wrong.push(format!(
                    "message {at}'s tool result {id:?} matches no previous tool use"
                ));
            }
        }
    }
}

/// A user message that mixes tool results with other content.
fn mixed(at: usize, message: &Value, wrong: &mut Vec<String>) {
    let kinds: Vec<&str> = blocks(message).into_iter().map(kind).collect();
    let results = kinds.contains(&"tool_result");
    if role(message) == "user" && results && kinds.iter().any(|k| *k != "tool_result") {
        wrong.push(format!(
            "message {at} mixes tool results with other content"
        ));
    }
}

/// An assistant message with tool uses not followed at once by a user message of tool
/// results alone that answers each of them.
fn unanswered(at: usize, message: &Value, next: Option<&Value>, wrong: &mut Vec<String>) {
    let uses = ids(message, "tool_use", "id");
    if role(message) != "assistant" || uses.is_empty() {
        return;
    }
    let Some(next) = next else {
        wrong.push(format!(
            "message {at} has tool uses and is the last message: no tool results follow"
        ));
        return;
    };
    let answered = ids(next, "tool_result", "toolUseId");
    let missing: Vec<&str> = uses.into_iter().filter(|u| !answered.contains(u)).collect();
    let mut why = Vec::new();
    if role(next) != "user" {
        why.push(format!("is a {:?} message", role(next)));
    }
    if blocks(next).into_iter().any(|b| kind(b) != "tool_result") {
        why.push("holds more than tool results".to_string());
    }
    if !missing.is_empty() {
        why.push(format!("leaves {missing:?} unanswered"));
    }
    if !why.is_empty() {
        wrong.push(format!(
            "message {at} has tool uses, and the message after it {}",
            why.join(", ")
        ));
    }
}

//! From messages to the model's labels: the `Kind` of a method (per direction, as the model's
//! peers name them) and the `decl` labels a capability object stands for.

use crate::trace::Dir;
use serde_json::Value;

/// The model's `Kind` of a request sent in direction `dir`.
pub fn request_kind(method: &str, dir: Dir) -> &'static str {
    if dir == Dir::S2c {
        return match method {
            "ping" => "ping",
            "sampling/createMessage" => "sampling",
            "roots/list" => "roots",
            "elicitation/create" => "elicitation",
            _ => "plain",
        };
    }
    match method {
        "initialize" => "initialize",
        "ping" => "ping",
        "server/discover" => "discover",
        "resources/subscribe" | "resources/unsubscribe" => "subscribe",
        "logging/setLevel" => "logging",
        "completion/complete" => "completion",
        m if m.starts_with("tools/") => "tools",
        m if m.starts_with("resources/") => "resources",
        m if m.starts_with("prompts/") => "prompts",
        _ => "plain",
    }
}

/// The modern model's `Kind` of a request (the server sends none: `plain`).
pub fn modern_request_kind(method: &str, dir: Dir) -> &'static str {
    if dir == Dir::S2c {
        return "plain";
    }
    match method {
        "server/discover" => "discover",
        "subscriptions/listen" => "listen",
        "completion/complete" => "completion",
        m if m.starts_with("tools/") => "tools",
        m if m.starts_with("resources/") => "resources",
        m if m.starts_with("prompts/") => "prompts",
        _ => "plain",
    }
}

/// The model's `Kind` of a notification (other than cancelled and progress).
pub fn note_kind(method: &str, dir: Dir, modern: bool) -> &'static str {
    if dir == Dir::C2s && modern {
        return "note_other";
    }
    if dir == Dir::C2s {
        return match method {
            "notifications/initialized" => "initialized",
            "notifications/roots/list_changed" => "roots_changed",
            _ => "note_other",
        };
    }
    match method {
        "notifications/message" => "log",
        "notifications/tools/list_changed" => "tools_changed",
        "notifications/resources/list_changed" => "resources_changed",
        "notifications/prompts/list_changed" => "prompts_changed",
        "notifications/resources/updated" => "updated",
        _ => "note_other",
    }
}

/// The kinds a capability object declares: the server's (an initialize result) or the
/// client's (initialize params).
pub fn declared(capabilities: &Value, server: bool) -> Vec<&'static str> {
    let has = |path: &[&str]| {
        let mut at = capabilities;
        for key in path {
            match at.get(key) {
                Some(v) => at = v,
                None => return false,
            }
        }
        !at.is_null() && *at != Value::Bool(false)
    };
    let table: &[(&[&str], &[&'static str])] = if server {
        &[
            (&["tools"], &["tools"]),
            (&["tools", "listChanged"], &["tools_changed"]),
            (&["resources"], &["resources"]),
            (&["resources", "subscribe"], &["subscribe", "updated"]),
            (&["resources", "listChanged"], &["resources_changed"]),
            (&["prompts"], &["prompts"]),
            (&["prompts", "listChanged"], &["prompts_changed"]),
            (&["logging"], &["logging", "log"]),
            (&["completions"], &["completion"]),
        ]
    } else {
        &[
            (&["roots"], &["roots"]),
            (&["roots", "listChanged"], &["roots_changed"]),
            (&["sampling"], &["sampling"]),
            (&["elicitation"], &["elicitation"]),
        ]
    };
    table
        .iter()
        .filter(|(path, _)| has(path))
        .flat_map(|(_, kinds)| kinds.iter().copied())
        .collect()
}

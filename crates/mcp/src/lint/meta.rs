//! `_meta` key rules (T501, T502): the specification's key-name syntax (an optional prefix of
//! dot-separated labels and a `/`, then a name that begins and ends with a letter or digit),
//! and prefixes reserved for MCP itself. Each bad key is reported once, at its first tool.

use super::context::{Context, label};
use super::json::escape;
use std::collections::BTreeMap;

/// Keys the specification itself defines under its reserved prefix.
const DEFINED: &[&str] = &[
    "io.modelcontextprotocol/protocolVersion",
    "io.modelcontextprotocol/clientInfo",
    "io.modelcontextprotocol/clientCapabilities",
    "io.modelcontextprotocol/serverInfo",
    "io.modelcontextprotocol/logLevel",
    "io.modelcontextprotocol/subscriptionId",
    "io.modelcontextprotocol/related-task",
    "io.modelcontextprotocol/model-immediate-response",
];

/// What is wrong with a `_meta` key, if anything: (lint code, reason). The monitor judges the
/// keys of messages on the wire by the same function (its rule J12).
pub fn problem(key: &str) -> Option<(&'static str, &'static str)> {
    let (prefix, name) = match key.rsplit_once('/') {
        Some((prefix, name)) => (Some(prefix), name),
        None => (None, key),
    };
    let labels: Vec<&str> = prefix.map_or_else(Vec::new, |p| p.split('.').collect());
    if prefix.is_some() && !labels.iter().all(|l| valid_label(l)) {
        return Some((
            "T501",
            "its prefix must be dot-separated labels that start with a letter and end with a letter or digit",
        ));
    }
    if !valid_name(name) {
        return Some((
            "T501",
            "a name must begin and end with a letter or digit, with only letters, digits, `-`, `_` and `.` between",
        ));
    }
    let reserved = labels.len() >= 2
        && labels
            .iter()
            .any(|l| matches!(*l, "modelcontextprotocol" | "mcp"));
    (reserved && !DEFINED.contains(&key))
        .then_some(("T502", "its prefix is reserved for the MCP specification"))
}

fn valid_label(label: &str) -> bool {
    let chars: Vec<char> = label.chars().collect();
    chars.first().is_some_and(char::is_ascii_alphabetic)
        && chars.last().is_some_and(char::is_ascii_alphanumeric)
        && chars.iter().all(|c| c.is_ascii_alphanumeric() || *c == '-')
}

fn valid_name(name: &str) -> bool {
    let chars: Vec<char> = name.chars().collect();
    name.is_empty()
        || (chars.first().is_some_and(char::is_ascii_alphanumeric)
            && chars.last().is_some_and(char::is_ascii_alphanumeric)
            && chars
                .iter()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.')))
}

pub fn check(cx: &mut Context) {
    let set = cx.set;
    for (key, first, count) in bad_keys(cx) {
        let tool = &set.tools[first];
        let (code, reason) = problem(key).unwrap_or(("T501", ""));
        let others = match count {
            1 => String::new(),
            n => format!(" (and on {} more tools)", n - 1),
        };
        let message = format!(
            "tool {}: `_meta` key {key:?}{others}: {reason}",
            label(tool)
        );
        let finding = cx.tool(code, tool, &format!("/_meta/{}", escape(key)), message);
        if key == "_fastmcp" {
            finding.diagnostic.help = Some(
                "FastMCP 2 adds this key; `FastMCP(..., include_fastmcp_meta=False)` leaves it out"
                    .into(),
            );
        }
    }
}

/// Every bad key with the index of the first tool that has it and the number of tools that
/// do, in the order of first appearance.
fn bad_keys<'a>(cx: &Context<'a>) -> Vec<(&'a str, usize, usize)> {
    let mut bad: BTreeMap<&str, (usize, usize)> = BTreeMap::new();
    for (index, tool) in cx.set.tools.iter().enumerate() {
        let Some(meta) = tool.value.get("_meta").and_then(|m| m.as_object()) else {
            continue;
        };
        for key in meta.keys().filter(|k| problem(k).is_some()) {
            bad.entry(key.as_str()).or_insert((index, 0)).1 += 1;
        }
    }
    let mut ordered: Vec<_> = bad
        .into_iter()
        .map(|(key, (first, count))| (key, first, count))
        .collect();
    ordered.sort_by_key(|(_, first, _)| *first);
    ordered
}

#[cfg(test)]
mod tests {
    use super::problem;

    #[test]
    fn key_syntax_and_reserved_prefixes() {
        assert_eq!(problem("io.agentpi/mcp-plus"), None);
        assert_eq!(problem("progressToken"), None);
        assert_eq!(problem("io.modelcontextprotocol/serverInfo"), None);
        assert_eq!(problem("_fastmcp").map(|p| p.0), Some("T501"));
        assert_eq!(problem("tags_").map(|p| p.0), Some("T501"));
        assert_eq!(problem("9lives.io/x").map(|p| p.0), Some("T501"));
        assert_eq!(
            problem("io.modelcontextprotocol/custom").map(|p| p.0),
            Some("T502")
        );
        assert_eq!(problem("dev.mcp.tools/x").map(|p| p.0), Some("T502"));
    }
}

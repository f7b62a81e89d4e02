//! `agentpi extract`: the `.pi` model of a real server's tools, to start a workflow from. Each
//! tool becomes a channel declared `extern` (its description, input properties and
//! annotations as comments), with the contract every extern has: a call may answer `ok`, fail
//! (`err`), time out after the deadline, or find the server gone (`crash`); a tool not
//! annotated read-only may change state. A starter system calls every read-only tool once,
//! one after the other (side by side, ten tools with four outcomes each would make a state
//! space of millions), and checks that this cannot deadlock.

use serde_json::Value;
use std::fmt::Write;

/// The name the model gives a tool: lower case first, letters, digits and `_` only, not a
/// keyword. Bindings find a tool by this name too.
pub fn chan_name(tool: &str) -> String {
    let mut name: String = tool
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
        .collect();
    match name.chars().next() {
        Some(c) if c.is_ascii_uppercase() => {
            name.replace_range(..1, &c.to_ascii_lowercase().to_string())
        }
        Some(c) if c.is_ascii_lowercase() => {}
        _ => name.insert_str(0, "t_"),
    }
    if KEYWORDS.contains(&name.as_str()) || RESERVED.contains(&name.as_str()) {
        name.push('_');
    }
    name
}

/// The language's keywords, which no name may be.
const KEYWORDS: &[&str] = &[
    "type", "const", "chan", "event", "proc", "daemon", "system", "check", "import", "new", "if",
    "then", "else", "match", "true", "false", "tau", "assert", "not", "and", "or", "extern",
];

/// Names the extracted model declares itself.
const RESERVED: &[&str] = &["ok", "err", "timeout", "crash", "r", "call"];

/// What `extract` needs of a server.
pub struct Server<'a> {
    /// How it was reached (the command or URL), for the header.
    pub source: &'a str,
    pub name: Option<&'a str>,
    pub version: &'a str,
    pub tools: &'a [Value],
    /// The deadline written for every tool, in milliseconds.
    pub within: u64,
}

/// The model, as `.pi` text.
pub fn model(server: &Server) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "// The tools of {} ({}, protocol {}), as `agentpi extract` found them.",
        server.name.unwrap_or("a server"),
        server.source,
        server.version
    );
    out.push_str(
        "// Each tool is a channel declared `extern`: a call sends a reply channel, and the tool\n\
         // model agentpi adds to every system answers ok, err, timeout (after `within`, in\n\
         // milliseconds) or crash. Bind the channels with `agentpi run --server NAME=CMD` (a\n\
         // channel finds the tool of its name), write the workflow as a process, and check it.\n\n\
         type Outcome = ok | err | timeout | crash\n",
    );
    let mut names = Vec::new();
    let mut readers = Vec::new();
    for tool in server.tools {
        let Some(tool_name) = tool.get("name").and_then(Value::as_str) else {
            continue;
        };
        let name = unique(chan_name(tool_name), &names);
        names.extend(outcome_events(&name));
        out.push('\n');
        describe(&mut out, tool_name, &name, tool);
        let _ = writeln!(out, "chan {name} : chan Outcome");
        let _ = writeln!(out, "extern {name} within {}", server.within);
        if read_only(tool) {
            readers.push(name.clone());
        }
        names.push(name);
    }
    starter(&mut out, &readers);
    out
}

/// The events the tool model of extern `name` declares.
fn outcome_events(name: &str) -> Vec<String> {
    let kinds = agentpi_ir::core::OutcomeKind::ALL;
    kinds
        .iter()
        .map(|&k| agentpi_ir::externs::outcome_event(name, k))
        .collect()
}

/// `name`, or `name_2`, ... when it, or an event of its tool model, is taken: by an earlier
/// tool's name or one of its events.
fn unique(name: String, taken: &[String]) -> String {
    let clash =
        |c: &String| taken.contains(c) || outcome_events(c).iter().any(|e| taken.contains(e));
    let mut candidate = name.clone();
    let mut k = 1;
    while clash(&candidate) {
        k += 1;
        candidate = format!("{name}_{k}");
    }
    candidate
}

/// Whether the tool is annotated read-only (`readOnlyHint: true`).
pub fn read_only(tool: &Value) -> bool {
    tool.pointer("/annotations/readOnlyHint")
        .and_then(Value::as_bool)
        == Some(true)
}

/// The comment above a tool's channel.
fn describe(out: &mut String, tool_name: &str, name: &str, tool: &Value) {
    let renamed = match tool_name == name {
        true => String::new(),
        false => format!(" (tool `{tool_name}`)"),
    };
    let description = tool
        .get("description")
        .and_then(Value::as_str)
        .unwrap_or("");
    let first = description
        .lines()
        .find(|l| !l.trim().is_empty())
        .unwrap_or("")
        .trim();
    let _ = writeln!(out, "// {name}{renamed}: {}", clip(first, 90));
    let schema = tool.get("inputSchema");
    let required: Vec<&str> = schema
        .and_then(|s| s.get("required"))
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .collect();
    let properties: Vec<String> = schema
        .and_then(|s| s.get("properties"))
        .and_then(Value::as_object)
        .into_iter()
        .flatten()
        .map(|(k, _)| match required.contains(&k.as_str()) {
            true => format!("{k} (required)"),
            false => k.clone(),
        })
        .collect();
    if !properties.is_empty() {
        let _ = writeln!(out, "//   input: {}", clip(&properties.join(", "), 100));
    }
    let _ = writeln!(out, "//   {}", annotations(tool));
}

/// The annotations, and what they mean for a workflow.
fn annotations(tool: &Value) -> String {
    let hints: Vec<String> = tool
        .get("annotations")
        .and_then(Value::as_object)
        .into_iter()
        .flatten()
        .filter(|(k, _)| k.ends_with("Hint"))
        .map(|(k, v)| format!("{k} {v}"))
        .collect();
    let meaning = match read_only(tool) {
        true => "read-only: calls may overlap",
        false => "may change state: writing calls to it must not overlap",
    };
    match hints.is_empty() {
        true => format!("no annotations: {meaning}"),
        false => format!("{}: {meaning}", hints.join(", ")),
    }
}

/// Cuts `text` to `max` characters (a comment stays on one line).
fn clip(text: &str, max: usize) -> String {
    let flat: String = text
        .chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect();
    match flat.chars().count() > max {
        true => flat.chars().take(max - 3).collect::<String>() + "...",
        false => flat,
    }
}

/// A system calling every read-only tool once, one after the other, with its check.
fn starter(out: &mut String, readers: &[String]) {
    out.push_str(
        "\n// A start: every read-only tool called once, one after the other (the calls have no\n\
         // arguments: give them in bindings, as `--bind CHAN=SERVER.TOOL {\"k\": \"v\"}`).\n\
         proc Call(tool: chan (chan Outcome)) = new r: chan Outcome . tool!r . r?_\n",
    );
    let calls: Vec<String> = readers.iter().map(|n| format!("Call({n})")).collect();
    let body = match calls.is_empty() {
        true => "0".to_string(),
        false => calls.join(" ; "),
    };
    let _ = writeln!(out, "system Tools = {body}");
    out.push_str("check Tools: deadlock free\n");
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn tool_names_become_channel_names() {
        assert_eq!(chan_name("read_file"), "read_file");
        assert_eq!(chan_name("Get-User.v2"), "get_User_v2");
        assert_eq!(chan_name("9lives"), "t_9lives");
        assert_eq!(chan_name("type"), "type_");
        assert_eq!(chan_name("ok"), "ok_");
        assert_eq!(unique("a".into(), &["a".into(), "a_2".into()]), "a_3");
    }

    #[test]
    fn the_model_loads_and_its_starter_calls_the_readers() {
        let tools = [
            json!({"name": "read", "description": "Reads.\nMore.", "annotations": {"readOnlyHint": true},
                   "inputSchema": {"type": "object", "properties": {"path": {}}, "required": ["path"]}}),
            json!({"name": "write", "inputSchema": {"type": "object"}}),
            json!({"name": "Read"}),
            json!({"name": "write_ok"}),
        ];
        let text = model(&Server {
            source: "srv",
            name: Some("demo"),
            version: "2025-11-25",
            tools: &tools,
            within: 1000,
        });
        assert!(
            text.contains(
                "// read: Reads.\n//   input: path (required)\n//   readOnlyHint true: read-only"
            ),
            "{text}"
        );
        assert!(text.contains("chan read_2 : chan Outcome"), "{text}");
        assert!(text.contains("system Tools = Call(read)\n"), "{text}");
        assert!(text.contains("chan write_ok_2 : chan Outcome"), "{text}");
        let loaded = agentpi_ir::load_str("x.pi", &text);
        assert!(!loaded.has_errors(), "{:?}\n{text}", loaded.diagnostics);
    }
}

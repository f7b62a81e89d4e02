//! Binding each extern of a workflow to a tool a server really lists: the configuration's
//! binding, or else the one tool whose name (or the channel name `extract` gives it) is the
//! channel's. Checked before anything runs: the server and tool exist, the argument templates
//! name only what exists, and every binding is for an extern of the model.

use crate::config::Config;
use crate::extract::{chan_name, read_only};
use crate::interp::Tool;
use crate::verify::Writer;
use agentpi_ir::core::{Extern, Program};
use agentpi_ir::externs::outcome_event;
use serde_json::Value;
use std::time::Duration;

/// A server's name and the tools it listed.
pub struct Listed<'a> {
    pub server: &'a str,
    pub tools: &'a [Value],
}

/// The tools of every extern of `program` (in its order) and what each writes; or every
/// problem found.
pub fn resolve(
    program: &Program,
    config: &Config,
    listed: &[Listed],
) -> Result<(Vec<Tool>, Vec<Writer>), Vec<String>> {
    let mut problems = Vec::new();
    let externs: Vec<&str> = program.externs.iter().map(|e| e.name.as_str()).collect();
    for bind in &config.binds {
        if !externs.contains(&bind.chan.as_str()) {
            problems.push(format!(
                "`{}` is bound, but the model has no extern channel of that name (its externs: {})",
                bind.chan,
                list(&externs)
            ));
        }
    }
    let mut tools = Vec::new();
    let mut writers = Vec::new();
    for ext in &program.externs {
        match resolve_one(program, ext, config, listed, &externs) {
            Ok((tool, writer)) => {
                tools.push(tool);
                writers.push(writer);
            }
            Err(problem) => problems.push(problem),
        }
    }
    match problems.is_empty() {
        true => Ok((tools, writers)),
        false => Err(problems),
    }
}

fn resolve_one(
    program: &Program,
    ext: &Extern,
    config: &Config,
    listed: &[Listed],
    externs: &[&str],
) -> Result<(Tool, Writer), String> {
    let (server, tool_name, args, resource) = match config.bind(&ext.name) {
        Some(b) => (
            b.server.as_str(),
            b.tool.as_str(),
            b.args.clone(),
            b.resource.clone(),
        ),
        None => {
            let (server, tool) = by_name(&ext.name, listed)?;
            (server, tool, None, None)
        }
    };
    let index = listed
        .iter()
        .position(|l| l.server == server)
        .ok_or_else(|| {
            let servers: Vec<&str> = listed.iter().map(|l| l.server).collect();
            format!(
                "`{}` is bound to server `{server}`, which is not given (servers: {})",
                ext.name,
                list(&servers)
            )
        })?;
    let tool = find_tool(listed[index].tools, tool_name).ok_or_else(|| {
        let names: Vec<&str> = listed[index].tools.iter().filter_map(|t| t.get("name").and_then(Value::as_str)).collect();
        format!("`{}` is bound to `{server}.{tool_name}`, but `{server}` lists no such tool (it lists: {})", ext.name, list(&names))
    })?;
    if let Some(template) = &args {
        crate::args::check(template, ext.args.len(), externs)
            .map_err(|e| format!("the arguments of `{}`: {e}", ext.name))?;
    }
    let writes = !ext.parallel && !read_only(tool);
    let writer = Writer {
        chan: ext.name.clone(),
        resource: writes.then(|| resource.unwrap_or_else(|| format!("{server}.{tool_name}"))),
    };
    let events = ext
        .outcomes
        .iter()
        .filter_map(|o| {
            let name = outcome_event(&ext.name, o.kind);
            let id = program.events.iter().position(|e| e.name == name)?;
            Some((agentpi_ir::core::EventId(id as u32), o.kind))
        })
        .collect();
    let tool = Tool {
        chan: ext.chan,
        name: ext.name.clone(),
        server: index,
        tool: tool_name.to_string(),
        args,
        order: input_order(tool),
        within: ext.within_ms.map(Duration::from_millis),
        events,
    };
    Ok((tool, writer))
}

/// The one listed tool named like the channel (or whose extracted channel name it is).
fn by_name<'a>(chan: &str, listed: &[Listed<'a>]) -> Result<(&'a str, &'a str), String> {
    let mut found = Vec::new();
    for l in listed {
        for tool in l.tools {
            let Some(name) = tool.get("name").and_then(Value::as_str) else {
                continue;
            };
            if name == chan || chan_name(name) == chan {
                found.push((l.server, name));
            }
        }
    }
    match found.as_slice() {
        [one] => Ok(*one),
        [] => Err(format!(
            "`{chan}` is bound to no tool: no server lists a tool of that name; bind it: --bind {chan}=SERVER.TOOL"
        )),
        several => {
            let names: Vec<String> = several.iter().map(|(s, t)| format!("{s}.{t}")).collect();
            Err(format!(
                "`{chan}` could be any of {}: bind it with --bind {chan}=SERVER.TOOL",
                names.join(", ")
            ))
        }
    }
}

fn find_tool<'a>(tools: &'a [Value], name: &str) -> Option<&'a Value> {
    tools
        .iter()
        .find(|t| t.get("name").and_then(Value::as_str) == Some(name))
}

/// The tool's input properties in the order its schema lists them.
fn input_order(tool: &Value) -> Vec<String> {
    tool.pointer("/inputSchema/properties")
        .and_then(Value::as_object)
        .map(|p| p.keys().cloned().collect())
        .unwrap_or_default()
}

fn list(names: &[&str]) -> String {
    match names.is_empty() {
        true => "none".to_string(),
        false => names.join(", "),
    }
}

//! MCP+ version 1: the paper's Tool+ fields carried in a tool's `_meta` under [`KEY`], and a
//! lenient parser that keeps every well-formed field and reports each malformed one with its
//! pointer (rule P001; unknown recovery strategies are P302). Schema: docs/mcp-plus.schema.json.

use super::json::kind;
use serde_json::{Map, Value};

/// The `_meta` key that holds the MCP+ block.
pub const KEY: &str = "io.agentpi/mcp-plus";
/// [`KEY`] as a JSON-pointer token path from the tool object.
pub const POINTER: &str = "/_meta/io.agentpi~1mcp-plus";
/// The only version defined so far.
pub const VERSION: u64 = 1;

/// What a tool does to the world (P2).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum SideEffects {
    None,
    Read,
    Write,
    Delete,
}

impl SideEffects {
    pub fn parse(text: &str) -> Option<SideEffects> {
        Some(match text {
            "none" => SideEffects::None,
            "read" => SideEffects::Read,
            "write" => SideEffects::Write,
            "delete" => SideEffects::Delete,
            _ => return None,
        })
    }

    pub fn as_str(self) -> &'static str {
        match self {
            SideEffects::None => "none",
            SideEffects::Read => "read",
            SideEffects::Write => "write",
            SideEffects::Delete => "delete",
        }
    }

    /// Whether the paper's typing rule demands approval.
    pub fn needs_approval(self) -> bool {
        matches!(self, SideEffects::Write | SideEffects::Delete)
    }
}

/// The recovery strategies of P3.
pub const RECOVERIES: [&str; 4] = ["retry", "fallback", "user_prompt", "abort"];

#[derive(Clone, Debug)]
pub struct FailureMode {
    pub error: String,
    pub recovery: Option<String>,
    pub fallback: Option<String>,
    /// Pointer of this entry, relative to the tool.
    pub pointer: String,
}

/// The typed dependency edges of P5.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum DependencyKind {
    Requires,
    ProducesInputFor,
    ExclusiveWith,
}

impl DependencyKind {
    pub fn parse(text: &str) -> Option<DependencyKind> {
        Some(match text {
            "Requires" => DependencyKind::Requires,
            "ProducesInputFor" => DependencyKind::ProducesInputFor,
            "ExclusiveWith" => DependencyKind::ExclusiveWith,
            _ => return None,
        })
    }
}

#[derive(Clone, Debug)]
pub struct Dependency {
    pub kind: DependencyKind,
    pub tool: String,
    pub pointer: String,
}

/// A parsed MCP+ block; absent fields are `None`.
#[derive(Clone, Debug, Default)]
pub struct McpPlus {
    pub side_effects: Option<SideEffects>,
    pub requires_approval: Option<bool>,
    pub summary: Option<String>,
    pub failure_modes: Option<Vec<FailureMode>>,
    pub dependencies: Vec<Dependency>,
}

/// A problem found while parsing: rule code, pointer relative to the tool, message.
pub type Problem = (&'static str, String, String);

/// The MCP+ block of `tool`, if it has one, and the problems found in it.
pub fn parse(tool: &Value) -> Option<(McpPlus, Vec<Problem>)> {
    let block = tool.get("_meta")?.get(KEY)?;
    let mut problems = Vec::new();
    let Some(map) = block.as_object() else {
        problems.push((
            "P001",
            POINTER.to_string(),
            format!("the MCP+ block is {}, not an object", kind(block)),
        ));
        return Some((McpPlus::default(), problems));
    };
    let plus = block_fields(map, &mut problems);
    Some((plus, problems))
}

const FIELDS: [&str; 6] = [
    "version",
    "side_effects",
    "requires_approval",
    "summary",
    "failure_modes",
    "dependencies",
];

fn block_fields(map: &Map<String, Value>, problems: &mut Vec<Problem>) -> McpPlus {
    version(map, problems);
    for field in map.keys().filter(|f| !FIELDS.contains(&f.as_str())) {
        let pointer = format!("{POINTER}/{}", super::json::escape(field));
        problems.push((
            "P001",
            pointer,
            format!(
                "unknown MCP+ field `{field}` (known: {})",
                FIELDS.join(", ")
            ),
        ));
    }
    let side_effects = field(map, "side_effects", Value::as_str, "a string", problems);
    McpPlus {
        side_effects: side_effects.and_then(|text| side_effects_value(text, problems)),
        requires_approval: field(
            map,
            "requires_approval",
            Value::as_bool,
            "a boolean",
            problems,
        ),
        summary: field(map, "summary", Value::as_str, "a string", problems).map(str::to_owned),
        failure_modes: field(map, "failure_modes", Value::as_array, "an array", problems)
            .map(|items| failure_modes(items, problems)),
        dependencies: field(map, "dependencies", Value::as_array, "an array", problems)
            .map_or_else(Vec::new, |items| dependencies(items, problems)),
    }
}

fn version(map: &Map<String, Value>, problems: &mut Vec<Problem>) {
    let message = match map.get("version") {
        Some(v) if v.as_u64() == Some(VERSION) => return,
        Some(v) => {
            format!("MCP+ version {v} is not supported (this linter knows version {VERSION})")
        }
        None => format!("the MCP+ block has no `version` (use {VERSION})"),
    };
    let pointer = if map.contains_key("version") {
        format!("{POINTER}/version")
    } else {
        POINTER.to_string()
    };
    problems.push(("P001", pointer, message));
}

/// Field `name` of `map` read with `get`; a present value of the wrong type is a P001 problem.
fn field<'v, T>(
    map: &'v Map<String, Value>,
    name: &str,
    get: fn(&'v Value) -> Option<T>,
    expected: &str,
    problems: &mut Vec<Problem>,
) -> Option<T> {
    let value = map.get(name)?;
    let got = get(value);
    if got.is_none() {
        let pointer = format!("{POINTER}/{name}");
        problems.push((
            "P001",
            pointer,
            format!("MCP+ `{name}` is {}, not {expected}", kind(value)),
        ));
    }
    got
}

fn side_effects_value(text: &str, problems: &mut Vec<Problem>) -> Option<SideEffects> {
    let parsed = SideEffects::parse(text);
    if parsed.is_none() {
        let message = format!("MCP+ side_effects {text:?} is not one of read, write, delete, none");
        problems.push(("P001", format!("{POINTER}/side_effects"), message));
    }
    parsed
}

fn failure_modes(items: &[Value], problems: &mut Vec<Problem>) -> Vec<FailureMode> {
    let mut modes = Vec::new();
    for (i, item) in items.iter().enumerate() {
        let pointer = format!("{POINTER}/failure_modes/{i}");
        let Some(map) = item.as_object() else {
            problems.push((
                "P001",
                pointer,
                format!("failure mode #{i} is {}, not an object", kind(item)),
            ));
            continue;
        };
        let Some(error) = required_text(map, "error", &pointer, problems) else {
            continue;
        };
        let recovery = required_text(map, "recovery", &pointer, problems);
        if let Some(recovery) = recovery.filter(|r| !RECOVERIES.contains(r)) {
            let message = format!(
                "failure mode `{error}` has recovery {recovery:?}, not one of {}",
                RECOVERIES.join(", ")
            );
            problems.push(("P302", format!("{pointer}/recovery"), message));
        }
        let fallback =
            field(map, "fallback", Value::as_str, "a string", problems).map(str::to_owned);
        let recovery = recovery.map(str::to_owned);
        modes.push(FailureMode {
            error: error.into(),
            recovery,
            fallback,
            pointer,
        });
    }
    modes
}

fn required_text<'v>(
    map: &'v Map<String, Value>,
    name: &str,
    pointer: &str,
    problems: &mut Vec<Problem>,
) -> Option<&'v str> {
    let got = map.get(name).and_then(Value::as_str);
    if got.is_none() {
        problems.push((
            "P001",
            format!("{pointer}/{name}"),
            format!("`{name}` is missing or not a string"),
        ));
    }
    got
}

fn dependencies(items: &[Value], problems: &mut Vec<Problem>) -> Vec<Dependency> {
    let mut edges = Vec::new();
    for (i, item) in items.iter().enumerate() {
        let pointer = format!("{POINTER}/dependencies/{i}");
        let Some(map) = item.as_object() else {
            problems.push((
                "P001",
                pointer,
                format!("dependency #{i} is {}, not an object", kind(item)),
            ));
            continue;
        };
        let kind_text = required_text(map, "kind", &pointer, problems);
        let tool = required_text(map, "tool", &pointer, problems);
        let kind = kind_text.and_then(|k| {
            let parsed = DependencyKind::parse(k);
            if parsed.is_none() {
                let message = format!(
                    "dependency kind {k:?} is not Requires, ProducesInputFor or ExclusiveWith"
                );
                problems.push(("P001", format!("{pointer}/kind"), message));
            }
            parsed
        });
        if let (Some(kind), Some(tool)) = (kind, tool) {
            edges.push(Dependency {
                kind,
                tool: tool.into(),
                pointer,
            });
        }
    }
    edges
}

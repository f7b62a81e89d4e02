//! Specification rules (group T of the rule book, plus S201 and G301 found while listing):
//! tool shape, input and output schemas, names, annotations and task support.

use super::context::{Context, label};
use super::json::kind;
use super::schema::{self, Validity};
use super::toolset::{Era, Tool};
use serde_json::Value;
use std::collections::BTreeMap;

pub fn check(cx: &mut Context) {
    let set = cx.set;
    for tool in &set.tools {
        if shape(cx, tool) {
            input_schema(cx, tool);
            output_schema(cx, tool);
            name(cx, tool);
            annotations(cx, tool);
            task_support(cx, tool);
            header_annotations(cx, tool);
            super::keywords::check(cx, tool, "inputSchema");
            super::keywords::check(cx, tool, "outputSchema");
        }
    }
    duplicates(cx);
    super::meta::check(cx);
    super::session_rules::check(cx);
}

/// T101: the tool must be an object with a string name; other rules need both.
fn shape(cx: &mut Context, tool: &Tool) -> bool {
    let problem = match (&tool.value, tool.value.get("name")) {
        (Value::Object(_), Some(Value::String(_))) => return true,
        (Value::Object(_), Some(other)) => format!("`name` is {}, not a string", kind(other)),
        (Value::Object(_), None) => "the tool has no `name`".to_string(),
        (other, _) => format!("the tool is {}, not an object", kind(other)),
    };
    let pointer = if tool.value.is_object() { "/name" } else { "" };
    cx.tool(
        "T101",
        tool,
        pointer,
        format!("tool #{}: {problem}", tool.index),
    );
    false
}

fn input_schema(cx: &mut Context, tool: &Tool) {
    let schema = match tool.value.get("inputSchema") {
        Some(schema @ Value::Object(_)) => schema,
        other => {
            let what = other.map_or("missing".to_string(), |v| {
                format!("{}, not an object", kind(v))
            });
            cx.tool(
                "T201",
                tool,
                "/inputSchema",
                format!("tool {}: inputSchema is {what}", label(tool)),
            )
            .diagnostic
            .help = Some(
                "declare at least {\"type\": \"object\", \"additionalProperties\": false}".into(),
            );
            return;
        }
    };
    if schema.get("type").and_then(Value::as_str) != Some("object") {
        let found = schema
            .get("type")
            .map_or("missing".to_string(), |t| t.to_string());
        cx.tool(
            "T202",
            tool,
            "/inputSchema/type",
            format!(
                "tool {}: inputSchema root `type` must be \"object\", found {found}",
                label(tool)
            ),
        );
    }
    validity(cx, tool, schema, "/inputSchema", "T203");
}

/// T203/T204 (or T401 for output schemas) from a dialect check.
fn validity(cx: &mut Context, tool: &Tool, schema: &Value, pointer: &str, code: &str) {
    let field = &pointer[1..];
    match schema::validate(schema) {
        Validity::Valid => {}
        Validity::UnknownDialect(uri) => {
            cx.tool(
                "T204",
                tool,
                &format!("{pointer}/$schema"),
                format!(
                    "tool {}: {field} uses dialect {uri}, which the linter cannot check",
                    label(tool)
                ),
            );
        }
        Validity::RemoteRefs(refs) => {
            for (at, uri) in refs {
                let message = format!(
                    "tool {}: {field} refers to the remote schema {uri}, which clients must not fetch",
                    label(tool)
                );
                cx.tool("T205", tool, &format!("{pointer}{at}"), message);
            }
        }
        Validity::TooCostly(copies) => {
            let message = format!(
                "tool {}: {field} nests `not` so deep that compiling it would copy {copies} JSON values; it was checked against its meta-schema only",
                label(tool)
            );
            cx.tool("T208", tool, pointer, message);
        }
        Validity::Invalid(at, reason) => {
            cx.tool(
                code,
                tool,
                &format!("{pointer}{at}"),
                format!(
                    "tool {}: {field} is not a valid JSON Schema: {reason}",
                    label(tool)
                ),
            );
        }
    }
}

fn output_schema(cx: &mut Context, tool: &Tool) {
    let Some(schema) = tool.value.get("outputSchema") else {
        return;
    };
    if !schema.is_object() {
        cx.tool(
            "T401",
            tool,
            "/outputSchema",
            format!(
                "tool {}: outputSchema is {}, not an object",
                label(tool),
                kind(schema)
            ),
        );
        return;
    }
    let legacy = cx.set.era != Some(Era::Modern);
    if legacy && schema.get("type").and_then(Value::as_str) != Some("object") {
        cx.tool("T402", tool, "/outputSchema/type", format!("tool {}: outputSchema root `type` is not \"object\"; clients up to 2025-11-25 require it", label(tool)));
    }
    validity(cx, tool, schema, "/outputSchema", "T401");
}

fn name(cx: &mut Context, tool: &Tool) {
    let Some(name) = tool.name.as_deref() else {
        return;
    };
    let length = name.chars().count();
    let bad: Vec<char> = name
        .chars()
        .filter(|c| !(c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '-')))
        .collect();
    let problem = if length == 0 {
        "is empty".to_string()
    } else if length > 128 {
        format!("is {length} characters long (at most 128)")
    } else if let Some(c) = bad.first() {
        format!("contains {c:?}, outside [A-Za-z0-9_.-]")
    } else {
        return;
    };
    cx.tool(
        "T301",
        tool,
        "/name",
        format!("tool name {name:?} {problem}"),
    );
}

fn duplicates(cx: &mut Context) {
    let mut seen: BTreeMap<&str, usize> = BTreeMap::new();
    let set = cx.set;
    for tool in &set.tools {
        let Some(name) = tool.name.as_deref() else {
            continue;
        };
        if let Some(first) = seen.get(name) {
            let message = format!(
                "tool `{name}` is listed twice (first at index {first}, again at index {})",
                tool.index
            );
            cx.tool("T302", tool, "/name", message);
        } else {
            seen.insert(name, tool.index);
        }
    }
}

fn annotations(cx: &mut Context, tool: &Tool) {
    let Some(annotations) = tool.value.get("annotations") else {
        return;
    };
    let Some(map) = annotations.as_object() else {
        cx.tool(
            "T703",
            tool,
            "/annotations",
            format!(
                "tool {}: annotations is {}, not an object",
                label(tool),
                kind(annotations)
            ),
        );
        return;
    };
    for hint in [
        "readOnlyHint",
        "destructiveHint",
        "idempotentHint",
        "openWorldHint",
    ] {
        if let Some(value) = map.get(hint).filter(|v| !v.is_boolean()) {
            cx.tool(
                "T703",
                tool,
                &format!("/annotations/{hint}"),
                format!(
                    "tool {}: {hint} is {}, not a boolean",
                    label(tool),
                    kind(value)
                ),
            );
        }
    }
    let flag = |hint: &str| map.get(hint).and_then(Value::as_bool);
    if flag("readOnlyHint") == Some(true) && flag("destructiveHint") == Some(true) {
        cx.tool("T701", tool, "/annotations/destructiveHint", format!("tool {}: readOnlyHint and destructiveHint are both true; a read-only tool cannot destroy anything", label(tool)));
    }
    if flag("readOnlyHint") == Some(true) && flag("idempotentHint") == Some(false) {
        cx.tool("T702", tool, "/annotations/idempotentHint", format!("tool {}: readOnlyHint is true but idempotentHint is false; reading twice has the same effect as reading once", label(tool)));
    }
}

fn task_support(cx: &mut Context, tool: &Tool) {
    let Some(value) = tool.value.pointer("/execution/taskSupport") else {
        return;
    };
    if !matches!(value.as_str(), Some("forbidden" | "optional" | "required")) {
        cx.tool("T801", tool, "/execution/taskSupport", format!("tool {}: execution.taskSupport is {value}, not \"forbidden\", \"optional\" or \"required\"", label(tool)));
    }
}

/// T901: `x-mcp-header` annotations (2026-07-28) a client over Streamable HTTP can use; it
/// must drop a tool with any other.
fn header_annotations(cx: &mut Context, tool: &Tool) {
    let Some(schema) = tool.value.get("inputSchema") else {
        return;
    };
    if let Some(why) = crate::headers::invalid(schema) {
        let text = format!("tool {}: {why}; an HTTP client drops the tool", label(tool));
        cx.tool("T901", tool, "/inputSchema", text);
    }
}

//! Rules over recorded `tools/call` results (T403, T404): structured output needs a declared
//! outputSchema, and successful structured results must conform to it.

use super::context::Context;
use super::finding::Finding;
use super::schema;
use super::toolset::RecordedCall;
use serde_json::Value;

pub fn check(cx: &mut Context) {
    let set = cx.set;
    for call in &set.calls {
        let Some(structured) = call.result.get("structuredContent") else {
            continue;
        };
        let Some(&index) = cx.by_name.get(call.tool.as_str()) else {
            continue;
        };
        match set.tools[index].value.get("outputSchema") {
            None => report(
                cx,
                call,
                "T403",
                format!(
                    "tool `{}` returned structuredContent but declares no outputSchema, so clients cannot validate it",
                    call.tool
                ),
            ),
            Some(schema) => conformance(cx, call, schema, structured),
        }
    }
}

fn conformance(cx: &mut Context, call: &RecordedCall, output_schema: &Value, structured: &Value) {
    if call.result.get("isError") == Some(&Value::Bool(true)) {
        return; // error results need not conform
    }
    let Ok(validator) = schema::compile(output_schema) else {
        return;
    }; // T401 reports it
    if let Some(error) = validator.iter_errors(structured).next() {
        let at = error.instance_path().to_string();
        let at = if at.is_empty() { "/".to_string() } else { at };
        let message = format!(
            "tool `{}` returned structuredContent that does not match its outputSchema: {error} (at {at})",
            call.tool
        );
        report(cx, call, "T404", message);
    }
}

fn report(cx: &mut Context, call: &RecordedCall, code: &str, message: String) {
    let mut finding = Finding::new(code, Some(call.tool.clone()), message);
    let pointer = format!("{}/structuredContent", call.pointer);
    finding.diagnostic = finding
        .diagnostic
        .at_pointer(call.document.clone(), pointer);
    cx.push(finding);
}

//! `agentpi trace check A.jsonl B.jsonl ...`: several traces of one server, each checked alone
//! and then judged together for what no single trace shows (`agentpi_monitor::across`: M8, a
//! listing that varies between connections or processes; M7, a discovery that depends on
//! earlier requests). The text gives each trace's report, then the findings across them; the
//! JSON, `{"traces": [{"file", ...report}], "across": [...]}`.

use super::Format;
use super::trace::{Checked, text_of};
use crate::output;
use agentpi_monitor::Event;
use agentpi_monitor::across::{self, Across};
use serde_json::{Value, json};

/// The text or JSON of `checked`, and the exit status (1 for any violation, in a trace or
/// across them).
pub(super) fn render(checked: &[Checked], format: Format) -> (String, u8) {
    let traces: Vec<&[Event]> = checked.iter().map(|c| c.events.as_slice()).collect();
    let found = across::judge(&traces);
    let violations: usize = checked.iter().map(|c| c.report.violations.len()).sum();
    let status = u8::from(violations > 0 || !found.is_empty());
    let text = match format {
        Format::Json => json_of(checked, &found).to_string() + "\n",
        Format::Text => text(checked, &found, violations),
    };
    (text, status)
}

fn text(checked: &[Checked], found: &[Across], violations: usize) -> String {
    let mut out: String = checked.iter().map(text_of).collect();
    let file = |i: usize| checked.get(i).map_or("?", |c| c.file.as_str());
    for f in found {
        let (other, at) = f.against;
        out += &format!(
            "across: {}: message {} (s2c): {} {}: {} (against {} message {at}) [{}]\n",
            file(f.file),
            f.index,
            f.rule,
            f.level,
            f.message,
            file(other),
            f.spec
        );
    }
    out += &format!(
        "across: {}, {} in them, {} across them\n",
        output::count_of(checked.len(), "trace"),
        output::count_of(violations, "violation"),
        output::count_of(found.len(), "violation")
    );
    out
}

fn json_of(checked: &[Checked], found: &[Across]) -> Value {
    let traces: Vec<Value> = checked
        .iter()
        .map(|c| {
            let mut report = c.report.to_json();
            report["file"] = json!(c.file);
            report
        })
        .collect();
    let file = |i: usize| checked.get(i).map(|c| c.file.clone());
    let across: Vec<Value> = found
        .iter()
        .map(|f| {
            json!({"rule": f.rule, "level": f.level, "spec": f.spec, "message": f.message,
                   "file": file(f.file), "index": f.index,
                   "against": {"file": file(f.against.0), "index": f.against.1}})
        })
        .collect();
    json!({"traces": traces, "across": across})
}

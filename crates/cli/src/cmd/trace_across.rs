//! `agentpi trace check A.jsonl B.jsonl ...`: several traces of one server, each checked alone
//! and then judged together for what no single trace shows (`agentpi_monitor::across`: M8, a
//! listing that varies between connections or processes; M7, a discovery that depends on
//! earlier requests). The text gives each trace's report, then the findings across them; the
//! JSON, `{"traces": [{"file", ...report}], "across": [...]}`.

use super::Format;
use crate::output;
use agentpi_monitor::across::{self, Across};
use agentpi_monitor::{Event, Report, Sessions};
use serde_json::{Value, json};

/// One trace, checked (by `trace`).
pub(super) struct Checked {
    pub file: String,
    pub events: Vec<Event>,
    pub sessions: Sessions,
    pub report: Report,
}

/// The text or JSON of `checked` (each trace's text by `text_of`), and the exit status (1
/// for any violation, in a trace or across them).
pub(super) fn render(
    checked: &[Checked],
    format: Format,
    text_of: &dyn Fn(&Checked) -> String,
) -> (String, u8) {
    let traces: Vec<&[Event]> = checked.iter().map(|c| c.events.as_slice()).collect();
    let found = across::judge(&traces);
    let violations: usize = checked.iter().map(|c| c.report.violations.len()).sum();
    let status = u8::from(violations > 0 || !found.is_empty());
    let text = match format {
        Format::Json => json_of(checked, &found).to_string() + "\n",
        Format::Text => text(checked, &found, violations, text_of),
    };
    (text, status)
}

fn text(
    checked: &[Checked],
    found: &[Across],
    violations: usize,
    text_of: &dyn Fn(&Checked) -> String,
) -> String {
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

//! A check's JSON, as `agentpi check --format json` prints it and the HTML page shows it:
//! verdict, size, how far it explored, the trace, the deadlock and who is stuck in it, the
//! fault, the limit that left it unknown.

use agentpi_check::{CheckResult, End, Outcome, SystemReport};
use agentpi_diagnostics::SourceMap;
use serde_json::{Value, json};

/// The verdict as the reports say it.
pub fn verdict_word(outcome: &Outcome) -> &'static str {
    match outcome {
        Outcome::Holds => "holds",
        Outcome::Violated => "violated",
        Outcome::Unknown(_) => "unknown",
    }
}

/// How far a system was explored, as the JSON says it.
pub fn explored_word(end: &End) -> &'static str {
    match end {
        End::Complete => "all",
        End::Decided => "until decided",
        End::Limit(_) => "until a limit",
    }
}

/// The JSON of `result`, one check of `report`, positions told with `sources`.
pub fn result(sources: &SourceMap, report: &SystemReport, result: &CheckResult) -> Value {
    let trace: Vec<Value> = result
        .trace
        .iter()
        .flat_map(|t| &t.steps)
        .map(|s| json!({ "label": s.label, "actors": s.actors }))
        .collect();
    let mut json = json!({
        "system": report.system,
        "property": result.property,
        "verdict": verdict_word(&result.outcome),
        "states": report.states,
        "transitions": report.transitions,
        "explored": explored_word(&report.end),
        "trace": trace,
        "loop_start": result.trace.as_ref().and_then(|t| t.loop_start),
        "deadlock": result.stuck,
        "stuck": crate::stuck::json(sources, &result.blocked),
        "fault": result.fault.as_ref().map(|f| json!({ "message": f.kind.to_string(), "position": sources.position(f.span) })),
        "limit": match &result.outcome { Outcome::Unknown(l) => Some(l.to_string()), _ => None },
    });
    if report.depth_first {
        // Said only when searched depth first, so that the default output keeps its fields.
        json["search"] = json!("dfs");
        json["shortest"] = json!(false);
    }
    json
}

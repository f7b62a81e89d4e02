//! Who is stuck where in a deadlock: each waiting instance with its source position and what
//! it offers, as JSON and as the notes under a chart.

use agentpi_check::Blocked;
use agentpi_diagnostics::SourceMap;
use serde_json::{Value, json};

/// What one instance waits for: `take[1]!`, or `a? or b!` for a choice.
pub fn waits(blocked: &Blocked) -> String {
    blocked.waits.join(" or ")
}

/// The JSON of the waiting instances: instance, position, waits, idles_in.
pub fn json(sources: &SourceMap, blocked: &[Blocked]) -> Value {
    let rows: Vec<Value> = blocked
        .iter()
        .map(|b| {
            json!({
                "instance": b.instance,
                "position": sources.position(b.span),
                "waits": b.waits,
                "idles_in": b.idles_in,
            })
        })
        .collect();
    Value::Array(rows)
}

/// The chart's last rows: each waiting instance and what it waits for.
pub fn chart_notes(blocked: &[Blocked]) -> Vec<(String, String)> {
    blocked
        .iter()
        .map(|b| (b.instance.clone(), format!("waits {}", waits(b))))
        .collect()
}

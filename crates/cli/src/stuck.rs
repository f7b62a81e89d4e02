//! Who is stuck where in a deadlock, for the reports of `check`: each waiting instance with
//! its source position and what it offers, and a hint when it waits where a server idles.

use crate::model::Model;
use agentpi_check::Blocked;
use serde_json::{Value, json};

/// The text lines under a deadlock's trace (empty when nobody waits).
pub fn text(model: &Model, blocked: &[Blocked]) -> String {
    if blocked.is_empty() {
        return String::new();
    }
    let mut out = String::from("  stuck there (who waits where, for what):\n");
    let rows: Vec<(String, String)> = blocked
        .iter()
        .map(|b| (b.instance.clone(), model.sources.position(b.span)))
        .collect();
    let who = rows.iter().map(|r| r.0.chars().count()).max().unwrap_or(0);
    let at = rows.iter().map(|r| r.1.chars().count()).max().unwrap_or(0);
    for (b, (instance, position)) in blocked.iter().zip(&rows) {
        out.push_str(&format!(
            "    {instance:<who$}   {position:<at$}   {}\n",
            waits(b)
        ));
    }
    out.push_str(&hints(blocked));
    out
}

/// What one instance waits for: `take[1]!`, or `a? or b!` for a choice.
pub fn waits(blocked: &Blocked) -> String {
    blocked.waits.join(" or ")
}

/// A hint for each loop where an instance waits to receive, once per loop: the place a
/// server idles, a valid end only when marked so.
fn hints(blocked: &[Blocked]) -> String {
    let mut seen: Vec<&str> = Vec::new();
    let mut out = String::new();
    for b in blocked {
        let Some(name) = b.idles_in.as_deref() else {
            continue;
        };
        if seen.contains(&name) {
            continue;
        }
        seen.push(name);
        out.push_str(&match name {
            "!" => format!(
                "  hint: {} waits to receive at the top of a replication, where a server idles; if it may rest there, mark the receive `end:` (or put it in a `daemon proc`)\n",
                b.instance
            ),
            _ => format!(
                "  hint: {} waits to receive at the top of `{name}`, where a server idles; if it may rest there, declare `daemon proc {name}` (or mark the receive `end:`)\n",
                b.instance
            ),
        });
    }
    out
}

/// The JSON of the waiting instances: instance, position, waits, idles_in.
pub fn json(model: &Model, blocked: &[Blocked]) -> Value {
    let rows: Vec<Value> = blocked
        .iter()
        .map(|b| {
            json!({
                "instance": b.instance,
                "position": model.sources.position(b.span),
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

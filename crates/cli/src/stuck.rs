//! Who is stuck where in a deadlock, for the text report of `check`: each waiting instance
//! with its source position and what it offers, and a hint when it waits where a server idles
//! (its JSON and chart notes are `agentpi_check_report::stuck`'s, shared with the language
//! server).

use crate::model::Model;
use agentpi_check::Blocked;
pub use agentpi_check_report::stuck::{chart_notes, waits};

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

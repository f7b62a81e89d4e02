//! How `agentpi monitor` and `agentpi trace check` show what they found: one line per
//! violation, the report as text (with the last messages before each violation as a sequence
//! chart) or as JSON.

use crate::{msc, output};
use agentpi_check::{Trace, TraceStep};
use agentpi_monitor::shape::{self, Message};
use agentpi_monitor::{Dir, Event, Report, Violation};

/// How many messages the chart of a violation shows (the offending one last).
const CHART_MESSAGES: usize = 8;
/// How many expected labels the text shows.
const EXPECTED_SHOWN: usize = 6;

/// One line for a violation, as the monitor writes it to standard error.
pub fn line(v: &Violation) -> String {
    format!(
        "agentpi monitor: {} {} at message {} ({}): {} [{}]",
        v.rule,
        v.level,
        v.index,
        v.dir.as_str(),
        v.message,
        v.spec
    )
}

/// The report as text; `chart_of(index)` draws the messages up to event `index`.
pub fn text(name: &str, report: &Report, chart_of: &dyn Fn(usize) -> String) -> String {
    let mut out = String::new();
    for v in &report.violations {
        out += &format!(
            "{name}: message {} ({}): {} {}: {} [{}]\n",
            v.index,
            v.dir.as_str(),
            v.rule,
            v.level,
            v.message,
            v.spec
        );
        out += &format!("  message: {}\n", String::from_utf8_lossy(&v.raw));
        if !v.expected.is_empty() {
            // What the same side could have sent first: that is the useful alternative.
            let side = v.dir.as_str();
            let (same, other): (Vec<&String>, Vec<&String>) =
                v.expected.iter().partition(|e| e.starts_with(side));
            let shown: Vec<&str> = same
                .into_iter()
                .chain(other)
                .take(EXPECTED_SHOWN)
                .map(String::as_str)
                .collect();
            let more = v.expected.len().saturating_sub(EXPECTED_SHOWN);
            let more = if more > 0 {
                format!(" (and {more} more)")
            } else {
                String::new()
            };
            out += &format!("  the model would accept: {}{more}\n", shown.join(", "));
        }
        for l in chart_of(v.index).lines() {
            out += &format!("  {l}\n");
        }
    }
    for o in &report.open_requests {
        out += &format!(
            "{name}: open at the end: request {} `{}` ({}, message {})\n",
            o.id,
            o.method,
            o.dir.as_str(),
            o.index
        );
    }
    for note in &report.notes {
        out += &format!("{name}: note: {note}\n");
    }
    out += &format!(
        "{name}: {} era{}, {}, {}, {}\n",
        report.era.as_str(),
        report
            .protocol_version
            .as_ref()
            .map(|v| format!(" ({v})"))
            .unwrap_or_default(),
        output::count_of(report.messages, "message"),
        output::count_of(report.violations.len(), "violation"),
        output::count_of(report.open_requests.len(), "open request")
    );
    out
}

/// The last messages up to event `index` as a sequence chart between client and server;
/// `events` are a window of the trace whose first event has index `first`.
pub fn chart(events: &[Event], first: usize, index: usize) -> String {
    let upto = events.len().min((index + 1).saturating_sub(first));
    let messages: Vec<&Event> = events[..upto].iter().filter(|e| e.is_message()).collect();
    let from = messages.len().saturating_sub(CHART_MESSAGES);
    let steps = messages[from..]
        .iter()
        .map(|e| {
            let actors = match e.dir {
                Dir::C2s => vec!["client".to_string(), "server".to_string()],
                _ => vec!["server".to_string(), "client".to_string()],
            };
            TraceStep {
                label: summary(e),
                actors,
            }
        })
        .collect();
    let trace = Trace {
        steps,
        loop_start: None,
    };
    msc::render_columns(&trace, &["client", "server"])
}

/// A message in a few words: `tools/call #2`, `result #2`, `notifications/progress`.
fn summary(event: &Event) -> String {
    match shape::parse(&event.raw, event.dir).0 {
        Some(Message::Request { id, method, .. }) => format!("{method} #{id}"),
        Some(Message::Notification { method, params }) => {
            let detail = match method.as_str() {
                "notifications/cancelled" => params
                    .as_ref()
                    .and_then(|p| p.get("requestId"))
                    .map(|r| format!(" #{r}")),
                "notifications/progress" => params
                    .as_ref()
                    .and_then(|p| p.get("progressToken"))
                    .map(|t| format!(" {t}")),
                _ => None,
            };
            format!("{method}{}", detail.unwrap_or_default())
        }
        Some(Message::Response { id, outcome }) => match outcome {
            Ok(_) => format!("result #{id}"),
            Err(_) => format!("error #{id}"),
        },
        None => {
            let text = String::from_utf8_lossy(&event.raw);
            let short: String = text.chars().take(30).collect();
            format!("(not JSON-RPC: {short})")
        }
    }
}

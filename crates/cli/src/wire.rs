//! How `agentpi monitor` and `agentpi trace check` show what they found: one line per
//! violation, the report as text (with the last messages before each violation as a sequence
//! chart) or as JSON. A trace of several sessions (clients behind one HTTP listener) names
//! the session of each finding, and its chart shows that session's messages alone.

use crate::{msc, output};
use agentpi_check::{Trace, TraceStep};
use agentpi_monitor::shape::{self, Message};
use agentpi_monitor::{Dir, Event, Report, Violation};
use agentpi_report_html::Chart;

/// How many messages the chart of a violation shows (the offending one last).
const CHART_MESSAGES: usize = 8;
/// How many expected labels the text shows.
const EXPECTED_SHOWN: usize = 6;

/// One line for a violation, as the monitor writes it to standard error; `session` names
/// its session when the trace holds several.
pub fn line(v: &Violation, session: Option<&str>) -> String {
    let of = session.map_or(String::new(), |s| format!(" in session {s}"));
    format!(
        "agentpi monitor: {} {} at message {} ({}){of}: {} [{}]",
        v.rule,
        v.level,
        v.index,
        v.dir.as_str(),
        v.message,
        v.spec
    )
}

/// `{name}: ` or, for a finding of one of several sessions, `{name}: session {s}: `.
fn prefix(name: &str, session: Option<&&str>) -> String {
    match session {
        Some(s) => format!("{name}: session {s}: "),
        None => format!("{name}: "),
    }
}

/// The report as text; `chart_of(index)` draws the messages up to event `index` (of its
/// session).
pub fn text(name: &str, report: &Report, chart_of: &dyn Fn(usize) -> String) -> String {
    let mut out = String::new();
    let owners = report.owners();
    for v in &report.violations {
        out += &format!(
            "{}message {} ({}): {} {}: {} [{}]\n",
            prefix(name, owners.get(&v.index)),
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
            "{}open at the end: request {} `{}` ({}, message {})\n",
            prefix(name, owners.get(&o.index)),
            o.id,
            o.method,
            o.dir.as_str(),
            o.index
        );
    }
    for note in &report.notes {
        out += &format!("{name}: note: {note}\n");
    }
    for s in &report.sessions {
        out += &format!("{name}: session {}: {}", s.session, summary_of(&s.report));
    }
    if report.sessions.is_empty() {
        out += &format!("{name}: {}", summary_of(report));
    } else {
        out += &format!(
            "{name}: {}, {}, {}, {}{}\n",
            output::count_of(report.sessions.len(), "session"),
            output::count_of(report.messages, "message"),
            output::count_of(report.violations.len(), "violation"),
            output::count_of(report.open_requests.len(), "open request"),
            unchecked_of(report)
        );
    }
    out
}

/// `legacy era (2025-11-25), 10 messages, 1 violation, 0 open requests` and a newline
/// (and `, 7 events unchecked` when the live checker fell behind).
fn summary_of(report: &Report) -> String {
    format!(
        "{} era{}, {}, {}, {}{}\n",
        report.era.as_str(),
        report
            .protocol_version
            .as_ref()
            .map(|v| format!(" ({v})"))
            .unwrap_or_default(),
        output::count_of(report.messages, "message"),
        output::count_of(report.violations.len(), "violation"),
        output::count_of(report.open_requests.len(), "open request"),
        unchecked_of(report)
    )
}

/// `, N events unchecked` when the checker fell behind (docs/monitor.md, *When the checker
/// falls behind*); nothing for a report of everything, which reads as it always did.
fn unchecked_of(report: &Report) -> String {
    match report.unchecked {
        0 => String::new(),
        n => format!(", {} unchecked", output::count_of(n, "event")),
    }
}

/// The last messages up to event `index` as a sequence chart between client and server;
/// `events` are a window of the trace whose first event has index `first`. The client's
/// closes of a request's HTTP stream and its resumptions of one are steps too: they are
/// what a modern cancellation and a legacy dropped stream (C6) are made of.
pub fn chart(events: &[Event], first: usize, index: usize) -> String {
    chart_of_session(events, first, index, None, &|_| true)
}

/// [`chart`] of the events of one session: those `keep` takes; `session` names it above the
/// chart.
pub fn chart_of_session(
    events: &[Event],
    first: usize,
    index: usize,
    session: Option<&str>,
    keep: &dyn Fn(&Event) -> bool,
) -> String {
    let chart = msc::text(&session_chart(events, first, index, keep, CHART_MESSAGES));
    match session {
        Some(s) => format!("session {s}:\n{chart}"),
        None => chart,
    }
}

/// The chart of the last `window` messages up to event `index` of those `keep` takes, as
/// data (the text above and the HTML pages draw it): lifelines client and server, each row
/// numbered as the findings number messages (the event's index in the trace), so that
/// "message 7" of a finding is row 7 of its chart.
pub fn session_chart(
    events: &[Event],
    first: usize,
    index: usize,
    keep: &dyn Fn(&Event) -> bool,
    window: usize,
) -> Chart {
    let upto = events.len().min((index + 1).saturating_sub(first));
    let kept: Vec<(usize, &Event)> = (events[..upto].iter().enumerate())
        .filter(|(_, e)| keep(e))
        .map(|(i, e)| (first + i, e))
        .collect();
    let numbers: Vec<usize> = kept.iter().map(|(i, _)| *i).collect();
    let kept: Vec<&Event> = kept.into_iter().map(|(_, e)| e).collect();
    let shown: Vec<(Dir, String, usize)> = steps_of(&kept)
        .into_iter()
        .map(|(dir, label, at)| (dir, label, numbers[at]))
        .collect();
    let from = shown.len().saturating_sub(window);
    let rows: Vec<usize> = shown[from..].iter().map(|s| s.2).collect();
    let steps = shown[from..]
        .iter()
        .map(|(dir, label, _)| {
            let actors = match dir {
                Dir::C2s => vec!["client".to_string(), "server".to_string()],
                _ => vec!["server".to_string(), "client".to_string()],
            };
            TraceStep {
                label: label.clone(),
                actors,
            }
        })
        .collect();
    let trace = Trace {
        steps,
        loop_start: None,
        states: Vec::new(),
    };
    msc::chart(&trace, &["client", "server"], &[], Some(&rows))
}

/// Each message of `events` and each of the client's stream closes and resumptions, with
/// its direction, its label in a few words and its position in `events`.
fn steps_of(events: &[&Event]) -> Vec<(Dir, String, usize)> {
    // The request each exchange carried, and the exchange of each SSE event id.
    let mut carried = std::collections::HashMap::new();
    let mut sse = std::collections::HashMap::new();
    let mut out = Vec::new();
    for (at, e) in events.iter().enumerate() {
        let k = e.exchange();
        if e.is_message() {
            let id = serde_json::from_slice::<serde_json::Value>(&e.raw).ok();
            let id = id.and_then(|m| m.get("id").cloned());
            match (e.dir, k, id) {
                (Dir::C2s, Some(k), Some(id)) => {
                    carried.insert(k, id);
                }
                (Dir::S2c, Some(k), _) => {
                    if let Some(sse_id) = e.fields.get("sse_id").and_then(|v| v.as_str()) {
                        sse.insert(sse_id.to_string(), k);
                    }
                }
                _ => {}
            }
            out.push((e.dir, summary(e), at));
        } else if e.client_closed() {
            let of = k.and_then(|k| carried.get(&k));
            out.push((Dir::C2s, close_label(e, of), at));
        } else if let Some(last) = agentpi_monitor::http::request_header(e, "last-event-id") {
            let of = sse.get(last).and_then(|k| carried.get(k)).cloned();
            out.push((
                Dir::C2s,
                format!("(GET: resumes {})", stream_of(of.as_ref())),
                at,
            ));
            // The resumed stream carries the same request: a later close of it names it.
            if let (Some(k), Some(of)) = (k, of) {
                carried.insert(k, of);
            }
        }
    }
    out
}

/// A client's close of a stream in a few words: a modern cancellation closes it, a legacy
/// client drops it (no cancellation), a bound that passed gives it up.
fn close_label(e: &Event, of: Option<&serde_json::Value>) -> String {
    let reason = e.fields.get("reason").and_then(|r| r.as_str());
    let verb = match reason {
        Some(agentpi_tester::conn::DROP_REASON) => "drops",
        Some("timed out") => "gives up",
        _ => "closes",
    };
    format!("({verb} {})", stream_of(of))
}

/// "the stream of #7", or "a stream" when the request it carried is not in the trace.
fn stream_of(id: Option<&serde_json::Value>) -> String {
    id.map_or("a stream".to_string(), |id| format!("the stream of #{id}"))
}

/// A message in a few words: `tools/call #2`, `result #2`, `notifications/progress`.
pub fn summary(event: &Event) -> String {
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

#[cfg(test)]
mod tests {
    use super::*;

    /// The summary line says how many events went unchecked when the live checker fell
    /// behind, and nothing of it otherwise.
    #[test]
    fn the_summary_counts_unchecked_events() {
        let mut report = Report {
            era: agentpi_monitor::session::Era::Legacy,
            protocol_version: Some("2025-11-25".to_string()),
            messages: 10,
            violations: Vec::new(),
            open_requests: Vec::new(),
            notes: Vec::new(),
            unchecked: 0,
            sessions: Vec::new(),
        };
        let summary = |r: &Report| text("m", r, &|_| String::new());
        let all = "m: legacy era (2025-11-25), 10 messages, 0 violations, 0 open requests\n";
        assert_eq!(summary(&report), all);
        report.unchecked = 7;
        let behind = "m: legacy era (2025-11-25), 10 messages, 0 violations, 0 open requests, \
                      7 events unchecked\n";
        assert_eq!(summary(&report), behind);
    }

    /// A legacy stream dropped, resumed by a GET, and the GET given up at its bound: each
    /// close names the request (before issue 30 the GET's was "(closes the stream of #?)").
    #[test]
    fn every_close_in_the_chart_names_its_request() {
        let drop = agentpi_tester::conn::DROP_REASON;
        let rows = [
            serde_json::json!({"t": 0.0, "dir": "c2s", "exchange": 3,
                "raw": r#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"slow"}}"#}),
            serde_json::json!({"t": 0.1, "dir": "s2c", "exchange": 3, "sse_id": "1/5",
                "raw": r#"{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"p7","progress":1}}"#}),
            serde_json::json!({"t": 0.2, "dir": "event", "event": "aborted", "exchange": 3,
                "side": "client", "closed_by": "client", "reason": drop}),
            serde_json::json!({"t": 0.3, "dir": "event", "event": "http", "exchange": 4,
                "method": "GET", "path": "/mcp", "status": 200, "headers": [],
                "request_headers": [["last-event-id", "1/5"]]}),
            serde_json::json!({"t": 15.3, "dir": "event", "event": "aborted", "exchange": 4,
                "side": "client", "closed_by": "client", "reason": "timed out"}),
        ];
        let text: String = rows.iter().map(|r| r.to_string() + "\n").collect();
        let events = agentpi_monitor::trace::parse(text.as_bytes()).unwrap();
        let events: Vec<&agentpi_monitor::Event> = events.iter().collect();
        let labels: Vec<String> = steps_of(&events).into_iter().map(|(_, l, _)| l).collect();
        assert_eq!(
            labels[2..],
            [
                "(drops the stream of #7)",
                "(GET: resumes the stream of #7)",
                "(gives up the stream of #7)"
            ]
        );
    }
}

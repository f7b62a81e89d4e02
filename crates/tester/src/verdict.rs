//! What one run says about the server: the monitor's findings at the server's messages and
//! the tester's judgments of its probes, the rules it exercised, and any finding at the
//! client's own messages that was no deliberate probe (a fault of the tester, never of the
//! server).

use crate::{facts, judge};
use agentpi_monitor::{Dir, Event, Report, Violation};
use serde_json::Value;
use std::collections::BTreeSet;

/// The malformed frames of a trace: the HTTP exchange each went in, and the id it carries.
fn probes(events: &[Event]) -> Vec<(Option<u64>, Option<Value>)> {
    events
        .iter()
        .filter(|e| e.dir == Dir::C2s && judge::is_malformed(e))
        .map(|e| (e.exchange(), judge::frame_id_of(e)))
        .collect()
}

/// Whether a monitor finding is about the server's answer to a malformed frame (in its
/// HTTP exchange, or a response carrying its id): the monitor's rules expect a well-formed
/// request there; J9 (the tester's judgment) says what the answer must be.
fn answers_probe(v: &Violation, events: &[Event], probed: &[(Option<u64>, Option<Value>)]) -> bool {
    let Some(e) = events.get(v.index).filter(|e| e.dir != Dir::C2s) else {
        return false;
    };
    let id = serde_json::from_slice::<Value>(&e.raw)
        .ok()
        .and_then(|m| m.get("id").cloned());
    probed.iter().any(|(k, own)| {
        (k.is_some() && e.exchange() == *k) || (own.is_some() && id.is_some() && id == *own)
    })
}

fn deliberate(v: &Violation, events: &[Event]) -> bool {
    events.get(v.index).is_some_and(|e| judge::deliberate(v, e))
}

/// The verdict of one run.
#[derive(Clone, Debug, Default)]
pub struct Verdict {
    pub events: Vec<Event>,
    /// Findings against the server, in trace order.
    pub failures: Vec<Violation>,
    /// Findings against the client that no probe meant.
    pub client: Vec<Violation>,
    pub exercised: BTreeSet<&'static str>,
    pub notes: Vec<String>,
    /// Requests that outlived their deadline (no finding: `judge::Timeout`).
    pub timeouts: Vec<judge::Timeout>,
}

impl Verdict {
    pub fn of(events: Vec<Event>, report: Report) -> Verdict {
        let judged = judge::judge(&events);
        let mut exercised = facts::exercised(&events);
        exercised.extend(judged.exercised.iter().copied());
        let mut failures = Vec::new();
        let mut client = Vec::new();
        let probed = probes(&events);
        let monitored = report
            .violations
            .into_iter()
            .filter(|v| !answers_probe(v, &events, &probed));
        for v in monitored.chain(judged.violations) {
            if v.dir != Dir::C2s {
                failures.push(v);
            } else if !deliberate(&v, &events) {
                client.push(v);
            }
        }
        failures.sort_by_key(|v| v.index);
        failures.dedup_by(|a, b| a.index == b.index && a.rule == b.rule);
        Verdict {
            events,
            failures,
            client,
            exercised,
            notes: report.notes,
            timeouts: judged.timeouts,
        }
    }

    /// The first finding of `rule`, if the run has one.
    pub fn failure(&self, rule: &str) -> Option<&Violation> {
        self.failures.iter().find(|v| v.rule == rule)
    }

    /// How many client messages the run sent.
    pub fn client_messages(&self) -> usize {
        self.events.iter().filter(|e| e.dir == Dir::C2s).count()
    }
}

/// The findings `agentpi trace check` reports of `events` once saved: the trace written and
/// read back, checked by a fresh monitor session, and (a trace the tester wrote) judged as the
/// tester judges its probes, each judgment's finding once (as `cmd/trace.rs` merges them). A
/// shrunk failure is kept only if this finds its rule too, so that the saved trace shows what
/// the report says.
pub fn trace_check(events: &[Event]) -> Vec<Violation> {
    let text: String = events.iter().map(|e| e.to_line() + "\n").collect();
    let Ok(read) = agentpi_monitor::trace::parse(text.as_bytes()) else {
        return Vec::new();
    };
    let mut session = agentpi_monitor::Session::new();
    for event in &read {
        session.feed(event);
    }
    let mut found = session.finish().violations;
    if read.iter().any(|e| e.kind() == Some("test")) {
        for v in judge::judge(&read).violations {
            if !found.iter().any(|o| o.index == v.index && o.rule == v.rule) {
                found.push(v);
            }
        }
    }
    found
}

/// Whether `agentpi trace check` of `events` reports `rule`.
pub fn checked(events: &[Event], rule: &str) -> bool {
    trace_check(events).iter().any(|v| v.rule == rule)
}

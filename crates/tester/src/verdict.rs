//! What one run says about the server: the monitor's findings at the server's messages and
//! the tester's judgments of its probes, the rules it exercised, and any finding at the
//! client's own messages that was no deliberate probe (a fault of the tester, never of the
//! server).

use crate::{facts, judge};
use agentpi_monitor::{Dir, Event, Report, Violation};
use std::collections::BTreeSet;

/// Rules the tester's deliberate probes break on its own side: malformed frames (S3, J1,
/// J2, J5, J8) and a cursor nobody issued (G2).
const DELIBERATE: [&str; 6] = ["S3", "J1", "J2", "J5", "J8", "G2"];

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
}

impl Verdict {
    pub fn of(events: Vec<Event>, report: Report) -> Verdict {
        let judged = judge::judge(&events);
        let mut exercised = facts::exercised(&events);
        exercised.extend(judged.exercised);
        let mut failures = Vec::new();
        let mut client = Vec::new();
        for v in report.violations.into_iter().chain(judged.violations) {
            if v.dir != Dir::C2s {
                failures.push(v);
            } else if !DELIBERATE.contains(&v.rule.as_str()) {
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

//! The report of a test: one entry per rule of the catalogue (passed, failed with its shrunk
//! trace, or not exercised and why), as MONITOR.md's JSON and as JUnit XML. Text, with
//! sequence charts, is the binary's to draw.

use agentpi_monitor::{Event, Violation};
use serde_json::{Value, json};
use std::path::PathBuf;

/// A rule's status.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Status {
    Passed,
    Failed,
    NotExercised,
}

impl Status {
    pub fn as_str(self) -> &'static str {
        match self {
            Status::Passed => "passed",
            Status::Failed => "failed",
            Status::NotExercised => "not_exercised",
        }
    }
}

/// A failure as found: the finding and the trace it is in (shrunk when shrinking worked).
#[derive(Clone, Debug)]
pub struct Failure {
    pub violation: Violation,
    pub events: Vec<Event>,
    /// The run it was found in (0-based).
    pub run: usize,
    /// Client messages of the saved trace, and of the run it was shrunk from.
    pub messages: usize,
    pub from_messages: usize,
    pub shrunk: bool,
}

/// One rule's entry.
#[derive(Clone, Debug)]
pub struct RuleReport {
    pub rule: &'static str,
    pub status: Status,
    pub why: String,
    /// The saved trace of a failure.
    pub trace: Option<PathBuf>,
    pub failure: Option<Failure>,
}

/// The whole report.
#[derive(Clone, Debug)]
pub struct Outcome {
    pub server: String,
    pub era: &'static str,
    pub protocol_version: Option<String>,
    pub runs: usize,
    pub seed: u64,
    pub rules: Vec<RuleReport>,
    /// What limited the test (tools not called, findings against the client, ...).
    pub notes: Vec<String>,
}

impl Outcome {
    /// Whether some exercised rule failed (exit status 1).
    pub fn failed(&self) -> bool {
        self.rules.iter().any(|r| r.status == Status::Failed)
    }

    pub fn count(&self, status: Status) -> usize {
        self.rules.iter().filter(|r| r.status == status).count()
    }

    /// The report as MONITOR.md fixes it (plus `seed`, `level` and `notes`).
    pub fn to_json(&self) -> Value {
        let rules: Vec<Value> = self
            .rules
            .iter()
            .map(|r| {
                let (level, _) = crate::catalogue::level_and_spec(r.rule);
                json!({"rule": r.rule, "status": r.status.as_str(), "why": r.why,
                       "trace": r.trace.as_ref().map(|p| p.display().to_string()),
                       "level": level})
            })
            .collect();
        json!({"server": self.server, "era": self.era, "protocol_version": self.protocol_version,
               "runs": self.runs, "seed": self.seed, "rules": rules, "notes": self.notes})
    }

    /// JUnit XML: one test case per rule; a failure per failed rule, a skip per rule not
    /// exercised.
    pub fn to_junit(&self) -> String {
        let mut out = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
        out += &format!(
            "<testsuite name=\"agentpi test {}\" tests=\"{}\" failures=\"{}\" skipped=\"{}\">\n",
            xml(&self.server),
            self.rules.len(),
            self.count(Status::Failed),
            self.count(Status::NotExercised)
        );
        for r in &self.rules {
            let name = format!("{} {}", r.rule, crate::catalogue::says(r.rule));
            out += &format!(
                "  <testcase classname=\"mcp.{}\" name=\"{}\"",
                self.era,
                xml(name.trim())
            );
            let trace = r
                .trace
                .as_ref()
                .map(|p| format!(" (trace: {})", p.display()))
                .unwrap_or_default();
            match r.status {
                Status::Passed => out += "/>\n",
                Status::Failed => {
                    out += &format!(
                        ">\n    <failure message=\"{}\">{}{}</failure>\n  </testcase>\n",
                        xml(&r.why),
                        xml(&r.why),
                        xml(&trace)
                    );
                }
                Status::NotExercised => {
                    out += &format!(
                        ">\n    <skipped message=\"{}\"/>\n  </testcase>\n",
                        xml(&r.why)
                    );
                }
            }
        }
        out += "</testsuite>\n";
        out
    }
}

fn xml(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

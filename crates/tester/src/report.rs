//! The report of a test: one entry per rule of the catalogue (passed, failed with its shrunk
//! trace, timed out, or not exercised and why), which failures fail the test under the
//! policy (`--fail-on`, `--allow`, `--deny`, waivers), as MONITOR.md's JSON and as JUnit XML.
//! Text, with sequence charts, is the binary's to draw.

use crate::policy::Policy;
use agentpi_monitor::{Event, Violation};
use serde_json::{Value, json};
use std::path::PathBuf;

/// A rule's status.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Status {
    Passed,
    Failed,
    NotExercised,
    /// A request its judgment needed outlived the tester's deadline (and no run failed the
    /// rule): undecided, not failed.
    Timeout,
}

impl Status {
    pub fn as_str(self) -> &'static str {
        match self {
            Status::Passed => "passed",
            Status::Failed => "failed",
            Status::NotExercised => "not_exercised",
            Status::Timeout => "timeout",
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
    /// What shrinking cost: replays and seconds.
    pub replays: usize,
    pub seconds: f64,
    /// `agentpi trace check` of the saved trace reports the rule too.
    pub checked: bool,
}

/// A request that outlived its deadline, and the rule its answer would have been held to.
#[derive(Clone, Debug, PartialEq)]
pub struct TimedOut {
    /// The run (0-based).
    pub run: usize,
    pub rule: &'static str,
    pub id: Value,
    pub method: String,
    pub tool: Option<String>,
    /// Seconds the client waited.
    pub after: f64,
}

impl TimedOut {
    /// "request 7 `tools/call` of `poll` had no answer within 10 s (run 3)".
    pub fn describe(&self) -> String {
        let of = self
            .tool
            .as_ref()
            .map(|t| format!(" of `{t}`"))
            .unwrap_or_default();
        format!(
            "request {} `{}`{of} had no answer within {} s (run {})",
            self.id,
            self.method,
            seconds(self.after),
            self.run + 1
        )
    }
}

/// Seconds as text: `10`, `2.5`.
fn seconds(s: f64) -> String {
    let text = format!("{s:.1}");
    text.strip_suffix(".0").map_or(text.clone(), String::from)
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
    /// Seconds of the runs that exercised it (and of its shrinking).
    pub seconds: f64,
    /// A failure that does not fail the test: the waiver's reason.
    pub waived: Option<String>,
    /// A failure that fails the test (exit status 1) under the policy.
    pub gating: bool,
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
    pub timeouts: Vec<TimedOut>,
    pub policy: Policy,
    /// Seconds of the whole test, and of its shrinking (replays in all).
    pub seconds: f64,
    pub shrink_seconds: f64,
    pub shrink_replays: usize,
}

impl Outcome {
    /// Whether some failure fails the test under the policy (exit status 1).
    pub fn failed(&self) -> bool {
        self.rules.iter().any(|r| r.gating)
    }

    pub fn count(&self, status: Status) -> usize {
        self.rules.iter().filter(|r| r.status == status).count()
    }

    /// Each waiver with its reason, and whether it was used (its rule failed).
    pub fn waivers(&self) -> Vec<(&str, &str, bool)> {
        let failed = |rule: &str| {
            self.rules
                .iter()
                .any(|r| r.rule == rule && r.status == Status::Failed)
        };
        self.policy
            .waivers
            .iter()
            .map(|(rule, reason)| (rule.as_str(), reason.as_str(), failed(rule)))
            .collect()
    }

    /// The report as MONITOR.md fixes it (plus `seed`, `level`, `notes`, the policy and
    /// its waivers, timeouts, and times).
    pub fn to_json(&self) -> Value {
        let rules: Vec<Value> = self.rules.iter().map(rule_json).collect();
        let waivers: Vec<Value> = self
            .waivers()
            .into_iter()
            .map(|(rule, reason, used)| json!({"rule": rule, "reason": reason, "used": used}))
            .collect();
        let timeouts: Vec<Value> = self
            .timeouts
            .iter()
            .map(|t| {
                json!({"run": t.run + 1, "rule": t.rule, "id": t.id, "method": t.method,
                       "tool": t.tool, "after": t.after})
            })
            .collect();
        json!({"server": self.server, "era": self.era, "protocol_version": self.protocol_version,
               "runs": self.runs, "seed": self.seed, "rules": rules, "notes": self.notes,
               "fail_on": self.policy.fail_on_str(), "deny": self.policy.deny,
               "waivers": waivers, "timeouts": timeouts, "time": round(self.seconds),
               "shrink": {"replays": self.shrink_replays, "time": round(self.shrink_seconds)}})
    }

    /// JUnit XML: one test case per rule, each with its time and what the rule says; a
    /// failure per failed rule that fails the test, a skip (saying why) per rule not
    /// exercised, timed out, waived or below `--fail-on`; the notes (tools not called, ...)
    /// once, as the suite's output.
    pub fn to_junit(&self) -> String {
        let mut out = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
        let skipped = self
            .rules
            .iter()
            .filter(|r| !r.gating && r.status != Status::Passed);
        out += &format!(
            "<testsuite name=\"agentpi test {}\" tests=\"{}\" failures=\"{}\" skipped=\"{}\" time=\"{:.3}\">\n",
            xml(&self.server),
            self.rules.len(),
            self.rules.iter().filter(|r| r.gating).count(),
            skipped.count(),
            self.seconds
        );
        for r in &self.rules {
            out += &testcase(self.era, r);
        }
        if !self.notes.is_empty() {
            out += &format!(
                "  <system-out>{}</system-out>\n",
                xml(&self.notes.join("\n"))
            );
        }
        out += "</testsuite>\n";
        out
    }
}

fn round(s: f64) -> f64 {
    (s * 1000.0).round() / 1000.0
}

fn rule_json(r: &RuleReport) -> Value {
    let (level, _) = crate::catalogue::level_and_spec(r.rule);
    let mut entry = json!({"rule": r.rule, "status": r.status.as_str(), "why": r.why,
           "trace": r.trace.as_ref().map(|p| p.display().to_string()),
           "level": level, "time": round(r.seconds)});
    if r.status == Status::Failed {
        entry["gating"] = json!(r.gating);
    }
    if let Some(reason) = &r.waived {
        entry["waived"] = json!(reason);
    }
    if let Some(f) = &r.failure {
        entry["shrink"] = json!({"replays": f.replays, "time": round(f.seconds)});
    }
    entry
}

/// One rule's `<testcase>`.
fn testcase(era: &str, r: &RuleReport) -> String {
    let says = crate::catalogue::says(r.rule);
    let name = format!("{} {says}", r.rule);
    let open = format!(
        "  <testcase classname=\"mcp.{era}\" name=\"{}\" time=\"{:.3}\"",
        xml(name.trim()),
        r.seconds
    );
    let trace = r
        .trace
        .as_ref()
        .map(|p| format!(" (trace: {})", p.display()))
        .unwrap_or_default();
    let skip = |why: String| {
        format!(
            "{open}>\n    <skipped message=\"{}\"/>\n  </testcase>\n",
            xml(&why)
        )
    };
    match (r.status, r.gating, &r.waived) {
        (Status::Passed, _, _) => format!("{open}/>\n"),
        (Status::Failed, true, _) => format!(
            "{open}>\n    <failure message=\"{}\">{}{}</failure>\n  </testcase>\n",
            xml(&r.why),
            xml(&r.why),
            xml(&trace)
        ),
        (Status::Failed, false, Some(reason)) => {
            skip(format!("failed, waived ({reason}): {}{trace}", r.why))
        }
        (Status::Failed, false, None) => skip(format!("failed, below --fail-on: {}{trace}", r.why)),
        (Status::Timeout, _, _) => skip(format!("timeout: {}", r.why)),
        (Status::NotExercised, _, _) => skip(r.why.clone()),
    }
}

fn xml(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

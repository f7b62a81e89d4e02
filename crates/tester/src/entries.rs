//! The report's entries from the runs of a test: per rule, failed (its shrunk failure, and
//! whether the policy lets it fail the test), timed out, passed (held in the runs that
//! exercised it, which could have broken it: `facts`, `judge`), or not exercised and why;
//! and the notes (tools left uncalled once, findings against the tester's own messages).

use crate::catalogue::{self, Cover, Era as RuleEra, Over};
use crate::config::Config;
use crate::conn::Target;
use crate::focus::Focus;
use crate::know::Knowledge;
use crate::report::{Failure, Outcome, RuleReport, Status, TimedOut};
use crate::verdict::Verdict;
use serde_json::{Map, Value};
use std::path::PathBuf;

/// A run's verdict and what it was.
pub struct Done {
    pub verdict: Verdict,
    pub focus: Focus,
    pub header: Map<String, Value>,
    /// How long it took, in seconds.
    pub seconds: f64,
}

/// A failed rule: its failure as saved, and where.
pub type Saved = (String, Failure, PathBuf);

/// The report of a test whose runs are `done`, with the failures saved.
pub fn outcome(config: &Config, know: &Knowledge, done: &[Done], failures: Vec<Saved>) -> Outcome {
    let withheld = know.withheld(config.allow_writes);
    let timeouts = timeouts(done);
    let http = config.target.is_http();
    let cx = Cx {
        know,
        done,
        failures: &failures,
        timeouts: &timeouts,
        http,
        withheld: withheld.len(),
    };
    let rules = catalogue::RULES
        .iter()
        .map(|entry| gated(config, rule_report(entry, &cx)))
        .collect();
    let shrink_seconds = failures.iter().map(|(_, f, _)| f.seconds).sum();
    Outcome {
        server: know.server.clone().unwrap_or_else(|| config.target.name()),
        era: if know.modern { "modern" } else { "legacy" },
        protocol_version: Some(know.version.clone()),
        runs: done.len(),
        seed: config.seed,
        rules,
        notes: notes(config, &withheld, done),
        timeouts,
        policy: config.policy.clone(),
        seconds: done.iter().map(|d| d.seconds).sum::<f64>() + shrink_seconds,
        shrink_seconds,
        shrink_replays: failures.iter().map(|(_, f, _)| f.replays).sum(),
    }
}

/// A failed entry under the policy: whether it fails the test, and its waiver.
fn gated(config: &Config, mut r: RuleReport) -> RuleReport {
    if r.status == Status::Failed {
        (r.gating, r.waived) = config.policy.judge(r.rule);
    }
    r
}

/// Every timeout of the runs, in order.
fn timeouts(done: &[Done]) -> Vec<TimedOut> {
    let mut out = Vec::new();
    for (run, d) in done.iter().enumerate() {
        for t in &d.verdict.timeouts {
            out.push(TimedOut {
                run,
                rule: t.rule,
                id: t.id.clone(),
                method: t.method.clone(),
                tool: t.tool.clone(),
                after: t.after,
            });
        }
    }
    out
}

/// The notes: a server the tester did not start, the tools not called (once), findings
/// against the tester's own messages, the monitor's notes.
fn notes(config: &Config, withheld: &[String], done: &[Done]) -> Vec<String> {
    let mut notes = Vec::new();
    if let Target::Url(url) = &config.target {
        notes.push(shared_server_note(url));
    }
    if !withheld.is_empty() {
        notes.push(format!(
            "not called, they may write (--allow-writes calls them): {}",
            withheld.join(", ")
        ));
    }
    for (i, d) in done.iter().enumerate() {
        for v in &d.verdict.client {
            notes.push(format!(
                "run {}: a finding against the tester's own message {} ({} {}): {}",
                i + 1,
                v.index,
                v.rule,
                v.level,
                v.message
            ));
        }
        for n in &d.verdict.notes {
            notes.push(format!("run {}: {n}", i + 1));
        }
    }
    notes
}

/// What a test of a server the user started cannot promise: its runs were not independent.
fn shared_server_note(url: &str) -> String {
    format!(
        "every run and shrinking try was a session of the one server process at {url}, which \
         agentpi did not start: what one run left in it (state, a slow handler) was there for \
         the next; `--url URL -- CMD` starts a fresh process for each"
    )
}

/// What the entries are made from.
struct Cx<'a> {
    know: &'a Knowledge,
    done: &'a [Done],
    failures: &'a [Saved],
    timeouts: &'a [TimedOut],
    http: bool,
    /// How many tools were not called because they may write.
    withheld: usize,
}

fn entry(rule: &'static str, status: Status, why: String, seconds: f64) -> RuleReport {
    RuleReport {
        rule,
        status,
        why,
        trace: None,
        failure: None,
        seconds,
        waived: None,
        gating: false,
    }
}

fn rule_report(e: &catalogue::Entry, cx: &Cx) -> RuleReport {
    if let Some(why) = static_reason(e, cx.know.modern, cx.http) {
        return entry(e.id, Status::NotExercised, why, 0.0);
    }
    let runs: Vec<usize> = (0..cx.done.len())
        .filter(|&i| {
            let v = &cx.done[i].verdict;
            v.exercised.contains(e.id)
                || v.failure(e.id).is_some()
                || v.timeouts.iter().any(|t| t.rule == e.id)
        })
        .collect();
    let seconds: f64 = runs.iter().map(|&i| cx.done[i].seconds).sum();
    if let Some((_, failure, path)) = cx.failures.iter().find(|(r, _, _)| r == e.id) {
        let mut r = entry(e.id, Status::Failed, failed_why(failure, cx.done), seconds);
        r.seconds += failure.seconds;
        r.trace = Some(path.clone());
        r.failure = Some(failure.clone());
        return r;
    }
    let held = runs
        .iter()
        .filter(|&&i| cx.done[i].verdict.exercised.contains(e.id))
        .count();
    let held_in = format!("held in {held} of {} runs", cx.done.len());
    if let Some(t) = cx.timeouts.iter().find(|t| t.rule == e.id) {
        let mut why = format!("{}; {}", t.describe(), longer(t));
        if held > 0 {
            why += &format!("; otherwise {held_in}");
        }
        return entry(e.id, Status::Timeout, why, seconds);
    }
    if held == 0 {
        let why = dynamic_reason(e.id, cx.withheld);
        return entry(e.id, Status::NotExercised, why, 0.0);
    }
    let mut why = held_in;
    if matches!(e.id, "T10" | "T4") && cx.withheld > 0 {
        why += &format!("; {} (see the note)", uncalled(cx.withheld));
    }
    entry(e.id, Status::Passed, why, seconds)
}

/// How to give a request that timed out longer.
fn longer(t: &TimedOut) -> String {
    match &t.tool {
        Some(tool) => format!(
            "not a failure: `--timeout {tool}=SECONDS` (or [timeouts] in agentpi-test.toml) waits longer for it"
        ),
        None => "not a failure: a longer --timeout waits longer".into(),
    }
}

/// "3 tools not called: they may write".
fn uncalled(n: usize) -> String {
    if n == 1 {
        "1 tool not called: it may write".into()
    } else {
        format!("{n} tools not called: they may write")
    }
}

fn failed_why(f: &Failure, done: &[Done]) -> String {
    let focus = done.get(f.run).map_or("", |d| d.focus.name());
    let shrunk = if f.shrunk {
        format!(
            "shrunk from {} to {} client messages in {} replays, {:.1} s",
            f.from_messages, f.messages, f.replays, f.seconds
        )
    } else {
        format!("{} client messages, not shrunk", f.messages)
    };
    let unchecked = if f.checked {
        ""
    } else {
        "; `agentpi trace check` does not report it from the saved trace"
    };
    format!(
        "{} (run {}, {focus}; {shrunk}){unchecked}",
        f.violation.message,
        f.run + 1
    )
}

/// Why a rule cannot be exercised in this test at all.
fn static_reason(entry: &catalogue::Entry, modern: bool, http: bool) -> Option<String> {
    match entry.cover {
        Cover::Not(why) => return Some(why.to_string()),
        Cover::Client => {
            return Some("a duty of the client: agentpi test keeps it (a finding against its own messages is reported as a note)".into());
        }
        _ => {}
    }
    match (entry.era, modern) {
        (RuleEra::Modern, false) => {
            return Some(
                "a rule of the modern era (2026-07-28); the server was tested in the legacy era"
                    .into(),
            );
        }
        (RuleEra::Legacy, true) => {
            return Some(
                "a rule of the legacy era; the server was tested in the modern era (2026-07-28)"
                    .into(),
            );
        }
        _ => {}
    }
    match (entry.over, http) {
        (Over::Http, false) => {
            Some("a Streamable HTTP rule: test a server over HTTP with --url".into())
        }
        (Over::Stdio, true) => {
            Some("a stdio rule; the server was tested over Streamable HTTP".into())
        }
        _ => None,
    }
}

/// Why a rule the test could have exercised was not.
fn dynamic_reason(rule: &str, withheld: usize) -> String {
    let base = match rule {
        "J2" | "J3" | "J4" => "the server sent no request",
        "C3" | "C4" | "C5" => {
            "no cancelled call would still have been running past the race window (0.5 s), so a late answer could not have been told from a crossing (the tester sets a duration-like argument, such as `duration`, `delay` or `ms`, for a second; a tool without one is judged by what calls of it took)"
        }
        "P2" | "P3" | "P4" => "the server sent no progress notification",
        "X6" => "the server declared `logging` and sent no log message",
        "T6" => "the server declared `tools.listChanged` and sent no list_changed",
        "C1" => "the server cancelled none of its requests",
        "T4" => "no tool with an outputSchema was called",
        "T10" => "no callable tool has an inputSchema that arguments can break",
        "T1" | "T2" => "the server declares no tools",
        "G3" | "M10" => "the server declares no list",
        "G1" => "the server declares no list (runs with focus `lists` try an invalid cursor)",
        "T5" => "no call of an unknown tool (runs with focus `invalid` make one)",
        "C7" => "the tester cancelled no request after its answer (focus `cancel`)",
        "L4" => {
            "no initialize asked for a version that does not exist (focus `lifecycle` picks it at random among its openings)"
        }
        "S5" => "the server's input was never closed with the session open",
        "M13" => {
            "no listen was acknowledged (runs with focus `concurrent` open one when the server declares list changes or resource subscriptions)"
        }
        "M15" => "the server ended no listen (the tester ends its own by cancelling it)",
        "X4" => "the server asked for no sampling",
        "X5" => "the server asked for no elicitation",
        "M11" => "no answer was an input-required result (the server asked for no input)",
        "C6" => {
            "no dropped stream was resumed (over legacy HTTP the cancellation run drops a slow call's stream; a server whose SSE events carry no id cannot be resumed)"
        }
        "T8" | "X7" => {
            "no call with a task (the server declares no `tasks.requests.tools.call`, or no callable tool has `execution.taskSupport` optional or required)"
        }
        "M8" => {
            "no list was read twice in a run (runs with focus `calls` read the first page of tools/list before and after their calls)"
        }
        _ => "nothing in the runs exercised it (--budget 8 or more gives every focus a run)",
    };
    if withheld == 0
        || !matches!(
            rule,
            "T4" | "T10" | "P2" | "P3" | "P4" | "C3" | "C4" | "T8" | "X7"
        )
    {
        base.to_string()
    } else {
        format!("{base}; {} (see the note)", uncalled(withheld))
    }
}

//! The code lens of each `check` line: the check run in the background, on a thread of its
//! own with a state budget, its verdict shown on the lens and a violation's counterexample
//! as a diagnostic whose related information is the trace, step by step.
//!
//! A run is cancelled by running its lens again while it runs, or by changing the document:
//! its result is then dropped. (The checker has no stop flag: a cancelled exploration goes on
//! to its budget on its thread, and only then ends.)

use agentpi_check::{CheckResult, Options, Outcome, Progress, SystemReport};
use agentpi_ir::core::{Program, Property};
use crossbeam_channel::{Receiver, Sender};
use rustc_hash::FxHashMap;

/// The command of a lens: arguments `[uri, line]` (0-based, the `check`'s first line).
pub const RUN: &str = "agentpi.runCheck";

/// The states a run explores at most, unless `initializationOptions.maxStates` says.
pub const BUDGET: usize = 1_000_000;

/// A document's name and a check's line: what a lens runs.
pub type Key = (String, u32);

/// What is known of a lens's check.
#[derive(Clone, Debug)]
pub enum Verdict {
    Running(u64),
    /// The lens's title, and for a violation its message and trace steps.
    Done {
        title: String,
        violation: Option<(String, Vec<String>)>,
    },
}

/// A finished run, sent back to the server's loop.
pub struct Finished {
    pub key: Key,
    pub run: u64,
    pub verdict: Verdict,
}

pub struct Runs {
    pub budget: usize,
    next: u64,
    pub verdicts: FxHashMap<Key, Verdict>,
    sender: Sender<Finished>,
    pub receiver: Receiver<Finished>,
}

impl Runs {
    pub fn new(budget: usize) -> Runs {
        let (sender, receiver) = crossbeam_channel::unbounded();
        Runs {
            budget,
            next: 0,
            verdicts: FxHashMap::default(),
            sender,
            receiver,
        }
    }

    /// Starts the checks `checks` of `program` for `key`, or cancels them when running.
    /// Returns whether it started.
    pub fn toggle(&mut self, key: Key, program: &Program, checks: Vec<usize>) -> bool {
        if let Some(Verdict::Running(_)) = self.verdicts.get(&key) {
            self.verdicts.remove(&key);
            return false;
        }
        self.next += 1;
        let run = self.next;
        self.verdicts.insert(key.clone(), Verdict::Running(run));
        let (program, sender, budget) = (program.clone(), self.sender.clone(), self.budget);
        std::thread::spawn(move || {
            let verdict = run_checks(&program, &checks, budget);
            let _ = sender.send(Finished { key, run, verdict });
        });
        true
    }

    /// Keeps a finished run's verdict, unless it was cancelled; returns whether it was kept.
    pub fn finish(&mut self, finished: Finished) -> bool {
        match self.verdicts.get(&finished.key) {
            Some(Verdict::Running(run)) if *run == finished.run => {
                self.verdicts.insert(finished.key, finished.verdict);
                true
            }
            _ => false,
        }
    }

    /// A document changed: its verdicts and runs are out of date.
    pub fn forget(&mut self, document: &str) {
        self.verdicts.retain(|(name, _), _| name != document);
    }
}

/// Runs checks of one system (a `check` line, several for `forall`) on one thread.
fn run_checks(program: &Program, checks: &[usize], budget: usize) -> Verdict {
    let system = program.checks[checks[0]].system;
    let options = Options {
        max_states: Some(budget),
        threads: 1,
        ..Options::default()
    };
    let report =
        agentpi_check::check_system(program, system, checks, &options, &Progress::default());
    verdict(&report)
}

fn verdict(report: &SystemReport) -> Verdict {
    let states = count(report.states, "state");
    let violated = report
        .results
        .iter()
        .find(|r| r.outcome == Outcome::Violated);
    let unknown = report.results.iter().find_map(|r| match &r.outcome {
        Outcome::Unknown(limit) => Some(limit.to_string()),
        _ => None,
    });
    match (violated, unknown) {
        (Some(result), _) => Verdict::Done {
            title: format!("✗ violated · {states}"),
            violation: Some(violation(result)),
        },
        (None, Some(limit)) => Verdict::Done {
            title: format!("? unknown · {limit} reached"),
            violation: None,
        },
        (None, None) => Verdict::Done {
            title: format!("✓ holds · {states}"),
            violation: None,
        },
    }
}

/// A violation's message and its counterexample, a line per step.
fn violation(result: &CheckResult) -> (String, Vec<String>) {
    let mut message = format!("check violated: {}", result.property);
    if let Some(fault) = &result.fault {
        message = format!("{message} ({})", fault.kind);
    }
    let Some(trace) = &result.trace else {
        return (message, Vec::new());
    };
    let mut steps: Vec<String> = trace
        .steps
        .iter()
        .enumerate()
        .map(|(i, step)| {
            let lasso = match trace.loop_start == Some(i) {
                true => " (the loop starts here)",
                false => "",
            };
            format!(
                "{}. {} [{}]{lasso}",
                i + 1,
                step.label,
                step.actors.join(", ")
            )
        })
        .collect();
    if result.stuck {
        steps.push("then nothing can move: a deadlock".to_string());
    }
    let steps_taken = count(trace.steps.len(), "step");
    message = format!("{message}: a counterexample of {steps_taken}");
    (message, steps)
}

/// `1 step`, `2 steps`.
fn count(n: usize, what: &str) -> String {
    match n {
        1 => format!("1 {what}"),
        n => format!("{n} {what}s"),
    }
}

/// Whether a lens runs `check`: not a relation (`agentpi check` decides those with
/// `compare`).
pub fn runnable(check: &agentpi_ir::core::CheckDef) -> bool {
    !matches!(check.property, Property::Relation(_))
}

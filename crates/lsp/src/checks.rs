//! The code lens of each `check` line: the check run in the background, on a thread of its
//! own with a state budget, its verdict shown on the lens and a violation's counterexample
//! as a diagnostic whose related information is the trace, step by step.
//!
//! A run is cancelled by running its lens again while it runs, or by changing the document:
//! its cancel flag stops the exploration (the checker polls it where it checks its bounds),
//! and its result is dropped. Every finished run is logged (`window/logMessage`), so a client
//! sees how a cancelled run ended.

use agentpi_check::{CheckResult, Limit, Options, Outcome, Progress, SystemReport};
use agentpi_ir::core::{Program, Property};
use crossbeam_channel::{Receiver, Sender};
use rustc_hash::FxHashMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

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
    /// The lens's title, and for a violation its message and trace steps, and the run's
    /// report (its chart is drawn from it, see [`crate::chart`]).
    Done {
        title: String,
        violation: Option<(String, Vec<String>)>,
        report: Option<Arc<SystemReport>>,
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
    /// The cancel flag of each run still exploring, by its number.
    cancels: FxHashMap<u64, Arc<AtomicBool>>,
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
            cancels: FxHashMap::default(),
            sender,
            receiver,
        }
    }

    /// Starts the checks `checks` of `program` for `key`, or cancels them when running.
    /// Returns whether it started.
    pub fn toggle(&mut self, key: Key, program: &Program, checks: Vec<usize>) -> bool {
        if let Some(&Verdict::Running(run)) = self.verdicts.get(&key) {
            self.cancel(run);
            let cancelled = Verdict::Done {
                title: "⊘ cancelled".to_string(),
                violation: None,
                report: None,
            };
            self.verdicts.insert(key, cancelled);
            return false;
        }
        self.next += 1;
        let run = self.next;
        self.verdicts.insert(key.clone(), Verdict::Running(run));
        let cancel = Arc::new(AtomicBool::new(false));
        self.cancels.insert(run, cancel.clone());
        let (program, sender, budget) = (program.clone(), self.sender.clone(), self.budget);
        std::thread::spawn(move || {
            let verdict = run_checks(&program, &checks, budget, cancel);
            let _ = sender.send(Finished { key, run, verdict });
        });
        true
    }

    /// Keeps a finished run's verdict, unless it was cancelled; returns whether it was kept.
    pub fn finish(&mut self, finished: Finished) -> bool {
        self.cancels.remove(&finished.run);
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
        let stale: Vec<u64> = self
            .verdicts
            .iter()
            .filter_map(|((name, _), verdict)| match verdict {
                Verdict::Running(run) if name == document => Some(*run),
                _ => None,
            })
            .collect();
        stale.into_iter().for_each(|run| self.cancel(run));
        self.verdicts.retain(|(name, _), _| name != document);
    }

    /// Stops run `run`'s exploration; its result, when it comes, is dropped.
    fn cancel(&mut self, run: u64) {
        if let Some(flag) = self.cancels.remove(&run) {
            flag.store(true, Ordering::Relaxed);
        }
    }
}

/// Runs checks of one system (a `check` line, several for `forall`) on one thread.
fn run_checks(
    program: &Program,
    checks: &[usize],
    budget: usize,
    cancel: Arc<AtomicBool>,
) -> Verdict {
    let system = program.checks[checks[0]].system;
    let options = Options {
        max_states: Some(budget),
        threads: 1,
        cancel: Some(cancel),
        ..Options::default()
    };
    let report =
        agentpi_check::check_system(program, system, checks, &options, &Progress::default());
    verdict(report)
}

fn verdict(report: SystemReport) -> Verdict {
    let states = count(report.states, "state");
    // Whatever it found before, a cancelled run's verdicts are out of date.
    if report.limit == Some(Limit::Cancelled) {
        return Verdict::Done {
            title: format!("⊘ cancelled · {states}"),
            violation: None,
            report: None,
        };
    }
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
            report: Some(Arc::new(report.clone())),
        },
        (None, Some(limit)) => Verdict::Done {
            title: format!("? unknown · {limit} reached"),
            violation: None,
            report: None,
        },
        (None, None) => Verdict::Done {
            title: format!("✓ holds · {states}"),
            violation: None,
            report: None,
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

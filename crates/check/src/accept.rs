//! Whole-trace acceptance for `agentpi replay` and the SGD replays: is this sequence of labels
//! a run of the system, with the model's other steps (`tau`, restricted channels, names the
//! caller hides) taken freely in between? On a refusal, the step and what the model would
//! have accepted there.

use crate::replay::{Alphabet, Options, Replay, ReplayError, Verdict, parse_observation};
use agentpi_ir::core::Program;
use agentpi_semantics::Semantics;

/// The outcome of replaying a whole trace.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Acceptance {
    /// Every label was taken; `at_end` says whether the model may stop there.
    Accepted { at_end: bool },
    /// Label `step` (from 0) could not be taken, or did not parse (`reason`).
    Refused {
        step: usize,
        label: String,
        reason: String,
        /// The visible labels the model would have accepted instead, sorted.
        expected: Vec<String>,
    },
}

/// The names a trace observes: every channel and event of `program` except `hidden`; an
/// unknown hidden name is an error.
pub fn visible_names(program: &Program, hidden: &[&str]) -> Result<Vec<String>, String> {
    let mut names: Vec<String> = program
        .chans
        .iter()
        .map(|c| c.name.clone())
        .chain(program.events.iter().map(|e| e.name.clone()))
        .collect();
    if let Some(unknown) = hidden.iter().find(|h| !names.iter().any(|n| n == *h)) {
        return Err(format!("no channel or event `{unknown}` in the model"));
    }
    names.retain(|n| !hidden.contains(&n.as_str()));
    names.sort();
    names.dedup();
    Ok(names)
}

/// Replays `labels` (written as labels print, `invoke(book(true))`) on system `system`, with
/// every channel and event observed except `hidden`. Hidden steps are taken freely, so a state
/// anywhere on a hidden path explains the trace (not only where hidden steps run out).
pub fn accepts(
    program: &Program,
    system: usize,
    hidden: &[&str],
    labels: &[String],
    max_states: usize,
) -> Result<Acceptance, String> {
    let visible = visible_names(program, hidden)?;
    let visible: Vec<&str> = visible.iter().map(String::as_str).collect();
    let alphabet = Alphabet::new(program, &visible, &[])?;
    let sem = Semantics::new(program);
    let options = Options {
        maximal: false,
        max_states,
    };
    let failed = |e: ReplayError| e.to_string();
    let (mut replay, _) = Replay::new(&sem, system, alphabet, options).map_err(failed)?;
    for (step, label) in labels.iter().enumerate() {
        let refused = |reason: String, expected: Vec<String>| Acceptance::Refused {
            step,
            label: label.clone(),
            reason,
            expected,
        };
        let observation = match parse_observation(program, label) {
            Ok(o) => o,
            Err(e) => return Ok(refused(format!("not a label: {e}"), Vec::new())),
        };
        match replay.step(&observation).map_err(failed)? {
            Verdict::Accepted | Verdict::Flagged(_) => {}
            Verdict::Refused => {
                // A refusal leaves the states as they were: what they accept is asked now.
                let expected = replay.expected().map_err(failed)?;
                let reason = "no state reached by the trace so far can take it".to_string();
                return Ok(refused(reason, expected));
            }
        }
    }
    Ok(Acceptance::Accepted {
        at_end: replay.at_valid_end(),
    })
}

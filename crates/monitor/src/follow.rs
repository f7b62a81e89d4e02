//! What a session steps: the monitor's own replay (`stepper`), or the reference replay of
//! `agentpi_check` (`Session::reference`), which differential tests hold the first to; either
//! may keep a journal of what the session asked of it (`Session::with_journal`), for the
//! tests that hold it to an oracle of their own.

use crate::stepper::Stepper;
use agentpi_check::replay::{Observation, Replay, ReplayError, Verdict};
use std::cell::RefCell;
use std::rc::Rc;

pub enum Follow {
    Stepper(Box<Stepper>),
    Reference(Box<Replay<'static, 'static>>),
    /// Either, with every question asked of it and its answer written down.
    Journaled(Box<Follow>, Journal),
}

/// What a session asked of its model, in order, shared with the session that asked.
pub type Journal = Rc<RefCell<Vec<Asked>>>;

/// One question a session asked of its model, and the answer.
#[derive(Clone, Debug, PartialEq)]
pub enum Asked {
    /// The model of this era (`legacy`, `modern`) started, at its initial state.
    Start(&'static str),
    /// An observation was stepped (an error is kept as its text).
    Step(Observation, Result<Verdict, String>),
    /// A key was let go of.
    Forget(String),
    /// Whether a key is bound: the session chooses its observations by the answer.
    Bound(String, bool),
}

impl Follow {
    pub fn step_explained(
        &mut self,
        obs: &Observation,
    ) -> Result<(Verdict, Vec<String>), ReplayError> {
        match self {
            Follow::Stepper(s) => s.step_explained(obs),
            Follow::Reference(r) => r.step_explained(obs),
            Follow::Journaled(inner, journal) => {
                let answer = inner.step_explained(obs);
                let verdict = answer.as_ref().map(|(v, _)| v.clone());
                let asked = Asked::Step(obs.clone(), verdict.map_err(|e| e.to_string()));
                journal.borrow_mut().push(asked);
                answer
            }
        }
    }

    pub fn expected(&self) -> Result<Vec<String>, ReplayError> {
        match self {
            Follow::Stepper(s) => s.expected(),
            Follow::Reference(r) => r.expected(),
            Follow::Journaled(inner, _) => inner.expected(),
        }
    }

    pub fn is_bound(&self, key: &str) -> bool {
        match self {
            Follow::Stepper(s) => s.is_bound(key),
            Follow::Reference(r) => r.is_bound(key),
            Follow::Journaled(inner, journal) => {
                let bound = inner.is_bound(key);
                journal.borrow_mut().push(Asked::Bound(key.into(), bound));
                bound
            }
        }
    }

    pub fn forget(&mut self, key: &str) {
        match self {
            Follow::Stepper(s) => s.forget(key),
            Follow::Reference(r) => r.forget(key),
            Follow::Journaled(inner, journal) => {
                journal.borrow_mut().push(Asked::Forget(key.into()));
                inner.forget(key)
            }
        }
    }
}

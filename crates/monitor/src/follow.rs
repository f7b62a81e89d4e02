//! What a session steps: the monitor's own replay (`stepper`), or the reference replay of
//! `agentpi_check` (`Session::reference`), which differential tests hold the first to.

use crate::stepper::Stepper;
use agentpi_check::replay::{Observation, Replay, ReplayError, Verdict};

pub enum Follow {
    Stepper(Box<Stepper>),
    Reference(Box<Replay<'static, 'static>>),
}

impl Follow {
    pub fn step_explained(
        &mut self,
        obs: &Observation,
    ) -> Result<(Verdict, Vec<String>), ReplayError> {
        match self {
            Follow::Stepper(s) => s.step_explained(obs),
            Follow::Reference(r) => r.step_explained(obs),
        }
    }

    pub fn expected(&self) -> Result<Vec<String>, ReplayError> {
        match self {
            Follow::Stepper(s) => s.expected(),
            Follow::Reference(r) => r.expected(),
        }
    }

    pub fn is_bound(&self, key: &str) -> bool {
        match self {
            Follow::Stepper(s) => s.is_bound(key),
            Follow::Reference(r) => r.is_bound(key),
        }
    }

    pub fn forget(&mut self, key: &str) {
        match self {
            Follow::Stepper(s) => s.forget(key),
            Follow::Reference(r) => r.forget(key),
        }
    }
}

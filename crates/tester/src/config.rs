//! What a test is asked to do: the server, the seed and budget, the times a run keeps, what
//! may be called, where traces go, and which failures fail the test.

use crate::conn::Target;
use crate::policy::Policy;
use crate::run::Limits;
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::Duration;

/// Which era the test speaks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EraChoice {
    /// Modern if the server answers a `server/discover` probe, else legacy.
    Auto,
    Legacy,
    Modern,
}

/// What to test and how.
#[derive(Clone, Debug)]
pub struct Config {
    pub target: Target,
    pub seed: u64,
    /// How many runs (each a fresh server).
    pub budget: usize,
    /// How long a request may go unanswered.
    pub timeout: Duration,
    /// How long the server has to exit once its input is closed (S5).
    pub exit_grace: Duration,
    /// How soon a ping must be answered (L13); `None`: the timeout, at most 5 s.
    pub promptly: Option<Duration>,
    pub allow_writes: bool,
    pub era: EraChoice,
    /// Where traces are saved: the shrunk trace of each failed rule as `RULE.jsonl`, and
    /// with `keep_runs` every run's trace as `run-N.jsonl`.
    pub dir: PathBuf,
    pub keep_runs: bool,
    pub shrink: bool,
    /// How long a call of each of these tools may go unanswered instead of `timeout`.
    pub tool_timeouts: BTreeMap<String, Duration>,
    /// Which failures fail the test.
    pub policy: Policy,
    /// How many runs (or shrinks) of a stdio server go at once; `None`: one more than the
    /// cores, 2 to 4.
    pub jobs: Option<usize>,
}

impl Config {
    /// The times a run keeps.
    pub fn limits(&self) -> Limits {
        let mut limits = Limits::new(self.timeout, self.exit_grace);
        limits.tools = self.tool_timeouts.clone();
        if let Some(promptly) = self.promptly {
            limits.promptly = promptly;
        }
        limits
    }
}

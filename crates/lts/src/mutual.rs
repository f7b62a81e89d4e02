//! Equivalence in the CSP models (traces, failures, failures-divergences): refinement both
//! ways, reporting the direction that fails with its shortest counterexample.

use crate::compare::Side;
use crate::lts::Lts;
use crate::refinement::{Counterexample, Model, refines};

/// A failed direction of a mutual refinement check.
#[derive(Clone, Debug)]
pub struct MutualFailure {
    /// The side used as the specification: `Left` for `LEFT [= RIGHT`, `Right` for
    /// `RIGHT [= LEFT`. The counterexample is a path of the other side.
    pub spec: Side,
    /// A shortest counterexample of that direction.
    pub counterexample: Counterexample,
    /// Whether the other direction fails as well.
    pub other_fails: bool,
}

/// The verdict of an equivalence check in a CSP model.
#[derive(Clone, Debug)]
pub struct MutualResult {
    /// The failing direction, `None` when the two are equivalent; when both fail, the one
    /// with the shorter counterexample trace (`LEFT [= RIGHT` on a tie), so the report is
    /// deterministic.
    pub failure: Option<MutualFailure>,
}

/// Decides whether `left` and `right` are equivalent in `model`, i.e. each refines the other.
pub fn refinement_equivalent(left: &Lts, right: &Lts, model: Model) -> MutualResult {
    let forward = refines(left, right, model).counterexample;
    let backward = refines(right, left, model).counterexample;
    let both = forward.is_some() && backward.is_some();
    let pick = |spec, counterexample| MutualFailure {
        spec,
        counterexample,
        other_fails: both,
    };
    let failure = match (forward, backward) {
        (None, None) => None,
        (Some(f), Some(b)) if b.trace.len() < f.trace.len() => Some(pick(Side::Right, b)),
        (Some(f), _) => Some(pick(Side::Left, f)),
        (None, Some(b)) => Some(pick(Side::Right, b)),
    };
    MutualResult { failure }
}

impl MutualResult {
    /// Whether each side refines the other.
    pub fn equivalent(&self) -> bool {
        self.failure.is_none()
    }
}

//! Bisimulation checking of two LTSs with a checked distinguishing formula as evidence.
//!
//! Both LTSs go into one disjoint union, which is minimised; they are equivalent when their
//! initial states end in the same block. Otherwise the refinement history yields a formula
//! that holds in the left initial state and not in the right one; it is re-evaluated on both
//! inputs by the model checker of [`crate::hml`] before it is reported.

use crate::builder::LtsBuilder;
use crate::evidence::{Explainer, Logic};
use crate::hml::{Checker, Formula};
use crate::lts::Lts;
use crate::reduce::{Equivalence, branching};
use crate::refine::{Mode, refine};
use crate::scc::contract_tau_sccs;
use crate::shrink::{SHRINK_BUDGET, children, shrink};
use crate::simplify::normalise;
use crate::weak::refine_weak;
use crate::witness::Step;
use std::rc::Rc;

/// Which of the two compared LTSs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Side {
    Left,
    Right,
}

/// Why two LTSs are not equivalent.
#[derive(Clone, Debug)]
pub struct Distinction {
    /// Holds in the left initial state, fails in the right one: `original` shrunk as far as
    /// the model checker confirms (see [`crate::shrink`]).
    pub formula: Rc<Formula>,
    /// The formula as read off the refinement history, before simplification.
    pub original: Rc<Formula>,
    /// Whether re-evaluating `formula` on both inputs confirmed it and it is a formula of the
    /// equivalence's characterising logic (always expected).
    pub checked: bool,
    /// The side on which `path` realises the positive part of the formula: the left side
    /// for `formula`, the right side when `formula` is a negation `!g` (the path realises `g`).
    pub side: Side,
    /// The path from that side's initial state.
    pub path: Vec<Step>,
}

/// The deepest distinguishing formula built: a formula for states first told apart in
/// refinement round `k` nests up to `k` modalities, and building, checking, shrinking, printing
/// and dropping it recurse once per level. 20 000 levels fit in the binary's 16 MiB stack in
/// the test profile, 40 000 did not. Past it the verdict stands, without a formula.
pub const MAX_EVIDENCE_DEPTH: u32 = 10_000;

/// The verdict of a bisimulation check.
#[derive(Clone, Debug)]
pub struct BisimResult {
    pub equivalent: bool,
    /// `None` when equivalent, or when the formula would nest past [`MAX_EVIDENCE_DEPTH`].
    pub distinction: Option<Distinction>,
}

/// The disjoint union of two LTSs (labels merged by text); the right states are shifted by
/// `left.num_states()`. The initial state is the left one.
pub fn disjoint_union(left: &Lts, right: &Lts) -> Lts {
    let mut b = LtsBuilder::new();
    let offset = left.num_states() as u32;
    b.require_states(left.num_states() + right.num_states());
    for (lts, shift) in [(left, 0), (right, offset)] {
        let ids: Vec<u32> = lts.labels().iter().map(|l| b.intern(l)).collect();
        for (s, l, t) in lts.transitions() {
            b.add_transition_id(s + shift, ids[l as usize], t + shift);
        }
    }
    b.finish(left.initial())
}

/// Decides whether `left` and `right` are equivalent, with evidence when they are not.
pub fn compare_bisim(left: &Lts, right: &Lts, equivalence: Equivalence) -> BisimResult {
    let union = disjoint_union(left, right);
    let (s0, t0) = (left.initial(), right.initial() + left.num_states() as u32);
    let (lts, map, logic) = match equivalence {
        Equivalence::Strong => (union, Vec::new(), Logic::Strong),
        Equivalence::Branching | Equivalence::DivBranching => {
            let (c, scc) = contract_tau_sccs(&union, equivalence == Equivalence::DivBranching);
            (c, scc, Logic::Branching)
        }
        Equivalence::Weak => {
            let (b, to_b) = branching(&union, false);
            let (c, scc) = contract_tau_sccs(&b, false);
            (
                c,
                to_b.iter().map(|&s| scc[s as usize]).collect(),
                Logic::Weak,
            )
        }
    };
    let at = |s: u32| if map.is_empty() { s } else { map[s as usize] };
    let part = match logic {
        Logic::Strong => refine(&lts, Mode::Strong),
        Logic::Branching => refine(&lts, Mode::Branching),
        Logic::Weak => refine_weak(&lts),
    };
    let (s, t) = (at(s0), at(t0));
    if part.block(s) == part.block(t) {
        return BisimResult {
            equivalent: true,
            distinction: None,
        };
    }
    if part.separation_round(s, t).unwrap_or(0) > MAX_EVIDENCE_DEPTH {
        return BisimResult {
            equivalent: false,
            distinction: None,
        };
    }
    let formula = Explainer::new(&lts, &part, logic).distinguish(s, t);
    let mut distinction = explain(left, right, formula);
    distinction.checked &= in_logic(&distinction.formula, equivalence);
    BisimResult {
        equivalent: false,
        distinction: Some(distinction),
    }
}

/// Whether every modality of `f` is one of the logic that characterises `equivalence`
/// (docs/compare.md): a formula that distinguishes with another modality proves nothing.
fn in_logic(f: &Formula, equivalence: Equivalence) -> bool {
    let allowed = match f {
        Formula::True | Formula::Not(_) | Formula::And(_) => true,
        Formula::Diamond(..) => equivalence == Equivalence::Strong,
        Formula::WeakDiamond(..) => equivalence == Equivalence::Weak,
        Formula::Until(..) => {
            matches!(
                equivalence,
                Equivalence::Branching | Equivalence::DivBranching
            )
        }
        Formula::Diverge(_) => equivalence == Equivalence::DivBranching,
    };
    allowed && children(f).into_iter().all(|g| in_logic(g, equivalence))
}

/// Simplifies `original`, checks the result on both inputs and finds the path that realises
/// it. Shrinking keeps only changes the checker confirms; an unconfirmed `original` (a bug)
/// is only rewritten soundly, so it stays unconfirmed and is reported as such.
fn explain(left: &Lts, right: &Lts, original: Rc<Formula>) -> Distinction {
    let (lc, rc) = (Checker::new(left), Checker::new(right));
    let distinguishes = |f: &Formula| lc.holds(f, left.initial()) && !rc.holds(f, right.initial());
    let formula = if distinguishes(&original) {
        let cost = (left.num_states() + left.num_transitions() + right.num_states()) as u64
            + right.num_transitions() as u64;
        shrink(&original, distinguishes, cost, SHRINK_BUDGET)
    } else {
        normalise(&original)
    };
    let checked = distinguishes(&formula);
    let (side, path) = match &*formula {
        Formula::Not(g) => (Side::Right, rc.witness(g, right.initial())),
        _ => (Side::Left, lc.witness(&formula, left.initial())),
    };
    Distinction {
        formula,
        original,
        checked,
        side,
        path,
    }
}

//! agentpi-lts: labelled transition systems, `.aut`/DOT I/O, minimisation modulo strong,
//! branching and weak bisimulation, equivalence checking with distinguishing formulas, and
//! trace / failures / failures-divergences refinement with counterexamples.
//!
//! - [`Lts`] is the explicit LTS (CSR transitions, label 0 is `tau`); build one with
//!   [`LtsBuilder`] (state-space explorers hand their transitions over this way) or read one
//!   with [`read_aut`].
//! - [`minimize`] reduces modulo an [`Equivalence`]; [`compare_bisim`] decides equivalence of
//!   two LTSs and explains a difference with a [`Formula`] checked by [`Checker`], made
//!   smaller by [`shrink`] (every step confirmed by the checker).
//! - [`refines`] checks `SPEC [T= IMPL` (and `[F=`, `[FD=`) with a shortest [`Counterexample`];
//!   [`refinement_equivalent`] checks both directions; [`deterministic`] checks determinism.
//! - [`Mapping`] hides and renames actions before a comparison.
//!
//! ```
//! use agentpi_lts::{Equivalence, LtsBuilder, compare_bisim, minimize};
//! let mut spec = LtsBuilder::new();
//! spec.add_transition(0, "a", 1);
//! let spec = spec.finish(0);
//! let mut imp = LtsBuilder::new();
//! imp.add_transition(0, "tau", 1);
//! imp.add_transition(1, "a", 2);
//! let imp = imp.finish(0);
//! assert!(compare_bisim(&spec, &imp, Equivalence::Branching).equivalent);
//! let strong = compare_bisim(&spec, &imp, Equivalence::Strong);
//! assert_eq!(strong.distinction.unwrap().formula.to_string(), "<a>true");
//! assert_eq!(minimize(&imp, Equivalence::Weak).quotient.num_states(), 2);
//! ```

mod aut;
mod aut_fast;
mod aut_lines;
mod builder;
mod chunked;
mod compare;
mod dot;
mod evidence;
mod hml;
mod lts;
mod mapping;
mod mutual;
mod partition;
mod ranges;
mod reduce;
mod refine;
mod refinement;
mod scc;
mod shrink;
mod simplify;
mod valmari;
mod weak;
mod witness;

pub use aut::{AutError, read_aut, read_aut_sized, write_aut};
pub use builder::LtsBuilder;
pub use compare::{
    BisimResult, Distinction, MAX_EVIDENCE_DEPTH, Side, compare_bisim, disjoint_union,
};
pub use dot::write_dot;
pub use hml::{Checker, Formula};
pub use lts::{Lts, TAU};
pub use mapping::{MapError, Mapping};
pub use mutual::{MutualFailure, MutualResult, refinement_equivalent};
pub use partition::Partition;
pub use reduce::{Equivalence, Reduction, minimize, reachable_part};
pub use refinement::{Counterexample, Model, RefinementResult, Violation, deterministic, refines};
pub use scc::{contract_tau_sccs, tau_sccs};
pub use shrink::shrink;
pub use simplify::normalise;
pub use valmari::{signature_budget, strong_blocks_within};
pub use witness::Step;

//! agentpi-lts: labelled transition systems, `.aut`/DOT I/O, minimisation modulo strong,
//! branching and weak bisimulation, equivalence checking with distinguishing formulas, and
//! trace / failures / failures-divergences refinement with counterexamples.

mod aut;
mod builder;
mod compare;
mod dot;
mod evidence;
mod hml;
mod lts;
mod mapping;
mod partition;
mod reduce;
mod refine;
mod refinement;
mod scc;
mod weak;
mod witness;

pub use aut::{AutError, read_aut, write_aut};
pub use builder::LtsBuilder;
pub use compare::{BisimResult, Distinction, Side, compare_bisim, disjoint_union};
pub use dot::write_dot;
pub use hml::{Checker, Formula};
pub use lts::{Lts, TAU};
pub use mapping::{MapError, Mapping};
pub use partition::Partition;
pub use reduce::{Equivalence, Reduction, minimize, reachable_part};
pub use refinement::{Counterexample, Model, RefinementResult, Violation, refines};
pub use scc::{contract_tau_sccs, tau_sccs};
pub use witness::Step;

//! Evidence re-checked by code that shares nothing with the checker (issue 37): printed
//! counterexamples and witnesses are walked again through `Semantics::successors` and their
//! property is evaluated on the run from its definition (docs/semantics.md, docs/check.md),
//! loops of `fair` checks are held to weak fairness and those of `strong fair` checks to
//! strong fairness, and `ltl` verdicts are decided a second time by brute force. Nothing here
//! calls the checker's product, monitors, tableau, `check::replay` or `check::pattern`; from
//! `agentpi_check` only the printed [`Trace`] and [`CheckResult`] are read, and from
//! `agentpi_ir` the lowered property as data.
//!
//! [`Trace`]: agentpi_check::Trace
//! [`CheckResult`]: agentpi_check::CheckResult

#![allow(dead_code, reason = "each test target uses a part of the oracle")]

pub mod confirm;
pub mod decide;
pub mod formula;
pub mod lts;
pub mod strong;
pub mod walk;

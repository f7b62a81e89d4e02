//! agentpi-ir: name resolution, type checking and lowering of parsed models to the core
//! calculus ([`core`]), which `semantics` steps.
//!
//! Entry points: [`load`] (a root file and its imports, read through the caller's [`Loader`])
//! and [`load_str`] (one in-memory file). Diagnostics: E01xx syntax (from `agentpi-syntax`),
//! E02xx names, E03xx types, W0001 unused definitions. The program is meaningful only when no
//! diagnostic is an error.
//!
//! ```
//! let loaded = agentpi_ir::load_str(
//!     "ping.pi",
//!     "chan ping : 0..3\nsystem S = ping!1 | ping?x\ncheck S: deadlock free\n",
//! );
//! assert!(!loaded.has_errors());
//! let system = loaded.program.system("S").unwrap();
//! assert_eq!(loaded.program.checks[0].system, system);
//! ```

pub mod core;
/// The formulas of `ltl` properties, part of the core calculus ([`core::ltl`]).
pub use core::ltl;
mod eval;
mod exhaustive;
pub mod externs;
mod free;
mod guard;
mod load;
mod lower;
mod names;
mod ty;

pub use load::{Loaded, Loader, MemoryLoader, load, load_str, load_with, load_with_checks};
pub use names::suggest;

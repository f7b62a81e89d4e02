//! agentpi-ir: name resolution, type checking and lowering of parsed models to the core
//! calculus ([`core`]), which `semantics` steps.
//!
//! Entry points: [`load`] (a root file and its imports, through a caller's [`Loader`]) and
//! [`load_str`] (one in-memory file). Diagnostics: E02xx names, E03xx types, W0001 unused.

pub mod core;
mod eval;
mod exhaustive;
mod free;
mod guard;
mod load;
mod lower;
mod names;
mod property;
mod ty;
mod unused;

pub use load::{Loaded, Loader, MemoryLoader, load, load_str};

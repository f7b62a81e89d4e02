//! `agentpi bridge`: the era bridge of `mcp/bridge` (docs/bridge.md) run as a process. The
//! model is checked at start (`model`: the direction's checks; `refine`: its failures
//! refinement); then the process of the direction (`ToModern`) is
//! stepped against the real wire (`machine`), its labels read from and written as real
//! messages (`msg`, `wire`), one copy of its per-call part for each request in flight
//! (`call`), both sides monitored with their era's checks (`side`). No printing: the binary
//! renders what `run` returns.
//!
//! Layering inside the crate, bottom to top: `msg`, `model`, `wire`; `refine`, `machine`,
//! `side`, `call`; `to_modern`; `run`.

pub mod call;
pub mod machine;
pub mod model;
pub mod msg;
pub mod refine;
pub mod run;
pub mod side;
pub mod to_modern;
pub mod wire;

pub use run::{Ended, Options, to_modern};

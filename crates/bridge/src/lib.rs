//! `agentpi bridge`: the era bridge of `mcp/bridge` (docs/bridge.md) run as a process. The
//! model is checked at start (`model`: the direction's checks; `refine`: its failures
//! refinement); then the process of the direction (`ToModern`, `ToLegacy`) is
//! stepped against the real wire (`machine`), its labels read from and written as real
//! messages (`msg`, `wire`), one copy of its per-call part for each request in flight
//! (`call`), both sides monitored with their era's checks (`side`, each judged on a thread of
//! its own: `judge`). No printing: the binary renders what `run` returns.
//!
//! The transports under it: stdio (each peer's input written through an `outlet`), or
//! Streamable HTTP on either side (`upstream` and `post`
//! for `--upstream URL`, `serve_http`, `listen` and `sessions` for `--listen HOST:PORT`).
//!
//! Layering inside the crate, bottom to top: `msg`, `notes`, `model`, `wire`, `modern_wire`;
//! `refine`, `machine`, `judge`, `side`, `engine`, `call`, `held`, `undeclared`,
//! `subscriptions`; `to_modern`,
//! `to_legacy`, `per_session`; `input`,
//! `outlet`, `post`, `upstream`, `serve_http`, `sessions`, `listen`; `run`.

pub mod call;
pub mod engine;
pub mod held;
pub mod input;
pub mod judge;
pub mod listen;
pub mod machine;
pub mod model;
pub mod modern_wire;
pub mod msg;
pub mod notes;
pub mod outlet;
pub mod per_session;
pub mod post;
pub mod refine;
pub mod resume;
pub mod run;
pub mod serve_http;
pub mod sessions;
pub mod side;
pub mod sides;
pub mod subscriptions;
pub mod to_legacy;
pub mod to_modern;
pub mod undeclared;
pub mod upstream;
pub mod wire;

pub use run::{Ended, Options, RETRY_TIMEOUT, to_legacy, to_modern};
pub use sessions::SessionLimits;

//! `agentpi run` and `agentpi extract`: a checked `.pi` workflow run against real MCP servers.
//!
//! A workflow declares its tool calls `extern` (`docs/language.md`); every system then holds a
//! model of each tool (`agentpi_ir::externs`). Before a run, the workflow is checked with the
//! tools bound to what the servers really list (`bind`, `verify`); then `interp` steps the
//! same system through the one semantics, sending each call as the model starts it (`calls`,
//! `peer`) and letting the real outcome pick the model's. `extract` writes the model of a
//! server's tools to start from. No printing: the binary renders what these return.
//!
//! Layering inside the crate, bottom to top: `config`, `args`, `extract`; `peer`, `calls`,
//! `verify`; `interp`, `bind`.

pub mod args;
pub mod bind;
pub mod calls;
pub mod config;
pub mod extract;
pub mod interp;
pub mod peer;
pub mod verify;

pub use calls::{Call, Calls, Settled};
pub use config::Config;
pub use interp::{End, Interp, Path, Step, Tool};
pub use peer::Peer;

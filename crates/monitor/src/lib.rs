//! MCP on the wire: the trace format, per-message shape checks, era detection, and the
//! `Session` checker that binds each message to a label of the protocol model
//! (`models/mcp/*.pi`) and steps it through the one semantics (`stepper`: the rules of
//! `agentpi_check::replay`, on the part of each state a message can concern).
//!
//! The checker is fed events one at a time (`Session::feed`) by any transport: the stdio
//! proxy of `agentpi monitor`, a recorded trace (`agentpi trace check`), or an HTTP proxy.

pub mod base64;
pub mod bind;
pub mod crossing;
pub mod exchange;
pub mod follow;
pub mod http;
pub mod ledger;
pub mod lines;
pub mod model;
pub mod rules;
pub mod sampling;
pub mod schema;
pub mod session;
pub mod shape;
pub mod stepper;
pub mod tasks;
pub mod trace;

pub use session::{Report, Session, Violation};
pub use trace::{Dir, Event, TraceError};

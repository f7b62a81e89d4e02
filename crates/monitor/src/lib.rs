//! MCP on the wire: the trace format, per-message shape checks, era detection, and the
//! `Session` checker that binds each message to a label of the protocol model
//! (`models/mcp/*.pi`) and steps it through the one semantics (`stepper`: the rules of
//! `agentpi_check::replay`, on the part of each state a message can concern).
//!
//! The checker is fed events one at a time (`Session::feed`) by any transport: the stdio
//! proxy of `agentpi monitor`, a recorded trace (`agentpi trace check`), or an HTTP proxy.
//! `Sessions` sorts the events of a trace that holds several sessions (clients behind one
//! HTTP listener) and feeds each session's to a `Session` of its own.

pub mod across;
pub mod base64;
pub mod bind;
pub mod crossing;
pub mod exchange;
pub mod flat;
pub mod follow;
pub mod footprint;
pub mod http;
pub mod ids_used;
pub mod ledger;
pub mod lines;
pub mod members;
pub mod model;
pub mod observations;
#[cfg(test)]
mod random;
pub mod record;
pub mod request_key;
pub mod requests;
pub mod rules;
pub mod sampling;
pub mod schema;
pub mod schema_seen;
pub mod session;
pub mod sessions;
pub mod shape;
pub mod skeleton;
pub mod stepper;
pub mod tasks;
pub mod trace;

pub use record::Record;
pub use session::{Report, Session, SessionReport, Violation};
pub use sessions::Sessions;
pub use trace::{Dir, Event, TraceError};

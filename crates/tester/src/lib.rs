//! `agentpi test`: model-based conformance testing of an MCP server. Each run drives a fresh
//! server as a client would, choosing every client message among those the protocol model of
//! the era allows (`agentpi_monitor::Session::allowed`, the model the monitor steps), and
//! holds every server message to the monitor's checks; the tester's own probes (malformed
//! frames, invalid arguments, unknown tools and methods, invalid cursors, pings, versions
//! that do not exist, end of input) are judged by `judge`. A failing run is shrunk by delta
//! debugging over its client messages, each try against a fresh server, and saved as a
//! trace that `agentpi trace check` reports the same way and `agentpi test --replay` re-runs.
//!
//! Layering inside the crate, bottom to top: `rng`, `label`, `args`, `catalogue`, `wire`,
//! `serve`, `conn`; `run` (one run's transport, trace and monitor session); `moves`, `walk`, `know`,
//! `slow`, `features`, `focus` (the client); `judge`, `facts`, `verdict` (what a run says);
//! `script`, `shrink`; `config` (what a test is asked), `policy` (which failures fail the test), `report`, `entries` (the
//! report's entries from the runs); this file.

pub mod args;
pub mod catalogue;
mod config;
pub mod conn;
mod entries;
pub mod facts;
pub mod features;
pub mod focus;
pub mod judge;
pub mod know;
pub mod label;
pub mod moves;
pub mod policy;
pub mod report;
pub mod rng;
pub mod run;
pub mod script;
pub mod serve;
pub mod shrink;
pub mod slow;
pub mod verdict;
pub mod walk;

mod suite;
pub mod wire;

pub use config::{Config, EraChoice};
pub use conn::Target;
pub use report::{Outcome, RuleReport, Status};
pub use suite::{Progress, TestError, replay, test};

//! agentpi-sgd: the paper made executable on Schema-Guided Dialogue data.
//!
//! [`schema`] reads SGD `schema.json` files; [`phi`] maps a service to MCP tool definitions
//! (Φ, and Φ⁺ with the MCP+ block); [`inverse`] maps tool definitions back (Φ⁻¹, (Φ⁺)⁻¹),
//! partial and with a loss report; [`model`] generates the `.pi` models of a service and of
//! its MCP image; [`survey`] compares them for every service; [`dialogues`] turns the real
//! service calls of SGD dialogues into traces and replays them against the models. A library:
//! it returns data and never prints.

pub mod dialogues;
pub mod ident;
pub mod inverse;
pub mod model;
pub mod phi;
pub mod schema;
pub mod survey;

pub use inverse::{Inverse, Loss, Undefined, Which, inverse};
pub use model::Transactions;
pub use phi::{phi, phi_plus};
pub use schema::{Intent, Service, Slot};

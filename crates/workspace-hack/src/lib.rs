//! Empty: this crate exists for the features its Cargo.toml turns on (managed by
//! `cargo hakari`; docs/architecture.md, *The workspace-hack crate*).

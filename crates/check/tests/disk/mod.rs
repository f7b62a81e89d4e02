//! Reading models from the repository, for the tests that run every bundled model
//! (`differential.rs` here, `agentpi-cluster`'s `same.rs`).

use std::path::{Path, PathBuf};

/// The repository's root, from a crate two levels below it.
pub fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The loader `agentpi check` reads models with (`agentpi_models`): a file relative to the
/// file that imports it, else a bundled model by name, compiled in from `models/`. The tests
/// then load each model as the binary does, not by a copy of its rules of their own.
pub use agentpi_models::Loader as Disk;

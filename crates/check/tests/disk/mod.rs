//! Reading models from the repository, for the tests that run every bundled model
//! (`differential.rs` here, `agentpi-cluster`'s `same.rs`).

use agentpi_ir::Loader;
use std::path::{Path, PathBuf};

/// The repository's root, from a crate two levels below it.
pub fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// Reads imports from the disk: a path relative to the importing file, or a bundled model.
pub struct Disk;

impl Loader for Disk {
    fn read(&self, name: &str, importer: Option<&str>) -> Result<(String, String), String> {
        let path = match importer {
            None => PathBuf::from(name),
            Some(_) if !name.ends_with(".pi") => {
                workspace().join("models").join(format!("{name}.pi"))
            }
            Some(from) => Path::new(from).parent().unwrap().join(name),
        };
        let text = std::fs::read_to_string(&path).map_err(|e| e.to_string())?;
        Ok((path.display().to_string(), text))
    }
}

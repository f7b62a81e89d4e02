//! Where model text comes from: files on disk, relative to the file that imports them, and the
//! bundled models, by name. The one place the front end touches the file system.

use crate::models;
use std::path::{Path, PathBuf};

/// The display-name prefix of bundled models.
const BUNDLED: &str = "<bundled>/";

/// Loads files and bundled models for `agentpi_ir::load`.
pub struct Loader;

impl agentpi_ir::Loader for Loader {
    fn read(&self, name: &str, importer: Option<&str>) -> Result<(String, String), String> {
        let from_bundled = importer.is_some_and(|i| i.starts_with(BUNDLED));
        let path = resolve(name, importer);
        if !from_bundled && path.is_file() {
            let text = std::fs::read_to_string(&path).map_err(|e| e.to_string())?;
            return Ok((path.display().to_string(), text));
        }
        match models::find(name) {
            Some(text) => Ok((
                format!("{BUNDLED}{}.pi", name.trim_end_matches(".pi")),
                text.to_string(),
            )),
            None => Err(format!(
                "no file `{}`, and no bundled model of that name (bundled: {})",
                path.display(),
                models::MODELS
                    .iter()
                    .map(|(n, _)| *n)
                    .collect::<Vec<_>>()
                    .join(", ")
            )),
        }
    }
}

/// A name relative to the importing file's folder; the root file as given.
fn resolve(name: &str, importer: Option<&str>) -> PathBuf {
    let dir = importer.and_then(|i| Path::new(i).parent());
    match dir {
        Some(dir) if Path::new(name).is_relative() => dir.join(name),
        _ => PathBuf::from(name),
    }
}

//! The model text `agentpi` reads: the standard library of models compiled in (`bundled`) and
//! the loader of files and bundled models (`loader`). Its own crate, below `check`, so that
//! what runs a model without the whole binary (`agentpi-check`'s bench example) loads it as
//! `agentpi check` does, imports of bundled models included.

pub mod bundled;
pub mod loader;

pub use loader::Loader;

use agentpi_ir::Loaded;

/// `path` as `agentpi check` loads it: with constants set by `-D` (`defines`) and, beside the
/// root's, the checks of `checks` (a display name and a text). A root that is a directory or
/// not UTF-8 is the rendered error (`agentpi_ir::load` would misname it); otherwise what
/// `agentpi_ir::load_with_checks` found through [`Loader`], errors included.
pub fn load(
    path: &str,
    defines: &[(String, String)],
    checks: Option<(&str, &str)>,
) -> Result<Loaded, String> {
    loader::check_root(path)?;
    Ok(agentpi_ir::load_with_checks(path, &Loader, defines, checks))
}

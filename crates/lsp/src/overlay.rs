//! The loader the server analyses with: the editor's unsaved text of open documents over the
//! caller's loader (the binary's reads the disk and the bundled models).

use agentpi_ir::Loader;
use rustc_hash::FxHashMap;

pub struct Overlay<'a> {
    pub base: &'a dyn Loader,
    /// Open documents' text, by the loader's name of the file.
    pub open: &'a FxHashMap<String, String>,
}

impl Loader for Overlay<'_> {
    fn read(&self, name: &str, importer: Option<&str>) -> Result<(String, String), String> {
        if importer.is_none()
            && let Some(text) = self.open.get(name)
        {
            return Ok((name.to_string(), text.clone()));
        }
        let (display, text) = self.base.read(name, importer)?;
        match self.open.get(&display) {
            Some(open) => Ok((display, open.clone())),
            None => Ok((display, text)),
        }
    }
}

//! The language server over standard input and output with a loader of files on disk only
//! (no bundled models): what `bench/lsp/run.sh` times when no release build of the whole
//! `agentpi` binary is at hand. Arguments are ignored (the bench passes `lsp`).

struct Disk;

impl agentpi_ir::Loader for Disk {
    fn read(&self, name: &str, importer: Option<&str>) -> Result<(String, String), String> {
        let dir = importer.and_then(|i| std::path::Path::new(i).parent());
        let path = dir.map_or(name.into(), |d| d.join(name));
        let text = std::fs::read_to_string(&path).map_err(|e| e.to_string())?;
        Ok((path.display().to_string(), text))
    }
}

fn main() -> std::process::ExitCode {
    match agentpi_lsp::serve_stdio(&Disk) {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(_) => std::process::ExitCode::FAILURE,
    }
}

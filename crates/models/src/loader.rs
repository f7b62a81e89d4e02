//! Where model text comes from: files on disk, relative to the file that imports them, and the
//! bundled models, by name. The one place the front end touches the file system.

use crate::bundled;
use agentpi_diagnostics::{Diagnostic, SourceFile, SourceMap, Span, render};
use std::path::{Path, PathBuf};

/// The display-name prefix of bundled models.
const BUNDLED: &str = "<bundled>/";

/// Loads files and bundled models for `agentpi_ir::load`.
pub struct Loader;

impl agentpi_ir::Loader for Loader {
    fn read(&self, name: &str, importer: Option<&str>) -> Result<(String, String), String> {
        let from_bundled = importer.is_some_and(|i| i.starts_with(BUNDLED));
        let path = resolve(name, importer);
        if !from_bundled && path.is_dir() {
            return Err(format!("`{}` is a directory", path.display()));
        }
        if !from_bundled && path.is_file() {
            let bytes = std::fs::read(&path).map_err(|e| e.to_string())?;
            let text = String::from_utf8(bytes).map_err(|e| {
                let at = NotUtf8::find(e.as_bytes(), e.utf8_error().valid_up_to());
                format!(
                    "{} is not UTF-8 text",
                    at.place(&path.display().to_string())
                )
            })?;
            return Ok((path.display().to_string(), text));
        }
        match bundled::find(name) {
            Some(text) => Ok((
                format!("{BUNDLED}{}.pi", name.trim_end_matches(".pi")),
                text.to_string(),
            )),
            None => Err(format!(
                "no file `{}`, and no bundled model of that name{} (bundled: {})",
                path.display(),
                did_you_mean(name),
                bundled::names().join(", ")
            )),
        }
    }
}

/// `; did you mean `philosophers`?` when `name` is a typo of a bundled model's name.
fn did_you_mean(name: &str) -> String {
    let stem = name.trim_end_matches(".pi");
    match agentpi_ir::suggest(stem, bundled::names()) {
        Some(close) => format!("; did you mean `{close}`?"),
        None => String::new(),
    }
}

/// The text of a file, or why it cannot be had: a directory, a file that is not UTF-8 (with
/// the position of its first bad byte), or the system's reason.
pub fn read_text(path: &Path) -> Result<String, String> {
    if path.is_dir() {
        return Err(format!("`{}` is a directory", path.display()));
    }
    let bytes = std::fs::read(path).map_err(|e| e.to_string())?;
    String::from_utf8(bytes).map_err(|e| {
        let at = NotUtf8::find(e.as_bytes(), e.utf8_error().valid_up_to());
        format!(
            "{}: not UTF-8 text (byte 0x{:02x})",
            at.place(&path.display().to_string()),
            at.byte
        )
    })
}

/// `read_text` for a command's error line: every reason names the file (the place of a bad
/// byte as `FILE:LINE:COLUMN`).
pub fn read_named(path: &str) -> Result<String, String> {
    read_text(Path::new(path)).map_err(|e| {
        if e.starts_with(path) || e.starts_with('`') {
            e
        } else {
            format!("cannot read `{path}`: {e}")
        }
    })
}

/// The errors of a root file that `agentpi_ir::load` would report with a misleading help
/// ("check the file name"): a directory, or a file that is not UTF-8 (reported at its first
/// bad byte). Returns the rendered diagnostic.
pub fn check_root(path: &str) -> Result<(), String> {
    let file = Path::new(path);
    if file.is_dir() {
        let diagnostic = Diagnostic::error("E0207", format!("`{path}` is a directory")).with_help(
            "give a model file (`.pi`), or the name of a bundled model (`agentpi models`)",
        );
        return Err(render::terminal(&diagnostic, &SourceMap::new()));
    }
    let Ok(bytes) = std::fs::read(file) else {
        return Ok(());
    };
    match std::str::from_utf8(&bytes) {
        Ok(_) => Ok(()),
        Err(e) => Err(NotUtf8::find(&bytes, e.valid_up_to()).render(path)),
    }
}

/// The first byte of a file that is not UTF-8: its line (1-based), the line's text (lossy)
/// and the column of the byte in it.
struct NotUtf8 {
    line: usize,
    column: usize,
    text: String,
    byte: u8,
}

impl NotUtf8 {
    fn find(bytes: &[u8], valid: usize) -> NotUtf8 {
        let line_start = bytes[..valid]
            .iter()
            .rposition(|&b| b == b'\n')
            .map_or(0, |i| i + 1);
        let line_end = bytes[valid..]
            .iter()
            .position(|&b| b == b'\n')
            .map_or(bytes.len(), |i| valid + i);
        let before = std::str::from_utf8(&bytes[line_start..valid]).unwrap_or("");
        NotUtf8 {
            line: 1 + bytes[..line_start].iter().filter(|&&b| b == b'\n').count(),
            column: before.chars().count() + 1,
            text: String::from_utf8_lossy(&bytes[line_start..line_end]).into_owned(),
            byte: bytes[valid],
        }
    }

    fn place(&self, name: &str) -> String {
        format!("{name}:{}:{}", self.line, self.column)
    }

    fn render(&self, name: &str) -> String {
        let mut sources = SourceMap::new();
        let file = sources.add_file(SourceFile::excerpt(name, self.line as u32, &*self.text));
        let byte = self
            .text
            .char_indices()
            .nth(self.column - 1)
            .map_or(self.text.len(), |(i, _)| i) as u32;
        let diagnostic = Diagnostic::error("E0207", "the file is not UTF-8 text")
            .at(Span::new(file, byte, byte + 1))
            .with_label(format!("byte 0x{:02x}", self.byte))
            .with_help("a model is a text file in UTF-8; is this the file you meant?");
        render::terminal(&diagnostic, &sources)
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

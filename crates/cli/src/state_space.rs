//! The state spaces `compare` and `minimize` take, and the errors in them: an Aldebaran `.aut`
//! file, or a system of a model, `FILE.pi:System` (or `model:System` for a bundled model),
//! explored as `agentpi lts` explores it. Errors come back rendered as diagnostics.

use crate::model::{self, Model};
use crate::models;
use agentpi_diagnostics::{Diagnostic, SourceFile, SourceMap, Span, render};
use agentpi_lts::{AutError, Lts, read_aut_sized};
use std::fs::File;
use std::io::BufReader;
use std::path::Path;

/// Loads the state space `input` names, a model's constants set by `defines` (`-D N=3`,
/// unused for a `.aut` file); the error is a rendered diagnostic.
pub fn load(input: &Path, defines: &[String]) -> Result<Lts, String> {
    let defines = model::parse_defines(defines)?;
    let text = input.to_string_lossy();
    if input.is_dir() {
        return Err(error_report(
            "E0703",
            format!("`{text}` is a directory, not a state space"),
            Some(INPUTS),
        ));
    }
    if is_state_space_file(input) {
        return read_file(input);
    }
    if input.is_file() {
        return Err(model_without_system(&text));
    }
    match model::split_system(&text) {
        Some((file, system)) => system_lts(file, system, &defines),
        None if models::find(&text).is_some() => Err(model_without_system(&text)),
        None => Err(error_report(
            "E0703",
            format!("cannot read `{text}`: no such file"),
            Some(INPUTS),
        )),
    }
}

/// Whether [`load`] reads `input` as a state space file (`.aut`) rather than building it
/// from a model.
pub fn is_state_space_file(input: &Path) -> bool {
    input.is_file() && input.extension().is_none_or(|e| e != "pi")
}

/// What `compare` and `minimize` accept, for help lines.
const INPUTS: &str = "give a `.aut` file, `FILE.pi:System`, or `model:System` for a bundled model (`agentpi models`)";

fn read_file(path: &Path) -> Result<Lts, String> {
    let file = File::open(path).map_err(|e| {
        error_report(
            "E0703",
            format!("cannot read `{}`: {e}", path.display()),
            None,
        )
    })?;
    let bytes = file.metadata().ok().map(|m| m.len());
    read_aut_sized(BufReader::new(file), bytes).map_err(|e| aut_report(path, &e))
}

/// A model named where a state space was expected: say which systems it has.
fn model_without_system(file: &str) -> String {
    let systems = match model::load_quietly(file, &[]) {
        Ok(model) => model::system_names(&model.program),
        Err(_) => Vec::new(),
    };
    let example = systems.first().map_or("System", |s| s.as_str());
    let help = match systems.len() {
        0 => format!("name one of its systems, as `{file}:System`"),
        _ => format!(
            "name one of its systems, as `{file}:{example}` (systems: {})",
            systems.join(", ")
        ),
    };
    error_report(
        "E0704",
        format!("`{file}` is a model, not a state space"),
        Some(&help),
    )
}

/// The state space of `system` in the model `file` (a path or a bundled model's name).
fn system_lts(file: &str, system: &str, defines: &[(String, String)]) -> Result<Lts, String> {
    let model = model::load_quietly(file, defines)?;
    let Some(index) = model.program.system(system) else {
        let names = model::system_names(&model.program).join(", ");
        return Err(error_report(
            "E0704",
            format!("no system `{system}` in {file} (systems: {names})"),
            None,
        ));
    };
    build(&model, index, file, system)
}

fn build(model: &Model, index: usize, file: &str, system: &str) -> Result<Lts, String> {
    crate::cmd::lts::build(model, index, false, None)
        .map_err(|e| error_report("E0705", format!("{file}:{system}: {e}"), None))
}

/// Renders a diagnostic that points nowhere, with an optional help line.
pub fn error_report(code: &str, message: String, help: Option<&str>) -> String {
    let mut diagnostic = Diagnostic::error(code, message);
    if let Some(help) = help {
        diagnostic = diagnostic.with_help(help);
    }
    render::terminal(&diagnostic, &SourceMap::new())
}

/// Renders an error in a line-oriented file (a `.aut` file, a `--map` file) with its line as
/// the snippet: the readers stream, so only the offending line is known.
pub fn located_report(
    code: &str,
    path: &Path,
    (line, column): (usize, usize),
    text: &str,
    message: &str,
) -> String {
    let mut sources = SourceMap::new();
    let name = path.display().to_string();
    let file = sources.add_file(SourceFile::excerpt(name, line as u32, text));
    let byte = text
        .char_indices()
        .nth(column.saturating_sub(1))
        .map_or(text.len(), |(i, _)| i);
    let width = text[byte..].chars().next().map_or(0, char::len_utf8);
    let (start, end) = (byte as u32, (byte + width) as u32);
    let diagnostic = Diagnostic::error(code, message.to_string()).at(Span::new(file, start, end));
    render::terminal(&diagnostic, &sources)
}

fn aut_report(path: &Path, e: &AutError) -> String {
    let mut report = located_report("E0701", path, (e.line, e.column), &e.text, &e.message);
    if e.line == 1 && e.message.starts_with("expected the header") {
        report.push_str(&format!("  = help: {INPUTS}\n"));
    }
    report
}

//! Loading a model for a command: read, parse, check, lower; diagnostics go to stderr.

use crate::loader::Loader;
use agentpi_diagnostics::SourceMap;
use agentpi_diagnostics::{Severity, render};
use agentpi_ir::core::Program;

/// A lowered model with the sources its positions point into.
pub struct Model {
    pub program: Program,
    pub sources: SourceMap,
}

/// A loaded model with constants set by `-D NAME=VALUE`, or the exit status (2) after its
/// errors were printed.
pub fn load_defined(path: &str, defines: &[String]) -> Result<Model, u8> {
    let mut pairs = Vec::new();
    for define in defines {
        match define.split_once('=') {
            Some((name, value)) if !name.trim().is_empty() => {
                pairs.push((name.trim().to_string(), value.trim().to_string()))
            }
            _ => {
                eprintln!("error: -D {define}: write -D NAME=VALUE, as in -D N=6");
                return Err(2);
            }
        }
    }
    let loaded = agentpi_ir::load_with(path, &Loader, &pairs);
    let text = render::terminal_all(&loaded.diagnostics, &loaded.sources);
    if !text.is_empty() {
        eprint!("{text}");
    }
    let errors = loaded
        .diagnostics
        .iter()
        .filter(|d| d.severity == Severity::Error)
        .count();
    if errors > 0 {
        eprintln!(
            "{path}: {errors} error{} found; nothing was checked",
            if errors == 1 { "" } else { "s" }
        );
        return Err(2);
    }
    Ok(Model {
        program: loaded.program,
        sources: loaded.sources,
    })
}

/// The index of system `name`, or the only system when no name is given.
pub fn system(program: &Program, name: Option<&str>) -> Result<usize, u8> {
    let names: Vec<&str> = program.systems.iter().map(|s| s.name.as_str()).collect();
    let found = match name {
        Some(n) => program.system(n),
        None if names.len() == 1 => Some(0),
        None => None,
    };
    found.ok_or_else(|| {
        match name {
            Some(n) => eprintln!(
                "error: no system `{n}` in the model (systems: {})",
                names.join(", ")
            ),
            None => eprintln!("error: give --system, one of: {}", names.join(", ")),
        }
        2
    })
}

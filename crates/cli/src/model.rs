//! Loading a model for a command: read, parse, check, lower; diagnostics go to stderr.

use crate::output::{self, errln};
use agentpi_diagnostics::SourceMap;
use agentpi_diagnostics::{Diagnostic, Severity, render};
use agentpi_ir::core::Program;

/// A lowered model with the sources its positions point into.
pub struct Model {
    pub program: Program,
    pub sources: SourceMap,
}

/// At most this many diagnostics are shown; the rest are counted (as compilers do).
const SHOWN: usize = 20;

/// A loaded model with constants set by `-D NAME=VALUE`, or the exit status (2) after its
/// errors were printed. Warnings are printed and never make the load fail. `undone` says what
/// the errors prevented ("nothing was checked").
pub fn load_defined(path: &str, defines: &[String], undone: &str) -> Result<Model, u8> {
    let report = match parse_defines(defines) {
        Ok(pairs) => load_quietly(path, &pairs),
        Err(report) => Err(report),
    };
    report.map_err(|report| {
        output::stderr(&format!("{}; {undone}\n", report.trim_end()));
        2
    })
}

/// `NAME=VALUE` settings as pairs; a malformed one is an error.
pub fn parse_defines(defines: &[String]) -> Result<Vec<(String, String)>, String> {
    defines
        .iter()
        .map(|define| match define.split_once('=') {
            Some((name, value)) if !name.trim().is_empty() => {
                Ok((name.trim().to_string(), value.trim().to_string()))
            }
            _ => Err(format!(
                "error: -D {define}: write -D NAME=VALUE, as in -D N=6\n"
            )),
        })
        .collect()
}

/// A loaded model, or its rendered errors ending in a line that counts them. The warnings of
/// a model that loads are printed to stderr here. `defines` set constants (`-D`).
pub fn load_quietly(path: &str, defines: &[(String, String)]) -> Result<Model, String> {
    load_with_checks(path, defines, None)
}

/// [`load_quietly`], with checks from outside beside the root's (a display name and a text).
pub fn load_with_checks(
    path: &str,
    defines: &[(String, String)],
    checks: Option<(&str, &str)>,
) -> Result<Model, String> {
    let loaded = match agentpi_models::load(path, defines, checks) {
        Ok(loaded) => loaded,
        Err(report) => return Err(format!("{report}{path}: 1 error found\n")),
    };
    let errors = count(&loaded.diagnostics, Severity::Error);
    let text = render::terminal_first(&loaded.diagnostics, &loaded.sources, SHOWN);
    if errors > 0 {
        let plural = if errors == 1 { "" } else { "s" };
        return Err(format!("{text}{path}: {errors} error{plural} found\n"));
    }
    if !text.is_empty() {
        output::stderr(&text);
    }
    Ok(Model {
        program: loaded.program,
        sources: loaded.sources,
    })
}

fn count(diagnostics: &[Diagnostic], severity: Severity) -> usize {
    diagnostics
        .iter()
        .filter(|d| d.severity == severity)
        .count()
}

/// `FILE.pi:System` or `model:System` split at the last colon, when both sides are non-empty.
/// The file and system a command was given: `FILE:System` (when no file has that very name)
/// or `FILE` with `--system`.
pub fn file_and_system<'a>(spec: &'a str, system: Option<&'a str>) -> (&'a str, Option<&'a str>) {
    match (split_system(spec), system) {
        (Some((file, system)), None) if !std::path::Path::new(spec).exists() => {
            (file, Some(system))
        }
        _ => (spec, system),
    }
}

pub fn split_system(spec: &str) -> Option<(&str, &str)> {
    let (file, system) = spec.rsplit_once(':')?;
    (!file.is_empty() && !system.is_empty()).then_some((file, system))
}

/// The names of a program's systems, in declaration order.
pub fn system_names(program: &Program) -> Vec<String> {
    program.systems.iter().map(|s| s.name.clone()).collect()
}

/// The index of system `name`, or the only system when no name is given.
pub fn system(program: &Program, name: Option<&str>) -> Result<usize, u8> {
    let names = system_names(program).join(", ");
    let found = match name {
        Some(n) => program.system(n),
        None if program.systems.len() == 1 => Some(0),
        None => None,
    };
    found.ok_or_else(|| {
        match name {
            Some(n) => errln!("error: no system `{n}` in the model (systems: {names})"),
            None if names.is_empty() => errln!("error: the model has no `system` to explore"),
            None => errln!("error: give --system, one of: {names}"),
        }
        2
    })
}

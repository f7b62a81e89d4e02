//! `agentpi models`: the bundled models, one a line, with what each shows and its systems.

use crate::loader::Loader;
use crate::models::MODELS;
use crate::output;

#[derive(clap::Args)]
pub struct Args {}

/// The exit statuses, for `--help`.
pub const EXIT_STATUS: &str = "Exit status: 0 listed, 2 the list could not be written.";

pub fn run(_: Args) -> u8 {
    let width = MODELS.iter().map(|m| m.name.len()).max().unwrap_or(0) + 2;
    let mut out = String::new();
    for model in MODELS {
        let loaded = agentpi_ir::load(model.name, &Loader);
        let systems: Vec<&str> = loaded
            .program
            .systems
            .iter()
            .map(|s| s.name.as_str())
            .collect();
        let systems = match systems.as_slice() {
            [] => String::new(),
            [one] => format!(" (system {one})"),
            many => format!(" (systems {})", many.join(", ")),
        };
        out += &format!("{:<width$}{}{systems}\n", model.name, model.about);
    }
    out += "\nRun one with `agentpi check NAME`; `NAME:System` is the state space of one of its\n\
            systems for `compare`, `minimize` and `lts`; `import \"NAME\"` uses it in a model.\n";
    output::finish(&out, 0)
}

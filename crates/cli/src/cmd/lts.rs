//! `agentpi lts FILE --system S --format aut|dot`: writes a system's state space.

use crate::model::{self, Model};
use agentpi_check::{Graph, Options, Progress};
use agentpi_lts::{Lts, LtsBuilder};
use agentpi_semantics::Semantics;

#[derive(clap::Args)]
pub struct Args {
    /// A model file, or the name of a bundled model.
    pub file: String,
    /// The system to explore (may be left out when the model has one).
    #[arg(long)]
    pub system: Option<String>,
    #[arg(long, value_enum, default_value = "aut")]
    pub format: Format,
    /// Show communications on restricted (`new`) channels by name instead of as `tau`.
    #[arg(long)]
    pub keep_restricted: bool,
    /// Write to this file instead of standard output.
    #[arg(short, long)]
    pub output: Option<String>,
    /// Refuse state spaces larger than this.
    #[arg(long)]
    pub max_states: Option<usize>,
    /// Set a constant of the model: `-D N=6` (repeatable).
    #[arg(short = 'D', value_name = "NAME=VALUE")]
    pub define: Vec<String>,
}

#[derive(Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    Aut,
    Dot,
}

pub fn run(args: Args) -> u8 {
    let model = match model::load_defined(&args.file, &args.define) {
        Ok(m) => m,
        Err(status) => return status,
    };
    let lts = match model::system(&model.program, args.system.as_deref()).and_then(|s| {
        build(&model, s, args.keep_restricted, args.max_states).map_err(|e| {
            eprintln!("error: {e}");
            2
        })
    }) {
        Ok(lts) => lts,
        Err(status) => return status,
    };
    let mut bytes = Vec::new();
    let written = match args.format {
        Format::Aut => agentpi_lts::write_aut(&lts, &mut bytes),
        Format::Dot => agentpi_lts::write_dot(&lts, &mut bytes),
    };
    written.expect("writing to memory cannot fail");
    crate::output::write(args.output.as_deref(), &bytes)
}

/// The state space of system `system` as an LTS; labels as `agentpi compare` sees them.
pub fn build(
    model: &Model,
    system: usize,
    keep_restricted: bool,
    max_states: Option<usize>,
) -> Result<Lts, String> {
    let sem = Semantics::new(&model.program);
    let options = Options {
        max_states,
        ..Options::default()
    };
    let graph = agentpi_check::explore_system(&sem, system, &options, &Progress::default())
        .map_err(|f| format!("{}: {}", model.sources.position(f.span), f.kind))?;
    if let Some(limit) = &graph.limit {
        return Err(format!("the state space is larger than {limit} allows"));
    }
    Ok(to_lts(&sem, &graph, keep_restricted))
}

fn to_lts(sem: &Semantics<'_>, graph: &Graph, keep_restricted: bool) -> Lts {
    let mut builder = LtsBuilder::new();
    let labels: Vec<u32> = graph
        .labels
        .iter()
        .map(|l| builder.intern(&agentpi_check::trace::plain_label(sem, l, !keep_restricted)))
        .collect();
    builder.require_states(graph.states.len());
    for s in 0..graph.states.len() as u32 {
        for e in graph.successors(s) {
            builder.add_transition_id(s, labels[e.label as usize], e.target);
        }
    }
    builder.finish(0)
}

/// The state space of `FILE.pi:System` (or `model:System` for a bundled model), for
/// `compare` and `minimize`; the error is the rendered diagnostics.
pub fn system_lts(spec: &str) -> Result<Lts, String> {
    let (file, system) = spec
        .rsplit_once(':')
        .ok_or_else(|| format!("`{spec}` is not FILE.pi:System"))?;
    let loaded = agentpi_ir::load(file, &crate::loader::Loader);
    if loaded.has_errors() {
        return Err(agentpi_diagnostics::render::terminal_all(
            &loaded.diagnostics,
            &loaded.sources,
        ));
    }
    let model = Model {
        program: loaded.program,
        sources: loaded.sources,
    };
    let Some(index) = model.program.system(system) else {
        let names: Vec<&str> = model
            .program
            .systems
            .iter()
            .map(|s| s.name.as_str())
            .collect();
        return Err(format!(
            "error: no system `{system}` in {file} (systems: {})\n",
            names.join(", ")
        ));
    };
    build(&model, index, false, None).map_err(|e| format!("error: {spec}: {e}\n"))
}

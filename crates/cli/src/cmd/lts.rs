//! `agentpi lts FILE --system S --format aut|dot`: writes a system's state space.

use crate::model::{self, Model};
use crate::output::errln;
use agentpi_check::{Graph, Limit, Options, Progress};
use agentpi_lts::{Lts, LtsBuilder};
use agentpi_semantics::Semantics;

#[derive(clap::Args)]
pub struct Args {
    /// A model file or the name of a bundled model (`agentpi models`), optionally with the
    /// system as `FILE.pi:System` or `model:System`.
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
    /// Refuse state spaces larger than this (exit 3).
    #[arg(long)]
    pub max_states: Option<usize>,
    /// Set a constant of the model: `-D N=6` (repeatable).
    #[arg(short = 'D', value_name = "NAME=VALUE")]
    pub define: Vec<String>,
}

/// The exit statuses, for `--help`.
pub const EXIT_STATUS: &str = "Exit status: 0 written, 2 an input error (the model, the system) or \
    an output that could not be written, 3 the state space is larger than --max-states.";

#[derive(Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    Aut,
    Dot,
}

pub fn run(args: Args) -> u8 {
    let (file, system) = model::file_and_system(&args.file, args.system.as_deref());
    let model = match model::load_defined(file, &args.define, "nothing was written") {
        Ok(m) => m,
        Err(status) => return status,
    };
    let system = match model::system(&model.program, system) {
        Ok(s) => s,
        Err(status) => return status,
    };
    let lts = match build(&model, system, args.keep_restricted, args.max_states) {
        Ok(lts) => lts,
        Err(Refused::Limit(message)) => {
            errln!("error: {message}");
            return 3;
        }
        Err(Refused::Fault(message)) => {
            errln!("error: {message}");
            return 2;
        }
    };
    let mut bytes = Vec::new();
    let written = match args.format {
        Format::Aut => agentpi_lts::write_aut(&lts, &mut bytes),
        Format::Dot => agentpi_lts::write_dot(&lts, &mut bytes),
    };
    written.expect("writing to memory cannot fail");
    crate::output::write(args.output.as_deref(), &bytes)
}

/// Why no state space was built.
pub enum Refused {
    /// The initial state fails (a run-time error in it), or no thread could be started to
    /// explore (exit 2 both).
    Fault(String),
    /// The state space is larger than `--max-states` allows.
    Limit(String),
}

impl std::fmt::Display for Refused {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Refused::Fault(m) | Refused::Limit(m) => f.write_str(m),
        }
    }
}

/// The state space of system `system` as an LTS; labels as `agentpi compare` sees them.
pub fn build(
    model: &Model,
    system: usize,
    keep_restricted: bool,
    max_states: Option<usize>,
) -> Result<Lts, Refused> {
    build_within(model, system, keep_restricted, (max_states, None))
}

/// As [`build`], within `--max-states` and `--max-memory` (MiB; see `crate::limits`).
pub fn build_within(
    model: &Model,
    system: usize,
    keep_restricted: bool,
    (max_states, max_memory): (Option<usize>, Option<u64>),
) -> Result<Lts, Refused> {
    let sem = Semantics::new(&model.program);
    let options = Options {
        max_states,
        max_memory: crate::limits::memory_budget(max_memory),
        ..Options::default()
    };
    let graph = agentpi_check::explore_system(&sem, system, &options, &Progress::default())
        .map_err(|f| {
            let at = format!("{}: {}", model.sources.position(f.span), f.kind);
            if f.kind.is_limit() {
                Refused::Limit(at)
            } else {
                Refused::Fault(at)
            }
        })?;
    if let Some(limit @ Limit::Threads(_)) = &graph.limit {
        return Err(Refused::Fault(format!("cannot explore: {limit}")));
    }
    if let Some(limit) = &graph.limit {
        return Err(Refused::Limit(format!(
            "the state space is larger than {limit} allows"
        )));
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
    builder.require_states(graph.state_count());
    for s in 0..graph.state_count() as u32 {
        for e in graph.successors(s) {
            builder.add_transition_id(s, labels[e.label as usize], e.target);
        }
    }
    builder.finish(0)
}

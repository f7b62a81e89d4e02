//! `agentpi minimize`: reduce a state space modulo strong, branching or weak bisimulation,
//! printing the size of its reachable part before and after (as text or JSON).

use super::Format;
use crate::output::{self, count_of, errln};
use crate::state_space;
use agentpi_lts::{Equivalence, Lts, minimize, write_aut, write_dot};
use serde_json::{Value, json};
use std::fs::File;
use std::io::BufWriter;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

#[derive(clap::Args)]
pub struct Args {
    /// The state space to reduce: an Aldebaran `.aut` file, or a system of a model as
    /// `FILE.pi:System` (`model:System` for a bundled model, see `agentpi models`).
    pub input: PathBuf,
    /// The equivalence to reduce modulo.
    #[arg(long, value_enum, default_value = "strong")]
    pub equiv: MinimizeEquiv,
    /// Write the quotient here (`.dot` for Graphviz, anything else as `.aut`).
    #[arg(short, long)]
    pub output: Option<PathBuf>,
    /// Leave the timings out of the report (for reproducible output).
    #[arg(long)]
    pub no_time: bool,
    /// Output format of the report.
    #[arg(long, value_enum, default_value = "text")]
    pub format: Format,
    /// Set a constant of the model: `-D N=6` (repeatable).
    #[arg(short = 'D', value_name = "NAME=VALUE")]
    pub define: Vec<String>,
}

/// The exit statuses, for `--help`.
pub const EXIT_STATUS: &str = "Exit status: 0 reduced, 2 an input error (reported as \
    FILE:LINE:COL) or an output that could not be written.";

/// The equivalences `minimize` offers.
#[derive(Clone, Copy, Debug, clap::ValueEnum)]
pub enum MinimizeEquiv {
    Strong,
    Branching,
    /// Divergence-preserving branching bisimulation.
    Dpbranching,
    Weak,
}

impl MinimizeEquiv {
    fn equivalence(self) -> Equivalence {
        match self {
            MinimizeEquiv::Strong => Equivalence::Strong,
            MinimizeEquiv::Branching => Equivalence::Branching,
            MinimizeEquiv::Dpbranching => Equivalence::DivBranching,
            MinimizeEquiv::Weak => Equivalence::Weak,
        }
    }
}

pub fn run(args: Args) -> u8 {
    let start = Instant::now();
    let lts = match state_space::load(&args.input, &args.define) {
        Ok(lts) => lts,
        Err(report) => {
            output::stderr(&report);
            return 2;
        }
    };
    let read = start.elapsed();
    let start = Instant::now();
    let reduction = minimize(&lts, args.equiv.equivalence());
    let reduce = start.elapsed();
    let input = Size::reachable(&lts, &reduction.class);
    let quotient = reduction.quotient;
    if let Some(out) = &args.output
        && let Err(e) = save(&quotient, out)
    {
        errln!("error: cannot write `{}`: {e}", out.display());
        return 2;
    }
    let times = (!args.no_time).then_some((read, reduce));
    let report = match args.format {
        Format::Text => summary(&args, input, &quotient, times),
        Format::Json => {
            let json = json_summary(&args, input, &quotient, times);
            serde_json::to_string_pretty(&json).expect("a JSON value prints") + "\n"
        }
    };
    output::finish(&report, 0)
}

/// The states and transitions of an LTS, or of the part reachable from its initial state
/// (what is reduced).
#[derive(Clone, Copy)]
struct Size {
    states: usize,
    transitions: usize,
}

impl Size {
    fn of(lts: &Lts) -> Size {
        Size {
            states: lts.num_states(),
            transitions: lts.num_transitions(),
        }
    }

    /// The reachable part: the states the reduction mapped (`class`), without another search.
    fn reachable(lts: &Lts, class: &[Option<u32>]) -> Size {
        let states = (0..lts.num_states() as u32).filter(|&s| class[s as usize].is_some());
        Size {
            states: states.clone().count(),
            transitions: states.map(|s| lts.row(s).0.len()).sum(),
        }
    }
}

/// The report as one JSON object; `time` is null under `--no-time`.
fn json_summary(
    args: &Args,
    input: Size,
    quotient: &Lts,
    times: Option<(Duration, Duration)>,
) -> Value {
    let time = times.map(
        |(read, reduce)| json!({"read_s": read.as_secs_f64(), "minimise_s": reduce.as_secs_f64()}),
    );
    json!({
        "input": {"name": args.input.display().to_string(), "states": input.states,
                  "transitions": input.transitions},
        "equivalence": args.equiv.equivalence().name(),
        "quotient": {"states": quotient.num_states(), "transitions": quotient.num_transitions()},
        "output": args.output.as_ref().map(|p| p.display().to_string()),
        "time": time,
    })
}

fn summary(
    args: &Args,
    input: Size,
    quotient: &Lts,
    times: Option<(Duration, Duration)>,
) -> String {
    let size = |s: Size| {
        format!(
            "{}, {}",
            count_of(s.states, "state"),
            count_of(s.transitions, "transition")
        )
    };
    let mut out = format!("input:     {} ({})\n", args.input.display(), size(input));
    out += &format!(
        "quotient:  {} modulo {} bisimulation\n",
        size(Size::of(quotient)),
        args.equiv.equivalence().describe()
    );
    if let Some(out_path) = &args.output {
        out += &format!("written:   {}\n", out_path.display());
    }
    if let Some((read, reduce)) = times {
        out += &format!(
            "time:      read {:.3} s, minimise {:.3} s\n",
            read.as_secs_f64(),
            reduce.as_secs_f64()
        );
    }
    out
}

fn save(lts: &Lts, path: &Path) -> std::io::Result<()> {
    let out = BufWriter::new(File::create(path)?);
    if path.extension().is_some_and(|e| e == "dot") {
        write_dot(lts, out)
    } else {
        write_aut(lts, out)
    }
}

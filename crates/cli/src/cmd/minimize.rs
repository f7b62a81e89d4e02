//! `agentpi minimize`: reduce a state space modulo strong, branching or weak bisimulation,
//! printing its size before and after (as text or JSON). Also home of the input loading shared
//! with `compare`.

use super::compare::Format;
use agentpi_diagnostics::{Diagnostic, SourceMap, Span, render};
use agentpi_lts::{AutError, Equivalence, Lts, minimize, read_aut, write_aut, write_dot};
use serde_json::{Value, json};
use std::fs::File;
use std::io::{BufReader, BufWriter};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

#[derive(clap::Args)]
pub struct Args {
    /// The state space to reduce: an Aldebaran `.aut` file.
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
}

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
    let lts = match load(&args.input) {
        Ok(lts) => lts,
        Err(report) => {
            eprint!("{report}");
            return 2;
        }
    };
    let read = start.elapsed();
    let start = Instant::now();
    let quotient = minimize(&lts, args.equiv.equivalence()).quotient;
    let reduce = start.elapsed();
    if let Some(out) = &args.output
        && let Err(e) = save(&quotient, out)
    {
        let message = format!("cannot write {}: {e}", out.display());
        eprint!("{}", error_report("E0703", message));
        return 2;
    }
    let times = (!args.no_time).then_some((read, reduce));
    match args.format {
        Format::Text => print!("{}", summary(&args, &lts, &quotient, times)),
        Format::Json => println!(
            "{}",
            serde_json::to_string_pretty(&json_summary(&args, &lts, &quotient, times)).unwrap()
        ),
    }
    0
}

/// The report as one JSON object; `time` is null under `--no-time`.
fn json_summary(
    args: &Args,
    lts: &Lts,
    quotient: &Lts,
    times: Option<(Duration, Duration)>,
) -> Value {
    let time = times.map(
        |(read, reduce)| json!({"read_s": read.as_secs_f64(), "minimise_s": reduce.as_secs_f64()}),
    );
    json!({
        "input": {"name": args.input.display().to_string(), "states": lts.num_states(),
                  "transitions": lts.num_transitions()},
        "equivalence": args.equiv.equivalence().name(),
        "quotient": {"states": quotient.num_states(), "transitions": quotient.num_transitions()},
        "output": args.output.as_ref().map(|p| p.display().to_string()),
        "time": time,
    })
}

fn summary(args: &Args, lts: &Lts, quotient: &Lts, times: Option<(Duration, Duration)>) -> String {
    let size = |l: &Lts| {
        let (states, transitions) = (l.num_states(), l.num_transitions());
        format!(
            "{}, {}",
            count(states, "state"),
            count(transitions, "transition")
        )
    };
    let mut out = format!("input:     {} ({})\n", args.input.display(), size(lts));
    out += &format!(
        "quotient:  {} modulo {} bisimulation\n",
        size(quotient),
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

/// `1 state`, `2 states`.
fn count(n: usize, noun: &str) -> String {
    if n == 1 {
        format!("1 {noun}")
    } else {
        format!("{n} {noun}s")
    }
}

fn save(lts: &Lts, path: &Path) -> std::io::Result<()> {
    let out = BufWriter::new(File::create(path)?);
    if path.extension().is_some_and(|e| e == "dot") {
        write_dot(lts, out)
    } else {
        write_aut(lts, out)
    }
}

/// Loads an LTS from a `.aut` file or a `FILE.pi:System` state space; the error is a
/// rendered diagnostic.
pub(crate) fn load(path: &Path) -> Result<Lts, String> {
    if !path.exists() && path.to_string_lossy().contains(".pi:") {
        return super::lts::system_lts(&path.to_string_lossy());
    }
    let file = File::open(path)
        .map_err(|e| error_report("E0703", format!("cannot read {}: {e}", path.display())))?;
    read_aut(BufReader::new(file)).map_err(|e| aut_report(path, &e))
}

/// Renders a diagnostic that points nowhere.
pub(crate) fn error_report(code: &str, message: String) -> String {
    render::terminal(&Diagnostic::error(code, message), &SourceMap::new())
}

/// Renders a malformed-file error with its line as the snippet.
pub(crate) fn located_report(
    code: &str,
    path: &Path,
    line: usize,
    column: usize,
    text: &str,
    message: &str,
) -> String {
    // The reader streams, so only the offending line is known: place it at its line number.
    let mut sources = SourceMap::new();
    let prefix = "\n".repeat(line.saturating_sub(1));
    let byte = text
        .char_indices()
        .nth(column.saturating_sub(1))
        .map_or(text.len(), |(i, _)| i);
    let start = (prefix.len() + byte) as u32;
    let width = text[byte..].chars().next().map_or(0, |c| c.len_utf8()) as u32;
    let file = sources.add(path.display().to_string(), format!("{prefix}{text}\n"));
    let diagnostic =
        Diagnostic::error(code, message.to_string()).at(Span::new(file, start, start + width));
    render::terminal(&diagnostic, &sources)
}

fn aut_report(path: &Path, e: &AutError) -> String {
    located_report("E0701", path, e.line.max(1), e.column, &e.text, &e.message)
}

//! `agentpi test`: model-based conformance testing of an MCP server (`crates/tester`). This
//! module parses the flags, prints progress to stderr and the report as text (with a
//! sequence chart per failed rule), JSON or JUnit.

use crate::output::{self, errln};
use crate::wire;
use agentpi_monitor::trace;
use agentpi_tester::report::Failure;
use agentpi_tester::{Config, EraChoice, Outcome, Status, Target, TestError};
use std::path::PathBuf;
use std::time::Duration;

#[derive(clap::Args)]
pub struct Args {
    /// The seed of the client's choices: the same seed against the same server sends the same
    /// client messages.
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// How many runs, each against a fresh server (the first eight each have a focus:
    /// lists, lifecycle, calls, invalid arguments, cancellation, concurrency, malformed
    /// frames, end of input; the rest are random walks).
    #[arg(long, value_name = "RUNS", default_value_t = 12, value_parser = clap::value_parser!(u64).range(1..=10_000))]
    budget: u64,
    #[arg(long, value_enum, default_value = "text")]
    format: Format,
    /// Save every run's trace (run-N.jsonl) and each failed rule's shrunk trace (RULE.jsonl)
    /// in DIR (default: shrunk traces only, in a folder of the system's temp directory).
    #[arg(long, value_name = "DIR")]
    record: Option<PathBuf>,
    /// Replay the client messages of a saved trace against the server, once.
    #[arg(long, value_name = "FILE")]
    replay: Option<PathBuf>,
    /// Also call tools that may write (not marked read-only, or marked destructive).
    #[arg(long)]
    allow_writes: bool,
    /// Seconds a request may go unanswered before the client gives up on it.
    #[arg(long, default_value_t = 10.0)]
    timeout: f64,
    /// Seconds the server has to exit once its input is closed, before it is stopped (a
    /// later exit fails S5, modern stdio).
    #[arg(long, default_value_t = 2.0)]
    exit_grace: f64,
    /// The protocol era to test: `auto` probes with server/discover (modern if answered).
    #[arg(long, value_enum, default_value = "auto")]
    era: Era,
    /// Keep a failing run as it was instead of shrinking it.
    #[arg(long)]
    no_shrink: bool,
    /// Test a Streamable HTTP server at this http:// or https:// URL (alone: each run a new
    /// session of the running server). With `-- CMD ARGS...` too, agentpi starts that command
    /// afresh for every run (once the URL's port is free), waits up to --timeout seconds until
    /// the URL accepts connections, and stops it at the run's end.
    #[arg(long)]
    url: Option<String>,
    /// The server: `agentpi test -- CMD ARGS...` (a stdio server), or with --url the command
    /// that starts the HTTP server; either is started afresh for every run.
    #[arg(last = true, required_unless_present = "url")]
    command: Vec<String>,
}

#[derive(Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
enum Format {
    Text,
    Json,
    Junit,
}

#[derive(Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
enum Era {
    Auto,
    Legacy,
    Modern,
}

/// The exit statuses, for `--help`.
pub const EXIT_STATUS: &str = "Exit status: 0 every rule exercised passed, 1 some rule failed, \
2 the server could not be started or reached (or said nothing a client can use; with --url \
and a command, for any run, the command exited or did not listen within --timeout, or \
something else listened on the URL's port), a --replay file cannot be read, or a trace or the \
output could not be written.";

/// The longest `--timeout`, in seconds.
const MAX_TIMEOUT: f64 = 86_400.0;

pub fn run(args: Args) -> u8 {
    // A day at most: a deadline is an instant, and instants do not reach forever.
    if !(args.timeout > 0.0 && args.timeout <= MAX_TIMEOUT) {
        errln!("error: --timeout must be a number of seconds above 0 and at most {MAX_TIMEOUT}");
        return 2;
    }
    if !(args.exit_grace > 0.0 && args.exit_grace <= MAX_TIMEOUT) {
        errln!("error: --exit-grace must be a number of seconds above 0 and at most {MAX_TIMEOUT}");
        return 2;
    }
    let config = config(&args);
    if matches!(config.target, Target::Served { .. }) {
        stop_servers_on_signal();
    }
    let progress = |line: String| errln!("agentpi test: {line}");
    let outcome = match &args.replay {
        Some(file) => replay(&config, file, &progress),
        None => agentpi_tester::test(&config, &progress),
    };
    match outcome {
        Ok(outcome) => print(&args, &outcome),
        Err(e) => {
            let kind = match e {
                TestError::Unreachable(_) => "cannot test the server",
                TestError::Write(_) => "cannot save a trace",
            };
            errln!("error: {kind}: {e}");
            2
        }
    }
}

/// On SIGINT or SIGTERM, kills the HTTP servers agentpi started, then ends as the signal
/// would have: they run in process groups of their own, which the terminal's Ctrl-C misses.
fn stop_servers_on_signal() {
    use std::sync::atomic::Ordering;
    let signalled = crate::signals::caught();
    std::thread::spawn(move || {
        loop {
            let sig = signalled.load(Ordering::Relaxed);
            if sig != 0 {
                agentpi_tester::serve::stop_all();
                let _ = signal_hook::low_level::emulate_default_handler(sig as i32);
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    });
}

fn config(args: &Args) -> Config {
    let target = Target::of(args.url.as_deref(), &args.command);
    let dir = args
        .record
        .clone()
        .unwrap_or_else(|| default_dir(&target, args.seed));
    Config {
        target,
        seed: args.seed,
        budget: args.budget as usize,
        timeout: Duration::from_secs_f64(args.timeout),
        exit_grace: Duration::from_secs_f64(args.exit_grace),
        allow_writes: args.allow_writes,
        era: match args.era {
            Era::Auto => EraChoice::Auto,
            Era::Legacy => EraChoice::Legacy,
            Era::Modern => EraChoice::Modern,
        },
        keep_runs: args.record.is_some(),
        dir,
        shrink: !args.no_shrink,
    }
}

/// `$TMPDIR/agentpi-test/NAME-seedN`: the same folder for the same server and seed.
fn default_dir(target: &Target, seed: u64) -> PathBuf {
    let name: String = target
        .name()
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' {
                c
            } else {
                '_'
            }
        })
        .collect();
    std::env::temp_dir()
        .join("agentpi-test")
        .join(format!("{name}-seed{seed}"))
}

fn replay(
    config: &Config,
    file: &PathBuf,
    progress: &dyn Fn(String),
) -> Result<Outcome, TestError> {
    let bytes = std::fs::read(file)
        .map_err(|e| TestError::Unreachable(format!("cannot read `{}`: {e}", file.display())))?;
    let events = trace::parse(&bytes)
        .map_err(|e| TestError::Unreachable(format!("{}:{}: {}", file.display(), e.line, e.why)))?;
    agentpi_tester::replay(config, &events, progress)
}

fn print(args: &Args, outcome: &Outcome) -> u8 {
    let status = u8::from(outcome.failed());
    let text = match args.format {
        Format::Json => outcome.to_json().to_string() + "\n",
        Format::Junit => outcome.to_junit(),
        Format::Text => text(outcome),
    };
    output::finish(&text, status)
}

/// The report as text: each failed rule with its finding and sequence chart, each passed
/// rule in a line, the rules not exercised grouped by why.
fn text(o: &Outcome) -> String {
    let mut out = format!(
        "agentpi test: {} ({} era, {}), {}, seed {}\n",
        o.server,
        o.era,
        o.protocol_version.as_deref().unwrap_or("?"),
        output::count_of(o.runs, "run"),
        o.seed
    );
    for r in o.rules.iter().filter(|r| r.status == Status::Failed) {
        out += &format!("FAILED {}: {}\n", r.rule, r.why);
        if let Some(path) = &r.trace {
            out += &format!("  trace: {}\n", path.display());
        }
        if let Some(f) = &r.failure {
            out += &failure(f);
        }
    }
    for r in o.rules.iter().filter(|r| r.status == Status::Passed) {
        out += &format!("passed {}: {}\n", r.rule, r.why);
    }
    out += &not_exercised(o);
    for note in &o.notes {
        out += &format!("note: {note}\n");
    }
    out += &format!(
        "agentpi test: {} passed, {} failed, {} not exercised\n",
        o.count(Status::Passed),
        o.count(Status::Failed),
        o.count(Status::NotExercised)
    );
    out
}

fn failure(f: &Failure) -> String {
    let v = &f.violation;
    let mut out = format!(
        "  {} {} at event {} ({}): {} [{}]\n  message: {}\n",
        v.rule,
        v.level,
        v.index,
        v.dir.as_str(),
        v.message,
        v.spec,
        shortened(&String::from_utf8_lossy(&v.raw))
    );
    for line in wire::chart(&f.events, 0, v.index).lines() {
        out += &format!("  {line}\n");
    }
    out
}

/// How much of an offending message the text shows (the trace has all of it).
const SHOWN: usize = 300;

fn shortened(text: &str) -> String {
    match text.char_indices().nth(SHOWN) {
        Some((at, _)) => format!("{}... ({} bytes)", &text[..at], text.len()),
        None => text.to_string(),
    }
}

fn not_exercised(o: &Outcome) -> String {
    let mut groups: Vec<(&str, Vec<&str>)> = Vec::new();
    for r in o.rules.iter().filter(|r| r.status == Status::NotExercised) {
        match groups.iter_mut().find(|(why, _)| *why == r.why) {
            Some((_, rules)) => rules.push(r.rule),
            None => groups.push((&r.why, vec![r.rule])),
        }
    }
    groups
        .iter()
        .map(|(why, rules)| format!("not exercised {}: {why}\n", rules.join(", ")))
        .collect()
}

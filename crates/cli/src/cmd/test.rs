//! `agentpi test`: model-based conformance testing of an MCP server (`crates/tester`). This
//! module parses the flags, prints progress to stderr and the report as text (with a
//! sequence chart per failed rule), JSON or JUnit.

use crate::output::{self, errln};
use crate::{pictures, wire};
use agentpi_monitor::trace;
use agentpi_report_html::pages::RuleRow;
use agentpi_tester::policy::{self, Policy};
use agentpi_tester::report::{Failure, RuleReport};
use agentpi_tester::{Config, EraChoice, Outcome, Status, Target, TestError};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
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
    /// Seconds a request may go unanswered before the client gives up on it (default 10);
    /// `TOOL=SECONDS` for the calls of one tool (repeatable; over [timeouts] in the config
    /// file). A request that outlives it is reported as `timeout`, not as a failure.
    #[arg(long, value_name = "SECONDS|TOOL=SECONDS")]
    timeout: Vec<String>,
    /// Seconds a ping may take to be answered: L13's "promptly", a failure past it (default:
    /// the timeout, at most 5). A ping of the first moments counts the server's start-up, so
    /// a loaded machine may need more.
    #[arg(long, value_name = "SECONDS")]
    ping_timeout: Option<f64>,
    /// Which failures fail the test (exit status 1): `should` every one, `must` only those of
    /// rules whose level is a MUST (default: the config file's, else `should`).
    #[arg(long, value_enum)]
    fail_on: Option<FailOn>,
    /// A failure of RULE does not fail the test (repeatable; the report echoes it as a
    /// waiver). A reason each is given in the config file's [waivers].
    #[arg(long, value_name = "RULE")]
    allow: Vec<String>,
    /// A failure of RULE fails the test whatever --fail-on says (repeatable).
    #[arg(long, value_name = "RULE")]
    deny: Vec<String>,
    /// Config file: fail_on, deny, [waivers] (RULE = "reason"), [timeouts] (TOOL = SECONDS)
    /// (default: ./agentpi-test.toml when it exists).
    #[arg(long, value_name = "FILE")]
    config: Option<PathBuf>,
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
    /// How many runs, and shrinks of failed rules, of a stdio server go at once (each a
    /// server process of its own; default: one more than the cores the load average leaves
    /// idle, 1 to 4). An HTTP server's go one at a time.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..=64))]
    jobs: Option<u64>,
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
    /// One self-contained HTML page: the rule table, each failed rule's trace as a chart.
    Html,
    /// One SVG picture: each failed rule's shrunk trace as a chart, in the text's order.
    Svg,
}

#[derive(Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
enum FailOn {
    Must,
    Should,
}

#[derive(Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
enum Era {
    Auto,
    Legacy,
    Modern,
}

/// The exit statuses, for `--help`.
pub const EXIT_STATUS: &str = "Exit status: 0 every rule exercised passed (a timeout is no \
failure; with --fail-on must, --allow or waivers: no failure that fails the test), 1 some rule \
failed, 2 the server could not be started or reached (or said nothing a client can use; with --url \
and a command, for any run, the command exited or did not listen within --timeout, or \
something else listened on the URL's port), a --replay file or the config file cannot be read, \
a bad flag, a trace or the output could not be written, or the record folder holds another \
server's traces.";

pub fn run(args: Args) -> u8 {
    let config = match config(&args) {
        Ok(config) => config,
        Err(why) => {
            errln!("error: {why}");
            return 2;
        }
    };
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
    let watcher = std::thread::Builder::new().spawn(move || {
        loop {
            let sig = signalled.load(Ordering::Relaxed);
            if sig != 0 {
                agentpi_tester::serve::stop_all();
                let _ = signal_hook::low_level::emulate_default_handler(sig as i32);
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    });
    // Refused by the system (`ulimit -u`, no memory): the tests still run, and end as usual.
    if let Err(e) = watcher {
        crate::output::errln!(
            "warning: cannot start a thread to stop the servers on Ctrl-C ({e}): a signal may leave them running"
        );
    }
}

fn config(args: &Args) -> Result<Config, String> {
    let seconds = |flag: &str, s: f64| {
        if s > 0.0 && s <= policy::MAX_SECONDS {
            Ok(Duration::from_secs_f64(s))
        } else {
            Err(format!(
                "--{flag} must be a number of seconds above 0 and at most {}",
                policy::MAX_SECONDS
            ))
        }
    };
    let exit_grace = seconds("exit-grace", args.exit_grace)?;
    let promptly = args
        .ping_timeout
        .map(|s| seconds("ping-timeout", s))
        .transpose()?;
    let file = config_file(args.config.as_deref())?;
    let (timeout, tool_timeouts) = timeouts(&args.timeout, file.timeouts)?;
    let target = Target::of(args.url.as_deref(), &args.command);
    let dir = args
        .record
        .clone()
        .unwrap_or_else(|| default_dir(&target, args.seed));
    Ok(Config {
        target,
        seed: args.seed,
        budget: args.budget as usize,
        timeout,
        exit_grace,
        promptly,
        allow_writes: args.allow_writes,
        era: match args.era {
            Era::Auto => EraChoice::Auto,
            Era::Legacy => EraChoice::Legacy,
            Era::Modern => EraChoice::Modern,
        },
        keep_runs: args.record.is_some(),
        dir,
        shrink: !args.no_shrink,
        tool_timeouts,
        policy: gate(args, file.policy)?,
        jobs: args.jobs.map(|n| n as usize),
    })
}

/// `agentpi-test.toml` (the one named, else the one in the current directory, else none).
fn config_file(path: Option<&Path>) -> Result<policy::File, String> {
    let default = Path::new("agentpi-test.toml");
    let path = match path {
        Some(path) => path,
        None if default.is_file() => default,
        None => return Ok(policy::File::default()),
    };
    let name = path.display().to_string();
    let text = std::fs::read_to_string(path).map_err(|e| format!("cannot read `{name}`: {e}"))?;
    policy::parse(&name, &text)
}

/// The `--timeout` flags over the file's [timeouts]: the default and each tool's.
fn timeouts(
    flags: &[String],
    mut tools: BTreeMap<String, Duration>,
) -> Result<(Duration, BTreeMap<String, Duration>), String> {
    let mut default = Duration::from_secs(10);
    for flag in flags {
        let (tool, seconds) = match flag.rsplit_once('=') {
            Some((tool, seconds)) => (Some(tool), seconds),
            None => (None, flag.as_str()),
        };
        let d = seconds
            .trim()
            .parse::<f64>()
            .ok()
            .and_then(policy::duration)
            .ok_or_else(|| {
                format!(
                    "--timeout must be a number of seconds above 0 and at most {}, or TOOL=SECONDS: `{flag}`",
                    policy::MAX_SECONDS
                )
            })?;
        match tool {
            Some(tool) => tools.insert(tool.to_string(), d),
            None => {
                default = d;
                None
            }
        };
    }
    Ok((default, tools))
}

/// The file's policy with `--fail-on`, `--deny` and `--allow` over it.
fn gate(args: &Args, mut policy: Policy) -> Result<Policy, String> {
    if let Some(fail_on) = args.fail_on {
        policy.fail_on = match fail_on {
            FailOn::Must => agentpi_tester::catalogue::Gate::Must,
            FailOn::Should => agentpi_tester::catalogue::Gate::Should,
        };
    }
    for rule in &args.deny {
        policy.deny(rule).map_err(|e| format!("--deny: {e}"))?;
    }
    for rule in &args.allow {
        policy
            .waive(rule, "--allow on the command line")
            .map_err(|e| format!("--allow: {e}"))?;
    }
    Ok(policy)
}

/// `$TMPDIR/agentpi-test/NAME-HASH-seedN`: one folder per server and seed, where HASH (a
/// short FNV-1a of the whole command, the URL and the working directory) keeps apart servers
/// whose short names agree (two `node index.js --stdio` of different packages).
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
        .join(format!("{name}-{:08x}-seed{seed}", server_hash(target)))
}

/// FNV-1a (32 bits) of the server's spawn fields and the working directory: stable across
/// platforms and versions, unlike `std`'s hasher.
fn server_hash(target: &Target) -> u32 {
    let cwd = std::env::current_dir().unwrap_or_default();
    let text = format!(
        "{}\0{}",
        serde_json::Value::Object(target.spawn_fields()),
        cwd.display()
    );
    text.bytes().fold(0x811c_9dc5_u32, |h, b| {
        (h ^ u32::from(b)).wrapping_mul(0x0100_0193)
    })
}

fn replay(
    config: &Config,
    file: &PathBuf,
    progress: agentpi_tester::Progress,
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
        Format::Html => page(outcome),
        Format::Svg => svg(outcome),
    };
    output::finish(&text, status)
}

/// The report as text: each failed rule with its finding and sequence chart (those that
/// fail the test first), each timed-out rule, each passed rule in a line, the rules not
/// exercised grouped by why, the notes, the waivers, and the totals with what decided the
/// exit status.
fn text(o: &Outcome) -> String {
    let mut out = format!(
        "agentpi test: {} ({} era, {}), {}, seed {}\n",
        o.server,
        o.era,
        o.protocol_version.as_deref().unwrap_or("?"),
        output::count_of(o.runs, "run"),
        o.seed
    );
    for r in failed(o) {
        out += &failed_text(r, o);
    }
    for r in o.rules.iter().filter(|r| r.status == Status::Timeout) {
        out += &format!("TIMEOUT {}: {}\n", r.rule, r.why);
    }
    for r in o.rules.iter().filter(|r| r.status == Status::Passed) {
        out += &format!("passed {}: {}\n", r.rule, r.why);
    }
    out += &not_exercised(o);
    for note in &o.notes {
        out += &format!("note: {note}\n");
    }
    for (rule, reason, used) in o.waivers() {
        let state = if used {
            "it failed"
        } else {
            "it did not fail: the waiver can go"
        };
        out += &format!("waived {rule}: {reason} ({state})\n");
    }
    out + &totals(o)
}

/// The failed rules, those that fail the test first.
fn failed(o: &Outcome) -> impl Iterator<Item = &RuleReport> {
    let failed = |gating: bool| {
        o.rules
            .iter()
            .filter(move |r| r.status == Status::Failed && r.gating == gating)
    };
    failed(true).chain(failed(false))
}

/// A failed rule's head: FAILED when it fails the test, else why it does not.
fn failed_head(r: &RuleReport, o: &Outcome) -> String {
    match (&r.waived, r.gating) {
        (_, true) => format!("FAILED {}", r.rule),
        (Some(reason), false) => format!("failed {} (waived: {reason})", r.rule),
        (None, false) => format!(
            "failed {} (a SHOULD: below --fail-on {})",
            r.rule,
            o.policy.fail_on_str()
        ),
    }
}

/// A failed rule with its finding and chart.
fn failed_text(r: &RuleReport, o: &Outcome) -> String {
    let mut out = format!("{}: {}\n", failed_head(r, o), r.why);
    if let Some(path) = &r.trace {
        out += &format!("  trace: {}\n", path.display());
    }
    if let Some(f) = &r.failure {
        out += &failure(f);
    }
    out
}

/// The last lines: counts, time and shrinking's share, and what fails the test.
fn totals(o: &Outcome) -> String {
    let timeouts = match o.count(Status::Timeout) {
        0 => String::new(),
        n => format!("{n} timed out, "),
    };
    let gating: Vec<&str> = o
        .rules
        .iter()
        .filter(|r| r.gating)
        .map(|r| r.rule)
        .collect();
    let verdict = if gating.is_empty() {
        format!(
            "no failure fails the test (--fail-on {})",
            o.policy.fail_on_str()
        )
    } else {
        format!(
            "fails the test (--fail-on {}): {}",
            o.policy.fail_on_str(),
            gating.join(", ")
        )
    };
    format!(
        "agentpi test: {} passed, {} failed, {timeouts}{} not exercised; {:.1} s ({:.1} s shrinking, {}); {verdict}\n",
        o.count(Status::Passed),
        o.count(Status::Failed),
        o.count(Status::NotExercised),
        o.seconds,
        o.shrink_seconds,
        output::count_of(o.shrink_replays, "replay")
    )
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

/// `--format html`: the summary, the table of every rule, each failed rule's shrunk trace as
/// a chart with its finding marked.
fn page(o: &Outcome) -> String {
    let text = text(o);
    let summary: Vec<String> = text
        .lines()
        .take(1)
        .chain(text.lines().last())
        .map(str::to_string)
        .collect();
    let rows: Vec<RuleRow> = o
        .rules
        .iter()
        .map(|r| RuleRow {
            rule: r.rule.to_string(),
            level: agentpi_monitor::rules::find(r.rule)
                .map_or("", |k| k.level)
                .to_string(),
            status: status_word(r.status).to_string(),
            why: r.trace.as_ref().map_or(r.why.clone(), |t| {
                format!("{} (trace: {})", r.why, t.display())
            }),
        })
        .collect();
    let findings: Vec<_> = o
        .rules
        .iter()
        .filter_map(|r| r.failure.as_ref())
        .map(|f| {
            let chart = pictures::finding_chart(&f.events, &f.violation, &|_| true);
            pictures::finding(&f.violation, None, chart)
        })
        .collect();
    let title = format!("agentpi test {}", o.server);
    agentpi_report_html::pages::trace(&title, &summary, &rows, &findings)
}

/// `--format svg`: each failed rule's shrunk trace as a chart, the finding's row marked, in
/// the text's order (those that fail the test first), each titled with its head and finding;
/// with no failed rule, the picture says there is no trace to draw.
fn svg(o: &Outcome) -> String {
    let charts: Vec<(String, agentpi_report_html::Chart)> = failed(o)
        .filter_map(|r| r.failure.as_ref().map(|f| (r, f)))
        .map(|(r, f)| {
            let chart = pictures::finding_chart(&f.events, &f.violation, &|_| true);
            let finding = pictures::finding(&f.violation, None, chart);
            let title = format!("{}: {}", failed_head(r, o), finding.head);
            (title, finding.chart.unwrap_or_default())
        })
        .collect();
    let refs: Vec<(String, &agentpi_report_html::Chart)> =
        charts.iter().map(|(t, c)| (t.clone(), c)).collect();
    agentpi_report_html::svg::document(&refs)
}

fn status_word(status: Status) -> &'static str {
    match status {
        Status::Passed => "passed",
        Status::Failed => "failed",
        Status::NotExercised => "not exercised",
        Status::Timeout => "timeout",
    }
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

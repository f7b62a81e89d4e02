//! `agentpi check FILE`: runs the checks of a model and prints verdicts with counterexamples.

use super::relation::{self, RelationReport};
use crate::model::{self, Model};
use crate::output::{self, count_of, errln};
use crate::{msc, progress, stuck};
use agentpi_check::{CheckResult, End, Limit, Options, Outcome, SystemReport};
use agentpi_check_report::json::explored_word;
use agentpi_ir::core::Property;
use serde_json::{Value, json};
use std::time::Instant;

#[derive(clap::Args)]
pub struct Args {
    /// A model file, or the name of a bundled model (`agentpi models` lists them).
    pub file: String,
    /// Run only this check: its number (1 is the first `check` of the file) or its text.
    #[arg(long)]
    pub property: Option<String>,
    #[arg(long, value_enum, default_value = "text")]
    pub format: Format,
    /// Stop exploring after this many states (verdicts left open are `unknown`, exit 3).
    #[arg(long)]
    pub max_states: Option<usize>,
    /// Stop exploring when the state store holds about this many MiB (exit 3). Without it, a
    /// 32nd of the address-space limit (`ulimit -v`) if one is set (docs/limits.md).
    #[arg(long)]
    pub max_memory: Option<u64>,
    /// Threads in all, the one merging their results included (0: one per core; at most
    /// 1024). Output is the same for every thread count; when the system refuses that many,
    /// fewer are used, with a warning.
    #[arg(long, default_value_t = 0, value_parser = clap::value_parser!(u16).range(0..=1024))]
    pub threads: u16,
    /// Partial-order reduction: explore fewer interleavings of independent components. Keeps
    /// the verdicts of deadlock freedom, assertions, `never` and `reachable` (not their
    /// counterexamples' shortness, nor the counts); off for other properties.
    #[arg(long)]
    pub por: bool,
    /// Symmetry reduction: store one state for all states that differ only in which of
    /// several identical instances (`Client | Client`) holds what. Keeps the same verdicts
    /// as --por; off for other properties and for models that make fresh names (`new`).
    #[arg(long)]
    pub symmetry: bool,
    /// Set a constant of the model: `-D N=6` (repeatable).
    #[arg(short = 'D', value_name = "NAME=VALUE")]
    pub define: Vec<String>,
    /// Show the state along each counterexample or witness: after each step, where each
    /// instance's components wait (with their values) and what each buffered channel holds.
    #[arg(long)]
    pub states: bool,
    /// The search order: `bfs` (shortest counterexamples, the default) or `dfs` (depth first
    /// on one thread: finds deep violations after a small part of a large state space; its
    /// counterexamples may not be the shortest; safety checks only).
    #[arg(long, value_enum, default_value = "bfs")]
    pub search: Search,
    /// Explore on a cluster of processes (docs/distributed.md): a host file with one
    /// `host:port` a line, a line per process. Every process runs the same command with its
    /// own --process; only process 0 prints the report. Safety checks only (liveness is
    /// refused); --max-memory bounds each process.
    #[arg(long, value_name = "HOSTFILE")]
    pub cluster: Option<String>,
    /// This process's line in the --cluster host file (0 is the first).
    #[arg(long, requires = "cluster", default_value_t = 0)]
    pub process: usize,
    /// Workers (threads) in each process of the --cluster.
    #[arg(long, requires = "cluster", default_value_t = 1, value_parser = clap::value_parser!(u16).range(1..=1024))]
    pub workers: u16,
}

#[derive(Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Search {
    Bfs,
    Dfs,
}

/// The exit statuses, for `--help`.
pub const EXIT_STATUS: &str = "Exit status: 0 every property holds (or the model has no check), \
    1 a property is violated, 2 an input error (reported as FILE:LINE:COL; warnings never \
    count) or an output that could not be written, 3 a limit (--max-states, --max-memory) left \
    a verdict unknown.";

#[derive(Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    Text,
    Json,
    /// One self-contained HTML page: every check, its statistics, each trace as a chart.
    Html,
    /// Each counterexample (or witness) as a sequence chart, in one SVG.
    Svg,
}

pub fn run(args: Args) -> u8 {
    let model = match model::load_defined(&args.file, &args.define, "nothing was checked") {
        Ok(m) => m,
        Err(status) => return status,
    };
    if model.program.checks.is_empty() && args.property.is_none() {
        return nothing_to_check(&args);
    }
    let selected = match select(&model, args.property.as_deref()) {
        Ok(s) => s,
        Err(message) => {
            errln!("error: {message}");
            return 2;
        }
    };
    if args.search == Search::Dfs
        && let Some(message) = not_depth_first(&model, &selected)
    {
        errln!("error: {message}");
        return 2;
    }
    let (threads, fewer) = crate::limits::threads_within(usize::from(args.threads));
    if let Some(note) = fewer {
        errln!("warning: {note}");
    }
    let options = Options {
        max_states: args.max_states,
        max_memory: crate::limits::memory_budget(args.max_memory),
        threads,
        keep_renamings: false,
        drop_edges: false,
        por: args.por,
        symmetry: args.symmetry,
        depth_first: args.search == Search::Dfs,
        cancel: None,
    };
    let limits = (args.max_states, args.max_memory);
    let reports = match &args.cluster {
        Some(hosts) => run_cluster(&args, hosts, &model, selected),
        None => run_all(&model, &selected, &options, args.format, limits).map(Some),
    };
    let reports = match reports {
        Ok(Some(reports)) => reports,
        // Another process of the cluster than the first: process 0 prints the report.
        Ok(None) => return 0,
        Err(why) => {
            errln!("error: {why}");
            return 2;
        }
    };
    let report = match args.format {
        Format::Text => text_report(&model, &reports, args.states),
        Format::Json => {
            let json = json_report(&model, &reports, args.states);
            serde_json::to_string_pretty(&json).expect("json") + "\n"
        }
        Format::Html => {
            // One chart (or none) for each check of the JSON, relations included.
            let charts = reports
                .iter()
                .flat_map(|entry| match entry {
                    Entry::System(r) => r.results.iter().map(|c| result_chart(&model, c)).collect(),
                    Entry::Relation(_) => vec![None],
                })
                .collect::<Vec<_>>();
            let mut json = json_report(&model, &reports, false);
            json["systems"] = statistics(&reports);
            agentpi_report_html::pages::check(&args.file, &json, &charts)
        }
        Format::Svg => svg_report(&model, &reports),
    };
    output::finish(&report, exit_status(&reports))
}

/// The report of a group of checks of one system, or of one relation between systems.
enum Entry {
    System(SystemReport),
    Relation(RelationReport),
}

impl Entry {
    /// The verdict words of the entry's checks.
    fn verdicts(&self) -> Vec<&'static str> {
        match self {
            Entry::System(r) => r.results.iter().map(|c| verdict_word(&c.outcome)).collect(),
            Entry::Relation(r) => vec![r.verdict()],
        }
    }
}

/// Runs every selected check: each system's properties in one exploration, then each of
/// its relations on the state spaces it names. An error stops the run (exit 2).
fn run_all(
    model: &Model,
    groups: &[(usize, Vec<usize>)],
    options: &Options,
    format: Format,
    limits: (Option<usize>, Option<u64>),
) -> Result<Vec<Entry>, String> {
    let is_relation =
        |c: &usize| matches!(model.program.checks[*c].property, Property::Relation(_));
    let mut entries = Vec::new();
    for (system, checks) in groups {
        let (relations, properties): (Vec<usize>, Vec<usize>) =
            checks.iter().partition(|c| is_relation(c));
        if !properties.is_empty() {
            let group = [(*system, properties)];
            let reports = run_checks(model, &group, options, format == Format::Text);
            if let Some(why) = reports.iter().find_map(no_threads) {
                return Err(format!(
                    "cannot explore: {why}; not even one worker thread could be started (is the address space limited, `ulimit -v`?)"
                ));
            }
            entries.extend(reports.into_iter().map(Entry::System));
        }
        for c in relations {
            entries.push(Entry::Relation(relation::decide(model, c, limits)?));
        }
    }
    Ok(entries)
}

/// Runs the checks on a cluster (`--cluster`): the reports on process 0, `None` on the
/// others. Refused: what the distributed search does not do yet.
fn run_cluster(
    args: &Args,
    hosts: &str,
    model: &Model,
    groups: Vec<(usize, Vec<usize>)>,
) -> Result<Option<Vec<Entry>>, String> {
    let unsupported = [
        (args.por, "--por"),
        (args.symmetry, "--symmetry"),
        (args.search == Search::Dfs, "--search dfs"),
    ];
    if let Some((_, flag)) = unsupported.iter().find(|(on, _)| *on) {
        return Err(format!("--cluster does not take {flag} (yet)"));
    }
    if let Some(why) = agentpi_cluster::refusal(&model.program, &groups) {
        return Err(why);
    }
    let cluster = agentpi_cluster::Cluster {
        hosts: Some(agentpi_cluster::read_hosts(hosts)?),
        process: args.process,
        workers: usize::from(args.workers),
        max_memory: args.max_memory.map(|mib| mib.saturating_mul(1024 * 1024)),
        max_states: args.max_states,
    };
    let reports = agentpi_cluster::check(model.program.clone(), groups, &cluster)?;
    Ok(reports.map(|r| r.into_iter().map(Entry::System).collect()))
}

/// Why `--search dfs` cannot run the selected checks: the first that is not decided while
/// exploring (liveness, `ltl`; relations explore their systems their own way and are fine).
fn not_depth_first(model: &Model, groups: &[(usize, Vec<usize>)]) -> Option<String> {
    let program = &model.program;
    let checks = groups
        .iter()
        .flat_map(|(_, c)| c.iter().map(|&c| &program.checks[c]));
    let live = checks.into_iter().find(|c| {
        !matches!(
            c.property,
            Property::DeadlockFree
                | Property::Never(_)
                | Property::Reachable(_)
                | Property::Relation(_)
        )
    })?;
    let system = &program.systems[live.system].name;
    // State predicates are read as breadth first expands each state, which depth first
    // does not do.
    let what = match live.property {
        Property::State(..) => "a check over states (`at`, `len`, `contains`)",
        _ => "a liveness check",
    };
    Some(format!(
        "`--search dfs` decides safety checks only (deadlock free, never, reachable, assertions), and `{system}: {}` is {what}; run it breadth first (without `--search dfs`), or pick the safety checks with `--property`",
        live.text
    ))
}

/// A model without a `check` (a library such as `mcp_basic`): said plainly, and not an error.
fn nothing_to_check(args: &Args) -> u8 {
    let report = match args.format {
        Format::Text => format!(
            "nothing to check: {} has no `check` (add one, as `check System: deadlock free`)\n",
            args.file
        ),
        Format::Json => "{\n  \"checks\": []\n}\n".to_string(),
        Format::Html => agentpi_report_html::pages::check(&args.file, &json!({"checks": []}), &[]),
        Format::Svg => agentpi_report_html::svg::document(&[]),
    };
    output::finish(&report, 0)
}

/// The checks to run, grouped by system in the order systems first appear among them.
fn select(model: &Model, property: Option<&str>) -> Result<Vec<(usize, Vec<usize>)>, String> {
    let checks = &model.program.checks;
    let chosen: Vec<usize> = match property {
        None => (0..checks.len()).collect(),
        Some(p) => match p.parse::<usize>() {
            Ok(n) if (1..=checks.len()).contains(&n) => vec![n - 1],
            Ok(n) => {
                return Err(format!(
                    "--property {n}: the model has {} checks",
                    checks.len()
                ));
            }
            Err(_) => (0..checks.len())
                .filter(|&i| matches_text(model, i, p))
                .collect(),
        },
    };
    if chosen.is_empty() {
        return Err(match property {
            Some(p) => format!("no check matches `{p}`"),
            None => "the model has no `check` to run".to_string(),
        });
    }
    let mut groups: Vec<(usize, Vec<usize>)> = Vec::new();
    for c in chosen {
        let system = checks[c].system;
        match groups.iter_mut().find(|(s, _)| *s == system) {
            Some((_, list)) => list.push(c),
            None => groups.push((system, vec![c])),
        }
    }
    Ok(groups)
}

/// Whether `wanted` is the check's text, with or without its system, spaced any way.
fn matches_text(model: &Model, check: usize, wanted: &str) -> bool {
    let c = &model.program.checks[check];
    let system = &model.program.systems[c.system].name;
    let wanted = squash(wanted);
    let texts = [c.text.as_str(), forall_text(&c.text)];
    texts
        .iter()
        .any(|text| squash(text) == wanted || squash(&format!("{system}: {text}")) == wanted)
}

/// The text of a `forall` as written, for one of its instances (`forall i in T: P [i = 2]`):
/// `--property` with that text runs every instance.
fn forall_text(text: &str) -> &str {
    let forall = text
        .strip_prefix("fair ")
        .unwrap_or(text)
        .starts_with("forall ");
    match text.rsplit_once(" [").filter(|_| forall) {
        Some((written, _)) => written,
        None => text,
    }
}

/// `text` with spacing that does not separate two words left out: `never accepted(2,1)` and
/// `never  accepted( 2, 1 )` both become `never accepted(2,1)`.
fn squash(text: &str) -> String {
    let mut out = String::new();
    let mut space = false;
    let word = |c: char| c.is_alphanumeric() || c == '_';
    for c in text.trim().chars() {
        if c.is_whitespace() {
            space = true;
            continue;
        }
        if space && out.chars().last().is_some_and(word) && word(c) {
            out.push(' ');
        }
        space = false;
        out.push(c);
    }
    out
}

fn run_checks(
    model: &Model,
    groups: &[(usize, Vec<usize>)],
    options: &Options,
    show_progress: bool,
) -> Vec<SystemReport> {
    groups
        .iter()
        .map(|(system, checks)| {
            let name = &model.program.systems[*system].name;
            let started = Instant::now();
            let counters = agentpi_check::Progress::default();
            let report = progress::while_running(show_progress, name, &counters, || {
                agentpi_check::check_system(&model.program, *system, checks, options, &counters)
            });
            let secs = started.elapsed().as_secs_f64();
            if let Some(note) = &report.threads_note {
                errln!("{name}: warning: {note}");
            }
            if report.por_off && report.depth_first {
                errln!("{name}: partial-order and symmetry reduction are off with --search dfs");
            } else if report.por_off {
                errln!("{name}: partial-order and symmetry reduction are off: a property they do not keep (liveness, ltl)");
            } else if report.por_off_states {
                errln!("{name}: partial-order reduction is off: a property reads states (`at`, `len`, `contains`), which it does not keep");
            }
            if !report.por_off && options.symmetry {
                match report.symmetric_classes {
                    0 => errln!("{name}: symmetry reduction found no interchangeable instances (or the model makes fresh names)"),
                    n => errln!("{name}: symmetry reduction over {n} {} of interchangeable instances", if n == 1 { "class" } else { "classes" }),
                }
            }
            if !report.por_off && !report.por_off_states && options.por {
                errln!("{name}: {} of {} states expanded by a stubborn set (partial-order reduction)", report.reduced, report.expanded);
            }
            let per_state = report.bytes as f64 / report.states.max(1) as f64;
            let fast = 100.0 * report.fast as f64 / report.expanded.max(1) as f64;
            errln!(
                "{name}: {}, depth {}, in {secs:.2} s, {:.1} MiB kept ({per_state:.0} bytes a state), {fast:.0}% expanded by the fast path",
                counts(report.states, report.transitions),
                report.depth,
                report.bytes as f64 / (1024.0 * 1024.0),
            );
            report
        })
        .collect()
}

/// Why exploring could not start a single worker thread, if that stopped it.
fn no_threads(report: &SystemReport) -> Option<&str> {
    match &report.limit {
        Some(Limit::Threads(why)) => Some(why),
        _ => None,
    }
}

fn exit_status(reports: &[Entry]) -> u8 {
    let verdicts: Vec<&str> = reports.iter().flat_map(Entry::verdicts).collect();
    if verdicts.contains(&"violated") {
        1
    } else if verdicts.contains(&"unknown") {
        3
    } else {
        0
    }
}

pub(crate) fn verdict_word(outcome: &Outcome) -> &'static str {
    agentpi_check_report::json::verdict_word(outcome)
}

fn text_report(model: &Model, reports: &[Entry], states: bool) -> String {
    let mut out = String::new();
    for entry in reports {
        match entry {
            Entry::System(report) => {
                for result in &report.results {
                    out.push_str(&text_result(model, report, result, states));
                }
            }
            Entry::Relation(report) => out.push_str(&relation::text(report)),
        }
    }
    let all: Vec<&str> = reports.iter().flat_map(Entry::verdicts).collect();
    let count = |v: &str| all.iter().filter(|w| **w == v).count();
    let holding = count("holds");
    out.push_str(&format!(
        "{}: {holding} {}, {} violated, {} unknown\n",
        count_of(all.len(), "check"),
        if holding == 1 { "holds" } else { "hold" },
        count("violated"),
        count("unknown")
    ));
    out
}

pub(crate) fn text_result(
    model: &Model,
    report: &SystemReport,
    result: &CheckResult,
    states: bool,
) -> String {
    let mut out = format!(
        "{}: {} ... {} ({}{})\n",
        report.system,
        result.property,
        verdict_word(&result.outcome),
        counts(report.states, report.transitions),
        match report.end {
            End::Decided => "; stopped once every check was decided",
            _ => "",
        }
    );
    if let Outcome::Unknown(limit) = &result.outcome {
        out.push_str(&format!(
            "  exploration stopped by {limit} before this was decided\n"
        ));
    }
    if let Some(fault) = &result.fault {
        out.push_str(&format!(
            "  {}: {}\n",
            model.sources.position(fault.span),
            fault.kind
        ));
    }
    if let Some(trace) = &result.trace {
        let states = states.then_some(report.system.as_str());
        out.push_str(&trace_text(
            model,
            result,
            trace,
            (states, report.depth_first),
        ));
    }
    out
}

/// "1 state, 2 transitions".
fn counts(states: usize, transitions: usize) -> String {
    format!(
        "{}, {}",
        count_of(states, "state"),
        count_of(transitions, "transition")
    )
}

/// The trace of a result; with `states` (the system's name), the state after each step.
fn trace_text(
    model: &Model,
    result: &CheckResult,
    trace: &agentpi_check::Trace,
    (states, depth_first): (Option<&str>, bool),
) -> String {
    let sem = agentpi_semantics::Semantics::new(&model.program);
    let names = states.map(|s| crate::states::instance_names(&sem, model, s));
    let state = |i: usize| match (&names, trace.states.get(i)) {
        (Some(names), Some(s)) => crate::states::describe(&sem, model, names, s, "         "),
        _ => String::new(),
    };
    let kind = match (&result.outcome, trace.loop_start, result.stuck) {
        (Outcome::Holds, _, _) => "witness",
        (_, Some(_), _) => "counterexample (a loop)",
        (_, None, true) => "counterexample (ends in a deadlock)",
        _ => "counterexample",
    };
    let order = match depth_first {
        true => " (depth first: may not be the shortest)",
        false => "",
    };
    let mut out = format!(
        "  {kind}{order}, {}:\n",
        count_of(trace.steps.len(), "step")
    );
    let width = trace
        .steps
        .iter()
        .map(|s| s.label.chars().count())
        .max()
        .unwrap_or(0);
    if names.is_some() {
        out.push_str(&format!("    start:\n{}", state(0)));
    }
    for (i, step) in trace.steps.iter().enumerate() {
        if trace.loop_start == Some(i) {
            out.push_str("    -- the loop starts here and repeats forever --\n");
        }
        let who = step.actors.join(" -> ");
        out.push_str(&format!("  {:>3}. {:<width$}   {who}\n", i + 1, step.label));
        out.push_str(&state(i + 1));
    }
    out.push_str(&stuck::text(model, &result.blocked));
    if !trace.steps.is_empty() || !result.blocked.is_empty() {
        out.push_str("  message sequence chart:\n");
        let notes = stuck::chart_notes(&result.blocked);
        for line in msc::render_with_notes(trace, &notes).lines() {
            out.push_str(&format!("  {line}\n"));
        }
    }
    out
}

/// With `states`, each check with a trace also has `start_state`, the state before the first
/// step, and each step its `state` after it.
fn json_report(model: &Model, reports: &[Entry], states: bool) -> Value {
    let sem = agentpi_semantics::Semantics::new(&model.program);
    let checks: Vec<Value> = reports
        .iter()
        .flat_map(|entry| match entry {
            Entry::System(report) => report
                .results
                .iter()
                .map(|result| with_states(&sem, model, report, result, states))
                .collect(),
            Entry::Relation(report) => vec![relation::json(report)],
        })
        .collect();
    json!({ "checks": checks })
}

/// A check's JSON; with `states`, its trace's `start_state` and each step's `state`.
fn with_states(
    sem: &agentpi_semantics::Semantics<'_>,
    model: &Model,
    report: &SystemReport,
    result: &CheckResult,
    states: bool,
) -> Value {
    let mut value = json_result(model, report, result);
    let (true, Some(trace)) = (states, &result.trace) else {
        return value;
    };
    let names = crate::states::instance_names(sem, model, &report.system);
    let shown = |i: usize| match trace.states.get(i) {
        Some(s) => crate::states::json(sem, model, &names, s),
        None => Value::Null,
    };
    value["start_state"] = shown(0);
    let steps = value["trace"].as_array_mut().into_iter().flatten();
    for (i, step) in steps.enumerate() {
        step["state"] = shown(i + 1);
    }
    value
}

pub(crate) fn json_result(model: &Model, report: &SystemReport, result: &CheckResult) -> Value {
    agentpi_check_report::json::result(&model.sources, report, result)
}

/// The statistics of each exploration for the HTML page (not in the JSON, whose fields stay
/// as they are): per system explored, its checks, size, depth, how far and how it was
/// explored and the bytes kept; per state space of a relation, its size. No time: the page
/// is the same whatever the machine.
fn statistics(reports: &[Entry]) -> Value {
    let rows: Vec<Value> = reports
        .iter()
        .flat_map(|entry| match entry {
            Entry::System(r) => vec![json!({
                "system": r.system,
                "checks": r.results.len(),
                "states": r.states,
                "transitions": r.transitions,
                "depth": r.depth,
                "explored": explored_word(&r.end),
                "search": if r.depth_first { "dfs" } else { "bfs" },
                "bytes": r.bytes,
            })],
            Entry::Relation(r) => r
                .sizes
                .iter()
                .map(|(system, states, transitions)| {
                    json!({
                        "system": system,
                        "checks": 1,
                        "states": states,
                        "transitions": transitions,
                        "explored": if r.limit.is_some() { "until a limit" } else { "all" },
                    })
                })
                .collect(),
        })
        .collect();
    Value::Array(rows)
}

/// Every result of a system's properties with its report, in report order (relations have
/// no chart).
fn results(reports: &[Entry]) -> impl Iterator<Item = (&SystemReport, &CheckResult)> {
    reports
        .iter()
        .filter_map(|e| match e {
            Entry::System(r) => Some(r),
            Entry::Relation(_) => None,
        })
        .flat_map(|r| r.results.iter().map(move |c| (r, c)))
}

/// The chart of a result's trace, drawn from the data of its text chart, with the deadlock or
/// the fault it ends in.
fn result_chart(model: &Model, result: &CheckResult) -> Option<agentpi_report_html::Chart> {
    agentpi_check_report::chart::of_result(&model.sources, result)
}

/// `--format svg`: each trace's chart, titled with its check and verdict.
fn svg_report(model: &Model, reports: &[Entry]) -> String {
    let charts: Vec<(String, agentpi_report_html::Chart)> = results(reports)
        .filter_map(|(report, result)| {
            let title = format!(
                "{}: {} ... {}",
                report.system,
                result.property,
                verdict_word(&result.outcome)
            );
            result_chart(model, result).map(|c| (title, c))
        })
        .collect();
    let refs: Vec<(String, &agentpi_report_html::Chart)> =
        charts.iter().map(|(t, c)| (t.clone(), c)).collect();
    agentpi_report_html::svg::document(&refs)
}

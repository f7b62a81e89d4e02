//! `agentpi run FLOW.pi --server NAME=CMD...`: a workflow whose tool calls are declared
//! `extern`, checked with its tools bound to what real servers list, then run against them by
//! stepping the checked model (`agentpi_run`). This module gathers the pieces in order and
//! stops at the first that fails; `run_text.rs` renders what happened.

use super::run_text;
use crate::model::{self, Model};
use crate::output::{self, errln};
use agentpi_check::{Options, Outcome, SystemReport};
use agentpi_mcp::client::Listing;
use agentpi_monitor::Report;
use agentpi_run::bind::{self, Listed};
use agentpi_run::{Calls, Config, End, Interp, Path, Peer, Tool, verify};
use agentpi_semantics::Semantics;
use std::path::PathBuf;
use std::time::{Duration, Instant};

#[derive(clap::Args)]
pub struct Args {
    /// The workflow: a model whose tool calls are channels declared `extern`.
    pub file: String,
    /// The workflow's system (may be left out when the file declares one).
    #[arg(long)]
    pub system: Option<String>,
    /// A server: `NAME=COMMAND ARGS...` (started, spoken to on stdio; split at spaces) or
    /// `NAME=URL` (Streamable HTTP). Repeatable; over the configuration file.
    #[arg(long = "server", value_name = "NAME=CMD|URL")]
    pub servers: Vec<String>,
    /// The tool behind an extern channel: `CHAN=SERVER.TOOL`, optionally followed by a space
    /// and the call's arguments as JSON (with templates, see docs/run.md). Repeatable; an
    /// extern not bound calls the one tool of its own name.
    #[arg(long = "bind", value_name = "CHAN=SERVER.TOOL [JSON]")]
    pub binds: Vec<String>,
    /// A TOML file of `[servers]` and `[bind]` (docs/run.md).
    #[arg(long)]
    pub config: Option<PathBuf>,
    /// The seed of the scheduler's choices: the same seed and the same outcomes of the calls
    /// give the same path.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Record each server's session (the trace format of `agentpi monitor`); with several
    /// servers, FILE gets `.NAME` before its extension, one file per server.
    #[arg(long, value_name = "FILE")]
    pub record: Option<PathBuf>,
    /// Run without checking first. Skipped: deadlock freedom, every call answered, no
    /// overlapping writes and the file's own checks; the run may then get stuck.
    #[arg(long)]
    pub no_verify: bool,
    /// Check, and stop before running.
    #[arg(long, conflicts_with = "no_verify")]
    pub verify_only: bool,
    /// The most steps the run takes.
    #[arg(long, default_value_t = 10_000)]
    pub max_steps: usize,
    /// Seconds each server gets to start, shake hands and list its tools.
    #[arg(long, default_value_t = 30)]
    pub timeout: u64,
    #[arg(long, value_enum, default_value = "text")]
    pub format: super::Shown,
    /// Set a constant of the model: `-D N=6` (repeatable).
    #[arg(short = 'D', value_name = "NAME=VALUE")]
    pub define: Vec<String>,
}

/// The exit statuses, for `--help`.
pub const EXIT_STATUS: &str = "Exit status: 0 the workflow reached a valid end (every \
    component terminated or rests at a valid end) and no server broke the protocol, 1 a \
    check of the workflow is violated: nothing was run (the counterexample is printed), 2 an \
    input error (the model, the configuration, a binding) or a server that could not be \
    started or listed, 3 the run did not reach a valid end (a deadlock, a failing step, \
    --max-steps; only possible with --no-verify, or past what the check could see), 4 a \
    valid end, but the monitor found the traffic breaking the protocol.";

/// Everything a run has gathered so far.
pub(super) struct Prepared {
    pub(super) model: Model,
    pub(super) system: usize,
    pub(super) peers: Vec<Peer>,
    pub(super) listings: Vec<Listing>,
    pub(super) tools: Vec<Tool>,
}

pub fn run(args: Args) -> u8 {
    let prepared = match prepare(&args) {
        Ok(p) => p,
        Err(status) => return status,
    };
    let verified = match args.no_verify {
        true => None,
        false => Some(verify(&prepared, &args)),
    };
    let refused = verified.as_ref().is_some_and(violated);
    if refused || args.verify_only {
        let reports = finish(prepared.peers);
        let mut text = run_text::refused(
            &prepared.model,
            verified.as_ref(),
            &reports,
            args.format.data(),
        );
        if args.format == super::Shown::Html {
            // Nothing ran: the page holds the checks and the servers, and no chart.
            let report = serde_json::from_str(&text).unwrap_or_default();
            text = agentpi_report_html::pages::run(&report, None);
        }
        return output::finish(&text, u8::from(refused));
    }
    execute(prepared, verified, &args)
}

/// The model, the servers with their tools, and the bindings.
fn prepare(args: &Args) -> Result<Prepared, u8> {
    let defines = model::parse_defines(&args.define).map_err(|e| {
        output::stderr(&e);
        2
    })?;
    let first = load(&args.file, &defines, None)?;
    let system = model::system(
        &first.program,
        args.system.as_deref().or(root_system(&first).as_deref()),
    )?;
    let config = configuration(args).map_err(|e| input_error(&e))?;
    let start = Instant::now();
    let mut peers = start_servers(&config, args, start)?;
    let listings = list_all(&mut peers, Duration::from_secs(args.timeout));
    let listings = listings.map_err(|e| {
        finish(std::mem::take(&mut peers));
        input_error(&e)
    })?;
    let bound = resolve(&first, &config, &peers, &listings);
    let (_, writers) = bound.map_err(|e| {
        finish(std::mem::take(&mut peers));
        input_error(&e)
    })?;
    let name = first.program.systems[system].name.clone();
    let checks = verify::checks(&first.program, &name, &writers);
    let model = load(&args.file, &defines, Some(&checks)).inspect_err(|_| {
        finish(std::mem::take(&mut peers));
    })?;
    // The second load has the run's checks besides; the externs and tools are the same.
    let (tools, _) = resolve(&model, &config, &peers, &listings).map_err(|e| input_error(&e))?;
    Ok(Prepared {
        model,
        system,
        peers,
        listings,
        tools,
    })
}

fn load(file: &str, defines: &[(String, String)], checks: Option<&str>) -> Result<Model, u8> {
    let extra = checks.map(|text| (verify::SOURCE_NAME, text));
    model::load_with_checks(file, defines, extra).map_err(|report| {
        output::stderr(&format!("{}; nothing was run\n", report.trim_end()));
        2
    })
}

/// The one system the root file declares, when it declares one.
fn root_system(model: &Model) -> Option<String> {
    let root = agentpi_diagnostics::FileId(0);
    let mut own = model.program.systems.iter().filter(|s| s.span.file == root);
    match (own.next(), own.next()) {
        (Some(only), None) => Some(only.name.clone()),
        _ => None,
    }
}

fn input_error(message: &str) -> u8 {
    errln!("error: {message}");
    errln!("nothing was run");
    2
}

/// The configuration file, then the flags over it.
fn configuration(args: &Args) -> Result<Config, String> {
    let mut config = match &args.config {
        Some(path) => {
            let text = std::fs::read_to_string(path)
                .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
            Config::from_toml(&text, &path.display().to_string())?
        }
        None => Config::default(),
    };
    for flag in &args.servers {
        config.server_flag(flag)?;
    }
    for flag in &args.binds {
        config.bind_flag(flag)?;
    }
    Ok(config)
}

fn start_servers(config: &Config, args: &Args, start: Instant) -> Result<Vec<Peer>, u8> {
    let mut peers = Vec::new();
    let several = config.servers.len() > 1;
    // An HTTP exchange lasts as long as the longest call may (deadlines are the model's).
    let exchange = Duration::from_secs(24 * 3600);
    for server in &config.servers {
        let record = args
            .record
            .as_ref()
            .map(|r| record_path(r, &server.name, several));
        match Peer::start(
            &server.name,
            &server.target,
            start,
            record.as_deref(),
            exchange,
        ) {
            Ok(peer) => peers.push(peer),
            Err(e) => {
                finish(peers);
                return Err(input_error(&e));
            }
        }
    }
    Ok(peers)
}

/// `run.jsonl` for one server; `run.NAME.jsonl` for each of several.
fn record_path(base: &std::path::Path, server: &str, several: bool) -> PathBuf {
    if !several {
        return base.to_path_buf();
    }
    let stem = base
        .file_stem()
        .map(|s| s.to_string_lossy().to_string())
        .unwrap_or_default();
    let name = match base.extension() {
        Some(ext) => format!("{stem}.{server}.{}", ext.to_string_lossy()),
        None => format!("{stem}.{server}"),
    };
    base.with_file_name(name)
}

fn list_all(peers: &mut [Peer], timeout: Duration) -> Result<Vec<Listing>, String> {
    peers.iter_mut().map(|p| p.list(timeout)).collect()
}

fn resolve(
    model: &Model,
    config: &Config,
    peers: &[Peer],
    listings: &[Listing],
) -> Result<(Vec<Tool>, Vec<verify::Writer>), String> {
    let listed: Vec<Listed> = peers
        .iter()
        .zip(listings)
        .map(|(p, l)| Listed {
            server: &p.name,
            tools: &l.tools,
        })
        .collect();
    bind::resolve(&model.program, config, &listed).map_err(|problems| problems.join("\nerror: "))
}

/// Ends every server's session; their monitor reports, by server.
fn finish(peers: Vec<Peer>) -> Vec<(String, Report)> {
    peers
        .into_iter()
        .map(|p| {
            let name = p.name.clone();
            (name, p.finish(Duration::from_secs(2)))
        })
        .collect()
}

/// The workflow's checks and the run's, on the system with the tools bound.
fn verify(prepared: &Prepared, args: &Args) -> SystemReport {
    let program = &prepared.model.program;
    let system = prepared.system;
    let checks: Vec<usize> = (0..program.checks.len())
        .filter(|&c| program.checks[c].system == system)
        .collect();
    let options = Options {
        max_states: None,
        max_memory: None,
        threads: 0,
        keep_renamings: false,
        drop_edges: false,
        por: false,
        symmetry: false,
        depth_first: false,
        cancel: None,
    };
    let counters = agentpi_check::Progress::default();
    let name = &program.systems[system].name;
    let show = args.format == super::Shown::Text;
    crate::progress::while_running(show, name, &counters, || {
        agentpi_check::check_system(program, system, &checks, &options, &counters)
    })
}

fn violated(report: &SystemReport) -> bool {
    report.results.iter().any(|r| r.outcome != Outcome::Holds)
}

/// Runs the workflow, ends the sessions, and reports.
fn execute(prepared: Prepared, verified: Option<SystemReport>, args: &Args) -> u8 {
    let Prepared {
        model,
        system,
        peers,
        listings,
        tools,
    } = prepared;
    let sem = Semantics::new(&model.program);
    let mut calls = Calls::new(peers);
    let path = match Interp::new(&sem, system, &tools, args.seed) {
        Ok(interp) => interp.run(&mut calls, args.max_steps),
        Err(fault) => Path {
            steps: Vec::new(),
            end: End::Fault(fault),
        },
    };
    if path.end != End::Valid {
        calls.abandon();
    }
    let Calls { peers, calls } = calls;
    let reports = finish(peers);
    for (name, report) in &reports {
        for v in &report.violations {
            errln!(
                "agentpi run: server `{name}`: {} {} at message {} ({}): {}",
                v.rule,
                v.level,
                v.index,
                v.dir.as_str(),
                v.message
            );
        }
    }
    let status = status(&path.end, &reports);
    let done = run_text::Done {
        model: &model,
        system,
        seed: args.seed,
        verified: verified.as_ref(),
        path: &path,
        calls: &calls,
        listings: &listings,
        reports: &reports,
        status,
    };
    output::finish(&run_text::render(&done, args.format), status)
}

fn status(end: &End, reports: &[(String, Report)]) -> u8 {
    match end {
        End::Valid if reports.iter().any(|(_, r)| !r.violations.is_empty()) => 4,
        End::Valid => 0,
        _ => 3,
    }
}

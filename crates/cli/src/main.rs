//! The `agentpi` binary: parses arguments and dispatches to one module per command.
//!
//! Every command module exposes `Args` (its clap arguments), `run(Args) -> u8`, the process
//! exit status, and `EXIT_STATUS`, what each status means (shown by `--help`). Only this crate
//! prints, and only through `output`, which never panics on a failed write.

#![deny(clippy::print_stdout, clippy::print_stderr)]

mod cmd;
mod limits;
mod maths;
mod model;
mod msc;
mod oom;
mod output;
mod pictures;
mod progress;
mod sarif;
mod signals;
mod state_space;
mod states;
mod stuck;
mod wire;

// Model text (files and the bundled models) is read by the crate the bench example shares.
use agentpi_models::{bundled as models, loader};

use clap::{Args as _, FromArgMatches as _, Parser, Subcommand};
use std::process::ExitCode;

/// Formal semantics for agent tool protocols: check, compare and lint MCP designs.
#[derive(Parser)]
#[command(name = "agentpi", version, about, long_about = None)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Check the properties of a model (deadlocks, never, reachable, liveness).
    #[command(after_help = cmd::check::EXIT_STATUS)]
    Check(cmd::check::Args),
    /// Write the state space of a system as Aldebaran .aut or DOT.
    #[command(after_help = cmd::lts::EXIT_STATUS)]
    Lts(cmd::lts::Args),
    /// Step through a system interactively, or take a reproducible random run.
    #[command(after_help = cmd::sim::EXIT_STATUS)]
    Sim(cmd::sim::Args),
    /// Decide bisimilarity, refinement or trace/failures equivalence of two systems, with evidence.
    #[command(after_help = cmd::compare::EXIT_STATUS)]
    Compare(cmd::compare::Args),
    /// Reduce a state space modulo strong, branching or weak bisimulation.
    #[command(after_help = cmd::minimize::EXIT_STATUS)]
    Minimize(cmd::minimize::Args),
    /// Lint MCP tool definitions against the specification and MCP+.
    #[command(after_help = cmd::lint::EXIT_STATUS)]
    Lint(cmd::lint::Args),
    /// Is this trace a run of this model? Replays labels against a system.
    #[command(after_help = cmd::replay::EXIT_STATUS)]
    Replay(cmd::replay::Args),
    /// The paper made executable on SGD schemas: models, Φ, Φ⁻¹, the survey, real dialogues.
    #[command(after_help = cmd::sgd::EXIT_STATUS)]
    Sgd(cmd::sgd::Args),
    /// Sit between an MCP client and a stdio server: relay every byte, check the protocol.
    #[command(after_help = cmd::monitor::EXIT_STATUS)]
    Monitor(cmd::monitor::Args),
    /// Test an MCP server against the protocol model: model-guided client runs, every reply checked.
    #[command(after_help = cmd::test::EXIT_STATUS)]
    Test(cmd::test::Args),
    /// Check a recorded MCP trace offline with the monitor's checks (`agentpi trace check FILE`).
    #[command(after_help = cmd::trace::EXIT_STATUS)]
    Trace(cmd::trace::Args),
    /// Run a checked workflow against real MCP servers: its `extern` channels call their tools.
    #[command(after_help = cmd::run::EXIT_STATUS)]
    Run(cmd::run::Args),
    /// Write the .pi model of a real server's tools, to start a workflow from.
    #[command(after_help = cmd::extract::EXIT_STATUS)]
    Extract(cmd::extract::Args),
    /// Carry a legacy MCP client to a modern server through the checked model mcp/bridge.
    #[command(after_help = cmd::bridge::EXIT_STATUS)]
    Bridge(cmd::bridge::Args),
    /// Write a self-contained HTML viewer of a recorded MCP trace, with the checks' findings.
    #[command(after_help = cmd::view::EXIT_STATUS)]
    View(cmd::view::Args),
    /// The language server of `.pi` models, over standard input and output (for editors).
    #[command(after_help = cmd::lsp::EXIT_STATUS)]
    Lsp(cmd::lsp::Args),
    /// List the bundled models, with what each shows and its systems.
    #[command(after_help = cmd::models::EXIT_STATUS)]
    Models(cmd::models::Args),
}

/// The stack of the thread every command runs on, the same whatever `ulimit -s` says. What
/// recurses on input is bounded to fit in half of it (docs/limits.md): the parser at
/// `agentpi_syntax::MAX_DEPTH` levels, spawning at `agentpi_semantics::MAX_CALL_DEPTH` calls.
/// Small, because a tight `ulimit -v` counts the address space it reserves.
pub const STACK_BYTES: usize = 16 * 1024 * 1024;

/// mimalloc, not glibc's allocator: a model with fresh names (`bench/check/rpc.pi`) frees
/// many small states, and glibc then merges its free lists on every larger allocation
/// (`malloc_consolidate`, a fifth of that run). mimalloc took it from 3.0-3.9 s to 2.3-2.4 s
/// on one thread (docs/check.md, *The allocator*); version 2, whose peak memory is lower than 3's.
/// Wrapped so that running out of memory is a message and exit status 3, not an abort.
#[global_allocator]
static GLOBAL: oom::Allocator = oom::Allocator;

fn main() -> ExitCode {
    // Transparent huge pages are off since before `main` (`oom::HUGE_PAGES_OFF`).
    let cli = match parse() {
        Ok(cli) => cli,
        Err(error) => return ExitCode::from(usage(&error)),
    };
    let minimize = matches!(cli.command, Command::Minimize(_));
    oom::huge_pages_back_unless(minimize);
    if minimize {
        // Its peak memory is what `bench/lts` compares with merc's: see `oom::purge_at_once`.
        oom::purge_at_once();
    }
    if minimize_of_a_file(&cli) {
        // Nothing it runs recurses on its input (the reader and the reductions keep their
        // stacks in arrays), so it needs no stack of STACK_BYTES; on this thread it also
        // needs no second heap of mimalloc's, nor the worker's stack and C-library arena:
        // 0.1-0.2 MB of a short run (docs/minimize.md, *Start-up memory*).
        return ExitCode::from(dispatch(cli));
    }
    let worker = std::thread::Builder::new()
        .stack_size(STACK_BYTES)
        .spawn(move || dispatch(cli));
    let status = match worker {
        Ok(worker) => worker.join().unwrap_or(101),
        Err(e) => {
            output::errln!("error: cannot start a thread with a {STACK_BYTES}-byte stack: {e}");
            2
        }
    };
    ExitCode::from(status)
}

/// The command line. `agentpi minimize` is parsed with a command line of that command alone:
/// building all seventeen commands' arguments runs 260 KB of code (one function per command)
/// and most of clap, pages a short `minimize` otherwise never touches (docs/minimize.md,
/// *Start-up memory*). Its arguments, help and errors are the same (`tests::minimize_alone`).
fn parse() -> Result<Cli, clap::Error> {
    if std::env::args_os()
        .nth(1)
        .is_some_and(|first| first == "minimize")
    {
        return Cli::from_arg_matches(&minimize_alone().try_get_matches()?);
    }
    Cli::try_parse()
}

/// `agentpi` with `minimize` as its only command, built as `#[derive(Parser)]` builds it.
fn minimize_alone() -> clap::Command {
    let minimize = clap::Command::new("minimize")
        .about("Reduce a state space modulo strong, branching or weak bisimulation")
        .long_about(None)
        .after_help(cmd::minimize::EXIT_STATUS);
    clap::Command::new("agentpi")
        .subcommand_required(true)
        .subcommand(cmd::minimize::Args::augment_args(minimize))
}

/// Help, the version, or a usage error: written as clap would, but through `output`, so that a
/// closed or full stream is a status, not a panic.
fn usage(error: &clap::Error) -> u8 {
    let text = error.render().to_string();
    let status = error.exit_code() as u8;
    if error.use_stderr() {
        output::stderr(&text);
        status
    } else {
        output::finish(&text, status)
    }
}

/// Whether the command is `minimize` of a state space read from a file (not built from a
/// model, whose parser and spawning recurse on it).
fn minimize_of_a_file(cli: &Cli) -> bool {
    matches!(&cli.command, Command::Minimize(args) if state_space::is_state_space_file(&args.input))
}

fn dispatch(cli: Cli) -> u8 {
    match cli.command {
        Command::Check(args) => cmd::check::run(args),
        Command::Lts(args) => cmd::lts::run(args),
        Command::Sim(args) => cmd::sim::run(args),
        Command::Compare(args) => cmd::compare::run(args),
        Command::Minimize(args) => cmd::minimize::run(args),
        Command::Lint(args) => cmd::lint::run(args),
        Command::Monitor(args) => cmd::monitor::run(args),
        Command::Trace(args) => cmd::trace::run(args),
        Command::Test(args) => cmd::test::run(args),
        Command::Models(args) => cmd::models::run(args),
        Command::Run(args) => cmd::run::run(args),
        Command::Extract(args) => cmd::extract::run(args),
        Command::Replay(args) => cmd::replay::run(args),
        Command::Sgd(args) => cmd::sgd::run(args),
        Command::Bridge(args) => cmd::bridge::run(args),
        Command::View(args) => cmd::view::run(args),
        Command::Lsp(args) => cmd::lsp::run(args),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;

    /// `minimize` parsed alone has the help (and so the arguments) of `minimize` in the whole
    /// command line, and its usage errors.
    #[test]
    fn minimize_alone() {
        let mut whole = Cli::command();
        let mut alone = super::minimize_alone();
        for args in [
            &["agentpi", "minimize", "--help"][..],
            &["agentpi", "minimize", "-x"],
        ] {
            let of = |command: &mut clap::Command| match command.try_get_matches_from_mut(args) {
                Ok(_) => panic!("{args:?} parsed"),
                Err(error) => error.render().to_string(),
            };
            assert_eq!(of(&mut alone), of(&mut whole), "{args:?}");
        }
        let args = [
            "agentpi",
            "minimize",
            "a.aut",
            "--equiv",
            "branching",
            "--no-time",
        ];
        let cli = Cli::from_arg_matches(&alone.get_matches_from(args)).unwrap();
        let Command::Minimize(parsed) = cli.command else {
            panic!("not minimize")
        };
        assert!(matches!(parsed.equiv, cmd::minimize::MinimizeEquiv::Branching) && parsed.no_time);
    }

    /// Only `minimize` of a state space file runs on the main thread: a model, whose parser
    /// recurses, and every other command get the worker's fixed stack.
    #[test]
    fn main_thread_only_for_minimize_of_a_file() {
        let dir = std::env::temp_dir().join(format!("agentpi-main-thread-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let (aut, pi) = (dir.join("a.aut"), dir.join("m.pi"));
        std::fs::write(&aut, "des (0, 0, 1)\n").unwrap();
        std::fs::write(&pi, "").unwrap();
        let on_main = |args: &[&str]| minimize_of_a_file(&Cli::try_parse_from(args).unwrap());
        let aut = aut.to_str().unwrap();
        let model = format!("{}:System", pi.to_str().unwrap());
        assert!(on_main(&["agentpi", "minimize", aut]));
        assert!(!on_main(&["agentpi", "minimize", &model]));
        assert!(!on_main(&["agentpi", "minimize", "banking:TwoAgents"]));
        assert!(!on_main(&["agentpi", "minimize", dir.to_str().unwrap()]));
        assert!(!on_main(&["agentpi", "compare", aut, aut]));
        std::fs::remove_dir_all(&dir).unwrap();
    }
}

//! The `agentpi` binary: parses arguments and dispatches to one module per command.
//!
//! Every command module exposes `Args` (its clap arguments) and `run(Args) -> u8`, the process
//! exit status. Only this crate prints or exits.

mod cmd;
mod loader;
mod model;
mod models;
mod msc;
mod output;
mod progress;
mod sarif;

use clap::{Parser, Subcommand};
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
    Check(cmd::check::Args),
    /// Write the state space of a system as Aldebaran .aut or DOT.
    Lts(cmd::lts::Args),
    /// Step through a system interactively, or take a reproducible random run.
    Sim(cmd::sim::Args),
    /// Decide bisimilarity, refinement or trace/failures equivalence of two systems, with evidence.
    Compare(cmd::compare::Args),
    /// Reduce a state space modulo strong, branching or weak bisimulation.
    Minimize(cmd::minimize::Args),
    /// Lint MCP tool definitions against the specification and MCP+.
    Lint(cmd::lint::Args),
}

/// Deeply nested models (long `new` or `if` chains) recurse deeply in the front end and the
/// semantics; a big stack keeps them from overflowing. Only address space is reserved.
const STACK_BYTES: usize = 512 * 1024 * 1024;

fn main() -> ExitCode {
    report_closed_stdout_without_panic();
    let cli = Cli::parse();
    let worker = std::thread::Builder::new()
        .stack_size(STACK_BYTES)
        .spawn(move || dispatch(cli));
    let status = worker.expect("spawn the main worker").join().unwrap_or(101);
    ExitCode::from(status)
}

/// `print!` panics when standard output is closed (`agentpi sim ... | head`). That is not a
/// bug of ours: say so in one line and exit with status 2, as `output::write` does, instead of
/// a panic message and a backtrace.
fn report_closed_stdout_without_panic() {
    let default = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        let message = info.payload().downcast_ref::<String>();
        if let Some(why) = message.and_then(|m| m.strip_prefix("failed printing to stdout: ")) {
            eprintln!("error: cannot write to standard output: {why}");
            std::process::exit(2);
        }
        default(info);
    }));
}

fn dispatch(cli: Cli) -> u8 {
    match cli.command {
        Command::Check(args) => cmd::check::run(args),
        Command::Lts(args) => cmd::lts::run(args),
        Command::Sim(args) => cmd::sim::run(args),
        Command::Compare(args) => cmd::compare::run(args),
        Command::Minimize(args) => cmd::minimize::run(args),
        Command::Lint(args) => cmd::lint::run(args),
    }
}

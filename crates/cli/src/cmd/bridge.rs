//! `agentpi bridge --to modern -- CMD ARGS...`: the command a legacy desktop host starts; it
//! starts the modern stdio server `CMD` and carries the session through the checked process
//! `ToModern` of `mcp/bridge` (crates/bridge, docs/bridge.md). Thin: options in, the ending
//! rendered on standard error.

use crate::output;
use agentpi_bridge::{Ended, Options};
use std::path::PathBuf;

#[derive(clap::Args)]
pub struct Args {
    /// The era of the server: `modern` (a 2026-07-28 server for a legacy client). `legacy`
    /// (a modern client to a legacy server) is not built yet.
    #[arg(long, value_enum)]
    to: Era,
    /// Write one trace per side here (`legacy.jsonl`, `modern.jsonl`; MONITOR.md format)
    #[arg(long, value_name = "DIR")]
    record: Option<PathBuf>,
    /// Write both sides' findings here (JSON: `legacy`, `modern`, and the bridge's notes)
    #[arg(long, value_name = "FILE")]
    report: Option<PathBuf>,
    /// The server command and its arguments (after `--`)
    #[arg(last = true, required = true)]
    command: Vec<String>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
enum Era {
    Modern,
    Legacy,
}

/// The exit statuses, for `--help`.
pub const EXIT_STATUS: &str = "Exit status: 0 the client closed its input (the server is then \
closed); 1 a check of mcp/bridge does not hold (nothing is relayed), or the server went away \
(every request in flight got an error); 2 the server could not be started, or a --record or \
--report file could not be written.";

pub fn run(args: Args) -> u8 {
    if args.to == Era::Legacy {
        output::errln!("agentpi bridge: error: --to legacy is not built yet (docs/bridge.md)");
        return 2;
    }
    let ended = agentpi_bridge::to_modern(&Options {
        command: args.command,
        record: args.record,
        report: args.report,
    });
    render(&ended);
    ended.status
}

fn render(ended: &Ended) {
    if let Some(message) = &ended.message {
        let level = if ended.status == 0 { "note" } else { "error" };
        output::errln!("agentpi bridge: {level}: {message}");
    }
    let count = |r: &Option<agentpi_monitor::Report>| r.as_ref().map_or(0, |r| r.violations.len());
    if ended.legacy.is_some() {
        output::errln!(
            "agentpi bridge: {} checks of mcp/bridge held; findings: legacy side {}, modern side {}",
            ended.checks,
            count(&ended.legacy),
            count(&ended.modern)
        );
    }
}

//! `agentpi extract -- CMD ARGS...` (or `--url URL`, or both: a Streamable HTTP server that
//! the command starts): writes the `.pi` model of a real server's tools
//! (`agentpi_run::extract`), to start a workflow from.

use crate::output::{self, errln};
use agentpi_run::Peer;
use agentpi_run::extract::{self, Server};
use agentpi_tester::Target;
use std::time::{Duration, Instant};

#[derive(clap::Args)]
pub struct Args {
    /// A Streamable HTTP server at this URL; with a command, the server that command
    /// starts (stopped once its tools are listed).
    #[arg(long)]
    pub url: Option<String>,
    /// Write the model to this file instead of standard output.
    #[arg(short, long, value_name = "FILE")]
    pub output: Option<String>,
    /// The deadline written for every tool (`within`), in milliseconds.
    #[arg(long, default_value_t = 10_000)]
    pub within: u64,
    /// Seconds the server gets to start, shake hands and list its tools.
    #[arg(long, default_value_t = 30)]
    pub timeout: u64,
    /// A stdio server to start: `agentpi extract -- CMD ARGS...` (with `--url`, the command
    /// that starts the HTTP server).
    #[arg(last = true, value_name = "COMMAND")]
    pub command: Vec<String>,
}

/// The exit statuses, for `--help`.
pub const EXIT_STATUS: &str = "Exit status: 0 the model was written, 2 the server could not be \
    started, reached or listed, or the output could not be written.";

pub fn run(args: Args) -> u8 {
    if args.url.is_none() && args.command.is_empty() {
        errln!("error: give the server: `agentpi extract -- CMD ARGS...` or `--url URL`");
        return 2;
    }
    let target = Target::of(args.url.as_deref(), &args.command);
    let mut peer = match Peer::start(
        "server",
        &target,
        Instant::now(),
        None,
        Duration::from_secs(args.timeout),
    ) {
        Ok(peer) => peer,
        Err(e) => {
            errln!("error: {e}");
            return 2;
        }
    };
    let listing = peer.list(Duration::from_secs(args.timeout));
    peer.finish(Duration::from_secs(2));
    let listing = match listing {
        Ok(listing) => listing,
        Err(e) => {
            errln!("error: {e}");
            return 2;
        }
    };
    let source = match &target {
        Target::Url(url) | Target::Served { url, .. } => url.clone(),
        Target::Command(argv) => argv.join(" "),
    };
    let text = extract::model(&Server {
        source: &source,
        name: listing.server.as_deref(),
        version: &listing.protocol_version,
        tools: &listing.tools,
        within: args.within,
    });
    output::write(args.output.as_deref(), text.as_bytes())
}

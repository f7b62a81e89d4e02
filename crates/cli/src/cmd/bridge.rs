//! `agentpi bridge --to modern|legacy (-- CMD ARGS... | --upstream URL)`: the command a stdio
//! client starts; it starts the stdio server `CMD` (or reaches the Streamable HTTP server at
//! `URL`) of the other era and carries the session through the checked
//! process `ToModern` or `ToLegacy` of `mcp/bridge` (crates/bridge, docs/bridge.md). Thin:
//! options in, the ending rendered on standard error.

use crate::output;
use agentpi_bridge::{Ended, Options};
use std::path::PathBuf;
use std::time::Duration;

#[derive(clap::Args)]
pub struct Args {
    /// The era of the server: `modern` (a 2026-07-28 server for a legacy client) or `legacy`
    /// (a 2025-11-25 server for a modern client)
    #[arg(long, value_enum)]
    to: Era,
    /// --to legacy: seconds a legacy call is held for the modern client's retry after an
    /// input_required result; then it is cancelled
    #[arg(long, value_name = "SECONDS", default_value_t = 300.0)]
    retry_timeout: f64,
    /// Write one trace per side here (`legacy.jsonl`, `modern.jsonl`; MONITOR.md format)
    #[arg(long, value_name = "DIR")]
    record: Option<PathBuf>,
    /// Write both sides' findings here (JSON: `legacy`, `modern`, and the bridge's notes)
    #[arg(long, value_name = "FILE")]
    report: Option<PathBuf>,
    /// The server is a Streamable HTTP one at this URL (`http://` or `https://`), instead of
    /// a command the bridge starts
    #[arg(long, value_name = "URL", conflicts_with = "command")]
    upstream: Option<String>,
    /// Serve the client side as Streamable HTTP on HOST:PORT (port 0: any free one) instead
    /// of the standard streams; loopback only unless --allow-remote
    #[arg(long, value_name = "HOST:PORT")]
    listen: Option<String>,
    /// --listen: allow listening on an address other than loopback
    #[arg(long)]
    allow_remote: bool,
    /// --listen: a host name clients may use in `Host` besides IP addresses and localhost
    /// (repeatable; `*`: any)
    #[arg(long, value_name = "HOST")]
    allow_host: Vec<String>,
    /// --listen: an `Origin` browsers may send besides loopback ones (repeatable; `*`: any)
    #[arg(long, value_name = "ORIGIN")]
    allow_origin: Vec<String>,
    /// --listen: legacy client sessions open at once; one more `initialize` is answered 503
    #[arg(long, value_name = "N", default_value_t = agentpi_bridge::sessions::MAX_SESSIONS)]
    max_sessions: usize,
    /// --listen: seconds a legacy client session may stay idle (no request, no stream open)
    /// before it is ended (its id then gets 404)
    #[arg(long, value_name = "SECONDS", default_value_t = agentpi_bridge::sessions::SESSION_IDLE.as_secs_f64())]
    session_idle: f64,
    /// The server command and its arguments (after `--`)
    #[arg(last = true, required_unless_present = "upstream")]
    command: Vec<String>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
enum Era {
    Modern,
    Legacy,
}

/// The exit statuses, for `--help`.
pub const EXIT_STATUS: &str = "Exit status: 0 the client closed its input (the server is then \
closed), or a --listen bridge got SIGINT or SIGTERM; 1 a check of mcp/bridge does not hold \
(nothing is relayed), or the server went away or the --upstream cannot be reached (every \
request in flight got an error); 2 the server could not be started, --listen could not \
listen (or is not loopback without --allow-remote), or a --record or --report file could not \
be written.";

pub fn run(args: Args) -> u8 {
    let Ok(retry_timeout) = Duration::try_from_secs_f64(args.retry_timeout) else {
        output::errln!("agentpi bridge: error: --retry-timeout must be a number of seconds ≥ 0");
        return 2;
    };
    let Ok(idle) = Duration::try_from_secs_f64(args.session_idle) else {
        output::errln!("agentpi bridge: error: --session-idle must be a number of seconds ≥ 0");
        return 2;
    };
    if args.max_sessions == 0 {
        output::errln!("agentpi bridge: error: --max-sessions must be at least 1");
        return 2;
    }
    let listen = match args.listen.as_deref().map(resolve).transpose() {
        Ok(listen) => listen,
        Err(e) => {
            output::errln!("agentpi bridge: error: {e}");
            return 2;
        }
    };
    let options = Options {
        listen,
        access: agentpi_http_proxy::Access {
            allow_remote: args.allow_remote,
            hosts: args.allow_host,
            origins: args.allow_origin,
        },
        limits: agentpi_http_proxy::Limits::default(),
        sessions: agentpi_bridge::SessionLimits {
            max: args.max_sessions,
            idle,
        },
        listening: |address| output::errln!("agentpi bridge: listening on http://{address}/mcp"),
        command: args.command,
        upstream: args.upstream,
        retry_timeout,
        record: args.record,
        report: args.report,
    };
    let ended = match args.to {
        Era::Modern => agentpi_bridge::to_modern(&options),
        Era::Legacy => agentpi_bridge::to_legacy(&options),
    };
    render(&ended);
    ended.status
}

/// `HOST:PORT`, the host a name or an address (`[::1]:8080` for IPv6).
fn resolve(listen: &str) -> Result<std::net::SocketAddr, String> {
    use std::net::ToSocketAddrs;
    let mut addresses = listen
        .to_socket_addrs()
        .map_err(|e| format!("--listen {listen:?}: {e} (give HOST:PORT)"))?;
    addresses
        .next()
        .ok_or_else(|| format!("--listen {listen:?}: no address"))
}

fn render(ended: &Ended) {
    for note in &ended.transport {
        output::errln!("agentpi bridge: note: {note}");
    }
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

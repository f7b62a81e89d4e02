//! `agentpi bridge` over stdio alone, without the rest of the command line: a release build
//! of this example is minutes where the `agentpi` binary's is most of an hour on a busy
//! machine, so `bench/bridge` can time the bridge's loop as it changes
//! (`AGENTPI="target/release/agentpi target/release/examples/bridge_stdio"`).
//! `bridge_stdio bridge --to legacy|modern -- CMD ARGS...`; the status is `agentpi bridge`'s.

use agentpi_bridge::{Options, RETRY_TIMEOUT, SessionLimits};

/// The allocator of the `agentpi` binary, so that the times are its.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> std::process::ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let usage = "usage: bridge_stdio bridge --to legacy|modern -- CMD ARGS...";
    let (to, command) = match args.iter().position(|a| a == "--") {
        Some(k) if k >= 3 && args[1] == "--to" => (args[2].clone(), args[k + 1..].to_vec()),
        _ => {
            eprintln!("{usage}");
            return 2.into();
        }
    };
    let options = Options {
        command,
        upstream: None,
        listen: None,
        access: agentpi_http_proxy::Access::default(),
        limits: agentpi_http_proxy::Limits::default(),
        sessions: SessionLimits::default(),
        listening: |_| {},
        retry_timeout: RETRY_TIMEOUT,
        record: None,
        report: None,
    };
    let ended = match to.as_str() {
        "legacy" => agentpi_bridge::to_legacy(&options),
        "modern" => agentpi_bridge::to_modern(&options),
        _ => {
            eprintln!("{usage}");
            return 2.into();
        }
    };
    if let Some(message) = &ended.message {
        eprintln!("bridge_stdio: {message}");
    }
    ended.status.into()
}

//! The checker's cost per message, without the proxy: reads a trace (docs/trace.md), feeds
//! its events to `Sessions` as `agentpi trace check` does, and prints the events, the
//! violations and the time the feeding took (for profiling the checker on a flood:
//! `python3 bench/monitor/flood_trace.py 20000 20000 > /tmp/flood.jsonl`, then
//! `cargo run --release -p agentpi-monitor --example feed_trace -- /tmp/flood.jsonl`).
//! With `--json` it prints the report instead, as `agentpi trace check --format json` prints
//! it for a trace `agentpi test` did not record: for holding two builds' checkers to the same
//! findings without building the whole `agentpi`.

use agentpi_monitor::{Sessions, trace};
use std::time::Instant;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let json = args.iter().any(|a| a == "--json");
    let file = args
        .iter()
        .find(|a| *a != "--json")
        .expect("usage: feed_trace [--json] FILE");
    let bytes = std::fs::read(file).expect("the trace can be read");
    let events = trace::parse(&bytes).expect("the trace parses");
    let start = Instant::now();
    let mut sessions = Sessions::new();
    for event in &events {
        sessions.feed(event);
    }
    let report = sessions.finish();
    let secs = start.elapsed().as_secs_f64();
    if json {
        println!("{}", report.to_json());
        return;
    }
    println!(
        "{} events, {} violations, {} open requests, {secs:.3} s ({:.0} events/s)",
        events.len(),
        report.violations.len(),
        report.open_requests.len(),
        events.len() as f64 / secs
    );
}

//! The checker's cost per message, without the proxy: reads a trace (docs/trace.md), feeds
//! its events to `Sessions` as `agentpi trace check` does, and prints the events, the
//! violations and the time the feeding took (for profiling the checker on a flood:
//! `python3 bench/monitor/flood_trace.py 20000 20000 > /tmp/flood.jsonl`, then
//! `cargo run --release -p agentpi-monitor --example feed_trace -- /tmp/flood.jsonl`).

use agentpi_monitor::{Sessions, trace};
use std::time::Instant;

fn main() {
    let file = std::env::args().nth(1).expect("usage: feed_trace FILE");
    let bytes = std::fs::read(&file).expect("the trace can be read");
    let events = trace::parse(&bytes).expect("the trace parses");
    let start = Instant::now();
    let mut sessions = Sessions::new();
    for event in &events {
        sessions.feed(event);
    }
    let report = sessions.finish();
    let secs = start.elapsed().as_secs_f64();
    println!(
        "{} events, {} violations, {} open requests, {secs:.3} s ({:.0} events/s)",
        events.len(),
        report.violations.len(),
        report.open_requests.len(),
        events.len() as f64 / secs
    );
}

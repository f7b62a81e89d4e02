//! What a live session costs the checker: feeds `Sessions` N copies of a recorded legacy HTTP
//! session (tests/traces/http_clean.jsonl, without its DELETE, so each stays live), each with
//! its own session id and exchanges, and prints the resident memory before and after.
//! `cargo run --release -p agentpi-monitor --example live_sessions -- 1000`

use agentpi_monitor::{Sessions, trace};

const TRACE: &str = include_str!("../tests/traces/http_clean.jsonl");
const SID: &str = "5587cc61-8d09-4997-9c6c-74a28d319f37";

/// The resident set of this process, in KiB (Linux).
fn rss_kib() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    let line = status.lines().find(|l| l.starts_with("VmRSS:"));
    let field = line.and_then(|l| l.split_whitespace().nth(1));
    field.and_then(|v| v.parse().ok()).unwrap_or(0)
}

/// Copy `k` of the session: its own id and exchange numbers, its DELETE left out.
fn copy(k: usize) -> String {
    let mut out = String::new();
    for line in TRACE.lines().filter(|l| !l.contains("\"DELETE\"")) {
        let mut v: serde_json::Value = serde_json::from_str(line).unwrap();
        if let Some(x) = v.get("exchange").and_then(|x| x.as_u64()) {
            v["exchange"] = (x + 1000 * k as u64).into();
        }
        out += &v.to_string().replace(SID, &format!("{SID}-{k}"));
        out.push('\n');
    }
    out
}

fn main() {
    let n: usize = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(1000);
    let mut sessions = Sessions::new();
    // The models load with the first session: measured from after it.
    let first = trace::parse(copy(0).as_bytes()).unwrap();
    first.iter().for_each(|e| drop(sessions.feed(e)));
    let before = rss_kib();
    for k in 1..=n {
        let events = trace::parse(copy(k).as_bytes()).unwrap();
        events.iter().for_each(|e| drop(sessions.feed(e)));
    }
    let after = rss_kib();
    let live = sessions.retained();
    println!(
        "{n} sessions more ({} keep their model): RSS {before} KiB -> {after} KiB, {:.1} KiB a session",
        live.models,
        (after - before) as f64 / n as f64
    );
}

//! Measures a liveness check against a safety check of the same system, for issue 35:
//! `cargo run --release -p agentpi-check --example live -- FILE SYSTEM N THREADS [TEXT]`
//! runs the checks of SYSTEM whose text contains TEXT (all when omitted) with `-D N=N` (none
//! with `-`), and
//! prints the states, the bytes exploration kept, the verdicts and the peak resident memory.

use agentpi_check::{Options, Progress, check_system};
use agentpi_ir::{MemoryLoader, load_with};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [file, system, n, threads, rest @ ..] = &args[..] else {
        eprintln!("usage: live FILE SYSTEM N THREADS [TEXT]");
        std::process::exit(2);
    };
    let text = std::fs::read_to_string(file).expect("a readable model");
    let loader = MemoryLoader {
        files: vec![(file.clone(), text)],
    };
    // `-` for a model without `N`.
    let defines = match n.as_str() {
        "-" => vec![],
        _ => vec![("N".to_string(), n.clone())],
    };
    let loaded = load_with(file, &loader, &defines);
    assert!(!loaded.has_errors(), "{:?}", loaded.diagnostics);
    let program = loaded.program;
    let sys = program
        .systems
        .iter()
        .position(|s| &s.name == system)
        .expect("the system");
    let filter = rest.first().map(String::as_str).unwrap_or("");
    let checks: Vec<usize> = (0..program.checks.len())
        .filter(|&c| program.checks[c].system == sys && program.checks[c].text.contains(filter))
        .collect();
    let options = Options {
        threads: threads.parse().expect("a thread count"),
        ..Options::default()
    };
    let start = std::time::Instant::now();
    let report = check_system(&program, sys, &checks, &options, &Progress::default());
    let secs = start.elapsed().as_secs_f64();
    let peak = std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            let line = s.lines().find(|l| l.starts_with("VmHWM:"))?.to_string();
            line.split_whitespace().nth(1)?.parse::<u64>().ok()
        })
        .unwrap_or(0)
        * 1024;
    let states = report.states as f64;
    println!(
        "states {} transitions {} kept {:.1} B/state peak {:.1} MiB = {:.1} B/state, {:.2} s",
        report.states,
        report.transitions,
        report.bytes as f64 / states,
        peak as f64 / (1 << 20) as f64,
        peak as f64 / states,
        secs
    );
    for r in &report.results {
        let trace = r
            .trace
            .as_ref()
            .map(|t| format!("{t:?}"))
            .unwrap_or_default();
        let hash = trace
            .bytes()
            .fold(0u64, |h, b| h.wrapping_mul(31).wrapping_add(b as u64));
        println!(
            "{}: {:?} (trace hash {hash:x}, {} bytes)",
            r.property,
            r.outcome,
            trace.len()
        );
    }
}

//! Trace checks, data-driven: each tests/traces/*.jsonl is checked with a fresh `Session`
//! and its report (as `agentpi trace check --format json` prints it) is pinned as a snapshot.
//! File names say which rules the trace breaks; `clean` breaks none. `http_*` traces were
//! recorded by `agentpi monitor --listen` (crates/cli/tests/monitor_http.rs).

use agentpi_monitor::{Session, trace};
use std::path::Path;

fn check(file: &Path) -> String {
    let bytes = std::fs::read(file).unwrap();
    let events = trace::parse(&bytes).unwrap();
    let mut session = Session::new();
    for event in &events {
        session.feed(event);
    }
    let report = session.finish();
    serde_json::to_string_pretty(&report.to_json()).unwrap()
}

#[test]
fn traces() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/traces");
    let mut files: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "jsonl"))
        .collect();
    files.sort();
    for file in files {
        let name = file.file_stem().unwrap().to_string_lossy().to_string();
        insta::assert_snapshot!(name, check(&file));
    }
}

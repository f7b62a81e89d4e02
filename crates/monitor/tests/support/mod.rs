//! What the monitor's test files share: the bundled traces, and the legacy opening a
//! generated trace starts with.

use std::path::{Path, PathBuf};

/// The bundled traces (`tests/traces/*.jsonl`), sorted.
pub fn trace_files() -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/traces");
    let mut files: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "jsonl"))
        .collect();
    files.sort();
    files
}

/// A legacy session's opening as `(dir, raw)`: `initialize` (id 0, version 2025-11-25) from a
/// client named `name`, its result declaring `capabilities`, and `notifications/initialized`.
#[allow(dead_code)] // Not every test file generates traces.
pub fn legacy_opening(name: &str, capabilities: &str) -> [(&'static str, String); 3] {
    let info = format!(r#"{{"name":"{name}","version":"1"}}"#);
    [
        (
            "c2s",
            format!(
                r#"{{"jsonrpc":"2.0","id":0,"method":"initialize","params":{{"protocolVersion":"2025-11-25","capabilities":{{}},"clientInfo":{info}}}}}"#
            ),
        ),
        (
            "s2c",
            format!(
                r#"{{"jsonrpc":"2.0","id":0,"result":{{"protocolVersion":"2025-11-25","capabilities":{capabilities},"serverInfo":{info}}}}}"#
            ),
        ),
        (
            "c2s",
            r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#.into(),
        ),
    ]
}

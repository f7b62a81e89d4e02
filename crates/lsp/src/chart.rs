//! The HTML chart of a lens's run: the page `agentpi check --format html` writes (drawn by
//! `agentpi-report-html`), for the checks of the lens's line, written to a file of a
//! temporary directory that the client is asked to open (`window/showDocument`, external).

use agentpi_check::SystemReport;
use agentpi_diagnostics::SourceMap;
use agentpi_report_html::Chart;
use serde_json::{Value, json};
use std::path::PathBuf;

/// The command of a violation's lens: arguments `[uri, line]`, as [`crate::checks::RUN`].
pub const OPEN: &str = "agentpi.openChart";

/// The page of `report` (one run's checks) of `file`, positions told with `sources`: each
/// check's JSON and chart as `agentpi check --format html` gives them (`agentpi-check-report`),
/// a deadlock's with who is stuck where.
pub fn page(file: &str, report: &SystemReport, sources: &SourceMap) -> String {
    let checks: Vec<Value> = report
        .results
        .iter()
        .map(|r| agentpi_check_report::json::result(sources, report, r))
        .collect();
    let charts: Vec<Option<Chart>> = report
        .results
        .iter()
        .map(|r| agentpi_check_report::chart::of_result(sources, r))
        .collect();
    agentpi_report_html::pages::check(file, &json!({ "checks": checks }), &charts)
}

/// Writes `page` as `NAME-LINE.html` in this server's temporary directory; returns its path.
pub fn write(name: &str, line: u32, page: &str) -> Result<PathBuf, String> {
    let dir = std::env::temp_dir().join(format!("agentpi-lsp-{}", std::process::id()));
    std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let stem = std::path::Path::new(name)
        .file_stem()
        .map_or("model".into(), |s| s.to_string_lossy());
    let path = dir.join(format!("{stem}-{}.html", line + 1));
    std::fs::write(&path, page).map_err(|e| format!("{}: {e}", path.display()))?;
    Ok(path)
}

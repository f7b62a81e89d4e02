//! The HTML chart of a lens's run: the page `agentpi check --format html` writes (drawn by
//! `agentpi-report-html`), for the checks of the lens's line, written to a file of a
//! temporary directory that the client is asked to open (`window/showDocument`, external).

use agentpi_check::{CheckResult, End, Outcome, SystemReport};
use agentpi_diagnostics::SourceMap;
use agentpi_report_html::layout::{Step, lay_out};
use agentpi_report_html::{Chart, Ending};
use serde_json::{Value, json};
use std::path::PathBuf;

/// The command of a violation's lens: arguments `[uri, line]`, as [`crate::checks::RUN`].
pub const OPEN: &str = "agentpi.openChart";

/// The page of `report` (one run's checks) of `file`, positions told with `sources`.
pub fn page(file: &str, report: &SystemReport, sources: &SourceMap) -> String {
    let checks: Vec<Value> = report
        .results
        .iter()
        .map(|r| json_of(report, r, sources))
        .collect();
    let charts: Vec<Option<Chart>> = report.results.iter().map(|r| chart(r, sources)).collect();
    agentpi_report_html::pages::check(file, &json!({ "checks": checks }), &charts)
}

/// The fields of `agentpi check`'s JSON that the page shows.
fn json_of(report: &SystemReport, result: &CheckResult, sources: &SourceMap) -> Value {
    let (verdict, limit) = match &result.outcome {
        Outcome::Holds => ("holds", None),
        Outcome::Violated => ("violated", None),
        Outcome::Unknown(limit) => ("unknown", Some(limit.to_string())),
    };
    let explored = match report.end {
        End::Complete => "all",
        End::Decided => "until decided",
        End::Limit(_) => "until a limit",
    };
    let fault = result
        .fault
        .as_ref()
        .map(|f| json!({ "message": f.kind.to_string(), "position": sources.position(f.span) }));
    json!({
        "system": report.system,
        "property": result.property,
        "verdict": verdict,
        "states": report.states,
        "transitions": report.transitions,
        "explored": explored,
        "loop_start": result.trace.as_ref().and_then(|t| t.loop_start),
        "deadlock": result.stuck,
        "fault": fault,
        "limit": limit,
    })
}

/// A result's trace as a chart, ending in its deadlock or fault.
fn chart(result: &CheckResult, sources: &SourceMap) -> Option<Chart> {
    let trace = result.trace.as_ref()?;
    let steps: Vec<Step<'_>> = trace
        .steps
        .iter()
        .map(|s| Step {
            label: &s.label,
            actors: &s.actors,
        })
        .collect();
    let mut chart = lay_out(&steps, trace.loop_start, &[], &[], None);
    chart.ending = match &result.fault {
        Some(f) => Some(Ending::Fault(format!(
            "{}: {}",
            sources.position(f.span),
            f.kind
        ))),
        None if result.stuck => Some(Ending::Deadlock),
        None => None,
    };
    Some(chart)
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

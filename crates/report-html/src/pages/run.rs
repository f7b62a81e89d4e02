//! `agentpi run --format html`: the checks, the run's chart, each real call's outcome, the
//! servers and how the run ended.

use super::{list, text};
use crate::chart::Chart;
use crate::page::{Cell, Page};

/// The page of `run`'s JSON report; `chart` is the run's path (none when the run was refused
/// by its checks).
pub fn run(report: &serde_json::Value, chart: Option<&Chart>) -> String {
    let title = match chart {
        Some(_) => format!(
            "agentpi run {} (seed {})",
            text(report, "system"),
            text(report, "seed")
        ),
        None => "agentpi run: not run".to_string(),
    };
    let mut page = Page::new(&title);
    let checks: Vec<Vec<Cell>> = list(report, "checks")
        .iter()
        .map(|c| {
            vec![
                Cell::new(text(c, "property")),
                Cell::verdict(text(c, "verdict")),
            ]
        })
        .collect();
    if !checks.is_empty() {
        page.heading(2, "checks before the run");
        page.table("checks", &["property", "verdict"], &checks);
    }
    let Some(chart) = chart else {
        page.para(
            Some("violated"),
            "refused: a check of the workflow is violated, or --verify-only; nothing was run",
        );
        return page.finish();
    };
    page.heading(2, &format!("the run, {} steps", chart.rows.len()));
    page.chart(chart);
    let calls: Vec<Vec<Cell>> = list(report, "calls")
        .iter()
        .enumerate()
        .map(|(k, c)| {
            let outcome = match (text(c, "outcome"), c.get("cancelled")) {
                (o, _) if o.is_empty() => "unanswered".to_string(),
                (o, Some(serde_json::Value::Bool(true))) => format!("{o}, cancelled"),
                (o, _) => o,
            };
            vec![
                Cell::new((k + 1).to_string()),
                Cell::new(text(c, "chan")),
                Cell::new(format!("{}.{}", text(c, "server"), text(c, "tool"))),
                Cell::new(text(c, "arguments")),
                Cell::new(outcome),
                Cell::new(text(c, "detail")),
            ]
        })
        .collect();
    page.heading(2, &format!("calls ({})", calls.len()));
    page.table(
        "calls",
        &["#", "channel", "tool", "arguments", "outcome", "detail"],
        &calls,
    );
    let servers: Vec<Vec<Cell>> = list(report, "servers")
        .iter()
        .map(|s| {
            let r = s.get("report").cloned().unwrap_or_default();
            vec![
                Cell::new(text(s, "name")),
                Cell::new(text(s, "protocol_version")),
                Cell::new(text(&r, "messages")),
                Cell::new(list(&r, "violations").len().to_string()),
            ]
        })
        .collect();
    page.heading(2, "servers");
    page.table(
        "servers",
        &["server", "protocol", "messages", "violations"],
        &servers,
    );
    page.para(
        Some(&text(report, "end")),
        &format!("ended: {}", text(report, "end_text")),
    );
    page.finish()
}

//! `agentpi check --format html`: every property with its verdict and the statistics, and
//! each counterexample or witness as a chart.

use super::{list, text};
use crate::chart::Chart;
use crate::page::{Cell, Page};

/// The page of `check`'s JSON report (`{"checks": [...]}`) of `file`; `charts[i]` is the
/// chart of check `i`, if it has a trace.
pub fn check(file: &str, report: &serde_json::Value, charts: &[Option<Chart>]) -> String {
    let mut page = Page::new(&format!("agentpi check {file}"));
    let checks = list(report, "checks");
    let count = |v: &str| checks.iter().filter(|c| text(c, "verdict") == v).count();
    page.para(
        Some("summary"),
        &format!(
            "{} checks: {} hold, {} violated, {} unknown",
            checks.len(),
            count("holds"),
            count("violated"),
            count("unknown")
        ),
    );
    let rows: Vec<Vec<Cell>> = checks
        .iter()
        .enumerate()
        .map(|(i, c)| {
            vec![
                Cell::new((i + 1).to_string()),
                Cell::new(text(c, "system")),
                Cell::new(text(c, "property")),
                Cell::verdict(text(c, "verdict")),
                Cell::new(text(c, "states")),
                Cell::new(text(c, "transitions")),
                Cell::new(text(c, "explored")),
            ]
        })
        .collect();
    let head = [
        "#",
        "system",
        "property",
        "verdict",
        "states",
        "transitions",
        "explored",
    ];
    page.table("checks", &head, &rows);
    for (i, c) in checks.iter().enumerate() {
        let chart = charts.get(i).and_then(Option::as_ref);
        let said = c.get("fault").is_some_and(|f| !f.is_null()) || !text(c, "limit").is_empty();
        if chart.is_none() && !said {
            continue;
        }
        let verdict = text(c, "verdict");
        page.heading(
            2,
            &format!(
                "{}. {}: {} \u{2014} {verdict}",
                i + 1,
                text(c, "system"),
                text(c, "property")
            ),
        );
        if let Some(limit) = c.get("limit").filter(|l| !l.is_null()) {
            page.para(
                Some("unknown"),
                &format!(
                    "exploration stopped by {} before this was decided",
                    limit.as_str().unwrap_or("")
                ),
            );
        }
        if let Some(fault) = c.get("fault").filter(|f| !f.is_null()) {
            page.para(
                Some("violated"),
                &format!("{}: {}", text(fault, "position"), text(fault, "message")),
            );
        }
        stuck(&mut page, c);
        if let Some(chart) = chart {
            let kind = match (verdict.as_str(), chart.loop_start) {
                ("holds", _) => "witness",
                (_, Some(_)) => "counterexample (a loop)",
                _ if c.get("deadlock") == Some(&serde_json::Value::Bool(true)) => {
                    "counterexample (ends in a deadlock)"
                }
                _ => "counterexample",
            };
            page.para(None, &format!("{kind}, {} steps:", chart.rows.len()));
            page.chart(chart);
        }
    }
    page.finish()
}

/// Who waits where, in a deadlock.
fn stuck(page: &mut Page, c: &serde_json::Value) {
    let stuck = list(c, "stuck");
    if stuck.is_empty() {
        return;
    }
    let rows: Vec<Vec<Cell>> = stuck
        .iter()
        .map(|s| {
            let waits: Vec<String> = list(s, "waits")
                .iter()
                .map(|w| w.as_str().unwrap_or("").to_string())
                .collect();
            vec![
                Cell::new(text(s, "instance")),
                Cell::new(text(s, "position")),
                Cell::new(waits.join(" or ")),
            ]
        })
        .collect();
    page.table("stuck", &["stuck", "at", "waits for"], &rows);
}

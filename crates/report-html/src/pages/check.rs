//! `agentpi check --format html`: every property with its verdict and the statistics of the
//! exploration that decided it, and each counterexample or witness as a chart.

use super::{list, text};
use crate::chart::Chart;
use crate::page::{Cell, Page};

/// The page of `check`'s JSON report (`{"checks": [...]}`) of `file`; `charts[i]` is the
/// chart of check `i`, if it has a trace. The report may add `systems`: one object per
/// exploration (`system`, `checks`, `states`, `transitions`, `depth`, `explored`, `search`,
/// `bytes`; the relations' state spaces without `depth`, `search` and `bytes`), shown as the
/// statistics table.
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
    statistics(&mut page, report);
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
        page.para(
            Some("explored"),
            &format!(
                "decided on {}'s state space: {} states, {} transitions, explored {}",
                text(c, "system"),
                text(c, "states"),
                text(c, "transitions"),
                text(c, "explored")
            ),
        );
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

/// The statistics of each exploration: one row per system explored (all its checks are
/// decided on one exploration) and per state space of a relation.
fn statistics(page: &mut Page, report: &serde_json::Value) {
    let systems = list(report, "systems");
    if systems.is_empty() {
        return;
    }
    page.heading(2, "Statistics");
    let rows: Vec<Vec<Cell>> = systems
        .iter()
        .map(|s| {
            let states = s.get("states").and_then(serde_json::Value::as_u64);
            let bytes = s.get("bytes").and_then(serde_json::Value::as_u64);
            let per_state = match (bytes, states) {
                (Some(b), Some(n)) if n > 0 => format!("{} B", (b + n / 2) / n),
                _ => String::new(),
            };
            vec![
                Cell::new(text(s, "system")),
                Cell::new(text(s, "checks")),
                Cell::new(text(s, "states")),
                Cell::new(text(s, "transitions")),
                Cell::new(text(s, "depth")),
                Cell::new(text(s, "explored")),
                Cell::new(text(s, "search")),
                Cell::new(bytes.map_or(String::new(), kept)),
                Cell::new(per_state),
            ]
        })
        .collect();
    let head = [
        "system",
        "checks",
        "states",
        "transitions",
        "depth",
        "explored",
        "search",
        "kept",
        "a state",
    ];
    page.table("statistics", &head, &rows);
}

/// Bytes as the text's statistics line says them (MiB with one decimal), KiB when small.
fn kept(bytes: u64) -> String {
    match bytes {
        b if b < 1024 * 1024 => format!("{:.1} KiB", b as f64 / 1024.0),
        b => format!("{:.1} MiB", b as f64 / (1024.0 * 1024.0)),
    }
}

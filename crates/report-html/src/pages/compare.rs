//! `agentpi compare --format html`: the verdict, the distinguishing formula, and the
//! distinguishing or counterexample path as a chart of both sides.

use super::text;
use crate::chart::Chart;
use crate::page::{Cell, Page};

/// The page of `compare`'s JSON report; `chart` draws its evidence, if any.
pub fn compare(report: &serde_json::Value, chart: Option<&Chart>) -> String {
    let inputs = report.get("inputs").cloned().unwrap_or_default();
    let (left, right) = (text(&inputs, "left"), text(&inputs, "right"));
    let mut page = Page::new(&format!("agentpi compare {left} {right}"));
    let mut rows = vec![
        vec![Cell::new("check"), Cell::new(text(report, "check"))],
        vec![Cell::new("left"), Cell::new(left)],
        vec![Cell::new("right"), Cell::new(right)],
    ];
    for key in ["equivalence", "model", "other_direction"] {
        if !text(report, key).is_empty() {
            rows.push(vec![Cell::new(key), Cell::new(text(report, key))]);
        }
    }
    rows.push(vec![
        Cell::new("verdict"),
        Cell::verdict(text(report, "verdict")),
    ]);
    page.table("compare", &["", ""], &rows);
    if let Some(evidence) = report.get("evidence").filter(|e| !e.is_null()) {
        page.heading(2, "distinguishing formula (holds in left, not in right)");
        page.pre(&text(evidence, "formula"));
        if evidence.get("checked") == Some(&serde_json::Value::Bool(false)) {
            page.para(
                Some("unknown"),
                "this formula could not be confirmed by the model checker",
            );
        }
    }
    if let Some(c) = report.get("counterexample").filter(|c| !c.is_null()) {
        page.heading(2, "counterexample");
        let trace: Vec<String> = super::list(c, "trace")
            .iter()
            .map(|t| t.as_str().unwrap_or("").to_string())
            .collect();
        page.para(None, &format!("trace: [{}]", trace.join(", ")));
    }
    if let Some(chart) = chart {
        page.chart(chart);
    }
    page.finish()
}

//! The per-rule table of `trace check` and `test`: each rule, its level, its status (passed,
//! failed, not exercised, ...) and why.

use crate::page::{Cell, Page};

/// One row of the table.
#[derive(Clone, Debug)]
pub struct RuleRow {
    pub rule: String,
    pub level: String,
    pub status: String,
    pub why: String,
}

/// Writes the table of `rows` to `page`.
pub fn rules(page: &mut Page, rows: &[RuleRow]) {
    let cells: Vec<Vec<Cell>> = rows
        .iter()
        .map(|r| {
            vec![
                Cell::new(&r.rule),
                Cell::new(&r.level),
                Cell::verdict(r.status.replace('_', " ")),
                Cell::new(&r.why),
            ]
        })
        .collect();
    page.table("rules", &["rule", "level", "status", "why"], &cells);
}

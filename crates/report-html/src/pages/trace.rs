//! `agentpi trace check --format html` and `agentpi test --format html`: a summary, each
//! finding with what it says, its message and its chart (the finding's row marked), and the
//! per-rule table.

use super::rules::{RuleRow, rules};
use crate::chart::Chart;
use crate::page::Page;

/// A finding as the page shows it.
#[derive(Clone, Debug)]
pub struct Finding {
    /// `C3 MUST at message 17 (s2c): ...`.
    pub head: String,
    /// The offending message, as it was on the wire.
    pub message: String,
    /// `the model would accept: ...`, or empty.
    pub expected: String,
    pub chart: Option<Chart>,
}

/// A page titled `title`, with `summary` lines, the table of `table` and each finding.
pub fn trace(title: &str, summary: &[String], table: &[RuleRow], findings: &[Finding]) -> String {
    let mut page = Page::new(title);
    for line in summary {
        page.para(Some("summary"), line);
    }
    page.heading(2, &format!("findings ({})", findings.len()));
    for f in findings {
        page.open("finding");
        page.heading(3, &f.head);
        page.pre(&f.message);
        if !f.expected.is_empty() {
            page.para(Some("note"), &f.expected);
        }
        if let Some(chart) = &f.chart {
            page.chart(chart);
        }
        page.close();
    }
    page.heading(2, "rules");
    rules(&mut page, table);
    page.finish()
}

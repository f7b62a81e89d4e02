//! The result of a lint run: findings in a stable order (listing-wide first, then by tool in
//! listing order, then by pointer and code), a score per principle, counts and token figures.

use super::context::Finding;
use super::input::{Era, ToolSet};
use super::rules::{self, Family};
use super::tokens::Tokens;
use agentpi_diagnostics::Severity;

/// How many tools meet one principle: those with no warning or error of its family.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Score {
    pub family: Family,
    pub name: &'static str,
    pub passing: usize,
    pub total: usize,
}

impl Score {
    /// Whole percent, 100 for an empty listing.
    pub fn percent(&self) -> usize {
        (self.passing * 100).checked_div(self.total).unwrap_or(100)
    }
}

#[derive(Clone, Debug)]
pub struct Report {
    pub origin: String,
    pub era: Option<Era>,
    pub protocol_version: Option<String>,
    /// Tool names in listing order (`#index` for a tool without a name).
    pub tools: Vec<String>,
    pub findings: Vec<Finding>,
    pub scores: Vec<Score>,
    pub tokens: Tokens,
}

impl Report {
    pub fn new(set: &ToolSet, mut findings: Vec<Finding>, tokens: Tokens) -> Report {
        let tools: Vec<String> = set.tools.iter().map(|t| t.name.clone().unwrap_or_else(|| format!("#{}", t.index))).collect();
        let order = |f: &Finding| f.tool.as_ref().and_then(|n| tools.iter().position(|t| t == n)).map_or(0, |i| i + 1);
        findings.sort_by(|a, b| {
            (order(a), a.document(), a.pointer(), &a.diagnostic.code, &a.diagnostic.message)
                .cmp(&(order(b), b.document(), b.pointer(), &b.diagnostic.code, &b.diagnostic.message))
        });
        let scores = scores(&tools, &findings);
        Report { origin: set.origin.clone(), era: set.era, protocol_version: set.protocol_version.clone(), tools, findings, scores, tokens }
    }

    pub fn count(&self, severity: Severity) -> usize {
        self.findings.iter().filter(|f| f.diagnostic.severity == severity).count()
    }

    pub fn has_errors(&self) -> bool {
        self.count(Severity::Error) > 0
    }

    /// Findings about `tool` (or listing-wide ones for `None`).
    pub fn findings_for<'a>(&'a self, tool: Option<&'a str>) -> impl Iterator<Item = &'a Finding> {
        self.findings.iter().filter(move |f| f.tool.as_deref() == tool)
    }
}

fn scores(tools: &[String], findings: &[Finding]) -> Vec<Score> {
    Family::PRINCIPLES
        .iter()
        .map(|&(family, name)| {
            let failing = tools
                .iter()
                .filter(|tool| {
                    findings.iter().any(|f| {
                        f.tool.as_deref() == Some(tool.as_str())
                            && f.diagnostic.severity >= Severity::Warning
                            && rules::find(&f.diagnostic.code).is_some_and(|r| r.family == family)
                    })
                })
                .count();
            Score { family, name, passing: tools.len() - failing, total: tools.len() }
        })
        .collect()
}

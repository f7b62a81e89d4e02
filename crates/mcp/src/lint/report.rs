//! The result of a lint run: findings in a stable order (listing-wide first, then by tool in
//! listing order, then by pointer and code), a score per principle, counts and token figures.

use super::finding::Finding;
use super::principles::documents_failures;
use super::rules::{self, Family};
use super::tokens::Tokens;
use super::toolset::{Era, ToolSet};
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
    /// Whether the MCP+ rules ran per tool (the server uses MCP+, or `--mcp-plus`); otherwise
    /// the scores measure what stock MCP can express.
    pub mcp_plus: bool,
}

impl Report {
    pub fn new(
        set: &ToolSet,
        mut findings: Vec<Finding>,
        tokens: Tokens,
        mcp_plus: bool,
    ) -> Report {
        let tools: Vec<String> = set
            .tools
            .iter()
            .map(|t| t.name.clone().unwrap_or_else(|| format!("#{}", t.index)))
            .collect();
        let order = |f: &Finding| {
            f.tool
                .as_ref()
                .and_then(|n| tools.iter().position(|t| t == n))
                .map_or(0, |i| i + 1)
        };
        findings.sort_by(|a, b| {
            (
                order(a),
                a.document(),
                a.pointer(),
                &a.diagnostic.code,
                &a.diagnostic.message,
            )
                .cmp(&(
                    order(b),
                    b.document(),
                    b.pointer(),
                    &b.diagnostic.code,
                    &b.diagnostic.message,
                ))
        });
        let stock_p3: Option<Vec<bool>> = (!mcp_plus).then(|| {
            set.tools
                .iter()
                .map(|t| documents_failures(&t.value))
                .collect()
        });
        let scores = scores(&tools, &findings, stock_p3.as_deref());
        Report {
            origin: set.origin.clone(),
            era: set.era,
            protocol_version: set.protocol_version.clone(),
            tools,
            findings,
            scores,
            tokens,
            mcp_plus,
        }
    }

    pub fn count(&self, severity: Severity) -> usize {
        self.findings
            .iter()
            .filter(|f| f.diagnostic.severity == severity)
            .count()
    }

    pub fn has_errors(&self) -> bool {
        self.count(Severity::Error) > 0
    }

    /// Findings about `tool` (or listing-wide ones for `None`).
    pub fn findings_for<'a>(&'a self, tool: Option<&'a str>) -> impl Iterator<Item = &'a Finding> {
        self.findings
            .iter()
            .filter(move |f| f.tool.as_deref() == tool)
    }
}

/// Whether `finding` counts against `family`: a warning or error of that family, or (for P3
/// and P4, which need declarations) a tool's missing MCP+ block when the server uses MCP+.
fn fails(finding: &Finding, family: Family) -> bool {
    let code = finding.diagnostic.code.as_str();
    if code == "P002" {
        return finding.tool.is_some() && matches!(family, Family::P3 | Family::P4);
    }
    finding.diagnostic.severity >= Severity::Warning
        && rules::find(code).is_some_and(|r| r.family == family)
}

/// Per principle, the tools with no failing finding. `stock_p3` (servers without MCP+) says per
/// tool whether its description documents how it fails, which is what P3 measures there.
fn scores(tools: &[String], findings: &[Finding], stock_p3: Option<&[bool]>) -> Vec<Score> {
    Family::PRINCIPLES
        .iter()
        .map(|&(family, name)| {
            let failing = tools
                .iter()
                .enumerate()
                .filter(|(index, tool)| {
                    let undocumented = family == Family::P3
                        && stock_p3.is_some_and(|documented| !documented[*index]);
                    undocumented
                        || findings
                            .iter()
                            .any(|f| f.tool.as_deref() == Some(tool.as_str()) && fails(f, family))
                })
                .count();
            Score {
                family,
                name,
                passing: tools.len() - failing,
                total: tools.len(),
            }
        })
        .collect()
}

//! Machine-readable renderings of a lint report: agentpi's own JSON (`--format json`) and
//! SARIF 2.1.0 (`--format sarif`) for code-scanning UIs.

use agentpi_diagnostics::{LineCol, Severity};
use agentpi_mcp::lint::{Finding, Report, rules};
use serde_json::{Value, json};

const SARIF_SCHEMA: &str = "https://json.schemastore.org/sarif-2.1.0.json";
const INFORMATION_URI: &str = "https://github.com/agentpi/agentpi/blob/main/docs/lint.md";

/// Where a finding is in the linted file, when the input was a file.
pub type Position<'a> = &'a dyn Fn(&Finding) -> Option<LineCol>;

/// `--format json`: findings, scores, tokens and counts, in report order.
pub fn json(report: &Report, at: Position) -> Value {
    let findings: Vec<Value> = report.findings.iter().map(|f| finding(f, at(f))).collect();
    let scores: Vec<Value> = report
        .scores
        .iter()
        .map(|s| json!({ "principle": s.family.as_str(), "name": s.name, "passing": s.passing, "total": s.total, "percent": s.percent() }))
        .collect();
    json!({
        "version": 1,
        "origin": report.origin,
        "era": report.era.map(|e| e.as_str()),
        "protocolVersion": report.protocol_version,
        "mcpPlus": report.mcp_plus,
        "tools": report.tools,
        "findings": findings,
        "scores": scores,
        "tokens": {
            "full": report.tokens.full,
            "summaryFirst": report.tokens.summary_first,
            "summaryFirstPlusOne": report.tokens.progressive(1),
        },
        "summary": {
            "errors": report.count(Severity::Error),
            "warnings": report.count(Severity::Warning),
            "notes": report.count(Severity::Note),
        },
    })
}

fn finding(finding: &Finding, at: Option<LineCol>) -> Value {
    let d = &finding.diagnostic;
    json!({
        "line": at.map(|p| p.line),
        "column": at.map(|p| p.col),
        "code": d.code,
        "severity": d.severity.as_str(),
        "tool": finding.tool,
        "message": d.message,
        "document": finding.document(),
        "pointer": finding.pointer(),
        "help": d.help,
    })
}

/// `--format sarif`: one run with the whole rule catalogue and one result per finding.
pub fn sarif(report: &Report, at: Position) -> Value {
    let rules: Vec<Value> = rules::RULES.iter().map(rule).collect();
    let results: Vec<Value> = report.findings.iter().map(|f| result(f, at(f))).collect();
    json!({
        "$schema": SARIF_SCHEMA,
        "version": "2.1.0",
        "runs": [{
            "tool": { "driver": {
                "name": "agentpi-lint",
                "version": env!("CARGO_PKG_VERSION"),
                "informationUri": INFORMATION_URI,
                "rules": rules,
            }},
            "results": results,
        }],
    })
}

fn level(severity: Severity) -> &'static str {
    match severity {
        Severity::Error => "error",
        Severity::Warning => "warning",
        Severity::Note => "note",
    }
}

fn rule(rule: &rules::Rule) -> Value {
    json!({
        "id": rule.code,
        "name": rule.name,
        "shortDescription": { "text": rule.summary },
        "fullDescription": { "text": rule.summary },
        "help": { "text": rule.explain, "markdown": rule.explain },
        "defaultConfiguration": { "level": level(rule.severity) },
        "properties": { "family": rule.family.as_str() },
    })
}

fn result(finding: &Finding, at: Option<LineCol>) -> Value {
    let d = &finding.diagnostic;
    let index = rules::RULES.iter().position(|r| r.code == d.code);
    let mut location = json!({
        "physicalLocation": { "artifactLocation": { "uri": finding.document() } },
    });
    if let Some(at) = at {
        location["physicalLocation"]["region"] =
            json!({ "startLine": at.line, "startColumn": at.col });
    }
    if let Some(tool) = &finding.tool {
        location["logicalLocations"] = json!([{ "name": tool, "fullyQualifiedName": format!("tools/{tool}"), "kind": "function" }]);
    }
    json!({
        "ruleId": d.code,
        "ruleIndex": index,
        "level": level(d.severity),
        "message": { "text": d.message },
        "locations": [location],
        "partialFingerprints": { "agentpiFinding/v1": fingerprint(finding) },
        "properties": { "jsonPointer": finding.pointer() },
    })
}

/// A fingerprint that survives reordering the listing and editing other tools: rule, tool name
/// and the pointer inside the tool (without the tool's position), hashed with 64-bit FNV-1a.
fn fingerprint(finding: &Finding) -> String {
    let pointer = finding.pointer();
    let inside = pointer
        .find("tools/")
        .map(|at| &pointer[at + "tools/".len()..])
        .map_or(pointer, |rest| {
            rest.trim_start_matches(|c: char| c.is_ascii_digit())
        });
    let key = format!(
        "{}\u{0}{}\u{0}{inside}",
        finding.diagnostic.code,
        finding.tool.as_deref().unwrap_or("")
    );
    let hash = key.bytes().fold(0xcbf2_9ce4_8422_2325_u64, |hash, byte| {
        (hash ^ u64::from(byte)).wrapping_mul(0x0000_0100_0000_01b3)
    });
    format!("{hash:016x}")
}

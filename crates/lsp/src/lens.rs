//! The lenses over `check` lines and the diagnostics of their verdicts (see [`crate::checks`]).

use crate::analysis::Analysis;
use crate::checks::{self, Runs, Verdict};
use lsp_types::{CodeLens, Command, DiagnosticRelatedInformation, DiagnosticSeverity, Url};
use serde_json::json;

/// The line of `span` when it is in the document.
fn line(analysis: &Analysis, span: agentpi_diagnostics::Span) -> Option<u32> {
    (span.file == analysis.root).then(|| analysis.range(span).start.line)
}

/// The document's `check` lines: each with the range of its first check and the checks a
/// lens there runs (one, or several for `forall`), in order. Each check's line is computed
/// once: a model of thousands of checks stays linear.
fn check_lines(analysis: &Analysis) -> Vec<(u32, lsp_types::Range, Vec<usize>)> {
    if analysis.loaded.has_errors() {
        return Vec::new();
    }
    let program = &analysis.loaded.program;
    let mut lines: Vec<(u32, lsp_types::Range, Vec<usize>)> = Vec::new();
    for (c, check) in program.checks.iter().enumerate() {
        let Some(at) = line(analysis, check.span) else {
            continue;
        };
        if !checks::runnable(check) {
            continue;
        }
        // The checks of one line are consecutive (forall's expansion, or one per line).
        match lines.last_mut().filter(|(l, _, _)| *l == at) {
            Some((_, _, checks)) => checks.push(c),
            None => lines.push((at, analysis.range(check.span), vec![c])),
        }
    }
    lines
}

/// A lens on each `check` line that runs it, and after a violation one that opens its chart.
pub fn lenses(analysis: &Analysis, name: &str, uri: &Url, runs: &Runs) -> Vec<CodeLens> {
    let mut lenses = Vec::new();
    for (at, range, _) in check_lines(analysis) {
        let verdict = runs.verdicts.get(&(name.to_string(), at));
        let title = match verdict {
            None => "▶ run check".to_string(),
            Some(Verdict::Running(_)) => "■ checking… (click to cancel)".to_string(),
            Some(Verdict::Done { title, .. }) => format!("{title} (click to run again)"),
        };
        let lens = |title: String, command: &str| CodeLens {
            range,
            command: Some(Command::new(
                title,
                command.into(),
                Some(vec![json!(uri), json!(at)]),
            )),
            data: None,
        };
        lenses.push(lens(title, checks::RUN));
        if let Some(Verdict::Done {
            report: Some(_), ..
        }) = verdict
        {
            lenses.push(lens("open the chart".into(), crate::chart::OPEN));
        }
    }
    lenses
}

/// The checks a lens on `line` runs.
pub fn checks_at(analysis: &Analysis, at: u32) -> Vec<usize> {
    check_lines(analysis)
        .into_iter()
        .find(|(l, _, _)| *l == at)
        .map(|(_, _, checks)| checks)
        .unwrap_or_default()
}

/// A diagnostic for each violated check of the document, its trace as related information.
pub fn diagnostics(analysis: &Analysis, name: &str, runs: &Runs) -> Vec<lsp_types::Diagnostic> {
    let mut found = Vec::new();
    if !runs.verdicts.keys().any(|(document, _)| document == name) {
        return found;
    }
    for (at, range, checks) in check_lines(analysis) {
        let Some(Verdict::Done {
            violation: Some((message, steps)),
            ..
        }) = runs.verdicts.get(&(name.to_string(), at))
        else {
            continue;
        };
        let first = analysis.loaded.program.checks[checks[0]].span;
        let Some(location) = analysis.location(first) else {
            continue;
        };
        let related = steps
            .iter()
            .map(|step| DiagnosticRelatedInformation {
                location: location.clone(),
                message: step.clone(),
            })
            .collect();
        found.push(lsp_types::Diagnostic {
            range,
            severity: Some(DiagnosticSeverity::WARNING),
            code: Some(lsp_types::NumberOrString::String("check".into())),
            source: Some("agentpi check".into()),
            message: message.clone(),
            related_information: Some(related),
            ..Default::default()
        });
    }
    found
}

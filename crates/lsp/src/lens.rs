//! The lenses over `check` lines and the diagnostics of their verdicts (see [`crate::checks`]).

use crate::analysis::Analysis;
use crate::checks::{self, Runs, Verdict};
use lsp_types::{CodeLens, Command, DiagnosticRelatedInformation, DiagnosticSeverity, Url};
use serde_json::json;

/// The line of `span` when it is in the document.
fn line(analysis: &Analysis, span: agentpi_diagnostics::Span) -> Option<u32> {
    (span.file == analysis.root).then(|| analysis.range(span).start.line)
}

/// The document's `check` lines, each with the range of its first check there.
fn check_lines(analysis: &Analysis) -> Vec<(u32, lsp_types::Range)> {
    if analysis.loaded.has_errors() {
        return Vec::new();
    }
    let program = &analysis.loaded.program;
    let mut lines: Vec<(u32, lsp_types::Range)> = Vec::new();
    for check in &program.checks {
        let Some(at) = line(analysis, check.span) else {
            continue;
        };
        let runnable = !checks::at_line(program, |s| line(analysis, s), at).is_empty();
        if runnable && !lines.iter().any(|(l, _)| *l == at) {
            lines.push((at, analysis.range(check.span)));
        }
    }
    lines
}

pub fn lenses(analysis: &Analysis, name: &str, uri: &Url, runs: &Runs) -> Vec<CodeLens> {
    check_lines(analysis)
        .into_iter()
        .map(|(at, range)| {
            let title = match runs.verdicts.get(&(name.to_string(), at)) {
                None => "▶ run check".to_string(),
                Some(Verdict::Running(_)) => "■ checking… (click to cancel)".to_string(),
                Some(Verdict::Done { title, .. }) => format!("{title} (click to run again)"),
            };
            let command =
                Command::new(title, checks::RUN.into(), Some(vec![json!(uri), json!(at)]));
            CodeLens {
                range,
                command: Some(command),
                data: None,
            }
        })
        .collect()
}

/// The checks a lens on `line` runs.
pub fn checks_at(analysis: &Analysis, at: u32) -> Vec<usize> {
    match analysis.loaded.has_errors() {
        true => Vec::new(),
        false => checks::at_line(&analysis.loaded.program, |s| line(analysis, s), at),
    }
}

/// A diagnostic for each violated check of the document, its trace as related information.
pub fn diagnostics(analysis: &Analysis, name: &str, runs: &Runs) -> Vec<lsp_types::Diagnostic> {
    let mut found = Vec::new();
    for (at, range) in check_lines(analysis) {
        let Some(Verdict::Done {
            violation: Some((message, steps)),
            ..
        }) = runs.verdicts.get(&(name.to_string(), at))
        else {
            continue;
        };
        let Some(location) = analysis.location(analysis_span(analysis, at)) else {
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

/// The span of the first check on line `at`.
fn analysis_span(analysis: &Analysis, at: u32) -> agentpi_diagnostics::Span {
    let program = &analysis.loaded.program;
    let first = checks_at(analysis, at)[0];
    program.checks[first].span
}

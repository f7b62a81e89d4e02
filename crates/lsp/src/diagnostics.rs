//! The model's diagnostics as LSP diagnostics of one document: the CLI's codes, messages,
//! notes and help, at the exact range of each span.

use crate::analysis::Analysis;
use agentpi_diagnostics::{Diagnostic, Location, Severity};
use lsp_types::{
    DiagnosticRelatedInformation, DiagnosticSeverity, NumberOrString, Position, Range,
};

/// Every diagnostic of the load, as the document's: those in the document at their span;
/// those elsewhere (an imported file, or nowhere) at the top of the document, saying where.
pub fn of(analysis: &Analysis) -> Vec<lsp_types::Diagnostic> {
    analysis
        .loaded
        .diagnostics
        .iter()
        .map(|d| convert(analysis, d))
        .collect()
}

fn convert(analysis: &Analysis, diagnostic: &Diagnostic) -> lsp_types::Diagnostic {
    let mut message = diagnostic.message.clone();
    let mut range = Range::new(Position::new(0, 0), Position::new(0, 0));
    match diagnostic.location {
        Location::Source(span) if span.file == analysis.root => range = analysis.range(span),
        Location::Source(span) => {
            let at = analysis.loaded.sources.position(span);
            message = format!("{at}: {message}");
            let ours = |&&(s, _): &&(agentpi_diagnostics::Span, _)| s.file == analysis.root;
            let mut imports = analysis.imports.iter().filter(ours);
            let leading = imports.clone().find(|(_, target)| *target == span.file);
            if let Some(&(import, _)) = leading.or_else(|| imports.next()) {
                range = analysis.range(import);
            }
        }
        Location::Pointer { .. } | Location::Nowhere => {}
    }
    if let Some(label) = &diagnostic.primary_label {
        message = format!("{message}: {label}");
    }
    for note in &diagnostic.notes {
        message = format!("{message}\nnote: {note}");
    }
    if let Some(help) = &diagnostic.help {
        message = format!("{message}\nhelp: {help}");
    }
    let mut related: Vec<DiagnosticRelatedInformation> = Vec::new();
    if let Location::Source(span) = diagnostic.location
        && span.file != analysis.root
        && let Some(location) = analysis.location(span)
    {
        let message = "the mistake is here".to_string();
        related.push(DiagnosticRelatedInformation { location, message });
    }
    related.extend(diagnostic.labels.iter().filter_map(|label| {
        Some(DiagnosticRelatedInformation {
            location: analysis.location(label.span)?,
            message: label.message.clone(),
        })
    }));
    lsp_types::Diagnostic {
        range,
        severity: Some(severity(diagnostic.severity)),
        code: Some(NumberOrString::String(diagnostic.code.clone())),
        source: Some("agentpi".to_string()),
        message,
        related_information: (!related.is_empty()).then_some(related),
        ..Default::default()
    }
}

fn severity(severity: Severity) -> DiagnosticSeverity {
    match severity {
        Severity::Error => DiagnosticSeverity::ERROR,
        Severity::Warning => DiagnosticSeverity::WARNING,
        Severity::Note => DiagnosticSeverity::INFORMATION,
    }
}

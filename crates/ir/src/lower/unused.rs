//! W0001: definitions of the root file that nothing uses. Only reported when the model has no
//! errors (an error can hide uses), and never for imported files (libraries offer more than
//! one model needs).

use super::{Kind, Lowerer};
use agentpi_diagnostics::{Diagnostic, FileId, Span};

pub(crate) fn warn(lw: &mut Lowerer) {
    if lw.diags.iter().any(|d| d.is_error()) {
        return;
    }
    let mut found: Vec<(Kind, &str, Span)> = Vec::new();
    found.extend(
        lw.g.type_decls
            .iter()
            .map(|d| (Kind::Type, d.name.name.as_str(), d.name.span)),
    );
    found.extend(
        lw.g.consts
            .iter()
            .map(|d| (Kind::Const, d.name.name.as_str(), d.name.span)),
    );
    found.extend(
        lw.g.chans
            .iter()
            .map(|d| (Kind::Chan, d.name.name.as_str(), d.name.span)),
    );
    found.extend(
        lw.g.events
            .iter()
            .map(|d| (Kind::Event, d.name.name.as_str(), d.name.span)),
    );
    found.extend(
        lw.g.proc_decls
            .iter()
            .map(|d| (Kind::Proc, d.name.name.as_str(), d.name.span)),
    );
    let mut warnings = Vec::new();
    for (kind, name, span) in found {
        if span.file != FileId(0) || lw.used.contains(&(kind, name.to_string())) {
            continue;
        }
        let what = match kind {
            Kind::Type => "type",
            Kind::Const => "constant",
            Kind::Chan => "channel",
            Kind::Event => "event",
            Kind::Proc => "process",
        };
        warnings.push(
            Diagnostic::warning("W0001", format!("the {what} `{name}` is never used"))
                .at(span)
                .with_label("defined here")
                .with_help("remove it, or use it in a system or property"),
        );
    }
    lw.diags.extend(warnings);
}

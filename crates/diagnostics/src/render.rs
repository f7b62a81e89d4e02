//! The terminal renderer: `FILE:LINE:COL: error[CODE]: message`, a source snippet with a caret
//! line, then notes and help. Plain text, no colour, so output is byte-stable in tests.

use crate::{Diagnostic, Location, SourceMap, Span};
use std::fmt::Write;

/// Renders one diagnostic as rustc-style text ending in a newline.
pub fn terminal(diagnostic: &Diagnostic, sources: &SourceMap) -> String {
    let mut out = String::new();
    let head = format!(
        "{}[{}]: {}",
        diagnostic.severity.as_str(),
        diagnostic.code,
        diagnostic.message
    );
    match &diagnostic.location {
        Location::Source(span) => {
            let _ = writeln!(out, "{}: {head}", sources.position(*span));
            snippet(
                &mut out,
                sources,
                *span,
                diagnostic.primary_label.as_deref().unwrap_or(""),
            );
        }
        Location::Pointer { document, pointer } => {
            let _ = writeln!(out, "{document}: {head}");
            let _ = writeln!(
                out,
                "  --> {}",
                if pointer.is_empty() { "/" } else { pointer }
            );
        }
        Location::Nowhere => {
            let _ = writeln!(out, "{head}");
        }
    }
    for label in &diagnostic.labels {
        let _ = writeln!(out, "  {}: {}", sources.position(label.span), label.message);
        snippet(&mut out, sources, label.span, "");
    }
    for note in &diagnostic.notes {
        let _ = writeln!(out, "  = note: {note}");
    }
    if let Some(help) = &diagnostic.help {
        let _ = writeln!(out, "  = help: {help}");
    }
    out
}

/// Renders many diagnostics, separated by blank lines.
pub fn terminal_all(diagnostics: &[Diagnostic], sources: &SourceMap) -> String {
    diagnostics
        .iter()
        .map(|d| terminal(d, sources))
        .collect::<Vec<_>>()
        .join("\n")
}

fn snippet(out: &mut String, sources: &SourceMap, span: Span, label: &str) {
    let file = sources.get(span.file);
    let start = file.line_col(span.start);
    let end = file.line_col(span.end);
    let line = file.line_text(start.line);
    let gutter = start.line.to_string().len();
    let width = if end.line == start.line {
        (end.col - start.col).max(1)
    } else {
        1
    };
    let pad = " ".repeat(gutter);
    let indent: String = line
        .chars()
        .take(start.col as usize - 1)
        .map(|c| if c == '\t' { '\t' } else { ' ' })
        .collect();
    let _ = writeln!(out, "{pad} |");
    let _ = writeln!(out, "{} | {line}", start.line);
    let carets = "^".repeat(width as usize);
    let label = if label.is_empty() {
        String::new()
    } else {
        format!(" {label}")
    };
    let _ = writeln!(out, "{pad} | {indent}{carets}{label}");
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Diagnostic;

    #[test]
    fn renders_position_snippet_and_help() {
        let mut sources = SourceMap::new();
        let file = sources.add("m.pi", "proc P = c!1\n");
        let diagnostic = Diagnostic::error("E0201", "unknown channel `c`")
            .at(Span::new(file, 9, 10))
            .with_label("not declared")
            .with_help("declare it with `chan c : Int`");
        let text = terminal(&diagnostic, &sources);
        assert_eq!(
            text,
            "m.pi:1:10: error[E0201]: unknown channel `c`\n  |\n1 | proc P = c!1\n  |          ^ not declared\n  = help: declare it with `chan c : Int`\n"
        );
    }
}

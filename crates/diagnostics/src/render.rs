//! The terminal renderer: `FILE:LINE:COL: error[CODE]: message`, a source snippet with a caret
//! line, then notes and help. Plain text, no colour, so output is byte-stable in tests.

use crate::source::floor_char_boundary;
use crate::{Diagnostic, Location, Severity, SourceMap, Span};
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

/// Renders the first `limit` diagnostics as [`terminal_all`] does, then one line counting the
/// ones left out by severity (`... and 4,980 more errors and 2 more warnings not shown`), as
/// compilers do: a file with 50,000 errors costs 20 snippets, not 50,000.
pub fn terminal_first(diagnostics: &[Diagnostic], sources: &SourceMap, limit: usize) -> String {
    let shown = diagnostics.len().min(limit);
    let mut out = terminal_all(&diagnostics[..shown], sources);
    let rest = &diagnostics[shown..];
    if !rest.is_empty() {
        let counts: Vec<String> = [Severity::Error, Severity::Warning, Severity::Note]
            .into_iter()
            .map(|severity| {
                (
                    severity,
                    rest.iter().filter(|d| d.severity == severity).count(),
                )
            })
            .filter(|&(_, n)| n > 0)
            .map(|(severity, n)| {
                let plural = if n == 1 { "" } else { "s" };
                format!("{n} more {}{plural}", severity.as_str())
            })
            .collect();
        let _ = writeln!(out, "\n... and {} not shown", counts.join(" and "));
    }
    out
}

/// A line longer than `LONG` bytes is cut to a window of `SHOWN` bytes, `BEFORE` of them before
/// the caret, so that a diagnostic on a line of 250 KB costs what one on a short line costs.
const LONG: usize = 1000;
const BEFORE: usize = 200;
const SHOWN: usize = 500;

fn snippet(out: &mut String, sources: &SourceMap, span: Span, label: &str) {
    let file = sources.get(span.file);
    let start = file.line_col(span.start);
    let end = file.line_col(span.end);
    let range = file.line_range(start.line);
    let caret = (span.start as usize).clamp(range.start, range.end);
    let (from, to) = if range.len() <= LONG {
        (range.start, range.end)
    } else {
        let from = floor_char_boundary(&file.text, caret.saturating_sub(BEFORE).max(range.start));
        (
            from,
            ceil_char_boundary(&file.text, (from + SHOWN).min(range.end)),
        )
    };
    let (head, tail) = (
        if from > range.start { "..." } else { "" },
        if to < range.end { "..." } else { "" },
    );
    let line = &file.text[from..to];
    let gutter = start.line.to_string().len();
    let before = &file.text[from..floor_char_boundary(&file.text, caret)];
    let room = file.text[floor_char_boundary(&file.text, caret)..to]
        .chars()
        .count()
        .max(1);
    let width = if end.line == start.line {
        ((end.col - start.col) as usize).clamp(1, room)
    } else {
        1
    };
    let pad = " ".repeat(gutter);
    let indent: String = " ".repeat(head.len())
        + &before
            .chars()
            .map(|c| if c == '\t' { '\t' } else { ' ' })
            .collect::<String>();
    let _ = writeln!(out, "{pad} |");
    let _ = writeln!(out, "{} | {head}{line}{tail}", start.line);
    let carets = "^".repeat(width);
    let label = if label.is_empty() {
        String::new()
    } else {
        format!(" {label}")
    };
    let _ = writeln!(out, "{pad} | {indent}{carets}{label}");
}

fn ceil_char_boundary(text: &str, mut index: usize) -> usize {
    index = index.min(text.len());
    while !text.is_char_boundary(index) {
        index += 1;
    }
    index
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

    /// A file of one long line: the snippet is a window around the caret, marked `...`.
    #[test]
    fn long_lines_are_cut_around_the_caret() {
        let mut sources = SourceMap::new();
        let line = "a!. ".repeat(1000);
        let file = sources.add("m.pi", format!("proc P = {line}0\n"));
        let at = 9 + 4 * 500;
        let diagnostic = Diagnostic::error("E0201", "unknown channel `a`")
            .at(Span::new(file, at, at + 1))
            .with_label("not declared");
        let text = terminal(&diagnostic, &sources);
        let window = "a!. ".repeat(125);
        assert_eq!(
            text,
            format!(
                "m.pi:1:2010: error[E0201]: unknown channel `a`\n  |\n1 | ...{window}...\n  | {}^ not declared\n",
                " ".repeat(203)
            )
        );
    }

    #[test]
    fn only_the_first_diagnostics_are_shown_and_the_rest_counted() {
        let mut sources = SourceMap::new();
        let file = sources.add("m.pi", "x\n");
        let mut all: Vec<Diagnostic> = (0..5)
            .map(|_| Diagnostic::error("E0201", "bad").at(Span::new(file, 0, 1)))
            .collect();
        all.push(Diagnostic::warning("W0001", "unused"));
        let text = terminal_first(&all, &sources, 2);
        assert_eq!(text.matches("error[E0201]").count(), 2);
        assert!(
            text.ends_with("\n... and 3 more errors and 1 more warning not shown\n"),
            "{text}"
        );
        assert_eq!(
            terminal_first(&all, &sources, 6),
            terminal_all(&all, &sources)
        );
    }
}

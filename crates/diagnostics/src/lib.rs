//! One diagnostic model for every agentpi feature, and the source map that locates it.
//!
//! A [`Diagnostic`] says what is wrong (code, severity, message), where (a source span or a
//! JSON pointer into a document), and what to do (notes, help). Renderers turn it into text:
//! [`render::terminal`] here; JSON and SARIF live in the binary, which alone prints.

pub mod render;
mod source;

pub use source::{FileId, LineCol, SourceFile, SourceMap, Span};

/// How bad a finding is. Ordered from least to most severe.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Severity {
    Note,
    Warning,
    Error,
}

impl Severity {
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Note => "note",
            Severity::Warning => "warning",
            Severity::Error => "error",
        }
    }

    pub fn parse(text: &str) -> Option<Severity> {
        match text {
            "note" | "info" => Some(Severity::Note),
            "warning" | "warn" => Some(Severity::Warning),
            "error" => Some(Severity::Error),
            _ => None,
        }
    }
}

/// Where a diagnostic points.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Location {
    /// A byte range of a source file in a [`SourceMap`].
    Source(Span),
    /// A JSON pointer (RFC 6901) into a named document, such as a tool definition.
    Pointer { document: String, pointer: String },
    /// Nowhere in particular (a whole-run finding).
    Nowhere,
}

/// A secondary location with its own message.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Label {
    pub span: Span,
    pub message: String,
}

/// A finding: the one type that every parser, checker and linter reports in.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Diagnostic {
    pub severity: Severity,
    /// A stable code such as `E0101` or `P301`.
    pub code: String,
    pub message: String,
    pub location: Location,
    /// A short text shown under the primary span.
    pub primary_label: Option<String>,
    pub labels: Vec<Label>,
    pub notes: Vec<String>,
    pub help: Option<String>,
}

impl Diagnostic {
    pub fn new(severity: Severity, code: impl Into<String>, message: impl Into<String>) -> Self {
        Diagnostic {
            severity,
            code: code.into(),
            message: message.into(),
            location: Location::Nowhere,
            primary_label: None,
            labels: Vec::new(),
            notes: Vec::new(),
            help: None,
        }
    }

    pub fn error(code: impl Into<String>, message: impl Into<String>) -> Self {
        Diagnostic::new(Severity::Error, code, message)
    }

    pub fn warning(code: impl Into<String>, message: impl Into<String>) -> Self {
        Diagnostic::new(Severity::Warning, code, message)
    }

    pub fn at(mut self, span: Span) -> Self {
        self.location = Location::Source(span);
        self
    }

    pub fn at_pointer(mut self, document: impl Into<String>, pointer: impl Into<String>) -> Self {
        self.location = Location::Pointer {
            document: document.into(),
            pointer: pointer.into(),
        };
        self
    }

    pub fn with_label(mut self, text: impl Into<String>) -> Self {
        self.primary_label = Some(text.into());
        self
    }

    pub fn with_secondary(mut self, span: Span, text: impl Into<String>) -> Self {
        self.labels.push(Label {
            span,
            message: text.into(),
        });
        self
    }

    pub fn with_note(mut self, text: impl Into<String>) -> Self {
        self.notes.push(text.into());
        self
    }

    pub fn with_help(mut self, text: impl Into<String>) -> Self {
        self.help = Some(text.into());
        self
    }

    pub fn is_error(&self) -> bool {
        self.severity == Severity::Error
    }

    /// The primary span, when the diagnostic points into a source file.
    pub fn span(&self) -> Option<Span> {
        match self.location {
            Location::Source(span) => Some(span),
            _ => None,
        }
    }
}

/// Sorts diagnostics by file, then position, then code, so output order never depends on the
/// order in which passes ran.
pub fn sort(diagnostics: &mut [Diagnostic]) {
    diagnostics.sort_by(|a, b| {
        let key = |d: &Diagnostic| d.span().map(|s| (s.file.0, s.start, s.end));
        key(a).cmp(&key(b)).then_with(|| a.code.cmp(&b.code))
    });
}

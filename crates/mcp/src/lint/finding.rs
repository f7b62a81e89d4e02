//! A finding: one diagnostic of a catalogue rule, and the tool it is about. Every rule, the
//! input readers and the report share this type, so it depends on nothing but the catalogue.

use super::rules;
use agentpi_diagnostics::Diagnostic;

/// One finding: a diagnostic and the tool it is about (`None` for whole-listing findings).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Finding {
    pub tool: Option<String>,
    pub diagnostic: Diagnostic,
}

impl Finding {
    /// A finding for a catalogue rule at its default severity.
    pub fn new(code: &str, tool: Option<String>, message: String) -> Finding {
        let rule =
            rules::find(code).unwrap_or_else(|| panic!("rule {code} is not in the catalogue"));
        let diagnostic = Diagnostic::new(rule.severity, code, message);
        Finding { tool, diagnostic }
    }

    /// The JSON pointer the finding points at, or "" for none.
    pub fn pointer(&self) -> &str {
        match &self.diagnostic.location {
            agentpi_diagnostics::Location::Pointer { pointer, .. } => pointer,
            _ => "",
        }
    }

    pub fn document(&self) -> &str {
        match &self.diagnostic.location {
            agentpi_diagnostics::Location::Pointer { document, .. } => document,
            _ => "",
        }
    }
}

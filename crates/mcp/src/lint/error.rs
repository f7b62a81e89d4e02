//! Why an input (a file, a server, a config) could not be read: [`InputError`], rendered by the
//! CLI with exit status 2.

use std::fmt;

/// Why an input could not be read. Rendered by the CLI; exit status 2.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InputError {
    /// `FILE`, `FILE:LINE:COL`, or a server description.
    pub place: String,
    pub message: String,
    pub help: Option<String>,
}

impl InputError {
    pub fn new(place: impl Into<String>, message: impl Into<String>) -> InputError {
        InputError {
            place: place.into(),
            message: message.into(),
            help: None,
        }
    }

    pub fn with_help(mut self, help: impl Into<String>) -> InputError {
        self.help = Some(help.into());
        self
    }
}

impl fmt::Display for InputError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.place, self.message)
    }
}

pub const SHAPES: &str = "expected a tools/list result ({\"tools\": [...]}), a JSON-RPC response carrying one, a JSON array of tools, or a recorded session (JSON lines)";

pub fn json_error(name: &str, error: &serde_json::Error) -> InputError {
    // serde_json gives column 0 at the start of a line (an empty file): columns count from 1.
    let place = format!("{name}:{}:{}", error.line(), error.column().max(1));
    InputError::new(place, format!("not valid JSON: {error}")).with_help(SHAPES)
}

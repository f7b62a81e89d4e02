//! One module per subcommand, and the report format `compare` and `minimize` share.

pub mod bridge;
pub mod check;
mod checker;
pub mod compare;
pub mod extract;
pub mod lint;
pub mod lsp;
pub mod lts;
pub mod minimize;
pub mod models;
pub mod monitor;
pub mod monitor_http;
mod private;
mod queue;
mod relation;
pub mod replay;
pub mod run;
mod run_text;
pub mod sgd;
pub mod sim;
pub mod test;
pub mod trace;
mod trace_across;
pub mod view;

/// A report as text for people or JSON for programs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    Text,
    Json,
}

/// A report as text, JSON, one self-contained HTML page, or its sequence charts as SVG
/// (`trace check`, `compare`, `run`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Shown {
    Text,
    Json,
    Html,
    Svg,
}

impl Shown {
    /// The plain format: the text for text, else the JSON the pictures are drawn from.
    pub fn data(self) -> Format {
        match self {
            Shown::Text => Format::Text,
            _ => Format::Json,
        }
    }
}

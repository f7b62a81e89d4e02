//! `agentpi lsp`: the language server over standard input and output (crates/lsp). Files
//! are read by the same loader as every command's, bundled models included.

use crate::{loader, output};

#[derive(clap::Args)]
pub struct Args {
    /// Talk over standard input and output (the only transport, and the default; accepted
    /// because language clients such as VS Code's pass it).
    #[arg(long)]
    pub stdio: bool,
}

/// The exit statuses, for `--help`.
pub const EXIT_STATUS: &str = "Exit status: 0 the client shut the server down, 1 the \
connection failed (the client went away without `shutdown`, or sent no `initialize`).";

pub fn run(_: Args) -> u8 {
    match agentpi_lsp::serve_stdio(&loader::Loader) {
        Ok(()) => 0,
        Err(error) => {
            output::errln!("error: agentpi lsp: {error}");
            1
        }
    }
}

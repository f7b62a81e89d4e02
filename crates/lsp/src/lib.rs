//! agentpi-lsp: the language server of the `.pi` modelling language (`agentpi lsp`), on
//! `lsp-server` and `lsp-types` (rust-analyzer's), over the parser and checker crates.
//!
//! Every change of a document is loaded with `agentpi_ir::load` (the parser never fails, so
//! every keystroke gets diagnostics, with the CLI's codes); hover, definitions, references,
//! the outline, completion, rename and semantic tokens come from an [`index`] of the syntax
//! trees. The protocol's bytes go through `lsp-server`'s connection; nothing else is printed.

mod analysis;
mod chart;
mod checks;
mod completion;
mod diagnostics;
mod hover;
pub mod index;
mod keywords;
mod lens;
mod navigate;
mod overlay;
pub mod position;
mod rename;
mod requests;
mod semantic;
mod server;
mod symbols;
mod uri;

pub use lsp_server::Connection;

use agentpi_ir::Loader;

/// Serves one client on `connection` until it shuts down: the initialize handshake, then
/// every request and notification. Files are read through `loader` (with open documents'
/// unsaved text over it).
pub fn serve(connection: &Connection, loader: &dyn Loader) -> Result<(), String> {
    let capabilities = serde_json::to_value(requests::capabilities()).map_err(|e| e.to_string())?;
    let init = connection.initialize(capabilities);
    let init = init.map_err(|e| format!("the client's initialize went wrong: {e}"))?;
    let init: lsp_types::InitializeParams = serde_json::from_value(init)
        .map_err(|e| format!("the client's initialize has malformed parameters: {e}"))?;
    server::Server::new(connection, loader, &init).run()
}

/// [`serve`] on standard input and output.
pub fn serve_stdio(loader: &dyn Loader) -> Result<(), String> {
    let (connection, io) = Connection::stdio();
    let served = serve(&connection, loader);
    drop(connection);
    let joined = io
        .join()
        .map_err(|e| format!("standard input or output failed: {e}"));
    served.and(joined)
}

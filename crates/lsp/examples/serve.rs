//! The language server over standard input and output, loading models as `agentpi lsp` does
//! (files, and bundled models by name, through `agentpi_models`): what `bench/lsp/run.sh`
//! times when no release build of the whole `agentpi` binary is at hand. Arguments are
//! ignored (the bench passes `lsp`).

fn main() -> std::process::ExitCode {
    match agentpi_lsp::serve_stdio(&agentpi_models::Loader) {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(_) => std::process::ExitCode::FAILURE,
    }
}
